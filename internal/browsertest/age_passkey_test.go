package browsertest

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
)

// Passkeys on the age pages in Chromium, with the DevTools WebAuthn
// domain's virtual authenticator (a platform authenticator with resident
// keys and user verification, as a phone's). The server is named
// localhost: browsers have no WebAuthn relying party on an IP address.

// virtualAuthenticator adds a platform authenticator that verifies the
// user, and returns its id.
func virtualAuthenticator(t *testing.T, ctx context.Context) webauthn.AuthenticatorID {
	t.Helper()
	var id webauthn.AuthenticatorID
	do(t, ctx, "add a virtual authenticator", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		res, err := cdp.Call(ctx, tg, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
			Options: &webauthn.VirtualAuthenticatorOptions{Protocol: webauthn.AuthenticatorProtocolCtap2,
				Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
				HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true}})
		id = res.AuthenticatorID
		return err
	}))
	return id
}

// userVerified makes the authenticator's user verification succeed or fail
// (a wrong fingerprint).
func userVerified(id webauthn.AuthenticatorID, ok bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, webauthn.SetUserVerified, webauthn.SetUserVerifiedParams{AuthenticatorID: id, IsUserVerified: ok})
		return err
	})
}

func passkeysOf(t *testing.T, ctx context.Context, id webauthn.AuthenticatorID) int {
	t.Helper()
	var n int
	do(t, ctx, "list the authenticator's passkeys", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: id})
		n = len(res.Credentials)
		return err
	}))
	return n
}

func phase(t *testing.T, ctx context.Context) string {
	return jsString(t, ctx, `document.querySelector('main').dataset.phase`)
}

// TestAgePasskeySandbox: a new person creates an account with a passkey
// only (no password), proves their age with the document (sandbox) and is
// back at the site; a German site later wants authentication at each use:
// the passkey with user verification satisfies it and the stored proof
// sends the person straight back; a passkey whose user verification fails
// is refused.
func TestAgePasskeySandbox(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Localhost: true})
	in := newIntegrator(t, ts, verifyd.EnvSandbox)
	dir := documentFiles(t)
	const email = "passkey.person@example.com"

	ctx := browser(t)
	auth := virtualAuthenticator(t, ctx)
	do(t, ctx, "open the site's link", mobile(), acceptLanguage("en"), chromedp.Navigate(in.authorizeURL("gb")))
	waitJS(t, ctx, "the passkey buttons", `!document.getElementById('passkey-login').hidden && !document.getElementById('signup-passkey').hidden`)
	// Both ways in above the fold of the phone.
	bottom := jsString(t, ctx, `String(Math.max(document.getElementById('passkey-login').getBoundingClientRect().bottom, document.getElementById('choose-signup').getBoundingClientRect().bottom))`)
	if b, err := strconv.ParseFloat(bottom, 64); err != nil || b <= 0 || b > 844 {
		t.Errorf("the first screen's passkey and sign-up buttons end at %s px: not above the fold of a 390×844 phone", bottom)
	}
	screenshot(t, ctx, "age-passkey-first-screen.png")
	do(t, ctx, "create the account with a passkey", chromedp.Click(chromedp.ID("choose-signup")),
		chromedp.SendKeys(chromedp.ID("s-email"), email), chromedp.Click(chromedp.ID("signup-passkey")))
	agreeToShare(t, ctx, "Test business")
	waitJS(t, ctx, "the methods", `document.querySelector('main').dataset.phase === 'methods'`)
	acct, err := ts.Store.AgeAccountByEmail(context.Background(), verifyd.EnvSandbox, email)
	if err != nil || acct.PasswordHash != "" {
		t.Fatalf("account %+v, %v: want a passkey-only account", acct, err)
	}
	if n := passkeysOf(t, ctx, auth); n != 1 {
		t.Fatalf("the authenticator holds %d passkeys, want 1", n)
	}
	do(t, ctx, "choose the document", chromedp.Click(chromedp.ID("method-document")))
	agreeToFace(t, ctx)
	waitJS(t, ctx, "the capture form", `!!document.getElementById('capture') && document.querySelector('main').dataset.phase === 'document'`)
	fillCaptureForm(t, ctx, dir)
	do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))
	first := waitForSite(t, ctx, in)
	if !strings.HasPrefix(first, "age_verified=true id=agv_") {
		t.Fatalf("site shows %q", first)
	}

	// A German site: the session is not enough (authentication at each
	// use); a passkey whose user verification fails is refused...
	do(t, ctx, "open the German site's link", chromedp.Navigate(in.authorizeURL("de")))
	waitJS(t, ctx, "the confirmation", `document.querySelector('main').dataset.phase === 'account' && !document.getElementById('passkey-login').hidden`)
	if got := jsString(t, ctx, `document.getElementById('passkey-login').textContent`); got != "Confirm with a passkey" {
		t.Errorf("relogin button %q", got)
	}
	do(t, ctx, "a wrong fingerprint", userVerified(auth, false), chromedp.Click(chromedp.ID("passkey-login")))
	waitJS(t, ctx, "the refusal", `!document.getElementById('passkey-status').hidden`)
	if phase(t, ctx) != "account" {
		t.Fatal("a passkey without user verification went on")
	}
	// ...with it, the stored document proof counts in Germany: straight back.
	do(t, ctx, "the right fingerprint", userVerified(auth, true), chromedp.Click(chromedp.ID("passkey-login")))
	if got := waitForSite(t, ctx, in); !strings.HasPrefix(got, "age_verified=true") || !strings.HasSuffix(got, "state=st-de") {
		t.Fatalf("German site shows %q", got)
	}
	// A passkey-only account has no password to log in with.
	do(t, ctx, "forget the session", clearCookies(), chromedp.Navigate(in.authorizeURL("gb")))
	waitJS(t, ctx, "the login form", `!!document.getElementById('login')`)
	do(t, ctx, "try a password", chromedp.SendKeys(chromedp.ID("l-email"), email),
		chromedp.SendKeys(chromedp.ID("l-password"), "any password at all"), chromedp.Click(chromedp.ID("login-submit")))
	waitJS(t, ctx, "the login error", `!!document.getElementById('login-error')`)
}

