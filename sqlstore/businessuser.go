package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"time"

	"github.com/verifyd/verifyd"
)

// Business users and invitations of the dashboard (verifyd.BusinessUserStore).

// CreateInvitation stores an invitation of an existing business.
func (db *DB) CreateInvitation(ctx context.Context, inv verifyd.Invitation) error {
	res, err := db.write.ExecContext(ctx, `INSERT INTO business_invitations
		(token_hash, business_id, email, role, actor_kind, actor, created_at, expires_at)
		SELECT $1, id, $3, $4, $5, $6, $7, $8 FROM businesses WHERE id = $2`,
		inv.TokenHash, inv.BusinessID, inv.Email, string(inv.Role), string(inv.InvitedBy.Kind), inv.InvitedBy.Name,
		micros(inv.CreatedAt), micros(inv.ExpiresAt))
	return affected(res, err)
}

const invitationColumns = `token_hash, business_id, email, role, actor_kind, actor, created_at, expires_at, accepted_at`

func scanInvitation(row scanner) (verifyd.Invitation, error) {
	var inv verifyd.Invitation
	var role, kind string
	var created, expires int64
	var accepted sql.NullInt64
	if err := row.Scan(&inv.TokenHash, &inv.BusinessID, &inv.Email, &role, &kind, &inv.InvitedBy.Name,
		&created, &expires, &accepted); err != nil {
		return verifyd.Invitation{}, notFound(err)
	}
	inv.Role, inv.InvitedBy.Kind = verifyd.Role(role), verifyd.ActorKind(kind)
	inv.CreatedAt, inv.ExpiresAt, inv.AcceptedAt = fromMicros(created), fromMicros(expires), fromNullMicros(accepted)
	return inv, nil
}

// Invitation returns an invitation by the hash of its token.
func (db *DB) Invitation(ctx context.Context, hash []byte) (verifyd.Invitation, error) {
	return scanInvitation(db.readRow(ctx, `SELECT `+invitationColumns+` FROM business_invitations WHERE token_hash = $1`, hash))
}

// Invitations lists a business's open invitations, oldest first.
func (db *DB) Invitations(ctx context.Context, businessID string, now time.Time) ([]verifyd.Invitation, error) {
	rows, err := db.readRows(ctx, `SELECT `+invitationColumns+` FROM business_invitations
		WHERE business_id = $1 AND accepted_at IS NULL AND expires_at > $2 ORDER BY created_at, token_hash`,
		businessID, micros(now))
	return collect(rows, err, scanInvitation)
}

// DeleteInvitation deletes an invitation of the business not accepted.
func (db *DB) DeleteInvitation(ctx context.Context, businessID string, hash []byte) error {
	res, err := db.write.ExecContext(ctx, `DELETE FROM business_invitations
		WHERE business_id = $1 AND token_hash = $2 AND accepted_at IS NULL`, businessID, hash)
	return affected(res, err)
}

// AcceptInvitation marks the invitation accepted and creates the user with
// the invitation's business, e-mail address and role, atomically.
func (db *DB) AcceptInvitation(ctx context.Context, hash []byte, u verifyd.BusinessUser) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		var role string
		err := tx.QueryRowContext(ctx, `UPDATE business_invitations SET accepted_at = $2
			WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > $2
			RETURNING business_id, email, role`, hash, micros(u.CreatedAt)).Scan(&u.BusinessID, &u.Email, &role)
		if err != nil {
			return notFound(err)
		}
		u.Role = verifyd.Role(role)
		return insertBusinessUser(ctx, tx, u)
	})
}

