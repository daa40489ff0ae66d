package identity_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/signature"
)

// receiver is a webhook receiver that records what it gets and answers
// with status.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	status int
	got    []received
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, status int) *receiver {
	r := &receiver{status: status}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{req.Header.Clone(), body})
		status := r.status
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func jpegBase64(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 200, 160))
	for y := 0; y < 160; y++ {
		for x := 0; x < 200; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func tokenOf(t *testing.T, v identity.View) string {
	t.Helper()
	i := strings.LastIndex(v.HostedURL, "/")
	if i < 0 {
		t.Fatalf("hosted URL %q", v.HostedURL)
	}
	return v.HostedURL[i+1:]
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHostedConsent: the hosted page asks for consent first; a consent is
// recorded once; a refusal fails the verification with idv_error, cause
// consent_declined, sends its webhook and is audited; neither is possible
// twice or out of turn.
func TestHostedConsent(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, d, testserver.Options{Dev: true})
			ctx := context.Background()
			hook := newReceiver(t, http.StatusNoContent)
			cred := s.Credential(verifyd.InterfaceIdentity, verifyd.EnvProduction)
			create := func(email string) identity.View {
				v, err := s.Identity.Create(ctx, cred, identity.CreateInput{Webhook: hook.URL,
					Customer: verifyd.Customer{ID: "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5", Email: email}})
				if err != nil {
					t.Fatal(err)
				}
				return v
			}

			// Consent.
			yes := create("yes@example.com")
			st, err := s.Identity.OpenHostedState(ctx, tokenOf(t, yes))
			if err != nil {
				t.Fatal(err)
			}
			// Nothing of the face before a consent.
			if _, err := s.Identity.SubmitHosted(ctx, tokenOf(t, yes), identity.HostedSubmission{}); !errors.Is(err, identity.ErrNoConsent) {
				t.Errorf("SubmitHosted before consent = %v, want ErrNoConsent", err)
			}
			if _, err := s.Identity.IssueChallenge(ctx, tokenOf(t, yes)); !errors.Is(err, identity.ErrNoConsent) {
				t.Errorf("IssueChallenge before consent = %v, want ErrNoConsent", err)
			}
			if !st.NeedsConsent() {
				t.Fatalf("a new hosted page does not ask for consent: %+v", st.Phase)
			}
			st, err = s.Identity.ConsentHosted(ctx, tokenOf(t, yes))
			if err != nil {
				t.Fatalf("ConsentHosted: %v", err)
			}
			if st.NeedsConsent() || st.ConsentedAt == nil || st.Status != verifyd.StatusStarted || st.Phase != identity.PhaseCapture {
				t.Errorf("after consent: needs %v, consented %v, %s/%s", st.NeedsConsent(), st.ConsentedAt, st.Status, st.Phase)
			}
			if _, err := s.Identity.DeclineHosted(ctx, tokenOf(t, yes)); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
				t.Errorf("DeclineHosted after a consent = %v, want a conflict", err)
			}

			// Refusal, from a page opened (started) and from one not yet
			// opened (pending: started first, as SPEC's machine wants).
			for _, open := range []bool{true, false} {
				no := create("no@example.com")
				token := tokenOf(t, no)
				if open {
					if _, err := s.Identity.OpenHostedState(ctx, token); err != nil {
						t.Fatal(err)
					}
				}
				st, err := s.Identity.DeclineHosted(ctx, token)
				if err != nil {
					t.Fatalf("DeclineHosted(open %v): %v", open, err)
				}
				if st.Status != verifyd.StatusFailed || st.Reason != verifyd.ReasonIDVError || st.Phase != identity.PhaseFailed || !st.Declined {
					t.Errorf("declined: %s/%s phase %s, want failed/idv_error", st.Status, st.Reason, st.Phase)
				}
				history, err := s.Store.StatusEvents(ctx, no.ID)
				if err != nil {
					t.Fatal(err)
				}
				last := history[len(history)-1]
				if last.Cause != verifyd.CauseConsentDeclined || last.Reason != verifyd.ReasonIDVError || len(history) != 3 {
					t.Errorf("history = %+v; want created, started, failed by consent_declined", history)
				}
				if _, err := s.Identity.DeclineHosted(ctx, token); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
					t.Errorf("DeclineHosted twice = %v, want a conflict", err)
				}
				if _, err := s.Identity.ConsentHosted(ctx, token); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
					t.Errorf("ConsentHosted after a refusal = %v, want a conflict", err)
				}
				// The receiver gets the failure, signed.
				want := `{"id":"` + no.ID + `","customer_id":"6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5","status":"failed","reason":"idv_error"}`
				waitFor(t, "the failure's webhook", func() bool {
					for _, r := range hook.received() {
						_, sig, _ := signature.ParseHeader(r.header.Get("Authorization"))
						if string(r.body) == want && signature.Verify(cred.APISecret, r.body, sig) {
							return true
						}
					}
					return false
				})
			}
			entries, err := s.Store.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: s.Business.ID})
			if err != nil {
				t.Fatal(err)
			}
			declined := 0
			for _, e := range entries {
				if e.Action == verifyd.AuditConsentDeclined {
					declined++
					if e.Actor.Kind != verifyd.ActorCustomer || strings.Contains(e.Actor.Name+e.Detail, "@") {
						t.Errorf("audit entry %+v: want the customer actor and no personal data", e)
					}
				}
			}
			if declined != 2 {
				t.Errorf("%d consent_declined audit entries, want 2", declined)
			}
		})
	}
}

