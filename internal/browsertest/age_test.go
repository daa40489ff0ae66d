package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/sdk"
)

// The hosted age-verification pages in a real Chromium: a site (the
// integrator, a local server here) sends the person to /oauth/authorize;
// the flow's pages end with a redirect to the site's callback, which
// exchanges the code (A2) and reads the result (A3) as an integrator does,
// and shows it.

// integrator is a site using the age interface of one environment.
type integrator struct {
	srv  *httptest.Server
	base string // the age interface's base URL
	cred verifyd.Credential
}

func newIntegrator(t *testing.T, ts *testserver.Server, env verifyd.Environment) *integrator {
	t.Helper()
	return newIntegratorWith(t, ts, env, ts.Credential(verifyd.InterfaceAge, env))
}

// newOtherIntegrator is a site of another business, with its own name.
func newOtherIntegrator(t *testing.T, ts *testserver.Server, env verifyd.Environment, name string) *integrator {
	t.Helper()
	_, creds, err := ts.Tenants.CreateBusiness(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range creds {
		if c.Interface == verifyd.InterfaceAge && c.Environment == env {
			return newIntegratorWith(t, ts, env, c)
		}
	}
	t.Fatal("no age credential")
	return nil
}

func newIntegratorWith(t *testing.T, ts *testserver.Server, env verifyd.Environment, cred verifyd.Credential) *integrator {
	t.Helper()
	in := &integrator{base: ts.BaseURL(verifyd.InterfaceAge, env), cred: cred}
	in.srv = httptest.NewServer(http.HandlerFunc(in.callback))
	t.Cleanup(in.srv.Close)
	c, err := sdk.New(in.base, in.cred.APIKey, in.cred.APISecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Redirects().Replace(context.Background(), []string{in.srv.URL + "/cb"}); err != nil {
		t.Fatal(err)
	}
	return in
}

// authorizeURL is where the site sends the person (SPEC A1).
func (in *integrator) authorizeURL(country string) string {
	q := url.Values{"client_id": {in.cred.APIKey}, "scope": {"adult"}, "redirect_uri": {in.srv.URL + "/cb"},
		"country": {country}, "state": {"st-" + country}}
	return in.base + "/oauth/authorize?" + q.Encode()
}

// clearCookies forgets every cookie of the browser (a new device).
func clearCookies() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{})
		return err
	})
}

// acceptLanguage sets the browser's preferred language (the flow page
// follows Accept-Language; A1's redirect carries no language).
func acceptLanguage(lang string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Accept-Language": lang}})
		return err
	})
}

