package sqlstore

import (
	"context"

	"github.com/verifyd/verifyd"
)

// GrantAgeConsent records a consent; granting again keeps the first time.
// The INSERT … SELECT finds nothing to insert for an unknown account (of
// the environment) or business, which is then told apart from a consent
// that exists.
func (db *DB) GrantAgeConsent(ctx context.Context, c verifyd.AgeConsent) error {
	res, err := db.write.ExecContext(ctx, `INSERT INTO age_consents (account_id, business_id, environment, granted_at)
		SELECT a.id, b.id, a.environment, $4 FROM age_accounts a, businesses b
		WHERE a.id = $1 AND a.environment = $3 AND b.id = $2
		ON CONFLICT (account_id, business_id) DO NOTHING`,
		c.AccountID, c.BusinessID, string(c.Environment), micros(c.GrantedAt))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	_, err = db.AgeConsent(ctx, c.Environment, c.AccountID, c.BusinessID)
	return err
}

const ageConsentSelect = `SELECT c.environment, c.account_id, c.business_id, b.name, c.granted_at
	FROM age_consents c JOIN businesses b ON b.id = c.business_id`

func scanAgeConsent(row interface{ Scan(...any) error }) (verifyd.AgeConsent, error) {
	var c verifyd.AgeConsent
	var env string
	var granted int64
	if err := row.Scan(&env, &c.AccountID, &c.BusinessID, &c.BusinessName, &granted); err != nil {
		return verifyd.AgeConsent{}, notFound(err)
	}
	c.Environment, c.GrantedAt = verifyd.Environment(env), fromMicros(granted)
	return c, nil
}

// AgeConsent returns an account's consent for a business.
func (db *DB) AgeConsent(ctx context.Context, env verifyd.Environment, accountID, businessID string) (verifyd.AgeConsent, error) {
	return scanAgeConsent(db.readRow(ctx, ageConsentSelect+`
		WHERE c.environment = $1 AND c.account_id = $2 AND c.business_id = $3`, string(env), accountID, businessID))
}

// AgeConsents lists an account's consents, most recent first.
func (db *DB) AgeConsents(ctx context.Context, env verifyd.Environment, accountID string) ([]verifyd.AgeConsent, error) {
	rows, err := db.readRows(ctx, ageConsentSelect+`
		WHERE c.environment = $1 AND c.account_id = $2 ORDER BY c.granted_at DESC, c.business_id`, string(env), accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []verifyd.AgeConsent{}
	for rows.Next() {
		c, err := scanAgeConsent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RevokeAgeConsent deletes a consent.
func (db *DB) RevokeAgeConsent(ctx context.Context, env verifyd.Environment, accountID, businessID string) error {
	res, err := db.write.ExecContext(ctx, `DELETE FROM age_consents
		WHERE environment = $1 AND account_id = $2 AND business_id = $3`, string(env), accountID, businessID)
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

var _ verifyd.AgeConsentStore = (*DB)(nil)
