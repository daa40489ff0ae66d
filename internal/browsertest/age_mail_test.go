package browsertest

import (
	"context"
	"crypto/tls"
	"mime"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/smtptest"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mailer"
)

var mailLink = regexp.MustCompile(`https?://\S+/account/email/(confirm|reset|delete)\?\S+`)

// TestAgeMailResetAndDelete: in Chromium, with a real SMTP server on
// loopback, a person who forgot the password sets a new one from the
// e-mailed link and is logged in; later, signed out, they delete the
// account from an e-mailed link, without the password.
func TestAgeMailResetAndDelete(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	cfg, err := mailer.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLS = &tls.Config{RootCAs: srv.Pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	m, err := mailer.NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Mailer: m})
	in := newIntegrator(t, ts, verifyd.EnvSandbox)
	const email, password, newPassword = "forgetful@example.fr", "un mot de passe oublié", "un nouveau mot de passe"

	ctx := browser(t)
	do(t, ctx, "open the site's link", mobile(), acceptLanguage("fr-FR,fr;q=0.9"), chromedp.Navigate(in.authorizeURL("fr")))
	waitJS(t, ctx, "the account forms", `!!document.getElementById('signup')`)
	do(t, ctx, "sign up", chromedp.Click(chromedp.ID("choose-signup")),
		chromedp.SendKeys(chromedp.ID("s-email"), email), chromedp.SendKeys(chromedp.ID("s-password"), password),
		chromedp.SendKeys(chromedp.ID("s-password_again"), password), chromedp.Click(chromedp.ID("signup-submit")))
	agreeToShare(t, ctx, "Test business")
	srv.WaitFor(t, email, 1) // the confirmation
	do(t, ctx, "log out", chromedp.Click(chromedp.ID("logout")))

	// Forgot the password: the link on the login form.
	waitJS(t, ctx, "the login form", `!!document.getElementById('forgot-password')`)
	do(t, ctx, "forgot the password", chromedp.Click(chromedp.ID("forgot-password")))
	waitJS(t, ctx, "the request form", `document.querySelector('main').dataset.phase === 'account_mail_request'`)
	do(t, ctx, "ask for the link", chromedp.SendKeys(chromedp.ID("m-email"), email), chromedp.Click(chromedp.ID("mail-submit")))
	waitJS(t, ctx, "the answer", `document.querySelector('main').dataset.phase === 'account_mail_sent'`)
	msg, body := srv.WaitFor(t, email, 2).Parsed(t)
	if subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); subject != "Choisir un nouveau mot de passe – verifyd" {
		t.Errorf("subject %q", subject)
	}
	link := mailLink.FindString(body)
	if link == "" {
		t.Fatalf("no link in:\n%s", body)
	}
	do(t, ctx, "open the e-mailed link", chromedp.Navigate(link))
	waitJS(t, ctx, "the new-password form", `!!document.getElementById('s-password')`)
	do(t, ctx, "choose the new password", chromedp.SendKeys(chromedp.ID("s-password"), newPassword),
		chromedp.SendKeys(chromedp.ID("s-password_again"), newPassword), chromedp.Click(chromedp.ID("mail-link-submit")))
	waitJS(t, ctx, "done", `document.querySelector('main').dataset.phase === 'account_mail_done'`)
	if text := jsString(t, ctx, `document.getElementById('live').textContent`); !strings.Contains(text, "nouveau mot de passe est enregistré") {
		t.Fatalf("after the reset: %q", text)
	}
	do(t, ctx, "back to the age check", chromedp.Navigate(in.authorizeURL("fr")))
	// France wants authentication at each use: the new password works.
	waitJS(t, ctx, "the confirmation form", `!!document.getElementById('l-password')`)
	do(t, ctx, "the new password", chromedp.SendKeys(chromedp.ID("l-password"), newPassword), chromedp.Click(chromedp.ID("login-submit")))
	waitJS(t, ctx, "signed in", `['methods', 'biometric', 'document'].includes(document.querySelector('main').dataset.phase)`)

	// Deleting the account without the password, signed out.
	do(t, ctx, "forget the session and open the account page", clearCookies(), chromedp.Navigate(in.base+"/account"))
	waitJS(t, ctx, "the deletion link", `!!document.getElementById('delete-by-mail')`)
	do(t, ctx, "delete by e-mail", chromedp.Click(chromedp.ID("delete-by-mail")))
	waitJS(t, ctx, "the request form", `!!document.getElementById('m-email')`)
	do(t, ctx, "ask for the link", chromedp.SendKeys(chromedp.ID("m-email"), email), chromedp.Click(chromedp.ID("mail-submit")))
	// The mail leaves before the answer page arrives: navigating away
	// while the form's navigation is still pending aborts one of them.
	waitJS(t, ctx, "the answer", `document.querySelector('main').dataset.phase === 'account_mail_sent'`)
	_, body = srv.WaitFor(t, email, 3).Parsed(t)
	do(t, ctx, "open the deletion link", chromedp.Navigate(mailLink.FindString(body)))
	waitJS(t, ctx, "the deletion page", `!!document.getElementById('delete-what')`)
	do(t, ctx, "delete", chromedp.Click(chromedp.ID("mail-link-submit")))
	waitJS(t, ctx, "deleted", `document.querySelector('main').dataset.phase === 'account_deleted'`)
	if _, err := ts.Store.AgeAccountByEmail(context.Background(), verifyd.EnvSandbox, email); err == nil {
		t.Fatal("the account survived")
	}
}
