// Package queue runs verifyd's durable background jobs on River
// (github.com/riverqueue/river): webhook deliveries, verification expiry,
// processing and the purge of decided internal verifications.
//
// Jobs live in the same database as the data they act on, and the store
// enqueues them inside the transaction that changes the data (EnqueueTx), so
// a status change is never committed without its notification, nor the
// reverse, and nothing is lost when the process dies.
//
// Every River module is pinned to one version (v0.51.2; v0.31.0 until
// 2026-11-25, when it was believed to be the last with an SQLite driver).
// Both drivers used here take database/sql, which has no LISTEN/NOTIFY:
// workers poll (Config.PollInterval).
package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/webhook"
)

// deliverArgs is the job that makes one webhook delivery attempt.
type deliverArgs struct {
	EventID string `json:"event_id"`
}

func (deliverArgs) Kind() string { return "webhook_delivery" }

// expireArgs is the job that expires a verification when it is due.
type expireArgs struct {
	VerificationID string `json:"verification_id"`
}

func (expireArgs) Kind() string { return "verification_expiry" }

// processArgs is the job that runs the verification pipeline on a
// submission.
type processArgs struct {
	VerificationID string `json:"verification_id"`
}

func (processArgs) Kind() string { return "verification_process" }

// purgeArgs is the job that deletes the images and identifying evidence of a
// finished verification (data minimisation, retention).
type purgeArgs struct {
	VerificationID string `json:"verification_id"`
}

func (purgeArgs) Kind() string { return "verification_purge" }

// PurgeAttempts is how often a purge is tried. A purge that keeps failing
// leaves data behind, so it is retried for long (River's backoff reaches
// days by then) and its errors are logged by River.
const PurgeAttempts = 25

// ProcessAttempts is how often a submission's processing job is tried:
// identity.MaxPipelineRuns runs of the pipeline, then attempts that only
// fail the verification with idv_error (two, in case that write fails).
const ProcessAttempts = 5

const (
	queueWebhooks  = "webhooks"
	queueLifecycle = "lifecycle"
)

// Handlers do the work of each job kind.
type Handlers struct {
	// Deliver makes one delivery attempt (webhook.Sender.Deliver).
	Deliver func(ctx context.Context, eventID string, attempt int, final bool) error
	// Expire expires a verification if it is due. An error with a
	// NotDueUntil() time.Time method means "not yet": the job runs again then.
	Expire func(ctx context.Context, verificationID string) error
	// Process runs the verification pipeline; final says it will not be
	// tried again, so a failure must be decided (idv_error) now.
	Process func(ctx context.Context, verificationID string, attempt int, final bool) error
	// Purge deletes the images and identifying evidence of a finished
	// verification; it must be idempotent (the job may run again). An
	// error with a NotDueUntil() time.Time method means "not yet" (the
	// retention of an identity-API verification is not over).
	Purge func(ctx context.Context, verificationID string) error
}

// Config configures the queue.
type Config struct {
	// PollInterval is how often idle workers look for due jobs. It bounds
	// the latency from a status change to its first delivery attempt.
	PollInterval time.Duration
	// Workers is how many jobs run at once (for each of the two queues).
	Workers int
	// RescueAfter is how long a job may stay running before it is assumed
	// lost with a crashed process and run again.
	RescueAfter time.Duration
	// RescueInterval is how often a replica on PostgreSQL looks for jobs
	// left running by replicas that died (liveness.go; 5 s when zero).
	RescueInterval time.Duration
	// MaxAttempts is how many delivery attempts an event gets
	// (webhook.MaxAttempts when zero).
	MaxAttempts int
	// Backoff is the delay after a failed attempt (webhook.Backoff with
	// jitter when nil). Tests shorten it.
	Backoff func(attempt int) time.Duration
	// ProcessBackoff is the delay before re-running a verification pipeline
	// that errored (5 s doubling when nil).
	ProcessBackoff func(attempt int) time.Duration
	Logger         *slog.Logger

	jobTimeout time.Duration // set by withDefaults
}

