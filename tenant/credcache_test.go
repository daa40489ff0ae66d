package tenant_test

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/tenant"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestCredentialCache: a cached credential survives a revocation made by
// another process for at most the TTL; one made through the service
// takes effect at once; unknown keys are never cached.
func TestCredentialCache(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := sqlstore.Open(ctx, testdb.URL(t, d), slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			key := make([]byte, seal.KeySize)
			_, _ = rand.Read(key)
			sealer, _ := seal.New(key, rand.Reader)
			c := &clock{t: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
			svc := tenant.New(db, sealer, rand.Reader, c.now).CacheCredentials(10*time.Second, 100)
			// other stands for the CLI or another replica on the same
			// database.
			other := tenant.New(db, sealer, rand.Reader, c.now)
			_, creds, err := svc.CreateBusiness(ctx, "Cached")
			if err != nil {
				t.Fatal(err)
			}
			a, b := creds[0], creds[1]

			for _, cr := range []verifyd.Credential{a, b} {
				got, err := svc.Credential(ctx, cr.APIKey)
				if err != nil || got.APISecret != cr.APISecret {
					t.Fatalf("Credential(%s) = %+v, %v", cr.APIKey, got, err)
				}
			}
			// Revoked elsewhere: still accepted here until the TTL ends.
			if _, err := other.RevokeKey(ctx, a.APIKey); err != nil {
				t.Fatal(err)
			}
			c.advance(10*time.Second - time.Microsecond)
			if _, err := svc.Credential(ctx, a.APIKey); err != nil {
				t.Errorf("within the TTL of a revocation elsewhere: %v, want the cached credential", err)
			}
			c.advance(time.Microsecond)
			if _, err := svc.Credential(ctx, a.APIKey); !errors.Is(err, tenant.ErrUnknownKey) {
				t.Errorf("after the TTL of a revocation elsewhere: %v, want ErrUnknownKey", err)
			}
			// Revoked here: refused at once, though b was just cached.
			if _, err := svc.Credential(ctx, b.APIKey); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.RevokeKey(ctx, b.APIKey); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Credential(ctx, b.APIKey); !errors.Is(err, tenant.ErrUnknownKey) {
				t.Errorf("right after RevokeKey: %v, want ErrUnknownKey", err)
			}
			// Made-up keys are refused, and a key created elsewhere is
			// found at once (only active credentials are cached).
			fresh, err := other.CreateKey(ctx, a.BusinessID, verifyd.InterfaceIdentity, verifyd.EnvSandbox)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Credential(ctx, fresh.APIKey+"x"); !errors.Is(err, tenant.ErrUnknownKey) {
				t.Errorf("made-up key: %v", err)
			}
			if _, err := svc.Credential(ctx, fresh.APIKey); err != nil {
				t.Errorf("a key created elsewhere: %v", err)
			}
		})
	}
}
