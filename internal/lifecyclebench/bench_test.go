package lifecyclebench_test

// Benchmarks of the verification lifecycle on both databases, with the
// production queue settings (see env_test.go). Run them with
// scripts/bench-lifecycle; docs/performance.md records results and how to
// read them.
//
// BenchmarkWebhookLatency and BenchmarkWebhookThroughput: b.N status
// changes (pending → started through identity.Service.Transition, which is
// what the sandbox simulate endpoint and the hosted page call), each
// committed with its webhook event and River delivery job, delivered by the
// real sender to a loopback receiver that checks the HMAC signature and
// answers 204. Reported: deliveries/s from the first change to the last
// receipt; p50/p99/max-ms of the latency from the change's commit (taken
// when Transition returns) to its receipt; commits/s. ns/op is wall time
// per delivery (1 / throughput).
//
// BenchmarkExpiry and BenchmarkExpiryFinished: verifications created
// through the identity service with the service clock set 5 days and a
// minute in the past, so they are all due when the queue starts; the timed
// region runs from starting the queue until the receiver has every
// "expired" webhook. The expiry jobs take the production path: inserted as
// River "scheduled" jobs, made available by River's scheduler (leader
// only, every 5 s), worked by the lifecycle queue, each expiry committing a
// webhook delivery job for the webhooks queue. ns/op is the time of one
// whole run: use -benchtime 1x. The finished verifications of
// BenchmarkExpiryFinished are created and approved through the identity
// service too; only their webhooks are marked delivered in SQL instead of
// being sent (markWebhooksDelivered).
//
// Every benchmark also reports cpu-ms/op, the CPU time of the timed region
// per operation (this process, plus the PostgreSQL server processes of the
// benchmark's database when the server is local), which is far steadier
// than wall time on a shared machine, and conn-wait-ms/op, the time spent
// waiting for a connection of the store's transaction pool (one connection
// on SQLite) per operation. Any warning or error the service logs fails the
// benchmark.

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/identity"
)

var (
	pace        = flag.Duration("pace", 10*time.Millisecond, "interval between status changes in BenchmarkWebhookLatency")
	burstConc   = flag.Int("burst-c", 8, "goroutines making status changes in BenchmarkWebhookThroughput")
	expiryN     = flag.Int("expiry-n", 2000, "verifications due at once in BenchmarkExpiry")
	finishedN   = flag.Int("expiry-finished", 2000, "finished verifications in the table in BenchmarkExpiryFinished's second case")
	finishedDue = flag.Int("expiry-finished-due", 2000, "verifications due at once in BenchmarkExpiryFinished")
)

// timer is the part of *testing.B that the scenarios use, so that
// TestScenarios can run them too.
type timer interface {
	StartTimer()
	StopTimer()
}

type noTimer struct{}

func (noTimer) StartTimer() {}
func (noTimer) StopTimer()  {}

// BenchmarkWebhookLatency makes one status change every -pace (10 ms: 100
// changes/s, well below capacity), so the latency is that of an idle queue:
// waiting for the next poll plus one delivery.
func BenchmarkWebhookLatency(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		e := newEnv(b, dialect)
		e.start(b)
		b.Run(pollName()+"/pace="+pace.String(), func(b *testing.B) {
			runDeliveries(b, b, e, b.N, 1, *pace).report(b)
		})
	})
}

// BenchmarkWebhookThroughput makes b.N status changes as fast as -burst-c
// goroutines can commit them.
func BenchmarkWebhookThroughput(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		e := newEnv(b, dialect)
		e.start(b)
		b.Run(fmt.Sprintf("%s/c=%d", pollName(), *burstConc), func(b *testing.B) {
			runDeliveries(b, b, e, b.N, *burstConc, 0).report(b)
		})
	})
}

type deliveryResult struct {
	n              int
	deliveriesPerS float64
	commitsPerS    float64
	lat            []time.Duration // sorted
	dups           int64
	cpu            time.Duration // CPU time of the timed region (see cpuSample)
	connWait       time.Duration // time spent waiting for a write connection
}

