package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/verifyd/verifyd"
)

// CreateAgeAccount stores a new account; a used address is EConflict.
func (db *DB) CreateAgeAccount(ctx context.Context, a verifyd.AgeAccount) error {
	res, err := db.write.ExecContext(ctx, `INSERT INTO age_accounts (id, environment, email, password_hash, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (environment, email) DO NOTHING`,
		a.ID, string(a.Environment), a.Email, a.PasswordHash, micros(a.CreatedAt))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return verifyd.Errorf(verifyd.EConflict, "an account with this e-mail address exists")
	}
	return nil
}

const ageAccountColumns = `id, environment, email, password_hash, created_at`

func scanAgeAccount(row interface{ Scan(...any) error }) (verifyd.AgeAccount, error) {
	var a verifyd.AgeAccount
	var env string
	var created int64
	if err := row.Scan(&a.ID, &env, &a.Email, &a.PasswordHash, &created); err != nil {
		return verifyd.AgeAccount{}, notFound(err)
	}
	a.Environment, a.CreatedAt = verifyd.Environment(env), fromMicros(created)
	return a, nil
}

// AgeAccountByEmail returns the account with the address in env.
func (db *DB) AgeAccountByEmail(ctx context.Context, env verifyd.Environment, email string) (verifyd.AgeAccount, error) {
	return scanAgeAccount(db.read.QueryRowContext(ctx, `SELECT `+ageAccountColumns+`
		FROM age_accounts WHERE environment = $1 AND email = $2`, string(env), email))
}

// AgeAccount returns an account of env by id.
func (db *DB) AgeAccount(ctx context.Context, env verifyd.Environment, id string) (verifyd.AgeAccount, error) {
	return scanAgeAccount(db.read.QueryRowContext(ctx, `SELECT `+ageAccountColumns+`
		FROM age_accounts WHERE environment = $1 AND id = $2`, string(env), id))
}

// SetAgePasswordHash replaces an account's password hash.
func (db *DB) SetAgePasswordHash(ctx context.Context, env verifyd.Environment, id, hash string) error {
	res, err := db.write.ExecContext(ctx, `UPDATE age_accounts SET password_hash = $3
		WHERE environment = $1 AND id = $2`, string(env), id, hash)
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

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// CreateAgeProof stores a new proof.
func (db *DB) CreateAgeProof(ctx context.Context, p verifyd.AgeProof) error {
	_, err := db.write.ExecContext(ctx, `INSERT INTO age_proofs (id, environment, account_id, method, provider,
		result, identity_verification_id, business_id, request_id, country, created_at, decided_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		p.ID, string(p.Environment), nullString(p.AccountID), string(p.Method), p.Provider, string(p.Result),
		nullString(p.IdentityVerificationID), p.BusinessID, p.RequestID, p.Country, micros(p.CreatedAt), nullMicros(p.DecidedAt))
	return err
}

const ageProofColumns = `id, environment, account_id, method, provider, result, identity_verification_id,
	business_id, request_id, country, created_at, decided_at`

func scanAgeProof(row interface{ Scan(...any) error }) (verifyd.AgeProof, error) {
	var p verifyd.AgeProof
	var env, method, result string
	var account, idv sql.NullString
	var created int64
	var decided sql.NullInt64
	if err := row.Scan(&p.ID, &env, &account, &method, &p.Provider, &result, &idv,
		&p.BusinessID, &p.RequestID, &p.Country, &created, &decided); err != nil {
		return verifyd.AgeProof{}, notFound(err)
	}
	p.Environment, p.Method, p.Result = verifyd.Environment(env), verifyd.AgeMethod(method), verifyd.AgeResult(result)
	p.AccountID, p.IdentityVerificationID = account.String, idv.String
	p.CreatedAt, p.DecidedAt = fromMicros(created), fromNullMicros(decided)
	return p, nil
}

// DecideAgeProof sets the result of a pending proof, once.
func (db *DB) DecideAgeProof(ctx context.Context, id string, result verifyd.AgeResult, at time.Time) (verifyd.AgeProof, error) {
	if !result.Decided() {
		return verifyd.AgeProof{}, verifyd.Errorf(verifyd.EInvalid, "a proof can only be decided as adult, minor or failed")
	}
	p, err := scanAgeProof(db.write.QueryRowContext(ctx, `UPDATE age_proofs SET result = $2, decided_at = $3
		WHERE id = $1 AND result = 'pending' RETURNING `+ageProofColumns, id, string(result), micros(at)))
	if !errors.Is(err, verifyd.ErrNotFound) {
		return p, err
	}
	// Either unknown or decided before: tell which.
	p, err = scanAgeProof(db.write.QueryRowContext(ctx, `SELECT `+ageProofColumns+` FROM age_proofs WHERE id = $1`, id))
	if err != nil {
		return verifyd.AgeProof{}, err
	}
	return p, verifyd.Errorf(verifyd.EConflict, "the proof was decided before (%s)", p.Result)
}

// AgeProof returns a proof of env by id.
func (db *DB) AgeProof(ctx context.Context, env verifyd.Environment, id string) (verifyd.AgeProof, error) {
	return scanAgeProof(db.read.QueryRowContext(ctx, `SELECT `+ageProofColumns+`
		FROM age_proofs WHERE environment = $1 AND id = $2`, string(env), id))
}

// AgeProofs lists an account's proofs, newest first.
func (db *DB) AgeProofs(ctx context.Context, env verifyd.Environment, accountID string) ([]verifyd.AgeProof, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+ageProofColumns+` FROM age_proofs
		WHERE environment = $1 AND account_id = $2 ORDER BY created_at DESC, id DESC`, string(env), accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []verifyd.AgeProof{}
	for rows.Next() {
		p, err := scanAgeProof(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

var _ verifyd.AgeAccountStore = (*DB)(nil)
