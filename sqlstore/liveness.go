package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/liveness"
)

// CreateLivenessChallenge stores a new challenge and deletes the subject's
// unused ones.
func (db *DB) CreateLivenessChallenge(ctx context.Context, c liveness.Challenge) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM liveness_challenges WHERE subject = $1 AND used_at IS NULL`, c.Subject); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO liveness_challenges (id, subject, attempt, steps, issued_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6)`,
			c.ID, c.Subject, c.Attempt, joinSteps(c.Steps), micros(c.IssuedAt), micros(c.ExpiresAt))
		return err
	})
}

// ConsumeLivenessChallenge marks a challenge used, in one conditional
// update, and stores its frames.
func (db *DB) ConsumeLivenessChallenge(ctx context.Context, id string, u verifyd.ChallengeUse) (verifyd.StoredChallenge, error) {
	var c verifyd.StoredChallenge
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		row := tx.QueryRowContext(ctx, `UPDATE liveness_challenges SET used_at = $5, manual_step = $6
			WHERE id = $1 AND subject = $2 AND attempt = $3 AND used_at IS NULL AND expires_at > $4
			RETURNING `+challengeColumns, id, u.Subject, u.Attempt, micros(u.At), micros(u.At), string(u.ManualStep))
		var err error
		if c, err = scanChallenge(row); errors.Is(err, sql.ErrNoRows) {
			return verifyd.ErrChallengeSpent
		} else if err != nil {
			return err
		}
		for n, f := range u.Frames {
			if _, err := tx.ExecContext(ctx, `INSERT INTO liveness_frames (challenge_id, seq, at_ms, sha256) VALUES ($1, $2, $3, $4)`,
				id, n+1, f.At.Milliseconds(), f.SHA256); err != nil {
				return err
			}
		}
		c.Frames = append([]verifyd.LivenessFrame(nil), u.Frames...)
		return nil
	})
	if err != nil {
		return verifyd.StoredChallenge{}, err
	}
	return c, nil
}

// LivenessChallenge returns a challenge with its frames.
func (db *DB) LivenessChallenge(ctx context.Context, id string) (verifyd.StoredChallenge, error) {
	c, err := scanChallenge(db.readRow(ctx, `SELECT `+challengeColumns+` FROM liveness_challenges WHERE id = $1`, id))
	if err != nil {
		return c, notFound(err)
	}
	return c, db.challengeFrames(ctx, &c)
}

// UsedLivenessChallenge returns the challenge last used for an attempt.
func (db *DB) UsedLivenessChallenge(ctx context.Context, subject string, attempt int) (verifyd.StoredChallenge, error) {
	c, err := scanChallenge(db.readRow(ctx, `SELECT `+challengeColumns+` FROM liveness_challenges
		WHERE subject = $1 AND attempt = $2 AND used_at IS NOT NULL ORDER BY used_at DESC, id LIMIT 1`, subject, attempt))
	if err != nil {
		return c, notFound(err)
	}
	return c, db.challengeFrames(ctx, &c)
}

// EarlierLivenessDigests lists the digests of frames submitted for earlier
// attempts.
func (db *DB) EarlierLivenessDigests(ctx context.Context, subject string, attempt int) ([][]byte, error) {
	rows, err := db.readRows(ctx, `SELECT f.sha256 FROM liveness_frames f
		JOIN liveness_challenges c ON c.id = f.challenge_id
		WHERE c.subject = $1 AND c.attempt < $2 AND c.used_at IS NOT NULL ORDER BY c.used_at, f.seq`, subject, attempt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := [][]byte{}
	for rows.Next() {
		var d []byte
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func (db *DB) challengeFrames(ctx context.Context, c *verifyd.StoredChallenge) error {
	rows, err := db.readRows(ctx, `SELECT at_ms, sha256 FROM liveness_frames WHERE challenge_id = $1 ORDER BY seq`, c.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ms int64
		var f verifyd.LivenessFrame
		if err := rows.Scan(&ms, &f.SHA256); err != nil {
			return err
		}
		f.At = time.Duration(ms) * time.Millisecond
		c.Frames = append(c.Frames, f)
	}
	return rows.Err()
}

const challengeColumns = `id, subject, attempt, steps, issued_at, expires_at, used_at, manual_step`

func scanChallenge(row interface{ Scan(...any) error }) (verifyd.StoredChallenge, error) {
	var c verifyd.StoredChallenge
	var steps string
	var issued, expires int64
	var used sql.NullInt64
	var manual string
	if err := row.Scan(&c.ID, &c.Subject, &c.Attempt, &steps, &issued, &expires, &used, &manual); err != nil {
		return verifyd.StoredChallenge{}, err
	}
	parsed, err := liveness.ParseSteps(strings.Fields(steps))
	if err != nil {
		return verifyd.StoredChallenge{}, err
	}
	c.Steps, c.IssuedAt, c.ExpiresAt, c.UsedAt = parsed, fromMicros(issued), fromMicros(expires), fromNullMicros(used)
	c.ManualStep = liveness.Step(manual)
	return c, nil
}

// joinSteps stores the steps space-separated: step names have no spaces.
func joinSteps(steps []liveness.Step) string {
	ss := make([]string, len(steps))
	for i, s := range steps {
		ss[i] = string(s)
	}
	return strings.Join(ss, " ")
}

var _ verifyd.LivenessStore = (*DB)(nil)
