package webauth_test

import (
	"crypto/rand"
	"errors"
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
	if err := logIn("ada", password, "192.0.2.2"); !limited(err) {
		t.Fatalf("ada over her limit: %v", err)
	}
	// The client 192.0.2.1 has 2 failures; one more reaches its limit.
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
