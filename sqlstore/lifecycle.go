package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/verifyd/verifyd"
)

// JobKind names a durable background job.
type JobKind string

// The jobs the store enqueues.
const (
	JobDeliverWebhook      JobKind = "webhook_delivery"
	JobExpireVerification  JobKind = "verification_expiry"
	JobProcessVerification JobKind = "verification_process"
	// JobPurgeVerification deletes the images and identifying evidence of a
	// finished internal verification (identity.Service.Purge).
	JobPurgeVerification JobKind = "verification_purge"
)

// Job is background work that must commit with the data it acts on.
type Job struct {
	Kind    JobKind
	Subject string // the webhook event id or verification id
	// RunAt is when the job becomes due; zero means now.
	RunAt time.Time
}

// Enqueuer inserts jobs inside a store transaction (package queue).
type Enqueuer interface {
	EnqueueTx(ctx context.Context, tx *sql.Tx, jobs ...Job) error
}

// ErrNoQueue is returned by changes that need a job queue when none is set.
var ErrNoQueue = errors.New("sqlstore: no job queue configured")

// SetEnqueuer gives the store the queue its transactions enqueue into. It
// must be called before the store is shared between goroutines.
func (db *DB) SetEnqueuer(e Enqueuer) { db.jobs = e }

func (db *DB) enqueue(ctx context.Context, tx *sql.Tx, jobs ...Job) error {
	if db.jobs == nil {
		return ErrNoQueue
	}
	return db.jobs.EnqueueTx(ctx, tx, jobs...)
}

// lockVerification reads a verification inside tx, locking its row on
// PostgreSQL (SQLite's write transactions are already exclusive), so two
// replicas cannot both apply a transition from the same status.
func (db *DB) lockVerification(ctx context.Context, tx *sql.Tx, id string) (verifyd.Verification, error) {
	q := `SELECT ` + verificationColumns + ` FROM verifications WHERE id = $1`
	if db.dialect == Postgres {
		q += ` FOR UPDATE`
	}
	return scanVerification(tx.QueryRowContext(ctx, q, id))
}

// appendStatusEvent appends a history entry and returns its seq.
func appendStatusEvent(ctx context.Context, tx *sql.Tx, e verifyd.StatusEvent) (int, error) {
	var seq int
	err := tx.QueryRowContext(ctx, `INSERT INTO verification_events
		(verification_id, seq, at, from_status, to_status, reason, cause, actor)
		VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM verification_events WHERE verification_id = $1),
		$2, $3, $4, $5, $6, $7) RETURNING seq`,
		e.VerificationID, micros(e.At), string(e.From), string(e.To), string(e.Reason), string(e.Cause), e.Actor).Scan(&seq)
	return seq, err
}

// TransitionVerification applies a status change with its history entry,
// webhook event and delivery job in one transaction.
func (db *DB) TransitionVerification(ctx context.Context, t verifyd.Transition, eventID string) (verifyd.Verification, error) {
	var v verifyd.Verification
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		locked, err := db.lockVerification(ctx, tx, t.VerificationID)
		if err != nil {
			return err
		}
		v, err = db.transitionTx(ctx, tx, locked, t, eventID)
		return err
	})
	return v, err
}