// TestAgePasskeyProduction: in production, a person with a password adds
// a passkey on the account page, then, on another visit without the
// session, logs in with it on a German site.
func TestAgePasskeyProduction(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Localhost: true})
	in := newIntegrator(t, ts, verifyd.EnvProduction)
	const email, password = "margit@example.de", "Donaukanal-Brücke-7"

	ctx := browser(t)
	auth := virtualAuthenticator(t, ctx)
	do(t, ctx, "open the site's link", acceptLanguage("de-DE,de;q=0.9"), chromedp.Navigate(in.authorizeURL("de")))
	waitJS(t, ctx, "the account forms", `!!document.getElementById('signup')`)
	do(t, ctx, "sign up with a password", chromedp.Click(chromedp.ID("choose-signup")),
		chromedp.SendKeys(chromedp.ID("s-email"), email), chromedp.SendKeys(chromedp.ID("s-password"), password),
		chromedp.SendKeys(chromedp.ID("s-password_again"), password), chromedp.Click(chromedp.ID("signup-submit")))
	agreeToShare(t, ctx, "Test business")
	waitJS(t, ctx, "the methods or the capture form", `['methods', 'biometric', 'document'].includes(document.querySelector('main').dataset.phase)`)
	do(t, ctx, "open the account page", chromedp.Click(chromedp.ID("account-link")))
	waitJS(t, ctx, "the add button", `!!document.getElementById('passkey-add') && !document.getElementById('passkey-add').hidden`)
	do(t, ctx, "add a passkey", chromedp.Click(chromedp.ID("passkey-add")))
	waitJS(t, ctx, "the count", `document.getElementById('passkey-count') && /: 1\./.test(document.getElementById('passkey-count').textContent)`)
	if n := passkeysOf(t, ctx, auth); n != 1 {
		t.Fatalf("the authenticator holds %d passkeys", n)
	}

	do(t, ctx, "forget the session and open the German site's link again", clearCookies(), chromedp.Navigate(in.authorizeURL("de")))
	waitJS(t, ctx, "the passkey button", `!!document.getElementById('passkey-login') && !document.getElementById('passkey-login').hidden`)
	do(t, ctx, "continue with the passkey", chromedp.Click(chromedp.ID("passkey-login")))
	waitJS(t, ctx, "signed in", `['methods', 'biometric', 'document'].includes(document.querySelector('main').dataset.phase)`)
	if got := jsString(t, ctx, `document.querySelector('.account-bar p').textContent`); !strings.Contains(got, email) {
		t.Fatalf("signed in as %q", got)
	}
}
