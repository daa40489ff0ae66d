package httpapi_test

import (
	"bytes"
	"context"
	"html"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// The hosted age-verification pages (web/agepages, docs/age.md), driven as
// a browser without script would: through A1's redirect to /flow/{id},
// the account forms, the methods, and back to the integrator's callback,
// whose code is exchanged (A2) and read (A3) as an integrator does.

const agePassword = "correct horse battery"

// flowClock is a clock tests move forward.
type flowClock struct{ offset atomic.Int64 }

func (c *flowClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *flowClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// flowBrowser is a person's browser on the flow pages: it keeps cookies,
// shows redirects instead of following them, and remembers each form's
// token by the form's action.
type flowBrowser struct {
	t      *testing.T
	f      *oauthFixture
	hc     *http.Client
	page   string            // the flow page of the current authorize request
	tokens map[string]string // form action → csrf token
	// consent answers "yes" when the flow page asks to share with the
	// site, as a person who agrees would; the consent tests turn it off
	// to see the question.
	consent bool
	// biometric answers "yes" when the document method asks to process
	// the face, as a person who agrees would; the biometric tests turn it
	// off.
	biometric bool
}

func newFlowBrowser(t *testing.T, f *oauthFixture) *flowBrowser {
	jar, _ := cookiejar.New(nil)
	return &flowBrowser{t: t, f: f, tokens: map[string]string{}, consent: true, biometric: true, hc: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// authorize starts a flow (A1) for a country and remembers its page.
func (b *flowBrowser) authorize(country string) {
	b.t.Helper()
	id := b.f.start(b.f.authorizeURL("country", country, "state", "st-"+country))
	b.page = b.f.base + "/flow/" + id
}

var (
	formToken    = regexp.MustCompile(`<form[^>]*action="([^"]+)"[^>]*>\s*<input type="hidden" name="csrf_token" value="([^"]+)">`)
	captureToken = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
)

func (b *flowBrowser) send(req *http.Request) response {
	b.t.Helper()
	res := oauthDo(b.t, b.hc, req)
	for _, m := range formToken.FindAllSubmatch(res.raw, -1) {
		action, _, _ := strings.Cut(html.UnescapeString(string(m[1])), "?")
		b.tokens[action] = string(m[2])
	}
	if m := captureToken.FindSubmatch(res.raw); m != nil {
		b.tokens["capture"] = string(m[1])
	}
	return res
}

// get opens the flow page (suffix "" ) or one of its sub-paths.
func (b *flowBrowser) get(suffix string) response {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.page+suffix, nil)
	res := b.send(req)
	if b.consent && suffix == "" && bytes.Contains(res.raw, []byte(`data-phase="consent"`)) {
		if yes := b.post("/consent", url.Values{"share": {"yes"}}); yes.status != http.StatusSeeOther {
			b.t.Fatalf("consent: status %d; body:\n%s", yes.status, yes.raw)
		}
		return b.get("")
	}
	if b.biometric && suffix == "" && bytes.Contains(res.raw, []byte(`data-phase="biometric"`)) {
		if yes := b.post("/biometric", url.Values{"consent": {"yes"}}); yes.status != http.StatusSeeOther {
			b.t.Fatalf("biometric consent: status %d; body:\n%s", yes.status, yes.raw)
		}
		return b.get("")
	}
	return res
}

// token is the csrf token of the form that posts to a sub-path.
func (b *flowBrowser) token(suffix string) string {
	u, _ := url.Parse(b.page + suffix)
	return b.tokens[u.Path]
}

// post sends a form to a sub-path of the flow page, with the token of the
// form that posts there unless the form carries csrf_token itself.
func (b *flowBrowser) post(suffix string, form url.Values, headers ...string) response {
	b.t.Helper()
	if _, ok := form["csrf_token"]; !ok {
		form.Set("csrf_token", b.token(suffix))
	}
	req, _ := http.NewRequest(http.MethodPost, b.page+suffix, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.send(req)
}

func (b *flowBrowser) signUp(email string) response {
	b.t.Helper()
	b.get("")
	return b.post("/signup", url.Values{"email": {email}, "password": {agePassword}, "password_again": {agePassword}})
}

func (b *flowBrowser) logIn(email, password string) response {
	b.t.Helper()
	b.get("")
	return b.post("/login", url.Values{"email": {email}, "password": {password}})
}

// wantStep asserts that the flow page shows a step.
func (b *flowBrowser) wantStep(step string) response {
	b.t.Helper()
	res := b.get("")
	if res.status != http.StatusOK || !bytes.Contains(res.raw, []byte(`data-phase="`+step+`"`)) {
		b.t.Fatalf("flow page: status %d, want step %s; body:\n%s", res.status, step, res.raw)
	}
	return res
}

// wantBack asserts a redirect to the integrator's callback with a code and
// the request's state, exchanges the code and returns /users/me.
func (b *flowBrowser) wantBack(res response) map[string]any {
	b.t.Helper()
	if res.status != http.StatusSeeOther {
		b.t.Fatalf("want 303 to the callback, got %d; body:\n%s", res.status, res.raw)
	}
	u, err := url.Parse(res.header.Get("Location"))
	if err != nil || !strings.HasPrefix(u.String(), "https://shop.example/age/callback?site=1&code=") || u.Query().Get("state") == "" {
		b.t.Fatalf("redirect to %q, want the callback with code and state", res.header.Get("Location"))
	}
	if res.header.Get("Referrer-Policy") != "no-referrer" {
		b.t.Errorf("Referrer-Policy of the redirect = %q", res.header.Get("Referrer-Policy"))
	}
	tok := b.f.accessToken(b.f.specToken(b.f.cred.APIKey, b.f.cred.APISecret, map[string]string{"code": u.Query().Get("code")}))
	user := b.f.user(tok)
	if user.status != http.StatusOK {
		b.t.Fatalf("users/me: %d %s", user.status, user.raw)
	}
	m := user.json(b.t)
	if m["threshold"] != float64(18) || !strings.HasPrefix(m["id"].(string), "agv_") {
		b.t.Fatalf("users/me = %s", user.raw)
	}
	return m
}

// finish opens the flow page and expects it to send the person back.
func (b *flowBrowser) finish() map[string]any {
	b.t.Helper()
	return b.wantBack(b.get(""))
}

func wantStatus(t *testing.T, res response, status int) {
	t.Helper()
	if res.status != status {
		t.Fatalf("status %d, want %d; body:\n%s", res.status, status, res.raw)
	}
}

func cookieNamed(res response, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestAgePagesSignUpMethodsAndCountryRules walks one person through the
// sandbox: sign-up, a simulated credit-card check in gb, straight back on
// return while the proof is valid, the password again in de (which also
// refuses the credit card), and re-verification once the validity is over.
func TestAgePagesSignUpMethodsAndCountryRules(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			clock := &flowClock{}
			testAgeCountryRules(t, clock, testserver.Start(t, d, testserver.Options{Dev: true, Now: clock.now}))
		})
	}
}

func testAgeCountryRules(t *testing.T, clock *flowClock, ts *testserver.Server) {
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)

	b.authorize("gb")
	page := b.wantStep("account")
	// Forms may lead to the integrator's origin only (the redirect at the
	// end of a form's navigation), and to nothing else.
	wantHeaderContains(t, page, "Content-Security-Policy", "default-src 'none'", "script-src 'self'", "frame-ancestors 'none'",
		"form-action 'self' https://shop.example;")
	wantHeaderContains(t, page, "Cache-Control", "no-store")
	wantBody(t, page, `<html lang="en">`, "Age verification", `id="login"`, `id="signup"`, `id="sandbox-form"`,
		"/sandbox/age/flow-assets/hosted.", "Sandbox accounts are separate")

	// Sign-up problems come back together, in the page's language.
	res := b.post("/signup?lang=de", url.Values{"email": {"nope"}, "password": {"short"}, "password_again": {"x"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, `<html lang="de">`, "E-Mail-Adresse: Geben Sie eine Adresse", "Passwort: Verwenden Sie mindestens 12 Zeichen",
		`aria-invalid="true"`)
	res = b.post("/signup", url.Values{"email": {"ada@example.com"}, "password": {agePassword}, "password_again": {agePassword + "!"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, "The two passwords are not the same.")

	res = b.signUp("Ada@Example.com ")
	wantStatus(t, res, http.StatusSeeOther)
	c := cookieNamed(res, "verifyd_age_sandbox")
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/sandbox/age/" {
		t.Fatalf("session cookie %+v: want verifyd_age_sandbox, HttpOnly, SameSite=Lax, Path=/sandbox/age/", c)
	}

	// gb offers every method a provider serves in the sandbox.
	page = b.wantStep("methods")
	wantBody(t, page, "Logged in as ada@example.com.", `id="method-document"`, `id="method-credit_card"`,
		`id="method-mobile_operator"`, `id="method-email_estimation"`, "counts for 30 days")
	wantStatus(t, b.post("/method", url.Values{"method": {"credit_card"}}), http.StatusSeeOther)
	page = b.wantStep("provider")
	wantBody(t, page, "Credit card check", `id="outcome-adult"`, `id="outcome-minor"`, `id="outcome-failed"`)
	action := regexp.MustCompile(`action="[^"]*(/provider/[^"?]+)"`).FindSubmatch(page.raw)
	// A simulation is never finished by a link (GET).
	wantStatus(t, b.get(string(action[1])+"?outcome=adult"), http.StatusConflict)
	wantStatus(t, b.post(string(action[1]), url.Values{"outcome": {"adult"}}), http.StatusSeeOther)
	first := b.finish()
	if first["age_verified"] != true {
		t.Fatalf("users/me = %v, want age_verified", first)
	}

	// The same address again is another account only in the other
	// environment.
	other := newFlowBrowser(t, f)
	other.authorize("gb")
	res = other.signUp("ada@example.com")
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, "an account with this address exists")

	// Returning within the validity: straight back with the same id.
	b.authorize("gb")
	if again := b.finish(); again["age_verified"] != true || again["id"] != first["id"] {
		t.Fatalf("returning user: users/me = %v, want %v", again, first)
	}
	// us accepts the credit card too, for 60 minutes.
	b.authorize("us")
	b.finish()

	// de wants the password at each use, even with a session...
	b.authorize("de")
	page = b.wantStep("account")
	wantBody(t, page, "Confirm that it is you", `value="ada@example.com"`)
	wantNotBody(t, page, `id="signup"`)
	wantStatus(t, b.logIn("ada@example.com", agePassword), http.StatusSeeOther)
	// ...and accepts only the document: the credit card is not offered, and
	// refused when asked for anyway.
	// (one method: the document step comes at once, with the rule)
	page = b.wantStep("document")
	wantBody(t, page, `id="capture"`, "only an ID document with a selfie")
	wantNotBody(t, page, `id="methods"`, `id="method-credit_card"`, `id="method-mobile_operator"`, `id="method-email_estimation"`)
	res = b.post("/method", url.Values{"method": {"credit_card"}, "csrf_token": {b.tokens["capture"]}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, "This method is not accepted here.")

	// After 2 hours the session is gone (idle 30 min) and us's 60 minutes
	// are over: log in and prove it again. gb's 30 days still hold.
	clock.advance(2 * time.Hour)
	b.authorize("us")
	b.wantStep("account")
	wantStatus(t, b.logIn("ada@example.com", agePassword), http.StatusSeeOther)
	page = b.wantStep("methods")
	wantBody(t, page, `id="method-credit_card"`, `id="method-mobile_operator"`, "counts for 60 minutes")
	wantNotBody(t, page, `id="method-email_estimation"`)
	b.authorize("gb")
	b.finish()

	// After 31 days gb wants a new proof too.
	clock.advance(31 * 24 * time.Hour)
	b.authorize("gb")
	wantStatus(t, b.logIn("ada@example.com", agePassword), http.StatusSeeOther)
	b.wantStep("methods")

	// A minor's result ends the flow too: a code, and age_verified false.
	wantStatus(t, b.post("/method", url.Values{"method": {"mobile_operator"}}), http.StatusSeeOther)
	page = b.wantStep("provider")
	action = regexp.MustCompile(`action="[^"]*(/provider/[^"?]+)"`).FindSubmatch(page.raw)
	wantStatus(t, b.post(string(action[1]), url.Values{"outcome": {"minor"}}), http.StatusSeeOther)
	if minor := b.finish(); minor["age_verified"] != false || minor["id"] == first["id"] {
		t.Fatalf("minor: users/me = %v", minor)
	}
	// A later minor result stops the older adult proof from being reused.
	b.authorize("gb")
	b.wantStep("methods")
}

// TestAgePagesLogin: a wrong password and an unknown address get the same
// answer; the sixth attempt in the window is refused, even with the right
// password.
func TestAgePagesLogin(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	b.authorize("gb")
	wantStatus(t, b.signUp("grace@example.com"), http.StatusSeeOther)
	b.wantStep("methods")
	wantStatus(t, b.post("/logout", url.Values{}), http.StatusSeeOther)
	b.wantStep("account")

	wrong := b.logIn("grace@example.com", "not the password at all")
	unknown := b.logIn("nobody@example.com", agePassword)
	for _, res := range []response{wrong, unknown} {
		wantStatus(t, res, http.StatusUnauthorized)
		wantBody(t, res, "Wrong e-mail address or password.")
	}
	for range 4 {
		wantStatus(t, b.logIn("grace@example.com", "not the password at all"), http.StatusUnauthorized)
	}
	res := b.logIn("grace@example.com", agePassword)
	wantStatus(t, res, http.StatusTooManyRequests)
	wantBody(t, res, "Too many attempts. Please try again in")
	if res.header.Get("Retry-After") == "" {
		t.Error("no Retry-After on a rate-limited login")
	}
	// Another person from another address is not affected by grace's
	// limit (per address and per client; the test client is one address,
	// which has 20 attempts).
	other := newFlowBrowser(t, f)
	other.authorize("gb")
	wantStatus(t, other.signUp("hopper@example.com"), http.StatusSeeOther)
}

// TestAgePagesCSRF: every form needs its token, from this origin.
func TestAgePagesCSRF(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	b.authorize("gb")
	b.get("")
	signup := url.Values{"email": {"ada@example.com"}, "password": {agePassword}, "password_again": {agePassword}}
	for name, res := range map[string]response{
		"no token":    b.post("/signup", url.Values{"csrf_token": {""}, "email": signup["email"], "password": signup["password"], "password_again": signup["password"]}),
		"wrong token": b.post("/signup", url.Values{"csrf_token": {"forged"}, "email": signup["email"], "password": signup["password"], "password_again": signup["password"]}),
		"foreign":     b.post("/signup", url.Values{"email": signup["email"], "password": signup["password"], "password_again": signup["password"]}, "Origin", "https://evil.example"),
		"null origin": b.post("/signup", url.Values{"email": signup["email"], "password": signup["password"], "password_again": signup["password"]}, "Origin", "null"),
		"cross-site":  b.post("/signup", url.Values{"email": signup["email"], "password": signup["password"], "password_again": signup["password"]}, "Sec-Fetch-Site", "cross-site"),
		"sandbox":     b.post("/sandbox", url.Values{"csrf_token": {"forged"}, "outcome": {"adult"}}),
		"cancel":      b.post("/cancel", url.Values{"csrf_token": {"forged"}}),
	} {
		if res.status != http.StatusForbidden || !bytes.Contains(res.raw, []byte("This page has expired in your browser")) {
			t.Errorf("%s: status %d, want 403 with a reload message", name, res.status)
		}
	}
	// Nothing was created: the address is still free.
	wantStatus(t, b.post("/signup", signup), http.StatusSeeOther)
	b.wantStep("methods")
	// Session forms need the session's token, not the form token.
	formTok := b.token("/cancel")
	wantStatus(t, b.post("/method", url.Values{"method": {"credit_card"}, "csrf_token": {formTok}}), http.StatusForbidden)
	wantStatus(t, b.post("/logout", url.Values{"csrf_token": {formTok}}), http.StatusForbidden)
	b.wantStep("methods")
	// Same-origin requests with the right tokens pass.
	wantStatus(t, b.post("/method", url.Values{"method": {"credit_card"}}, "Origin", ts.HTTP.URL, "Sec-Fetch-Site", "same-origin"), http.StatusSeeOther)
}

// TestAgePagesSandboxShortcuts: an integrator's automated test finishes a
// sandbox flow without a camera or an account, by query parameter or by the
// panel. Production offers neither, nor simulated methods.
func TestAgePagesSandboxShortcuts(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	b.authorize("de")
	if m := b.wantBack(b.get("?sandbox=adult")); m["age_verified"] != true {
		t.Fatalf("?sandbox=adult: %v", m)
	}
	// A finished flow cannot be finished again.
	res := b.get("?sandbox=minor")
	wantStatus(t, res, http.StatusConflict)
	wantBody(t, res, "This age verification is finished.")
	b.authorize("fr")
	if m := b.wantBack(b.get("?sandbox=minor")); m["age_verified"] != false {
		t.Fatalf("?sandbox=minor: %v", m)
	}
	b.authorize("us")
	b.get("")
	if m := b.wantBack(b.post("/sandbox", url.Values{"outcome": {"adult"}})); m["age_verified"] != true {
		t.Fatalf("panel adult: %v", m)
	}
	b.authorize("gb")
	b.get("")
	if m := b.wantBack(b.post("/sandbox", url.Values{"outcome": {"minor"}})); m["age_verified"] != false {
		t.Fatalf("panel minor: %v", m)
	}
	// Cancel: back without proof.
	b.authorize("gb")
	b.get("")
	if m := b.wantBack(b.post("/cancel", url.Values{})); m["age_verified"] != false {
		t.Fatalf("cancel: %v", m)
	}
	// Unknown flows, and flows of the other environment, are 404 pages.
	b.page = f.base + "/flow/areq_unknown"
	res = b.get("")
	wantStatus(t, res, http.StatusNotFound)
	wantBody(t, res, "not valid or has expired")
	wantHeaderContains(t, res, "Content-Security-Policy", "default-src 'none'")

	// Production: the shortcut is ignored, the panel's route does not
	// exist, and gb offers only the document (no provider is configured).
	pf := newOAuth(t, ts, prd)
	p := newFlowBrowser(t, pf)
	p.authorize("gb")
	page := p.get("?sandbox=adult")
	wantStatus(t, page, http.StatusOK)
	wantNotBody(t, page, "sandbox-form", "Sandbox", "?sandbox=")
	wantStatus(t, p.post("/sandbox", url.Values{"outcome": {"adult"}}), http.StatusNotFound)
	wantStatus(t, p.signUp("ada@example.com"), http.StatusSeeOther)
	// Production offers only the document: no methods page, the capture form.
	page = p.wantStep("document")
	wantBody(t, page, `id="capture"`)
	wantNotBody(t, page, `id="methods"`, `id="method-credit_card"`, `id="method-mobile_operator"`, `id="method-email_estimation"`)
	wantStatus(t, p.post("/method", url.Values{"method": {"credit_card"}, "csrf_token": {p.tokens["capture"]}}), http.StatusUnprocessableEntity)
	// A sandbox flow id on the production mount is not found.
	b.authorize("gb")
	p.page = pf.base + "/flow/" + strings.TrimPrefix(b.page, f.base+"/flow/")
	wantStatus(t, p.get(""), http.StatusNotFound)
}

// TestAgePagesSecureCookies: without --dev the session cookie is Secure,
// __Secure- (scoped to the mount's path, so not __Host-), HttpOnly, Lax.
func TestAgePagesSecureCookies(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	f := newOAuth(t, ts, prd)
	b := newFlowBrowser(t, f)
	b.authorize("gb")
	res := b.get("")
	form := cookieNamed(res, "__Secure-verifyd_age_form")
	if form == nil || !form.Secure || !form.HttpOnly || form.Path != "/age/" {
		t.Fatalf("form cookie %+v", form)
	}
	// The client does not send Secure cookies over http: post with the
	// cookie by hand.
	req, _ := http.NewRequest(http.MethodPost, b.page+"/signup", strings.NewReader(url.Values{
		"email": {"ada@example.com"}, "password": {agePassword}, "password_again": {agePassword},
		"csrf_token": {b.token("/signup")}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: form.Name, Value: form.Value})
	res = oauthDo(t, noFollow, req)
	wantStatus(t, res, http.StatusSeeOther)
	c := cookieNamed(res, "__Secure-verifyd_age")
	if c == nil || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/age/" || c.Domain != "" {
		t.Fatalf("session cookie %+v: want __Secure-verifyd_age, Secure, HttpOnly, Lax, Path=/age/", c)
	}
}

// docCheck is a pipeline check named like the real document check, whose
// result (and so the MRZ evidence) the test sets.
type docCheck struct{ result atomic.Pointer[engine.Result] }

func (*docCheck) Name() string { return "document" }
func (c *docCheck) Run(context.Context, *engine.Input) engine.Result {
	return *c.result.Load()
}
func (c *docCheck) set(r engine.Result) { c.result.Store(&r) }

func mrzEvidence(birth string) map[string]any {
	return map[string]any{"mrz": map[string]any{"birth_date": birth, "document_number": "L01X00T47"}}
}

// upload posts the capture form as the page's script does.
func (b *flowBrowser) upload(p photos) response {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("csrf", b.tokens["capture"])
	_ = w.WriteField("document_type", "Passport")
	_ = w.WriteField("document_country", "gbr")
	for name, data := range map[string][]byte{"front": p.front, "selfie": p.selfie} {
		fw, _ := w.CreateFormFile(name, name+".jpg")
		_, _ = fw.Write(data)
	}
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, b.page+"/document", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-CSRF-Token", b.tokens["capture"])
	return b.send(req)
}

// waitStep polls the status endpoint until the step is want.
func (b *flowBrowser) waitStep(want string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res := b.get("/status")
		if res.status == http.StatusOK && res.json(b.t)["phase"] == want {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("status %d %s, want phase %s", res.status, res.raw, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAgePagesDocumentMethod runs the document method through the real
// queue and engine plumbing with a scripted document check in production:
// the date of birth read from the MRZ decides; review makes the page wait
// until an operator decides. In the sandbox the account's e-mail tag
// decides, as on the identity page.
func TestAgePagesDocumentMethod(t *testing.T) {
	t.Parallel()
	check := &docCheck{}
	check.set(engine.Passed("mrz read", mrzEvidence("1990-04-01")))
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Pipeline: engine.NewPipeline(check)})
	good := goodPhotos(t)

	t.Run("production", func(t *testing.T) {
		f := newOAuth(t, ts, prd)
		b := newFlowBrowser(t, f)
		b.authorize("de")
		wantStatus(t, b.signUp("anna@example.de"), http.StatusSeeOther)
		page := b.wantStep("document")
		wantBody(t, page, `id="capture"`, `name="document_type"`, `id="camera"`, "/age/flow-assets/hosted.",
			"used only to check your age")
		// The form is refused without the session's token.
		saved := b.tokens["capture"]
		b.tokens["capture"] = "forged"
		wantStatus(t, b.upload(good), http.StatusForbidden)
		b.tokens["capture"] = saved
		// Validation problems come back as the identity page's.
		res := b.upload(photos{front: good.front})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, `"field":"selfie"`)

		wantStatus(t, b.upload(good), http.StatusAccepted)
		b.waitStep("done")
		adult := b.finish()
		if adult["age_verified"] != true {
			t.Fatalf("adult by the MRZ: %v", adult)
		}
		// The internal verification notified nobody and is not the
		// integrator's to read.
		events, err := ts.Store.WebhookEvents(context.Background(), verifyd.WebhookFilter{})
		if err != nil || len(events) != 0 {
			t.Fatalf("webhook events: %v %v", events, err)
		}

		// An approved verification whose MRZ says 17 is a minor.
		check.set(engine.Passed("mrz read", mrzEvidence(time.Now().AddDate(-17, 0, 0).Format(time.DateOnly))))
		k := newFlowBrowser(t, f)
		k.authorize("gb")
		wantStatus(t, k.signUp("kid@example.com"), http.StatusSeeOther)
		k.wantStep("document")
		wantStatus(t, k.upload(good), http.StatusAccepted)
		k.waitStep("done")
		if m := k.finish(); m["age_verified"] != false {
			t.Fatalf("minor by the MRZ: %v", m)
		}

		// Review: the page waits (and polls) until an operator decides.
		check.set(engine.NeedsReview("face matching is not automatic", mrzEvidence("1980-01-01")))
		r := newFlowBrowser(t, f)
		r.authorize("fr")
		wantStatus(t, r.signUp("rene@example.fr"), http.StatusSeeOther)
		r.wantStep("document")
		wantStatus(t, r.upload(good), http.StatusAccepted)
		r.waitStep("review")
		page = r.wantStep("review")
		wantBody(t, page, `data-poll="5000"`, "Our team is reviewing your photos")
		queue, err := ts.Store.ReviewQueue(context.Background(), 10)
		if err != nil || len(queue) != 1 || queue[0].Webhook != "" || queue[0].Customer.Email != "rene@example.fr" {
			t.Fatalf("review queue = %+v, %v", queue, err)
		}
		if _, err := ts.Identity.Transition(context.Background(), verifyd.Transition{VerificationID: queue[0].ID,
			To: verifyd.StatusApproved, Cause: verifyd.CauseReview, Actor: "reviewer"}); err != nil {
			t.Fatal(err)
		}
		r.waitStep("done")
		if m := r.finish(); m["age_verified"] != true {
			t.Fatalf("after review: %v", m)
		}
		// Returning in fr within 60 minutes: the password, then straight back.
		r.authorize("fr")
		r.wantStep("account")
		wantStatus(t, r.logIn("rene@example.fr", agePassword), http.StatusSeeOther)
		r.finish()
	})

	t.Run("sandbox", func(t *testing.T) {
		f := newOAuth(t, ts, sbx)
		for email, adult := range map[string]bool{"tester@example.com": true, "tester+minor@example.com": false} {
			b := newFlowBrowser(t, f)
			b.authorize("de")
			wantStatus(t, b.signUp(email), http.StatusSeeOther)
			wantBody(t, b.wantStep("document"), "decided by a tag in the account")
			wantStatus(t, b.upload(good), http.StatusAccepted)
			b.waitStep("done")
			if m := b.finish(); m["age_verified"] != adult {
				t.Fatalf("%s: users/me %v, want age_verified %v", email, m, adult)
			}
		}
	})
}

// TestAgeFlowIDNotLogged: request logs show the flow's route pattern, not
// the authorize request id in its path.
func TestAgeFlowIDNotLogged(t *testing.T) {
	t.Parallel()
	var logs testserver.Buffer
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	b := newFlowBrowser(t, newOAuth(t, ts, prd))
	b.authorize("gb")
	b.get("")
	b.get("/status")
	id := b.page[strings.LastIndex(b.page, "/")+1:]
	logs.WaitFor(t, `"path":"/flow/{id}"`, `"path":"/flow/{id}/status"`)
	// The A1 request's own log line has the query, not the id; the
	// redirect's Location is not logged.
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"route":"/flow/`) && strings.Contains(line, id) {
			t.Fatalf("the flow id was logged: %s", line)
		}
	}
}
