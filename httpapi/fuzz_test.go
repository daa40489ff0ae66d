package httpapi

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// FuzzClientOf: any forwarding headers from a trusted proxy give a valid
// address without a panic; from an untrusted peer they are ignored.
func FuzzClientOf(f *testing.F) {
	f.Add("198.51.100.1, 10.0.0.2", `for=192.0.2.60;proto=https, for="[2001:db8::17]:4711"`)
	f.Add("", "for=")
	f.Add(",,,", `for="[`)
	s := &Server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	f.Fuzz(func(t *testing.T, xff, forwarded string) {
		for _, peer := range []string{"10.1.1.1:1", "203.0.113.5:1"} {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = peer
			r.Header.Set("X-Forwarded-For", xff)
			r.Header.Set("Forwarded", forwarded)
			a := s.clientOf(r)
			if !a.IsValid() {
				t.Fatalf("peer %s, %q / %q: invalid address", peer, xff, forwarded)
			}
			if peer == "203.0.113.5:1" && a.String() != "203.0.113.5" {
				t.Fatalf("an untrusted peer's headers were believed: %s", a)
			}
		}
	})
}

// FuzzTokenRequest: any A2 body, content type and Authorization header are
// read or refused without a panic; a request with valid HTTP Basic
// credentials is never read with empty ones.
func FuzzTokenRequest(f *testing.F) {
	f.Add(`{"code":"vdc_x"}`, "application/json", "Basic dmRrX3g6c2VjcmV0")
	f.Add("grant_type=authorization_code&code=a&code=b", "application/x-www-form-urlencoded", "")
	f.Add("client_id=x&client_secret=y&code=z", "", "basic !!!")
	f.Add(`{"code":1}`, "application/problem+json; charset=utf-8", "Basic Og==")
	f.Fuzz(func(t *testing.T, body, contentType, auth string) {
		r := httptest.NewRequest("POST", "/oauth/token", strings.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		r.Header.Set("Authorization", auth)
		in, err := tokenRequest(r, []byte(body))
		if _, _, ok := basicCredentials(auth); err == nil && ok && (in.ClientID == "" || in.ClientSecret == "") {
			t.Fatalf("Basic credentials read as %q:%q from %q", in.ClientID, in.ClientSecret, auth)
		}
	})
}
