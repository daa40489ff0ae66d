package webauth_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/webauth"
)

// memSessions is an in-memory verifyd.SessionStore (sqlstore's is tested
// by storetest).
type memSessions struct {
	mu sync.Mutex
	m  map[string]verifyd.WebSession
}

func newMem() *memSessions { return &memSessions{m: map[string]verifyd.WebSession{}} }

func (s *memSessions) CreateSession(_ context.Context, w verifyd.WebSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[string(w.TokenHash)] = w
	return nil
}

func (s *memSessions) Session(_ context.Context, h []byte) (verifyd.WebSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.m[string(h)]
	if !ok {
		return w, verifyd.ErrNotFound
	}
	return w, nil
}

func (s *memSessions) TouchSession(_ context.Context, h []byte, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.m[string(h)]; ok && w.LastSeenAt.Before(at) {
		w.LastSeenAt = at
		s.m[string(h)] = w
	}
	return nil
}

func (s *memSessions) DeleteSession(_ context.Context, h []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, string(h))
	return nil
}

func (s *memSessions) DeleteSessions(_ context.Context, realm, subject string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, w := range s.m {
		if w.Realm == realm && w.Subject == subject {
			delete(s.m, k)
			n++
		}
	}
	return n, nil
}

func (s *memSessions) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// browser keeps cookies the way a browser does for one origin.
type browser struct{ cookies map[string]string }

