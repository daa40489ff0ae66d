package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/verifyd/verifyd"
)

// CreateOperator stores a new operator; an existing username is EConflict.
func (db *DB) CreateOperator(ctx context.Context, o verifyd.Operator) error {
	res, err := db.write.ExecContext(ctx, `INSERT INTO operators (username, password_hash, created_at, disabled_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (username) DO NOTHING`,
		o.Username, o.PasswordHash, micros(o.CreatedAt), nullMicros(o.DisabledAt))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return verifyd.Errorf(verifyd.EConflict, "an operator named %q exists", o.Username)
	}
	return nil
}

const operatorColumns = `username, password_hash, created_at, disabled_at`

func scanOperator(row interface{ Scan(...any) error }) (verifyd.Operator, error) {
	var o verifyd.Operator
	var created int64
	var disabled sql.NullInt64
	if err := row.Scan(&o.Username, &o.PasswordHash, &created, &disabled); err != nil {
		return verifyd.Operator{}, notFound(err)
	}
	o.CreatedAt, o.DisabledAt = fromMicros(created), fromNullMicros(disabled)
	return o, nil
}

// Operator returns one operator.
func (db *DB) Operator(ctx context.Context, username string) (verifyd.Operator, error) {
	return scanOperator(db.readRow(ctx, `SELECT `+operatorColumns+` FROM operators WHERE username = $1`, username))
}

// Operators lists every operator, oldest first.
func (db *DB) Operators(ctx context.Context) ([]verifyd.Operator, error) {
	rows, err := db.readRows(ctx, `SELECT `+operatorColumns+` FROM operators ORDER BY created_at, username`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []verifyd.Operator{}
	for rows.Next() {
		o, err := scanOperator(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// DisableOperator marks an operator disabled, keeping the first time.
func (db *DB) DisableOperator(ctx context.Context, username string, at time.Time) (verifyd.Operator, error) {
	return scanOperator(db.write.QueryRowContext(ctx, `UPDATE operators SET disabled_at = COALESCE(disabled_at, $2)
		WHERE username = $1 RETURNING `+operatorColumns, username, micros(at)))
}

// CreateSession stores a session and deletes sessions that had expired by
// its creation, so the table does not grow without bound.
func (db *DB) CreateSession(ctx context.Context, s verifyd.WebSession) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_sessions WHERE expires_at <= $1`, micros(s.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO web_sessions (token_hash, realm, subject, created_at, last_seen_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, s.TokenHash, s.Realm, s.Subject, micros(s.CreatedAt), micros(s.LastSeenAt), micros(s.ExpiresAt))
		return err
	})
}

// Session returns the session whose token hashes to tokenHash.
func (db *DB) Session(ctx context.Context, tokenHash []byte) (verifyd.WebSession, error) {
	var s verifyd.WebSession
	var created, seen, expires int64
	err := db.readRow(ctx, `SELECT token_hash, realm, subject, created_at, last_seen_at, expires_at
		FROM web_sessions WHERE token_hash = $1`, tokenHash).Scan(&s.TokenHash, &s.Realm, &s.Subject, &created, &seen, &expires)
	if err != nil {
		return verifyd.WebSession{}, notFound(err)
	}
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = fromMicros(created), fromMicros(seen), fromMicros(expires)
	return s, nil
}

// TouchSession moves a session's last activity forward.
func (db *DB) TouchSession(ctx context.Context, tokenHash []byte, at time.Time) error {
	_, err := db.write.ExecContext(ctx, `UPDATE web_sessions SET last_seen_at = $2
		WHERE token_hash = $1 AND last_seen_at < $2`, tokenHash, micros(at))
	return err
}

// DeleteSession removes one session.
func (db *DB) DeleteSession(ctx context.Context, tokenHash []byte) error {
	_, err := db.write.ExecContext(ctx, `DELETE FROM web_sessions WHERE token_hash = $1`, tokenHash)
	return err
}

// DeleteSessions removes every session of a subject in a realm.
func (db *DB) DeleteSessions(ctx context.Context, realm, subject string) (int, error) {
	res, err := db.write.ExecContext(ctx, `DELETE FROM web_sessions WHERE realm = $1 AND subject = $2`, realm, subject)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

var _ verifyd.OperatorStore = (*DB)(nil)
