package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/queue"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/webhook"
)

var logger = slog.New(slog.DiscardHandler)

// fast makes retries and polling quick enough for tests.
var fast = queue.Config{
	PollInterval: 20 * time.Millisecond,
	Backoff:      func(int) time.Duration { return 50 * time.Millisecond },
}

// TestQueue runs every test on both dialects, each on a fresh database.
func TestQueue(t *testing.T) {
	t.Parallel()
	tests := map[string]func(*testing.T, *sqlstore.DB){
		"EnqueueTxCommitsWithTheTransaction": testEnqueueTx,
		"StoreChangesEnqueueInTheirTx":       testStoreEnqueues,
		"DeliversTransitionEvent":            testDeliversTransitionEvent,
		"RetriesFailedDelivery":              testRetriesFailedDelivery,
		"LastAttemptIsFinal":                 testLastAttemptIsFinal,
		"GaveUpIsNotRetried":                 testGaveUpIsNotRetried,
		"ExpiryRunsWhenDue":                  testExpiryRunsWhenDue,
		"NotDueSnoozes":                      testNotDueSnoozes,
	}
	runOnDialects(t, tests)
}

// TestSQLiteRescuesAtStart: a job a dead process left running runs as soon
// as the next process starts, not after the two-minute rescue delay.
func TestSQLiteRescuesAtStart(t *testing.T) {
	t.Parallel()
	db := openDB(t, "sqlite")
	newQueue(t, db, fast, nil) // enqueues only, like the process that died
	v := seed(t, db, "vrf_dead", time.Now().Add(time.Hour))
	if _, err := db.TransitionVerification(bounded(t), start(v.ID), "evt_dead"); err != nil {
		t.Fatalf("TransitionVerification: %v", err)
	}
	// The dead process had fetched it.
	if _, err := db.SQL().ExecContext(t.Context(), `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = CURRENT_TIMESTAMP`); err != nil {
		t.Fatal(err)
	}
	var deliveries, expiries calls
	cfg := fast
	cfg.RescueAfter = 2 * time.Minute
	newQueue(t, db, cfg, handlers(&deliveries, &expiries, nil, nil))
	deliveries.wait(t, 1, 10*time.Second)
	jobState(t, db, "webhook_delivery", "completed", 10*time.Second)
}

// TestStopIsBounded: a job that ignores its cancellation does not keep
// Stop (and so the process's shutdown) waiting forever: Stop returns
// about stopAndCancelGrace (5 s) after its context is done.
func TestStopIsBounded(t *testing.T) {
	t.Parallel()
	db := openDB(t, "sqlite")
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	h := &queue.Handlers{
		Deliver: func(context.Context, string, int, bool) error {
			started <- struct{}{}
			<-release // ignores the context, as a stuck job would
			return nil
		},
		Expire: func(context.Context, string) error { return nil },
	}
	cfg := fast
	cfg.Logger = logger
	q, err := queue.New(db, cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	db.SetEnqueuer(q)
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Let the stuck job go after the test, so that the database closes.
	t.Cleanup(func() { close(release) })
	v := seed(t, db, "vrf_stuck", time.Now().Add(time.Hour))
	if _, err := db.TransitionVerification(bounded(t), start(v.ID), "evt_stuck"); err != nil {
		t.Fatalf("TransitionVerification: %v", err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the delivery job did not start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan time.Duration, 1)
	begin := time.Now()
	go func() {
		_ = q.Stop(ctx)
		done <- time.Since(begin)
	}()
	select {
	case took := <-done:
		if took < 4*time.Second {
			t.Errorf("Stop returned after %s: it did not wait for the cancelled job at all", took)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not return 30 s after its context was done")
	}
}

// runOnDialects runs every test on both dialects, each on a fresh database
// (openDB), in parallel.
func runOnDialects(t *testing.T, tests map[string]func(*testing.T, *sqlstore.DB)) {
	t.Helper()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			if dialect == "postgres" && os.Getenv("VERIFYD_TEST_DATABASE_URL") == "" {
				testdb.Skip(t, "PostgreSQL tests need VERIFYD_TEST_DATABASE_URL "+
					"(e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)")
			}
			for name, test := range tests {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					test(t, openDB(t, dialect))
				})
			}
		})
	}
}

