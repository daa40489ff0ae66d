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
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// Consent per business (web/agepages Pages.Consent, docs/age.md): a signed-in
// person's answer goes to a business only after "Share: yes".

// newOAuthBusiness adds a business with its own age credentials whose
// allowed list holds the usual callback.
func newOAuthBusiness(t *testing.T, ts *testserver.Server, env verifyd.Environment, name string) *oauthFixture {
	t.Helper()
	_, creds, err := ts.Tenants.CreateBusiness(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	f := &oauthFixture{t: t, ts: ts, env: env, base: ts.BaseURL(age, env)}
	for _, c := range creds {
		if c.Interface == age && c.Environment == env {
			f.cred = c
		}
	}
	(&client{t: t, base: f.base, key: f.cred.APIKey, secret: f.cred.APISecret}).change(t, "PUT", []string{oauthCallback})
	return f
}

// at returns the same browser (cookies, tokens) on another business's flows.
func (b *flowBrowser) at(f *oauthFixture) *flowBrowser {
	c := *b
	c.f = f
	return &c
}

// TestAgeConsentPerBusiness: with a session, a second business gets no
// code before the person says yes; "no" sends a code saying
// age_verified false with an id linked to nothing, and is asked again
// next time; "yes" is remembered per business; revoking it on the
// account page brings the question back.
func TestAgeConsentPerBusiness(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			testAgeConsent(t, testserver.Start(t, d, testserver.Options{Dev: true}))
		})
	}
}

func testAgeConsent(t *testing.T, ts *testserver.Server) {
	shop := newOAuth(t, ts, sbx)
	other := newOAuthBusiness(t, ts, sbx, "Kino Zürich & Söhne")
	b := newFlowBrowser(t, shop)
	b.consent = false

	// A new person: sign-up, then the question names the business.
	b.authorize("gb")
	wantStatus(t, b.signUp("consent@example.com"), http.StatusSeeOther)
	page := b.wantStep("consent")
	wantBody(t, page, "Test business asks whether you are 18 or older", `id="consent-yes"`, `id="consent-no"`,
		"on your account page")
	wantNotBody(t, page, `id="methods"`, `id="cancel"`)
	// Nothing goes on before the answer: a method is not started.
	wantStatus(t, b.post("/method", url.Values{"method": {"credit_card"}, "csrf_token": {b.token("/consent")}}), http.StatusSeeOther)
	b.wantStep("consent")
	// An answer that is neither yes nor no, or without the session's token.
	wantStatus(t, b.post("/consent", url.Values{"share": {"maybe"}}), http.StatusUnprocessableEntity)
	wantStatus(t, b.post("/consent", url.Values{"share": {"yes"}, "csrf_token": {"forged"}}), http.StatusForbidden)
	b.wantStep("consent")
	wantStatus(t, b.post("/consent", url.Values{"share": {"yes"}}), http.StatusSeeOther)
	first := b.wantBack(b.adultByCard())
	if first["age_verified"] != true {
		t.Fatalf("users/me = %v", first)
	}
	// The same business again: straight back, no question.
	b.authorize("gb")
	if again := b.finish(); again["id"] != first["id"] || again["age_verified"] != true {
		t.Fatalf("returning to the business agreed to: %v, want %v", again, first)
	}

	// Another business with the same session: no silent code, its own name.
	o := b.at(other)
	o.authorize("gb")
	page = o.wantStep("consent")
	wantBody(t, page, html.EscapeString("Kino Zürich & Söhne")+" asks whether you are 18 or older")
	wantHeaderContains(t, page, "Content-Security-Policy", "form-action 'self' https://shop.example;")
	// No: back at once with a code, age_verified false, an id unlike any.
	no := o.wantBack(o.post("/consent", url.Values{"share": {"no"}}))
	if no["age_verified"] != false || no["id"] == first["id"] {
		t.Fatalf("declined: users/me = %v", no)
	}
	// No is not remembered: the next visit asks again, and the answer of
	// another "no" has yet another id (nothing to link visits by).
	o.authorize("gb")
	o.wantStep("consent")
	no2 := o.wantBack(o.post("/consent", url.Values{"share": {"no"}}))
	if no2["age_verified"] != false || no2["id"] == no["id"] {
		t.Fatalf("declined twice: %v then %v", no, no2)
	}
	// Yes: the stored proof counts there too (another id: per business).
	o.authorize("gb")
	o.wantStep("consent")
	wantStatus(t, o.post("/consent", url.Values{"share": {"yes"}}), http.StatusSeeOther)
	yes := o.finish()
	if yes["age_verified"] != true || yes["id"] == first["id"] {
		t.Fatalf("agreed: users/me = %v (first business's id %v)", yes, first["id"])
	}
	o.authorize("gb")
	o.finish()

	// The account page lists both and stops sharing with one (reached
	// from a German flow, which asks for the password first).
	b.authorize("de")
	link, acct := b.openAccount()
	wantBody(t, acct, "Sites you share your age with", "Test business", html.EscapeString("Kino Zürich & Söhne"))
	revoke := regexp.MustCompile(`<form method="post" action="([^"]*/consents/revoke[^"]*)">\s*<input type="hidden" name="csrf_token" value="([^"]+)">\s*<input type="hidden" name="business" value="([^"]+)">\s*<button[^>]*>([^<]+)<`)
	var to, tok string
	for _, m := range revoke.FindAllStringSubmatch(string(acct.raw), -1) {
		if strings.Contains(html.UnescapeString(m[4]), "Kino") {
			to, tok = html.UnescapeString(m[1]), m[2]
			if m[3] != other.bizID(t) {
				t.Fatalf("revoke form names business %q, want %q", m[3], other.bizID(t))
			}
		}
	}
	if to == "" {
		t.Fatalf("no revoke form for the second business:\n%s", acct.raw)
	}
	u, _ := url.Parse(link)
	u.Path, u.RawQuery = to, ""
	if i := strings.Index(to, "?"); i >= 0 {
		u.Path, u.RawQuery = to[:i], to[i+1:]
	}
	post := func(form url.Values, headers ...string) response {
		req, _ := http.NewRequest(http.MethodPost, u.String(), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		return b.send(req)
	}
	// Another site cannot revoke for the person, nor can a forged token.
	wantStatus(t, post(url.Values{"csrf_token": {tok}, "business": {other.bizID(t)}}, "Origin", "https://evil.example"), http.StatusForbidden)
	wantStatus(t, post(url.Values{"csrf_token": {"forged"}, "business": {other.bizID(t)}}), http.StatusForbidden)
	res := post(url.Values{"csrf_token": {tok}, "business": {other.bizID(t)}})
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "You no longer share your age with "+html.EscapeString("Kino Zürich & Söhne"), "Test business")
	// The first business is untouched; the second asks again.
	b.authorize("gb")
	b.finish()
	o.authorize("gb")
	o.wantStep("consent")
}

// bizID is the business of the fixture's credential.
func (f *oauthFixture) bizID(t *testing.T) string {
	t.Helper()
	c, err := f.ts.Store.Credential(context.Background(), f.cred.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	return c.BusinessID
}
