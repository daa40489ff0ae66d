package httpapi_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// Account deletion on the age pages (web/agepages/account.go, docs/age.md).

var accountLink = regexp.MustCompile(`<a href="([^"]+)" id="account-link">`)

// openAccount follows the flow page's "Delete my account" link.
func (b *flowBrowser) openAccount() (string, response) {
	b.t.Helper()
	page := b.get("")
	m := accountLink.FindSubmatch(page.raw)
	if m == nil {
		b.t.Fatalf("no account link on the flow page:\n%s", page.raw)
	}
	u, _ := url.Parse(b.f.base)
	u.Path, u.RawQuery = "", ""
	link := u.String() + html.UnescapeString(string(m[1]))
	req, _ := http.NewRequest(http.MethodGet, link, nil)
	return link, b.send(req)
}

// deleteAccount posts the deletion form of the account page at link.
func (b *flowBrowser) deleteAccount(link, password string, headers ...string) response {
	b.t.Helper()
	page, _ := url.Parse(link)
	to := *page
	to.Path += "/delete"
	form := url.Values{"password": {password}}
	if tok, ok := b.tokens[to.Path]; ok {
		form.Set("csrf_token", tok)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "csrf_token" {
			form.Set("csrf_token", headers[i+1])
			headers = append(headers[:i:i], headers[i+2:]...)
			break
		}
	}
	req, _ := http.NewRequest(http.MethodPost, to.String(), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.send(req)
}

// adultByCard proves the signed-in person an adult with the simulated
// credit card and returns the redirect to the callback.
func (b *flowBrowser) adultByCard() response {
	b.t.Helper()
	b.wantStep("methods")
	wantStatus(b.t, b.post("/method", url.Values{"method": {"credit_card"}}), http.StatusSeeOther)
	page := b.wantStep("provider")
	action := regexp.MustCompile(`action="[^"]*(/provider/[^"?]+)"`).FindSubmatch(page.raw)
	wantStatus(b.t, b.post(string(action[1]), url.Values{"outcome": {"adult"}}), http.StatusSeeOther)
	return b.get("")
}

// codeOf returns the code of a redirect to the callback.
func codeOf(t *testing.T, res response) string {
	t.Helper()
	wantStatus(t, res, http.StatusSeeOther)
	u, err := url.Parse(res.header.Get("Location"))
	if err != nil || u.Query().Get("code") == "" {
		t.Fatalf("redirect %q has no code", res.header.Get("Location"))
	}
	return u.Query().Get("code")
}

// TestAgeAccountDelete: a signed-in person deletes their account from the
// link on the flow pages: the password again, the session's CSRF token and
// this origin are required; afterwards the account, its proofs and every
// session are gone, its access tokens answer A3 with malformed token, its
// unused code is refused, and the address signs up again as a new account.
func TestAgeAccountDelete(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			testAgeAccountDelete(t, testserver.Start(t, d, testserver.Options{Dev: true}))
		})
	}
}

