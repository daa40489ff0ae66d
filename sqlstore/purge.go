package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/verifyd/verifyd"
)

// PurgeVerification deletes a finished internal verification's images and
// replaces its runs' sealed evidence by the summaries given, in one
// transaction (data minimisation, docs/age.md). The job that calls it may
// run more than once: a purged verification is returned unchanged.
func (db *DB) PurgeVerification(ctx context.Context, id string, runs []verifyd.CheckRun, at time.Time) (verifyd.Verification, error) {
	var v verifyd.Verification
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if v, err = db.lockVerification(ctx, tx, id); err != nil {
			return err
		}
		switch {
		case v.PurgedAt != nil:
			return nil
		case !v.Internal():
			return verifyd.Errorf(verifyd.EConflict, "verification %s belongs to the identity API; it is not purged", id)
		case !v.Status.Terminal():
			return verifyd.Errorf(verifyd.EConflict, "verification %s is %s, not finished; it is not purged yet", id, v.Status)
		}
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
			return verifyd.Errorf(verifyd.EConflict, "verification %s has runs %v, the purge summarised %v", id, stored, given)
		}
		for _, r := range runs {
			if _, err := tx.ExecContext(ctx, `UPDATE verification_checks SET sealed_results = $3
				WHERE verification_id = $1 AND run = $2`, id, r.Run, r.SealedResults); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM verification_images WHERE verification_id = $1`, id); err != nil {
			return err
		}
		purged := fromMicros(micros(at))
		if _, err := tx.ExecContext(ctx, `UPDATE verifications SET document_hash = NULL, purged_at = $2 WHERE id = $1`,
			id, micros(purged)); err != nil {
			return err
		}
		v.DocumentHash, v.PurgedAt = nil, &purged
		return nil
	})
	return v, err
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
