package browsertest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/internal/testserver"
)

// dashClock is the test server's clock, moved on by the tests so that a
// new TOTP code exists without waiting 30 seconds.
type dashClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *dashClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *dashClock) next() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += 30 * time.Second
}

const dashPassword = "correct horse battery staple"

// dashUser is a person using the dashboard in the test's browser.
type dashUser struct {
	email, name, secret string
}

// enrol opens an invitation link (or the sign-up page, already filled
// in) and completes it with a name, a password and the current code of
// the TOTP secret the page shows, computed here as an authenticator app
// would.
func enrol(t *testing.T, ctx context.Context, c *dashClock, u *dashUser, page string) {
	t.Helper()
	if page != "" {
		do(t, ctx, "open "+page, chromedp.Navigate(page))
	}
	waitJS(t, ctx, "the enrolment form", `!!document.getElementById('totp-secret')`)
	// The QR code is an image the CSP allows (data:), and it is drawn.
	waitJS(t, ctx, "the QR code", `document.querySelector('img.qr').complete && document.querySelector('img.qr').naturalWidth === 200`)
	u.secret = jsString(t, ctx, `document.getElementById('totp-secret').textContent`)
	code, err := dashboard.TOTPCode(u.secret, c.now())
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "fill in the enrolment",
		chromedp.SendKeys(chromedp.ID("name"), u.name),
		chromedp.SendKeys(chromedp.ID("password"), dashPassword),
		chromedp.SendKeys(chromedp.ID("password_again"), dashPassword),
		chromedp.SendKeys(chromedp.ID("code"), code),
		chromedp.Submit(chromedp.ID("code")))
	waitJS(t, ctx, "the keys page", `location.pathname === '/dashboard/keys'`)
}

// logIn signs in with the next TOTP code and returns that code.
func logIn(t *testing.T, ctx context.Context, ts *testserver.Server, c *dashClock, u dashUser) (code string) {
	t.Helper()
	c.next()
	code, err := dashboard.TOTPCode(u.secret, c.now())
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the login page", clearCookies(), chromedp.Navigate(ts.HTTP.URL+"/dashboard/keys"))
	waitJS(t, ctx, "the login form", `location.pathname === '/dashboard/login' && !!document.getElementById('code')`)
	do(t, ctx, "sign in",
		chromedp.SendKeys(chromedp.ID("email"), u.email),
		chromedp.SendKeys(chromedp.ID("password"), dashPassword),
		chromedp.SendKeys(chromedp.ID("code"), code),
		chromedp.Submit(chromedp.ID("code")))
	waitJS(t, ctx, "the keys page", `location.pathname === '/dashboard/keys'`)
	return code
}

// open navigates to a dashboard page and waits for its heading.
func open(t *testing.T, ctx context.Context, ts *testserver.Server, path string) {
	t.Helper()
	do(t, ctx, "open "+path, chromedp.Navigate(ts.HTTP.URL+path))
	waitJS(t, ctx, path, `!!document.querySelector('h1')`)
}

// text is the text of the first element matching a selector, "" when none.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return jsString(t, ctx, `(document.querySelector(`+quoteJS(sel)+`) || {textContent: ''}).textContent.trim()`)
}

func quoteJS(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// postForm posts a form the page does not offer, with the session's CSRF
// token, as a person who edited the page would: the server must refuse
// it by itself.
func postForm(t *testing.T, ctx context.Context, action string, fields map[string]string) {
	t.Helper()
	js := `(() => { const f = document.createElement('form'); f.method = 'post'; f.action = ` + quoteJS(action) + `;
		const add = (n, v) => { const i = document.createElement('input'); i.type = 'hidden'; i.name = n; i.value = v; f.appendChild(i); };
		add('csrf_token', document.querySelector('input[name=csrf_token]').value);`
	for k, v := range fields {
		js += `add(` + quoteJS(k) + `, ` + quoteJS(v) + `);`
	}
	js += `document.body.appendChild(f); f.submit(); return true; })()`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
		t.Fatalf("post %s: %v", action, err)
	}
}

