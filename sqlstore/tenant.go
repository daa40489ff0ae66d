package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/verifyd/verifyd"
)

// CreateBusiness stores a business and its first credentials atomically.
func (db *DB) CreateBusiness(ctx context.Context, b verifyd.Business, creds []verifyd.StoredCredential) error {
	return db.inTx(ctx, func(tx *sql.Tx) error { return insertBusiness(ctx, tx, b, creds) })
}

// insertBusiness stores a business and its credentials in tx.
func insertBusiness(ctx context.Context, tx *sql.Tx, b verifyd.Business, creds []verifyd.StoredCredential) error {
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO businesses (id, name, created_at, direct_liveness, retention_days, sandbox_only) VALUES ($1, $2, $3, $4, $5, $6)`,
		b.ID, b.Name, micros(b.CreatedAt), string(directLiveness(b.DirectLiveness)), verifyd.DefaultRetentionDays, b.SandboxOnly); err != nil {
		return err
	}
	for _, c := range creds {
		if err := insertCredential(ctx, tx, c); err != nil {
			return err
		}
	}
	return nil
}

// directLiveness is the stored policy: the default for a business
// created without one.
func directLiveness(p verifyd.DirectLiveness) verifyd.DirectLiveness {
	if p == "" {
		return verifyd.DirectLivenessAuto
	}
	return p
}

// Business returns one business.
func (db *DB) Business(ctx context.Context, id string) (verifyd.Business, error) {
	var b verifyd.Business
	var created int64
	err := db.readRow(ctx, `SELECT id, name, created_at, direct_liveness, retention_days, sandbox_only FROM businesses WHERE id = $1`, id).
		Scan(&b.ID, &b.Name, &created, &b.DirectLiveness, &b.RetentionDays, &b.SandboxOnly)
	b.CreatedAt = fromMicros(created)
	return b, notFound(err)
}

// Businesses lists all businesses, oldest first.
func (db *DB) Businesses(ctx context.Context) ([]verifyd.Business, error) {
	rows, err := db.readRows(ctx, `SELECT id, name, created_at, direct_liveness, retention_days, sandbox_only FROM businesses ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.Business
	for rows.Next() {
		var b verifyd.Business
		var created int64
		if err := rows.Scan(&b.ID, &b.Name, &created, &b.DirectLiveness, &b.RetentionDays, &b.SandboxOnly); err != nil {
			return nil, err
		}
		b.CreatedAt = fromMicros(created)
		out = append(out, b)
	}
	return out, rows.Err()
}

// SetRetentionDays changes a business's retention and reschedules the
// purge of its finished identity-API verifications not purged yet.
func (db *DB) SetRetentionDays(ctx context.Context, id string, days int) error {
	if !verifyd.ValidRetentionDays(days) {
		return verifyd.Errorf(verifyd.EInvalid, "retention must be 0 to %d days", verifyd.MaxRetentionDays)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE businesses SET retention_days = $1 WHERE id = $2`, days, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return verifyd.ErrNotFound
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+verificationColumns+` FROM verifications
			WHERE business_id = $1 AND purged_at IS NULL AND status IN ('approved', 'failed', 'expired')
			ORDER BY updated_at, id`, id)
		if err != nil {
			return err
		}
		var jobs []Job
		for rows.Next() {
			v, err := scanVerification(rows)
			if err != nil {
				rows.Close()
				return err
			}
			if job, ok := retentionJob(v, days); ok {
				jobs = append(jobs, job)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if len(jobs) == 0 {
			return nil
		}
		return db.enqueue(ctx, tx, jobs...)
	})
}

// retentionJob is the purge job of a finished identity-API verification,
// due when its business's retention of days is over; ok is false for a
// verification that gets none (internal ones are purged at once by
// transitionTx, unfinished ones when they finish).
func retentionJob(v verifyd.Verification, days int) (Job, bool) {
	if v.Internal() || v.PurgedAt != nil {
		return Job{}, false
	}
	due, ok := v.RetentionDue(days)
	if !ok {
		return Job{}, false
	}
	return Job{Kind: JobPurgeVerification, Subject: v.ID, RunAt: due}, true
}

// retentionDays reads a business's retention inside tx.
func retentionDays(ctx context.Context, tx *sql.Tx, businessID string) (int, error) {
	var days int
	err := tx.QueryRowContext(ctx, `SELECT retention_days FROM businesses WHERE id = $1`, businessID).Scan(&days)
	return days, notFound(err)
}

// SetDirectLiveness changes a business's policy for direct submissions.
func (db *DB) SetDirectLiveness(ctx context.Context, id string, p verifyd.DirectLiveness) error {
	res, err := db.write.ExecContext(ctx, `UPDATE businesses SET direct_liveness = $1 WHERE id = $2`, string(p), id)
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

// CreateCredential stores one more credential of an existing business.
func (db *DB) CreateCredential(ctx context.Context, c verifyd.StoredCredential) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM businesses WHERE id = $1`, c.BusinessID).Scan(&one)
		if err != nil {
			return notFound(err)
		}
		return insertCredential(ctx, tx, c)
	})
}

