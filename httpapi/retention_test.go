package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/sdk"
)

// sdkClient is the public Go SDK on a mount of ts.
func sdkClient(t *testing.T, ts *testserver.Server, e verifyd.Environment) *sdk.Client {
	t.Helper()
	cred := ts.Credential(idp, e)
	c, err := sdk.New(ts.BaseURL(idp, e), cred.APIKey, cred.APISecret)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// imageRows counts a verification's rows in the image table, asking the
// database itself rather than the store's API.
func imageRows(t *testing.T, ts *testserver.Server, id string) int {
	t.Helper()
	var n int
	if err := ts.Store.SQL().QueryRowContext(context.Background(),
		`SELECT COUNT(*) FROM verification_images WHERE verification_id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// submitSandbox makes a direct submission in the sandbox with the given
// e-mail (whose tag chooses the outcome) and waits for it to reach want.
func submitSandbox(t *testing.T, ts *testserver.Server, email string, want sdk.Status) string {
	t.Helper()
	ctx := context.Background()
	c := sdkClient(t, ts, sbx)
	res, err := c.Identity().SubmitImages(ctx, sdk.SubmitImagesRequest{
		Customer: sdk.Customer{ID: newCustomerID(), Email: email}, DocumentType: sdk.DocumentPassport, DocumentCountry: "gbr",
		Selfie: testPNG(t, 240, 320, false), DocumentFront: testJPEG(t, 320, 200), Webhook: "https://hooks.example.com/idv",
	})
	if err != nil {
		t.Fatalf("B2: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := c.Identity().Get(ctx, res.ID)
		if err == nil && v.Status == want {
			return res.ID
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became %s: %+v, %v", res.ID, want, v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRedact: POST …/{id}/redact, signed by the Go SDK and the PHP SDK's
// way, deletes the images (gone from the table), the evidence and the
// e-mail, answers with B3's body, is idempotent, ends an unfinished
// verification as expired first, and is recorded in the audit log.
func TestRedact(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{}, func(t *testing.T, ts *testserver.Server) {
		ctx := context.Background()
		c := sdkClient(t, ts, sbx)
		php := newClient(t, ts, idp, sbx)
		id := submitSandbox(t, ts, "ada+approved@example.com", sdk.StatusApproved)
		if n := imageRows(t, ts, id); n != 2 {
			t.Fatalf("image rows before the redaction = %d, want 2", n)
		}
		before, err := c.Identity().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}

		got, err := c.Identity().Redact(ctx, id)
		if err != nil {
			t.Fatalf("Redact: %v", err)
		}
		want := *before
		want.Customer.Email = ""
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("Redact answered %+v, want %+v", *got, want)
		}
		if n := imageRows(t, ts, id); n != 0 {
			t.Errorf("image rows after the redaction = %d, want 0", n)
		}
		stored, err := ts.Store.VerificationByID(ctx, id)
		if err != nil || stored.RedactedAt == nil || stored.PurgedAt == nil || stored.Customer.Email != "" {
			t.Errorf("stored after the redaction: %+v, %v", stored, err)
		}
		runs, err := ts.Store.CheckRuns(ctx, id)
		if err != nil || len(runs) == 0 {
			t.Fatalf("check runs after the redaction: %v, %v", runs, err)
		}
		for _, run := range runs {
			results, _, err := ts.Identity.CheckResults(run)
			if err != nil {
				t.Fatalf("open the summary of run %d: %v", run.Run, err)
			}
			for _, r := range results {
				if r.Detail != "" || r.Evidence != nil {
					t.Errorf("run %d keeps %s's detail %q or evidence %v", run.Run, r.Check, r.Detail, r.Evidence)
				}
			}
		}

		// Again, signed the PHP SDK's way over an empty body and over
		// "{}": the same answer, as B3 gives it.
		path := "/api/v1/identity-verification/" + id + "/redact"
		for _, body := range [][]byte{{}, []byte("{}")} {
			res := php.send("POST", path, body)
			if res.status != 200 {
				t.Fatalf("redact again (%q): %d %s", body, res.status, res.raw)
			}
			var again sdk.Verification
			if err := json.Unmarshal(res.raw, &again); err != nil || again != want {
				t.Errorf("redact again (%q) = %s, want %+v", body, res.raw, want)
			}
			wantKeys(t, res.json(t), "id", "customer", "redirect_uri", "webhook", "status", "reason")
		}
		if b3 := php.send("GET", "/api/v1/identity-verification/"+id, nil); b3.status != 200 ||
			!strings.Contains(string(b3.raw), `"email":""`) || !strings.Contains(string(b3.raw), `"status":"approved"`) {
			t.Errorf("B3 after the redaction: %d %s", b3.status, b3.raw)
		}

		// An unfinished (hosted, pending) verification is ended first.
		res := php.send("POST", "/api/v1/identity-verification", createBody(newCustomerID(), "https://hooks.example.com/idv", ""))
		if res.status != 201 {
			t.Fatalf("B1: %d %s", res.status, res.raw)
		}
		pending, hosted := res.json(t)["id"].(string), res.json(t)["redirect_uri"].(string)
		ended, err := c.Identity().Redact(ctx, pending)
		if err != nil || ended.Status != sdk.StatusExpired || ended.RedirectURI != "" || ended.Customer.Email != "" {
			t.Fatalf("redact of a pending verification: %+v, %v", ended, err)
		}
		if page, err := http.Get(hosted); err != nil || page.StatusCode != 404 {
			t.Errorf("the hosted page after the redaction: %v, %v", page, err)
		} else {
			page.Body.Close()
		}
		history, err := ts.Store.StatusEvents(ctx, pending)
		if err != nil || history[len(history)-1].Cause != verifyd.CauseRedaction {
			t.Errorf("history of the redacted pending verification: %+v, %v", history, err)
		}
		events, err := ts.Store.WebhookEvents(ctx, verifyd.WebhookFilter{VerificationID: pending})
		if err != nil || len(events) != 1 || !strings.Contains(string(events[0].Payload), `"status":"expired"`) {
			t.Errorf("webhook events of the redacted pending verification: %+v, %v", events, err)
		}

		// Errors: unknown id, another environment's key, a wrong
		// signature, a body that is not JSON, a GET.
		var apiErr *sdk.APIError
		if _, err := c.Identity().Redact(ctx, "vrf_unknown"); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
			t.Errorf("redact of an unknown id: %v", err)
		}
		if _, err := sdkClient(t, ts, prd).Identity().Redact(ctx, id); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
			t.Errorf("redact with the production key: %v", err)
		}
		php.do("POST", path, []byte("{}"), "hmac "+php.key+":00").wantError(t, 401, "invalid authentication")
		php.send("POST", path, []byte("nope")).wantError(t, 400, "the request could not be understood by the server due to malformed syntax")
		if r := php.send("GET", path, nil); r.status != 405 {
			t.Errorf("GET %s: %d", path, r.status)
		}

		entries, err := ts.Store.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: ts.Business.ID})
		if err != nil {
			t.Fatal(err)
		}
		var redactions []string
		for _, e := range entries {
			if e.Action == verifyd.AuditRedact {
				if e.Actor != (verifyd.Actor{Kind: verifyd.ActorAPIKey, Name: php.key}) {
					t.Errorf("redaction recorded with actor %+v", e.Actor)
				}
				redactions = append(redactions, e.Subject)
			}
		}
		if !reflect.DeepEqual(redactions, []string{id, pending}) {
			t.Errorf("audited redactions %v, want %v (a repeated redaction is not recorded again)", redactions, []string{id, pending})
		}
	})
}

// TestRetentionFollowsSandboxClock: the retention runs on a sandbox
// verification's clock, so advance-time shows it end: one second before
// the 30 days the images are there, after them the purge job deletes them
// and B3 still answers with status and reason.
func TestRetentionFollowsSandboxClock(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	ctx := context.Background()
	c := sdkClient(t, ts, sbx)
	id := submitSandbox(t, ts, "ada+minor@example.com", sdk.StatusFailed)
	const day = 24 * 60 * 60
	if _, err := c.Sandbox().AdvanceTime(ctx, id, 30*day-60); err != nil {
		t.Fatal(err)
	}
	// The job scheduled by the advance is due now on the real clock, but
	// the retention is not over on the verification's.
	var notDue *identity.NotDueError
	if err := ts.Identity.Purge(ctx, id); !errors.As(err, &notDue) {
		t.Fatalf("Purge before the retention is over: %v", err)
	}
	if n := imageRows(t, ts, id); n != 2 {
		t.Fatalf("image rows one minute before the retention's end = %d", n)
	}
	if _, err := c.Sandbox().AdvanceTime(ctx, id, 61); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for imageRows(t, ts, id) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the retention job did not delete the images")
		}
		time.Sleep(20 * time.Millisecond)
	}
	v, err := c.Identity().Get(ctx, id)
	if err != nil || v.Status != sdk.StatusFailed || v.Reason != sdk.Reason("minor") || v.Customer.Email != "ada+minor@example.com" {
		t.Fatalf("B3 after the retention: %+v, %v", v, err)
	}
}

// clock is a settable clock for the server.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestRetentionDrivenByClock: the purge follows the server's injected
// clock and the business's setting: with one day, it is not due 23 hours
// after the decision and done one hour later; with 0, the setting's change
// itself enqueues a purge that runs at once.
func TestRetentionDrivenByClock(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	ts := testserver.Start(t, "sqlite", testserver.Options{Now: clk.Now})
	ctx := verifyd.WithActor(context.Background(), verifyd.Actor{Kind: verifyd.ActorOperator, Name: "cli:test"})
	if _, err := ts.Tenants.SetRetentionDays(ctx, ts.Business.ID, 1); err != nil {
		t.Fatal(err)
	}
	id := submitSandbox(t, ts, "ada@example.com", sdk.StatusApproved)

	clk.Advance(23 * time.Hour)
	var notDue *identity.NotDueError
	if err := ts.Identity.Purge(ctx, id); !errors.As(err, &notDue) {
		t.Fatalf("Purge 23 hours after the decision: %v", err)
	}
	if n := imageRows(t, ts, id); n != 2 {
		t.Fatalf("image rows 23 hours after the decision = %d", n)
	}
	clk.Advance(time.Hour + time.Second)
	if err := ts.Identity.Purge(ctx, id); err != nil {
		t.Fatalf("Purge a day after the decision: %v", err)
	}
	if n := imageRows(t, ts, id); n != 0 {
		t.Fatalf("image rows a day after the decision = %d", n)
	}

	// Retention 0: the change reschedules the purge of a decided
	// verification to now. The queue schedules on the real clock, so the
	// server's clock is set back to it first.
	clk.Advance(-(24*time.Hour + time.Second))
	other := submitSandbox(t, ts, "grace@example.com", sdk.StatusApproved)
	if _, err := ts.Tenants.SetRetentionDays(ctx, ts.Business.ID, 0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for imageRows(t, ts, other) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("retention 0 did not delete the images")
		}
		time.Sleep(20 * time.Millisecond)
	}
	entries, err := ts.Store.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: ts.Business.ID})
	if err != nil {
		t.Fatal(err)
	}
	var settings []string
	for _, e := range entries {
		if e.Action == verifyd.AuditBusinessSet && e.Actor.Name == "cli:test" {
			settings = append(settings, e.Detail)
		}
	}
	if !reflect.DeepEqual(settings, []string{"retention_days=1", "retention_days=0"}) {
		t.Errorf("audited settings %v", settings)
	}
}
