package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/signature"
	"github.com/verifyd/verifyd/webhook"
)

// received is one webhook request as a receiver saw it.
type received struct {
	at      time.Time
	body    string
	key     string
	id      string // Webhook-Id
	attempt string
	payload struct {
		ID         string `json:"id"`
		CustomerID string `json:"customer_id"`
		Status     string `json:"status"`
		Reason     string `json:"reason"`
	}
}

// receiver is a real HTTP webhook endpoint that checks every signature
// against the secrets it knows and answers as the test scripts it.
type receiver struct {
	t       *testing.T
	srv     *httptest.Server
	secrets map[string]string
	mu      sync.Mutex
	got     []received
	// answer decides the response to the n-th request (0-based).
	answer func(n int, w http.ResponseWriter) bool
}

func newReceiver(t *testing.T, creds ...verifyd.Credential) *receiver {
	rc := &receiver{t: t, secrets: map[string]string{}}
	for _, c := range creds {
		rc.secrets[c.APIKey] = c.APISecret
	}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		key, sig, ok := signature.ParseHeader(r.Header.Get("Authorization"))
		secret, known := rc.secrets[key]
		if !ok || !known || !signature.Verify(secret, body, sig) {
			t.Errorf("webhook with a bad signature: %q over %s", r.Header.Get("Authorization"), body)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" || r.Method != "POST" {
			t.Errorf("webhook %s with Content-Type %q", r.Method, ct)
		}
		rec := received{at: time.Now(), body: string(body), key: key, id: r.Header.Get("Webhook-Id"), attempt: r.Header.Get("Webhook-Attempt")}
		if err := json.Unmarshal(body, &rec.payload); err != nil {
			t.Errorf("webhook body is not JSON: %s", body)
		}
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, rec)
		answer := rc.answer
		rc.mu.Unlock()
		if answer == nil || !answer(n, w) {
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) url() string { return rc.srv.URL + "/hooks/verifyd" }

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// waitFor polls until cond holds on the received webhooks.
func (rc *receiver) waitFor(what string, cond func([]received) bool) []received {
	rc.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if got := rc.all(); cond(got) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	rc.t.Fatalf("timed out waiting for %s; received %d webhooks: %+v", what, len(rc.all()), rc.all())
	return nil
}

// statuses returns the statuses received for a verification, in order of
// arrival, counting each event once.
func statuses(got []received, id string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range got {
		if r.payload.ID == id && !seen[r.id] {
			seen[r.id] = true
			out = append(out, r.payload.Status+":"+r.payload.Reason)
		}
	}
	return out
}

func hasStatuses(id string, want ...string) func([]received) bool {
	return func(got []received) bool { return strings.Join(statuses(got, id), ",") == strings.Join(want, ",") }
}

