package signature_test

import (
	"strings"
	"testing"

	"github.com/verifyd/verifyd/signature"
)

// FuzzParseHeader: any Authorization header parses or is refused without
// a panic, and what parses round-trips through Header.
func FuzzParseHeader(f *testing.F) {
	f.Add("hmac key:" + strings.Repeat("ab", 32))
	f.Add("HMAC key:sig")
	f.Add("hmac :")
	f.Add("Bearer x")
	f.Fuzz(func(t *testing.T, h string) {
		key, sig, ok := signature.ParseHeader(h)
		if !ok {
			return
		}
		if key == "" || sig == "" || strings.Contains(key, ":") {
			t.Fatalf("%q parsed as key %q sig %q", h, key, sig)
		}
		if k2, s2, ok2 := signature.ParseHeader(signature.Header(key, sig)); !ok2 || k2 != key || s2 != sig {
			t.Fatalf("%q does not round-trip: %q %q %v", h, k2, s2, ok2)
		}
	})
}