func (b *browser) take(t *testing.T, rec *httptest.ResponseRecorder) []*http.Cookie {
	t.Helper()
	cs := rec.Result().Cookies()
	for _, c := range cs {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return cs
}

func (b *browser) request(method, body string) *http.Request {
	r := httptest.NewRequest(method, "https://console.example/console", strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for n, v := range b.cookies {
		r.AddCookie(&http.Cookie{Name: n, Value: v})
	}
	return r
}

func newBrowser() *browser { return &browser{cookies: map[string]string{}} }

func manager(store verifyd.SessionStore, c *fakeClock, insecure bool) *webauth.Sessions {
	return webauth.NewSessions(store, webauth.Config{Realm: "console", Name: "sid", Insecure: insecure,
		Lifetime: 8 * time.Hour, IdleTimeout: 30 * time.Minute, Now: c.now, Rand: rand.Reader})
}

func start(t *testing.T, m *webauth.Sessions, b *browser, subject string) (webauth.Session, []*http.Cookie) {
	t.Helper()
	rec := httptest.NewRecorder()
	s, err := m.Start(context.Background(), rec, b.request("POST", ""), subject)
	if err != nil {
		t.Fatal(err)
	}
	return s, b.take(t, rec)
}

func get(m *webauth.Sessions, b *browser) (webauth.Session, error) {
	return m.Get(context.Background(), b.request("GET", ""))
}

func TestSessionCookieAttributes(t *testing.T) {
	t.Parallel()
	c := newClock()
	_, cookies := start(t, manager(newMem(), c, false), newBrowser(), "ada")
	var sid *http.Cookie
	for _, ck := range cookies {
		if ck.Name == "__Host-sid" {
			sid = ck
		}
	}
	if sid == nil {
		t.Fatalf("no __Host-sid cookie in %v", cookies)
	}
	if !sid.Secure || !sid.HttpOnly || sid.SameSite != http.SameSiteStrictMode || sid.Path != "/" || sid.Domain != "" ||
		sid.MaxAge != int((8*time.Hour)/time.Second) {
		t.Errorf("session cookie %+v: want Secure, HttpOnly, SameSite=Strict, Path=/, no Domain, Max-Age 8h", sid)
	}
	if raw, err := base64Len(sid.Value); err != nil || raw != 32 {
		t.Errorf("session token %q is not 32 random bytes", sid.Value)
	}

	_, cookies = start(t, manager(newMem(), c, true), newBrowser(), "ada")
	if cookies[0].Name != "sid" || cookies[0].Secure {
		t.Errorf("insecure (development) cookie %+v: want name sid without Secure", cookies[0])
	}
}

func TestSessionCookiePath(t *testing.T) {
	t.Parallel()
	c := newClock()
	m := webauth.NewSessions(newMem(), webauth.Config{Realm: "age-sandbox", Name: "sid", Path: "/sandbox/age/",
		SameSite: http.SameSiteLaxMode, Now: c.now, Rand: rand.Reader})
	b := newBrowser()
	_, cookies := start(t, m, b, "ada")
	// __Host- requires Path=/; a cookie scoped to a mount is __Secure-.
	if len(cookies) == 0 || cookies[0].Name != "__Secure-sid" || cookies[0].Path != "/sandbox/age/" ||
		!cookies[0].Secure || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteLaxMode {
		t.Fatalf("cookies %+v: want __Secure-sid, Path=/sandbox/age/, Secure, HttpOnly, SameSite=Lax", cookies)
	}
	if m.CookieName() != "__Secure-sid" {
		t.Errorf("CookieName() = %q", m.CookieName())
	}
	if _, err := get(m, b); err != nil {
		t.Errorf("session with a path: %v", err)
	}
	rec := httptest.NewRecorder()
	if _, err := m.FormToken(rec, newBrowser().request("GET", "")); err != nil {
		t.Fatal(err)
	}
	if fc := rec.Result().Cookies(); len(fc) != 1 || fc[0].Name != "__Secure-sid_form" || fc[0].Path != "/sandbox/age/" {
		t.Errorf("form cookie %+v: want __Secure-sid_form on the same path", fc)
	}
}

func base64Len(s string) (int, error) {
	b, err := webauthDecode(s)
	return len(b), err
}

func TestSessionLifecycle(t *testing.T) {
	t.Parallel()
	c, store := newClock(), newMem()
	m := manager(store, c, false)
	b := newBrowser()
	if _, err := get(m, b); !errors.Is(err, webauth.ErrNoSession) {
		t.Fatalf("Get without a cookie: %v", err)
	}
	s, _ := start(t, m, b, "ada")
	got, err := get(m, b)
	if err != nil || got.Subject != "ada" || got.Realm != "console" {
		t.Fatalf("Get after Start: %+v, %v", got, err)
	}
	if got.CSRFToken() != s.CSRFToken() || len(s.CSRFToken()) < 40 {
		t.Fatalf("CSRF token changes within a session or is short: %q %q", s.CSRFToken(), got.CSRFToken())
	}
	// Activity keeps the session alive past the idle timeout…
	for range 4 {
		c.add(20 * time.Minute)
		if _, err := get(m, b); err != nil {
			t.Fatalf("Get of an active session after %v: %v", c.t.Sub(s.CreatedAt), err)
		}
	}
	// …but not 30 idle minutes.
	c.add(30 * time.Minute)
	if _, err := get(m, b); !errors.Is(err, webauth.ErrNoSession) {
		t.Fatalf("Get after 30 idle minutes: %v, want ErrNoSession", err)
	}
	if store.len() != 0 {
		t.Error("the idle session was not deleted")
	}

	// The absolute lifetime ends even an active session.
	start(t, m, b, "ada")
	for range 8*3 - 1 {
		c.add(20 * time.Minute)
		if _, err := get(m, b); err != nil {
			t.Fatalf("Get of an active session: %v", err)
		}
	}
	c.add(20 * time.Minute)
	if _, err := get(m, b); !errors.Is(err, webauth.ErrNoSession) {
		t.Fatalf("Get after the 8h lifetime: %v, want ErrNoSession", err)
	}
}

func TestSessionEndAndRotation(t *testing.T) {
	t.Parallel()
	c, store := newClock(), newMem()
	m := manager(store, c, false)
	b := newBrowser()
	first, _ := start(t, m, b, "ada")
	planted := b.cookies["__Host-sid"]
	// Signing in again replaces the session: the old token stops working.
	second, _ := start(t, m, b, "ada")
	if first.CSRFToken() == second.CSRFToken() || store.len() != 1 {
		t.Fatalf("sign-in did not rotate the session (%d stored)", store.len())
	}
	old := newBrowser()
	old.cookies["__Host-sid"] = planted
	if _, err := get(m, old); !errors.Is(err, webauth.ErrNoSession) {
		t.Fatalf("the replaced token still works: %v", err)
	}
	rec := httptest.NewRecorder()
	if err := m.End(context.Background(), rec, b.request("POST", "")); err != nil {
		t.Fatal(err)
	}
	b.take(t, rec)
	if _, ok := b.cookies["__Host-sid"]; ok || store.len() != 0 {
		t.Fatal("End left the cookie or the stored session")
	}
	// Tokens of another realm are not sessions here.
	other := webauth.NewSessions(store, webauth.Config{Realm: "age", Name: "sid", Now: c.now})
	start(t, other, b, "ada")
	if _, err := get(m, b); !errors.Is(err, webauth.ErrNoSession) {
		t.Fatalf("a session of another realm was accepted: %v", err)
	}
	if n, _ := other.EndAll(context.Background(), "ada"); n != 1 {
		t.Fatalf("EndAll ended %d sessions, want 1", n)
	}
}

func TestSessionCSRF(t *testing.T) {
	t.Parallel()
	c := newClock()
	m := manager(newMem(), c, false)
	b := newBrowser()
	start(t, m, b, "ada")
	s, err := get(m, b)
	if err != nil {
		t.Fatal(err)
	}
	form := func(token string) *http.Request {
		return b.request("POST", url.Values{webauth.CSRFField: {token}}.Encode())
	}
	if !s.CheckCSRF(form(s.CSRFToken())) {
		t.Error("the session's own token was refused")
	}
	other, _ := start(t, manager(newMem(), c, false), newBrowser(), "ada")
	for name, r := range map[string]*http.Request{
		"none":          b.request("POST", "x=1"),
		"empty":         form(""),
		"wrong":         form(strings.Repeat("A", 43)),
		"other session": form(other.CSRFToken()),
		"truncated":     form(s.CSRFToken()[:20]),
	} {
		if s.CheckCSRF(r) {
			t.Errorf("%s token accepted", name)
		}
	}
	h := b.request("POST", "")
	h.Header.Set(webauth.CSRFHeader, s.CSRFToken())
	if !s.CheckCSRF(h) {
		t.Error("the token in the X-CSRF-Token header was refused")
	}
}

func TestFormToken(t *testing.T) {
	t.Parallel()
	m := manager(newMem(), newClock(), false)
	b := newBrowser()
	rec := httptest.NewRecorder()
	token, err := m.FormToken(rec, b.request("GET", ""))
	if err != nil {
		t.Fatal(err)
	}
	cookies := b.take(t, rec)
	if len(cookies) != 1 || cookies[0].Name != "__Host-sid_form" || !cookies[0].HttpOnly || !cookies[0].Secure {
		t.Fatalf("form cookie %+v", cookies)
	}
	// The same cookie gives the same token; no new cookie is set.
	rec = httptest.NewRecorder()
	again, _ := m.FormToken(rec, b.request("GET", ""))
	if again != token || len(rec.Result().Cookies()) != 0 {
		t.Fatal("FormToken changed for the same browser")
	}
	post := func(b *browser, token string) bool {
		return m.CheckFormToken(b.request("POST", url.Values{webauth.CSRFField: {token}}.Encode()))
	}
	if !post(b, token) {
		t.Error("the form's token was refused")
	}
	if post(b, "forged") || post(newBrowser(), token) {
		t.Error("a forged token, or a token without its cookie, was accepted")
	}
}

func webauthDecode(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
