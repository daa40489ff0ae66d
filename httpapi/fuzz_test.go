package httpapi

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/web/layout"
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

// FuzzHostedLang: any ?lang= and Accept-Language give one of the pages'
// languages, and the guessed document country is "" or a valid code.
func FuzzHostedLang(f *testing.F) {
	f.Add("", "de-CH,de;q=0.9,en;q=0.8")
	f.Add("fr", "")
	f.Add("xx-\xff", "*;q=0.5, en-US;q=1.0000001, ,;q=")
	f.Add("de-Latn-CH-u-co-phonebk", strings.Repeat("en-GB,", 500))
	ok := map[string]bool{}
	for _, t := range layout.Tags() {
		b, _ := t.Base()
		ok[b.String()] = true
	}
	f.Fuzz(func(t *testing.T, lang, accept string) {
		r := httptest.NewRequest("GET", "/verify/x", nil)
		r.URL.RawQuery = url.Values{"lang": {lang}}.Encode()
		r.Header.Set("Accept-Language", accept)
		if got, _ := layout.Lang(r); !ok[got] {
			t.Fatalf("layout.Lang(%q, %q) = %q", lang, accept, got)
		}
		if c := defaultCountry(r); c != "" && !verifyd.ValidDocumentCountry(c) {
			t.Fatalf("defaultCountry(%q) = %q", accept, c)
		}
	})
}

// FuzzReadHostedForm: any multipart body is read or refused with SPEC's
// errors, without a panic, and what is read stays within the limits.
func FuzzReadHostedForm(f *testing.F) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.SetBoundary("fuzzboundary")
	_ = mw.WriteField("csrf", "token")
	_ = mw.WriteField(identity.FieldDocumentType, "Passport")
	fw, _ := mw.CreateFormFile(identity.FieldFront, "front.jpg")
	fw.Write([]byte("\xff\xd8\xff\xe0 not really a jpeg"))
	for range 3 {
		_ = mw.WriteField(identity.FieldLivenessFrameMs, "250")
	}
	mw.Close()
	f.Add(b.Bytes())
	f.Add([]byte("--fuzzboundary\r\nContent-Disposition: form-data; name=\"selfie\"\r\n\r\nx\r\n--fuzzboundary--\r\n"))
	f.Add([]byte("--fuzzboundary\r\n\r\n--fuzzboundary"))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/verify/x/submit", bytes.NewReader(body))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=fuzzboundary")
		in, _, err := readHostedForm(httptest.NewRecorder(), r)
		if err != nil {
			if verifyd.ErrorCodeOf(err) == verifyd.EInternal {
				t.Fatalf("internal error for a client's body: %v", err)
			}
			return
		}
		for _, im := range [][]byte{in.Front, in.Back, in.Selfie} {
			if len(im) > verifyd.MaxImageBytes+1 {
				t.Fatalf("kept an image of %d bytes", len(im))
			}
		}
		if len(in.Frames) > verifyd.MaxSelfieFrames+1 || len(in.LivenessFrames) > verifyd.MaxLivenessFrames+1 ||
			len(in.LivenessFrameMs) > verifyd.MaxLivenessFrames+1 {
			t.Fatalf("kept %d frames, %d liveness frames, %d times", len(in.Frames), len(in.LivenessFrames), len(in.LivenessFrameMs))
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
