package webauth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/verifyd/verifyd"
)

// Config describes one kind of session.
type Config struct {
	// Realm separates kinds of sessions in the store ("console").
	Realm string
	// Name is the cookie's name; it gets the __Host- prefix when the
	// cookie is Secure, which pins it to this exact host and path "/" so a
	// sibling subdomain cannot set or shadow it.
	Name string
	// Insecure drops the Secure attribute (and so the __Host- prefix), for
	// development over plain http. Never in production.
	Insecure bool
	// Path scopes the cookies to a path prefix, such as "/age/" for the
	// age flow under a mount (default "/"). __Host- requires path "/", so
	// a Secure cookie on another path gets the __Secure- prefix instead.
	Path string
	// SameSite defaults to Strict: the cookie is not sent on any request
	// started by another site, not even a top-level link.
	SameSite http.SameSite
	// Lifetime is the absolute length of a session (default 12 h).
	Lifetime time.Duration
	// IdleTimeout ends a session not used for this long (default 30 min).
	IdleTimeout time.Duration
	Now         func() time.Time
	Rand        io.Reader
}

// Sessions issues and checks server-side sessions. The cookie holds a
// random 256-bit token; the store holds only its SHA-256, so reading the
// database does not give anyone a session.
type Sessions struct {
	store verifyd.SessionStore
	cfg   Config
}

// NewSessions returns a session manager for cfg.
func NewSessions(store verifyd.SessionStore, cfg Config) *Sessions {
	if cfg.SameSite == 0 {
		cfg.SameSite = http.SameSiteStrictMode
	}
	if cfg.Lifetime == 0 {
		cfg.Lifetime = 12 * time.Hour
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 30 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Path == "" {
		cfg.Path = "/"
	}
	return &Sessions{store: store, cfg: cfg}
}

// ErrNoSession means the request carries no valid session: none, unknown,
// expired or idle too long.
var ErrNoSession = errors.New("webauth: no valid session")

// CSRFField is the form field (and X-CSRF-Token the header) that carries
// the CSRF token on state-changing requests.
const (
	CSRFField  = "csrf_token"
	CSRFHeader = "X-CSRF-Token"
)

// Session is a valid session of the current request.
type Session struct {
	verifyd.WebSession
	token []byte
}

// CSRFToken is the token forms of this session must send back. It is
// derived from the session token (HMAC-SHA256 keyed with it), so it needs no
// storage, differs per session, and cannot be computed by a page that cannot
// read the HttpOnly cookie.
func (s Session) CSRFToken() string { return csrfToken(s.token, s.Realm) }

func csrfToken(secret []byte, realm string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("webauth csrf v1/" + realm))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF compares the token a request sent with want, in constant time.
func checkCSRF(r *http.Request, want string) bool {
	got := r.Header.Get(CSRFHeader)
	if got == "" {
		got = r.PostFormValue(CSRFField)
	}
	return got != "" && hmac.Equal([]byte(got), []byte(want))
}

// CheckCSRF reports whether a state-changing request of this session
// carries the session's CSRF token (form field csrf_token or header
// X-CSRF-Token). The caller limits the body size before.
func (s Session) CheckCSRF(r *http.Request) bool { return checkCSRF(r, s.CSRFToken()) }

// CookieName is the session cookie's name as sent.
func (m *Sessions) CookieName() string { return m.prefix() + m.cfg.Name }

func (m *Sessions) formCookieName() string { return m.prefix() + m.cfg.Name + "_form" }

func (m *Sessions) prefix() string {
	switch {
	case m.cfg.Insecure:
		return ""
	case m.cfg.Path != "/":
		return "__Secure-"
	}
	return "__Host-"
}

func (m *Sessions) cookie(name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: m.cfg.Path, MaxAge: maxAge,
		Secure: !m.cfg.Insecure, HttpOnly: true, SameSite: m.cfg.SameSite}
}

func hashToken(token []byte) []byte {
	h := sha256.Sum256(token)
	return h[:]
}

var tokenEnc = base64.RawURLEncoding

// readToken returns the 32-byte token of a cookie, or nil.
func readToken(r *http.Request, name string) []byte {
	c, err := r.Cookie(name)
	if err != nil {
		return nil
	}
	t, err := tokenEnc.DecodeString(c.Value)
	if err != nil || len(t) != 32 {
		return nil
	}
	return t
}