// transitionTx applies t to v, which the caller has read (and locked) in
// tx: the status change with its review rule, the history entry, and either
// the webhook event with its delivery job or, for a finished internal
// verification, its purge job. It returns v as changed.
func (db *DB) transitionTx(ctx context.Context, tx *sql.Tx, v verifyd.Verification, t verifyd.Transition, eventID string) (verifyd.Verification, error) {
	from := v.Status
	if !verifyd.CanTransition(from, t.To) {
		return v, verifyd.ErrTransition(from, t.To)
	}
	at := t.At.UTC()
	v.Status, v.Reason, v.UpdatedAt = t.To, t.Reason, at
	// A decision takes the verification out of the review queue.
	if t.To.Terminal() && v.Review == verifyd.ReviewPending {
		v.Review = verifyd.ReviewDecided
	}
	if _, err := tx.ExecContext(ctx, `UPDATE verifications SET status = $2, reason = $3, updated_at = $4,
		review = $5 WHERE id = $1`, v.ID, string(v.Status), string(v.Reason), micros(at), string(v.Review)); err != nil {
		return v, err
	}
	seq, err := appendStatusEvent(ctx, tx, verifyd.StatusEvent{VerificationID: v.ID, At: at, From: from,
		To: t.To, Reason: t.Reason, Cause: t.Cause, Actor: t.Actor})
	if err != nil {
		return v, err
	}
	// A finished verification of the identity API loses its images and
	// evidence when its business's retention is over; the job commits with
	// the decision.
	if t.To.Terminal() && !v.Internal() {
		days, err := retentionDays(ctx, tx, v.BusinessID)
		if err != nil {
			return v, err
		}
		if job, ok := retentionJob(v, days); ok {
			if err := db.enqueue(ctx, tx, job); err != nil {
				return v, err
			}
		}
	}
	if v.Webhook == "" {
		// An internal verification (the age flow's document method)
		// has nobody to notify. Once decided, its images and evidence
		// are deleted (docs/age.md, data minimisation): the job commits
		// with the decision, so a crash cannot leave them behind.
		if t.To.Terminal() && v.Internal() {
			return v, db.enqueue(ctx, tx, Job{Kind: JobPurgeVerification, Subject: v.ID})
		}
		return v, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_events
		(id, verification_id, seq, business_id, api_key, url, payload, state, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		eventID, v.ID, seq, v.BusinessID, v.APIKey, v.Webhook, verifyd.WebhookPayload(v),
		string(verifyd.WebhookPending), micros(at)); err != nil {
		return v, err
	}
	return v, db.enqueue(ctx, tx, Job{Kind: JobDeliverWebhook, Subject: eventID})
}

// VerificationByID returns a verification of any business.
func (db *DB) VerificationByID(ctx context.Context, id string) (verifyd.Verification, error) {
	return scanVerification(db.readRow(ctx, `SELECT `+verificationColumns+`
		FROM verifications WHERE id = $1`, id))
}

// StatusEvents returns a verification's history, oldest first.
func (db *DB) StatusEvents(ctx context.Context, verificationID string) ([]verifyd.StatusEvent, error) {
	rows, err := db.readRows(ctx, `SELECT verification_id, seq, at, from_status, to_status,
		reason, cause, actor FROM verification_events WHERE verification_id = $1 ORDER BY seq`, verificationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.StatusEvent
	for rows.Next() {
		var e verifyd.StatusEvent
		var at int64
		var from, to, reason, cause string
		if err := rows.Scan(&e.VerificationID, &e.Seq, &at, &from, &to, &reason, &cause, &e.Actor); err != nil {
			return nil, err
		}
		e.At, e.From, e.To = fromMicros(at), verifyd.Status(from), verifyd.Status(to)
		e.Reason, e.Cause = verifyd.Reason(reason), verifyd.Cause(cause)
		out = append(out, e)
	}
	return out, rows.Err()
}

// AdvanceClock moves a verification's clock and schedules an expiry check
// at the new due time (the earlier check finds nothing to do, or finds it
// already expired).
func (db *DB) AdvanceClock(ctx context.Context, id string, by time.Duration, now time.Time) (verifyd.Verification, error) {
	var v verifyd.Verification
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if v, err = db.lockVerification(ctx, tx, id); err != nil {
			return err
		}
		v.ClockOffset += by
		if _, err := tx.ExecContext(ctx, `UPDATE verifications SET clock_offset_us = $2 WHERE id = $1`,
			id, v.ClockOffset.Microseconds()); err != nil {
			return err
		}
		if v.Status.Terminal() {
			// The retention runs on the verification's clock too, so
			// integrators can watch it end in the sandbox.
			days, err := retentionDays(ctx, tx, v.BusinessID)
			if err != nil {
				return err
			}
			if job, ok := retentionJob(v, days); ok {
				job.RunAt = later(job.RunAt, now)
				return db.enqueue(ctx, tx, job)
			}
			return nil
		}
		return db.enqueue(ctx, tx, Job{Kind: JobExpireVerification, Subject: id, RunAt: later(v.DueAt(), now)})
	})
	return v, err
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

const webhookEventColumns = `id, verification_id, seq, business_id, api_key, url, payload, state, attempts,
	created_at, delivered_at, last_error`

func scanWebhookEvent(s scanner) (verifyd.WebhookEvent, error) {
	var e verifyd.WebhookEvent
	var state string
	var created int64
	var delivered sql.NullInt64
	if err := s.Scan(&e.ID, &e.VerificationID, &e.Seq, &e.BusinessID, &e.APIKey, &e.URL, &e.Payload, &state,
		&e.Attempts, &created, &delivered, &e.LastError); err != nil {
		return e, notFound(err)
	}
	e.State, e.CreatedAt, e.DeliveredAt = verifyd.WebhookState(state), fromMicros(created), fromNullMicros(delivered)
	return e, nil
}

// WebhookEvent returns one webhook event.
func (db *DB) WebhookEvent(ctx context.Context, id string) (verifyd.WebhookEvent, error) {
	return scanWebhookEvent(db.readRow(ctx,
		`SELECT `+webhookEventColumns+` FROM webhook_events WHERE id = $1`, id))
}

// WebhookEvents lists events, newest first.
func (db *DB) WebhookEvents(ctx context.Context, f verifyd.WebhookFilter) ([]verifyd.WebhookEvent, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	rows, err := db.readRows(ctx, `SELECT `+webhookEventColumns+` FROM webhook_events
		WHERE ($1 = '' OR state = $1) AND ($2 = '' OR verification_id = $2)
		AND ($4 = '' OR business_id = $4)
		AND ($5 = '' OR verification_id IN (SELECT id FROM verifications WHERE environment = $5))
		ORDER BY created_at DESC, id DESC LIMIT $3`, string(f.State), f.VerificationID, f.Limit,
		f.BusinessID, string(f.Environment))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.WebhookEvent
	for rows.Next() {
		e, err := scanWebhookEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// WebhookAttempts returns an event's attempts, oldest first.
func (db *DB) WebhookAttempts(ctx context.Context, eventID string) ([]verifyd.WebhookAttempt, error) {
	rows, err := db.readRows(ctx, `SELECT event_id, attempt, at, status_code, latency_us, error
		FROM webhook_attempts WHERE event_id = $1 ORDER BY attempt`, eventID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.WebhookAttempt
	for rows.Next() {
		var a verifyd.WebhookAttempt
		var at, latency int64
		if err := rows.Scan(&a.EventID, &a.Attempt, &at, &a.StatusCode, &latency, &a.Error); err != nil {
			return nil, err
		}
		a.At, a.Latency = fromMicros(at), time.Duration(latency)*time.Microsecond
		out = append(out, a)
	}
	return out, rows.Err()
}

// RecordWebhookAttempt stores an attempt and moves the event to state. The
// attempt number is assigned here, so concurrent attempts of one event
// (a resend while a retry runs) never collide; a delivered event stays
// delivered.
func (db *DB) RecordWebhookAttempt(ctx context.Context, a verifyd.WebhookAttempt, state verifyd.WebhookState) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		var delivered sql.NullInt64
		if state == verifyd.WebhookDelivered {
			delivered = sql.NullInt64{Int64: micros(a.At.Add(a.Latency)), Valid: true}
		}
		var n int
		err := tx.QueryRowContext(ctx, `UPDATE webhook_events SET attempts = attempts + 1,
			state = CASE WHEN state = 'delivered' THEN state ELSE $2 END,
			delivered_at = COALESCE(delivered_at, $3),
			last_error = CASE WHEN state = 'delivered' AND $2 <> 'delivered' THEN last_error ELSE $4 END
			WHERE id = $1 RETURNING attempts`, a.EventID, string(state), delivered, a.Error).Scan(&n)
		if err != nil {
			return notFound(err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhook_attempts (event_id, attempt, at, status_code, latency_us, error)
			VALUES ($1, $2, $3, $4, $5, $6)`, a.EventID, n, micros(a.At), a.StatusCode, a.Latency.Microseconds(), a.Error)
		return err
	})
}

// ResendWebhook makes an event pending again and enqueues a delivery.
func (db *DB) ResendWebhook(ctx context.Context, eventID string) (verifyd.WebhookEvent, error) {
	var e verifyd.WebhookEvent
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		e, err = scanWebhookEvent(tx.QueryRowContext(ctx, `UPDATE webhook_events
			SET state = 'pending', delivered_at = NULL WHERE id = $1 RETURNING `+webhookEventColumns, eventID))
		if err != nil {
			return err
		}
		return db.enqueue(ctx, tx, Job{Kind: JobDeliverWebhook, Subject: eventID})
	})
	if err != nil {
		return e, fmt.Errorf("resend %s: %w", eventID, err)
	}
	return e, nil
}

// PendingBefore reports whether an earlier event of the same verification
// is still pending.
func (db *DB) PendingBefore(ctx context.Context, e verifyd.WebhookEvent) (bool, error) {
	var n int
	err := db.readRow(ctx, `SELECT COUNT(*) FROM webhook_events
		WHERE verification_id = $1 AND seq < $2 AND state = 'pending'`, e.VerificationID, e.Seq).Scan(&n)
	return n > 0, err
}

// CountWebhookEvents counts events in a state.
func (db *DB) CountWebhookEvents(ctx context.Context, state verifyd.WebhookState) (int, error) {
	var n int
	err := db.readRow(ctx, `SELECT COUNT(*) FROM webhook_events WHERE state = $1`, string(state)).Scan(&n)
	return n, err
}

var _ verifyd.LifecycleStore = (*DB)(nil)