func insertCredential(ctx context.Context, tx *sql.Tx, c verifyd.StoredCredential) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO credentials
		(api_key, business_id, interface, environment, sealed_secret, created_at, revoked_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		c.APIKey, c.BusinessID, string(c.Interface), string(c.Environment), c.SealedSecret,
		micros(c.CreatedAt), nullMicros(c.RevokedAt))
	return err
}

const credentialColumns = `api_key, business_id, interface, environment, sealed_secret, created_at, revoked_at`

type scanner interface{ Scan(dest ...any) error }

func scanCredential(s scanner) (verifyd.StoredCredential, error) {
	var c verifyd.StoredCredential
	var iface, env string
	var created int64
	var revoked sql.NullInt64
	if err := s.Scan(&c.APIKey, &c.BusinessID, &iface, &env, &c.SealedSecret, &created, &revoked); err != nil {
		return c, notFound(err)
	}
	c.Interface, c.Environment = verifyd.Interface(iface), verifyd.Environment(env)
	c.CreatedAt, c.RevokedAt = fromMicros(created), fromNullMicros(revoked)
	return c, nil
}

// Credential returns the credential with the given key.
func (db *DB) Credential(ctx context.Context, apiKey string) (verifyd.StoredCredential, error) {
	return scanCredential(db.readRow(ctx,
		`SELECT `+credentialColumns+` FROM credentials WHERE api_key = $1`, apiKey))
}

