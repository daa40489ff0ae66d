package cli

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/sqlstore"
)

// openOperatorStore opens the database for the operator commands that read
// or change verifications and webhooks next to a running server.
func (e *env) openOperatorStore(ctx context.Context, sf *storeFlags) (*sqlstore.DB, error) {
	db, _, err := e.openStore(ctx, sf, e.quietLogger())
	return db, err
}

// verificationOut is a verification as "verification show" prints it.
type verificationOut struct {
	ID          string              `json:"id"`
	BusinessID  string              `json:"business_id"`
	Environment verifyd.Environment `json:"environment"`
	APIKey      string              `json:"api_key"`
	Customer    verifyd.Customer    `json:"customer"`
	Flow        verifyd.Flow        `json:"flow"`
	Status      verifyd.Status      `json:"status"`
	Reason      verifyd.Reason      `json:"reason"`
	Webhook     string              `json:"webhook"`
	RedirectURI string              `json:"redirect_uri"`
	CreatedAt   time.Time           `json:"created_at"`
	UpdatedAt   time.Time           `json:"updated_at"`
	ExpiresAt   time.Time           `json:"expires_at"`
	// ClockOffsetSeconds is how far the sandbox clock was advanced.
	ClockOffsetSeconds int64 `json:"clock_offset_seconds"`
	// PurgedAt and RedactedAt say when the images and evidence were
	// deleted (retention or redaction) and when the verification was
	// redacted; absent while they are not.
	PurgedAt   *time.Time `json:"purged_at,omitempty"`
	RedactedAt *time.Time `json:"redacted_at,omitempty"`
	// ConsentedAt is when the customer agreed on the hosted page to the
	// processing of their face; absent before (and for B2).
	ConsentedAt *time.Time `json:"consented_at,omitempty"`
}

type webhookOut struct {
	verifyd.WebhookEvent
	Payload  string                   `json:"payload"`
	Attempts []verifyd.WebhookAttempt `json:"attempt_log"`
}

func (e *env) verificationShow(ctx context.Context, args []string) error {
	fs := e.flags("verification show", "verification show ID [--json]",
		lines("Shows a verification of any business: its fields, its immutable status history",
			"(time, from, to, reason, cause) and its webhook events with every delivery attempt."))
	asJSON := fs.Bool("json", false, "print one JSON object")
	id, db, err := e.openWithID(ctx, fs, args)
	if db == nil {
		return err
	}
	defer db.Close()
	v, err := db.VerificationByID(ctx, id)
	if err != nil {
		return describe(err, "verification "+id)
	}
	history, err := db.StatusEvents(ctx, id)
	if err != nil {
		return err
	}
	events, err := db.WebhookEvents(ctx, verifyd.WebhookFilter{VerificationID: id, Limit: 1000})
	if err != nil {
		return err
	}
	hooks := make([]webhookOut, len(events))
	for n, ev := range events {
		attempts, err := db.WebhookAttempts(ctx, ev.ID)
		if err != nil {
			return err
		}
		hooks[n] = webhookOut{WebhookEvent: ev, Payload: string(ev.Payload), Attempts: attempts}
	}
	out := struct {
		Verification verificationOut       `json:"verification"`
		History      []verifyd.StatusEvent `json:"history"`
		Webhooks     []webhookOut          `json:"webhooks"`
	}{verificationOut{v.ID, v.BusinessID, v.Environment, v.APIKey, v.Customer, v.Flow, v.Status, v.Reason,
		v.Webhook, v.RedirectURI, v.CreatedAt, v.UpdatedAt, v.ExpiresAt, int64(v.ClockOffset / time.Second),
		v.PurgedAt, v.RedactedAt, v.ConsentedAt},
		history, hooks}
	if *asJSON {
		return e.printJSON(out)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "verification\t%s\nbusiness\t%s (%s)\ncustomer\t%s %s\nstatus\t%s %s\ncreated\t%s\nexpires\t%s\n",
		v.ID, v.BusinessID, v.Environment, v.Customer.ID, v.Customer.Email, v.Status, v.Reason,
		v.CreatedAt.Format(time.RFC3339), v.ExpiresAt.Format(time.RFC3339))
	if v.ConsentedAt != nil {
		fmt.Fprintf(w, "consented\t%s (face processing, on the hosted page)\n", v.ConsentedAt.Format(time.RFC3339))
	}
	if v.PurgedAt != nil {
		fmt.Fprintf(w, "purged\t%s (images and evidence deleted)\n", v.PurgedAt.Format(time.RFC3339))
	}
	if v.RedactedAt != nil {
		fmt.Fprintf(w, "redacted\t%s (e-mail and phone deleted too)\n", v.RedactedAt.Format(time.RFC3339))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "SEQ\tAT\tFROM\tTO\tREASON\tCAUSE")
	for _, h := range history {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", h.Seq, h.At.Format(time.RFC3339Nano), or(string(h.From), "-"), h.To, or(string(h.Reason), "-"), h.Cause)
	}
	fmt.Fprintln(w, "\nWEBHOOK EVENT\tSTATE\tATTEMPTS\tPAYLOAD")
	for _, h := range hooks {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\n", h.ID, h.State, h.WebhookEvent.Attempts, h.Payload)
	}
	return w.Flush()
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (e *env) webhooksList(ctx context.Context, args []string) error {
	fs := e.flags("webhooks list", "webhooks list [--state pending|delivered|failed] [--verification ID] [--limit N] [--json]",
		"Lists webhook events, newest first, with their delivery state and attempt count.")
	state := fs.String("state", "", "only events in this state: pending, delivered or failed")
	verification := fs.String("verification", "", "only events of this verification")
	limit := fs.Int("limit", 100, "at most this many events")
	asJSON := fs.Bool("json", false, "print a JSON array")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	switch verifyd.WebhookState(*state) {
	case "", verifyd.WebhookPending, verifyd.WebhookDelivered, verifyd.WebhookFailed:
	default:
		fmt.Fprintln(e.stderr, "verifyd webhooks list: --state must be pending, delivered or failed")
		return ErrUsage
	}
	db, err := e.openOperatorStore(ctx, sf)
	if err != nil {
		return err
	}
	defer db.Close()
	events, err := db.WebhookEvents(ctx, verifyd.WebhookFilter{State: verifyd.WebhookState(*state), VerificationID: *verification, Limit: *limit})
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]webhookOut, len(events))
		for n, ev := range events {
			out[n] = webhookOut{WebhookEvent: ev, Payload: string(ev.Payload)}
		}
		return e.printJSON(out)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "EVENT\tVERIFICATION\tSTATE\tATTEMPTS\tCREATED\tLAST ERROR")
	for _, ev := range events {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", ev.ID, ev.VerificationID, ev.State, ev.Attempts,
			ev.CreatedAt.Format(time.RFC3339), ev.LastError)
	}
	return w.Flush()
}

