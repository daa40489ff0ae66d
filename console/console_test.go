package console_test

import (
	"context"
	"errors"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/console"
	"github.com/verifyd/verifyd/sqlstore"
)

const password = "correct horse battery staple"

func newService(t *testing.T, now func() time.Time) *console.Service {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "v.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := console.New(db, nil, console.Config{UserLimit: 2, IPLimit: 3, LimitWindow: time.Hour, Now: now})
	for _, name := range []string{"ada", "bob"} {
		if _, err := s.CreateOperator(context.Background(), name, password); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestAuthenticateLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newService(t, func() time.Time { return clock })
	ip := netip.MustParseAddr("203.0.113.7")
	limited := func(err error) bool {
		var rl *console.RateLimitedError
		return errors.As(err, &rl) && rl.RetryAfter > 0
	}

	// A success forgives its attempt: an operator who types the password
	// right is never limited.
	for range 4 {
		if _, err := s.Authenticate(ctx, "ada", password, ip); err != nil {
			t.Fatalf("good login: %v", err)
		}
	}
	// Per username and address: 2 failures, then refused even with the
	// right password from that address, but not from another one (a
	// stranger cannot lock the operator out).
	for range 2 {
		if _, err := s.Authenticate(ctx, "ada", "wrong password!", ip); !errors.Is(err, console.ErrBadLogin) {
			t.Fatalf("wrong password: %v", err)
		}
	}
	if _, err := s.Authenticate(ctx, "ada", password, ip); !limited(err) {
		t.Fatalf("third attempt for ada from that address: %v, want rate limited", err)
	}
	if _, err := s.Authenticate(ctx, "ada", password, netip.MustParseAddr("198.51.100.9")); err != nil {
		t.Fatalf("ada from elsewhere: %v", err)
	}
	// Per address: the address has 2 failures; one more (on another user)
	// reaches its limit of 3.
	if _, err := s.Authenticate(ctx, "nobody", password, ip); !errors.Is(err, console.ErrBadLogin) {
		t.Fatalf("unknown user: %v", err)
	}
	if _, err := s.Authenticate(ctx, "bob", password, ip); !limited(err) {
		t.Fatalf("bob from a limited address: %v, want rate limited", err)
	}
	if _, err := s.Authenticate(ctx, "bob", password, netip.MustParseAddr("198.51.100.1")); err != nil {
		t.Fatalf("bob from another address: %v", err)
	}
	// After the window both work again.
	clock = clock.Add(time.Hour + time.Second)
	if _, err := s.Authenticate(ctx, "ada", password, ip); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestAuthenticateIPv6Prefix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newService(t, time.Now)
	// Addresses of one /64 count as one client.
	for i, a := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::3"} {
		if _, err := s.Authenticate(ctx, "user"+string(rune('a'+i)), password, netip.MustParseAddr(a)); !errors.Is(err, console.ErrBadLogin) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	var rl *console.RateLimitedError
	if _, err := s.Authenticate(ctx, "bob", password, netip.MustParseAddr("2001:db8:1:2::99")); !errors.As(err, &rl) {
		t.Fatalf("fourth attempt from the /64: %v, want rate limited", err)
	}
	if _, err := s.Authenticate(ctx, "bob", password, netip.MustParseAddr("2001:db8:1:3::1")); err != nil {
		t.Fatalf("another /64: %v", err)
	}
}

func TestDisabledOperatorCannotSignIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newService(t, time.Now)
	if _, err := s.DisableOperator(ctx, "ADA"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, "ada", password, netip.MustParseAddr("192.0.2.1")); !errors.Is(err, console.ErrBadLogin) {
		t.Fatalf("disabled operator: %v, want the generic refusal", err)
	}
	if _, err := s.ActiveOperator(ctx, "ada"); !errors.Is(err, verifyd.ErrNotFound) {
		t.Fatalf("ActiveOperator of a disabled operator: %v", err)
	}
	if _, err := s.CreateOperator(ctx, "eve", "short"); verifyd.ErrorCodeOf(err) != verifyd.EInvalid {
		t.Fatalf("short password: %v", err)
	}
}
