package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/mailer"
	"github.com/verifyd/verifyd/tenant"
)

// defaultDashboardURL is where serve mounts the dashboard with its
// default --listen.
const defaultDashboardURL = "http://127.0.0.1:8080/dashboard"

func (e *env) businessInvite(ctx context.Context, args []string) error {
	fs := e.flags("business invite", "business invite --business ID --email E --role owner|developer|viewer [--dashboard-url URL] [--smtp-url URL --lang en|de|fr] [--json]",
		lines("Invites a person to a business's dashboard and prints the invitation link, valid for 7 days",
			"and once: the person opens it, chooses a name and a password and enrols an authenticator",
			"app (TOTP). With --smtp-url (as serve's) the link is also e-mailed to the person, in --lang;",
			"without it, send the link yourself. Roles: owner (everything,",
			"including users, settings and the audit log), developer (keys, redirects, webhooks,",
			"verifications with images), viewer (read-only, no images, no secrets). The invitation is",
			"recorded in the audit log."))
	business := fs.String("business", "", "business id (required)")
	email := fs.String("email", "", "the person's e-mail address, their sign-in name (required)")
	role := fs.String("role", "", "owner, developer or viewer (required)")
	base := fs.String("dashboard-url", e.envOr("VERIFYD_DASHBOARD_URL", defaultDashboardURL),
		"public URL of the dashboard, for the link (env VERIFYD_DASHBOARD_URL)")
	smtpURL := fs.String("smtp-url", e.getenv("VERIFYD_SMTP_URL"),
		"e-mail the link through this SMTP server, as serve's --smtp-url (env VERIFYD_SMTP_URL)")
	lang := fs.String("lang", "en", "language of the e-mail: en, de or fr")
	asJSON := fs.Bool("json", false, "print JSON")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	r := verifyd.Role(*role)
	if *business == "" || *email == "" || !r.Valid() {
		fmt.Fprintln(e.stderr, "verifyd business invite: --business, --email and --role owner|developer|viewer are required")
		return ErrUsage
	}
	if *lang != "en" && *lang != "de" && *lang != "fr" {
		fmt.Fprintln(e.stderr, "verifyd business invite: --lang must be en, de or fr")
		return ErrUsage
	}
	var mail mailer.Sender
	if *smtpURL != "" {
		mc, err := mailer.ParseURL(*smtpURL)
		if err != nil {
			return err
		}
		if mail, err = mailer.NewSMTP(mc); err != nil {
			return err
		}
	}
	db, sealer, err := e.openStore(ctx, sf, e.quietLogger())
	if err != nil {
		return err
	}
	defer db.Close()
	svc, err := dashboard.New(db, tenant.New(db, sealer, e.rand, e.now), sealer, dashboard.Config{Now: e.now, Rand: e.rand,
		BaseURL: strings.TrimSuffix(*base, "/"), Mailer: mail})
	if err != nil {
		return err
	}
	inv, token, err := svc.Invite(ctx, *business, *email, r)
	if err != nil {
		return describe(err, "business "+*business)
	}
	link := svc.InvitationLink(token)
	if svc.MailOn() {
		// The invitation exists either way: a failed e-mail leaves the
		// printed link to send by hand, and says so.
		if err := svc.MailInvitation(ctx, inv, link, *lang); err != nil {
			fmt.Fprintf(e.stderr, "verifyd business invite: the e-mail to %s failed (%v); send the link below yourself\n", inv.Email, err)
		} else {
			fmt.Fprintf(e.stderr, "verifyd business invite: the link was e-mailed to %s\n", inv.Email)
		}
	}
	if *asJSON {
		return e.printJSON(struct {
			BusinessID string       `json:"business_id"`
			Email      string       `json:"email"`
			Role       verifyd.Role `json:"role"`
			ExpiresAt  time.Time    `json:"expires_at"`
			Link       string       `json:"link"`
		}{inv.BusinessID, inv.Email, inv.Role, inv.ExpiresAt, link})
	}
	fmt.Fprintf(e.stdout, "Invitation of %s as %s, valid until %s:\n%s\n", inv.Email, inv.Role,
		inv.ExpiresAt.Format(time.RFC3339), link)
	return nil
}
