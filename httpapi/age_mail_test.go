package httpapi_test

import (
	"context"
	"crypto/tls"
	"html"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/smtptest"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mailer"
)

// E-mail on the age pages through a real SMTP server on loopback
// (internal/smtptest): what arrives in the mailbox is what the person
// uses.

// newMailer is a sender to the test's SMTP server, trusting its certificate.
func newMailer(t *testing.T, srv *smtptest.Server) mailer.Sender {
	t.Helper()
	cfg, err := mailer.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLS = &tls.Config{RootCAs: srv.Pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	m, err := mailer.NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var (
	mailLink = regexp.MustCompile(`https?://\S+/account/email/(confirm|reset|delete)\?\S+`)
	mailCode = regexp.MustCompile(`\b(\d{8})\b`)
)

// mailTo waits for the n-th message to an address and returns its decoded
// subject and body.
func mailTo(t *testing.T, srv *smtptest.Server, to string, n int) (string, string) {
	t.Helper()
	msg, body := srv.WaitFor(t, to, n).Parsed(t)
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	return subject, body
}

// linkIn returns the e-mailed link of a body.
func linkIn(t *testing.T, body string) string {
	t.Helper()
	m := mailLink.FindString(body)
	if m == "" {
		t.Fatalf("no link in the e-mail:\n%s", body)
	}
	return m
}

// open GETs an absolute URL in the browser.
func (b *flowBrowser) open(u string) response {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.send(req)
}

// submit posts the form whose id is given on a page, with its hidden
// fields and extra values.
func (b *flowBrowser) submit(page response, id string, values url.Values) response {
	b.t.Helper()
	form := regexp.MustCompile(`(?s)<form method="post" action="([^"]+)" id="` + id + `"[^>]*>(.*?)</form>`).FindSubmatch(page.raw)
	if form == nil {
		b.t.Fatalf("no form %s on the page:\n%s", id, page.raw)
	}
	all := url.Values{}
	for _, h := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllSubmatch(form[2], -1) {
		all.Set(string(h[1]), html.UnescapeString(string(h[2])))
	}
	for k, v := range values {
		all[k] = v
	}
	u, _ := url.Parse(b.f.base)
	u.Path, u.RawQuery = "", ""
	req, _ := http.NewRequest(http.MethodPost, u.String()+html.UnescapeString(string(form[1])), strings.NewReader(all.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.send(req)
}

func TestAgeMail(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			srv := smtptest.Start(t)
			testAgeMail(t, srv, testserver.Start(t, d, testserver.Options{Dev: true, Mailer: newMailer(t, srv)}))
		})
	}
}

func testAgeMail(t *testing.T, srv *smtptest.Server, ts *testserver.Server) {
	ctx := context.Background()
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	const email = "mail.person@example.com"
	b.authorize("gb")
	wantBody(t, b.get(""), `id="forgot-password"`, `id="code-link"`)

	// Sign-up sends the confirmation link, in the page's language.
	wantStatus(t, b.signUp(email), http.StatusSeeOther)
	subject, body := mailTo(t, srv, email, 1)
	if subject != "Confirm your e-mail address – verifyd" || !strings.Contains(body, email) {
		t.Fatalf("confirmation e-mail %q:\n%s", subject, body)
	}
	link := linkIn(t, body)
	page := b.open(link)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, "Confirm that "+email+" is your address.")
	if page.header.Get("Referrer-Policy") != "no-referrer" {
		t.Error("an e-mailed link's page may leak it by referrer")
	}
	if a, _ := ts.Store.AgeAccountByEmail(ctx, sbx, email); a.EmailConfirmedAt != nil {
		t.Fatal("opening the link (GET) confirmed the address: mail scanners open links")
	}
	res := b.submit(page, "mail-link", nil)
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "your e-mail address is confirmed")
	if a, _ := ts.Store.AgeAccountByEmail(ctx, sbx, email); a.EmailConfirmedAt == nil {
		t.Fatal("the address is not confirmed")
	}
	wantStatus(t, b.submit(page, "mail-link", nil), http.StatusNotFound) // used once

	// Password reset, signed out, in German; an unknown address gets the
	// same answer and no e-mail.
	b.get("")
	wantStatus(t, b.post("/logout", url.Values{}), http.StatusSeeOther)
	req := b.open(f.base + "/account/email-request?purpose=reset&lang=de")
	wantBody(t, req, "Neues Passwort wählen")
	unknown := b.submit(req, "mail-request", url.Values{"email": {"nobody@example.com"}})
	known := b.submit(req, "mail-request", url.Values{"email": {strings.ToUpper(email)}})
	wantStatus(t, known, http.StatusOK)
	if strings.ReplaceAll(string(unknown.raw), "nobody@example.com", email) != strings.ReplaceAll(string(known.raw), strings.ToUpper(email), email) &&
		!strings.Contains(string(unknown.raw), "Wenn ein Konto nobody@example.com verwendet") {
		t.Errorf("the answer tells an unknown address apart:\n%s", unknown.raw)
	}
	subject, body = mailTo(t, srv, email, 2)
	if subject != "Neues Passwort wählen – verifyd" {
		t.Fatalf("reset e-mail subject %q", subject)
	}
	resetLink := linkIn(t, body)
	page = b.open(resetLink)
	wantStatus(t, b.submit(page, "mail-link", url.Values{"password": {"short"}, "password_again": {"short"}}), http.StatusUnprocessableEntity)
	const newPassword = "a brand new passphrase"
	res = b.submit(page, "mail-link", url.Values{"password": {newPassword}, "password_again": {newPassword}})
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "Ihr neues Passwort ist gespeichert")
	res = b.open(resetLink) // used once
	wantStatus(t, res, http.StatusNotFound)
	wantBody(t, res, `id="mail-again"`)
	for _, m := range srv.Messages() {
		for _, to := range m.To {
			if strings.Contains(to, "nobody") {
				t.Fatal("an e-mail went to an address without an account")
			}
		}
	}
	other := b.fresh()
	wantStatus(t, other.logIn(email, agePassword), http.StatusUnauthorized)
	wantStatus(t, other.logIn(email, newPassword), http.StatusSeeOther)

	// A one-time code, from a flow, back to it.
	c := b.fresh()
	c.authorize("gb")
	flowPage := c.get("")
	codeLink := regexp.MustCompile(`href="([^"]+)" id="code-link"`).FindSubmatch(flowPage.raw)
	u, _ := url.Parse(f.base)
	u.Path, u.RawQuery = "", ""
	req = c.open(u.String() + html.UnescapeString(string(codeLink[1])))
	res = c.submit(req, "mail-request", url.Values{"email": {email}})
	wantBody(t, res, `id="c-code"`, "we have sent it a code")
	_, body = mailTo(t, srv, email, 3)
	code := mailCode.FindString(body)
	if code == "" {
		t.Fatalf("no code in:\n%s", body)
	}
	wrong := "00000000"
	if code == wrong {
		wrong = "11111111"
	}
	wantStatus(t, c.submit(res, "code-login", url.Values{"email": {email}, "code": {wrong}}), http.StatusUnauthorized)
	back := c.submit(res, "code-login", url.Values{"email": {email}, "code": {code[:4] + " " + code[4:]}})
	wantStatus(t, back, http.StatusSeeOther)
	if loc := back.header.Get("Location"); !strings.Contains(loc, "/flow/") {
		t.Fatalf("after the code: %q, want the flow page", loc)
	}
	c.wantStep("methods")
	wantStatus(t, c.fresh().submit(res, "code-login", url.Values{"email": {email}, "code": {code}}), http.StatusForbidden) // no form cookie
	again := c.open(u.String() + html.UnescapeString(string(codeLink[1])))
	tok := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindSubmatch(again.raw)
	wantStatus(t, c.submit(res, "code-login", url.Values{"email": {email}, "code": {code}, "csrf_token": {string(tok[1])}}),
		http.StatusUnauthorized) // used once

	// Deletion by e-mail link, signed out: no password needed.
	d := b.fresh()
	acctPage := d.open(f.base + "/account")
	wantBody(t, acctPage, `id="delete-by-mail"`)
	del := regexp.MustCompile(`href="([^"]+)" id="delete-by-mail"`).FindSubmatch(acctPage.raw)
	req = d.open(u.String() + html.UnescapeString(string(del[1])))
	wantStatus(t, d.submit(req, "mail-request", url.Values{"email": {email}}), http.StatusOK)
	subject, body = mailTo(t, srv, email, 4)
	if subject != "Delete your verifyd account" {
		t.Fatalf("deletion e-mail %q", subject)
	}
	page = d.open(linkIn(t, body))
	wantBody(t, page, "Deleting your account erases at once")
	if _, err := ts.Store.AgeAccountByEmail(ctx, sbx, email); err != nil {
		t.Fatal("opening the deletion link deleted the account")
	}
	res = d.submit(page, "mail-link", nil)
	wantStatus(t, res, http.StatusSeeOther)
	if _, err := ts.Store.AgeAccountByEmail(ctx, sbx, email); err == nil {
		t.Fatal("the account survived its deletion by e-mail link")
	}
	// Signed-in sessions of the account are gone too.
	b.authorize("gb")
	b.wantStep("account")
}

// TestAgeMailOff: without --smtp-url the e-mail pages do not exist and no
// page links to them.
func TestAgeMailOff(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	b.authorize("gb")
	wantNotBody(t, b.get(""), `id="forgot-password"`, `id="code-link"`, "/account/email-request")
	wantNotBody(t, b.open(f.base+"/account"), `id="delete-by-mail"`)
	wantStatus(t, b.open(f.base+"/account/email-request?purpose=reset"), http.StatusNotFound)
}
