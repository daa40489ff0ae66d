package browsertest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestAgeFirstScreenAndErrorFocus: on a 390×844 phone the first screen
// offers both "Create an account" and "Log in" above the fold; a refused
// sign-up puts the focus on its error summary (not on <body>) and the
// title says Error; a finished flow opened in another browser says
// finished and leads back to the site.
func TestAgeFirstScreenAndErrorFocus(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	in := newIntegrator(t, ts, verifyd.EnvSandbox)
	ctx := browser(t)
	do(t, ctx, "open the site's link", mobile(), acceptLanguage("en"), chromedp.Navigate(in.authorizeURL("gb")))
	waitJS(t, ctx, "the account forms", `!!document.getElementById('signup')`)
	for _, id := range []string{"choose-signup", "choose-login"} {
		bottom := jsString(t, ctx, `String(document.getElementById('`+id+`').getBoundingClientRect().bottom)`)
		if b, err := strconv.ParseFloat(bottom, 64); err != nil || b <= 0 || b > 844 {
			t.Errorf("%s ends at %s px: not above the fold of a 390×844 phone", id, bottom)
		}
	}
	screenshot(t, ctx, "age-first-screen.png")
	flow := jsString(t, ctx, `location.origin + location.pathname`)
	do(t, ctx, "choose to sign up", chromedp.Click(chromedp.ID("choose-signup")))
	do(t, ctx, "sign up badly",
		chromedp.SendKeys(chromedp.ID("s-email"), "not an address"),
		chromedp.SendKeys(chromedp.ID("s-password"), "short"),
		chromedp.Click(chromedp.ID("signup-submit")))
	waitJS(t, ctx, "the refused sign-up", `!!document.getElementById('signup-errors')`)
	waitJS(t, ctx, "the focus on the error summary", `document.activeElement && document.activeElement.id === 'signup-errors'`)
	if title := jsString(t, ctx, `document.title`); !strings.HasPrefix(title, "Error: ") {
		t.Errorf("title of the refused sign-up %q", title)
	}
	if got := jsString(t, ctx, `document.getElementById('se-email').textContent`); !strings.Contains(got, "E-mail address") {
		t.Errorf("the e-mail problem next to its field: %q", got)
	}
	screenshot(t, ctx, "age-signup-errors.png")

	// Finish with the sandbox panel, then open the flow again without the
	// session: finished, with a way back to the site.
	do(t, ctx, "finish", chromedp.Click(chromedp.ID("sandbox-adult")))
	waitForSite(t, ctx, in)
	do(t, ctx, "forget the session and open the flow page again", clearCookies(), chromedp.Navigate(flow))
	waitJS(t, ctx, "the finished page", `document.querySelector('main').dataset.phase === 'error_409'`)
	if href := jsString(t, ctx, `document.getElementById('back-to-site').href`); href != in.srv.URL+"/" {
		t.Errorf("back to the site leads to %q, want %q", href, in.srv.URL+"/")
	}
}