func (r deliveryResult) report(b *testing.B) {
	b.ReportMetric(r.deliveriesPerS, "deliveries/s")
	b.ReportMetric(r.commitsPerS, "commits/s")
	b.ReportMetric(ms(percentile(r.lat, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(r.lat, 99)), "p99-ms")
	b.ReportMetric(ms(r.lat[len(r.lat)-1]), "max-ms")
	b.ReportMetric(ms(r.cpu)/float64(r.n), "cpu-ms/op")
	b.ReportMetric(ms(r.connWait)/float64(r.n), "conn-wait-ms/op")
	if r.dups > 0 {
		b.ReportMetric(float64(r.dups), "duplicates")
	}
}

// runDeliveries creates n pending verifications (untimed), then makes each
// one started, on conc goroutines, one change per pace at most, and waits
// until the receiver has every "started" webhook.
func runDeliveries(tb testing.TB, tm timer, e *env, n, conc int, pace time.Duration) deliveryResult {
	tb.Helper()
	tm.StopTimer()
	ids, err := e.create(n)
	if err != nil {
		tb.Fatalf("creating verifications: %v", err)
	}
	base, dups := e.rc.n.Load(), e.rc.dups.Load()
	commits := make([]time.Time, n)
	cpu0, wait0 := e.cpu(context.Background()), e.db.SQL().Stats().WaitDuration
	tm.StartTimer()
	start := time.Now()
	err = parallel(n, conc, func(i int) error {
		if pace > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(i) * pace)))
		}
		_, err := e.app.Identity.Transition(context.Background(), verifyd.Transition{
			VerificationID: ids[i], To: verifyd.StatusStarted, Cause: verifyd.CauseSandboxControl})
		commits[i] = time.Now()
		return err
	})
	if err != nil {
		tm.StopTimer()
		tb.Fatalf("status change: %v", err)
	}
	err = e.rc.waitFor(base+int64(n), 2*time.Minute+time.Duration(n)*20*time.Millisecond)
	tm.StopTimer()
	if err != nil {
		tb.Fatal(err)
	}
	cpu, _ := cpuSince(cpu0, e.cpu(context.Background()))
	wait := e.db.SQL().Stats().WaitDuration - wait0
	e.checkLogs(tb)
	lat := make([]time.Duration, n)
	var last time.Time
	for i, id := range ids {
		got, ok := e.rc.at(id, verifyd.StatusStarted)
		if !ok {
			tb.Fatalf("no webhook for %s", id)
		}
		lat[i] = got.Sub(commits[i])
		if got.After(last) {
			last = got
		}
	}
	return deliveryResult{
		n:              n,
		deliveriesPerS: float64(n) / last.Sub(start).Seconds(),
		commitsPerS:    float64(n) / slices.MaxFunc(commits, time.Time.Compare).Sub(start).Seconds(),
		lat:            sortedCopy(lat),
		dups:           e.rc.dups.Load() - dups,
		cpu:            cpu,
		connWait:       wait,
	}
}

// BenchmarkAdvanceTimeExpiry measures the sandbox path to an expiry: one
// advance-time call (5 days) every -pace, each to a verification then due,
// and the latency from the call's return to the "expired" webhook.
func BenchmarkAdvanceTimeExpiry(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		e := newEnv(b, dialect)
		e.start(b)
		b.Run(pollName()+"/pace="+pace.String(), func(b *testing.B) {
			b.StopTimer()
			n := b.N
			ids, err := e.create(n)
			if err != nil {
				b.Fatal(err)
			}
			base := e.rc.n.Load()
			calls := make([]time.Time, n)
			b.StartTimer()
			start := time.Now()
			err = parallel(n, 1, func(i int) error {
				time.Sleep(time.Until(start.Add(time.Duration(i) * *pace)))
				_, err := e.app.Identity.AdvanceTime(context.Background(), e.cred, ids[i],
					identity.AdvanceTimeInput{Seconds: int64(verifyd.VerificationLifetime / time.Second)})
				calls[i] = time.Now()
				return err
			})
			if err != nil {
				b.Fatalf("advance-time: %v", err)
			}
			err = e.rc.waitFor(base+int64(n), time.Minute+time.Duration(n)*20*time.Millisecond)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			e.checkLogs(b)
			lat := make([]time.Duration, n)
			for i, id := range ids {
				got, _ := e.rc.at(id, verifyd.StatusExpired)
				lat[i] = got.Sub(calls[i])
			}
			lat = sortedCopy(lat)
			b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
			b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
			b.ReportMetric(ms(lat[n-1]), "max-ms")
		})
	})
}

