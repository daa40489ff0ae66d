package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/verifyd/verifyd"
)

// PurgeVerification deletes a finished verification's images and replaces
// its runs' sealed evidence by the summaries given, in one transaction
// (data minimisation, docs/age.md; retention, docs/api.md). The job that
// calls it may run more than once: a purged verification is returned
// unchanged.
func (db *DB) PurgeVerification(ctx context.Context, id string, runs []verifyd.CheckRun, at time.Time) (verifyd.Verification, error) {
	return db.deleteEvidence(ctx, id, runs, at, false)
}

// RedactVerification purges a finished verification and also deletes the
// customer's contact details, the declared document and the hosted-page
// token (docs/api.md "Retention and redaction").
func (db *DB) RedactVerification(ctx context.Context, id string, runs []verifyd.CheckRun, at time.Time) (verifyd.Verification, error) {
	return db.deleteEvidence(ctx, id, runs, at, true)
}

// deleteEvidence is PurgeVerification, and RedactVerification when redact
// is set.
func (db *DB) deleteEvidence(ctx context.Context, id string, runs []verifyd.CheckRun, at time.Time, redact bool) (verifyd.Verification, error) {
	var v verifyd.Verification
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if v, err = db.lockVerification(ctx, tx, id); err != nil {
			return err
		}
		switch {
		case v.RedactedAt != nil, v.PurgedAt != nil && !redact:
			return nil
		case !v.Status.Terminal():
			return verifyd.Errorf(verifyd.EConflict, "verification %s is %s, not finished; its evidence is kept", id, v.Status)
		}
		when := fromMicros(micros(at))
		if v.PurgedAt == nil {
			if err := replaceEvidence(ctx, tx, id, runs); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE verifications SET document_hash = NULL, purged_at = $2 WHERE id = $1`,
				id, micros(when)); err != nil {
				return err
			}
			v.DocumentHash, v.PurgedAt = nil, &when
		}
		if !redact {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE verifications SET customer_email = '', customer_phone = '',
			document_type = '', document_country = '', hosted_token_hash = NULL, sealed_hosted_token = NULL,
			redacted_at = $2 WHERE id = $1`, id, micros(when)); err != nil {
			return err
		}
		v.Customer.Email, v.Customer.Phone, v.Document = "", "", verifyd.DocumentInfo{}
		v.HostedTokenHash, v.SealedHostedToken, v.RedactedAt = nil, nil, &when
		return nil
	})
	return v, err
}

// replaceEvidence deletes a verification's images and replaces its runs'
// sealed results by runs, which must name exactly the stored runs.
func replaceEvidence(ctx context.Context, tx *sql.Tx, id string, runs []verifyd.CheckRun) error {
	stored, err := runNumbers(ctx, tx, id)
	if err != nil {
		return err
	}
	given := make([]int, len(runs))
	for n, r := range runs {
		given[n] = r.Run
	}
	slices.Sort(given)
	if !slices.Equal(stored, given) {
		return verifyd.Errorf(verifyd.EConflict, "verification %s has runs %v, the summaries name %v", id, stored, given)
	}
	for _, r := range runs {
		if _, err := tx.ExecContext(ctx, `UPDATE verification_checks SET sealed_results = $3
			WHERE verification_id = $1 AND run = $2`, id, r.Run, r.SealedResults); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM verification_images WHERE verification_id = $1`, id)
	return err
}

// runNumbers returns the numbers of a verification's check runs, in order.
func runNumbers(ctx context.Context, tx *sql.Tx, id string) ([]int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT run FROM verification_checks WHERE verification_id = $1 ORDER BY run`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []int{}
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

var _ verifyd.RetentionStore = (*DB)(nil)

// AppendAudit stores an audit entry.
func (db *DB) AppendAudit(ctx context.Context, e verifyd.AuditEntry) error {
	_, err := db.write.ExecContext(ctx, `INSERT INTO audit_log (at, business_id, actor_kind, actor, action, subject, detail)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, micros(e.At), e.BusinessID, string(e.Actor.Kind), e.Actor.Name,
		e.Action, e.Subject, e.Detail)
	return err
}

// AuditEntries lists audit entries oldest first.
func (db *DB) AuditEntries(ctx context.Context, f verifyd.AuditFilter) ([]verifyd.AuditEntry, error) {
	q := `SELECT id, at, business_id, actor_kind, actor, action, subject, detail FROM audit_log WHERE at >= $1`
	args := []any{int64(math.MinInt64)}
	if !f.Since.IsZero() {
		args[0] = micros(f.Since)
	}
	if f.BusinessID != "" {
		q += ` AND business_id = $2`
		args = append(args, f.BusinessID)
	}
	// The newest Limit entries, returned oldest first.
	q = `SELECT * FROM (` + q + ` ORDER BY at DESC, id DESC`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	q += `) newest ORDER BY at, id`
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []verifyd.AuditEntry{}
	for rows.Next() {
		var e verifyd.AuditEntry
		var at int64
		var kind string
		if err := rows.Scan(&e.ID, &at, &e.BusinessID, &kind, &e.Actor.Name, &e.Action, &e.Subject, &e.Detail); err != nil {
			return nil, err
		}
		e.At, e.Actor.Kind = fromMicros(at), verifyd.ActorKind(kind)
		out = append(out, e)
	}
	return out, rows.Err()
}

var _ verifyd.AuditStore = (*DB)(nil)