// TestDashboardRolesInChromium drives the dashboard in a real headless
// Chromium as an owner, a developer and a viewer: an invitation from the
// operator, enrolment of an authenticator app (the code computed here from
// the secret the page shows), keys (a new secret shown once, revocation),
// redirect URLs, settings, users (invitations from the owner) and the
// audit log; each role sees and may do what its permissions say, and the
// server refuses what the page does not offer. Every page passes axe-core
// and causes no CSP violation.
func TestDashboardRolesInChromium(t *testing.T) {
	t.Parallel()
	axe := axeScript(t)
	c := &dashClock{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Now: c.now})
	svc := ts.App.Dashboard
	bg := verifyd.WithActor(context.Background(), verifyd.Actor{Kind: verifyd.ActorOperator, Name: "cli:ops"})
	_, token, err := svc.Invite(bg, ts.Business.ID, "owner@example.com", verifyd.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)

	// Signed out, the dashboard leads to the login form, in the browser's
	// language or the one chosen.
	open(t, ctx, ts, "/dashboard/keys?lang=de")
	if loc := jsString(t, ctx, `location.pathname + location.search`); loc != "/dashboard/login?next=%2Fdashboard%2Fkeys" {
		t.Fatalf("signed out, /dashboard/keys went to %s", loc)
	}
	if h := text(t, ctx, "h1"); h != "Anmelden" {
		t.Errorf("German login page heading %q", h)
	}
	axeCheck(t, ctx, axe, "login page")
	open(t, ctx, ts, "/dashboard/login?lang=en")
	// Sign-up is off unless the operator turned it on.
	open(t, ctx, ts, "/dashboard/signup")
	if h := text(t, ctx, "h1"); h != "Not found" {
		t.Errorf("/dashboard/signup without --dashboard-signup: %q", h)
	}

	// The owner accepts the operator's invitation.
	owner := &dashUser{email: "owner@example.com", name: "Olivia Owner"}
	do(t, ctx, "open the invitation", chromedp.Navigate(ts.HTTP.URL+"/dashboard/invitations/"+token))
	waitJS(t, ctx, "the invitation", `!!document.getElementById('totp-secret')`)
	if p := text(t, ctx, "main p"); !strings.Contains(p, "Test business") || !strings.Contains(p, "owner") {
		t.Errorf("invitation text %q", p)
	}
	axeCheck(t, ctx, axe, "invitation page")
	// A wrong code is refused and the same secret is offered again.
	before := jsString(t, ctx, `document.getElementById('totp-secret').textContent`)
	do(t, ctx, "enrol with a wrong code",
		chromedp.SendKeys(chromedp.ID("name"), owner.name),
		chromedp.SendKeys(chromedp.ID("password"), dashPassword),
		chromedp.SendKeys(chromedp.ID("password_again"), dashPassword),
		chromedp.SendKeys(chromedp.ID("code"), "12345"),
		chromedp.Submit(chromedp.ID("code")))
	waitJS(t, ctx, "the refusal", `!!document.querySelector('[role=alert]')`)
	if e := text(t, ctx, "[role=alert]"); !strings.HasPrefix(e, "Code:") {
		t.Errorf("wrong code: %q", e)
	}
	if after := jsString(t, ctx, `document.getElementById('totp-secret').textContent`); after != before {
		t.Errorf("the secret changed after a refusal: %s, then %s", before, after)
	}
	axeCheck(t, ctx, axe, "invitation page with an error")
	do(t, ctx, "clear the form", chromedp.Clear(chromedp.ID("name")), chromedp.Clear(chromedp.ID("code")))
	enrol(t, ctx, c, owner, "")
	// The link works once.
	open(t, ctx, ts, "/dashboard/invitations/"+token)
	if e := text(t, ctx, ".message"); !strings.Contains(e, "unknown, used or expired") {
		t.Errorf("a used invitation: %q", e)
	}

	// Keys: four, then a new one whose secret is shown once.
	open(t, ctx, ts, "/dashboard/keys")
	if n := jsString(t, ctx, `String(document.querySelectorAll('tbody tr').length)`); n != "4" {
		t.Errorf("%s keys listed, want 4", n)
	}
	if nav := jsString(t, ctx, `[...document.querySelectorAll('.main-nav a')].map(a => a.textContent).join(',')`); nav != "Verifications,Webhooks,API keys,Redirect URLs,Settings,Branding,Users,Audit log,Security" {
		t.Errorf("owner's navigation: %s", nav)
	}
	axeCheck(t, ctx, axe, "keys page")
	do(t, ctx, "create a key", chromedp.SetValue(chromedp.ID("kind"), "age/production"), chromedp.Submit(chromedp.ID("kind")))
	waitJS(t, ctx, "the new key", `!!document.getElementById('new-api-secret')`)
	newKey, newSecret := text(t, ctx, "#new-api-key"), text(t, ctx, "#new-api-secret")
	stored, err := ts.Tenants.Credential(context.Background(), newKey)
	if err != nil || stored.APISecret != newSecret || !strings.HasPrefix(newKey, "vdk_live_age_") {
		t.Fatalf("the page showed %s / %s; stored: %+v, %v", newKey, newSecret, stored, err)
	}
	axeCheck(t, ctx, axe, "keys page with a new secret")
	open(t, ctx, ts, "/dashboard/keys")
	if jsString(t, ctx, `String(document.body.innerHTML.includes(`+quoteJS(newSecret)+`))`) != "false" {
		t.Error("the secret is shown again")
	}
	do(t, ctx, "revoke the new key", chromedp.Click(chromedp.CSS(`button[aria-label="Revoke `+newKey+`"]`)))
	waitJS(t, ctx, "the revocation", `!!document.querySelector('.notice')`)
	if _, err := ts.Tenants.Credential(context.Background(), newKey); err == nil {
		t.Error("the revoked key still authenticates")
	}

	// Redirect URLs, with API C's rules.
	open(t, ctx, ts, "/dashboard/redirects")
	axeCheck(t, ctx, axe, "redirects page")
	do(t, ctx, "add a URL", chromedp.SendKeys(chromedp.ID("url-3"), "https://shop.example.com/done"), chromedp.Submit(chromedp.ID("url-3")))
	waitJS(t, ctx, "the added URL", `!!document.querySelector('.notice')`)
	list := verifyd.RedirectList{BusinessID: ts.Business.ID, Interface: verifyd.InterfaceAge, Environment: verifyd.EnvSandbox}
	if ok, err := ts.Tenants.RedirectAllowed(context.Background(), list, "https://shop.example.com/done"); !ok || err != nil {
		t.Errorf("the added URL is not on the age sandbox list: %v %v", ok, err)
	}
	postForm(t, ctx, "/dashboard/redirects/add", map[string]string{"list": "age/sandbox", "url": "https://user:pw@shop.example.com/x"})
	waitJS(t, ctx, "the refusal", `!!document.querySelector('[role=alert]')`)
	if e := text(t, ctx, "[role=alert]"); !strings.Contains(e, "invalid redirect URL") {
		t.Errorf("a URL with credentials: %q", e)
	}

	// Settings.
	open(t, ctx, ts, "/dashboard/settings")
	axeCheck(t, ctx, axe, "settings page")
	do(t, ctx, "change the settings", chromedp.SetValue(chromedp.ID("retention_days"), "7"), chromedp.Click(chromedp.ID("direct-review")),
		chromedp.Submit(chromedp.ID("retention_days")))
	waitJS(t, ctx, "the saved settings", `!!document.querySelector('.notice')`)
	if b, err := ts.Store.Business(context.Background(), ts.Business.ID); err != nil || b.RetentionDays != 7 || b.DirectLiveness != verifyd.DirectLivenessReview {
		t.Errorf("business after saving: %+v, %v", b, err)
	}

	// Users: the owner invites a developer and a viewer.
	links := map[verifyd.Role]string{}
	for _, role := range []verifyd.Role{verifyd.RoleDeveloper, verifyd.RoleViewer} {
		open(t, ctx, ts, "/dashboard/users")
		do(t, ctx, "invite a "+string(role), chromedp.SendKeys(chromedp.ID("invite-email"), string(role)+"@example.com"),
			chromedp.SetValue(chromedp.ID("invite-role"), string(role)), chromedp.Submit(chromedp.ID("invite-email")))
		waitJS(t, ctx, "the invitation link", `!!document.getElementById('new-invitation-link')`)
		links[role] = text(t, ctx, "#new-invitation-link")
		axeCheck(t, ctx, axe, "users page")
	}

	// An invitation withdrawn: its link no longer works.
	open(t, ctx, ts, "/dashboard/users")
	do(t, ctx, "invite someone", chromedp.SendKeys(chromedp.ID("invite-email"), "gone@example.com"),
		chromedp.Submit(chromedp.ID("invite-email")))
	waitJS(t, ctx, "the invitation link", `!!document.getElementById('new-invitation-link')`)
	gone := text(t, ctx, "#new-invitation-link")
	do(t, ctx, "withdraw it", chromedp.Click(chromedp.CSS(`button[aria-label="Withdraw the invitation of gone@example.com"]`)))
	waitJS(t, ctx, "the withdrawal", `!!document.querySelector('.notice')`)
	if strings.Contains(text(t, ctx, "main"), "gone@example.com") {
		t.Error("the withdrawn invitation is still listed")
	}
	do(t, ctx, "open the withdrawn link", chromedp.Navigate(gone))
	waitJS(t, ctx, "the refusal", `!!document.querySelector('.message')`)
	if e := text(t, ctx, ".message"); !strings.Contains(e, "unknown, used or expired") {
		t.Errorf("a withdrawn invitation: %q", e)
	}

	// The audit log names the owner for the owner's changes.
	open(t, ctx, ts, "/dashboard/audit")
	axeCheck(t, ctx, axe, "audit page")
	audit := text(t, ctx, "table.audit")
	for _, want := range []string{"key.create", "key.revoke", "redirects.add", "business.set", "user.invite", "user.uninvite", "user.join",
		"business_user: Olivia Owner <owner@example.com>", "operator: cli:ops"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit log lacks %q:\n%s", want, audit)
		}
	}

	// The developer: keys and redirects, not users, settings or the log.
	do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".who button")))
	waitJS(t, ctx, "the login page", `location.pathname === '/dashboard/login'`)
	dev := &dashUser{email: "developer@example.com", name: "Dev Eloper"}
	enrol(t, ctx, c, dev, links[verifyd.RoleDeveloper])
	if nav := jsString(t, ctx, `[...document.querySelectorAll('.main-nav a')].map(a => a.textContent).join(',')`); nav != "Verifications,Webhooks,API keys,Redirect URLs,Settings,Branding,Security" {
		t.Errorf("developer's navigation: %s", nav)
	}
	do(t, ctx, "create a key", chromedp.SetValue(chromedp.ID("kind"), "identity/sandbox"), chromedp.Submit(chromedp.ID("kind")))
	waitJS(t, ctx, "the new key", `!!document.getElementById('new-api-secret')`)
	for _, path := range []string{"/dashboard/users", "/dashboard/audit"} {
		open(t, ctx, ts, path)
		if h := text(t, ctx, "h1"); h != "Not allowed" {
			t.Errorf("developer on %s: %q", path, h)
		}
	}
	open(t, ctx, ts, "/dashboard/settings")
	if jsString(t, ctx, `String(document.querySelector('fieldset').disabled && !document.querySelector('main button'))`) != "true" {
		t.Error("the developer's settings form is not read-only")
	}
	postForm(t, ctx, "/dashboard/settings", map[string]string{"retention_days": "1", "direct_liveness": "auto"})
	waitJS(t, ctx, "the refusal", `document.querySelector('h1').textContent === 'Not allowed'`)

	// The viewer reads keys and lists, without any form, and is refused
	// what the page does not offer.
	do(t, ctx, "sign out", chromedp.Navigate(ts.HTTP.URL+"/dashboard/keys"), chromedp.Click(chromedp.CSS(".who button")))
	waitJS(t, ctx, "the login page", `location.pathname === '/dashboard/login'`)
	viewer := &dashUser{email: "viewer@example.com", name: "Vi Ewer"}
	enrol(t, ctx, c, viewer, links[verifyd.RoleViewer])
	if nav := jsString(t, ctx, `[...document.querySelectorAll('.main-nav a')].map(a => a.textContent).join(',')`); nav != "Verifications,Webhooks,API keys,Redirect URLs,Settings,Branding,Security" {
		t.Errorf("viewer's navigation: %s", nav)
	}
	for _, path := range []string{"/dashboard/users", "/dashboard/audit"} {
		open(t, ctx, ts, path)
		if h := text(t, ctx, "h1"); h != "Not allowed" {
			t.Errorf("viewer on %s: %q", path, h)
		}
	}
	open(t, ctx, ts, "/dashboard/keys")
	if n := jsString(t, ctx, `String(document.querySelectorAll('main form').length)`); n != "0" {
		t.Errorf("the viewer's keys page has %s forms", n)
	}
	if n := jsString(t, ctx, `String(document.querySelectorAll('tbody tr').length)`); n != "6" {
		t.Errorf("the viewer sees %s keys, want 6", n)
	}
	axeCheck(t, ctx, axe, "keys page, viewer")
	open(t, ctx, ts, "/dashboard/redirects")
	if n := jsString(t, ctx, `String(document.querySelectorAll('main form').length)`); n != "0" ||
		!strings.Contains(text(t, ctx, "main"), "https://shop.example.com/done") {
		t.Errorf("the viewer's redirects page: %s forms, text %q", n, text(t, ctx, "main"))
	}
	postForm(t, ctx, "/dashboard/keys", map[string]string{"kind": "identity/production"})
	waitJS(t, ctx, "the refusal", `document.querySelector('h1').textContent === 'Not allowed'`)
	keys, err := ts.Tenants.Keys(context.Background(), ts.Business.ID)
	if err != nil || len(keys) != 6 {
		t.Errorf("%d keys after the viewer's attempt, want 6 (%v)", len(keys), err)
	}

	// Signing in again takes the password and a new code; a code used
	// once is refused.
	// The code logIn used, not one computed again: the test clock follows
	// the wall clock, and on a slow machine a second computation can fall
	// in the next 30-second step, a fresh code the server rightly accepts.
	code := logIn(t, ctx, ts, c, *viewer)
	do(t, ctx, "sign in again with the same code", clearCookies(), chromedp.Navigate(ts.HTTP.URL+"/dashboard/login"))
	waitJS(t, ctx, "the login form", `!!document.getElementById('code')`)
	do(t, ctx, "sign in", chromedp.SendKeys(chromedp.ID("email"), viewer.email), chromedp.SendKeys(chromedp.ID("password"), dashPassword),
		chromedp.SendKeys(chromedp.ID("code"), code), chromedp.Submit(chromedp.ID("code")))
	waitJS(t, ctx, "the refusal", `!!document.querySelector('[role=alert]')`)
	if e := text(t, ctx, "[role=alert]"); e != "Wrong e-mail address, password or code." {
		t.Errorf("a reused code: %q", e)
	}
	axeCheck(t, ctx, axe, "login page with an error")

	// The owner makes the developer a viewer, then removes the viewer,
	// whose sessions end.
	logIn(t, ctx, ts, c, *owner)
	open(t, ctx, ts, "/dashboard/users")
	axeCheck(t, ctx, axe, "users page with users")
	do(t, ctx, "make the developer a viewer", chromedp.SetValue(chromedp.CSS(`select[aria-label="Role of Dev Eloper"]`), "viewer"),
		chromedp.Click(chromedp.CSS(`button[aria-label="Change the role of Dev Eloper"]`)))
	waitJS(t, ctx, "the change", `!!document.querySelector('.notice')`)
	if u, err := ts.Store.BusinessUserByEmail(context.Background(), "developer@example.com"); err != nil || u.Role != verifyd.RoleViewer {
		t.Errorf("the developer after the change: %+v, %v", u, err)
	}
	if n := jsString(t, ctx, `String(document.querySelectorAll('select[aria-label="Role of Olivia Owner"]').length)`); n != "0" {
		t.Error("the owner is offered to change their own role")
	}
	open(t, ctx, ts, "/dashboard/users")
	do(t, ctx, "remove the viewer", chromedp.Click(chromedp.CSS(`button[aria-label="Remove Vi Ewer"]`)))
	waitJS(t, ctx, "the removal", `!!document.querySelector('.notice')`)
	if _, err := svc.ActiveMember(context.Background(), jsUserID(t, ts, viewer.email)); err == nil {
		t.Error("the removed viewer is still a member")
	}
}

