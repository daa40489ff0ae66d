package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/tenant"
)

// defaultDashboardURL is where serve mounts the dashboard with its
// default --listen.
const defaultDashboardURL = "http://127.0.0.1:8080/dashboard"

func (e *env) businessInvite(ctx context.Context, args []string) error {
	fs := e.flags("business invite", "business invite --business ID --email E --role owner|developer|viewer [--dashboard-url URL] [--json]",
		lines("Invites a person to a business's dashboard and prints the invitation link, valid for 7 days",
			"and once: the person opens it, chooses a name and a password and enrols an authenticator",
			"app (TOTP). Send the link yourself; verifyd sends no e-mail for it. Roles: owner (everything,",
			"including users, settings and the audit log), developer (keys, redirects, webhooks,",
			"verifications with images), viewer (read-only, no images, no secrets). The invitation is",
			"recorded in the audit log."))
	business := fs.String("business", "", "business id (required)")
	email := fs.String("email", "", "the person's e-mail address, their sign-in name (required)")
	role := fs.String("role", "", "owner, developer or viewer (required)")
	base := fs.String("dashboard-url", e.envOr("VERIFYD_DASHBOARD_URL", defaultDashboardURL),
		"public URL of the dashboard, for the link (env VERIFYD_DASHBOARD_URL)")
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
	db, sealer, err := e.openStore(ctx, sf, e.quietLogger())
	if err != nil {
		return err
	}
	defer db.Close()
	svc, err := dashboard.New(db, tenant.New(db, sealer, e.rand, e.now), sealer, dashboard.Config{Now: e.now, Rand: e.rand,
		BaseURL: strings.TrimSuffix(*base, "/")})
	if err != nil {
		return err
	}
	inv, token, err := svc.Invite(ctx, *business, *email, r)
	if err != nil {
		return describe(err, "business "+*business)
	}
	link := svc.InvitationLink(token)
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
