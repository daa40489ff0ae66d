package webauth_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/webauth"
)

type limitedError struct{ wait time.Duration }

func (e *limitedError) Error() string { return "limited" }

func TestLogIn(t *testing.T) {
	t.Parallel()
	const password = "correct horse battery staple"
	hash, err := webauth.HashPasswordWith(password, cheap, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	badLogin := errors.New("bad login")
	c := newClock()
	l := webauth.NewLogins(webauth.LoginConfig{UserLimit: 2, ClientLimit: 3, Window: time.Hour, Now: c.now,
		BadLogin: badLogin, Limited: func(wait time.Duration) error { return &limitedError{wait} }})
	accounts := map[string]webauth.Credential{
		"ada": {PasswordHash: hash, Name: "ada"},
		"bob": {PasswordHash: hash, Name: "bob"},
		"eve": {PasswordHash: hash, Name: "eve", Disabled: true},
		"odd": {PasswordHash: "$argon2id$broken", Name: "account odd"},
	}
	logIn := func(user, pw, addr string) error {
		return l.LogIn("user:"+user, netip.MustParseAddr(addr), pw, func() (webauth.Credential, error) {
			c, ok := accounts[user]
			if !ok {
				return c, verifyd.ErrNotFound
			}
			return c, nil
		})
	}
	limited := func(err error) bool {
		var le *limitedError
		return errors.As(err, &le) && le.wait > 0
	}

	for range 4 { // a success forgives its attempt
		if err := logIn("ada", password, "192.0.2.1"); err != nil {
			t.Fatalf("good login: %v", err)
		}
	}
	for _, user := range []string{"nobody", "eve"} {
		if err := logIn(user, password, "198.51.100.1"); err != badLogin {
			t.Fatalf("%s: %v, want the bad login error", user, err)
		}
	}
	if err := logIn("odd", password, "198.51.100.2"); err == nil || !strings.HasPrefix(err.Error(), "account odd: ") {
		t.Fatalf("unreadable hash: %v", err)
	}
	for range 2 {
		if err := logIn("ada", "wrong password!", "192.0.2.1"); err != badLogin {
			t.Fatalf("wrong password: %v", err)
		}
	}
	if err := logIn("ada", password, "192.0.2.1"); !limited(err) {
		t.Fatalf("ada over her limit from that address: %v", err)
	}
	// A stranger's failures do not lock the owner out elsewhere.
	if err := logIn("ada", password, "192.0.2.2"); err != nil {
		t.Fatalf("ada from another address: %v", err)
	}
	// The client 192.0.2.1 has 3 attempts that count; one more reaches its limit.
	if err := logIn("nobody", password, "192.0.2.1"); err != badLogin {
		t.Fatalf("unknown user: %v", err)
	}
	if err := logIn("bob", password, "192.0.2.1"); !limited(err) {
		t.Fatalf("bob from a limited client: %v", err)
	}
	if err := l.TakeClient(netip.MustParseAddr("192.0.2.1")); !limited(err) {
		t.Fatalf("sign-up from a limited client: %v", err)
	}
	// Addresses of one IPv6 /64 are one client.
	for _, a := range []string{"2001:db8::1", "2001:db8::2", "2001:db8::ffff:3"} {
		if err := l.TakeClient(netip.MustParseAddr(a)); err != nil {
			t.Fatalf("sign-up from %s: %v", a, err)
		}
	}
	if err := logIn("bob", password, "2001:db8::99"); !limited(err) {
		t.Fatalf("fourth attempt from the /64: %v", err)
	}
	if err := logIn("bob", password, "2001:db8:0:1::1"); err != nil {
		t.Fatalf("another /64: %v", err)
	}
	c.add(time.Hour + time.Second)
	if err := logIn("ada", password, "192.0.2.1"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

// TestLogInAccountLimit: guessing one account from many addresses meets
// the account's own limit, but the owner's known address still signs in.
func TestLogInAccountLimit(t *testing.T) {
	t.Parallel()
	const password = "correct horse battery staple"
	hash, err := webauth.HashPasswordWith(password, cheap, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	badLogin := errors.New("bad login")
	c := newClock()
	l := webauth.NewLogins(webauth.LoginConfig{UserLimit: 2, ClientLimit: 10, AccountLimit: 3, Window: time.Hour, Now: c.now,
		BadLogin: badLogin, Limited: func(wait time.Duration) error { return &limitedError{wait} }})
	logIn := func(pw, addr string) error {
		return l.LogIn("user:ada", netip.MustParseAddr(addr), pw, func() (webauth.Credential, error) {
			return webauth.Credential{PasswordHash: hash, Name: "ada"}, nil
		})
	}
	if err := logIn(password, "192.0.2.9"); err != nil { // the owner's device
		t.Fatal(err)
	}
	for i := range 3 {
		if err := logIn("guess", fmt.Sprintf("198.51.100.%d", i+1)); err != badLogin {
			t.Fatalf("guess %d: %v", i+1, err)
		}
	}
	var le *limitedError
	if err := logIn(password, "198.51.100.50"); !errors.As(err, &le) {
		t.Fatalf("a new address after the account's limit: %v", err)
	}
	if err := logIn(password, "192.0.2.9"); err != nil {
		t.Fatalf("the owner's known address: %v", err)
	}
}
