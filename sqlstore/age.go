package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/verifyd/verifyd"
)

// The OAuth side of the age interface: authorize requests, codes, tokens.

const ageRequestColumns = `id, business_id, environment, client_id, redirect_uri, state, user_id, country,
	code_challenge, code_challenge_method, created_at, expires_at, completed_at`

const ageCodeColumns = `code_hash, request_id, business_id, environment, client_id, redirect_uri,
	code_challenge, code_challenge_method, age_verified, verification_id, method, created_at, expires_at, used_at, account_id`

const ageTokenColumns = `token_hash, code_hash, business_id, environment, client_id, age_verified,
	verification_id, created_at, expires_at, revoked_at`

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// CreateAgeAuthRequest stores a request and purges what expired before
// purgeBefore; an existing id is EConflict.
func (db *DB) CreateAgeAuthRequest(ctx context.Context, r verifyd.AgeAuthRequest, purgeBefore time.Time) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		before := micros(purgeBefore)
		for _, stmt := range []string{
			`DELETE FROM age_tokens WHERE expires_at <= $1`,
			`DELETE FROM age_codes WHERE expires_at <= $1
				AND NOT EXISTS (SELECT 1 FROM age_tokens t WHERE t.code_hash = age_codes.code_hash)`,
			`DELETE FROM age_auth_requests WHERE expires_at <= $1
				AND NOT EXISTS (SELECT 1 FROM age_codes c WHERE c.request_id = age_auth_requests.id)`,
		} {
			if _, err := tx.ExecContext(ctx, stmt, before); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO age_auth_requests (`+ageRequestColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING`,
			r.ID, r.BusinessID, string(r.Environment), r.ClientID, r.RedirectURI, r.State, r.UserID, r.Country,
			r.CodeChallenge, r.CodeChallengeMethod, micros(r.CreatedAt), micros(r.ExpiresAt), nullMicros(r.CompletedAt))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return verifyd.Errorf(verifyd.EConflict, "authorize request %s exists", r.ID)
		}
		return nil
	})
}

func scanAgeRequest(row interface{ Scan(...any) error }) (verifyd.AgeAuthRequest, error) {
	var r verifyd.AgeAuthRequest
	var env string
	var created, expires int64
	var completed sql.NullInt64
	if err := row.Scan(&r.ID, &r.BusinessID, &env, &r.ClientID, &r.RedirectURI, &r.State, &r.UserID, &r.Country,
		&r.CodeChallenge, &r.CodeChallengeMethod, &created, &expires, &completed); err != nil {
		return verifyd.AgeAuthRequest{}, notFound(err)
	}
	r.Environment = verifyd.Environment(env)
	r.CreatedAt, r.ExpiresAt, r.CompletedAt = fromMicros(created), fromMicros(expires), fromNullMicros(completed)
	return r, nil
}

// AgeAuthRequest returns one request.
func (db *DB) AgeAuthRequest(ctx context.Context, id string) (verifyd.AgeAuthRequest, error) {
	return scanAgeRequest(db.readRow(ctx, `SELECT `+ageRequestColumns+` FROM age_auth_requests WHERE id = $1`, id))
}

