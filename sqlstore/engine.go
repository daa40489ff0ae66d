package sqlstore

import (
	"context"
	"database/sql"

	"github.com/verifyd/verifyd"
)

// RecordCheckRun stores a pipeline run and updates the verification's
// review state, submission count and document hash.
func (db *DB) RecordCheckRun(ctx context.Context, run verifyd.CheckRun, review verifyd.ReviewState, documentHash []byte) (verifyd.CheckRun, error) {
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		// Locked, so a purge or a decision (which lock it too) either sees
		// this run or is seen by it.
		v, err := db.lockVerification(ctx, tx, run.VerificationID)
		if err != nil {
			return err
		}
		if v.PurgedAt != nil {
			return verifyd.Errorf(verifyd.EConflict, "verification %s was purged after its decision; the run is not kept", v.ID)
		}
		// A run is recorded before the transition it decides, so one
		// arriving for a finished verification (expired, or ended by an
		// account deletion, while it was under way) is late: it would put
		// the verification back in the review queue and, for an internal
		// one, keep evidence its purge job may already have passed.
		if v.Status.Terminal() {
			return verifyd.Errorf(verifyd.EConflict, "verification %s is %s; the run is not kept", v.ID, v.Status)
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO verification_checks
			(verification_id, run, at, outcome, reason, sealed_results)
			VALUES ($1, (SELECT COALESCE(MAX(run), 0) + 1 FROM verification_checks WHERE verification_id = $1),
			$2, $3, $4, $5) RETURNING run`,
			run.VerificationID, micros(run.At), run.Outcome, string(run.Reason), run.SealedResults).Scan(&run.Run); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE verifications SET submissions = submissions + 1, review = $2,
			document_hash = COALESCE($3, document_hash), updated_at = $4 WHERE id = $1`,
			run.VerificationID, string(review), documentHash, micros(run.At))
		return err
	})
	return run, err
}

// CheckRuns returns a verification's runs, oldest first.
func (db *DB) CheckRuns(ctx context.Context, id string) ([]verifyd.CheckRun, error) {
	rows, err := db.readRows(ctx, `SELECT verification_id, run, at, outcome, reason, sealed_results
		FROM verification_checks WHERE verification_id = $1 ORDER BY run`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.CheckRun
	for rows.Next() {
		var r verifyd.CheckRun
		var at int64
		var reason string
		if err := rows.Scan(&r.VerificationID, &r.Run, &at, &r.Outcome, &reason, &r.SealedResults); err != nil {
			return nil, err
		}
		r.At, r.Reason = fromMicros(at), verifyd.Reason(reason)
		out = append(out, r)
	}
	return out, rows.Err()
}

// ReviewQueue lists verifications waiting for a person, oldest first.
func (db *DB) ReviewQueue(ctx context.Context, limit int) ([]verifyd.Verification, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.readRows(ctx, `SELECT `+verificationColumns+` FROM verifications
		WHERE review = 'pending' AND status = 'started' ORDER BY updated_at, id LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.Verification
	for rows.Next() {
		v, err := scanVerification(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// DocumentApprovedForOtherCustomer reports whether another customer of the
// business was approved with the same document.
func (db *DB) DocumentApprovedForOtherCustomer(ctx context.Context, businessID, customerID string, hash []byte) (bool, error) {
	var n int
	err := db.readRow(ctx, `SELECT COUNT(*) FROM verifications
		WHERE business_id = $1 AND document_hash = $2 AND customer_id <> $3 AND status = 'approved'`,
		businessID, hash, customerID).Scan(&n)
	return n > 0, err
}

// SelfieOfOtherCustomer reports whether another customer of the business
// submitted a selfie with the same bytes.
func (db *DB) SelfieOfOtherCustomer(ctx context.Context, businessID, customerID string, sha []byte) (bool, error) {
	var n int
	err := db.readRow(ctx, `SELECT COUNT(*) FROM verification_images i
		JOIN verifications v ON v.id = i.verification_id
		WHERE i.sha256 = $1 AND i.kind = 'selfie' AND v.business_id = $2 AND v.customer_id <> $3`,
		sha, businessID, customerID).Scan(&n)
	return n > 0, err
}

// ReplaceSubmission stores a hosted submission and enqueues its processing.
// The conditions are checked in the update itself, so two submissions sent
// at once cannot both be accepted.
func (db *DB) ReplaceSubmission(ctx context.Context, id string, doc verifyd.DocumentInfo, images []verifyd.StoredImage) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE verifications SET document_type = $2, document_country = $3,
			hosted_submissions = hosted_submissions + 1,
			hosted_submitted_run = (SELECT COALESCE(MAX(run), 0) FROM verification_checks WHERE verification_id = $1)
			WHERE id = $1 AND status IN ('pending', 'started') AND review <> 'pending'
			AND (hosted_submissions = 0 OR EXISTS (SELECT 1 FROM verification_checks c
				WHERE c.verification_id = $1 AND c.run > verifications.hosted_submitted_run AND c.outcome <> 'error'))`,
			id, string(doc.Type), doc.Country)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var status string
			if err := tx.QueryRowContext(ctx, `SELECT status FROM verifications WHERE id = $1`, id).Scan(&status); err != nil {
				return notFound(err)
			}
			return verifyd.Errorf(verifyd.EConflict, "the verification takes no submission now: it is finished, waiting for review or still processing the previous one")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM verification_images WHERE verification_id = $1`, id); err != nil {
			return err
		}
		if err := insertImages(ctx, tx, id, images); err != nil {
			return err
		}
		return db.enqueue(ctx, tx, Job{Kind: JobProcessVerification, Subject: id})
	})
}

var _ verifyd.EngineStore = (*DB)(nil)
