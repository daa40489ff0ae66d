package tenant

import (
	"fmt"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// TestCredentialCacheBounds: the cache never holds more than max entries,
// and a credential read before a revocation is not put back after it.
func TestCredentialCacheBounds(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	c := newCredentialCache(time.Minute, 8, func() time.Time { return now })
	for i := range 100 {
		c.put(verifyd.Credential{APIKey: fmt.Sprint("k", i)}, c.currentEpoch())
		if len(c.entries) > 8 {
			t.Fatalf("%d entries after %d puts, max 8", len(c.entries), i+1)
		}
	}
	if _, ok := c.get("k99"); !ok {
		t.Error("the newest entry is not cached")
	}

	// A read that began before a revocation finishes after it.
	epoch := c.currentEpoch()
	c.revoked("late")
	c.put(verifyd.Credential{APIKey: "late"}, epoch)
	if _, ok := c.get("late"); ok {
		t.Error("a credential read before its revocation was cached after it")
	}
	c.put(verifyd.Credential{APIKey: "late"}, c.currentEpoch())
	if _, ok := c.get("late"); !ok {
		t.Error("a credential read after the revocation was not cached")
	}
	now = now.Add(time.Minute)
	if _, ok := c.get("late"); ok {
		t.Error("an entry outlived its TTL")
	}
}
