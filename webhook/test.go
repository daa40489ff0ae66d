package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/google/uuid"
	"github.com/verifyd/verifyd"
)

// Test events (docs/webhooks.md "Test events"). SPEC knows one event, the
// status change; an integrator setting up a receiver wants to see one
// arrive before any customer verifies. The dashboard's "Send a test event"
// posts a body of the status change's shape, signed like every webhook
// with the business's newest active identity key of the environment, and
// marked with the header Webhook-Test: true. Its id is a random UUID that
// names no verification, its customer_id the nil UUID v4
// 00000000-0000-4000-8000-000000000000 and its status "started", the
// change a receiver can act on least. It is sent once, while the person
// waits, through the same guarded dialer as every webhook, and recorded
// with its outcome; it is never retried.

// TestCustomerID is the customer_id of every test event.
const TestCustomerID = "00000000-0000-4000-8000-000000000000"

// Keys is what the tester needs of the tenant service: the business's keys
// and the secret that signs with one.
type Keys interface {
	Keys(ctx context.Context, businessID string) ([]verifyd.Credential, error)
	SigningSecret(ctx context.Context, apiKey string) (string, error)
}

// TestStore records test events and the audit log.
type TestStore interface {
	verifyd.WebhookTestStore
	AppendAudit(ctx context.Context, e verifyd.AuditEntry) error
}

// Tester sends test events.
type Tester struct {
	sender    *Sender
	store     TestStore
	keys      Keys
	rand      io.Reader
	allowHTTP bool
}

// NewTester returns a Tester. allowHTTP permits http:// receivers in
// production (a --dev server), as for webhooks given at creation; the
// sandbox always permits them.
func NewTester(sender *Sender, store TestStore, keys Keys, rand io.Reader, allowHTTP bool) *Tester {
	return &Tester{sender: sender, store: store, keys: keys, rand: rand, allowHTTP: allowHTTP}
}

// Send posts a test event to url for a business's environment and returns
// it with its outcome; a receiver that fails is an outcome (the returned
// test's Error), not an error. The actor of ctx is recorded with it and in
// the audit log.
func (t *Tester) Send(ctx context.Context, businessID string, env verifyd.Environment, url string) (verifyd.WebhookTest, error) {
	if !env.Valid() {
		return verifyd.WebhookTest{}, verifyd.InvalidFields([]verifyd.FieldError{{Field: "environment", Problem: "must be production or sandbox"}})
	}
	if problem := (verifyd.URLRule{AllowHTTP: t.allowHTTP || env == verifyd.EnvSandbox}).CheckURL(url); problem != "" {
		return verifyd.WebhookTest{}, verifyd.InvalidFields([]verifyd.FieldError{{Field: "url", Problem: problem}})
	}
	keys, err := t.keys.Keys(ctx, businessID)
	if err != nil {
		return verifyd.WebhookTest{}, err
	}
	// The newest active key: the one an integrator rotating keys has just
	// configured its receiver with.
	var key *verifyd.Credential
	for _, k := range slices.Backward(keys) {
		if k.Active() && k.Interface == verifyd.InterfaceIdentity && k.Environment == env {
			key = &k
			break
		}
	}
	if key == nil {
		return verifyd.WebhookTest{}, verifyd.Errorf(verifyd.EConflict, "the business has no active identity key for %s", env)
	}
	secret, err := t.keys.SigningSecret(ctx, key.APIKey)
	if err != nil {
		return verifyd.WebhookTest{}, err
	}
	token, err := verifyd.RandomToken(t.rand, 16)
	if err != nil {
		return verifyd.WebhookTest{}, err
	}
	id, err := uuid.NewRandomFromReader(t.rand)
	if err != nil {
		return verifyd.WebhookTest{}, err
	}
	payload, err := json.Marshal(struct {
		ID         string         `json:"id"`
		CustomerID string         `json:"customer_id"`
		Status     verifyd.Status `json:"status"`
		Reason     verifyd.Reason `json:"reason"`
	}{id.String(), TestCustomerID, verifyd.StatusStarted, verifyd.ReasonNone})
	if err != nil {
		return verifyd.WebhookTest{}, err
	}
	actor := verifyd.ActorFrom(ctx)
	w := verifyd.WebhookTest{ID: "wht_" + token, BusinessID: businessID, Environment: env, APIKey: key.APIKey,
		URL: url, Payload: payload, At: t.sender.cfg.Now().UTC(), Actor: actor.Name}
	ev := verifyd.WebhookEvent{ID: w.ID, BusinessID: businessID, APIKey: key.APIKey, URL: url, Payload: payload}
	res, sendErr := t.sender.send(ctx, ev, secret, 1, true)
	w.Latency = t.sender.cfg.Now().Sub(w.At)
	switch {
	case sendErr != nil:
		// The business sees w.Error; the operator's log has the details.
		w.Error = describe(sendErr)
		t.sender.cfg.Logger.InfoContext(ctx, "webhook test failed", "test_id", w.ID, "err", sendErr)
	case res.StatusCode < 200 || res.StatusCode > 299:
		w.StatusCode, w.Error = res.StatusCode, fmt.Sprintf("receiver answered HTTP %d", res.StatusCode)
	default:
		w.StatusCode = res.StatusCode
	}
	if err := t.store.RecordWebhookTest(ctx, w); err != nil {
		return verifyd.WebhookTest{}, err
	}
	outcome := "delivered"
	if !w.Delivered() {
		outcome = "failed: " + w.Error
	}
	_ = t.store.AppendAudit(ctx, verifyd.AuditEntry{At: w.At, BusinessID: businessID, Actor: actor,
		Action: verifyd.AuditWebhookTest, Subject: w.ID, Detail: fmt.Sprintf("%s %s %s", env, url, outcome)})
	return w, nil
}

// Tests lists a business's test events, newest first.
func (t *Tester) Tests(ctx context.Context, businessID string, limit int) ([]verifyd.WebhookTest, error) {
	return t.store.WebhookTests(ctx, businessID, limit)
}
