package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/tenant"
)

// openTenants opens the database and returns the tenant service on it.
func (e *env) openTenants(ctx context.Context, sf *storeFlags) (*tenant.Service, func(), error) {
	db, sealer, err := e.openStore(ctx, sf, e.quietLogger())
	if err != nil {
		return nil, nil, err
	}
	return tenant.New(db, sealer, e.rand, e.now), func() { db.Close() }, nil
}

// credentialOut is one credential in command output.
type credentialOut struct {
	Interface   verifyd.Interface   `json:"interface"`
	Environment verifyd.Environment `json:"environment"`
	APIKey      string              `json:"api_key"`
	APISecret   string              `json:"api_secret,omitempty"`
	Status      string              `json:"status,omitempty"`
	CreatedAt   *time.Time          `json:"created_at,omitempty"`
	RevokedAt   *time.Time          `json:"revoked_at,omitempty"`
}

func (e *env) businessCreate(ctx context.Context, args []string) error {
	fs := e.flags("business create", "business create --name NAME [--database URL]",
		lines("Creates a business with one API key and secret for each interface (identity, age)",
			"and environment (production, sandbox), and prints it as one JSON object:",
			`{"id", "name", "credentials": [{"interface", "environment", "api_key", "api_secret"}, …]}.`,
			"The secrets are shown only here and by key create; store them safely."))
	name := fs.String("name", "", "the business's name (required)")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *name == "" {
		fmt.Fprintln(e.stderr, "verifyd business create: --name is required")
		return ErrUsage
	}
	svc, done, err := e.openTenants(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	b, creds, err := svc.CreateBusiness(ctx, *name)
	if err != nil {
		return err
	}
	out := struct {
		ID          string          `json:"id"`
		Name        string          `json:"name"`
		Credentials []credentialOut `json:"credentials"`
	}{ID: b.ID, Name: b.Name}
	for _, c := range creds {
		out.Credentials = append(out.Credentials, credentialOut{
			Interface: c.Interface, Environment: c.Environment, APIKey: c.APIKey, APISecret: c.APISecret,
		})
	}
	return e.printJSON(out)
}

func (e *env) businessList(ctx context.Context, args []string) error {
	fs := e.flags("business list", "business list [--json] [--database URL]", "Lists all businesses, oldest first.")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	svc, done, err := e.openTenants(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	bs, err := svc.Businesses(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if bs == nil {
			bs = []verifyd.Business{}
		}
		return e.printJSON(bs)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCREATED")
	for _, b := range bs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", b.ID, b.Name, b.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

func (e *env) businessSet(ctx context.Context, args []string) error {
	fs := e.flags("business set", "business set --business ID [--direct-liveness auto|review] [--retention-days N]\n"+
		"      [--display-name NAME] [--accent-colour #rrggbb] [--support-email ADDR] [--privacy-url URL]\n"+
		"      [--logo FILE | --remove-logo] [--database URL]",
		lines("Changes a business's settings (at least one) and prints the business as JSON.",
			"--direct-liveness: what happens to production direct submissions (SPEC B2), which carry",
			"one selfie and no live capture: auto decides them with the passive liveness and replay",
			"checks (the default); review sends those the checks would approve to a person.",
			"--retention-days: how many days after the decision the images and identifying evidence",
			"of the business's identity verifications are kept (default 30, 0 = deleted at once,",
			"at most 3650); unfinished verifications lose them when they expire. Verifications",
			"decided earlier follow the new value.",
			"The branding flags change what the hosted pages show customers; those not given keep",
			"their value and an empty value clears one: the name (else the business's name), an accent",
			"colour (#rrggbb, dark enough for white text: contrast at least 4.5:1), a support address,",
			"a privacy policy (https), a logo (PNG or JPEG, at most 256 KiB and 1024x1024 pixels; it",
			"is re-encoded, never served as uploaded). The JSON then has a \"branding\" object too.",
			"Every change is recorded in the audit log."))
	business := fs.String("business", "", "business id (required)")
	direct := fs.String("direct-liveness", "", "auto or review")
	retention := fs.Int("retention-days", -1, "days to keep images and evidence after the decision (0 to 3650)")
	displayName := fs.String("display-name", "", "the name shown to customers on the hosted pages")
	accent := fs.String("accent-colour", "", "the hosted pages' accent colour, #rrggbb")
	support := fs.String("support-email", "", "where customers ask for help")
	privacy := fs.String("privacy-url", "", "the business's privacy policy (https)")
	logoFile := fs.String("logo", "", "a PNG or JPEG file to show as the business's logo")
	removeLogo := fs.Bool("remove-logo", false, "delete the business's logo")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	p := verifyd.DirectLiveness(*direct)
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	setRetention := given["retention-days"]
	setBranding := given["display-name"] || given["accent-colour"] || given["support-email"] ||
		given["privacy-url"] || given["logo"] || given["remove-logo"]
	switch {
	case *business == "" || (*direct == "" && !setRetention && !setBranding):
		fmt.Fprintln(e.stderr, "verifyd business set: --business and --direct-liveness auto|review, --retention-days N or a branding flag are required")
		return ErrUsage
	case *direct != "" && !p.Valid():
		fmt.Fprintln(e.stderr, "verifyd business set: --direct-liveness must be auto or review")
		return ErrUsage
	case setRetention && !verifyd.ValidRetentionDays(*retention):
		fmt.Fprintf(e.stderr, "verifyd business set: --retention-days must be 0 to %d\n", verifyd.MaxRetentionDays)
		return ErrUsage
	case *logoFile != "" && *removeLogo:
		fmt.Fprintln(e.stderr, "verifyd business set: --logo and --remove-logo exclude each other")
		return ErrUsage
	}
	var logo []byte
	if *logoFile != "" {
		var err error
		// Read at most one byte past the limit: CheckLogo refuses more.
		if logo, err = readFileLimit(*logoFile, branding.MaxLogoBytes+1); err != nil {
			return err
		}
	}
	db, sealer, err := e.openStore(ctx, sf, e.quietLogger())
	if err != nil {
		return err
	}
	defer db.Close()
	svc := tenant.New(db, sealer, e.rand, e.now)
	b, err := svc.Business(ctx, *business)
	if err != nil {
		return describe(err, "business "+*business)
	}
	if *direct != "" {
		if b, err = svc.SetDirectLiveness(ctx, *business, p); err != nil {
			return describe(err, "business "+*business)
		}
	}
	if setRetention {
		// The new retention reschedules purge jobs, which the running
		// server works.
		if err := app.Enqueuer(ctx, db); err != nil {
			return err
		}
		if b, err = svc.SetRetentionDays(ctx, *business, *retention); err != nil {
			return describe(err, "business "+*business)
		}
	}
	if !setBranding {
		return e.printJSON(b)
	}
	brand := branding.New(db, e.now, branding.Processor{})
	cur, err := brand.Get(ctx, *business)
	if err != nil {
		return describe(err, "business "+*business)
	}
	in := branding.Input{DisplayName: cur.DisplayName, AccentColour: cur.AccentColour, SupportEmail: cur.SupportEmail,
		PrivacyURL: cur.PrivacyURL, Logo: logo, RemoveLogo: *removeLogo}
	for name, v := range map[string]struct {
		dst *string
		val string
	}{"display-name": {&in.DisplayName, *displayName}, "accent-colour": {&in.AccentColour, *accent},
		"support-email": {&in.SupportEmail, *support}, "privacy-url": {&in.PrivacyURL, *privacy}} {
		if given[name] {
			*v.dst = v.val
		}
	}
	stored, err := brand.Set(ctx, *business, in)
	if err != nil {
		return describe(err, "business "+*business)
	}
	return e.printJSON(struct {
		verifyd.Business
		Branding verifyd.Branding `json:"branding"`
	}{b, stored})
}

// readFileLimit reads at most limit bytes of a file.
func readFileLimit(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// operator is the actor of the command line in the audit log: the
// operating-system user running it.
func (e *env) operator() verifyd.Actor {
	name := e.getenv("USER")
	if name == "" {
		name = e.getenv("USERNAME")
	}
	if name == "" {
		name = "unknown"
	}
	return verifyd.Actor{Kind: verifyd.ActorOperator, Name: "cli:" + name}
}

func (e *env) auditList(ctx context.Context, args []string) error {
	fs := e.flags("audit list", "audit list [--business ID] [--since TIME|DURATION] [--limit N] [--json] [--database URL]",
		lines("Lists the audit log, oldest first: who (an operator on the command line or in the",
			"console, an API key) changed keys, redirect lists, settings, decided a verification,",
			"resent a webhook or redacted a verification, and when.",
			"--since takes an RFC 3339 time (2026-11-24T08:00:00Z) or a duration back from now (24h)."))
	business := fs.String("business", "", "only this business's entries")
	since := fs.String("since", "", "only entries at or after this time (RFC 3339) or this long ago (Go duration, e.g. 72h)")
	limit := fs.Int("limit", 1000, "at most this many entries, the newest (0: all)")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	f := verifyd.AuditFilter{BusinessID: *business, Limit: *limit}
	if *since != "" {
		if t, err := time.Parse(time.RFC3339, *since); err == nil {
			f.Since = t
		} else if d, err := time.ParseDuration(*since); err == nil && d > 0 {
			f.Since = e.now().Add(-d)
		} else {
			fmt.Fprintf(e.stderr, "verifyd audit list: --since %q is neither an RFC 3339 time nor a positive duration\n", *since)
			return ErrUsage
		}
	}
	if *limit < 0 {
		fmt.Fprintln(e.stderr, "verifyd audit list: --limit must not be negative")
		return ErrUsage
	}
	db, _, err := e.openStore(ctx, sf, e.quietLogger())
	if err != nil {
		return err
	}
	defer db.Close()
	entries, err := db.AuditEntries(ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return e.printJSON(entries)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tBUSINESS\tACTOR\tACTION\tSUBJECT\tDETAIL")
	for _, en := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s:%s\t%s\t%s\t%s\n", en.At.Format(time.RFC3339), en.BusinessID, en.Actor.Kind,
			en.Actor.Name, en.Action, en.Subject, en.Detail)
	}
	return tw.Flush()
}

func (e *env) keyCreate(ctx context.Context, args []string) error {
	fs := e.flags("key create", "key create --business ID --interface identity|age --environment production|sandbox [--json]",
		lines("Creates an additional API key and secret for a business, for rotation: existing keys",
			"keep working until revoked. The secret is shown only now."))
	business := fs.String("business", "", "business id (required)")
	iface := fs.String("interface", "", "identity or age (required)")
	environment := fs.String("environment", "", "production or sandbox (required)")
	asJSON := fs.Bool("json", false, "print JSON")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	i, en := verifyd.Interface(*iface), verifyd.Environment(*environment)
	if *business == "" || !i.Valid() || !en.Valid() {
		fmt.Fprintln(e.stderr, "verifyd key create: --business, --interface identity|age and --environment production|sandbox are required")
		return ErrUsage
	}
	svc, done, err := e.openTenants(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	c, err := svc.CreateKey(ctx, *business, i, en)
	if err != nil {
		return describe(err, "business "+*business)
	}
	return e.printCredential(*asJSON, c, true)
}

func (e *env) keyList(ctx context.Context, args []string) error {
	fs := e.flags("key list", "key list --business ID [--json]", "Lists a business's API keys (never their secrets), active and revoked.")
	business := fs.String("business", "", "business id (required)")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *business == "" {
		fmt.Fprintln(e.stderr, "verifyd key list: --business is required")
		return ErrUsage
	}
	svc, done, err := e.openTenants(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	cs, err := svc.Keys(ctx, *business)
	if err != nil {
		return describe(err, "business "+*business)
	}
	return e.printCredentials(*asJSON, cs, false)
}

func (e *env) keyRevoke(ctx context.Context, args []string) error {
	fs := e.flags("key revoke", "key revoke --key KEY [--json]", "Revokes an API key: requests signed with it are refused from now on.")
	key := fs.String("key", "", "the API key to revoke (required)")
	asJSON := fs.Bool("json", false, "print JSON")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *key == "" {
		fmt.Fprintln(e.stderr, "verifyd key revoke: --key is required")
		return ErrUsage
	}
	svc, done, err := e.openTenants(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	c, err := svc.RevokeKey(ctx, *key)
	if err != nil {
		return describe(err, "key "+*key)
	}
	return e.printCredential(*asJSON, c, false)
}

func credentialOf(c verifyd.Credential, withSecret bool) credentialOut {
	created := c.CreatedAt
	out := credentialOut{Interface: c.Interface, Environment: c.Environment, APIKey: c.APIKey,
		Status: "active", CreatedAt: &created, RevokedAt: c.RevokedAt}
	if withSecret {
		out.APISecret = c.APISecret
	}
	if !c.Active() {
		out.Status = "revoked"
	}
	return out
}

// printCredential prints one credential as a JSON object or a table.
func (e *env) printCredential(asJSON bool, c verifyd.Credential, withSecret bool) error {
	if asJSON {
		return e.printJSON(credentialOf(c, withSecret))
	}
	return e.printCredentials(false, []verifyd.Credential{c}, withSecret)
}

// printCredentials prints credentials as a JSON array or a table.
func (e *env) printCredentials(asJSON bool, cs []verifyd.Credential, withSecret bool) error {
	out := make([]credentialOut, len(cs))
	for n, c := range cs {
		out[n] = credentialOf(c, withSecret)
	}
	if asJSON {
		return e.printJSON(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	header := "INTERFACE\tENVIRONMENT\tAPI KEY\tSTATUS\tCREATED"
	if withSecret {
		header += "\tAPI SECRET"
	}
	fmt.Fprintln(tw, header)
	for _, c := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s", c.Interface, c.Environment, c.APIKey, c.Status, c.CreatedAt.Format(time.RFC3339))
		if withSecret {
			fmt.Fprintf(tw, "\t%s", c.APISecret)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// describe turns a not-found error into a message naming what was missing.
func describe(err error, what string) error {
	if verifyd.ErrorCodeOf(err) == verifyd.ENotFound {
		return fmt.Errorf("%s not found", what)
	}
	// A validation error names each bad field, as the API does.
	var e *verifyd.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		problems := make([]string, len(e.Fields))
		for n, f := range e.Fields {
			problems[n] = f.Field + " " + f.Problem
		}
		return fmt.Errorf("%s: %s", what, strings.Join(problems, "; "))
	}
	return err
}