func (c Config) withDefaults(dialect sqlstore.Dialect) Config {
	if c.PollInterval == 0 {
		c.PollInterval = 100 * time.Millisecond
	}
	if c.Workers == 0 {
		c.Workers = 50
		if dialect == sqlstore.SQLite {
			// one connection: more workers only wait for it
			c.Workers = 10
		}
	}
	if c.RescueAfter == 0 {
		c.RescueAfter = 2 * time.Minute
	}
	if c.RescueInterval == 0 {
		c.RescueInterval = 5 * time.Second
	}
	// A job may not run longer than it takes to be assumed lost: River
	// refuses a rescue delay shorter than the job timeout, and a job still
	// running when it is rescued would run twice at once.
	c.jobTimeout = min(webhook.AttemptTimeout+20*time.Second, c.RescueAfter)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = webhook.MaxAttempts
	}
	if c.ProcessBackoff == nil {
		c.ProcessBackoff = func(attempt int) time.Duration { return 5 * time.Second << min(attempt-1, 4) }
	}
	if c.Backoff == nil {
		c.Backoff = func(attempt int) time.Duration { return webhook.Backoff(attempt, webhook.Jitter) }
	}
	return c
}

// Queue is the River client of this process.
type Queue struct {
	client *river.Client[*sql.Tx]
	cfg    Config
	db     *sqlstore.DB
	works  bool // built with handlers
	// id is the River client id of a working queue on PostgreSQL, and
	// live its liveness lock while started (liveness.go).
	id   string
	live *liveness
	// retryAfter remembers a receiver's Retry-After between a failed Work
	// call and River asking the same worker for the next retry time.
	retryAfter sync.Map // job id → time.Time
}

func driver(db *sqlstore.DB) riverdriver.Driver[*sql.Tx] {
	if db.Dialect() == sqlstore.SQLite {
		return riversqlite.New(db.SQL())
	}
	return riverdatabasesql.New(db.SQL())
}

// Migrate creates or upgrades River's tables.
func Migrate(ctx context.Context, db *sqlstore.DB) error {
	m, err := rivermigrate.New(driver(db), nil)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	return nil
}

// New returns a queue on db. With nil handlers it can only enqueue (the
// command-line tools use that); with handlers it also works jobs once
// started.
func New(db *sqlstore.DB, cfg Config, h *Handlers) (*Queue, error) {
	cfg = cfg.withDefaults(db.Dialect())
	q := &Queue{cfg: cfg, db: db, works: h != nil}
	rc := &river.Config{
		Logger:            cfg.Logger,
		PollOnly:          true,
		FetchPollInterval: cfg.PollInterval,
		// A short cooldown lets a busy queue fetch again as soon as workers
		// free up; with 100 ms each queue handled at most workers/100 ms.
		FetchCooldown:        min(cfg.PollInterval, 10*time.Millisecond),
		JobTimeout:           cfg.jobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		MaxAttempts:          cfg.MaxAttempts,
	}
	if h != nil {
		workers := river.NewWorkers()
		river.AddWorker(workers, &deliverWorker{q: q, deliver: h.Deliver})
		river.AddWorker(workers, &expireWorker{expire: h.Expire})
		river.AddWorker(workers, &processWorker{process: h.Process, backoff: cfg.ProcessBackoff, timeout: cfg.RescueAfter})
		river.AddWorker(workers, &purgeWorker{purge: h.Purge})
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{
			queueWebhooks:  {MaxWorkers: cfg.Workers},
			queueLifecycle: {MaxWorkers: cfg.Workers},
		}
		if db.Dialect() == sqlstore.Postgres {
			q.id = newClientID()
			rc.ID = q.id
		}
	}
	client, err := river.NewClient(driver(db), rc)
	if err != nil {
		return nil, err
	}
	q.client = client
	return q, nil
}