// openDB opens a fresh store with River's tables, closed when t ends.
func openDB(t *testing.T, dialect string) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(t.Context(), testdb.URL(t, dialect), logger)
	if err != nil {
		t.Fatalf("sqlstore.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := queue.Migrate(t.Context(), db); err != nil {
		t.Fatalf("queue.Migrate: %v", err)
	}
	// Migrating again is a no-op (every start of the service does it).
	if err := queue.Migrate(t.Context(), db); err != nil {
		t.Fatalf("second queue.Migrate: %v", err)
	}
	return db
}

// newQueue returns a queue on db that the store enqueues into; with
// handlers it is started, and stopped (before db closes) when t ends.
func newQueue(t *testing.T, db *sqlstore.DB, cfg queue.Config, h *queue.Handlers) *queue.Queue {
	t.Helper()
	cfg.Logger = logger
	q, err := queue.New(db, cfg, h)
	if err != nil {
		t.Fatalf("queue.New: %v", err)
	}
	db.SetEnqueuer(q)
	if h == nil {
		return q
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return q
}

// seed creates a business and a pending verification expiring at expires.
func seed(t *testing.T, db *sqlstore.DB, id string, expires time.Time) verifyd.Verification {
	t.Helper()
	ctx := bounded(t)
	now := time.Now().UTC()
	biz, key := "biz_"+id, "vdk_live_idv_"+id
	if err := db.CreateBusiness(ctx, verifyd.Business{ID: biz, Name: "Shop", CreatedAt: now},
		[]verifyd.StoredCredential{{Credential: verifyd.Credential{BusinessID: biz, Interface: verifyd.InterfaceIdentity,
			Environment: verifyd.EnvProduction, APIKey: key, CreatedAt: now}, SealedSecret: []byte("sealed")}}); err != nil {
		t.Fatalf("CreateBusiness: %v", err)
	}
	v := verifyd.Verification{ID: id, BusinessID: biz, Environment: verifyd.EnvProduction, APIKey: key,
		Customer: verifyd.Customer{ID: "cus_" + id, Email: "ada@example.com"}, Webhook: "https://shop.example/hook",
		Flow: verifyd.FlowHosted, Status: verifyd.StatusPending, CreatedAt: now, UpdatedAt: now, ExpiresAt: expires}
	if err := db.CreateVerification(ctx, v, nil); err != nil {
		t.Fatalf("CreateVerification: %v", err)
	}
	return v
}

func start(id string) verifyd.Transition {
	return verifyd.Transition{VerificationID: id, To: verifyd.StatusStarted, Cause: verifyd.CauseHostedOpened,
		At: time.Now()}
}

// riverJob is a row of River's job table.
type riverJob struct {
	Kind, Queue, State string
	Args               map[string]any
	Attempt            int
	MaxAttempts        int
	Errors             bool
}

// riverJobs reads River's job table, oldest first.
func riverJobs(t *testing.T, db *sqlstore.DB, kind string) []riverJob {
	t.Helper()
	// River's SQLite driver stores args as JSONB, which json() turns back
	// into text; PostgreSQL's jsonb casts to text.
	args := "CAST(args AS TEXT)"
	if db.Dialect() == sqlstore.SQLite {
		args = "json(args)"
	}
	rows, err := db.SQL().QueryContext(t.Context(), `SELECT kind, queue, state, `+args+`, attempt,
		max_attempts, errors IS NOT NULL FROM river_job WHERE kind = $1 ORDER BY id`, kind)
	if err != nil {
		t.Fatalf("read river_job: %v", err)
	}
	defer rows.Close()
	var out []riverJob
	for rows.Next() {
		var j riverJob
		var args string
		if err := rows.Scan(&j.Kind, &j.Queue, &j.State, &args, &j.Attempt, &j.MaxAttempts, &j.Errors); err != nil {
			t.Fatalf("read river_job: %v", err)
		}
		if err := json.Unmarshal([]byte(args), &j.Args); err != nil {
			t.Fatalf("river_job args %q: %v", args, err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read river_job: %v", err)
	}
	return out
}

// scheduledAt returns when River's only job of kind is due.
func scheduledAt(t *testing.T, db *sqlstore.DB, kind string) time.Time {
	t.Helper()
	var at time.Time
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT scheduled_at FROM river_job WHERE kind = $1`,
		kind).Scan(&at); err != nil {
		t.Fatalf("read scheduled_at: %v", err)
	}
	return at
}

// eventually waits until cond holds, failing the test after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// jobState waits until River's only job of kind is in state.
func jobState(t *testing.T, db *sqlstore.DB, kind, state string, timeout time.Duration) riverJob {
	t.Helper()
	var last []riverJob
	eventually(t, timeout, fmt.Sprintf("%s job is not %s: %+v", kind, state, &last), func() bool {
		last = riverJobs(t, db, kind)
		return len(last) == 1 && last[0].State == state
	})
	return last[0]
}

// call is one handler invocation.
type call struct {
	subject string
	attempt int
	final   bool
	at      time.Time
}

// calls records handler invocations.
type calls struct {
	mu   sync.Mutex
	list []call
}

func (c *calls) add(cl call) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl.at = time.Now()
	c.list = append(c.list, cl)
	return len(c.list)
}

func (c *calls) get() []call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]call(nil), c.list...)
}

// wait waits for n calls.
func (c *calls) wait(t *testing.T, n int, timeout time.Duration) []call {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("want %d handler calls, have %d", n, len(c.get())), func() bool {
		return len(c.get()) >= n
	})
	return c.get()
}

// handlers returns handlers that record their calls and answer with
// deliver and expire (nil: succeed).
func handlers(deliveries, expiries *calls, deliver func(n int) error, expire func(n int) error) *queue.Handlers {
	return &queue.Handlers{
		Deliver: func(_ context.Context, eventID string, attempt int, final bool) error {
			n := deliveries.add(call{subject: eventID, attempt: attempt, final: final})
			if deliver == nil {
				return nil
			}
			return deliver(n)
		},
		Expire: func(_ context.Context, id string) error {
			n := expiries.add(call{subject: id})
			if expire == nil {
				return nil
			}
			return expire(n)
		},
	}
}

func assertCalls(t *testing.T, what string, got []call, want []call) {
	t.Helper()
	strip := func(cs []call) []call {
		out := make([]call, len(cs))
		for i, c := range cs {
			out[i] = call{subject: c.subject, attempt: c.attempt, final: c.final}
		}
		return out
	}
	if g, w := strip(got), strip(want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: handler calls %+v, want %+v", what, g, w)
	}
}

// bounded returns a context that fails a call stuck waiting for a
// connection: on SQLite the transaction holds the only one, so a job
// inserted outside it would wait forever.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func testEnqueueTx(t *testing.T, db *sqlstore.DB) {
	ctx := bounded(t)
	q := newQueue(t, db, queue.Config{}, nil) // insert-only, as the CLI uses it

	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.EnqueueTx(ctx, tx, sqlstore.Job{Kind: sqlstore.JobDeliverWebhook, Subject: "evt_rolled_back"}); err != nil {
		t.Fatalf("EnqueueTx: %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if jobs := riverJobs(t, db, "webhook_delivery"); len(jobs) != 0 {
		t.Errorf("a job enqueued in a rolled-back transaction exists: %+v", jobs)
	}

	runAt := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	tx, err = db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.EnqueueTx(ctx, tx,
		sqlstore.Job{Kind: sqlstore.JobDeliverWebhook, Subject: "evt_committed"},
		sqlstore.Job{Kind: sqlstore.JobExpireVerification, Subject: "vrf_committed", RunAt: runAt},
	); err != nil {
		t.Fatalf("EnqueueTx: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []riverJob{{Kind: "webhook_delivery", Queue: "webhooks", State: "available",
		Args: map[string]any{"event_id": "evt_committed"}, MaxAttempts: webhook.MaxAttempts}}
	if got := riverJobs(t, db, "webhook_delivery"); !reflect.DeepEqual(got, want) {
		t.Errorf("delivery jobs after commit:\n\tgot  %+v\n\twant %+v", got, want)
	}
	want = []riverJob{{Kind: "verification_expiry", Queue: "lifecycle", State: "scheduled",
		Args: map[string]any{"verification_id": "vrf_committed"}, MaxAttempts: 25}}
	if got := riverJobs(t, db, "verification_expiry"); !reflect.DeepEqual(got, want) {
		t.Errorf("expiry jobs after commit:\n\tgot  %+v\n\twant %+v", got, want)
	}
	if got := scheduledAt(t, db, "verification_expiry"); !got.Equal(runAt) {
		t.Errorf("expiry job scheduled at %s, want %s", got, runAt)
	}

	tx, err = db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := q.EnqueueTx(ctx, tx, sqlstore.Job{Kind: "reticulate_splines", Subject: "x"}); err == nil {
		t.Error("EnqueueTx of an unknown job kind succeeded")
	}
	if err := q.EnqueueTx(ctx, tx); err != nil {
		t.Errorf("EnqueueTx of no jobs: %v", err)
	}
}

// testStoreEnqueues checks the store and the real queue together: a change
// and its job commit, or roll back, together.
func testStoreEnqueues(t *testing.T, db *sqlstore.DB) {
	ctx := bounded(t)
	newQueue(t, db, queue.Config{}, nil)
	expires := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	v := seed(t, db, "vrf_store", expires)
	if got := riverJobs(t, db, "verification_expiry"); len(got) != 1 ||
		got[0].Args["verification_id"] != v.ID || got[0].State != "scheduled" {
		t.Errorf("expiry jobs after CreateVerification: %+v, want one scheduled for %s", got, v.ID)
	} else if at := scheduledAt(t, db, "verification_expiry"); !at.Equal(expires) {
		t.Errorf("expiry job scheduled at %s, want the due time %s", at, expires)
	}
	if _, err := db.TransitionVerification(ctx, start(v.ID), "evt_store"); err != nil {
		t.Fatalf("TransitionVerification: %v", err)
	}
	// Refused: pending is not reachable from started.
	_, err := db.TransitionVerification(ctx, verifyd.Transition{VerificationID: v.ID, To: verifyd.StatusPending,
		At: time.Now()}, "evt_refused")
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Errorf("refused transition: got %v, want a conflict", err)
	}
	got := riverJobs(t, db, "webhook_delivery")
	if len(got) != 1 || got[0].Args["event_id"] != "evt_store" {
		t.Errorf("delivery jobs after one transition and one refused: %+v, want one for evt_store", got)
	}
}

func testDeliversTransitionEvent(t *testing.T, db *sqlstore.DB) {
	var deliveries, expiries calls
	newQueue(t, db, fast, handlers(&deliveries, &expiries, nil, nil))
	v := seed(t, db, "vrf_deliver", time.Now().Add(time.Hour))
	if _, err := db.TransitionVerification(bounded(t), start(v.ID), "evt_deliver"); err != nil {
		t.Fatalf("TransitionVerification: %v", err)
	}
	got := deliveries.wait(t, 1, 10*time.Second)
	jobState(t, db, "webhook_delivery", "completed", 10*time.Second)
	assertCalls(t, "delivery of a transition's event", deliveries.get(), []call{{subject: "evt_deliver", attempt: 1}})
	if len(got) > 0 && got[0].final {
		t.Error("first of 20 attempts is marked final")
	}
	if n := len(expiries.get()); n != 0 {
		t.Errorf("an expiry due in an hour ran %d times", n)
	}
}

func testRetriesFailedDelivery(t *testing.T, db *sqlstore.DB) {
	var deliveries, expiries calls
	var mu sync.Mutex
	var backoffs []int
	cfg := fast
	cfg.Backoff = func(attempt int) time.Duration {
		mu.Lock()
		defer mu.Unlock()
		backoffs = append(backoffs, attempt)
		return fast.Backoff(attempt)
	}
	newQueue(t, db, cfg, handlers(&deliveries, &expiries, func(n int) error {
		if n < 3 {
			return fmt.Errorf("HTTP 503 on attempt %d", n)
		}
		return nil
	}, nil))
	v := seed(t, db, "vrf_retry", time.Now().Add(time.Hour))
	if _, err := db.TransitionVerification(bounded(t), start(v.ID), "evt_retry"); err != nil {
		t.Fatalf("TransitionVerification: %v", err)
	}
	got := deliveries.wait(t, 3, 10*time.Second)
	job := jobState(t, db, "webhook_delivery", "completed", 10*time.Second)
	assertCalls(t, "failing twice, then succeeding", deliveries.get(), []call{
		{subject: "evt_retry", attempt: 1}, {subject: "evt_retry", attempt: 2}, {subject: "evt_retry", attempt: 3},
	})
	// River's SQLite driver keeps times to the millisecond and compares them
	// with the wall clock, so a retry may start up to 1ms before a gap measured
	// on the monotonic clock reaches the backoff (CI saw 49.94ms once).
	const resolution = time.Millisecond
	for i := 1; i < len(got); i++ {
		if gap := got[i].at.Sub(got[i-1].at); gap < 50*time.Millisecond-resolution {
			t.Errorf("attempt %d ran %s after attempt %d, before the 50ms backoff", i+1, gap, i)
		}
	}
	if job.Attempt != 3 || !job.Errors {
		t.Errorf("job after two failures and a success: attempt %d, errors recorded %v; want 3, true", job.Attempt, job.Errors)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(backoffs, []int{1, 2}) {
		t.Errorf("Config.Backoff asked for attempts %v, want [1 2] (after each failure)", backoffs)
	}
}

func testLastAttemptIsFinal(t *testing.T, db *sqlstore.DB) {
	var deliveries, expiries calls
	cfg := fast
	cfg.MaxAttempts = 2
	newQueue(t, db, cfg, handlers(&deliveries, &expiries, func(int) error { return errors.New("HTTP 500") }, nil))
	v := seed(t, db, "vrf_final", time.Now().Add(time.Hour))
	if _, err := db.TransitionVerification(bounded(t), start(v.ID), "evt_final"); err != nil {
		t.Fatalf("TransitionVerification: %v", err)
	}
	deliveries.wait(t, 2, 10*time.Second)
	jobState(t, db, "webhook_delivery", "discarded", 10*time.Second)
	time.Sleep(200 * time.Millisecond)
	assertCalls(t, "every attempt failing, MaxAttempts 2", deliveries.get(), []call{
		{subject: "evt_final", attempt: 1}, {subject: "evt_final", attempt: 2, final: true},
	})
}

func testGaveUpIsNotRetried(t *testing.T, db *sqlstore.DB) {
	var deliveries, expiries calls
	newQueue(t, db, fast, handlers(&deliveries, &expiries, func(int) error {
		return fmt.Errorf("deliver evt_gone: %w", fmt.Errorf("%w: HTTP 410 Gone", webhook.ErrGaveUp))
	}, nil))
	v := seed(t, db, "vrf_gone", time.Now().Add(time.Hour))
	if _, err := db.TransitionVerification(bounded(t), start(v.ID), "evt_gone"); err != nil {
		t.Fatalf("TransitionVerification: %v", err)
	}
	deliveries.wait(t, 1, 10*time.Second)
	jobState(t, db, "webhook_delivery", "cancelled", 10*time.Second)
	time.Sleep(200 * time.Millisecond) // four backoffs: a retry would have run
	assertCalls(t, "a delivery that gave up", deliveries.get(), []call{{subject: "evt_gone", attempt: 1}})
}

func testExpiryRunsWhenDue(t *testing.T, db *sqlstore.DB) {
	var deliveries, expiries calls
	newQueue(t, db, fast, handlers(&deliveries, &expiries, nil, nil))
	due := time.Now().Add(300 * time.Millisecond)
	v := seed(t, db, "vrf_due", due)
	got := expiries.wait(t, 1, 20*time.Second)
	jobState(t, db, "verification_expiry", "completed", 10*time.Second)
	assertCalls(t, "expiry", expiries.get(), []call{{subject: v.ID}})
	// River keeps microseconds; allow for the rounding of the due time.
	if early := due.Sub(got[0].at); early > time.Millisecond {
		t.Errorf("expiry ran %s before the verification was due", early)
	}
}

// notDue is the expiry handler's "not yet" (identity.NotDueError).
type notDue struct{ until time.Time }

func (e notDue) Error() string          { return "not due until " + e.until.Format(time.RFC3339Nano) }
func (e notDue) NotDueUntil() time.Time { return e.until }

func testNotDueSnoozes(t *testing.T, db *sqlstore.DB) {
	var deliveries, expiries calls
	var mu sync.Mutex
	var until time.Time
	newQueue(t, db, fast, handlers(&deliveries, &expiries, nil, func(n int) error {
		if n > 1 {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		until = time.Now().Add(300 * time.Millisecond)
		return fmt.Errorf("expire: %w", notDue{until})
	}))
	v := seed(t, db, "vrf_snooze", time.Now()) // due at once
	got := expiries.wait(t, 2, 10*time.Second)
	job := jobState(t, db, "verification_expiry", "completed", 10*time.Second)
	time.Sleep(100 * time.Millisecond)
	assertCalls(t, "expiry that was not due at first", expiries.get(), []call{{subject: v.ID}, {subject: v.ID}})
	mu.Lock()
	defer mu.Unlock()
	if early := until.Sub(got[1].at); early > time.Millisecond {
		t.Errorf("snoozed expiry ran again %s before the time it asked for", early)
	}
	// A snooze is not a failure: no attempt used, no error recorded.
	if job.Attempt != 1 || job.Errors {
		t.Errorf("job after a snooze: attempt %d, errors recorded %v; want 1, false", job.Attempt, job.Errors)
	}
}

// TestProcessTimeoutIsTheRescueDelay: a pipeline run may take as long as
// the rescue delay, not only the 30 s a webhook job gets. The liveness
// challenge's face models on forty frames took longer than 30 s on a busy
// two-core machine, and every run was cancelled until the verification
// failed with idv_error (seen in CI).
func TestProcessTimeoutIsTheRescueDelay(t *testing.T) {
	t.Parallel()
	db := openDB(t, "sqlite")
	deadline := make(chan time.Duration, 1)
	h := &queue.Handlers{
		Deliver: func(context.Context, string, int, bool) error { return nil },
		Expire:  func(context.Context, string) error { return nil },
		Process: func(ctx context.Context, _ string, _ int, _ bool) error {
			d, ok := ctx.Deadline()
			if !ok {
				d = time.Now().Add(time.Hour)
			}
			deadline <- time.Until(d)
			return nil
		},
	}
	cfg := fast
	cfg.RescueAfter = 2 * time.Minute
	q := newQueue(t, db, cfg, h)
	tx, err := db.SQL().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.EnqueueTx(t.Context(), tx, sqlstore.Job{Kind: sqlstore.JobProcessVerification, Subject: "vrf_slow"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case left := <-deadline:
		if left < 90*time.Second || left > 2*time.Minute {
			t.Fatalf("a pipeline run gets %s; want the rescue delay (2 min), not the webhook jobs' %s", left, webhook.AttemptTimeout+20*time.Second)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the process job did not run")
	}
}
