package browsertest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// axeScript is axe-core as scripts/npm-axe-install pinned it (from the npm
// registry with its integrity hash, never a CDN).
func axeScript(t *testing.T) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(here), "..", "..", ".cache", "npm-axe", "node_modules", "axe-core", "axe.min.js")
	b, err := os.ReadFile(p)
	if err != nil {
		testdb.Skip(t, "the accessibility test needs axe-core: run scripts/npm-axe-install")
	}
	return string(b)
}

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// axeRun injects axe-core into the page ctx shows and returns its
// violations of WCAG 2.0/2.1 A and AA and of the best practices.
func axeRun(t *testing.T, ctx context.Context, axe, what string) []axeViolation {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+";true")); err != nil {
		t.Fatalf("inject axe-core: %v", err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {runOnly: {type: 'tag',
		values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}}).then(r => JSON.stringify(r.violations))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", what, err)
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// axeCheck reports every axe-core violation on the page ctx shows as a
// test error.
func axeCheck(t *testing.T, ctx context.Context, axe, what string) {
	t.Helper()
	vs := axeRun(t, ctx, axe, what)
	for _, v := range vs {
		var where []string
		for _, n := range v.Nodes {
			b, _ := json.Marshal(n.Target)
			where = append(where, string(b))
		}
		t.Errorf("%s: axe %s (%s): %s at %s", what, v.ID, v.Impact, v.Help, strings.Join(where, ", "))
	}
	t.Logf("%s: %d axe violations", what, len(vs))
}

// TestHostedPagesAxe: axe-core finds no violations (WCAG 2.0/2.1 A and AA,
// best practices) on the production hosted pages: the capture form on a
// phone and on a computer (with the phone hand-off open), the page after
// submitting, and the unknown-link page.
func TestHostedPagesAxe(t *testing.T) {
	t.Parallel()
	axe := axeScript(t)
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	hk := newHooks(t, ts)
	_, page := create(t, ts, verifyd.EnvProduction, "ada@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")

	ctx := browser(t)
	run := func(what string) []axeViolation { return axeRun(t, ctx, axe, what) }
	check := func(what string) { axeCheck(t, ctx, axe, what) }

	do(t, ctx, "open the page on a phone", mobile(), chromedp.Navigate(page+"?lang=en"))
	waitJS(t, ctx, "the capture form", `!!document.querySelector('#s-front button.take')`)
	check("capture page, phone")

	do(t, ctx, "open the page on a computer", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(page+"?lang=de"))
	waitJS(t, ctx, "the capture form", `!!document.getElementById('capture')`)
	check("capture page, computer")
	// The check can fail: a QR code without its text alternative is found.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('handoff-qr').removeAttribute('alt'), true`)); err != nil {
		t.Fatal(err)
	}
	if vs := run("a broken copy"); len(vs) == 0 || vs[0].ID != "image-alt" {
		t.Fatalf("axe on an image without alt: %+v, want image-alt", vs)
	}
	do(t, ctx, "reload", chromedp.Navigate(page+"?lang=de"))
	waitJS(t, ctx, "the capture form", `!!document.getElementById('capture')`)

	do(t, ctx, "submit without photos", chromedp.Click(chromedp.ID("submit")))
	check("capture page with errors")

	fillCaptureForm(t, ctx, documentFiles(t))
	do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))
	waitJS(t, ctx, "a decision", `!['capture', 'processing'].includes(document.querySelector('main').dataset.phase)`)
	check("page after submitting (" + jsString(t, ctx, `document.querySelector('main').dataset.phase`) + ")")

	do(t, ctx, "open an unknown link", chromedp.Navigate(ts.BaseURL(verifyd.InterfaceIdentity, verifyd.EnvProduction)+"/verify/no-such-token?lang=fr"))
	waitJS(t, ctx, "the unknown-link page", `!!document.getElementById('next-step')`)
	check("unknown link")
}

// TestAgePagesAxe: axe-core finds no violations on the production age
// flow's pages a person meets (issue 11): the first screen on a phone, the
// sign-up form refused with its errors, the consent question, the
// page after sign-up (the consent question or the document method), the
// account page signed in and out, and the page of an unknown flow.
func TestAgePagesAxe(t *testing.T) {
	t.Parallel()
	axe := axeScript(t)
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	in := newIntegrator(t, ts, verifyd.EnvProduction)
	ctx := browser(t)
	check := func(what string) { axeCheck(t, ctx, axe, what) }

	do(t, ctx, "open the site's link", mobile(), acceptLanguage("en"), chromedp.Navigate(in.authorizeURL("gb")))
	waitJS(t, ctx, "the account forms", `!!document.getElementById('signup')`)
	check("first screen, phone")

	do(t, ctx, "choose to sign up", chromedp.Click(chromedp.ID("choose-signup")))
	do(t, ctx, "sign up badly",
		chromedp.SendKeys(chromedp.ID("s-email"), "not an address"),
		chromedp.SendKeys(chromedp.ID("s-password"), "short"),
		chromedp.Click(chromedp.ID("signup-submit")))
	waitJS(t, ctx, "the refused sign-up", `!!document.getElementById('signup-errors')`)
	check("refused sign-up")

	do(t, ctx, "sign up",
		chromedp.SetValue(chromedp.ID("s-email"), "axe@example.com"),
		chromedp.SetValue(chromedp.ID("s-password"), "correct horse battery"),
		chromedp.SetValue(chromedp.ID("s-password_again"), "correct horse battery"),
		chromedp.Click(chromedp.ID("signup-submit")))
	waitJS(t, ctx, "the page after sign-up", `!['signup', 'login', 'start'].includes(document.querySelector('main').dataset.phase) && !document.getElementById('signup-errors')`)
	check("after sign-up (" + jsString(t, ctx, `document.querySelector('main').dataset.phase`) + ")")
	if jsString(t, ctx, `document.querySelector('main').dataset.phase`) == "consent" {
		do(t, ctx, "share", chromedp.Click(chromedp.ID("consent-yes")))
		waitJS(t, ctx, "the page after consent", `document.querySelector('main').dataset.phase !== 'consent'`)
		check("after consent (" + jsString(t, ctx, `document.querySelector('main').dataset.phase`) + ")")
	}

	do(t, ctx, "open the account page", chromedp.Navigate(ts.BaseURL(verifyd.InterfaceAge, verifyd.EnvProduction)+"/account"))
	waitJS(t, ctx, "the account page", `!!document.querySelector('main')`)
	check("account page, signed in")

	do(t, ctx, "open an unknown flow", clearCookies(), chromedp.Navigate(ts.BaseURL(verifyd.InterfaceAge, verifyd.EnvProduction)+"/flow/no-such-flow"))
	waitJS(t, ctx, "the unknown-flow page", `document.querySelector('main').dataset.phase === 'error_404'`)
	check("unknown flow")
	do(t, ctx, "open the account page signed out", chromedp.Navigate(ts.BaseURL(verifyd.InterfaceAge, verifyd.EnvProduction)+"/account"))
	waitJS(t, ctx, "the account page", `!!document.querySelector('main')`)
	check("account page, signed out")
}
