package signature_test

import (
	"strings"
	"testing"

	"github.com/verifyd/verifyd/signature"
)

// RFC 4231, test case 2.
const (
	rfcKey  = "Jefe"
	rfcData = "what do ya want for nothing?"
	rfcMAC  = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
)

func TestSignRFC4231(t *testing.T) {
	t.Parallel()
	if got := signature.Sign(rfcKey, []byte(rfcData)); got != rfcMAC {
		t.Errorf("Sign = %s, want %s", got, rfcMAC)
	}
}

func TestSignProperties(t *testing.T) {
	t.Parallel()
	sig := signature.Sign("secret", []byte("body"))
	if len(sig) != 64 || strings.ToLower(sig) != sig {
		t.Errorf("Sign = %q, want 64 lower-case hex digits", sig)
	}
	if signature.Sign("secret", []byte("body")) != sig {
		t.Error("Sign is not deterministic")
	}
	if signature.Sign("secret2", []byte("body")) == sig {
		t.Error("different secrets give the same signature")
	}
	if signature.Sign("secret", []byte("body ")) == sig {
		t.Error("different messages give the same signature")
	}
	if got := signature.Sign("secret", nil); got != signature.Sign("secret", []byte{}) {
		t.Errorf("nil and empty message differ: %s", got)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		secret string
		msg    string
		sig    string
		want   bool
	}{
		{"lower-case hex", rfcKey, rfcData, rfcMAC, true},
		{"upper-case hex", rfcKey, rfcData, strings.ToUpper(rfcMAC), true},
		{"mixed-case hex", rfcKey, rfcData, strings.ToUpper(rfcMAC[:32]) + rfcMAC[32:], true},
		{"wrong secret", "jefe", rfcData, rfcMAC, false},
		{"wrong message", rfcKey, rfcData + " ", rfcMAC, false},
		{"one digit changed", rfcKey, rfcData, rfcMAC[:63] + "4", false},
		{"truncated to 31 bytes", rfcKey, rfcData, rfcMAC[:62], false},
		{"odd length", rfcKey, rfcData, rfcMAC[:63], false},
		{"extra byte", rfcKey, rfcData, rfcMAC + "00", false},
		{"prefix only", rfcKey, rfcData, rfcMAC[:16], false},
		{"invalid hex", rfcKey, rfcData, "zz" + rfcMAC[2:], false},
		{"0x prefix", rfcKey, rfcData, "0x" + rfcMAC, false},
		{"surrounding space", rfcKey, rfcData, " " + rfcMAC, false},
		{"empty", rfcKey, rfcData, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := signature.Verify(tt.secret, []byte(tt.msg), tt.sig); got != tt.want {
				t.Errorf("Verify(%q, %q, %q) = %v, want %v", tt.secret, tt.msg, tt.sig, got, tt.want)
			}
		})
	}
}

func TestVerifyAny(t *testing.T) {
	t.Parallel()
	other := signature.Sign(rfcKey, []byte("another message"))
	tests := []struct {
		name   string
		secret string
		sig    string
		msgs   []string
		want   bool
	}{
		{"only candidate", rfcKey, rfcMAC, []string{rfcData}, true},
		{"first of three", rfcKey, rfcMAC, []string{rfcData, "b", "c"}, true},
		{"last of three", rfcKey, rfcMAC, []string{"a", "b", rfcData}, true},
		{"upper-case hex", rfcKey, strings.ToUpper(rfcMAC), []string{"a", rfcData}, true},
		{"each candidate keyed afresh", rfcKey, other, []string{rfcData, "another message"}, true},
		{"same candidate twice", rfcKey, rfcMAC, []string{rfcData, rfcData}, true},
		{"none matches", rfcKey, rfcMAC, []string{"a", rfcData + " ", ""}, false},
		{"no candidates", rfcKey, rfcMAC, nil, false},
		{"wrong secret", "jefe", rfcMAC, []string{"a", rfcData}, false},
		{"one digit changed", rfcKey, rfcMAC[:63] + "4", []string{rfcData}, false},
		{"truncated", rfcKey, rfcMAC[:62], []string{rfcData}, false},
		{"extra byte", rfcKey, rfcMAC + "00", []string{rfcData}, false},
		{"invalid hex", rfcKey, "zz" + rfcMAC[2:], []string{rfcData}, false},
		{"empty signature", rfcKey, "", []string{rfcData, ""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := signature.VerifyAny(tt.secret, tt.sig, tt.msgs...); got != tt.want {
				t.Errorf("VerifyAny(%q, %q, %q) = %v, want %v", tt.secret, tt.sig, tt.msgs, got, tt.want)
			}
			// It must agree with Verify on every candidate.
			some := false
			for _, m := range tt.msgs {
				some = some || signature.Verify(tt.secret, []byte(m), tt.sig)
			}
			if some != tt.want {
				t.Errorf("Verify on some candidate = %v, VerifyAny = %v", some, tt.want)
			}
		})
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	t.Parallel()
	h := signature.Header("vdk_live_idv_abc", rfcMAC)
	if want := "hmac vdk_live_idv_abc:" + rfcMAC; h != want {
		t.Fatalf("Header = %q, want %q", h, want)
	}
	key, sig, ok := signature.ParseHeader(h)
	if !ok || key != "vdk_live_idv_abc" || sig != rfcMAC {
		t.Errorf("ParseHeader(Header(...)) = %q, %q, %v", key, sig, ok)
	}
}

func TestParseHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		header  string
		wantKey string
		wantSig string
		wantOK  bool
	}{
		{"valid", "hmac vdk_live_idv_abc:0123abcd", "vdk_live_idv_abc", "0123abcd", true},
		{"scheme upper case", "HMAC key:sig", "key", "sig", true},
		{"scheme mixed case", "Hmac key:sig", "key", "sig", true},
		{"surrounding spaces", "  hmac key:sig  ", "key", "sig", true},
		{"several spaces after scheme", "hmac    key:sig", "key", "sig", true},
		{"trailing newline", "hmac key:sig\r\n", "key", "sig", true},
		// Only the first colon separates: API keys never contain one, so a
		// colon in the signature part stays there (and Verify then refuses
		// it as not hex).
		{"colon in signature", "hmac key:sig:more", "key", "sig:more", true},
		// Spaces around the colon are not trimmed: the key lookup or the
		// signature check fails instead.
		{"space before colon", "hmac key :sig", "key ", "sig", true},
		{"missing colon", "hmac keysig", "", "", false},
		{"empty key", "hmac :sig", "", "", false},
		{"empty signature", "hmac key:", "", "", false},
		{"colon only", "hmac :", "", "", false},
		{"scheme only", "hmac", "", "", false},
		{"scheme and spaces only", "hmac   ", "", "", false},
		{"no space after scheme", "hmackey:sig", "", "", false},
		{"tab after scheme", "hmac\tkey:sig", "", "", false},
		{"other scheme", "Basic a2V5OnNlY3JldA==", "", "", false},
		{"bearer with colon", "Bearer key:sig", "", "", false},
		{"scheme prefix", "hmac-sha256 key:sig", "", "", false},
		{"empty", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key, sig, ok := signature.ParseHeader(tt.header)
			if key != tt.wantKey || sig != tt.wantSig || ok != tt.wantOK {
				t.Errorf("ParseHeader(%q) = %q, %q, %v; want %q, %q, %v",
					tt.header, key, sig, ok, tt.wantKey, tt.wantSig, tt.wantOK)
			}
		})
	}
}