// BenchmarkIdleQueue measures what an idle service costs: the CPU time
// per second of the process (and of its PostgreSQL backends) with the
// queue running and nothing to do, which is what a lower poll interval
// costs. Each op is one second.
func BenchmarkIdleQueue(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		e := newEnv(b, dialect)
		e.start(b)
		time.Sleep(6 * time.Second) // past River's staggered start-up
		b.Run(pollName(), func(b *testing.B) {
			cpu0 := e.cpu(context.Background())
			b.ResetTimer()
			for range b.N {
				time.Sleep(time.Second)
			}
			b.StopTimer()
			cpu, _ := cpuSince(cpu0, e.cpu(context.Background()))
			b.ReportMetric(ms(cpu)/float64(b.N), "cpu-ms/s")
			e.checkLogs(b)
		})
	})
}

// BenchmarkExpiry expires -expiry-n verifications due at once.
func BenchmarkExpiry(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		b.Run(fmt.Sprintf("%s/due=%d", pollName(), *expiryN), func(b *testing.B) {
			for range b.N {
				runExpiry(b, b, dialect, *expiryN, 0).report(b)
			}
		})
	})
}

// BenchmarkExpiryFinished expires -expiry-finished-due verifications due at
// once, first with no other verification in the database, then next to
// -expiry-finished approved ones: the expiry cost should not depend on them.
func BenchmarkExpiryFinished(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		for _, finished := range []int{0, *finishedN} {
			b.Run(fmt.Sprintf("%s/due=%d/finished=%d", pollName(), *finishedDue, finished), func(b *testing.B) {
				for range b.N {
					runExpiry(b, b, dialect, *finishedDue, finished).report(b)
				}
			})
		}
	})
}

type expiryResult struct {
	due int
	// since the queue started, sorted
	expiries, receipts []time.Duration
	// from expiry to receipt, sorted
	lag  []time.Duration
	dups int64
	cpu  time.Duration // CPU time of the timed region (see cpuSample)
	// time spent waiting for a write connection
	connWait time.Duration
}

func (r expiryResult) report(b *testing.B) {
	first, lastX := r.expiries[0], r.expiries[r.due-1]
	b.ReportMetric(first.Seconds(), "first-expiry-s")
	b.ReportMetric(lastX.Seconds(), "all-expired-s")
	b.ReportMetric(r.receipts[r.due-1].Seconds(), "all-received-s")
	if lastX > first {
		b.ReportMetric(float64(r.due-1)/(lastX-first).Seconds(), "expiries/s")
	}
	b.ReportMetric(ms(percentile(r.lag, 50)), "p50-lag-ms")
	b.ReportMetric(ms(percentile(r.lag, 99)), "p99-lag-ms")
	b.ReportMetric(ms(r.cpu)/float64(r.due), "cpu-ms/op")
	b.ReportMetric(ms(r.connWait)/float64(r.due), "conn-wait-ms/op")
	if r.dups > 0 {
		b.ReportMetric(float64(r.dups), "duplicates")
	}
}