// Credentials lists a business's credentials, oldest first.
func (db *DB) Credentials(ctx context.Context, businessID string) ([]verifyd.StoredCredential, error) {
	rows, err := db.readRows(ctx, `SELECT `+credentialColumns+` FROM credentials
		WHERE business_id = $1 ORDER BY created_at, api_key`, businessID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.StoredCredential
	for rows.Next() {
		c, err := scanCredential(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RevokeCredential marks a key revoked, keeping an earlier revocation time.
func (db *DB) RevokeCredential(ctx context.Context, apiKey string, at time.Time) (verifyd.StoredCredential, error) {
	return scanCredential(db.write.QueryRowContext(ctx, `UPDATE credentials
		SET revoked_at = COALESCE(revoked_at, $2) WHERE api_key = $1
		RETURNING `+credentialColumns, apiKey, micros(at)))
}

// Redirects returns a list in insertion order.
func (db *DB) Redirects(ctx context.Context, l verifyd.RedirectList) ([]string, error) {
	rows, err := db.readRows(ctx, `SELECT url FROM redirect_urls
		WHERE business_id = $1 AND interface = $2 AND environment = $3 ORDER BY position, url`,
		l.BusinessID, string(l.Interface), string(l.Environment))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// RedirectAllowed reports whether url is on the list.
func (db *DB) RedirectAllowed(ctx context.Context, l verifyd.RedirectList, url string) (bool, error) {
	var n int
	err := db.readRow(ctx, `SELECT COUNT(*) FROM redirect_urls
		WHERE business_id = $1 AND interface = $2 AND environment = $3 AND url = $4`,
		l.BusinessID, string(l.Interface), string(l.Environment), url).Scan(&n)
	return n > 0, err
}

// AddRedirects appends the URLs not yet on the list.
func (db *DB) AddRedirects(ctx context.Context, l verifyd.RedirectList, urls []string) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := db.lockRedirects(ctx, tx, l); err != nil {
			return err
		}
		return addRedirects(ctx, tx, l, urls)
	})
}

// ReplaceRedirects makes the list exactly urls.
func (db *DB) ReplaceRedirects(ctx context.Context, l verifyd.RedirectList, urls []string) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := db.lockRedirects(ctx, tx, l); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM redirect_urls
			WHERE business_id = $1 AND interface = $2 AND environment = $3`,
			l.BusinessID, string(l.Interface), string(l.Environment)); err != nil {
			return err
		}
		return addRedirects(ctx, tx, l, urls)
	})
}

// RemoveRedirects deletes the given URLs.
func (db *DB) RemoveRedirects(ctx context.Context, l verifyd.RedirectList, urls []string) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := db.lockRedirects(ctx, tx, l); err != nil {
			return err
		}
		for _, u := range urls {
			if _, err := tx.ExecContext(ctx, `DELETE FROM redirect_urls
				WHERE business_id = $1 AND interface = $2 AND environment = $3 AND url = $4`,
				l.BusinessID, string(l.Interface), string(l.Environment), u); err != nil {
				return err
			}
		}
		return nil
	})
}

// lockRedirects serializes the transactions that change a business's
// redirect lists. SQLite needs nothing: its transactions take the single
// write lock at BEGIN. PostgreSQL's READ COMMITTED transactions would each
// count the rows committed before them and together overshoot MaxRedirects
// (and reuse positions), so they lock the business row first. NO KEY UPDATE
// does not conflict with the key-share locks that inserts referencing the
// business take.
func (db *DB) lockRedirects(ctx context.Context, tx *sql.Tx, l verifyd.RedirectList) error {
	if db.dialect != Postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT 1 FROM businesses WHERE id = $1 FOR NO KEY UPDATE`, l.BusinessID)
	return err
}

// addRedirects inserts urls after the current last position and enforces
// the size limit inside the transaction, which lockRedirects keeps
// concurrent changes out of.
func addRedirects(ctx context.Context, tx *sql.Tx, l verifyd.RedirectList, urls []string) error {
	var count int
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), MAX(position) FROM redirect_urls
		WHERE business_id = $1 AND interface = $2 AND environment = $3`,
		l.BusinessID, string(l.Interface), string(l.Environment)).Scan(&count, &last); err != nil {
		return err
	}
	pos := last.Int64
	for _, u := range urls {
		pos++
		res, err := tx.ExecContext(ctx, `INSERT INTO redirect_urls (business_id, interface, environment, url, position)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
			l.BusinessID, string(l.Interface), string(l.Environment), u, pos)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			count++
		}
	}
	if count > verifyd.MaxRedirects {
		return verifyd.Errorf(verifyd.EBadRequest, "at most %d redirect URLs are allowed", verifyd.MaxRedirects)
	}
	return nil
}

// PutSettingIfAbsent stores value unless name already has one.
func (db *DB) PutSettingIfAbsent(ctx context.Context, name string, value []byte) ([]byte, error) {
	var stored []byte
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
			ON CONFLICT (name) DO NOTHING`, name, value); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&stored)
	})
	return stored, err
}

// Setting returns the value stored under name.
func (db *DB) Setting(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := db.readRow(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&v)
	return v, notFound(err)
}
