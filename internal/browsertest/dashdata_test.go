package browsertest

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/internal/testserver"
)

// submitSandbox makes a sandbox direct submission with real images (the
// e-mail's tag picks the outcome: "pending" keeps it unprocessed with its
// images) and returns its id.
func submitSandbox(t *testing.T, ts *testserver.Server, email, webhook string) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 240, 160))
	for y := 0; y < 160; y++ {
		for x := 0; x < 240; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	photo := base64.StdEncoding.EncodeToString(b.Bytes())
	var in identity.SubmitInput
	in.Customer.Customer = verifyd.Customer{ID: uuid.NewString(), Email: email}
	in.Customer.Selfie, in.Customer.Document.Front, in.Customer.Document.Country = photo, photo, "gbr"
	in.Webhook = webhook
	v, err := ts.Identity.Submit(context.Background(), ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox), in)
	if err != nil {
		t.Fatal(err)
	}
	return v.ID
}

// TestDashboardDataInChromium drives the verifications, webhooks and
// branding pages as an owner, a developer and a viewer: the list with its
// filters and search, a verification's history, webhooks and images
// (never to the viewer, never after a redaction), a redaction confirmed
// on its own page, a webhook resent and a test event sent, the branding
// form with a logo; every page passes axe-core.
func TestDashboardDataInChromium(t *testing.T) {
	t.Parallel()
	axe := axeScript(t)
	c := &dashClock{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Now: c.now})
	hk := newHooks(t, ts)
	svc := ts.App.Dashboard
	bg := verifyd.WithActor(context.Background(), verifyd.Actor{Kind: verifyd.ActorOperator, Name: "cli:ops"})
	tokens := map[verifyd.Role]string{}
	for _, role := range []verifyd.Role{verifyd.RoleOwner, verifyd.RoleDeveloper, verifyd.RoleViewer} {
		_, token, err := svc.Invite(bg, ts.Business.ID, string(role)+"@example.com", role)
		if err != nil {
			t.Fatal(err)
		}
		tokens[role] = token
	}
	keep := submitSandbox(t, ts, "keep+pending@example.com", hk.srv.URL+"/hooks")
	redact := submitSandbox(t, ts, "redact+pending@example.com", hk.srv.URL+"/hooks")
	minor := submitSandbox(t, ts, "minor+minor@example.com", hk.srv.URL+"/hooks")
	hk.waitFor(t, minor, "started:", "failed:minor")

	ctx := browser(t)
	owner := &dashUser{email: "owner@example.com", name: "Olivia Owner"}
	enrol(t, ctx, c, owner, ts.HTTP.URL+"/dashboard/invitations/"+tokens[verifyd.RoleOwner])

	// The list, newest first, then filtered and searched.
	open(t, ctx, ts, "/dashboard/verifications?lang=en")
	rows := func() string {
		return jsString(t, ctx, `[...document.querySelectorAll('#verifications tbody tr td:first-child code')].map(c => c.textContent).join(',')`)
	}
	if got := rows(); got != strings.Join([]string{minor, redact, keep}, ",") {
		t.Errorf("list = %s", got)
	}
	axeCheck(t, ctx, axe, "verifications page")
	do(t, ctx, "filter failed", chromedp.SetValue(chromedp.ID("f-status"), "failed"), chromedp.Click(chromedp.ID("filter-submit")))
	waitJS(t, ctx, "the filtered list", `location.search.includes('status=failed')`)
	if got := rows(); got != minor {
		t.Errorf("failed = %s", got)
	}
	open(t, ctx, ts, "/dashboard/verifications?q="+keep)
	if got := rows(); got != keep {
		t.Errorf("search = %s", got)
	}
	open(t, ctx, ts, "/dashboard/verifications?status=nonsense")
	if e := text(t, ctx, "[role=alert]"); !strings.Contains(e, "status") {
		t.Errorf("a bad filter: %q", e)
	}

	// A verification: history, webhooks with attempts, images.
	open(t, ctx, ts, "/dashboard/verifications/"+minor)
	if got := text(t, ctx, "#history tbody"); !strings.Contains(got, "failed") || !strings.Contains(got, "minor") {
		t.Errorf("history: %q", got)
	}
	waitJS(t, ctx, "two events", `document.querySelectorAll('#events tbody tr').length === 2`)
	do(t, ctx, "reload until delivered", chromedp.Reload())
	waitJS(t, ctx, "attempts", `document.querySelectorAll('#events .attempts li').length >= 2`)
	if got := text(t, ctx, "#events"); !strings.Contains(got, "HTTP 204") {
		t.Errorf("events: %q", got)
	}
	waitJS(t, ctx, "the images, loaded", `document.querySelectorAll('#images img').length === 2 && [...document.querySelectorAll('#images img')].every(i => i.complete && i.naturalWidth === 240)`)
	axeCheck(t, ctx, axe, "verification page, owner")

	// Resend an event (the newest: the failure) from the verification's page.
	do(t, ctx, "resend", chromedp.Click(chromedp.CSS(`#events button`)))
	waitJS(t, ctx, "the notice", `!!document.querySelector('.notice') && location.pathname.endsWith(`+quoteJS(minor)+`)`)
	hk.waitFor(t, minor, "started:", "failed:minor", "failed:minor")

	// Webhooks: the list, a test event.
	open(t, ctx, ts, "/dashboard/webhooks")
	waitJS(t, ctx, "the events", `document.querySelectorAll('#events tbody tr').length === 2`)
	axeCheck(t, ctx, axe, "webhooks page")
	do(t, ctx, "send a test event", chromedp.SendKeys(chromedp.ID("t-url"), hk.srv.URL+"/hooks"),
		chromedp.SetValue(chromedp.ID("t-environment"), "sandbox"), chromedp.Click(chromedp.ID("test-submit")))
	waitJS(t, ctx, "the test result", `!!document.getElementById('test-result')`)
	if got := text(t, ctx, "#test-result"); !strings.HasPrefix(got, "Delivered: HTTP 204") {
		t.Errorf("test event: %q", got)
	}
	if got := text(t, ctx, "#tests tbody"); !strings.Contains(got, hk.srv.URL) {
		t.Errorf("tests list: %q", got)
	}
	axeCheck(t, ctx, axe, "webhooks page with a test result")

	// Branding: a bad colour is refused, then name, colour and logo saved.
	logo := image.NewNRGBA(image.Rect(0, 0, 90, 30))
	for n := range logo.Pix {
		logo.Pix[n] = uint8(n * 11)
	}
	var lb bytes.Buffer
	if err := png.Encode(&lb, logo); err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string][]byte{"logo.png": lb.Bytes()})
	open(t, ctx, ts, "/dashboard/branding")
	axeCheck(t, ctx, axe, "branding page")
	do(t, ctx, "a light colour", chromedp.SendKeys(chromedp.ID("b-name"), "Acme Shop"), chromedp.SendKeys(chromedp.ID("b-colour"), "#eeeeee"),
		chromedp.Click(chromedp.ID("branding-submit")))
	waitJS(t, ctx, "the refusal", `!!document.querySelector('[role=alert]')`)
	if e := text(t, ctx, "[role=alert]"); !strings.Contains(e, "Accent colour") || !strings.Contains(e, "too light") {
		t.Errorf("a light colour: %q", e)
	}
	if v := jsString(t, ctx, `document.getElementById('b-name').value`); v != "Acme Shop" {
		t.Errorf("the refused form lost the name: %q", v)
	}
	axeCheck(t, ctx, axe, "branding page with an error")
	do(t, ctx, "save the branding", chromedp.SetValue(chromedp.ID("b-colour"), "#0a5c36"),
		chromedp.SetUploadFiles(chromedp.ID("b-logo"), []string{filepath.Join(dir, "logo.png")}),
		chromedp.Click(chromedp.ID("branding-submit")))
	waitJS(t, ctx, "the saved branding", `!!document.querySelector('.notice') && !!document.getElementById('logo-preview')`)
	waitJS(t, ctx, "the logo preview", `document.getElementById('logo-preview').complete && document.getElementById('logo-preview').naturalWidth === 90`)
	if b, err := ts.App.Branding.Get(context.Background(), ts.Business.ID); err != nil || b.DisplayName != "Acme Shop" ||
		b.AccentColour != "#0a5c36" || b.Logo == nil {
		t.Errorf("stored branding: %+v, %v", b, err)
	}

	// The developer redacts, after confirming.
	do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".who button")))
	waitJS(t, ctx, "the login page", `location.pathname === '/dashboard/login'`)
	dev := &dashUser{email: "developer@example.com", name: "Dev Eloper"}
	enrol(t, ctx, c, dev, ts.HTTP.URL+"/dashboard/invitations/"+tokens[verifyd.RoleDeveloper])
	open(t, ctx, ts, "/dashboard/verifications/"+redact)
	waitJS(t, ctx, "the images", `document.querySelectorAll('#images img').length === 2`)
	imageURL := jsString(t, ctx, `new URL(document.querySelector('#images img').src).pathname`)
	do(t, ctx, "ask to redact", chromedp.Click(chromedp.ID("redact-link")))
	waitJS(t, ctx, "the confirmation", `!!document.getElementById('redact-confirm')`)
	axeCheck(t, ctx, axe, "redaction confirmation")
	if v, _ := ts.Store.VerificationByID(context.Background(), redact); v.RedactedAt != nil {
		t.Fatal("redacted before the confirmation")
	}
	do(t, ctx, "confirm", chromedp.Click(chromedp.ID("redact-confirm")))
	waitJS(t, ctx, "the redacted page", `!!document.querySelector('.notice') && !!document.getElementById('v-redacted')`)
	if note := text(t, ctx, "#images-note"); !strings.Contains(note, "deleted") {
		t.Errorf("images after redaction: %q", note)
	}
	open(t, ctx, ts, imageURL)
	if h := text(t, ctx, "h1"); h != "Not found" {
		t.Errorf("an image after redaction: %q", h)
	}
	open(t, ctx, ts, "/dashboard/verifications/"+redact)
	v, err := ts.Store.VerificationByID(context.Background(), redact)
	if err != nil || v.RedactedAt == nil || v.Customer.Email != "" || v.Status != verifyd.StatusExpired {
		t.Errorf("after the dashboard's redaction: %+v, %v", v, err)
	}
	if n := jsString(t, ctx, `String(document.querySelectorAll('#redact-link').length)`); n != "0" {
		t.Error("a redacted verification still offers redaction")
	}

	// The viewer: no images, no redaction, no resend, no test, no branding.
	do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".who button")))
	waitJS(t, ctx, "the login page", `location.pathname === '/dashboard/login'`)
	viewer := &dashUser{email: "viewer@example.com", name: "Vi Ewer"}
	enrol(t, ctx, c, viewer, ts.HTTP.URL+"/dashboard/invitations/"+tokens[verifyd.RoleViewer])
	open(t, ctx, ts, "/dashboard/verifications/"+keep)
	if n := jsString(t, ctx, `String(document.querySelectorAll('main img, #redact-link, main form').length)`); n != "0" {
		t.Errorf("the viewer's verification page has %s images, redaction links or forms", n)
	}
	if note := text(t, ctx, "#images-note"); !strings.Contains(note, "role") {
		t.Errorf("viewer's image note: %q", note)
	}
	axeCheck(t, ctx, axe, "verification page, viewer")
	keepImage := "/dashboard/verifications/" + keep + "/images/selfie"
	open(t, ctx, ts, keepImage)
	if h := text(t, ctx, "h1"); h != "Not allowed" {
		t.Errorf("the viewer opening an image: %q", h)
	}
	open(t, ctx, ts, "/dashboard/verifications/"+keep+"/redact")
	if h := text(t, ctx, "h1"); h != "Not allowed" {
		t.Errorf("the viewer's redaction page: %q", h)
	}
	open(t, ctx, ts, "/dashboard/webhooks")
	if n := jsString(t, ctx, `String(document.querySelectorAll('main form[method=post]').length)`); n != "0" {
		t.Errorf("the viewer's webhooks page has %s forms that post", n)
	}
	postForm(t, ctx, "/dashboard/webhooks/test", map[string]string{"url": hk.srv.URL + "/hooks", "environment": "sandbox"})
	waitJS(t, ctx, "the refusal", `document.querySelector('h1').textContent === 'Not allowed'`)
	open(t, ctx, ts, "/dashboard/branding")
	if jsString(t, ctx, `String(document.querySelector('#branding-form fieldset').disabled && !document.getElementById('branding-submit'))`) != "true" {
		t.Error("the viewer's branding form is not read-only")
	}
	if tests, _ := ts.App.WebhookTests.Tests(context.Background(), ts.Business.ID, 0); len(tests) != 1 {
		t.Errorf("%d test events, want the owner's one", len(tests))
	}
}
