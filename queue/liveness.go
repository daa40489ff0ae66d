package queue

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"time"
)

// Rescue of a dead replica's jobs on PostgreSQL.
//
// River marks a job running when a client fetches it and appends the
// client's id to attempted_by. When the process dies (SIGKILL, out of
// memory, a lost machine) the job stays running until River's rescuer, which
// runs on the elected leader every 30 s (not configurable in River
// v0.31, for which this was written) and only takes jobs running for longer than RescueAfter, which may
// not be shorter than the job timeout; the rescued job is then retried
// after its backoff. That adds up to minutes, against a target of 45 s.
//
// River v0.31 had no client heartbeat (not re-examined for v0.51), so
// each working replica holds a
// PostgreSQL session-level advisory lock named after its River client id
// for as long as it runs, on a connection of its own. PostgreSQL releases
// the lock the moment the session ends, which a killed process's closed
// socket ends at once. Every RescueInterval each replica makes available
// again the jobs whose last fetching client is one of ours and holds no
// lock: that client is gone. A replica that is alive but slow keeps its
// lock, so its jobs are never taken from it. River's rescuer stays as the
// backstop (for instance for a replica whose lock connection broke while
// its process went on: its jobs are taken after one interval and may
// then run twice; webhook receivers deduplicate by Webhook-Id).

// clientIDPrefix marks the River client ids that hold a liveness lock, so
// that jobs of replicas of an older version, which hold none, are left to
// River's rescuer during a rolling upgrade.
const clientIDPrefix = "verifyd_q_"

// livenessLockSpace is the first key of every liveness lock (the second is
// a hash of the client id); an arbitrary constant ("vdq").
const livenessLockSpace = 0x766471

// newClientID is a River client id unique among replicas.
func newClientID() string {
	return clientIDPrefix + rand.Text()
}

// liveness holds this replica's lock and rescues dead replicas' jobs.
type liveness struct {
	q      *Queue
	conn   *sql.Conn
	cancel context.CancelFunc
	done   chan struct{}
}

// lockKey is the SQL expression of a client id's second lock key, kept
// non-negative so that pg_locks' oid columns compare without sign trouble.
const lockKey = `(hashtext(%s) & 2147483647)`

// startLiveness takes the lock, then rescues every RescueInterval until
// stop. The lock is taken before River fetches any job.
func (q *Queue) startLiveness(ctx context.Context) (*liveness, error) {
	l := &liveness{q: q, done: make(chan struct{})}
	if err := l.lock(ctx); err != nil {
		return nil, err
	}
	loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l.cancel = cancel
	go l.loop(loopCtx)
	return l, nil
}

func (l *liveness) lock(ctx context.Context) error {
	conn, err := l.q.db.SQL().Conn(ctx)
	if err != nil {
		return fmt.Errorf("queue liveness lock: %w", err)
	}
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, `+fmt.Sprintf(lockKey, "$2")+`)`,
		livenessLockSpace, l.q.id).Scan(&got); err != nil {
		conn.Close()
		return fmt.Errorf("queue liveness lock: %w", err)
	}
	if !got {
		// Another live client's id hashes to the same key: its jobs and
		// ours look alive to everyone, which is safe; only the fast rescue
		// of this replica's jobs is lost.
		l.q.cfg.Logger.WarnContext(ctx, "queue liveness lock already held (hash collision): this replica's jobs are rescued by River's rescuer only", "client_id", l.q.id)
	}
	l.conn = conn
	return nil
}

func (l *liveness) loop(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.q.cfg.RescueInterval)
	defer t.Stop()
	for {
		l.rescue(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// A broken lock connection means others may see this replica as
		// dead; take the lock again on a new one.
		if err := l.conn.PingContext(ctx); err != nil && ctx.Err() == nil {
			l.q.cfg.Logger.WarnContext(ctx, "queue liveness lock connection lost; taking the lock again", "err", err)
			l.conn.Close()
			if err := l.lock(ctx); err != nil {
				l.q.cfg.Logger.ErrorContext(ctx, "queue liveness lock", "err", err)
			}
		}
	}
}

// rescue makes the jobs of dead replicas available.
func (l *liveness) rescue(ctx context.Context) {
	last := `attempted_by[array_length(attempted_by, 1)]`
	res, err := l.q.db.SQL().ExecContext(ctx, `UPDATE river_job SET state = 'available', scheduled_at = now()
		WHERE state = 'running' AND starts_with(`+last+`, $2)
		AND NOT EXISTS (SELECT 1 FROM pg_locks l
			WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND l.classid = $1::bigint::oid AND l.objid = `+fmt.Sprintf(lockKey, last)+`::bigint::oid)`,
		livenessLockSpace, clientIDPrefix)
	if err != nil {
		if ctx.Err() == nil {
			l.q.cfg.Logger.WarnContext(ctx, "rescue of dead replicas' jobs", "err", err)
		}
		return
	}
	if n, _ := res.RowsAffected(); n > 0 {
		l.q.cfg.Logger.InfoContext(ctx, "jobs left running by a dead replica made available", "jobs", n)
	}
}

// stop ends the loop and releases the lock. Call it after River has
// stopped, so that no job of this replica is still running.
func (l *liveness) stop() {
	l.cancel()
	<-l.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = l.conn.ExecContext(ctx, `SELECT pg_advisory_unlock_all()`)
	l.conn.Close()
}
