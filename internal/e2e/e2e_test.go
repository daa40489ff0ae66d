package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/sdk"
)

var failReasons = []sdk.Reason{sdk.ReasonMinor, sdk.ReasonPotentialFraud, sdk.ReasonLivenessError,
	sdk.ReasonExpiredID, sdk.ReasonPhotoMismatch}

// TestCrashLosesNothing kills the server (SIGKILL) while webhook deliveries
// are in flight or waiting for a retry, restarts it on the same database,
// and checks that every acknowledged change is durable and every status
// change is delivered at least once, under one event id.
func TestCrashLosesNothing(t *testing.T) {
	t.Parallel()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			testCrash(t, dialect)
		})
	}
}

func testCrash(t *testing.T, dialect string) {
	const n = 40
	ctx := context.Background()
	d := newDeployment(t, dialect)
	biz := d.createBusiness(t, "crash-"+dialect)
	cred := biz.cred(t, "identity", "sandbox")
	rcv := newReceiver(t, cred)
	// Slow answers keep deliveries in flight; while the first server runs,
	// about half of the events fail their first attempt at once, so they
	// wait for a retry when it dies.
	rcv.delay.Store(int64(3 * time.Second))
	rcv.failing.Store(true)

	first := d.startServer(t, "first")
	cl := first.identityClient(t, cred)

	exp := make([]expected, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var apiErrs []error
	work := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range work {
				e, err := driveToFinal(ctx, cl, i, rcv.url())
				mu.Lock()
				exp[i] = e
				if err != nil {
					apiErrs = append(apiErrs, err)
				}
				mu.Unlock()
			}
		})
	}
	apiStart := time.Now()
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if len(apiErrs) > 0 {
		t.Fatalf("API calls failed: %v", apiErrs)
	}
	t.Logf("%d verifications, %d acknowledged API calls in %s", n, 3*n, time.Since(apiStart).Round(time.Millisecond))

	// Kill while deliveries are in flight, preferably once a few have been
	// answered (a crash between the answer and its record gives duplicates).
	waitFor(5*time.Second, 10*time.Millisecond, func() bool {
		first.checkAlive(t)
		return outcomes(rcv.snapshot())["ok"] >= 3 && rcv.inFlight.Load() >= 2
	})
	if !waitFor(5*time.Second, 10*time.Millisecond, func() bool { return rcv.inFlight.Load() >= 2 }) {
		t.Fatalf("no webhook deliveries in flight before the kill")
	}
	inFlight := rcv.inFlight.Load()
	first.kill()
	killedAt := time.Now()
	rcv.failing.Store(false)
	reachedAtKill, total := countReached(exp, rcv.okStatuses())
	// The receiver sees the killed server's connections close.
	waitFor(2*time.Second, 20*time.Millisecond, func() bool { return outcomes(rcv.snapshot())["aborted"] > 0 })
	atKill := outcomes(rcv.snapshot())
	t.Logf("SIGKILL after %s: %d deliveries in flight, %d of %d status changes delivered (receiver outcomes so far: %v)",
		killedAt.Sub(apiStart).Round(time.Millisecond), inFlight, reachedAtKill, total, atKill)
	if reachedAtKill >= total {
		t.Fatalf("the receiver had every event before the kill: the test proves nothing")
	}
	if atKill["aborted"] == 0 {
		t.Fatalf("no delivery was cut off by the kill: the test proves nothing")
	}

	// Restart on the same database; answer quickly from now on.
	rcv.delay.Store(int64(100 * time.Millisecond))
	second := d.startServer(t, "second")
	cl2 := second.identityClient(t, cred)

	const budget = 120 * time.Second
	var reached int
	ok := waitFor(budget, 250*time.Millisecond, func() bool {
		second.checkAlive(t)
		reached, _ = countReached(exp, rcv.okStatuses())
		return reached == total
	})
	allAt := time.Since(killedAt)
	if !ok {
		t.Errorf("after %s only %d of %d status changes delivered", budget, reached, total)
	}
	var pending []webhookEvent
	ok = waitFor(budget-allAt, time.Second, func() bool {
		second.checkAlive(t)
		pending = d.webhooks(t, "pending")
		return len(pending) == 0
	})
	if !ok {
		t.Errorf("webhook events still pending %s after the kill: %+v", time.Since(killedAt).Round(time.Second), pending)
	}
	if !t.Failed() {
		t.Logf("every status change delivered %s after the kill; no event pending %s after the kill",
			allAt.Round(time.Millisecond), time.Since(killedAt).Round(time.Millisecond))
	}

	// Every acknowledged change is durable.
	for _, e := range exp {
		v, err := cl2.Identity().Get(ctx, e.id)
		if err != nil {
			t.Errorf("B3 %s: %v", e.id, err)
			continue
		}
		if string(v.Status) != e.final || string(v.Reason) != e.reason {
			t.Errorf("B3 %s: status %s reason %q, want %s %q", e.id, v.Status, v.Reason, e.final, e.reason)
		}
	}

	got := rcv.snapshot()
	dups, ids := checkDeliveries(t, exp, got)
	// The receiver saw exactly the events the server recorded, all delivered.
	all := d.webhooks(t, "")
	if len(all) != total {
		t.Errorf("server recorded %d webhook events, want %d", len(all), total)
	}
	for _, ev := range all {
		if _, seen := ids[ev.ID]; !seen {
			t.Errorf("server event %s (%s) never reached the receiver", ev.ID, ev.Payload)
		}
		if ev.State != "delivered" {
			t.Errorf("server event %s is %s, want delivered (last error %q)", ev.ID, ev.State, ev.LastError)
		}
	}
	t.Logf("receiver: %d requests %v; %d distinct events; duplicate 2xx deliveries (allowed, at least once): %d %v",
		len(got), outcomes(got), len(ids), sum(dups), dups)

	for _, rec := range second.logLines(t, "maintenance.JobRescuer: Ran successfully") {
		at, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(rec["time"]))
		t.Logf("restarted server rescued %v stuck delivery jobs %s after the kill",
			rec["num_jobs_retry_scheduled"], at.Sub(killedAt).Round(time.Millisecond))
	}
	second.stop(t)
}