// Start starts working jobs.
//
// On SQLite only one serving process uses the database (several replicas
// need PostgreSQL, docs/operations.md), so a job still marked running at
// start was left by a process that died: it is made available at once.
// Otherwise it would wait RescueAfter plus River's rescue interval (about
// three minutes) before it runs again, and the verification's later
// webhooks behind it. On PostgreSQL another replica may be working the
// job: it is rescued only once the replica that fetched it is gone
// (liveness.go), or by River's rescuer.
func (q *Queue) Start(ctx context.Context) error {
	if q.works && q.id != "" && q.live == nil {
		l, err := q.startLiveness(ctx)
		if err != nil {
			return err
		}
		q.live = l
		if err := q.client.Start(ctx); err != nil {
			q.live.stop()
			q.live = nil
			return err
		}
		return nil
	}
	if q.works && q.db.Dialect() == sqlstore.SQLite {
		res, err := q.db.SQL().ExecContext(ctx, `UPDATE river_job SET state = 'available' WHERE state = 'running'`)
		if err != nil {
			return fmt.Errorf("rescue the jobs of a stopped process: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			q.cfg.Logger.InfoContext(ctx, "jobs left running by a stopped process made available", "jobs", n)
		}
	}
	return q.client.Start(ctx)
}

// stopAndCancelGrace bounds how long Stop waits, after ctx is done, for
// cancelled jobs to return. A job that ignores its cancellation, or River
// itself (its leader elector deadlocked on shutdown once in v0.31: a
// leadership notification sent, under the elector's lock, to a
// subscriber that was unsubscribing), would otherwise keep the process
// from exiting forever. Jobs left running are rescued at the next start
// (SQLite) or by another replica (PostgreSQL, liveness.go).
const stopAndCancelGrace = 5 * time.Second

// Stop waits for running jobs to finish, or until ctx is done; then it
// cancels them and waits stopAndCancelGrace more at most.
func (q *Queue) Stop(ctx context.Context) error {
	err := q.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopAndCancelGrace)
		err = q.client.StopAndCancel(cctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			q.cfg.Logger.WarnContext(ctx, "the job queue did not stop in time; jobs still running are run again after the restart",
				"grace", stopAndCancelGrace)
		}
	}
	if q.live != nil {
		q.live.stop()
		q.live = nil
	}
	return err
}

// EnqueueTx inserts jobs inside the caller's transaction; it implements
// sqlstore.Enqueuer.
func (q *Queue) EnqueueTx(ctx context.Context, tx *sql.Tx, jobs ...sqlstore.Job) error {
	params := make([]river.InsertManyParams, 0, len(jobs))
	now := time.Now()
	for _, j := range jobs {
		// River files any job with a scheduled time as "scheduled", which only
		// its scheduler (every 5 s) makes runnable: a job due now gets none.
		if !j.RunAt.After(now) {
			j.RunAt = time.Time{}
		}
		switch j.Kind {
		case sqlstore.JobDeliverWebhook:
			params = append(params, river.InsertManyParams{
				Args: deliverArgs{EventID: j.Subject},
				InsertOpts: &river.InsertOpts{Queue: queueWebhooks, MaxAttempts: q.cfg.MaxAttempts,
					ScheduledAt: j.RunAt},
			})
		case sqlstore.JobExpireVerification:
			params = append(params, river.InsertManyParams{
				Args:       expireArgs{VerificationID: j.Subject},
				InsertOpts: &river.InsertOpts{Queue: queueLifecycle, ScheduledAt: j.RunAt, MaxAttempts: 25},
			})
		case sqlstore.JobProcessVerification:
			params = append(params, river.InsertManyParams{
				Args:       processArgs{VerificationID: j.Subject},
				InsertOpts: &river.InsertOpts{Queue: queueLifecycle, ScheduledAt: j.RunAt, MaxAttempts: ProcessAttempts},
			})
		case sqlstore.JobPurgeVerification:
			params = append(params, river.InsertManyParams{
				Args:       purgeArgs{VerificationID: j.Subject},
				InsertOpts: &river.InsertOpts{Queue: queueLifecycle, ScheduledAt: j.RunAt, MaxAttempts: PurgeAttempts},
			})
		default:
			return fmt.Errorf("unknown job kind %q", j.Kind)
		}
	}
	if len(params) == 0 {
		return nil
	}
	_, err := q.client.InsertManyTx(ctx, tx, params)
	return err
}