func (e *env) webhooksResend(ctx context.Context, args []string) error {
	fs := e.flags("webhooks resend", "webhooks resend EVENT_ID [--json]",
		lines("Sends a webhook event again (delivered or failed): it becomes pending and a running",
			"server delivers it with the same body and Webhook-Id, retrying as usual."))
	asJSON := fs.Bool("json", false, "print the event as JSON")
	id, db, err := e.openWithID(ctx, fs, args)
	if db == nil {
		return err
	}
	defer db.Close()
	if err := app.Enqueuer(ctx, db); err != nil {
		return err
	}
	ev, err := db.ResendWebhook(ctx, id)
	if err != nil {
		return describe(err, "webhook event "+id)
	}
	if err := db.AppendAudit(ctx, verifyd.AuditEntry{At: e.now().UTC(), BusinessID: ev.BusinessID,
		Actor: e.operator(), Action: verifyd.AuditWebhookResend, Subject: ev.ID,
		Detail: "verification " + ev.VerificationID}); err != nil {
		return fmt.Errorf("%s is pending again, but the audit log could not record it: %w", ev.ID, err)
	}
	if *asJSON {
		return e.printJSON(webhookOut{WebhookEvent: ev, Payload: string(ev.Payload)})
	}
	fmt.Fprintf(e.stdout, "%s is pending again and will be delivered by the running server\n", ev.ID)
	return nil
}

// openWithID adds the store flags to an operator command on one ID, parses
// its arguments and opens the database, which the caller closes. The
// database is nil when the command printed its help or failed (err).
func (e *env) openWithID(ctx context.Context, fs *flag.FlagSet, args []string) (string, *sqlstore.DB, error) {
	sf := e.addStoreFlags(fs)
	id, help, err := e.parseWithID(fs, args)
	if help || err != nil {
		return "", nil, err
	}
	db, err := e.openOperatorStore(ctx, sf)
	if err != nil {
		return "", nil, err
	}
	return id, db, nil
}

// parseWithID parses flags around exactly one positional ID.
func (e *env) parseWithID(fs *flag.FlagSet, args []string) (string, bool, error) {
	pos, help, err := e.parseArgs(fs, args)
	if help || err != nil {
		return "", help, err
	}
	if len(pos) != 1 {
		fmt.Fprintf(e.stderr, "verifyd %s: want exactly one ID\n", fs.Name())
		return "", false, ErrUsage
	}
	return pos[0], false, nil
}