// driveToFinal creates verification i and moves it to started, then to
// approved (even i) or failed with a reason (odd i).
func driveToFinal(ctx context.Context, cl *sdk.Client, i int, hook string) (expected, error) {
	e := expected{customerID: uuid.NewString(), final: string(sdk.StatusApproved)}
	if i%2 == 1 {
		e.final, e.reason = string(sdk.StatusFailed), string(failReasons[i/2%len(failReasons)])
	}
	e.statuses = []string{string(sdk.StatusStarted), e.final}
	created, err := cl.Identity().Create(ctx, sdk.CreateRequest{
		Customer: sdk.Customer{ID: e.customerID, Email: fmt.Sprintf("user%d@example.com", i)}, Webhook: hook})
	if err != nil {
		return e, fmt.Errorf("create %d: %w", i, err)
	}
	e.id = created.ID
	if v, err := cl.Sandbox().Simulate(ctx, e.id, sdk.StatusStarted, sdk.ReasonNone); err != nil || v.Status != sdk.StatusStarted {
		return e, fmt.Errorf("simulate started %s: %v %+v", e.id, err, v)
	}
	v, err := cl.Sandbox().Simulate(ctx, e.id, sdk.Status(e.final), sdk.Reason(e.reason))
	if err != nil || string(v.Status) != e.final || string(v.Reason) != e.reason {
		return e, fmt.Errorf("simulate %s %s: %v %+v", e.final, e.id, err, v)
	}
	return e, nil
}

