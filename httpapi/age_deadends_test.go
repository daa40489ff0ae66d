package httpapi_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// No dead ends on the age pages (issue 11): a finished flow says so
// whoever opens it, error pages lead somewhere, the signed-out account page
// logs in (to delete or manage the account), sign-up problems come first
// with the focus on their summary, and titles name the phase.

var docTitle = regexp.MustCompile(`<title>([^<]*)</title>`)

func titleOf(t *testing.T, res response) string {
	t.Helper()
	m := docTitle.FindSubmatch(res.raw)
	if m == nil {
		t.Fatalf("no title:\n%s", res.raw)
	}
	return html.UnescapeString(string(m[1]))
}

func TestAgeNoDeadEnds(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			testAgeNoDeadEnds(t, testserver.Start(t, d, testserver.Options{Dev: true}))
		})
	}
}

func testAgeNoDeadEnds(t *testing.T, ts *testserver.Server) {
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	b.authorize("gb")

	// The first screen: both ways in, above the forms; the title names the
	// phase.
	page := b.get("")
	wantBody(t, page, `id="choose-signup"`, `id="choose-login"`)
	if got := titleOf(t, page); got != "Log in or create an account – Age verification" {
		t.Errorf("title %q", got)
	}
	if i, j := strings.Index(string(page.raw), `id="choose-signup"`), strings.Index(string(page.raw), `id="login"`); i < 0 || j < i {
		t.Error("the choice is not above the login form")
	}

	// Sign-up problems: the sign-up form comes first, its summary takes the
	// focus, each problem sits next to its field, and the title says Error.
	res := b.post("/signup?lang=fr", url.Values{"email": {"nope"}, "password": {"short"}, "password_again": {"x"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	body := string(res.raw)
	summary, signup, login := strings.Index(body, `id="signup-errors"`), strings.Index(body, `id="signup"`), strings.Index(body, `id="login"`)
	if summary < 0 || signup < 0 || login < 0 || signup > summary || login < summary {
		t.Errorf("sign-up form %d, its summary %d, login form %d: want the sign-up form and its summary before the login", signup, summary, login)
	}
	wantBody(t, res, `id="signup-errors" role="alert" tabindex="-1" autofocus`, `<p class="field-error" id="se-email">`,
		`<p class="field-error" id="se-password">`)
	if got := titleOf(t, res); got != "Erreur : Se connecter ou créer un compte – Vérification de l’âge" {
		t.Errorf("title of a refused sign-up %q", got)
	}
	wantNotBody(t, res, `id="choose-signup"`)
	// A refused login: its error takes the focus.
	res = b.logIn("nobody@example.com", "wrong password, long enough")
	wantStatus(t, res, http.StatusUnauthorized)
	wantBody(t, res, `id="login-error" role="alert" tabindex="-1" autofocus`)

	// A finished flow says so, signed in or not, and leads back to the
	// site (its origin: the callback without a code would fail).
	wantStatus(t, b.signUp("deadends@example.com"), http.StatusSeeOther)
	codeOf(t, b.adultByCard())
	for name, hb := range map[string]*flowBrowser{"with the session": b, "without": b.fresh()} {
		res := hb.get("")
		wantStatus(t, res, http.StatusConflict)
		wantBody(t, res, `data-phase="error_409"`, "This age verification is finished", `href="https://shop.example/" id="back-to-site"`,
			`id="account-link"`)
		wantNotBody(t, res, `id="signup"`, `id="login"`)
		if got := titleOf(t, res); got != "Error: Finished – Age verification" {
			t.Errorf("%s: title %q", name, got)
		}
		// Forms of the finished flow too.
		res = hb.post("/login", url.Values{"email": {"deadends@example.com"}, "password": {agePassword}})
		wantStatus(t, res, http.StatusConflict)
	}

	// An unknown flow explains what to do and offers the account page.
	u, _ := url.Parse(b.page)
	u.Path = u.Path[:strings.LastIndex(u.Path, "/")+1] + "areq_unknownunknownunknownunknown"
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	res = b.send(req)
	wantStatus(t, res, http.StatusNotFound)
	wantBody(t, res, "go back to the site and start again", `id="account-link"`)
	wantNotBody(t, res, `id="back-to-site"`)

	// Signed out, the account page logs in, then offers deletion and the
	// sites shared with: no dead end for someone who lost the flow.
	other := b.fresh()
	acct := f.base + "/account"
	req, _ = http.NewRequest(http.MethodGet, acct, nil)
	res = other.send(req)
	wantBody(t, res, `data-phase="account_signed_out"`, `id="login"`, `action="/sandbox/age/account/login"`)
	post := func(form url.Values, token string) response {
		form.Set("csrf_token", token)
		req, _ := http.NewRequest(http.MethodPost, acct+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return other.send(req)
	}
	token := other.tokens["/sandbox/age/account/login"]
	res = post(url.Values{"email": {"deadends@example.com"}, "password": {"not the password at all"}}, token)
	wantStatus(t, res, http.StatusUnauthorized)
	wantBody(t, res, "Wrong e-mail address or password.", `value="deadends@example.com"`)
	wantStatus(t, post(url.Values{"email": {"deadends@example.com"}, "password": {agePassword}}, "forged"), http.StatusForbidden)
	wantStatus(t, post(url.Values{"email": {"deadends@example.com"}, "password": {agePassword}}, token), http.StatusSeeOther)
	req, _ = http.NewRequest(http.MethodGet, acct, nil)
	res = other.send(req)
	wantBody(t, res, `data-phase="account_delete"`, `id="delete-account"`, "Test business")
	res = other.deleteAccount(acct, agePassword)
	wantStatus(t, res, http.StatusSeeOther)
	if _, err := ts.Store.AgeAccountByEmail(context.Background(), sbx, "deadends@example.com"); err == nil {
		t.Fatal("the account survived its deletion from the account page")
	}
}

// fresh is another browser (no cookies) on the same flow.
func (b *flowBrowser) fresh() *flowBrowser {
	c := newFlowBrowser(b.t, b.f)
	c.page = b.page
	return c
}
