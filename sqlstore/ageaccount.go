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

const ageAccountColumns = `id, environment, email, password_hash, created_at, email_confirmed_at`

func scanAgeAccount(row interface{ Scan(...any) error }) (verifyd.AgeAccount, error) {
	var a verifyd.AgeAccount
	var env string
	var created int64
	var confirmed sql.NullInt64
	if err := row.Scan(&a.ID, &env, &a.Email, &a.PasswordHash, &created, &confirmed); err != nil {
		return verifyd.AgeAccount{}, notFound(err)
	}
	a.Environment, a.CreatedAt, a.EmailConfirmedAt = verifyd.Environment(env), fromMicros(created), fromNullMicros(confirmed)
	return a, nil
}

// AgeAccountByEmail returns the account with the address in env.
func (db *DB) AgeAccountByEmail(ctx context.Context, env verifyd.Environment, email string) (verifyd.AgeAccount, error) {
	return scanAgeAccount(db.readRow(ctx, `SELECT `+ageAccountColumns+`
		FROM age_accounts WHERE environment = $1 AND email = $2`, string(env), email))
}

// AgeAccount returns an account of env by id.
func (db *DB) AgeAccount(ctx context.Context, env verifyd.Environment, id string) (verifyd.AgeAccount, error) {
	return scanAgeAccount(db.readRow(ctx, `SELECT `+ageAccountColumns+`
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
	return scanAgeProof(db.readRow(ctx, `SELECT `+ageProofColumns+`
		FROM age_proofs WHERE environment = $1 AND id = $2`, string(env), id))
}

// AgeProofs lists an account's proofs, newest first.
func (db *DB) AgeProofs(ctx context.Context, env verifyd.Environment, accountID string) ([]verifyd.AgeProof, error) {
	rows, err := db.readRows(ctx, `SELECT `+ageProofColumns+` FROM age_proofs
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

// DeleteAgeAccount erases an account and everything tied to it in one
// transaction (docs/age.md, account deletion).
func (db *DB) DeleteAgeAccount(ctx context.Context, d verifyd.AgeAccountDeletion) (verifyd.AgeAccountDeleted, error) {
	var out verifyd.AgeAccountDeleted
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		out = verifyd.AgeAccountDeleted{Verifications: []string{}}
		// Lock the account first: on PostgreSQL a concurrent proof or code
		// for it (a foreign key) waits and then fails; SQLite's write
		// transactions are exclusive.
		q := `SELECT id FROM age_accounts WHERE environment = $1 AND id = $2`
		if db.dialect == Postgres {
			q += ` FOR UPDATE`
		}
		var id string
		if err := tx.QueryRowContext(ctx, q, string(d.Environment), d.AccountID).Scan(&id); err != nil {
			return notFound(err)
		}
		at := micros(d.At)
		// Its internal verifications: those of its document proofs, and
		// those created for it (the customer id is the account's, see
		// agehosted) whose proof was never stored or is gone. UNION
		// removes duplicates.
		rows, err := tx.QueryContext(ctx, `SELECT identity_verification_id FROM age_proofs
			WHERE account_id = $1 AND identity_verification_id IS NOT NULL
			UNION SELECT id FROM verifications WHERE environment = $2 AND customer_id = $1
			AND webhook = '' AND hosted_token_hash IS NULL
			ORDER BY 1`, id, string(d.Environment))
		if err != nil {
			return err
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return err
			}
			out.Verifications = append(out.Verifications, v)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, vid := range out.Verifications {
			ended, err := db.endForDeletedAccount(ctx, tx, vid, d.At)
			if err != nil {
				return err
			}
			if ended {
				out.Ended++
			}
		}
		count := func(dst *int, stmt string, args ...any) error {
			res, err := tx.ExecContext(ctx, stmt, args...)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			*dst = int(n)
			return err
		}
		var unlinked int
		for _, step := range []struct {
			dst  *int
			stmt string
			args []any
		}{
			{&out.RevokedTokens, `UPDATE age_tokens SET revoked_at = $2 WHERE revoked_at IS NULL
				AND code_hash IN (SELECT code_hash FROM age_codes WHERE account_id = $1)`, []any{id, at}},
			{&out.ExpiredCodes, `UPDATE age_codes SET expires_at = $2
				WHERE account_id = $1 AND used_at IS NULL AND expires_at > $2`, []any{id, at}},
			{&unlinked, `UPDATE age_codes SET account_id = NULL WHERE account_id = $1`, []any{id}},
			{&out.Proofs, `DELETE FROM age_proofs WHERE account_id = $1`, []any{id}},
			{&out.Consents, `DELETE FROM age_consents WHERE account_id = $1`, []any{id}},
			{&out.Passkeys, `DELETE FROM age_passkeys WHERE account_id = $1`, []any{id}},
			{&out.MailTokens, `DELETE FROM age_mail_tokens WHERE account_id = $1`, []any{id}},
			{&out.Sessions, `DELETE FROM web_sessions WHERE realm = $1 AND subject = $2`, []any{d.SessionRealm, id}},
		} {
			if err := count(step.dst, step.stmt, step.args...); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM age_accounts WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return verifyd.AgeAccountDeleted{}, err
	}
	return out, nil
}

// endForDeletedAccount removes the customer's id and address from an
// internal verification of a deleted account and, when it is not
// finished, ends it as expired (cause account_deleted) through the same
// transition as TransitionVerification, whose purge job deletes its photos
// and evidence; a pipeline run still under way can then neither decide it
// nor be recorded. It reports whether it ended it.
func (db *DB) endForDeletedAccount(ctx context.Context, tx *sql.Tx, id string, at time.Time) (bool, error) {
	v, err := db.lockVerification(ctx, tx, id)
	if err != nil {
		return false, err
	}
	if !v.Internal() {
		return false, verifyd.Errorf(verifyd.EConflict, "verification %s belongs to the identity API", id)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE verifications SET customer_id = '', customer_email = '', customer_phone = ''
		WHERE id = $1`, id); err != nil {
		return false, err
	}
	v.Customer = verifyd.Customer{}
	if v.Status.Terminal() {
		// Its purge job was enqueued with the decision.
		return false, nil
	}
	// An internal verification has no webhook, so no event id is needed.
	if _, err := db.transitionTx(ctx, tx, v, verifyd.Transition{VerificationID: id, To: verifyd.StatusExpired,
		Cause: verifyd.CauseAccountDeleted, At: at}, ""); err != nil {
		return false, err
	}
	return true, nil
}

var _ verifyd.AgeAccountStore = (*DB)(nil)
