package lifecyclebench_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/queue"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/signature"
	"github.com/verifyd/verifyd/sqlstore"
)

// Queue settings. Zero means the queue package's default, which is also
// what `verifyd serve` runs with (its --queue-poll-interval defaults to
// 100ms; the worker count has no flag): 100 ms polling, 10 workers per
// queue on SQLite, 50 on PostgreSQL. internal/testserver polls every 20 ms
// instead, which is why these benchmarks assemble the service themselves.
var (
	pollInterval = flag.Duration("poll-interval", 0, "queue poll interval (0: the default of `verifyd serve`, 100ms)")
	workers      = flag.Int("workers", 0, "workers per queue (0: the default, 10 on SQLite, 50 on PostgreSQL)")
)

// defaultPoll mirrors queue.Config's default, for sub-benchmark names only.
const defaultPoll = 100 * time.Millisecond

func pollName() string {
	p := *pollInterval
	if p == 0 {
		p = defaultPoll
	}
	return "poll=" + p.String()
}

// clock is the service's clock: real time plus an adjustable offset, so a
// benchmark can create verifications "5 days ago" and then let them expire
// on the real clock that River also uses.
type clock struct{ offset atomic.Int64 }

func (c *clock) Now() time.Time        { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) set(off time.Duration) { c.offset.Store(int64(off)) }

// logCounter is the service's logger: it keeps nothing below Warn and counts
// the rest (River job errors, failed deliveries, SQLITE_BUSY…), remembering
// the first few, so a benchmark can check that nothing went wrong.
type logCounter struct {
	s     *logState
	attrs string
}

type logState struct {
	n     atomic.Int64
	mu    sync.Mutex
	first []string
}

func (h logCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h logCounter) Handle(_ context.Context, r slog.Record) error {
	h.s.n.Add(1)
	var sb strings.Builder
	sb.WriteString(r.Level.String() + " " + r.Message + h.attrs)
	r.Attrs(func(a slog.Attr) bool { sb.WriteString(" " + a.String()); return true })
	h.s.mu.Lock()
	if len(h.s.first) < 5 {
		h.s.first = append(h.s.first, sb.String())
	}
	h.s.mu.Unlock()
	return nil
}

func (h logCounter) WithAttrs(as []slog.Attr) slog.Handler {
	for _, a := range as {
		h.attrs += " " + a.String()
	}
	return h
}

func (h logCounter) WithGroup(string) slog.Handler { return h }

// env is the real service (store, River queue with its workers, webhook
// sender) on a fresh database, with one business and a webhook receiver.
// There is no HTTP API in front: the benchmarks drive the identity service
// directly, which is what the API handlers call.
type env struct {
	dialect string
	db      *sqlstore.DB
	app     *app.App
	cred    verifyd.Credential // identity, sandbox
	rc      *receiver
	clock   *clock
	logs    *logState

	started   bool
	closeOnce sync.Once
	// localPostgres says the PostgreSQL server runs on this machine, so its
	// processes' CPU time can be read.
	localPostgres bool
}

