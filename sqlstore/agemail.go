package sqlstore

import (
	"context"
	"database/sql"
	"encoding/hex"
	"time"

	"github.com/verifyd/verifyd"
)

// CreateAgeMailToken stores a token and deletes long-expired ones, so the
// table stays small without a background job.
func (db *DB) CreateAgeMailToken(ctx context.Context, t verifyd.AgeMailToken) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM age_mail_tokens WHERE expires_at < $1`,
			micros(t.CreatedAt.Add(-time.Hour))); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO age_mail_tokens (token_hash, environment, account_id, purpose, email,
			created_at, expires_at) SELECT $1, a.environment, a.id, $4, $5, $6, $7 FROM age_accounts a
			WHERE a.id = $3 AND a.environment = $2`,
			hex.EncodeToString(t.Hash), string(t.Environment), t.AccountID, string(t.Purpose), t.Email,
			micros(t.CreatedAt), micros(t.ExpiresAt))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return verifyd.ErrNotFound
		}
		return nil
	})
}

const ageMailColumns = `token_hash, environment, account_id, purpose, email, created_at, expires_at, used_at`

func scanAgeMailToken(row interface{ Scan(...any) error }) (verifyd.AgeMailToken, error) {
	var t verifyd.AgeMailToken
	var hash, env, purpose string
	var created, expires int64
	var used sql.NullInt64
	if err := row.Scan(&hash, &env, &t.AccountID, &purpose, &t.Email, &created, &expires, &used); err != nil {
		return verifyd.AgeMailToken{}, notFound(err)
	}
	b, err := hex.DecodeString(hash)
	if err != nil {
		return verifyd.AgeMailToken{}, err
	}
	t.Hash, t.Environment, t.Purpose = b, verifyd.Environment(env), verifyd.AgeMailPurpose(purpose)
	t.CreatedAt, t.ExpiresAt, t.UsedAt = fromMicros(created), fromMicros(expires), fromNullMicros(used)
	return t, nil
}

// UseAgeMailToken marks a valid token used, in one conditional UPDATE: of
// two concurrent uses exactly one wins.
func (db *DB) UseAgeMailToken(ctx context.Context, env verifyd.Environment, purpose verifyd.AgeMailPurpose, hash []byte, at time.Time) (verifyd.AgeMailToken, error) {
	return scanAgeMailToken(db.write.QueryRowContext(ctx, `UPDATE age_mail_tokens SET used_at = $4
		WHERE token_hash = $1 AND environment = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $4
		RETURNING `+ageMailColumns, hex.EncodeToString(hash), string(env), string(purpose), micros(at)))
}

// AgeMailToken returns a token that is still usable at at.
func (db *DB) AgeMailToken(ctx context.Context, env verifyd.Environment, purpose verifyd.AgeMailPurpose, hash []byte, at time.Time) (verifyd.AgeMailToken, error) {
	return scanAgeMailToken(db.readRow(ctx, `SELECT `+ageMailColumns+` FROM age_mail_tokens
		WHERE token_hash = $1 AND environment = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $4`,
		hex.EncodeToString(hash), string(env), string(purpose), micros(at)))
}

// ConfirmAgeEmail records the confirmation of an account's current address.
func (db *DB) ConfirmAgeEmail(ctx context.Context, env verifyd.Environment, accountID, email string, at time.Time) error {
	res, err := db.write.ExecContext(ctx, `UPDATE age_accounts SET email_confirmed_at = COALESCE(email_confirmed_at, $4)
		WHERE environment = $1 AND id = $2 AND email = $3`, string(env), accountID, email, micros(at))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return verifyd.ErrNotFound
	}
	return nil
}

var _ verifyd.AgeMailStore = (*DB)(nil)