func jsUserID(t *testing.T, ts *testserver.Server, email string) string {
	t.Helper()
	u, err := ts.Store.BusinessUserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// TestDashboardSignUpInChromium: with --dashboard-signup anyone creates a
// sandbox-only business; it has sandbox keys only and cannot create
// production ones, and the French pages follow the browser.
func TestDashboardSignUpInChromium(t *testing.T) {
	t.Parallel()
	axe := axeScript(t)
	c := &dashClock{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Now: c.now, DashboardSignUp: true})
	ctx := browser(t)
	do(t, ctx, "open the sign-up page", acceptLanguage("fr"), chromedp.Navigate(ts.HTTP.URL+"/dashboard/login"))
	waitJS(t, ctx, "the login page", `!!document.querySelector('a[href="/dashboard/signup"]')`)
	do(t, ctx, "follow the sign-up link", chromedp.Click(chromedp.CSS(`a[href="/dashboard/signup"]`)))
	waitJS(t, ctx, "the sign-up form", `!!document.getElementById('business')`)
	if h := text(t, ctx, "h1"); h != "Créer un espace sandbox" {
		t.Errorf("French sign-up heading %q", h)
	}
	axeCheck(t, ctx, axe, "sign-up page")
	u := &dashUser{email: "lab@example.com", name: "Lab Owner"}
	do(t, ctx, "fill in the business", chromedp.SendKeys(chromedp.ID("business"), "Lab GmbH"), chromedp.SendKeys(chromedp.ID("email"), u.email))
	enrol(t, ctx, c, u, "")
	if b := text(t, ctx, ".banner"); !strings.Contains(b, "sandbox") {
		t.Errorf("no sandbox-only banner: %q", b)
	}
	if keys := jsString(t, ctx, `[...document.querySelectorAll('tbody code')].map(c => c.textContent.slice(0, 13)).join(',')`); keys != "vdk_test_idv_,vdk_test_age_" {
		t.Errorf("sandbox-only keys: %s", keys)
	}
	if opts := jsString(t, ctx, `[...document.querySelectorAll('#kind option')].map(o => o.value).join(',')`); opts != "identity/sandbox,age/sandbox" {
		t.Errorf("key choices of a sandbox-only business: %s", opts)
	}
	axeCheck(t, ctx, axe, "keys page, sandbox-only")
	postForm(t, ctx, "/dashboard/keys", map[string]string{"kind": "identity/production"})
	waitJS(t, ctx, "the refusal", `!!document.querySelector('[role=alert]')`)
	if e := text(t, ctx, "[role=alert]"); !strings.Contains(e, "uniquement sandbox") {
		t.Errorf("a production key for a sandbox-only business: %q", e)
	}
	user, err := ts.Store.BusinessUserByEmail(context.Background(), u.email)
	if err != nil || user.Role != verifyd.RoleOwner {
		t.Fatalf("the signed-up user: %+v, %v", user, err)
	}
	b, err := ts.Store.Business(context.Background(), user.BusinessID)
	if err != nil || !b.SandboxOnly || b.Name != "Lab GmbH" {
		t.Errorf("the signed-up business: %+v, %v", b, err)
	}
}

