package cli_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestSandboxAndWebhookCommands walks the README's sandbox tour with the
// command line only: a receiver, a verification, simulated outcomes, an
// advanced clock, and the operator views of history and webhooks.
func TestSandboxAndWebhookCommands(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	cred := ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	env := map[string]string{
		"VERIFYD_BASE_URL":   ts.BaseURL(verifyd.InterfaceIdentity, verifyd.EnvSandbox),
		"VERIFYD_API_KEY":    cred.APIKey,
		"VERIFYD_API_SECRET": cred.APISecret,
		"VERIFYD_DATABASE":   ts.DatabaseURL,
		"VERIFYD_MASTER_KEY": ts.MasterKey,
	}

	// The development receiver, on a free port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var received testserver.Buffer
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"webhooks", "receive", "--listen", addr}, func(k string) string { return env[k] }, nil, &received, &testserver.Buffer{})
	}()
	type line struct {
		WebhookID string `json:"webhook_id"`
		Attempt   string `json:"attempt"`
		Valid     bool   `json:"valid"`
		Event     struct{ ID, Status, Reason string }
	}
	waitLines := func(n int) []line {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			var out []line
			for _, l := range strings.Split(strings.TrimSpace(received.String()), "\n") {
				var x line
				if json.Unmarshal([]byte(l), &x) == nil {
					out = append(out, x)
				}
			}
			if len(out) >= n {
				return out
			}
			if time.Now().After(deadline) {
				t.Fatalf("receiver printed %d lines, want %d:\n%s", len(out), n, received.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	stdout, stderr, err := run(t, env, "identity", "create", "--email", "ada@example.com", "--webhook", "http://"+addr+"/hook")
	if err != nil {
		t.Fatalf("create: %v %s", err, stderr)
	}
	var created struct{ ID string }
	_ = json.Unmarshal([]byte(stdout), &created)
	// The customer agrees on the hosted page (identity.ConsentHosted);
	// verification show says when.
	consented, err := ts.Store.RecordConsent(context.Background(), created.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	stdout, stderr, err = run(t, env, "sandbox", "simulate", "--id", created.ID, "--status", "failed", "--reason", "minor")
	if err != nil || !strings.Contains(stdout, `"status": "failed"`) {
		t.Fatalf("simulate: %v %s %s", err, stdout, stderr)
	}
	got := waitLines(2)
	if !got[0].Valid || got[0].Event.Status != "started" || got[1].Event.Status != "failed" || got[1].Event.Reason != "minor" {
		t.Fatalf("received %+v", got)
	}

	// verification show: history and webhooks with attempts. The server
	// records a delivery after the receiver has answered (and printed), so
	// wait until both are recorded as delivered.
	var shown struct {
		Verification struct {
			Status      string
			ConsentedAt *time.Time `json:"consented_at"`
		}
		History  []verifyd.StatusEvent
		Webhooks []struct {
			ID         string
			State      string
			AttemptLog []verifyd.WebhookAttempt `json:"attempt_log"`
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		stdout, stderr, err = run(t, env, "verification", "show", created.ID, "--json")
		if err != nil {
			t.Fatalf("show: %v %s", err, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &shown); err != nil {
			t.Fatal(err)
		}
		if len(shown.Webhooks) == 2 && shown.Webhooks[0].State == "delivered" && shown.Webhooks[1].State == "delivered" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhooks not recorded as delivered: %s", stdout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if shown.Verification.Status != "failed" || len(shown.History) != 3 || shown.History[2].To != verifyd.StatusFailed ||
		shown.History[2].Reason != verifyd.ReasonMinor || len(shown.Webhooks[0].AttemptLog) != 1 || len(shown.Webhooks[1].AttemptLog) != 1 {
		t.Fatalf("verification show: %s", stdout)
	}
	if shown.Verification.ConsentedAt == nil || !shown.Verification.ConsentedAt.Equal(*consented.ConsentedAt) {
		t.Errorf("verification show: consented_at %v, want %v", shown.Verification.ConsentedAt, consented.ConsentedAt)
	}

	// webhooks list filters by state; resend delivers the same event again.
	stdout, _, err = run(t, env, "webhooks", "list", "--state", "delivered", "--json")
	if err != nil || strings.Count(stdout, `"state": "delivered"`) != 2 {
		t.Fatalf("webhooks list: %v %s", err, stdout)
	}
	if _, stderr, err := run(t, env, "webhooks", "resend", got[1].WebhookID); err != nil {
		t.Fatalf("resend: %v %s", err, stderr)
	}
	again := waitLines(3)[2]
	if again.WebhookID != got[1].WebhookID || again.Attempt != "2" || again.Event.Status != "failed" {
		t.Fatalf("resent webhook: %+v", again)
	}
	stdout, _, err = run(t, env, "audit", "list", "--json")
	if err != nil || !strings.Contains(stdout, `"action": "webhook.resend"`) || !strings.Contains(stdout, `"subject": "`+got[1].WebhookID+`"`) {
		t.Fatalf("audit list after the resend: %v %s", err, stdout)
	}

	// advance-time expires a second verification through the real job.
	stdout, _, _ = run(t, env, "identity", "create", "--email", "b@example.com", "--webhook", "http://"+addr+"/hook")
	var second struct{ ID string }
	_ = json.Unmarshal([]byte(stdout), &second)
	if _, stderr, err := run(t, env, "sandbox", "advance-time", "--id", second.ID, "--seconds", "432001"); err != nil {
		t.Fatalf("advance-time: %v %s", err, stderr)
	}
	if last := waitLines(4)[3]; last.Event.ID != second.ID || last.Event.Status != "expired" {
		t.Fatalf("expiry webhook: %+v", last)
	}
	// identity redact deletes the e-mail and prints B3's body.
	stdout, stderr, err = run(t, env, "identity", "redact", "--id", second.ID)
	if err != nil || !strings.Contains(stdout, `"email": ""`) || !strings.Contains(stdout, `"status": "expired"`) {
		t.Fatalf("identity redact: %v %s %s", err, stdout, stderr)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("receiver: %v", err)
	}
	if _, _, err := run(t, env, "webhooks", "resend", "evt_unknown"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("resend of an unknown event: %v", err)
	}
	if _, _, err := run(t, env, "webhooks", "list", "--state", "lost"); cli.ExitCode(err) != 2 {
		t.Fatalf("bad --state: %v", err)
	}
}