type deliverWorker struct {
	river.WorkerDefaults[deliverArgs]
	q       *Queue
	deliver func(ctx context.Context, eventID string, attempt int, final bool) error
}

func (w *deliverWorker) Work(ctx context.Context, job *river.Job[deliverArgs]) error {
	err := w.deliver(ctx, job.Args.EventID, job.Attempt, job.Attempt >= job.MaxAttempts)
	if errors.Is(err, webhook.ErrGaveUp) {
		return river.JobCancel(err)
	}
	var wait *webhook.WaitError
	if errors.As(err, &wait) {
		return river.JobSnooze(wait.After)
	}
	var ra *webhook.RetryAfterError
	if errors.As(err, &ra) {
		w.q.retryAfter.Store(job.ID, time.Now().Add(ra.After))
	}
	return err
}

// NextRetry applies webhook.Backoff, or the receiver's Retry-After when it
// asked for a later time.
func (w *deliverWorker) NextRetry(job *river.Job[deliverArgs]) time.Time {
	next := time.Now().Add(w.q.cfg.Backoff(job.Attempt))
	if v, ok := w.q.retryAfter.LoadAndDelete(job.ID); ok && v.(time.Time).After(next) {
		next = v.(time.Time)
	}
	return next
}

func (w *deliverWorker) Timeout(*river.Job[deliverArgs]) time.Duration {
	return w.q.cfg.jobTimeout
}

type expireWorker struct {
	river.WorkerDefaults[expireArgs]
	expire func(ctx context.Context, verificationID string) error
}

func (w *expireWorker) Work(ctx context.Context, job *river.Job[expireArgs]) error {
	err := w.expire(ctx, job.Args.VerificationID)
	var notDue interface{ NotDueUntil() time.Time }
	if errors.As(err, &notDue) {
		// Not an error: checked early (clock skew between replicas); look again
		// when due. Snoozing does not use up an attempt.
		return river.JobSnooze(max(time.Until(notDue.NotDueUntil()), 0))
	}
	return err
}

type processWorker struct {
	river.WorkerDefaults[processArgs]
	process func(ctx context.Context, verificationID string, attempt int, final bool) error
	backoff func(attempt int) time.Duration
	timeout time.Duration
}

// Timeout bounds one pipeline run by the rescue delay, not by the
// webhook jobs' 30 s: the pipeline bounds each of its checks (30 s), and
// a hosted submission's liveness challenge runs the face models on some
// forty frames, which on a busy two-core machine took longer than 30 s in
// all; the run was cancelled, retried, cancelled again and the
// verification failed with idv_error (seen in CI). A run may still not
// outlast the rescue delay, after which it would be run twice at once.
func (w *processWorker) Timeout(*river.Job[processArgs]) time.Duration { return w.timeout }

func (w *processWorker) Work(ctx context.Context, job *river.Job[processArgs]) error {
	return w.process(ctx, job.Args.VerificationID, job.Attempt, job.Attempt >= job.MaxAttempts)
}

// NextRetry retries a crashed or timed-out pipeline run soon (by default
// after 5 s, 10 s, 20 s, 40 s).
func (w *processWorker) NextRetry(job *river.Job[processArgs]) time.Time {
	return time.Now().Add(w.backoff(job.Attempt))
}

type purgeWorker struct {
	river.WorkerDefaults[purgeArgs]
	purge func(ctx context.Context, verificationID string) error
}

// errNoPurge fails a purge job on a queue built without a purge handler
// (the job is retried, so a correctly configured replica does it).
var errNoPurge = errors.New("queue: no purge handler configured")

func (w *purgeWorker) Work(ctx context.Context, job *river.Job[purgeArgs]) error {
	if w.purge == nil {
		return errNoPurge
	}
	err := w.purge(ctx, job.Args.VerificationID)
	var notDue interface{ NotDueUntil() time.Time }
	if errors.As(err, &notDue) {
		// The retention is not over (it was lengthened since the job was
		// scheduled): look again when it is. Snoozing uses up no attempt.
		return river.JobSnooze(max(time.Until(notDue.NotDueUntil()), 0))
	}
	return err
}
