package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"time"

	"github.com/verifyd/verifyd"
)

// Credential ids are stored base64url (no padding): TEXT in both dialects.
func credentialKey(id []byte) string { return base64.RawURLEncoding.EncodeToString(id) }

// CreateAgeAccountWithPasskey stores an account and its first passkey in
// one transaction.
func (db *DB) CreateAgeAccountWithPasskey(ctx context.Context, a verifyd.AgeAccount, p verifyd.AgePasskey) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO age_accounts (id, environment, email, password_hash, created_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (environment, email) DO NOTHING`,
			a.ID, string(a.Environment), a.Email, a.PasswordHash, micros(a.CreatedAt))
		if err := oneRow(res, err, "an account with this e-mail address exists"); err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, `INSERT INTO age_passkeys (environment, credential_id, account_id, credential, created_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (environment, credential_id) DO NOTHING`,
			string(p.Environment), credentialKey(p.CredentialID), a.ID, string(p.Credential), micros(p.CreatedAt))
		return oneRow(res, err, "this passkey is registered already")
	})
}

// oneRow turns an INSERT … ON CONFLICT DO NOTHING that inserted nothing
// into an EConflict error.
func oneRow(res sql.Result, err error, conflict string) error {
	if err := affected(res, err); !errors.Is(err, verifyd.ErrNotFound) {
		return err
	}
	return verifyd.Errorf(verifyd.EConflict, "%s", conflict)
}

// AddAgePasskey stores another passkey of an account of the environment.
func (db *DB) AddAgePasskey(ctx context.Context, p verifyd.AgePasskey) error {
	res, err := db.write.ExecContext(ctx, `INSERT INTO age_passkeys (environment, credential_id, account_id, credential, created_at)
		SELECT a.environment, $2, a.id, $4, $5 FROM age_accounts a WHERE a.id = $3 AND a.environment = $1
		ON CONFLICT (environment, credential_id) DO NOTHING`,
		string(p.Environment), credentialKey(p.CredentialID), p.AccountID, string(p.Credential), micros(p.CreatedAt))
	err = oneRow(res, err, "this passkey is registered already")
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		if _, aerr := db.AgeAccount(ctx, p.Environment, p.AccountID); aerr != nil {
			return aerr
		}
	}
	return err
}

const agePasskeyColumns = `environment, credential_id, account_id, credential, created_at, last_used_at`

func scanAgePasskey(row interface{ Scan(...any) error }) (verifyd.AgePasskey, error) {
	var p verifyd.AgePasskey
	var env, id, cred string
	var created int64
	var used sql.NullInt64
	if err := row.Scan(&env, &id, &p.AccountID, &cred, &created, &used); err != nil {
		return verifyd.AgePasskey{}, notFound(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return verifyd.AgePasskey{}, err
	}
	p.Environment, p.CredentialID, p.Credential = verifyd.Environment(env), raw, []byte(cred)
	p.CreatedAt, p.LastUsedAt = fromMicros(created), fromNullMicros(used)
	return p, nil
}

// AgePasskey returns a passkey by credential id.
func (db *DB) AgePasskey(ctx context.Context, env verifyd.Environment, credentialID []byte) (verifyd.AgePasskey, error) {
	return scanAgePasskey(db.readRow(ctx, `SELECT `+agePasskeyColumns+` FROM age_passkeys
		WHERE environment = $1 AND credential_id = $2`, string(env), credentialKey(credentialID)))
}

// AgePasskeys lists an account's passkeys, oldest first.
func (db *DB) AgePasskeys(ctx context.Context, env verifyd.Environment, accountID string) ([]verifyd.AgePasskey, error) {
	rows, err := db.readRows(ctx, `SELECT `+agePasskeyColumns+` FROM age_passkeys
		WHERE environment = $1 AND account_id = $2 ORDER BY created_at, credential_id`, string(env), accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []verifyd.AgePasskey{}
	for rows.Next() {
		p, err := scanAgePasskey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// UseAgePasskey records a login with a passkey.
func (db *DB) UseAgePasskey(ctx context.Context, env verifyd.Environment, credentialID, credential []byte, at time.Time) error {
	res, err := db.write.ExecContext(ctx, `UPDATE age_passkeys SET credential = $3, last_used_at = $4
		WHERE environment = $1 AND credential_id = $2`, string(env), credentialKey(credentialID), string(credential), micros(at))
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

var _ verifyd.AgePasskeyStore = (*DB)(nil)