func TestWebhookForEveryTransition(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{Dev: true}, func(t *testing.T, ts *testserver.Server) {
		cred := ts.Credential(idp, sbx)
		rc := newReceiver(t, cred)
		c := newClient(t, ts, idp, sbx)
		create := func() (id, hosted, customer string) {
			customer = newCustomerID()
			m := c.send("POST", "/api/v1/identity-verification", createBody(customer, rc.url(), "")).json(t)
			return m["id"].(string), m["redirect_uri"].(string), customer
		}

		// pending → started by opening the hosted page, → failed with a reason.
		id1, hosted, customer := create()
		if res, err := http.Get(hosted); err != nil || res.StatusCode != 200 {
			t.Fatalf("open hosted page: %v %v", err, res)
		}
		got := rc.waitFor("started", hasStatuses(id1, "started:"))
		if want := `{"id":"` + id1 + `","customer_id":"` + customer + `","status":"started","reason":""}`; got[0].body != want {
			t.Fatalf("webhook body\n got %s\nwant %s", got[0].body, want)
		}
		if got[0].key != cred.APIKey || !strings.HasPrefix(got[0].id, "evt_") || got[0].attempt != "1" {
			t.Fatalf("webhook headers: key %s id %s attempt %s", got[0].key, got[0].id, got[0].attempt)
		}
		res := c.send("POST", "/api/v1/sandbox/identity-verification/"+id1+"/simulate", map[string]string{"status": "failed", "reason": "minor"})
		if res.status != 200 || res.json(t)["status"] != "failed" || res.json(t)["reason"] != "minor" {
			t.Fatalf("simulate failed: %d %s", res.status, res.raw)
		}
		rc.waitFor("failed", hasStatuses(id1, "started:", "failed:minor"))

		// pending → approved: the engine's path goes through started.
		id2, _, _ := create()
		c.send("POST", "/api/v1/sandbox/identity-verification/"+id2+"/simulate", map[string]string{"status": "approved"})
		rc.waitFor("approved", hasStatuses(id2, "started:", "approved:"))

		// Expiry: one day is not enough, five days are.
		id3, _, _ := create()
		c.send("POST", "/api/v1/sandbox/identity-verification/"+id3+"/advance-time", map[string]int{"seconds": 86400})
		time.Sleep(300 * time.Millisecond)
		if s := c.send("GET", "/api/v1/identity-verification/"+id3, nil).json(t)["status"]; s != "pending" {
			t.Fatalf("after one day: %v", s)
		}
		res = c.send("POST", "/api/v1/sandbox/identity-verification/"+id3+"/advance-time", map[string]int{"seconds": 4*86400 + 1})
		if res.status != 200 {
			t.Fatalf("advance-time: %d %s", res.status, res.raw)
		}
		rc.waitFor("expired", hasStatuses(id3, "expired:"))
		if s := c.send("GET", "/api/v1/identity-verification/"+id3, nil).json(t)["status"]; s != "expired" {
			t.Fatalf("B3 after expiry: %v", s)
		}
		// An expired verification never changes again.
		c.send("POST", "/api/v1/sandbox/identity-verification/"+id3+"/simulate", map[string]string{"status": "approved"}).
			wantError(t, 422, verifyd.MsgInvalidParameters)

		// The history records every change with its cause.
		history, err := ts.Store.StatusEvents(context.Background(), id1)
		if err != nil || len(history) != 3 {
			t.Fatalf("history: %v %+v", err, history)
		}
		want := []verifyd.Cause{verifyd.CauseCreated, verifyd.CauseHostedOpened, verifyd.CauseSandboxControl}
		for n, h := range history {
			if h.Cause != want[n] {
				t.Fatalf("history[%d] cause %s, want %s", n, h.Cause, want[n])
			}
		}
	})
}

func TestSandboxControlRules(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	c := newClient(t, ts, idp, sbx)
	id := c.send("POST", "/api/v1/identity-verification", createBody(newCustomerID(), "https://hooks.example.com/", "")).json(t)["id"].(string)
	sim := func(body any) response {
		return c.send("POST", "/api/v1/sandbox/identity-verification/"+id+"/simulate", body)
	}
	for _, body := range []map[string]any{
		{"status": "failed"}, {"status": "failed", "reason": "nope"}, {"status": "started", "reason": "minor"},
		{"status": "expired"}, {"status": "pending"}, {},
	} {
		sim(body).wantError(t, 422, verifyd.MsgInvalidParameters)
	}
	if res := sim(map[string]string{"status": "started"}); res.status != 200 {
		t.Fatalf("start: %d %s", res.status, res.raw)
	}
	sim(map[string]string{"status": "started"}).wantError(t, 422, verifyd.MsgInvalidParameters)
	if res := sim(map[string]string{"status": "failed", "reason": "photo_mismatch"}); res.status != 200 {
		t.Fatalf("fail: %d %s", res.status, res.raw)
	}
	sim(map[string]string{"status": "approved"}).wantError(t, 422, verifyd.MsgInvalidParameters)
	for _, s := range []int64{0, -1, 10*365*86400 + 1, 9223372037, 1 << 62} {
		c.send("POST", "/api/v1/sandbox/identity-verification/"+id+"/advance-time", map[string]int64{"seconds": s}).
			wantError(t, 422, verifyd.MsgInvalidParameters)
	}
	c.send("POST", "/api/v1/sandbox/identity-verification/00000000-0000-4000-8000-000000000000/simulate",
		map[string]string{"status": "started"}).wantError(t, 404, verifyd.MsgNotFound)
	// The controls do not exist in production.
	p := newClient(t, ts, idp, prd)
	p.send("POST", "/api/v1/sandbox/identity-verification/"+id+"/simulate", map[string]string{"status": "started"}).
		wantError(t, 404, verifyd.MsgNotFound)
	p.send("POST", "/api/v1/sandbox/identity-verification/"+id+"/advance-time", map[string]int{"seconds": 1}).
		wantError(t, 404, verifyd.MsgNotFound)
}

// startVerification creates a sandbox verification with the given webhook
// and moves it to started, which sends one webhook.
func startVerification(t *testing.T, c *client, webhook string) string {
	t.Helper()
	res := c.send("POST", "/api/v1/identity-verification", createBody(newCustomerID(), webhook, ""))
	if res.status != 201 {
		t.Fatalf("create: %d %s", res.status, res.raw)
	}
	id := res.json(t)["id"].(string)
	if res := c.send("POST", "/api/v1/sandbox/identity-verification/"+id+"/simulate", map[string]string{"status": "started"}); res.status != 200 {
		t.Fatalf("simulate: %d %s", res.status, res.raw)
	}
	return id
}

