package browsertest

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestHostedConsentAndBranding: on a phone, the hosted page shows the
// business's name, logo and colour and the notice, asks for consent before
// the capture form, opens the form after "I agree", and ends the
// verification (failed, idv_error, webhook) after "I do not agree". The
// consent step has no accessibility violations.
func TestHostedConsentAndBranding(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true,
		Processor: branding.Processor{Name: "Verification Operator Ltd", Contact: "https://operator.example/privacy"}})
	hk := newHooks(t, ts)
	img := image.NewNRGBA(image.Rect(0, 0, 120, 40))
	for n := range img.Pix {
		img.Pix[n] = uint8(n * 13)
	}
	var logo bytes.Buffer
	if err := png.Encode(&logo, img); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.App.Branding.Set(context.Background(), ts.Business.ID, branding.Input{DisplayName: "Acme Shop",
		AccentColour: "#0a5c36", PrivacyURL: "https://acme.example/privacy", Logo: logo.Bytes()}); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)

	id, page := createAwaitingConsent(t, ts, verifyd.EnvProduction, "ada@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
	do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=en"))
	waitJS(t, ctx, "the consent step", `!!document.getElementById('consent-yes')`)
	for what, expr := range map[string]string{
		"the business's name": `document.getElementById('brand-name').textContent === 'Acme Shop'`,
		"the logo, loaded":    `document.getElementById('brand-logo').complete && document.getElementById('brand-logo').naturalWidth === 120`,
		"the accent colour":   `getComputedStyle(document.getElementById('consent-yes')).backgroundColor === 'rgb(10, 92, 54)'`,
		"the processor":       `document.getElementById('notice-processor').textContent.includes('Verification Operator Ltd')`,
		"the retention":       `document.getElementById('notice-keep').textContent.includes('30 days')`,
		"the privacy policy":  `document.getElementById('notice-privacy').href === 'https://acme.example/privacy'`,
		"no capture form yet": `!document.getElementById('capture')`,
	} {
		waitJS(t, ctx, what, expr)
	}
	if path := screenshot(t, ctx, "consent"); path != "" {
		t.Logf("screenshot: %s", path)
	}
	axeCheck(t, ctx, axeScript(t), "consent step")
	do(t, ctx, "agree", chromedp.Click(chromedp.ID("consent-yes")))
	waitJS(t, ctx, "the capture form", `!!document.querySelector('#s-front button.take') && !document.getElementById('consent-yes')`)
	waitJS(t, ctx, "the branding on the form", `document.getElementById('brand-name').textContent === 'Acme Shop'`)
	hk.waitFor(t, id, "started:")

	id2, page2 := createAwaitingConsent(t, ts, verifyd.EnvProduction, "bob@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
	do(t, ctx, "open the second page", chromedp.Navigate(page2+"?lang=fr"))
	waitJS(t, ctx, "the consent step", `!!document.getElementById('consent-no')`)
	do(t, ctx, "decline", chromedp.Click(chromedp.ID("consent-no")))
	waitJS(t, ctx, "the end", `document.querySelector('main').dataset.phase === 'failed'`)
	waitJS(t, ctx, "why it ended", `document.getElementById('live').textContent.includes('Vous avez refusé')`)
	waitJS(t, ctx, "the way back", `!!document.getElementById('continue')`)
	hk.waitFor(t, id2, "started:", "failed:idv_error")
	v, err := ts.Store.VerificationByID(context.Background(), id2)
	if err != nil || v.Status != verifyd.StatusFailed || v.Reason != verifyd.ReasonIDVError || v.ConsentedAt != nil {
		t.Errorf("declined verification: %+v, %v", v, err)
	}
}
