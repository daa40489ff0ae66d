package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/signature"
	"github.com/verifyd/verifyd/webhook"
)

// TestTesterSend: a test event reaches the receiver signed with the
// business's newest identity key of the environment and marked as a test;
// its outcome (delivered or the receiver's error) is recorded and audited;
// bad URLs and environments are refused before anything is sent.
func TestTesterSend(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, d, testserver.Options{Dev: true})
			ctx := context.Background()
			var mu sync.Mutex
			status := http.StatusNoContent
			var got []*http.Request
			var bodies [][]byte
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				got, bodies = append(got, r), append(bodies, b)
				code := status
				mu.Unlock()
				w.WriteHeader(code)
			}))
			t.Cleanup(hook.Close)
			// A rotated key: the newest one signs.
			newest, err := s.Tenants.CreateKey(ctx, s.Business.ID, verifyd.InterfaceIdentity, verifyd.EnvSandbox)
			if err != nil {
				t.Fatal(err)
			}
			user := verifyd.Actor{Kind: verifyd.ActorBusinessUser, Name: "dev@shop.example"}
			tester := s.App.WebhookTests
			w, err := tester.Send(verifyd.WithActor(ctx, user), s.Business.ID, verifyd.EnvSandbox, hook.URL+"/hook")
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if !w.Delivered() || w.StatusCode != http.StatusNoContent || w.APIKey != newest.APIKey || w.Actor != user.Name {
				t.Errorf("test event = %+v", w)
			}
			if len(got) != 1 {
				t.Fatalf("receiver got %d requests", len(got))
			}
			r, body := got[0], bodies[0]
			key, sig, ok := signature.ParseHeader(r.Header.Get("Authorization"))
			if !ok || key != newest.APIKey || !signature.Verify(newest.APISecret, body, sig) {
				t.Errorf("Authorization %q does not verify with the newest key", r.Header.Get("Authorization"))
			}
			if r.Header.Get("Webhook-Test") != "true" || r.Header.Get("Webhook-Id") != w.ID {
				t.Errorf("headers = %v", r.Header)
			}
			var payload map[string]string
			if err := json.Unmarshal(body, &payload); err != nil || payload["customer_id"] != webhook.TestCustomerID ||
				payload["status"] != "started" || payload["reason"] != "" || len(payload["id"]) != 36 || len(payload) != 4 {
				t.Errorf("payload = %s (%v)", body, err)
			}

			// A failing receiver is an outcome, recorded.
			mu.Lock()
			status = http.StatusInternalServerError
			mu.Unlock()
			failed, err := tester.Send(ctx, s.Business.ID, verifyd.EnvSandbox, hook.URL)
			if err != nil {
				t.Fatalf("Send to a failing receiver: %v", err)
			}
			if failed.Delivered() || failed.StatusCode != 500 || !strings.Contains(failed.Error, "HTTP 500") {
				t.Errorf("failed test event = %+v", failed)
			}
			// A receiver that cannot be reached: the business is told why
			// in words, never the address its host name resolved to nor
			// Go's dial error (the dashboard shows this to every role, and
			// the URL is the user's choice: no probe of the network).
			closed := httptest.NewServer(http.NotFoundHandler())
			closedURL := closed.URL
			closed.Close()
			unreached, err := tester.Send(ctx, s.Business.ID, verifyd.EnvSandbox, closedURL+"/hook")
			if err != nil {
				t.Fatalf("Send to a closed port: %v", err)
			}
			if unreached.Delivered() || unreached.Error != "connection refused" {
				t.Errorf("unreachable receiver's error = %q, want \"connection refused\"", unreached.Error)
			}
			list, err := tester.Tests(ctx, s.Business.ID, 0)
			if err != nil || len(list) != 3 || list[1].ID != failed.ID || list[2].ID != w.ID {
				t.Errorf("Tests = %+v, %v", list, err)
			}
			entries, _ := s.Store.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: s.Business.ID})
			tests := 0
			for _, e := range entries {
				if e.Action == verifyd.AuditWebhookTest {
					tests++
				}
			}
			if tests != 3 {
				t.Errorf("%d webhook.test audit entries, want 3", tests)
			}

			// Refused before sending.
			for _, c := range []struct {
				env verifyd.Environment
				url string
			}{
				{verifyd.EnvSandbox, "ftp://hooks.example/x"},
				{verifyd.EnvSandbox, "/relative"},
				{"staging", hook.URL},
			} {
				if _, err := tester.Send(ctx, s.Business.ID, c.env, c.url); verifyd.ErrorCodeOf(err) != verifyd.EInvalid {
					t.Errorf("Send(%s, %q) = %v, want invalid", c.env, c.url, err)
				}
			}
			strict := webhook.NewTester(s.App.Sender, s.Store, s.Tenants, nil, false)
			if _, err := strict.Send(ctx, s.Business.ID, verifyd.EnvProduction, hook.URL); verifyd.ErrorCodeOf(err) != verifyd.EInvalid {
				t.Errorf("http in production without --dev = %v, want invalid", err)
			}
			if len(got) != 2 {
				t.Errorf("refused tests reached the receiver: %d requests", len(got))
			}
		})
	}
}