// eventOf returns the single webhook event of a verification.
func eventOf(t *testing.T, ts *testserver.Server, id string) verifyd.WebhookEvent {
	t.Helper()
	evs, err := ts.Store.WebhookEvents(context.Background(), verifyd.WebhookFilter{VerificationID: id})
	if err != nil || len(evs) != 1 {
		t.Fatalf("webhook events of %s: %v %+v", id, err, evs)
	}
	return evs[0]
}

func waitState(t *testing.T, ts *testserver.Server, id string, state verifyd.WebhookState) verifyd.WebhookEvent {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ev := eventOf(t, ts, id)
		if ev.State == state {
			return ev
		}
		if time.Now().After(deadline) {
			t.Fatalf("event %s stayed %s (%d attempts, last error %q), want %s", ev.ID, ev.State, ev.Attempts, ev.LastError, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	c := newClient(t, ts, idp, sbx)

	t.Run("5xx then success", func(t *testing.T) {
		rc := newReceiver(t, ts.Credential(idp, sbx))
		rc.answer = func(n int, w http.ResponseWriter) bool {
			if n < 2 {
				w.WriteHeader(http.StatusInternalServerError)
				return true
			}
			return false
		}
		id := startVerification(t, c, rc.url())
		ev := waitState(t, ts, id, verifyd.WebhookDelivered)
		attempts, _ := ts.Store.WebhookAttempts(context.Background(), ev.ID)
		if len(attempts) != 3 || attempts[0].StatusCode != 500 || attempts[1].StatusCode != 500 || attempts[2].StatusCode != 204 {
			t.Fatalf("attempts: %+v", attempts)
		}
		got := rc.all()
		if got[0].body != got[2].body || got[0].id != got[2].id || got[2].attempt != "3" {
			t.Fatalf("retries must repeat the same body and Webhook-Id: %+v", got)
		}
	})

	t.Run("Retry-After is honoured", func(t *testing.T) {
		rc := newReceiver(t, ts.Credential(idp, sbx))
		rc.answer = func(n int, w http.ResponseWriter) bool {
			if n == 0 {
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(http.StatusServiceUnavailable)
				return true
			}
			return false
		}
		id := startVerification(t, c, rc.url())
		waitState(t, ts, id, verifyd.WebhookDelivered)
		got := rc.all()
		if gap := got[1].at.Sub(got[0].at); gap < 2*time.Second {
			t.Fatalf("second attempt %s after a Retry-After of 2 s", gap)
		}
	})

	t.Run("redirects are not followed", func(t *testing.T) {
		rc := newReceiver(t, ts.Credential(idp, sbx))
		rc.answer = func(n int, w http.ResponseWriter) bool {
			if n < 2 {
				w.Header().Set("Location", rc.srv.URL+"/elsewhere")
				w.WriteHeader(http.StatusFound)
				return true
			}
			return false
		}
		id := startVerification(t, c, rc.url())
		ev := waitState(t, ts, id, verifyd.WebhookDelivered)
		attempts, _ := ts.Store.WebhookAttempts(context.Background(), ev.ID)
		if len(attempts) != 3 || attempts[0].StatusCode != 302 {
			t.Fatalf("attempts: %+v", attempts)
		}
		for _, r := range rc.all() {
			if r.body == "" {
				t.Fatal("the redirect was followed")
			}
		}
	})
}

func TestWebhookGivesUpAndResends(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, MaxAttempts: 3, WebhookTimeout: 300 * time.Millisecond})
	c := newClient(t, ts, idp, sbx)
	rc := newReceiver(t, ts.Credential(idp, sbx))
	var healthy sync.Once
	fail := true
	var mu sync.Mutex
	rc.answer = func(n int, w http.ResponseWriter) bool {
		mu.Lock()
		defer mu.Unlock()
		if !fail {
			return false
		}
		if n == 0 {
			time.Sleep(time.Second) // longer than the attempt timeout
		}
		w.WriteHeader(http.StatusBadGateway)
		return true
	}
	id := startVerification(t, c, rc.url())
	ev := waitState(t, ts, id, verifyd.WebhookFailed)
	attempts, _ := ts.Store.WebhookAttempts(context.Background(), ev.ID)
	if len(attempts) != 3 || attempts[0].Error == "" || attempts[0].StatusCode != 0 || attempts[2].StatusCode != 502 {
		t.Fatalf("attempts: %+v", attempts)
	}
	// Stored in words (webhook.describe): the business sees it.
	if attempts[0].Error != "the receiver did not answer in time" {
		t.Fatalf("first attempt should have timed out: %q", attempts[0].Error)
	}
	healthy.Do(func() { mu.Lock(); fail = false; mu.Unlock() })
	if _, err := ts.Store.ResendWebhook(context.Background(), ev.ID); err != nil {
		t.Fatal(err)
	}
	ev = waitState(t, ts, id, verifyd.WebhookDelivered)
	if ev.Attempts != 4 || ev.DeliveredAt == nil {
		t.Fatalf("after resend: %+v", ev)
	}
}