// newEnv assembles the service as `verifyd serve --dev` does. The queue is
// not started: call start.
func newEnv(b testing.TB, dialect string) *env {
	b.Helper()
	ctx := context.Background()
	e := &env{dialect: dialect, clock: &clock{}, logs: &logState{}}
	logger := slog.New(logCounter{s: e.logs})
	dbURL := testdb.URL(b, dialect)
	if u, err := url.Parse(dbURL); err == nil && dialect == "postgres" {
		h := u.Hostname()
		e.localPostgres = h == "127.0.0.1" || h == "localhost" || h == "::1"
	}
	db, err := sqlstore.Open(ctx, dbURL, logger)
	if err != nil {
		b.Fatalf("open store: %v", err)
	}
	e.db = db
	b.Cleanup(e.close)
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	sealer, err := seal.New(key, rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	if err := sealer.Verify(ctx, db); err != nil {
		b.Fatal(err)
	}
	bases, err := httpapi.DefaultMounts("http://127.0.0.1:1")
	if err != nil {
		b.Fatal(err)
	}
	e.app, err = app.New(ctx, db, sealer, app.Config{
		BaseURLs: bases, Dev: true, Now: e.clock.Now, Rand: rand.Reader, Logger: logger,
		Registry: prometheus.NewRegistry(), Resolver: testserver.StaticResolver{},
		// As `verifyd serve`: only the poll interval (and the rescue delay,
		// irrelevant here) are set from flags; everything else is default,
		// including the production retry schedule.
		Queue: queue.Config{PollInterval: *pollInterval, Workers: *workers},
	})
	if err != nil {
		b.Fatalf("assemble: %v", err)
	}
	_, creds, err := e.app.Tenants.CreateBusiness(ctx, "Lifecycle benchmark")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range creds {
		if c.Interface == verifyd.InterfaceIdentity && c.Environment == verifyd.EnvSandbox {
			e.cred = c
		}
	}
	e.rc = newReceiver(e.cred)
	return e
}

func (e *env) start(b testing.TB) {
	b.Helper()
	if err := e.app.Start(context.Background()); err != nil {
		b.Fatalf("start queue: %v", err)
	}
	e.started = true
}

func (e *env) close() {
	e.closeOnce.Do(func() {
		if e.started {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			_ = e.app.Stop(ctx)
			cancel()
		}
		if e.rc != nil {
			e.rc.srv.Close()
		}
		e.db.Close()
	})
}

// checkLogs fails the benchmark if the service logged a warning or an error.
func (e *env) checkLogs(b testing.TB) {
	b.Helper()
	if n := e.logs.n.Load(); n > 0 {
		e.logs.mu.Lock()
		defer e.logs.mu.Unlock()
		b.Fatalf("the service logged %d warnings or errors, first: %s", n, strings.Join(e.logs.first, "\n"))
	}
}

// parallel runs fn(i) for i in [0, n) on conc goroutines and returns the
// first error.
func parallel(n, conc int, fn func(i int) error) error {
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		failure error
		stop    atomic.Bool
	)
	for range min(conc, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					errOnce.Do(func() { failure = fmt.Errorf("item %d: %w", i, err) })
					stop.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	return failure
}

// setupConcurrency is how many goroutines create verifications before a
// timed region: SQLite has one write connection, so more only queue.
func (e *env) setupConcurrency() int {
	if e.dialect == "sqlite" {
		return 4
	}
	return 16
}

// create makes n pending hosted verifications through the identity service
// (B1 without HTTP), webhooks to the receiver, and returns their ids.
func (e *env) create(n int) ([]string, error) {
	ids := make([]string, n)
	err := parallel(n, e.setupConcurrency(), func(i int) error {
		v, err := e.app.Identity.Create(context.Background(), e.cred, identity.CreateInput{
			Customer: verifyd.Customer{ID: uuid.NewString(), Email: "bench@example.com"},
			Webhook:  e.rc.url(),
		})
		ids[i] = v.ID
		return err
	})
	return ids, err
}

// transitionAll moves every verification to status.
func (e *env) transitionAll(ids []string, to verifyd.Status) error {
	return parallel(len(ids), e.setupConcurrency(), func(i int) error {
		_, err := e.app.Identity.Transition(context.Background(), verifyd.Transition{
			VerificationID: ids[i], To: to, Cause: verifyd.CauseSandboxControl})
		return err
	})
}

// markWebhooksDelivered fast-forwards the delivery of every pending webhook
// event while the queue is stopped: it records one successful attempt per
// event and completes the delivery jobs, leaving the tables as they are
// once everything has been delivered (River keeps completed jobs for 24
// hours). Benchmark setup only.
func (e *env) markWebhooksDelivered(ctx context.Context) error {
	if e.started {
		return errors.New("markWebhooksDelivered needs a stopped queue")
	}
	tx, err := e.db.SQL().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`UPDATE river_job SET state = 'completed', attempt = 1, attempted_at = scheduled_at,
			finalized_at = scheduled_at WHERE kind = 'webhook_delivery' AND state = 'available'`,
		`INSERT INTO webhook_attempts (event_id, attempt, at, status_code, latency_us, error)
			SELECT id, 1, created_at, 204, 1000, '' FROM webhook_events WHERE state = 'pending'`,
		`UPDATE webhook_events SET state = 'delivered', attempts = 1, delivered_at = created_at + 1000
			WHERE state = 'pending'`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return tx.Commit()
}

// settle ends the after-effects of a bulk setup before a timed region, the
// same way whatever the setup was: on PostgreSQL it does what autovacuum
// would have done long before in service (VACUUM ANALYZE) and flushes the
// setup's dirty pages (CHECKPOINT); on SQLite it checkpoints the WAL.
func (e *env) settle(ctx context.Context) error {
	qs := []string{`PRAGMA wal_checkpoint(TRUNCATE)`}
	if e.dialect == "postgres" {
		qs = []string{`VACUUM ANALYZE`, `CHECKPOINT`}
	}
	for _, q := range qs {
		if _, err := e.db.SQL().ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func (e *env) count(ctx context.Context, query string, args ...any) (int, error) {
	var n int
	err := e.db.SQL().QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// cpuSample is CPU time used so far by this process (service, River,
// sender and receiver all run in it) and, on a PostgreSQL server on this
// machine, by the server processes connected to the benchmark's database.
// CPU time per operation is much steadier than wall time on a shared
// machine.
type cpuSample struct {
	proc     time.Duration
	backends map[int]time.Duration // pid → CPU time; nil if not measurable
}

func (e *env) cpu(ctx context.Context) cpuSample {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	s := cpuSample{proc: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	if e.dialect != "postgres" || !e.localPostgres {
		return s
	}
	rows, err := e.db.SQL().QueryContext(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		return s
	}
	defer rows.Close()
	s.backends = map[int]time.Duration{}
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) != nil {
			continue
		}
		if d, ok := procCPU(pid); ok {
			s.backends[pid] = d
		}
	}
	return s
}

// procCPU reads a process's user+system time from /proc (clock ticks of
// 10 ms, Linux's USER_HZ).
func procCPU(pid int) (time.Duration, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14, stime 15.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+st) * 10 * time.Millisecond, true
}

// cpuSince returns the CPU time used between two samples, and whether the
// database server's share is included.
func cpuSince(before, after cpuSample) (time.Duration, bool) {
	d := after.proc - before.proc
	if after.backends == nil {
		return d, false
	}
	for pid, t := range after.backends {
		d += t - before.backends[pid] // a new connection counts from zero
	}
	return d, true
}

// receiver is a webhook endpoint on loopback that checks every request's
// signature and answers 204, remembering when each (verification, status)
// notification first arrived.
type receiver struct {
	srv    *httptest.Server
	key    string
	secret string

	mu    sync.Mutex
	first map[string]time.Time // "id status" → first receipt
	n     atomic.Int64         // distinct notifications received
	dups  atomic.Int64         // repeated deliveries of one notification
	bad   atomic.Int64         // requests that failed the checks
	why   atomic.Value         // string: the first failure
}

func newReceiver(cred verifyd.Credential) *receiver {
	rc := &receiver{key: cred.APIKey, secret: cred.APISecret, first: map[string]time.Time{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	return rc
}

func (rc *receiver) url() string { return rc.srv.URL + "/hooks/verifyd" }

func (rc *receiver) fail(w http.ResponseWriter, format string, args ...any) {
	if rc.bad.Add(1) == 1 {
		rc.why.Store(fmt.Sprintf(format, args...))
	}
	w.WriteHeader(http.StatusBadRequest)
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rc.fail(w, "reading body: %v", err)
		return
	}
	key, sig, ok := signature.ParseHeader(r.Header.Get("Authorization"))
	if !ok || key != rc.key || !signature.Verify(rc.secret, body, sig) {
		rc.fail(w, "bad signature %q over %s", r.Header.Get("Authorization"), body)
		return
	}
	var p struct{ ID, Status string }
	if err := json.Unmarshal(body, &p); err != nil || p.ID == "" {
		rc.fail(w, "bad body %s", body)
		return
	}
	k := p.ID + " " + p.Status
	rc.mu.Lock()
	_, seen := rc.first[k]
	if !seen {
		rc.first[k] = at
	}
	rc.mu.Unlock()
	if seen {
		rc.dups.Add(1)
	} else {
		rc.n.Add(1)
	}
	w.WriteHeader(http.StatusNoContent)
}

// at returns when the notification of id reaching status first arrived.
func (rc *receiver) at(id string, status verifyd.Status) (time.Time, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	t, ok := rc.first[id+" "+string(status)]
	return t, ok
}

// waitFor waits until want distinct notifications have arrived in total.
func (rc *receiver) waitFor(want int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for rc.n.Load() < want {
		if rc.bad.Load() > 0 {
			return fmt.Errorf("receiver rejected %d webhooks, first: %v", rc.bad.Load(), rc.why.Load())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s: %d of %d webhooks received", timeout, rc.n.Load(), want)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

// percentile returns the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(float64(len(sorted))*p/100 + 0.999999)
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func sortedCopy(ds []time.Duration) []time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s
}

// eachDialect runs fn as sub-benchmark "<dialect>". PostgreSQL skips
// (through testdb) when VERIFYD_TEST_DATABASE_URL is unset; the skip is
// also printed on stdout, since without -v the testing package prints
// nothing for a skipped benchmark.
func eachDialect(b *testing.B, fn func(b *testing.B, dialect string)) {
	for _, d := range testdb.Dialects {
		b.Run(d, func(b *testing.B) {
			defer func() {
				if b.Skipped() && !testing.Verbose() {
					fmt.Printf("--- SKIP: %s: no %s database (PostgreSQL needs VERIFYD_TEST_DATABASE_URL; scripts/bench-lifecycle sets it)\n", b.Name(), d)
				}
			}()
			fn(b, d)
		})
	}
}