// TestDashboardPasskeyInChromium: a user who joined with password and
// code adds a passkey on the security page (a virtual authenticator that
// verifies the user), then signs in with it alone; a passkey whose user
// verification fails is refused.
func TestDashboardPasskeyInChromium(t *testing.T) {
	t.Parallel()
	axe := axeScript(t)
	c := &dashClock{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Now: c.now, Localhost: true})
	origin := strings.TrimSuffix(ts.BaseURL(verifyd.InterfaceIdentity, verifyd.EnvProduction), "/identity")
	_, token, err := ts.App.Dashboard.Invite(context.Background(), ts.Business.ID, "dev@example.com", verifyd.RoleDeveloper)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	auth := virtualAuthenticator(t, ctx)
	u := &dashUser{email: "dev@example.com", name: "Dev Eloper"}
	enrol(t, ctx, c, u, origin+"/dashboard/invitations/"+token)

	do(t, ctx, "open the security page", chromedp.Navigate(origin+"/dashboard/security"))
	waitJS(t, ctx, "the passkey button", `!!document.getElementById('passkey-add') && !document.getElementById('passkey-add').hidden`)
	axeCheck(t, ctx, axe, "security page")
	do(t, ctx, "add a passkey", chromedp.Click(chromedp.ID("passkey-add")))
	waitJS(t, ctx, "the passkey listed", `!document.getElementById('no-passkeys') && document.querySelectorAll('main tbody tr').length === 1`)
	if n := passkeysOf(t, ctx, auth); n != 1 {
		t.Fatalf("the authenticator holds %d passkeys, want 1", n)
	}

	do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".who button")))
	waitJS(t, ctx, "the passkey sign-in", `!!document.getElementById('passkey-login') && !document.getElementById('passkey-login').hidden`)
	do(t, ctx, "a wrong fingerprint", userVerified(auth, false), chromedp.Click(chromedp.ID("passkey-login")))
	waitJS(t, ctx, "the refusal", `!document.getElementById('passkey-status').hidden`)
	axeCheck(t, ctx, axe, "login page with passkeys, after a refusal")
	if loc := jsString(t, ctx, `location.pathname`); loc != "/dashboard/login" {
		t.Fatalf("a passkey without user verification went on to %s", loc)
	}
	do(t, ctx, "the right fingerprint", userVerified(auth, true), chromedp.Click(chromedp.ID("passkey-login")))
	waitJS(t, ctx, "the keys page", `location.pathname === '/dashboard' || location.pathname === '/dashboard/keys'`)
	waitJS(t, ctx, "signed in", `!!document.querySelector('.who')`)
	if who := text(t, ctx, ".who p"); !strings.Contains(who, "Dev Eloper") {
		t.Errorf("signed in as %q", who)
	}
	entries, err := ts.Store.AuditEntries(context.Background(), verifyd.AuditFilter{BusinessID: ts.Business.ID})
	if err != nil {
		t.Fatal(err)
	}
	var added bool
	for _, e := range entries {
		added = added || e.Action == verifyd.AuditPasskeyAdd
	}
	if !added {
		t.Error("adding the passkey is not in the audit log")
	}

	// Removed, the passkey no longer signs in.
	do(t, ctx, "open the security page", chromedp.Navigate(origin+"/dashboard/security"))
	waitJS(t, ctx, "the passkey listed", `document.querySelectorAll('main tbody tr').length === 1`)
	do(t, ctx, "remove the passkey", chromedp.Click(chromedp.CSS(`button[aria-label="Remove passkey 1"]`)))
	waitJS(t, ctx, "no passkey", `!!document.getElementById('no-passkeys')`)
	do(t, ctx, "sign out", chromedp.Click(chromedp.CSS(".who button")))
	waitJS(t, ctx, "the passkey sign-in", `!!document.getElementById('passkey-login') && !document.getElementById('passkey-login').hidden`)
	do(t, ctx, "try the removed passkey", chromedp.Click(chromedp.ID("passkey-login")))
	waitJS(t, ctx, "the refusal", `!document.getElementById('passkey-status').hidden`)
	if loc := jsString(t, ctx, `location.pathname`); loc != "/dashboard/login" {
		t.Errorf("a removed passkey signed in (at %s)", loc)
	}
}
