package sqlstore

import (
	"context"
	"database/sql"
	"math"
	"time"

	"github.com/verifyd/verifyd"
)

// ListVerifications lists a business's identity-API verifications for the
// dashboard. Two query texts (with and without a search) serve every
// filter combination (an empty value or a zero bound disables its
// condition), so they are prepared once.
func (db *DB) ListVerifications(ctx context.Context, q verifyd.VerificationQuery) ([]verifyd.Verification, error) {
	from, before := int64(math.MinInt64), int64(math.MaxInt64)
	if !q.CreatedFrom.IsZero() {
		from = micros(q.CreatedFrom)
	}
	if !q.CreatedBefore.IsZero() {
		before = micros(q.CreatedBefore)
	}
	// Without a cursor, a position after every row.
	afterAt, afterID := int64(math.MaxInt64), ""
	if q.After != nil {
		afterAt, afterID = micros(q.After.CreatedAt), q.After.ID
	}
	// A search is its own query text: with "$7 = '' OR …" PostgreSQL's
	// generic plan for the prepared statement cannot use the id and
	// customer indexes (a BitmapOr of both here). SQLite without
	// statistics (ANALYZE) walks the business's created_at index instead
	// (docs/dashboard-data.md has the cost).
	search := `$7 = ''`
	if q.Search != "" {
		search = `(id = $7 OR customer_id = $7)`
	}
	rows, err := db.readRows(ctx, `SELECT `+verificationColumns+` FROM verifications
		WHERE business_id = $1 AND webhook <> ''
		AND ($2 = '' OR environment = $2) AND ($3 = '' OR status = $3) AND ($4 = '' OR reason = $4)
		AND created_at >= $5 AND created_at < $6
		AND `+search+`
		AND (created_at < $8 OR (created_at = $8 AND id < $9))
		ORDER BY created_at DESC, id DESC LIMIT $10`,
		q.BusinessID, string(q.Environment), string(q.Status), string(q.Reason), from, before,
		q.Search, afterAt, afterID, verifyd.ListLimit(q.Limit))
	return collect(rows, err, scanVerification)
}

// RecordConsent records the customer's consent on the hosted page, keeping
// the first.
func (db *DB) RecordConsent(ctx context.Context, id string, at time.Time) (verifyd.Verification, error) {
	var v verifyd.Verification
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if v, err = db.lockVerification(ctx, tx, id); err != nil {
			return err
		}
		if v.Status.Terminal() {
			return verifyd.Errorf(verifyd.EConflict, "a %s verification takes no consent", v.Status)
		}
		if v.ConsentedAt != nil {
			return nil
		}
		t := fromMicros(micros(at))
		v.ConsentedAt = &t
		_, err = tx.ExecContext(ctx, `UPDATE verifications SET consented_at = $2 WHERE id = $1`, id, micros(at))
		return err
	})
	return v, err
}

// Branding returns a business's branding without the logo's bytes.
func (db *DB) Branding(ctx context.Context, businessID string) (verifyd.Branding, error) {
	var b verifyd.Branding
	var format sql.NullString
	var width, height sql.NullInt64
	var sum []byte
	var updated sql.NullInt64
	err := db.readRow(ctx, `SELECT b.id, COALESCE(r.display_name, ''), COALESCE(r.accent_colour, ''),
		COALESCE(r.support_email, ''), COALESCE(r.privacy_url, ''), r.logo_format, r.logo_width, r.logo_height,
		r.logo_sha256, r.updated_at
		FROM businesses b LEFT JOIN business_branding r ON r.business_id = b.id WHERE b.id = $1`, businessID).
		Scan(&b.BusinessID, &b.DisplayName, &b.AccentColour, &b.SupportEmail, &b.PrivacyURL,
			&format, &width, &height, &sum, &updated)
	if err != nil {
		return verifyd.Branding{}, notFound(err)
	}
	if format.String != "" {
		b.Logo = &verifyd.Logo{Format: format.String, Width: int(width.Int64), Height: int(height.Int64), SHA256: sum}
	}
	if updated.Valid {
		b.UpdatedAt = fromMicros(updated.Int64)
	}
	return b, nil
}