func (m *Sessions) newToken() ([]byte, error) {
	t := make([]byte, 32)
	if _, err := io.ReadFull(m.cfg.Rand, t); err != nil {
		return nil, fmt.Errorf("read random: %w", err)
	}
	return t, nil
}

// Start creates a session for subject with a new token and sets its
// cookie. A session the request already carries is deleted: every sign-in
// gets a fresh token, so a token planted before sign-in (session fixation)
// never becomes a signed-in one.
func (m *Sessions) Start(ctx context.Context, w http.ResponseWriter, r *http.Request, subject string) (Session, error) {
	if old := readToken(r, m.CookieName()); old != nil {
		if err := m.store.DeleteSession(ctx, hashToken(old)); err != nil {
			return Session{}, err
		}
	}
	token, err := m.newToken()
	if err != nil {
		return Session{}, err
	}
	now := m.cfg.Now().UTC()
	s := verifyd.WebSession{TokenHash: hashToken(token), Realm: m.cfg.Realm, Subject: subject,
		CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(m.cfg.Lifetime)}
	if err := m.store.CreateSession(ctx, s); err != nil {
		return Session{}, err
	}
	http.SetCookie(w, m.cookie(m.CookieName(), tokenEnc.EncodeToString(token), int(m.cfg.Lifetime/time.Second)))
	// The login form's token has served its purpose.
	http.SetCookie(w, m.cookie(m.formCookieName(), "", -1))
	return Session{WebSession: s, token: token}, nil
}

// touchEvery limits writes: activity is recorded at most once a minute
// per session, so the idle timeout is exact to within a minute.
const touchEvery = time.Minute

// Get returns the request's session, or ErrNoSession. A session past its
// lifetime or idle timeout is deleted.
func (m *Sessions) Get(ctx context.Context, r *http.Request) (Session, error) {
	token := readToken(r, m.CookieName())
	if token == nil {
		return Session{}, ErrNoSession
	}
	hash := hashToken(token)
	s, err := m.store.Session(ctx, hash)
	if errors.Is(err, verifyd.ErrNotFound) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, err
	}
	if s.Realm != m.cfg.Realm {
		return Session{}, ErrNoSession
	}
	now := m.cfg.Now()
	if !now.Before(s.ExpiresAt) || !now.Before(s.LastSeenAt.Add(m.cfg.IdleTimeout)) {
		if err := m.store.DeleteSession(ctx, hash); err != nil {
			return Session{}, err
		}
		return Session{}, ErrNoSession
	}
	if now.Sub(s.LastSeenAt) >= touchEvery {
		if err := m.store.TouchSession(ctx, hash, now.UTC()); err != nil {
			return Session{}, err
		}
		s.LastSeenAt = now.UTC()
	}
	return Session{WebSession: s, token: token}, nil
}

// End deletes the request's session, if any, and clears its cookie.
func (m *Sessions) End(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	http.SetCookie(w, m.cookie(m.CookieName(), "", -1))
	if token := readToken(r, m.CookieName()); token != nil {
		return m.store.DeleteSession(ctx, hashToken(token))
	}
	return nil
}

// FormToken protects a form shown before there is a session (the login
// form) with a double-submit token: a random value in an HttpOnly cookie
// of its own, from which the form's token is derived as for sessions. It
// reuses the cookie the request carries, or sets a new one.
func (m *Sessions) FormToken(w http.ResponseWriter, r *http.Request) (string, error) {
	secret := readToken(r, m.formCookieName())
	if secret == nil {
		var err error
		if secret, err = m.newToken(); err != nil {
			return "", err
		}
		// Ends with the browser session; the login form needs no more.
		http.SetCookie(w, m.cookie(m.formCookieName(), tokenEnc.EncodeToString(secret), 0))
	}
	return csrfToken(secret, m.cfg.Realm+"/form"), nil
}

// CheckFormToken reports whether a request carries the token of the form
// cookie it also carries.
func (m *Sessions) CheckFormToken(r *http.Request) bool {
	secret := readToken(r, m.formCookieName())
	return secret != nil && checkCSRF(r, csrfToken(secret, m.cfg.Realm+"/form"))
}

// EndAll deletes every session of a subject (an operator who was
// disabled or changed password).
func (m *Sessions) EndAll(ctx context.Context, subject string) (int, error) {
	return m.store.DeleteSessions(ctx, m.cfg.Realm, subject)
}
