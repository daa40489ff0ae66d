package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/verifyd/verifyd/sdk"
)

func (e *env) sandboxSimulate(ctx context.Context, args []string) error {
	fs := e.flags("sandbox simulate", "sandbox simulate --id ID --status started|approved|failed [--reason REASON]",
		lines("Moves a sandbox identity verification as the verification engine would, with the same",
			"webhooks, and prints the verification (B3 body). A pending verification asked to become",
			"approved or failed is started first. --base-url must be the sandbox identity mount.",
			clientOptionsHelp))
	id := fs.String("id", "", "the verification id (required)")
	status := fs.String("status", "", "started, approved or failed (required)")
	reason := fs.String("reason", "", "the failure reason, for failed: one of SPEC's reasons such as minor or photo_mismatch")
	af := e.addAPIFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *id == "" || *status == "" {
		fmt.Fprintln(e.stderr, "verifyd sandbox simulate: --id and --status are required")
		return ErrUsage
	}
	c, err := e.client(fs, af)
	if err != nil {
		return err
	}
	v, err := c.Sandbox().Simulate(ctx, *id, sdk.Status(*status), sdk.Reason(*reason))
	if err != nil {
		return requestFailed(err)
	}
	return e.printJSON(v)
}

func (e *env) sandboxAdvanceTime(ctx context.Context, args []string) error {
	fs := e.flags("sandbox advance-time", "sandbox advance-time --id ID --seconds N",
		lines("Moves a sandbox identity verification's clock forward by N seconds; once five days",
			"(432000 s) have passed on its clock, the normal expiry job expires it within seconds.",
			"Prints the verification (B3 body).",
			clientOptionsHelp))
	id := fs.String("id", "", "the verification id (required)")
	seconds := fs.Int64("seconds", 0, "how far to move the clock (required, > 0)")
	af := e.addAPIFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *id == "" || *seconds <= 0 {
		fmt.Fprintln(e.stderr, "verifyd sandbox advance-time: --id and a positive --seconds are required")
		return ErrUsage
	}
	c, err := e.client(fs, af)
	if err != nil {
		return err
	}
	v, err := c.Sandbox().AdvanceTime(ctx, *id, *seconds)
	if err != nil {
		return requestFailed(err)
	}
	return e.printJSON(v)
}

// webhooksReceive is a development webhook receiver: it checks every
// request's signature with the SDK and prints each event as one JSON line.
func (e *env) webhooksReceive(ctx context.Context, args []string) error {
	fs := e.flags("webhooks receive", "webhooks receive [--listen ADDR]",
		lines("Runs a webhook receiver for development: every POST is checked with the API key and secret",
			"(VERIFYD_API_KEY / VERIFYD_API_SECRET or the flags) and printed as one JSON line:",
			`{"received_at", "webhook_id", "attempt", "valid", "event": {"id", "customer_id", "status", "reason"}}.`,
			"Valid requests are answered 204, others 401. Stop it with Ctrl-C."))
	listen := fs.String("listen", "127.0.0.1:9000", "address to listen on")
	af := e.addAPIFlags(fs)
	af.baseURL = "http://unused.invalid" // the receiver calls nothing
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	secret := af.apiSecret
	if secret == "" {
		secret = e.getenv("VERIFYD_API_SECRET")
	}
	if af.apiKey == "" || secret == "" {
		fmt.Fprintln(e.stderr, "verifyd webhooks receive: --api-key and --api-secret (or VERIFYD_API_KEY, VERIFYD_API_SECRET) are required")
		return ErrUsage
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "receiving webhooks on http://%s/\n", ln.Addr())
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := sdk.VerifyWebhook(r, func(key string) (string, bool) { return secret, key == af.apiKey })
		out := struct {
			ReceivedAt time.Time `json:"received_at"`
			WebhookID  string    `json:"webhook_id"`
			Attempt    string    `json:"attempt"`
			Valid      bool      `json:"valid"`
			Error      string    `json:"error,omitempty"`
			Event      sdk.Event `json:"event"`
		}{time.Now().UTC(), r.Header.Get("Webhook-Id"), r.Header.Get("Webhook-Attempt"), err == nil, "", ev}
		if err != nil {
			out.Error = strings.TrimPrefix(err.Error(), "verifyd: ")
			w.WriteHeader(http.StatusUnauthorized)
		} else {
			w.WriteHeader(http.StatusNoContent)
		}
		_ = e.printJSONLine(out)
	})}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