// TestDashboardUseCases: a business's listing, detail, images, redaction
// and webhook resend, and that another business reaches none of them.
func TestDashboardUseCases(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, d, testserver.Options{Dev: true})
			ctx := context.Background()
			hook := newReceiver(t, http.StatusOK)
			sandbox := s.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
			other, _, err := s.Tenants.CreateBusiness(ctx, "Other business")
			if err != nil {
				t.Fatal(err)
			}
			photo := jpegBase64(t)
			var ids []string
			for _, email := range []string{"a+pending@example.com", "b+minor@example.com", "c+pending@example.com"} {
				var in identity.SubmitInput
				in.Customer.Customer = verifyd.Customer{ID: "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5", Email: email}
				in.Customer.Selfie, in.Customer.Document.Front, in.Customer.Document.Country = photo, photo, "gbr"
				in.Webhook = hook.URL
				v, err := s.Identity.Submit(ctx, sandbox, in)
				if err != nil {
					t.Fatalf("Submit(%s): %v", email, err)
				}
				ids = append(ids, v.ID)
				time.Sleep(2 * time.Millisecond) // distinct creation times
			}
			minor := ids[1]
			waitFor(t, "the sandbox decision", func() bool {
				v, err := s.Store.VerificationByID(ctx, minor)
				return err == nil && v.Status == verifyd.StatusFailed
			})

			// Listing: newest first, two per page, then the filters.
			page, err := s.Identity.List(ctx, s.Business.ID, verifyd.VerificationQuery{Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Verifications) != 2 || page.Verifications[0].ID != ids[2] || page.Next == nil {
				t.Fatalf("first page = %d rows, next %v", len(page.Verifications), page.Next)
			}
			page, err = s.Identity.List(ctx, s.Business.ID, verifyd.VerificationQuery{Limit: 2, After: page.Next})
			if err != nil || len(page.Verifications) != 1 || page.Verifications[0].ID != ids[0] || page.Next != nil {
				t.Fatalf("second page = %+v, %v", page, err)
			}
			page, err = s.Identity.List(ctx, s.Business.ID, verifyd.VerificationQuery{Reason: verifyd.ReasonMinor})
			if err != nil || len(page.Verifications) != 1 || page.Verifications[0].ID != minor {
				t.Errorf("reason filter = %+v, %v", page, err)
			}
			if page, _ := s.Identity.List(ctx, other.ID, verifyd.VerificationQuery{Search: minor}); len(page.Verifications) != 0 {
				t.Errorf("another business lists %v", page.Verifications)
			}

			// Detail: history, the webhooks with their attempts, images.
			waitFor(t, "the minor's webhooks delivered", func() bool {
				d, err := s.Identity.Detail(ctx, s.Business.ID, minor)
				if err != nil {
					return false
				}
				for _, w := range d.Webhooks {
					if w.State != verifyd.WebhookDelivered || len(w.AttemptLog) == 0 {
						return false
					}
				}
				return len(d.Webhooks) == 2
			})
			d, err := s.Identity.Detail(ctx, s.Business.ID, minor)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.History) != 3 || d.History[2].Reason != verifyd.ReasonMinor {
				t.Errorf("history = %+v", d.History)
			}
			if a := d.Webhooks[0].AttemptLog[0]; a.StatusCode != http.StatusOK || a.Latency <= 0 {
				t.Errorf("attempt = %+v", a)
			}
			if len(d.Images) != 2 || len(d.Checks) != 1 || d.Checks[0].Check != "sandbox" || d.Checks[0].Detail != "" {
				t.Errorf("images %+v, checks %+v", d.Images, d.Checks)
			}
			if _, err := s.Identity.Detail(ctx, other.ID, minor); !errors.Is(err, verifyd.ErrNotFound) {
				t.Errorf("Detail by another business = %v, want not found", err)
			}

			// Images until redaction, never to another business.
			pending := ids[0]
			im, err := s.Identity.Image(ctx, s.Business.ID, pending, verifyd.ImageSelfie)
			if err != nil || len(im.Bytes) == 0 {
				t.Fatalf("Image = %v", err)
			}
			if _, err := s.Identity.Image(ctx, other.ID, pending, verifyd.ImageSelfie); !errors.Is(err, verifyd.ErrNotFound) {
				t.Errorf("Image for another business = %v", err)
			}
			if _, err := s.Identity.RedactForBusiness(ctx, other.ID, pending); !errors.Is(err, verifyd.ErrNotFound) {
				t.Errorf("RedactForBusiness by another business = %v", err)
			}
			user := verifyd.Actor{Kind: verifyd.ActorBusinessUser, Name: "dev@shop.example"}
			red, err := s.Identity.RedactForBusiness(verifyd.WithActor(ctx, user), s.Business.ID, pending)
			if err != nil {
				t.Fatalf("RedactForBusiness: %v", err)
			}
			if red.RedactedAt == nil || red.Status != verifyd.StatusExpired || red.Customer.Email != "" {
				t.Errorf("redacted = %+v", red.Verification)
			}
			if _, err := s.Identity.Image(ctx, s.Business.ID, pending, verifyd.ImageSelfie); !errors.Is(err, verifyd.ErrNotFound) {
				t.Errorf("Image after redaction = %v, want not found", err)
			}
			entries, _ := s.Store.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: s.Business.ID})
			if last := entries[len(entries)-1]; last.Action != verifyd.AuditRedact || last.Actor != user || last.Subject != pending {
				t.Errorf("last audit entry = %+v", last)
			}

			// Resend, only of one's own events.
			events, err := s.Identity.WebhookEvents(ctx, s.Business.ID, verifyd.WebhookFilter{Environment: verifyd.EnvSandbox})
			if err != nil || len(events) != 3 { // the minor's started and failed, the redacted one's expired
				t.Fatalf("WebhookEvents = %d, %v", len(events), err)
			}
			if none, _ := s.Identity.WebhookEvents(ctx, s.Business.ID, verifyd.WebhookFilter{Environment: verifyd.EnvProduction}); len(none) != 0 {
				t.Errorf("production events: %d", len(none))
			}
			// Another business, and no business at all (the store reads an
			// empty business id as "every business"), see none of them.
			for _, b := range []string{other.ID, ""} {
				if got, err := s.Identity.WebhookEvents(ctx, b, verifyd.WebhookFilter{}); len(got) != 0 {
					t.Errorf("WebhookEvents of business %q = %d events, %v; want none", b, len(got), err)
				}
			}
			ev := d.Webhooks[0]
			if _, err := s.Identity.ResendWebhook(ctx, other.ID, ev.ID); !errors.Is(err, verifyd.ErrNotFound) {
				t.Errorf("ResendWebhook by another business = %v", err)
			}
			before := len(hook.received())
			if _, err := s.Identity.ResendWebhook(verifyd.WithActor(ctx, user), s.Business.ID, ev.ID); err != nil {
				t.Fatalf("ResendWebhook: %v", err)
			}
			waitFor(t, "the resent webhook", func() bool {
				e, err := s.Store.WebhookEvent(ctx, ev.ID)
				return err == nil && e.Attempts == ev.Attempts+1 && len(hook.received()) > before
			})
		})
	}
}
