package httpapi_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// consent posts the consent step's answer.
func (c *customer) consent(answer, csrf string) response {
	c.t.Helper()
	form := url.Values{"answer": {answer}, "csrf": {csrf}}
	req, _ := http.NewRequest("POST", c.page+"/consent", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

func logoPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 120, 40))
	for n := range img.Pix {
		img.Pix[n] = uint8(n * 7)
	}
	img.Set(1, 1, color.NRGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var logoSrc = regexp.MustCompile(`<img class="brand-logo" id="brand-logo" src="([^"]+)"`)
var brandCSS = regexp.MustCompile(`<link rel="stylesheet" href="([^"]+brand\.css[^"]*)"`)

// TestHostedConsentStep: the page names the business (its display name and
// logo, in its colour) and the processor, says what, why and how long,
// links the privacy policy, and asks before anything else; nothing is
// accepted before a yes; a yes opens the capture form; a no ends the
// verification as failed/idv_error with its webhook and says so.
func TestHostedConsentStep(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			ts := testserver.Start(t, d, testserver.Options{Dev: true,
				Processor: branding.Processor{Name: "Verification Operator Ltd", Contact: "privacy@operator.example"}})
			ctx := context.Background()
			logo := logoPNG(t)
			br, err := ts.App.Branding.Set(ctx, ts.Business.ID, branding.Input{DisplayName: "Acme Shop",
				AccentColour: "#0a5c36", SupportEmail: "help@acme.example", PrivacyURL: "https://acme.example/privacy", Logo: logo})
			if err != nil {
				t.Fatal(err)
			}
			f := newHostedWithoutConsent(t, ts, verifyd.EnvProduction, "ada@example.com")
			c := newCustomer(t, f.page)
			page := c.open("?lang=en")
			page.wantStatus(t, 200)
			wantBody(t, page, `id="brand-name">Acme Shop<`, "Acme Shop asks you to verify",
				"Verification Operator Ltd runs this verification service", `href="mailto:privacy@operator.example"`,
				"deleted 30 days after the decision", `href="https://acme.example/privacy"`, `href="mailto:help@acme.example"`,
				`id="consent-yes"`, `id="consent-no"`, "Your face is biometric data")
			wantNotBody(t, page, `name="selfie"`, `id="handoff"`)

			// The logo is the re-encoded one, from the page's path.
			m := logoSrc.FindSubmatch(page.raw)
			if m == nil {
				t.Fatalf("no logo on the page")
			}
			res := c.open(strings.TrimPrefix(string(m[1]), strings.TrimPrefix(f.page, ts.HTTP.URL)))
			stored, _ := ts.App.Branding.Logo(ctx, ts.Business.ID)
			if res.status != 200 || res.header.Get("Content-Type") != "image/png" || res.header.Get("X-Content-Type-Options") != "nosniff" ||
				!bytes.Equal(res.raw, stored.Bytes) || bytes.Equal(res.raw, logo) || br.Logo == nil {
				t.Errorf("logo: %d %s, %d bytes", res.status, res.header.Get("Content-Type"), len(res.raw))
			}
			css := brandCSS.FindSubmatch(page.raw)
			if css == nil {
				t.Fatalf("no brand stylesheet on the page")
			}
			res = c.open(strings.TrimPrefix(string(css[1]), strings.TrimPrefix(f.page, ts.HTTP.URL)))
			if res.status != 200 || !strings.Contains(string(res.raw), "#0a5c36") || !strings.HasPrefix(res.header.Get("Content-Type"), "text/css") {
				t.Errorf("brand.css: %d %s", res.status, res.raw)
			}

			// Nothing before consent: no submission, no liveness challenge.
			res = c.submit(nil, goodPhotos(t), true)
			res.wantStatus(t, http.StatusConflict)
			// A foreign origin cannot answer for the customer.
			res = c.consent("yes", "forged")
			res.wantStatus(t, http.StatusForbidden)
			if v, _ := ts.Store.VerificationByID(ctx, f.id); v.ConsentedAt != nil {
				t.Fatalf("a forged consent was recorded")
			}

			res = c.consent("yes", c.csrf)
			res.wantStatus(t, http.StatusSeeOther)
			page = c.open("?lang=en")
			wantBody(t, page, `name="selfie"`, `id="brand-name">Acme Shop<`)
			wantNotBody(t, page, `id="consent-yes"`)
			if v, _ := ts.Store.VerificationByID(ctx, f.id); v.ConsentedAt == nil || v.Status != verifyd.StatusStarted {
				t.Errorf("after yes: consented %v, status %s", v.ConsentedAt, v.Status)
			}

			// A no, in German.
			g := newHostedWithoutConsent(t, ts, verifyd.EnvProduction, "bob@example.com")
			gc := newCustomer(t, g.page)
			wantBody(t, gc.open("?lang=de"), "Acme Shop bittet Sie um eine Überprüfung", "Ich bin nicht einverstanden")
			gc.consent("no", gc.csrf).wantStatus(t, http.StatusSeeOther)
			page = gc.open("?lang=de")
			wantBody(t, page, "Sie waren nicht einverstanden", `data-phase="failed"`)
			wantNotBody(t, page, `name="selfie"`, `id="consent-yes"`)
			g.rc.waitFor("the failure's webhook", func(got []received) bool {
				for _, r := range got {
					if r.payload.ID == g.id && r.payload.Status == "failed" && r.payload.Reason == "idv_error" {
						return true
					}
				}
				return false
			})
			// Answering again shows where it stands.
			gc.consent("yes", gc.csrf).wantStatus(t, http.StatusSeeOther)
			if v, _ := ts.Store.VerificationByID(ctx, g.id); v.Status != verifyd.StatusFailed || v.ConsentedAt != nil {
				t.Errorf("a yes after a no: %s, consented %v", v.Status, v.ConsentedAt)
			}
			gc.consent("maybe", gc.csrf).wantStatus(t, http.StatusUnprocessableEntity)
		})
	}
}

// TestAgeConsentNotice: the age pages' consent step shows the business's
// branding and the notice (controller, processor, what the business
// receives, that document photos are deleted at the decision, the privacy
// policy); the logo is served on the flow's path.
func TestAgeConsentNotice(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			ts := testserver.Start(t, d, testserver.Options{Dev: true,
				Processor: branding.Processor{Name: "Verification Operator Ltd"}})
			if _, err := ts.App.Branding.Set(context.Background(), ts.Business.ID, branding.Input{DisplayName: "Kino Acme",
				AccentColour: "#5b2a86", PrivacyURL: "https://kino.example/privacy", Logo: logoPNG(t)}); err != nil {
				t.Fatal(err)
			}
			b := newFlowBrowser(t, newOAuth(t, ts, sbx))
			b.consent = false
			b.authorize("gb")
			wantStatus(t, b.signUp("notice@example.com"), http.StatusSeeOther)
			page := b.wantStep("consent")
			wantBody(t, page, `id="brand-name">Kino Acme<`, "Kino Acme asks you to verify", "Verification Operator Ltd runs this",
				"What Kino Acme receives: only whether you are old enough", "deleted as soon as your age is decided",
				`href="https://kino.example/privacy"`, `brand.css?v=5b2a86`)
			m := logoSrc.FindSubmatch(page.raw)
			if m == nil {
				t.Fatal("no logo on the consent step")
			}
			i := strings.Index(string(m[1]), "/logo")
			res := b.get(string(m[1])[i:])
			if res.status != 200 || res.header.Get("Content-Type") != "image/png" || len(res.raw) == 0 {
				t.Errorf("logo: %d %s", res.status, res.header.Get("Content-Type"))
			}
		})
	}
}
