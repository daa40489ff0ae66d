package dashpages_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/internal/smtptest"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mailer"
)

// Invitations by e-mail (docs/dashboard.md): with a mailer, an owner's
// invitation goes to the invited address in the owner's language and the
// page does not show the link; when sending fails, the page shows it.

var invitationLink = regexp.MustCompile(`https?://\S+/dashboard/invitations/[A-Za-z0-9_-]+`)

// smtpSender is a sender to the test's SMTP server, trusting its
// certificate.
func smtpSender(t *testing.T, srv *smtptest.Server) mailer.Sender {
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

// closedSender is a sender to a port nobody listens on.
func closedSender(t *testing.T) mailer.Sender {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	m, err := mailer.NewSMTP(mailer.Config{Host: "127.0.0.1", Port: port, From: "dashboard@verifyd.test"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestInvitationByEmail(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			srv := smtptest.Start(t)
			ts := testserver.Start(t, d, testserver.Options{Dev: true, Mailer: smtpSender(t, srv)})
			owner, _, _ := join(t, ts, verifyd.RoleOwner, "owner@example.com")
			_, page := owner.do("GET", "/dashboard/users?lang=de", nil)
			res, page := owner.do("POST", "/dashboard/users/invite", url.Values{"csrf_token": {field(t, tokenField, page)},
				"email": {"Neu@Example.com"}, "role": {"developer"}})
			if res.StatusCode != http.StatusOK || !strings.Contains(page, `id="invitation-mailed"`) ||
				!strings.Contains(page, "per E-Mail an neu@example.com gesendet") || invitationLink.MatchString(page) {
				t.Fatalf("invitation page: %s\n%s", res.Status, page)
			}
			msg, body := srv.WaitFor(t, "neu@example.com", 1).Parsed(t)
			subject := msg.Header.Get("Subject")
			if dec, err := new(mimeWordDecoder).DecodeHeader(subject); err == nil {
				subject = dec
			}
			if subject != "Einladung zum Dashboard von Test business – verifyd" ||
				!strings.Contains(body, "als Entwickler beizutreten") || !strings.Contains(body, "einmal, bis ") {
				t.Fatalf("e-mail %q:\n%s", subject, body)
			}
			// The e-mailed link is the invitation's: it opens the enrolment.
			link := invitationLink.FindString(body)
			u, err := url.Parse(link)
			if err != nil || link == "" {
				t.Fatalf("no link in the e-mail:\n%s", body)
			}
			res, page = newClient(t, ts).do("GET", u.Path, nil)
			if res.StatusCode != http.StatusOK || !secretField.MatchString(page) {
				t.Fatalf("the e-mailed link: %s\n%s", res.Status, page)
			}
		})
	}
}

// TestInvitationEmailFails: a mail server that cannot be reached leaves
// the invitation made and its link shown, saying the e-mail failed.
func TestInvitationEmailFails(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Mailer: closedSender(t)})
	owner, _, _ := join(t, ts, verifyd.RoleOwner, "owner@example.com")
	_, page := owner.do("GET", "/dashboard/users?lang=en", nil)
	res, page := owner.do("POST", "/dashboard/users/invite", url.Values{"csrf_token": {field(t, tokenField, page)},
		"email": {"late@example.com"}, "role": {"viewer"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(page, `id="invitation-mail-failed"`) ||
		!invitationLink.MatchString(page) || strings.Contains(page, `id="invitation-mailed"`) {
		t.Fatalf("invitation page: %s\n%s", res.Status, page)
	}
}

// TestNoInvitationEmailsFromSandboxOnlyBusinesses: anyone creates a
// sandbox-only business when sign-up is open, so its invitations are not
// e-mailed (else anyone could have the installation mail any address with
// a business name of their choosing): the owner is shown the link.
func TestNoInvitationEmailsFromSandboxOnlyBusinesses(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Mailer: smtpSender(t, srv), DashboardSignUp: true})
	key, err := ts.App.Dashboard.NewTOTPKey("first@example.com")
	if err != nil {
		t.Fatal(err)
	}
	code, err := dashboard.TOTPCode(key.Secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := ts.App.Dashboard.SignUp(context.Background(), netip.MustParseAddr("192.0.2.1"), "Free Prizes Ltd",
		"first@example.com", dashboard.Enrollment{Name: "First", Password: password, TOTPSecret: key.Secret, Code: code})
	if err != nil || !b.SandboxOnly {
		t.Fatalf("SignUp = %+v, %v", b, err)
	}
	owner, _, _ := joinBusiness(t, ts, b.ID, verifyd.RoleOwner, "owner@example.com")
	_, page := owner.do("GET", "/dashboard/users?lang=en", nil)
	res, page := owner.do("POST", "/dashboard/users/invite", url.Values{"csrf_token": {field(t, tokenField, page)},
		"email": {"victim@example.com"}, "role": {"viewer"}})
	if res.StatusCode != http.StatusOK || !invitationLink.MatchString(page) || strings.Contains(page, `id="invitation-mailed"`) ||
		strings.Contains(page, `id="invitation-mail-failed"`) {
		t.Fatalf("invitation page: %s\n%s", res.Status, page)
	}
	if err := ts.App.Dashboard.MailInvitation(context.Background(), verifyd.Invitation{BusinessID: b.ID, Email: "victim@example.com"},
		"https://x.example/", "en"); err == nil {
		t.Error("MailInvitation for a sandbox-only business succeeded")
	}
	// The server's own business (not sandbox-only) still e-mails.
	regular, _, _ := join(t, ts, verifyd.RoleOwner, "regular@example.com")
	_, page = regular.do("GET", "/dashboard/users?lang=en", nil)
	if res, page := regular.do("POST", "/dashboard/users/invite", url.Values{"csrf_token": {field(t, tokenField, page)},
		"email": {"colleague@example.com"}, "role": {"viewer"}}); res.StatusCode != http.StatusOK || !strings.Contains(page, `id="invitation-mailed"`) {
		t.Fatalf("regular business's invitation page: %s\n%s", res.Status, page)
	}
	srv.WaitFor(t, "colleague@example.com", 1)
	for _, m := range srv.Messages() {
		if strings.Contains(strings.Join(m.To, ","), "victim@example.com") {
			t.Errorf("an invitation of a sandbox-only business was e-mailed: %+v", m.To)
		}
	}
}
