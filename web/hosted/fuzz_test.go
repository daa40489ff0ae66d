package hosted

import (
	"bytes"
	"mime/multipart"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/web/layout"
)

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
		in, _, err := ReadForm(httptest.NewRecorder(), r)
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