// CompleteAgeAuthRequest marks a request completed and stores its code, in
// one transaction whose first statement is the conditional update that
// decides, so two completions cannot both succeed.
func (db *DB) CompleteAgeAuthRequest(ctx context.Context, requestID string, c verifyd.AgeCode) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		at := micros(c.CreatedAt)
		res, err := tx.ExecContext(ctx, `UPDATE age_auth_requests SET completed_at = $2
			WHERE id = $1 AND completed_at IS NULL AND expires_at > $2`, requestID, at)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			r, err := scanAgeRequest(tx.QueryRowContext(ctx, `SELECT `+ageRequestColumns+` FROM age_auth_requests WHERE id = $1`, requestID))
			if err != nil {
				return err
			}
			if r.CompletedAt != nil {
				return verifyd.Errorf(verifyd.EConflict, "authorize request %s is already completed", requestID)
			}
			return verifyd.ErrNotFound // expired
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO age_codes (`+ageCodeColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
			c.Hash, requestID, c.BusinessID, string(c.Environment), c.ClientID, c.RedirectURI,
			c.CodeChallenge, c.CodeChallengeMethod, boolInt(c.AgeVerified), c.VerificationID, c.Method,
			micros(c.CreatedAt), micros(c.ExpiresAt), nullMicros(c.UsedAt), nullString(c.AccountID))
		return err
	})
}

func scanAgeCode(row interface{ Scan(...any) error }) (verifyd.AgeCode, error) {
	var c verifyd.AgeCode
	var env string
	var verified, created, expires int64
	var used sql.NullInt64
	var account sql.NullString
	if err := row.Scan(&c.Hash, &c.RequestID, &c.BusinessID, &env, &c.ClientID, &c.RedirectURI,
		&c.CodeChallenge, &c.CodeChallengeMethod, &verified, &c.VerificationID, &c.Method,
		&created, &expires, &used, &account); err != nil {
		return verifyd.AgeCode{}, notFound(err)
	}
	c.AccountID = account.String
	c.Environment, c.AgeVerified = verifyd.Environment(env), verified == 1
	c.CreatedAt, c.ExpiresAt, c.UsedAt = fromMicros(created), fromMicros(expires), fromNullMicros(used)
	return c, nil
}

// AgeCode returns one code by hash.
func (db *DB) AgeCode(ctx context.Context, hash []byte) (verifyd.AgeCode, error) {
	return scanAgeCode(db.readRow(ctx, `SELECT `+ageCodeColumns+` FROM age_codes WHERE code_hash = $1`, hash))
}

// RedeemAgeCode consumes a code in one conditional UPDATE and stores the
// token issued for it in the same transaction. On PostgreSQL a concurrent
// redemption waits for the row lock and then finds used_at set; on SQLite
// transactions are serialised by the write lock.
func (db *DB) RedeemAgeCode(ctx context.Context, codeHash []byte, t verifyd.AgeToken) (verifyd.AgeCode, error) {
	var c verifyd.AgeCode
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		at := micros(t.CreatedAt)
		var err error
		c, err = scanAgeCode(tx.QueryRowContext(ctx, `UPDATE age_codes SET used_at = $2
			WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2
			RETURNING `+ageCodeColumns, codeHash, at))
		if errors.Is(err, verifyd.ErrNotFound) {
			return verifyd.ErrCodeSpent
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO age_tokens (`+ageTokenColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			t.Hash, codeHash, t.BusinessID, string(t.Environment), t.ClientID, boolInt(t.AgeVerified),
			t.VerificationID, at, micros(t.ExpiresAt), nullMicros(t.RevokedAt))
		return err
	})
	if err != nil {
		return verifyd.AgeCode{}, err
	}
	return c, nil
}

// RevokeAgeTokens revokes the tokens issued for a code.
func (db *DB) RevokeAgeTokens(ctx context.Context, codeHash []byte, at time.Time) (int, error) {
	res, err := db.write.ExecContext(ctx, `UPDATE age_tokens SET revoked_at = $2
		WHERE code_hash = $1 AND revoked_at IS NULL`, codeHash, micros(at))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// AgeToken returns one token by hash.
func (db *DB) AgeToken(ctx context.Context, hash []byte) (verifyd.AgeToken, error) {
	var t verifyd.AgeToken
	var env string
	var verified, created, expires int64
	var revoked sql.NullInt64
	err := db.readRow(ctx, `SELECT `+ageTokenColumns+` FROM age_tokens WHERE token_hash = $1`, hash).
		Scan(&t.Hash, &t.CodeHash, &t.BusinessID, &env, &t.ClientID, &verified, &t.VerificationID,
			&created, &expires, &revoked)
	if err != nil {
		return verifyd.AgeToken{}, notFound(err)
	}
	t.Environment, t.AgeVerified = verifyd.Environment(env), verified == 1
	t.CreatedAt, t.ExpiresAt, t.RevokedAt = fromMicros(created), fromMicros(expires), fromNullMicros(revoked)
	return t, nil
}

var _ verifyd.AgeOAuthStore = (*DB)(nil)