// SetBranding stores the text fields of a business's branding and its
// logo change together.
func (db *DB) SetBranding(ctx context.Context, b verifyd.Branding, logo verifyd.LogoChange) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := businessExists(ctx, tx, b.BusinessID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO business_branding
			(business_id, display_name, accent_colour, support_email, privacy_url, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (business_id) DO UPDATE SET display_name = excluded.display_name,
			accent_colour = excluded.accent_colour, support_email = excluded.support_email,
			privacy_url = excluded.privacy_url, updated_at = excluded.updated_at`,
			b.BusinessID, b.DisplayName, b.AccentColour, b.SupportEmail, b.PrivacyURL, micros(b.UpdatedAt)); err != nil {
			return err
		}
		if logo.Set == nil && !logo.Remove {
			return nil
		}
		var data, sum []byte
		var format string
		var width, height int
		if l := logo.Set; l != nil {
			data, sum, format, width, height = l.Bytes, l.SHA256, l.Format, l.Width, l.Height
		}
		_, err := tx.ExecContext(ctx, `UPDATE business_branding SET logo = $2, logo_format = $3, logo_width = $4,
			logo_height = $5, logo_sha256 = $6 WHERE business_id = $1`, b.BusinessID, data, format, width, height, sum)
		return err
	})
}

// Logo returns a business's logo with its bytes.
func (db *DB) Logo(ctx context.Context, businessID string) (verifyd.Logo, error) {
	var l verifyd.Logo
	err := db.readRow(ctx, `SELECT logo_format, logo_width, logo_height, logo_sha256, logo
		FROM business_branding WHERE business_id = $1 AND logo_format <> ''`, businessID).
		Scan(&l.Format, &l.Width, &l.Height, &l.SHA256, &l.Bytes)
	return l, notFound(err)
}

func businessExists(ctx context.Context, tx *sql.Tx, id string) error {
	var one int
	return notFound(tx.QueryRowContext(ctx, `SELECT 1 FROM businesses WHERE id = $1`, id).Scan(&one))
}

// RecordWebhookTest stores a test event.
func (db *DB) RecordWebhookTest(ctx context.Context, w verifyd.WebhookTest) error {
	res, err := db.write.ExecContext(ctx, `INSERT INTO webhook_tests
		(id, business_id, environment, api_key, url, payload, at, status_code, latency_us, error, actor)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
		w.ID, w.BusinessID, string(w.Environment), w.APIKey, w.URL, w.Payload, micros(w.At), w.StatusCode,
		w.Latency.Microseconds(), w.Error, w.Actor)
	return oneRow(res, err, "a test event with this id exists")
}

// WebhookTests lists a business's test events, newest first.
func (db *DB) WebhookTests(ctx context.Context, businessID string, limit int) ([]verifyd.WebhookTest, error) {
	rows, err := db.readRows(ctx, `SELECT id, business_id, environment, api_key, url, payload, at,
		status_code, latency_us, error, actor FROM webhook_tests WHERE business_id = $1
		ORDER BY at DESC, id DESC LIMIT $2`, businessID, verifyd.ListLimit(limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.WebhookTest
	for rows.Next() {
		var w verifyd.WebhookTest
		var env string
		var at, latency int64
		if err := rows.Scan(&w.ID, &w.BusinessID, &env, &w.APIKey, &w.URL, &w.Payload, &at,
			&w.StatusCode, &latency, &w.Error, &w.Actor); err != nil {
			return nil, err
		}
		w.Environment, w.At, w.Latency = verifyd.Environment(env), fromMicros(at), time.Duration(latency)*time.Microsecond
		out = append(out, w)
	}
	return out, rows.Err()
}
