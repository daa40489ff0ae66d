package tenant

import (
	"sync"
	"time"

	"github.com/verifyd/verifyd"
)

// credentialCache keeps credentials that authenticated recently, secret
// opened, so that a signed request costs neither a database read nor an
// AES-GCM open: on SQLite those were about a quarter of B3's time
// (docs/performance.md).
//
// Entries live ttl at most. RevokeKey drops the key from this process's
// cache at once; a revocation made elsewhere (the CLI, another replica on
// PostgreSQL) takes effect here when the entry expires, so ttl is the
// longest a revoked key may still be accepted. Only active credentials
// are kept, never unknown keys: made-up keys cannot fill it, and at most
// max entries are held (when full, expired ones are dropped, then all).
type credentialCache struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.RWMutex
	entries map[string]cachedCredential
	// epoch counts revocations: a credential read from the store before
	// one is not kept, so a read racing a revocation cannot put the
	// revoked key back.
	epoch uint64
}

type cachedCredential struct {
	cred  verifyd.Credential
	until time.Time
}

func newCredentialCache(ttl time.Duration, max int, now func() time.Time) *credentialCache {
	return &credentialCache{ttl: ttl, max: max, now: now, entries: map[string]cachedCredential{}}
}

// get returns the cached credential of a key, if it has not expired.
func (c *credentialCache) get(key string) (verifyd.Credential, bool) {
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if !ok || !c.now().Before(e.until) {
		return verifyd.Credential{}, false
	}
	return e.cred, true
}

// currentEpoch is taken before a credential is read from the store, and
// given to put with what was read.
func (c *credentialCache) currentEpoch() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.epoch
}

// put keeps an active credential read from the store in epoch for ttl,
// unless a key was revoked since.
func (c *credentialCache) put(cred verifyd.Credential, epoch uint64) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if _, ok := c.entries[cred.APIKey]; !ok && len(c.entries) >= c.max {
		for k, e := range c.entries {
			if !now.Before(e.until) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
	}
	c.entries[cred.APIKey] = cachedCredential{cred: cred, until: now.Add(c.ttl)}
}

// revoked forgets a key once its revocation is stored, and refuses what
// reads that began before then would put back.
func (c *credentialCache) revoked(key string) {
	c.mu.Lock()
	c.epoch++
	delete(c.entries, key)
	c.mu.Unlock()
}