// TestTwoReplicasExactlyOnce runs two servers on one PostgreSQL database:
// verifications are changed through both, expiry jobs for the same
// verification run on both, and every status change must happen once and
// be notified under one event id.
func TestTwoReplicasExactlyOnce(t *testing.T) {
	t.Parallel()
	const n = 30
	ctx := context.Background()
	d := newDeployment(t, "postgres")
	biz := d.createBusiness(t, "replicas")
	cred := biz.cred(t, "identity", "sandbox")
	rcv := newReceiver(t, cred)
	rcv.delay.Store(int64(50 * time.Millisecond))

	// Both replicas poll for jobs; with equal intervals their phases stay
	// locked and whichever polls just before the other gets nearly every
	// job. Slightly different intervals let the phases drift, so both
	// get a share and the per-replica check below is reliable.
	replicas := []*server{d.startServer(t, "a"), d.startServerPoll(t, "b", 35*time.Millisecond)}
	clients := []*sdk.Client{replicas[0].identityClient(t, cred), replicas[1].identityClient(t, cred)}

	exp := make([]expected, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var apiErrs []error
	fail := func(err error) {
		mu.Lock()
		apiErrs = append(apiErrs, err)
		mu.Unlock()
	}
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			e := expected{customerID: uuid.NewString()}
			created, err := clients[i%2].Identity().Create(ctx, sdk.CreateRequest{
				Customer: sdk.Customer{ID: e.customerID, Email: fmt.Sprintf("r%d@example.com", i)}, Webhook: rcv.url()})
			if err != nil {
				fail(fmt.Errorf("create %d: %w", i, err))
				return
			}
			e.id = created.ID
			if i < n/2 {
				// started on A, approved on B
				e.final, e.statuses = string(sdk.StatusApproved), []string{string(sdk.StatusStarted), string(sdk.StatusApproved)}
				if _, err := clients[0].Sandbox().Simulate(ctx, e.id, sdk.StatusStarted, ""); err != nil {
					fail(fmt.Errorf("simulate started %s on a: %w", e.id, err))
				} else if _, err := clients[1].Sandbox().Simulate(ctx, e.id, sdk.StatusApproved, ""); err != nil {
					fail(fmt.Errorf("simulate approved %s on b: %w", e.id, err))
				}
			} else {
				// Past the 5 days on one replica, and at the same time a
				// further second on the other: two expiry jobs, which both
				// replicas may run at once.
				e.final, e.statuses = string(sdk.StatusExpired), []string{string(sdk.StatusExpired)}
				var inner sync.WaitGroup
				for k, secs := range []int64{5*24*3600 + 1, 1} {
					inner.Go(func() {
						if _, err := clients[(i+k)%2].Sandbox().AdvanceTime(ctx, e.id, secs); err != nil {
							fail(fmt.Errorf("advance %s by %d s: %w", e.id, secs, err))
						}
					})
				}
				inner.Wait()
			}
			mu.Lock()
			exp[i] = e
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(apiErrs) > 0 {
		t.Fatalf("API calls failed: %v", apiErrs)
	}
	t.Logf("%d verifications driven through two replicas in %s", n, time.Since(start).Round(time.Millisecond))

	var reached, total int
	if !waitFor(60*time.Second, 100*time.Millisecond, func() bool {
		replicas[0].checkAlive(t)
		replicas[1].checkAlive(t)
		reached, total = countReached(exp, rcv.okStatuses())
		return reached == total
	}) {
		t.Errorf("after 60 s only %d of %d status changes delivered", reached, total)
	}
	var pending []webhookEvent
	if !waitFor(30*time.Second, 500*time.Millisecond, func() bool {
		pending = d.webhooks(t, "pending")
		return len(pending) == 0
	}) {
		t.Errorf("webhook events still pending: %+v", pending)
	}
	t.Logf("all %d status changes delivered %s after the start", total, time.Since(start).Round(time.Millisecond))
	// Expiry jobs that lost the race have nothing left to do; give a late
	// duplicate transition a chance to show up before looking.
	time.Sleep(500 * time.Millisecond)

	// The history holds each status change exactly once.
	shows := make([]verificationShow, n)
	var showErrs []error
	work := make(chan int)
	var sw sync.WaitGroup
	for range 4 {
		sw.Go(func() {
			for i := range work {
				b, err := d.run(ctx, "verification", "show", exp[i].id, "--json")
				if err == nil {
					err = json.Unmarshal(b, &shows[i])
				}
				if err != nil {
					mu.Lock()
					showErrs = append(showErrs, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	sw.Wait()
	if len(showErrs) > 0 {
		t.Fatalf("verification show: %v", showErrs)
	}
	for i, e := range exp {
		s := shows[i]
		if s.Verification.Status != e.final {
			t.Errorf("%s: status %s, want %s", e.id, s.Verification.Status, e.final)
		}
		to := map[string]int{}
		for _, h := range s.History {
			to[h.To]++
		}
		for _, st := range e.statuses {
			if to[st] != 1 {
				t.Errorf("%s: %d history entries to %s, want 1: %+v", e.id, to[st], st, s.History)
			}
		}
		for st, c := range to {
			if st != "pending" && !contains(e.statuses, st) {
				t.Errorf("%s: %d unexpected history entries to %s: %+v", e.id, c, st, s.History)
			}
		}
		if len(s.Webhooks) != len(e.statuses) {
			t.Errorf("%s: %d webhook events, want %d: %+v", e.id, len(s.Webhooks), len(e.statuses), s.Webhooks)
		}
		// B3 on either replica agrees.
		v, err := clients[i%2].Identity().Get(ctx, e.id)
		if err != nil || string(v.Status) != e.final {
			t.Errorf("B3 %s: %v %+v, want %s", e.id, err, v, e.final)
		}
	}

	got := rcv.snapshot()
	dups, ids := checkDeliveries(t, exp, got)
	t.Logf("receiver: %d requests %v; %d distinct events; duplicate 2xx deliveries (allowed): %d %v",
		len(got), outcomes(got), len(ids), sum(dups), dups)

	// Which replica delivered what, from their logs.
	perReplica := map[string]int{}
	byEvent := map[string][]string{}
	for _, r := range replicas {
		for _, rec := range r.logLines(t, "webhook delivered") {
			id, _ := rec["event_id"].(string)
			perReplica[r.name]++
			byEvent[id] = append(byEvent[id], r.name)
		}
	}
	var both []string
	for id, rs := range byEvent {
		if len(rs) > 1 {
			both = append(both, id)
		}
	}
	sort.Strings(both)
	t.Logf("\"webhook delivered\" log lines per replica: %v; events delivered more than once: %v", perReplica, both)
	for _, r := range replicas {
		if perReplica[r.name] == 0 {
			t.Errorf("replica %s delivered no webhook: the work was not shared", r.name)
		}
	}
	if len(byEvent) != total {
		t.Errorf("%d events logged as delivered, want %d", len(byEvent), total)
	}

	for _, r := range replicas {
		r.stop(t)
	}
}
