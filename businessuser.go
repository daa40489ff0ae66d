package verifyd

import (
	"context"
	"time"
)

// Role is what a business user may do in the dashboard (docs/dashboard.md
// has the table; package dashboard decides each permission).
type Role string

// The roles, from most to least powerful.
const (
	// RoleOwner may do everything, including managing users, the
	// business's settings and reading its audit log.
	RoleOwner Role = "owner"
	// RoleDeveloper manages keys, redirect lists and webhooks and reads
	// verifications with their images.
	RoleDeveloper Role = "developer"
	// RoleViewer reads, without images and secrets.
	RoleViewer Role = "viewer"
)

// Roles lists every role, most powerful first.
var Roles = []Role{RoleOwner, RoleDeveloper, RoleViewer}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleOwner || r == RoleDeveloper || r == RoleViewer }

// BusinessUser is a person of a business who signs in to the dashboard.
// E-mail addresses are unique across the installation, so the sign-in
// form needs no business: a person in two businesses uses two addresses.
type BusinessUser struct {
	ID         string `json:"id"`
	BusinessID string `json:"business_id"`
	// Email is stored lowercased (NormalizeEmail).
	Email string `json:"email"`
	Name  string `json:"name"`
	Role  Role   `json:"role"`
	// PasswordHash is webauth's argon2id PHC string; never the password.
	PasswordHash string `json:"-"`
	// SealedTOTP is the TOTP secret sealed with the master key (seal),
	// bound to the user's id.
	SealedTOTP []byte `json:"-"`
	// TOTPStep is the last 30-second time step whose code signed the user
	// in: a code is accepted once (RFC 6238 §5.2).
	TOTPStep   int64      `json:"-"`
	CreatedAt  time.Time  `json:"created_at"`
	DisabledAt *time.Time `json:"disabled_at,omitempty"`
}

// Active reports whether the user may sign in.
func (u BusinessUser) Active() bool { return u.DisabledAt == nil }

// Invitation asks a person to join a business in a role. Its token is
// sent once (the link); only the token's SHA-256 is stored.
type Invitation struct {
	TokenHash  []byte     `json:"-"`
	BusinessID string     `json:"business_id"`
	Email      string     `json:"email"`
	Role       Role       `json:"role"`
	InvitedBy  Actor      `json:"invited_by"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	AcceptedAt *time.Time `json:"accepted_at,omitempty"`
}

// BusinessPasskey is a passkey (WebAuthn credential) of a business user.
type BusinessPasskey struct {
	CredentialID []byte
	UserID       string
	// Credential is the credential as the WebAuthn library records it
	// (JSON): public key, sign counter, flags.
	Credential []byte
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// BusinessUserStore persists business users and their invitations.
type BusinessUserStore interface {
	// CreateInvitation stores an invitation; ErrNotFound when the business
	// does not exist.
	CreateInvitation(ctx context.Context, inv Invitation) error
	// Invitation returns the invitation whose token hashes to hash,
	// accepted or expired or not, or ErrNotFound.
	Invitation(ctx context.Context, hash []byte) (Invitation, error)
	// DeleteInvitation deletes an invitation of the business that was not
	// accepted (expired or not); ErrNotFound otherwise.
	DeleteInvitation(ctx context.Context, businessID string, hash []byte) error
	// AcceptInvitation marks the invitation accepted at u.CreatedAt and
	// creates u, in one transaction. It fails with ErrNotFound, changing
	// nothing, when the invitation is unknown, accepted already or expired
	// at u.CreatedAt, and with an EConflict error when a user with u's
	// e-mail address exists.
	AcceptInvitation(ctx context.Context, hash []byte, u BusinessUser) error
	// CreateBusinessWithUser stores a business, its first credentials and
	// its first user atomically (the dashboard's sign-up); an existing
	// e-mail address is an EConflict error and stores nothing.
	CreateBusinessWithUser(ctx context.Context, b Business, creds []StoredCredential, u BusinessUser) error
	// BusinessUser returns a user by id, disabled or not, or ErrNotFound.
	BusinessUser(ctx context.Context, id string) (BusinessUser, error)
	// BusinessUserByEmail returns a user by (normalized) e-mail address,
	// disabled or not, or ErrNotFound.
	BusinessUserByEmail(ctx context.Context, email string) (BusinessUser, error)
	// BusinessUsers lists a business's users, disabled ones included,
	// oldest first.
	BusinessUsers(ctx context.Context, businessID string) ([]BusinessUser, error)
	// Invitations lists a business's invitations that are neither accepted
	// nor expired at now, oldest first.
	Invitations(ctx context.Context, businessID string, now time.Time) ([]Invitation, error)
	// DisableBusinessUser marks a user of the business disabled at the
	// given time (the first time is kept), or ErrNotFound.
	DisableBusinessUser(ctx context.Context, businessID, id string, at time.Time) (BusinessUser, error)
	// SetBusinessUserRole changes the role of an active user of the
	// business and returns the user; ErrNotFound otherwise.
	SetBusinessUserRole(ctx context.Context, businessID, id string, role Role) (BusinessUser, error)
	// UseTOTPStep records that the code of step signed the user in. It
	// succeeds only when step is later than the last recorded one, in one
	// conditional update, so of two sign-ins with the same code at most
	// one succeeds; otherwise it returns an EConflict error.
	UseTOTPStep(ctx context.Context, id string, step int64) error
	// AddBusinessPasskey stores a passkey of an existing user (ErrNotFound
	// otherwise); a credential id stored before is an EConflict error.
	AddBusinessPasskey(ctx context.Context, p BusinessPasskey) error
	// BusinessPasskey returns a passkey by credential id, or ErrNotFound.
	BusinessPasskey(ctx context.Context, credentialID []byte) (BusinessPasskey, error)
	// BusinessPasskeys lists a user's passkeys, oldest first.
	BusinessPasskeys(ctx context.Context, userID string) ([]BusinessPasskey, error)
	// UseBusinessPasskey records a sign-in with a passkey: its updated
	// credential (sign counter) and the time; ErrNotFound when unknown.
	UseBusinessPasskey(ctx context.Context, credentialID, credential []byte, at time.Time) error
	// DeleteBusinessPasskey deletes a passkey of the user; ErrNotFound
	// when the user has no such passkey.
	DeleteBusinessPasskey(ctx context.Context, userID string, credentialID []byte) error
}