// callback is the site's redirect_uri: A2 then A3, server side, and a page
// with the result.
func (in *integrator) callback(w http.ResponseWriter, r *http.Request) {
	body, _ := json.Marshal(map[string]string{"code": r.URL.Query().Get("code")})
	req, _ := http.NewRequest(http.MethodPost, in.base+"/oauth/token", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(in.cred.APIKey, in.cred.APISecret)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	var user struct {
		AgeVerified bool   `json:"age_verified"`
		ID          string `json:"id"`
		Threshold   int    `json:"threshold"`
	}
	res, err := http.DefaultClient.Do(req)
	if err == nil {
		err = json.NewDecoder(res.Body).Decode(&tok)
		res.Body.Close()
	}
	if err == nil {
		if res, err = http.Get(in.base + "/users/me?access_token=" + url.QueryEscape(tok.AccessToken)); err == nil {
			err = json.NewDecoder(res.Body).Decode(&user)
			res.Body.Close()
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err != nil || user.ID == "" {
		fmt.Fprintf(w, `<!doctype html><title>site</title><p id="result">error %s</p>`, html.EscapeString(fmt.Sprint(err)))
		return
	}
	fmt.Fprintf(w, `<!doctype html><title>site</title><p id="result">age_verified=%v id=%s threshold=%d state=%s</p>`,
		user.AgeVerified, html.EscapeString(user.ID), user.Threshold, html.EscapeString(r.URL.Query().Get("state")))
}

// waitForSite waits for the site's result page and returns its text.
func waitForSite(t *testing.T, ctx context.Context, in *integrator) string {
	t.Helper()
	waitJS(t, ctx, "the site's result page", `location.href.startsWith('`+in.srv.URL+`/cb') && !!document.getElementById('result')`)
	return jsString(t, ctx, `document.getElementById('result').textContent`)
}

// agreeToShare answers "<business> asks whether you are 18 or older" with
// yes, after checking that the question names the business.
func agreeToShare(t *testing.T, ctx context.Context, business string) {
	t.Helper()
	waitJS(t, ctx, "the consent question", `document.querySelector('main').dataset.phase === 'consent'`)
	if q := jsString(t, ctx, `document.getElementById('h-consent').textContent`); !strings.HasPrefix(q, business+" ") {
		t.Fatalf("consent question %q does not name %q", q, business)
	}
	do(t, ctx, "share", chromedp.Click(chromedp.ID("consent-yes")))
	// The answer's page (the flow's next step, or the site when the flow
	// is over), before anything else is clicked: a click on the consent
	// page while its form's navigation is still pending (a loaded machine)
	// replaces that navigation, and the answer is never sent.
	waitJS(t, ctx, "the answer to the consent question",
		`!document.querySelector('main[data-phase]') || document.querySelector('main').dataset.phase !== 'consent'`)
}

// agreeToFace answers the document method's question about the
// processing of the face with yes and waits for the page that follows.
func agreeToFace(t *testing.T, ctx context.Context) {
	t.Helper()
	waitJS(t, ctx, "the biometric consent question", `document.querySelector('main').dataset.phase === 'biometric'`)
	do(t, ctx, "agree to the processing of the face", chromedp.Click(chromedp.ID("bio-yes")))
	// As in agreeToShare: nothing else is clicked before the answer's page.
	waitJS(t, ctx, "the answer to the biometric question",
		`!document.querySelector('main[data-phase]') || document.querySelector('main').dataset.phase !== 'biometric'`)
}

func writeFiles(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestAgeNewUserVerifiesWithDocumentThenReturns: a new person signs up,
// proves their age with the document method (a synthetic ID card from
// internal/docgen and a selfie, uploaded with the file inputs) and lands on
// the site with age_verified=true. Then, in a browser without the session,
// they log in and are sent straight back.
//
// This runs in the SANDBOX, where the document method goes through the
// real flow (internal identity verification, submission, queue, decision,
// the flow's polling and redirect) but the decision comes from the
// account's e-mail tag (none: approved) instead of the production pipeline,
// which without the face models ends in review. Production with the face
// models is TestAgeProductionDocumentWithFaces; the MRZ's date of birth
// deciding is also covered in httpapi/age_pages_test.go with a scripted
// document check.
func TestAgeNewUserVerifiesWithDocumentThenReturns(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	in := newIntegrator(t, ts, verifyd.EnvSandbox)
	dir := documentFiles(t)
	const email, password = "ada.lovelace@example.com", "analytical engine 1843"

	ctx := browser(t)
	do(t, ctx, "open the site's link", mobile(), acceptLanguage("en"), chromedp.Navigate(in.authorizeURL("gb")))
	waitJS(t, ctx, "the account forms", `!!document.getElementById('signup') && !!document.getElementById('login')`)
	if got := jsString(t, ctx, `document.documentElement.lang`); got != "en" {
		t.Fatalf("lang = %q", got)
	}
	screenshot(t, ctx, "age-account.png")
	do(t, ctx, "sign up",
		chromedp.SendKeys(chromedp.ID("s-email"), email),
		chromedp.SendKeys(chromedp.ID("s-password"), password),
		chromedp.SendKeys(chromedp.ID("s-password_again"), password),
		chromedp.Click(chromedp.ID("signup-submit")))
	agreeToShare(t, ctx, "Test business")
	waitJS(t, ctx, "the methods", `document.querySelector('main').dataset.phase === 'methods'`)
	for _, m := range []string{"document", "credit_card", "mobile_operator", "email_estimation"} {
		if jsString(t, ctx, `String(!!document.getElementById('method-`+m+`'))`) != "true" {
			t.Fatalf("gb does not offer %s in the sandbox", m)
		}
	}
	screenshot(t, ctx, "age-methods-gb.png")
	do(t, ctx, "choose the document", chromedp.Click(chromedp.ID("method-document")))
	agreeToFace(t, ctx)
	waitJS(t, ctx, "the capture form", `!!document.getElementById('capture') && document.querySelector('main').dataset.phase === 'document'`)
	fillCaptureForm(t, ctx, dir)
	screenshot(t, ctx, "age-document-filled.png")
	do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))
	first := waitForSite(t, ctx, in)
	if !strings.HasPrefix(first, "age_verified=true id=agv_") || !strings.HasSuffix(first, "threshold=18 state=st-gb") {
		t.Fatalf("site shows %q", first)
	}
	screenshot(t, ctx, "age-site-adult.png")

	// What was stored: the document and selfie of an internal identity
	// verification of the integrator, approved, without a webhook.
	proofs, err := ts.Store.AgeProofs(context.Background(), verifyd.EnvSandbox, accountID(t, ts, verifyd.EnvSandbox, email))
	if err != nil || len(proofs) != 1 || proofs[0].Result != verifyd.AgeResultAdult || proofs[0].Method != verifyd.AgeMethodDocument {
		t.Fatalf("proofs %+v, %v", proofs, err)
	}
	v, err := ts.Store.VerificationByID(context.Background(), proofs[0].IdentityVerificationID)
	if err != nil || v.Status != verifyd.StatusApproved || v.Webhook != "" || v.Document.Type != verifyd.DocIDCard || v.BusinessID != ts.Business.ID {
		t.Fatalf("verification %+v, %v", v, err)
	}

	// Returning without the session: log in, straight back, same id.
	do(t, ctx, "forget the session", clearCookies())
	do(t, ctx, "open the site's link again", chromedp.Navigate(in.authorizeURL("gb")))
	waitJS(t, ctx, "the login form", `!!document.getElementById('login')`)
	do(t, ctx, "log in",
		chromedp.SendKeys(chromedp.ID("l-email"), email),
		chromedp.SendKeys(chromedp.ID("l-password"), password),
		chromedp.Click(chromedp.ID("login-submit")))
	if again := waitForSite(t, ctx, in); again != first {
		t.Fatalf("returning user: site shows %q, want %q", again, first)
	}
	// With the session, the next visit does not even show a page.
	do(t, ctx, "open the site's link a third time", chromedp.Navigate(in.authorizeURL("us")))
	if third := waitForSite(t, ctx, in); !strings.HasPrefix(third, "age_verified=true") || !strings.HasSuffix(third, "state=st-us") {
		t.Fatalf("third visit: site shows %q", third)
	}

	// Another business's site, same session: no code before the person
	// agrees; the question names that business; then the stored proof
	// counts there, under another id, and the answer is remembered.
	other := newOtherIntegrator(t, ts, verifyd.EnvSandbox, "Kino am Markt")
	do(t, ctx, "open another business's link", chromedp.Navigate(other.authorizeURL("gb")))
	agreeToShare(t, ctx, "Kino am Markt")
	shared := waitForSite(t, ctx, other)
	if !strings.HasPrefix(shared, "age_verified=true id=agv_") || strings.Contains(first, strings.Fields(shared)[1]) {
		t.Fatalf("the other business: site shows %q (first site %q)", shared, first)
	}
	do(t, ctx, "open the other business's link again", chromedp.Navigate(other.authorizeURL("gb")))
	if again := waitForSite(t, ctx, other); again != shared {
		t.Fatalf("the other business again: site shows %q, want %q", again, shared)
	}
}

func accountID(t *testing.T, ts *testserver.Server, env verifyd.Environment, email string) string {
	t.Helper()
	a, err := ts.Store.AgeAccountByEmail(context.Background(), env, email)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// TestAgeGermanyOffersOnlyTheDocument: for a German site the page offers
// only the ID document, and a credit-card choice forced into the form (a
// tampered page) is refused by the server. A person who proved their age
// with a simulated credit card for a UK site must still use the document
// in Germany. German pages speak German.
func TestAgeGermanyOffersOnlyTheDocument(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	in := newIntegrator(t, ts, verifyd.EnvSandbox)
	const email, password = "jonas@example.de", "Kreuzberg-Kiez-2024"

	ctx := browser(t)
	// First a UK site: a simulated credit-card check, adult.
	do(t, ctx, "open the UK site's link", mobile(), acceptLanguage("en"), chromedp.Navigate(in.authorizeURL("gb")))
	waitJS(t, ctx, "the account forms", `!!document.getElementById('signup')`)
	do(t, ctx, "sign up",
		chromedp.SendKeys(chromedp.ID("s-email"), email),
		chromedp.SendKeys(chromedp.ID("s-password"), password),
		chromedp.SendKeys(chromedp.ID("s-password_again"), password),
		chromedp.Click(chromedp.ID("signup-submit")))
	agreeToShare(t, ctx, "Test business")
	waitJS(t, ctx, "the methods", `!!document.getElementById('method-credit_card')`)
	do(t, ctx, "choose the credit card", chromedp.Click(chromedp.ID("method-credit_card")))
	waitJS(t, ctx, "the simulation", `!!document.getElementById('outcome-adult')`)
	screenshot(t, ctx, "age-simulation.png")
	do(t, ctx, "answer adult", chromedp.Click(chromedp.ID("outcome-adult")))
	if got := waitForSite(t, ctx, in); !strings.HasPrefix(got, "age_verified=true") {
		t.Fatalf("UK site shows %q", got)
	}

	// Then a German site: the password again, then only the document.
	do(t, ctx, "open the German site's link", acceptLanguage("de-DE,de;q=0.9"), chromedp.Navigate(in.authorizeURL("de")))
	waitJS(t, ctx, "the password form", `!!document.getElementById('login') && !document.getElementById('signup')`)
	if got := jsString(t, ctx, `document.documentElement.lang`); got != "de" {
		t.Fatalf("lang = %q", got)
	}
	if got := jsString(t, ctx, `document.getElementById('l-email').value`); got != email {
		t.Fatalf("e-mail prefilled %q", got)
	}
	do(t, ctx, "enter the password", chromedp.SendKeys(chromedp.ID("l-password"), password),
		chromedp.Click(chromedp.ID("login-submit")))
	// Germany accepts one method: no methods page, the biometric question
	// and then the capture form at once, with the rule explained.
	agreeToFace(t, ctx)
	waitJS(t, ctx, "the capture form", `document.querySelector('main').dataset.phase === 'document'`)
	if jsString(t, ctx, `String(document.querySelectorAll('button[name=method]').length)`) != "0" {
		t.Fatal("a methods page with one method")
	}
	if text := jsString(t, ctx, `document.querySelector('main').innerText`); !strings.Contains(text, "nur ein Ausweisdokument mit Selfie") {
		t.Fatalf("the German rule is not explained:\n%s", text)
	}
	screenshot(t, ctx, "age-document-de.png")
	// A tampered page asks for the credit card anyway: refused.
	do(t, ctx, "tamper and submit", chromedp.Evaluate[chromedp.Void](`(function () {
		var f = document.createElement('form');
		f.method = 'post';
		f.action = location.pathname + '/method';
		[['csrf_token', document.querySelector('input[name=csrf]').value], ['method', 'credit_card']].forEach(function (kv) {
			var i = document.createElement('input');
			i.type = 'hidden'; i.name = kv[0]; i.value = kv[1];
			f.appendChild(i);
		});
		document.body.appendChild(f);
		f.submit();
	})()`))
	waitJS(t, ctx, "the refusal", `!!document.getElementById('banner')`)
	if got := jsString(t, ctx, `document.getElementById('banner').textContent`); !strings.Contains(got, "nicht akzeptiert") {
		t.Fatalf("banner %q", got)
	}
	if phase(t, ctx) != "document" {
		t.Fatal("the refused choice left the document step")
	}
	screenshot(t, ctx, "age-refused-de.png")
	proofs, err := ts.Store.AgeProofs(context.Background(), verifyd.EnvSandbox, accountID(t, ts, verifyd.EnvSandbox, email))
	if err != nil {
		t.Fatal(err)
	}
	// The UK site's card proof and the German flow's document check; no
	// card proof for Germany.
	for _, p := range proofs {
		if p.Country == "de" && p.Method != verifyd.AgeMethodDocument {
			t.Fatalf("the refused method stored a proof: %+v", p)
		}
	}
	if len(proofs) != 2 {
		t.Fatalf("proofs %+v", proofs)
	}
}

// TestAgeBiometricConsentPage: in production Germany (the document only)
// the question about the face comes before any capture, names what is
// processed, why and for how long, and passes axe; "I do not agree" leads
// to the methods with why and the way back; the document again asks again,
// "I agree" shows the capture form; going back then answers "not
// verified" to the site.
func TestAgeBiometricConsentPage(t *testing.T) {
	t.Parallel()
	axe := axeScript(t)
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	in := newIntegrator(t, ts, verifyd.EnvProduction)
	ctx := browser(t)
	check := func(what string) { axeCheck(t, ctx, axe, what) }

	do(t, ctx, "open the German site's link", mobile(), acceptLanguage("en"), chromedp.Navigate(in.authorizeURL("de")))
	waitJS(t, ctx, "the account forms", `!!document.getElementById('signup')`)
	do(t, ctx, "sign up", chromedp.Click(chromedp.ID("choose-signup")),
		chromedp.SendKeys(chromedp.ID("s-email"), "face@example.de"),
		chromedp.SendKeys(chromedp.ID("s-password"), "correct horse battery"),
		chromedp.SendKeys(chromedp.ID("s-password_again"), "correct horse battery"),
		chromedp.Click(chromedp.ID("signup-submit")))
	agreeToShare(t, ctx, "Test business")
	waitJS(t, ctx, "the biometric question", `document.querySelector('main').dataset.phase === 'biometric'`)
	if jsString(t, ctx, `String(!!document.getElementById('capture') || !!document.querySelector('input[type=file]'))`) != "false" {
		t.Fatal("the capture form is shown before the answer")
	}
	text := jsString(t, ctx, `document.querySelector('main').innerText`)
	for _, want := range []string{"Do you agree to this processing of your face?", "compared with the photo on your document",
		"the age read from it is yours", "deleted as soon as your age is decided", "Go back without proving my age"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the question's page lacks %q:\n%s", want, text)
		}
	}
	if got := jsString(t, ctx, `document.title`); !strings.HasPrefix(got, "Your face and your document") {
		t.Fatalf("title %q", got)
	}
	screenshot(t, ctx, "age-biometric.png")
	check("biometric question")

	do(t, ctx, "do not agree", chromedp.Click(chromedp.ID("bio-no")))
	waitJS(t, ctx, "the methods after the refusal", `document.querySelector('main').dataset.phase === 'methods'`)
	if got := jsString(t, ctx, `document.getElementById('live').textContent`); !strings.Contains(got, "You did not agree to the processing of your face") {
		t.Fatalf("after the refusal: %q", got)
	}
	check("methods after the refusal")

	do(t, ctx, "the document after all", chromedp.Click(chromedp.ID("method-document")))
	agreeToFace(t, ctx)
	waitJS(t, ctx, "the capture form", `!!document.getElementById('capture') && document.querySelector('main').dataset.phase === 'document'`)
	check("capture form after the consent")

	do(t, ctx, "go back without proving", chromedp.Click(chromedp.CSS(`#cancel button`)))
	if got := waitForSite(t, ctx, in); !strings.HasPrefix(got, "age_verified=false id=agv_") {
		t.Fatalf("site shows %q", got)
	}
	// Recorded: one declined attempt, one with the time of the consent.
	proofs, err := ts.Store.AgeProofs(context.Background(), verifyd.EnvProduction, accountID(t, ts, verifyd.EnvProduction, "face@example.de"))
	if err != nil || len(proofs) != 2 {
		t.Fatalf("proofs %+v, %v", proofs, err)
	}
	consented := 0
	for _, p := range proofs {
		v, err := ts.Store.VerificationByID(context.Background(), p.IdentityVerificationID)
		if err != nil {
			t.Fatal(err)
		}
		if v.ConsentedAt != nil {
			consented++
		} else if v.Status != verifyd.StatusFailed || v.Reason != verifyd.ReasonIDVError {
			t.Fatalf("the declined attempt is %s %s", v.Status, v.Reason)
		}
	}
	if consented != 1 {
		t.Fatalf("%d attempts with a consent, want 1", consented)
	}
}