func testAgeAccountDelete(t *testing.T, ts *testserver.Server) {
	ctx := context.Background()
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	b.authorize("gb")
	wantStatus(t, b.signUp("erase@example.com"), http.StatusSeeOther)
	token := f.accessToken(f.specToken(f.cred.APIKey, f.cred.APISecret, map[string]string{"code": codeOf(t, b.adultByCard())}))
	wantStatus(t, f.user(token), http.StatusOK)
	// A second flow reuses the proof; its code is not exchanged yet.
	b.authorize("gb")
	unused := codeOf(t, b.get(""))
	// The same account on another device.
	other := newFlowBrowser(t, f)
	other.authorize("gb")
	other.get("")
	wantStatus(t, other.post("/login", url.Values{"email": {"erase@example.com"}, "password": {agePassword}}), http.StatusSeeOther)
	// A third flow, in Germany (the password again, and the card does not
	// count there), where the person opens the account page.
	b.authorize("de")
	wantStatus(t, b.logIn("erase@example.com", agePassword), http.StatusSeeOther)
	b.wantStep("document")
	flowID := b.page[strings.LastIndex(b.page, "/")+1:]
	link, page := b.openAccount()
	wantStatus(t, page, http.StatusOK)
	wantHeaderContains(t, page, "Cache-Control", "no-store")
	wantHeaderContains(t, page, "Content-Security-Policy", "form-action 'self';")
	wantBody(t, page, `data-phase="account_delete"`, "Logged in as erase@example.com.", "your e-mail address and password",
		"cannot read it again", `id="delete-account"`, `name="password"`, `id="back-to-flow"`, "/flow/"+flowID)
	wantNotBody(t, page, `id="cancel"`, `id="sandbox-form"`)
	// The page in German and French.
	for lang, text := range map[string]string{"de": "Mein Konto endgültig löschen", "fr": "Supprimer définitivement mon compte"} {
		req, _ := http.NewRequest(http.MethodGet, link+"&lang="+lang, nil)
		wantBody(t, b.send(req), `<html lang="`+lang+`">`, text)
	}

	// CSRF: the session's token, from this origin.
	for name, res := range map[string]response{
		"no token":    b.deleteAccount(link, agePassword, "csrf_token", ""),
		"form token":  b.deleteAccount(link, agePassword, "csrf_token", "forged"),
		"foreign":     b.deleteAccount(link, agePassword, "Origin", "https://evil.example"),
		"cross-site":  b.deleteAccount(link, agePassword, "Sec-Fetch-Site", "cross-site"),
		"null origin": b.deleteAccount(link, agePassword, "Origin", "null"),
	} {
		if res.status != http.StatusForbidden || !strings.Contains(string(res.raw), "This page has expired in your browser") {
			t.Errorf("%s: status %d, want 403 with a reload message", name, res.status)
		}
	}
	// A wrong password deletes nothing.
	res := b.deleteAccount(link, "not the password at all")
	wantStatus(t, res, http.StatusUnauthorized)
	wantBody(t, res, "Wrong password. Your account was not deleted.", `aria-invalid="true"`)
	acct, err := ts.Store.AgeAccountByEmail(ctx, sbx, "erase@example.com")
	if err != nil {
		t.Fatalf("account after a refused deletion: %v", err)
	}
	wantStatus(t, f.user(token), http.StatusOK)

	// The right password: signed out, then the confirmation.
	res = b.deleteAccount(link, agePassword, "Origin", ts.HTTP.URL, "Sec-Fetch-Site", "same-origin")
	wantStatus(t, res, http.StatusSeeOther)
	loc := res.header.Get("Location")
	if !strings.HasPrefix(loc, "/sandbox/age/account?") || !strings.Contains(loc, "deleted=1") || !strings.Contains(loc, "flow="+flowID) {
		t.Fatalf("after deletion: Location %q", loc)
	}
	if c := cookieNamed(res, "verifyd_age_sandbox"); c == nil || c.MaxAge >= 0 {
		t.Errorf("session cookie after deletion: %+v, want it cleared", c)
	}
	req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(ts.HTTP.URL, "/")+loc, nil)
	page = b.send(req)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `data-phase="account_deleted"`, "Your account has been deleted and you are logged out.", `id="back-to-flow"`)

	// Data gone.
	if _, err := ts.Store.AgeAccountByEmail(ctx, sbx, "erase@example.com"); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
		t.Errorf("account after deletion: err = %v", err)
	}
	if proofs, err := ts.Store.AgeProofs(ctx, sbx, acct.ID); err != nil || len(proofs) != 0 {
		t.Errorf("proofs after deletion: %v, %v", proofs, err)
	}
	if n, err := ts.Store.DeleteSessions(ctx, agehosted.Realm(sbx), acct.ID); err != nil || n != 0 {
		t.Errorf("sessions left after deletion: %d, %v", n, err)
	}
	// Both devices are signed out.
	b.wantStep("account")
	other.wantStep("account")
	// Tokens: A3 answers as for a revoked token; the unused code is refused.
	res = f.user(token)
	wantStatus(t, res, http.StatusBadRequest)
	wantBody(t, res, "malformed token")
	res = f.specToken(f.cred.APIKey, f.cred.APISecret, map[string]string{"code": unused})
	wantStatus(t, res, http.StatusBadRequest)
	wantBody(t, res, "invalid code")

	// Deleting again (another tab) finds nobody signed in.
	res = b.deleteAccount(link, agePassword)
	wantStatus(t, res, http.StatusForbidden)
	req, _ = http.NewRequest(http.MethodGet, link, nil)
	wantBody(t, b.send(req), `data-phase="account_signed_out"`, "Log in to see the sites", `id="login"`)

	// The address signs up again, as a new account with nothing proven.
	b.authorize("gb")
	wantStatus(t, b.signUp("erase@example.com"), http.StatusSeeOther)
	b.wantStep("methods")
	again, err := ts.Store.AgeAccountByEmail(ctx, sbx, "erase@example.com")
	if err != nil || again.ID == acct.ID {
		t.Fatalf("new account: %+v, %v (old id %s)", again, err, acct.ID)
	}
}

// TestAgeAccountDeleteRateLimited: the password check of a deletion counts
// against the login's limits: the sixth attempt in the window is refused,
// even with the right password, and nothing is deleted.
func TestAgeAccountDeleteRateLimited(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	b.authorize("gb")
	wantStatus(t, b.signUp("limit@example.com"), http.StatusSeeOther)
	link, _ := b.openAccount()
	for range 5 {
		wantStatus(t, b.deleteAccount(link, "not the password at all"), http.StatusUnauthorized)
	}
	res := b.deleteAccount(link, agePassword)
	wantStatus(t, res, http.StatusTooManyRequests)
	wantBody(t, res, "Too many attempts. Please try again in")
	if res.header.Get("Retry-After") == "" {
		t.Error("no Retry-After on a rate-limited deletion")
	}
	if _, err := ts.Store.AgeAccountByEmail(context.Background(), sbx, "limit@example.com"); err != nil {
		t.Fatalf("account after refused deletions: %v", err)
	}
	// The login shares the limit.
	b.authorize("gb")
	b.get("")
	wantStatus(t, b.post("/logout", url.Values{}), http.StatusSeeOther)
	wantStatus(t, b.logIn("limit@example.com", agePassword), http.StatusTooManyRequests)
}