// mutableResolver answers DNS from a map that the test may change.
type mutableResolver struct {
	mu   sync.Mutex
	addr map[string]netip.Addr
}

func (r *mutableResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.addr[host]; ok {
		return []netip.Addr{a}, nil
	}
	return testserver.StaticResolver{}.LookupNetIP(context.Background(), "ip", host)
}

func (r *mutableResolver) set(host, addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addr[host] = netip.MustParseAddr(addr)
}

// TestWebhookDNSRebinding: a webhook host that resolved to a public address
// at creation and to loopback at delivery is refused at connect time.
func TestWebhookDNSRebinding(t *testing.T) {
	t.Parallel()
	res := &mutableResolver{addr: map[string]netip.Addr{}}
	ts := testserver.Start(t, "sqlite", testserver.Options{Resolver: res, MaxAttempts: 2})
	rc := newReceiver(t, ts.Credential(idp, sbx))
	port := rc.srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	res.set("rebind.example.com", "93.184.216.34")
	c := newClient(t, ts, idp, sbx)
	id := startVerification(t, c, "http://rebind.example.com:"+strconv.Itoa(int(port))+"/hook")
	res.set("rebind.example.com", "127.0.0.1")
	ev := waitState(t, ts, id, verifyd.WebhookFailed)
	if !strings.Contains(ev.LastError, "internal network") {
		t.Fatalf("last error %q", ev.LastError)
	}
	if len(rc.all()) != 0 {
		t.Fatal("a webhook reached the loopback receiver")
	}
}

// TestWebhookSignedWithCreatingKey: after the key that created a
// verification is rotated out, its webhooks are still signed with it.
func TestWebhookSignedWithCreatingKey(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	first := ts.Credential(idp, sbx)
	rc := newReceiver(t, first)
	c := newClient(t, ts, idp, sbx)
	id := c.send("POST", "/api/v1/identity-verification", createBody(newCustomerID(), rc.url(), "")).json(t)["id"].(string)
	second, err := ts.Tenants.CreateKey(context.Background(), ts.Business.ID, idp, sbx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Tenants.RevokeKey(context.Background(), first.APIKey); err != nil {
		t.Fatal(err)
	}
	c2 := &client{t: t, base: c.base, key: second.APIKey, secret: second.APISecret}
	if res := c2.send("POST", "/api/v1/sandbox/identity-verification/"+id+"/simulate", map[string]string{"status": "started"}); res.status != 200 {
		t.Fatalf("simulate with the new key: %d %s", res.status, res.raw)
	}
	got := rc.waitFor("started", hasStatuses(id, "started:"))
	if got[0].key != first.APIKey {
		t.Fatalf("signed with %s, want the creating key %s", got[0].key, first.APIKey)
	}
}

// TestSlowReceiverDoesNotHoldOthersBack: a receiver that does not answer
// holds only its share of the queue's workers; events for another
// receiver are delivered meanwhile.
func TestSlowReceiverDoesNotHoldOthersBack(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	release := make(chan struct{})
	var slowCalls atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slowCalls.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	c := newClient(t, ts, idp, sbx)
	// More slow events than the queue has workers (10 on SQLite).
	for range 14 {
		startVerification(t, c, slow.URL+"/hook")
	}
	rc := newReceiver(t, ts.Credential(idp, sbx))
	var fast []string
	for range 3 {
		fast = append(fast, startVerification(t, c, rc.url()))
	}
	for _, id := range fast {
		rc.waitFor("a fast receiver's event while the slow one hangs", hasStatuses(id, "started:"))
	}
	if n := slowCalls.Load(); n > int32(webhook.DefaultPerDestination) {
		t.Errorf("the slow receiver had %d attempts in flight, want at most %d", n, webhook.DefaultPerDestination)
	}
}
