package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/verifyd/verifyd"
)

// CreateVerification stores a verification and its sealed images together.
func (db *DB) CreateVerification(ctx context.Context, v verifyd.Verification, images []verifyd.StoredImage) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO verifications (id, business_id, environment, api_key,
			customer_id, customer_email, customer_phone, redirect_uri, webhook, flow, status, reason,
			document_type, document_country, hosted_token_hash, sealed_hosted_token,
			created_at, updated_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
			v.ID, v.BusinessID, string(v.Environment), v.APIKey,
			v.Customer.ID, v.Customer.Email, v.Customer.Phone, v.RedirectURI, v.Webhook,
			string(v.Flow), string(v.Status), string(v.Reason),
			string(v.Document.Type), v.Document.Country, v.HostedTokenHash, v.SealedHostedToken,
			micros(v.CreatedAt), micros(v.UpdatedAt), micros(v.ExpiresAt)); err != nil {
			return err
		}
		if _, err := appendStatusEvent(ctx, tx, verifyd.StatusEvent{VerificationID: v.ID, At: v.CreatedAt,
			To: v.Status, Cause: verifyd.CauseCreated}); err != nil {
			return err
		}
		// Expiry is scheduled per verification at its due time, so it happens
		// on time and costs nothing for verifications that finish first.
		jobs := []Job{{Kind: JobExpireVerification, Subject: v.ID, RunAt: v.DueAt()}}
		if len(images) > 0 {
			jobs = append(jobs, Job{Kind: JobProcessVerification, Subject: v.ID})
		}
		if err := db.enqueue(ctx, tx, jobs...); err != nil {
			return err
		}
		if err := insertImages(ctx, tx, v.ID, images); err != nil {
			return err
		}
		return nil
	})
}

func insertImages(ctx context.Context, tx *sql.Tx, id string, images []verifyd.StoredImage) error {
	for _, im := range images {
		if _, err := tx.ExecContext(ctx, `INSERT INTO verification_images
				(verification_id, kind, format, width, height, sha256, sealed)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			id, string(im.Kind), im.Format, im.Width, im.Height, im.SHA256, im.Sealed); err != nil {
			return err
		}
	}
	return nil
}

const verificationColumns = `id, business_id, environment, api_key, customer_id, customer_email,
	customer_phone, redirect_uri, webhook, flow, status, reason, document_type, document_country,
	hosted_token_hash, sealed_hosted_token, created_at, updated_at, expires_at, clock_offset_us,
	review, submissions, document_hash, hosted_submissions, hosted_submitted_run, purged_at, redacted_at, consented_at`

func scanVerification(s scanner) (verifyd.Verification, error) {
	var v verifyd.Verification
	var env, flow, status, reason, docType, review string
	var created, updated, expires, offset int64
	var purged, redacted, consented sql.NullInt64
	err := s.Scan(&v.ID, &v.BusinessID, &env, &v.APIKey, &v.Customer.ID, &v.Customer.Email,
		&v.Customer.Phone, &v.RedirectURI, &v.Webhook, &flow, &status, &reason, &docType,
		&v.Document.Country, &v.HostedTokenHash, &v.SealedHostedToken, &created, &updated, &expires, &offset,
		&review, &v.Submissions, &v.DocumentHash, &v.HostedSubmissions, &v.HostedSubmittedRun, &purged, &redacted, &consented)
	if err != nil {
		return v, notFound(err)
	}
	v.Environment, v.Flow = verifyd.Environment(env), verifyd.Flow(flow)
	v.Status, v.Reason = verifyd.Status(status), verifyd.Reason(reason)
	v.Document.Type = verifyd.DocumentType(docType)
	v.CreatedAt, v.UpdatedAt, v.ExpiresAt = fromMicros(created), fromMicros(updated), fromMicros(expires)
	v.ClockOffset = time.Duration(offset) * time.Microsecond
	v.Review = verifyd.ReviewState(review)
	v.PurgedAt, v.RedactedAt, v.ConsentedAt = fromNullMicros(purged), fromNullMicros(redacted), fromNullMicros(consented)
	return v, nil
}

// Verification returns a verification of the given business and environment.
func (db *DB) Verification(ctx context.Context, businessID string, env verifyd.Environment, id string) (verifyd.Verification, error) {
	return scanVerification(db.readRow(ctx, `SELECT `+verificationColumns+`
		FROM verifications WHERE id = $1 AND business_id = $2 AND environment = $3`,
		id, businessID, string(env)))
}

// VerificationSummary returns B3's fields of a verification of the given
// business and environment.
func (db *DB) VerificationSummary(ctx context.Context, businessID string, env verifyd.Environment, id string) (verifyd.VerificationSummary, error) {
	var v verifyd.VerificationSummary
	var status, reason string
	err := db.readRow(ctx, `SELECT customer_id, customer_email, customer_phone, webhook, status, reason,
		sealed_hosted_token FROM verifications WHERE id = $1 AND business_id = $2 AND environment = $3`,
		id, businessID, string(env)).Scan(&v.Customer.ID, &v.Customer.Email, &v.Customer.Phone,
		&v.Webhook, &status, &reason, &v.SealedHostedToken)
	if err != nil {
		return verifyd.VerificationSummary{}, notFound(err)
	}
	// id, business and environment matched exactly, so they need no
	// column of their own.
	v.ID, v.Environment = id, env
	v.Status, v.Reason = verifyd.Status(status), verifyd.Reason(reason)
	return v, nil
}

// VerificationByHostedToken finds a verification by its hosted-page token hash.
func (db *DB) VerificationByHostedToken(ctx context.Context, hash []byte) (verifyd.Verification, error) {
	return scanVerification(db.readRow(ctx, `SELECT `+verificationColumns+`
		FROM verifications WHERE hosted_token_hash = $1`, hash))
}

// Images returns the sealed images of a verification.
func (db *DB) Images(ctx context.Context, verificationID string) ([]verifyd.StoredImage, error) {
	rows, err := db.readRows(ctx, `SELECT kind, format, width, height, sha256, sealed
		FROM verification_images WHERE verification_id = $1 ORDER BY kind`, verificationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verifyd.StoredImage
	for rows.Next() {
		var im verifyd.StoredImage
		var kind string
		if err := rows.Scan(&kind, &im.Format, &im.Width, &im.Height, &im.SHA256, &im.Sealed); err != nil {
			return nil, err
		}
		im.Kind = verifyd.ImageKind(kind)
		out = append(out, im)
	}
	return out, rows.Err()
}

var _ verifyd.Store = (*DB)(nil)
