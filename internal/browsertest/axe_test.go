package browsertest

import (
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
	run := func(what string) []axeViolation {
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
	check := func(what string) {
		t.Helper()
		vs := run(what)
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