func insertBusinessUser(ctx context.Context, tx *sql.Tx, u verifyd.BusinessUser) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO business_users
		(id, business_id, email, name, role, password_hash, totp_sealed, totp_step, created_at, disabled_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (email) DO NOTHING`,
		u.ID, u.BusinessID, u.Email, u.Name, string(u.Role), u.PasswordHash, u.SealedTOTP, u.TOTPStep,
		micros(u.CreatedAt), nullMicros(u.DisabledAt))
	return oneRow(res, err, "a user with this e-mail address exists")
}

// CreateBusinessWithUser stores a business, its credentials and its first
// user in one transaction.
func (db *DB) CreateBusinessWithUser(ctx context.Context, b verifyd.Business, creds []verifyd.StoredCredential, u verifyd.BusinessUser) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := insertBusiness(ctx, tx, b, creds); err != nil {
			return err
		}
		return insertBusinessUser(ctx, tx, u)
	})
}

const businessUserColumns = `id, business_id, email, name, role, password_hash, totp_sealed, totp_step, created_at, disabled_at`

func scanBusinessUser(row scanner) (verifyd.BusinessUser, error) {
	var u verifyd.BusinessUser
	var role string
	var created int64
	var disabled sql.NullInt64
	if err := row.Scan(&u.ID, &u.BusinessID, &u.Email, &u.Name, &role, &u.PasswordHash, &u.SealedTOTP, &u.TOTPStep,
		&created, &disabled); err != nil {
		return verifyd.BusinessUser{}, notFound(err)
	}
	u.Role, u.CreatedAt, u.DisabledAt = verifyd.Role(role), fromMicros(created), fromNullMicros(disabled)
	return u, nil
}

// BusinessUser returns a user by id.
func (db *DB) BusinessUser(ctx context.Context, id string) (verifyd.BusinessUser, error) {
	return scanBusinessUser(db.readRow(ctx, `SELECT `+businessUserColumns+` FROM business_users WHERE id = $1`, id))
}

// BusinessUserByEmail returns a user by e-mail address.
func (db *DB) BusinessUserByEmail(ctx context.Context, email string) (verifyd.BusinessUser, error) {
	return scanBusinessUser(db.readRow(ctx, `SELECT `+businessUserColumns+` FROM business_users WHERE email = $1`, email))
}

// BusinessUsers lists a business's users, oldest first.
func (db *DB) BusinessUsers(ctx context.Context, businessID string) ([]verifyd.BusinessUser, error) {
	rows, err := db.readRows(ctx, `SELECT `+businessUserColumns+` FROM business_users
		WHERE business_id = $1 ORDER BY created_at, id`, businessID)
	return collect(rows, err, scanBusinessUser)
}

// DisableBusinessUser marks a user of the business disabled, keeping the
// first time.
func (db *DB) DisableBusinessUser(ctx context.Context, businessID, id string, at time.Time) (verifyd.BusinessUser, error) {
	return scanBusinessUser(db.write.QueryRowContext(ctx, `UPDATE business_users SET disabled_at = COALESCE(disabled_at, $3)
		WHERE business_id = $1 AND id = $2 RETURNING `+businessUserColumns, businessID, id, micros(at)))
}

// SetBusinessUserRole changes the role of an active user of the business.
func (db *DB) SetBusinessUserRole(ctx context.Context, businessID, id string, role verifyd.Role) (verifyd.BusinessUser, error) {
	return scanBusinessUser(db.write.QueryRowContext(ctx, `UPDATE business_users SET role = $3
		WHERE business_id = $1 AND id = $2 AND disabled_at IS NULL RETURNING `+businessUserColumns, businessID, id, string(role)))
}

// UseTOTPStep records the time step of a code that signed the user in,
// only when it is later than the last one.
func (db *DB) UseTOTPStep(ctx context.Context, id string, step int64) error {
	res, err := db.write.ExecContext(ctx, `UPDATE business_users SET totp_step = $2 WHERE id = $1 AND totp_step < $2`, id, step)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		if _, err := db.BusinessUser(ctx, id); err != nil {
			return err
		}
		return verifyd.Errorf(verifyd.EConflict, "this code was used already")
	}
	return nil
}

// AddBusinessPasskey stores a passkey of an existing user.
func (db *DB) AddBusinessPasskey(ctx context.Context, p verifyd.BusinessPasskey) error {
	res, err := db.write.ExecContext(ctx, `INSERT INTO business_user_passkeys (credential_id, user_id, credential, created_at)
		SELECT $1, id, $3, $4 FROM business_users WHERE id = $2 ON CONFLICT (credential_id) DO NOTHING`,
		credentialKey(p.CredentialID), p.UserID, string(p.Credential), micros(p.CreatedAt))
	err = oneRow(res, err, "this passkey is registered already")
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		if _, uerr := db.BusinessUser(ctx, p.UserID); uerr != nil {
			return uerr
		}
	}
	return err
}

const businessPasskeyColumns = `credential_id, user_id, credential, created_at, last_used_at`

func scanBusinessPasskey(row scanner) (verifyd.BusinessPasskey, error) {
	var p verifyd.BusinessPasskey
	var id, cred string
	var created int64
	var used sql.NullInt64
	if err := row.Scan(&id, &p.UserID, &cred, &created, &used); err != nil {
		return verifyd.BusinessPasskey{}, notFound(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return verifyd.BusinessPasskey{}, err
	}
	p.CredentialID, p.Credential, p.CreatedAt, p.LastUsedAt = raw, []byte(cred), fromMicros(created), fromNullMicros(used)
	return p, nil
}

// BusinessPasskey returns a passkey by credential id.
func (db *DB) BusinessPasskey(ctx context.Context, credentialID []byte) (verifyd.BusinessPasskey, error) {
	return scanBusinessPasskey(db.readRow(ctx, `SELECT `+businessPasskeyColumns+` FROM business_user_passkeys
		WHERE credential_id = $1`, credentialKey(credentialID)))
}

// BusinessPasskeys lists a user's passkeys, oldest first.
func (db *DB) BusinessPasskeys(ctx context.Context, userID string) ([]verifyd.BusinessPasskey, error) {
	rows, err := db.readRows(ctx, `SELECT `+businessPasskeyColumns+` FROM business_user_passkeys
		WHERE user_id = $1 ORDER BY created_at, credential_id`, userID)
	return collect(rows, err, scanBusinessPasskey)
}

// UseBusinessPasskey records a sign-in with a passkey.
func (db *DB) UseBusinessPasskey(ctx context.Context, credentialID, credential []byte, at time.Time) error {
	res, err := db.write.ExecContext(ctx, `UPDATE business_user_passkeys SET credential = $2, last_used_at = $3
		WHERE credential_id = $1`, credentialKey(credentialID), string(credential), micros(at))
	return affected(res, err)
}

// DeleteBusinessPasskey deletes a passkey of the user.
func (db *DB) DeleteBusinessPasskey(ctx context.Context, userID string, credentialID []byte) error {
	res, err := db.write.ExecContext(ctx, `DELETE FROM business_user_passkeys WHERE user_id = $1 AND credential_id = $2`,
		userID, credentialKey(credentialID))
	return affected(res, err)
}

var _ verifyd.BusinessUserStore = (*DB)(nil)
