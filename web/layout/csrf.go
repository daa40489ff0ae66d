package layout

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/webauth"
)

// SameOrigin reports whether a state-changing request comes from the
// mount's public origin (or the request's own host), when the browser says
// where it comes from (Sec-Fetch-Site, Origin; "null" is refused).
func SameOrigin(r *http.Request, m *request.Mounted) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" {
			return false
		}
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		public := u.Scheme == m.BaseURL.Scheme && strings.EqualFold(u.Host, m.BaseURL.Host)
		direct := u.Scheme == scheme && strings.EqualFold(u.Host, r.Host)
		if !public && !direct {
			return false
		}
	}
	return true
}

// DoubleSubmit is a double-submit form token for pages without a session:
// a random value in an HttpOnly, SameSite=Strict cookie that the page
// repeats in a hidden field (forms) or the X-CSRF-Token header (script).
// Pages with a session use the session's token instead (webauth).
type DoubleSubmit struct {
	// Cookie is the cookie's name.
	Cookie string
	// MaxAge is how long a token lives.
	MaxAge time.Duration
}

// Ensure returns the request's token, setting a new cookie scoped to path
// when it has none. A person who arrives from another site (where Strict
// cookies are not sent) simply gets a fresh one.
func (d DoubleSubmit) Ensure(w http.ResponseWriter, r *http.Request, m *request.Mounted, path string) string {
	if c, err := r.Cookie(d.Cookie); err == nil && validToken(c.Value) {
		return c.Value
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	v := base64.RawURLEncoding.EncodeToString(b[:])
	http.SetCookie(w, &http.Cookie{
		Name: d.Cookie, Value: v, Path: path,
		MaxAge: int(d.MaxAge.Seconds()), HttpOnly: true,
		Secure: m.BaseURL.Scheme == "https", SameSite: http.SameSiteStrictMode,
	})
	return v
}

func validToken(v string) bool {
	b, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil && len(b) == 32
}

// Check accepts a state-changing request only when the cookie and the
// submitted token (X-CSRF-Token header, else formToken) are the same value
// and, when the browser says where the request comes from, it comes from
// this origin (SameOrigin).
func (d DoubleSubmit) Check(r *http.Request, m *request.Mounted, formToken string) bool {
	if !SameOrigin(r, m) {
		return false
	}
	c, err := r.Cookie(d.Cookie)
	if err != nil || !validToken(c.Value) {
		return false
	}
	sent := r.Header.Get(webauth.CSRFHeader)
	if sent == "" {
		sent = formToken
	}
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(sent)) == 1
}