// runExpiry creates finished approved verifications (their webhooks
// recorded as delivered), then due ones, starts the queue and waits for
// every due verification's "expired" webhook.
func runExpiry(tb testing.TB, tm timer, dialect string, due, finished int) expiryResult {
	tb.Helper()
	tm.StopTimer()
	ctx := context.Background()
	e := newEnv(tb, dialect)
	defer e.close()
	setup := time.Now()
	if finished > 0 {
		ids, err := e.create(finished)
		if err == nil {
			err = e.transitionAll(ids, verifyd.StatusStarted)
		}
		if err == nil {
			err = e.transitionAll(ids, verifyd.StatusApproved)
		}
		if err == nil {
			err = e.markWebhooksDelivered(ctx)
		}
		if err != nil {
			tb.Fatalf("setting up %d finished verifications: %v", finished, err)
		}
	}
	// Created 5 days and a minute ago: due a minute ago.
	e.clock.set(-(verifyd.VerificationLifetime + time.Minute))
	ids, err := e.create(due)
	e.clock.set(0)
	if err == nil {
		err = e.settle(ctx)
	}
	if err != nil {
		tb.Fatalf("creating due verifications: %v", err)
	}
	tb.Logf("%s: setup (%d finished, %d due) took %s", dialect, finished, due, time.Since(setup).Round(time.Millisecond))

	cpu0, wait0 := e.cpu(ctx), e.db.SQL().Stats().WaitDuration
	tm.StartTimer()
	start := time.Now()
	e.start(tb)
	err = e.rc.waitFor(int64(due), 2*time.Minute+time.Duration(due)*50*time.Millisecond)
	tm.StopTimer()
	if err != nil {
		tb.Fatal(err)
	}
	cpu, _ := cpuSince(cpu0, e.cpu(ctx))
	wait := e.db.SQL().Stats().WaitDuration - wait0
	e.checkLogs(tb)

	// When each expiry happened: its history entry's time (the service
	// clock, real time by then, read just before the expiring transaction).
	rows, err := e.db.SQL().QueryContext(ctx, `SELECT verification_id, at FROM verification_events
		WHERE to_status = 'expired'`)
	if err != nil {
		tb.Fatal(err)
	}
	expiredAt := map[string]time.Time{}
	for rows.Next() {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			tb.Fatal(err)
		}
		expiredAt[id] = time.UnixMicro(at)
	}
	if err := rows.Close(); err != nil {
		tb.Fatal(err)
	}
	if len(expiredAt) != due {
		tb.Fatalf("%d expiry history entries, want %d", len(expiredAt), due)
	}
	// The store agrees: every due verification expired, the finished ones
	// did not, and every webhook event is delivered.
	if n, err := e.count(ctx, `SELECT COUNT(*) FROM verifications WHERE status = 'expired'`); err != nil || n != due {
		tb.Fatalf("%d expired verifications (%v), want %d", n, err, due)
	}
	if n, err := e.count(ctx, `SELECT COUNT(*) FROM verifications WHERE status = 'approved'`); err != nil || n != finished {
		tb.Fatalf("%d approved verifications (%v), want %d", n, err, finished)
	}
	undelivered := `SELECT COUNT(*) FROM webhook_events WHERE state <> 'delivered'`
	if n, err := e.count(ctx, undelivered); err != nil || n != 0 {
		// The receiver has them all; the sender records the last attempts
		// just after.
		time.Sleep(2 * time.Second)
		if n, err = e.count(ctx, undelivered); err != nil || n != 0 {
			tb.Fatalf("%d webhook events not delivered (%v)", n, err)
		}
	}

	r := expiryResult{due: due, dups: e.rc.dups.Load(), cpu: cpu, connWait: wait}
	for _, id := range ids {
		x, ok := expiredAt[id]
		got, ok2 := e.rc.at(id, verifyd.StatusExpired)
		if !ok || !ok2 {
			tb.Fatalf("verification %s: expired %v, webhook received %v", id, ok, ok2)
		}
		r.expiries = append(r.expiries, x.Sub(start))
		r.receipts = append(r.receipts, got.Sub(start))
		r.lag = append(r.lag, got.Sub(x))
	}
	r.expiries, r.receipts, r.lag = sortedCopy(r.expiries), sortedCopy(r.receipts), sortedCopy(r.lag)
	// Progress over time, for the record (seconds since the queue started).
	var sb []byte
	for _, p := range []float64{1, 10, 25, 50, 75, 90, 100} {
		sb = fmt.Appendf(sb, " %g%%: expired %.1fs, received %.1fs;", p,
			percentile(r.expiries, p).Seconds(), percentile(r.receipts, p).Seconds())
	}
	tb.Logf("%s due=%d finished=%d:%s", dialect, due, finished, sb)
	return r
}

// TestScenarios runs each benchmark scenario once at a tiny size on each
// database, so that plain `go test` checks the harness (receiver, clock,
// fast-forward SQL, result checks).
func TestScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a few seconds")
	}
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, dialect)
			e.start(t)
			d := runDeliveries(t, noTimer{}, e, 20, 4, 0)
			if d.n != 20 || len(d.lat) != 20 || d.deliveriesPerS <= 0 {
				t.Fatalf("deliveries: %+v", d)
			}
			x := runExpiry(t, noTimer{}, dialect, 20, 10)
			if len(x.expiries) != 20 || len(x.receipts) != 20 || x.lag[0] < 0 {
				t.Fatalf("expiries: %+v", x)
			}
		})
	}
}
