package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// FuzzDecodeJSON: any body decodes or is refused without a panic; a body
// accepted never holds a key twice, and is valid JSON.
func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"customer":{"id":"x","email":"a@example.com"},"webhook":"https://h.example/"}`))
	f.Add([]byte(`{"a":1,"A":2}`))
	f.Add([]byte(`[{"a":[{"b":{}}]}]`))
	f.Add([]byte("{\"a\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		var v map[string]any
		if err := decodeJSON(body, &v); err != nil {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		if k := duplicateKey(body); k != "" {
			t.Fatalf("accepted %q with %q twice", body, k)
		}
	})
}

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
