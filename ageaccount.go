package verifyd

import (
	"context"
	"strings"
	"time"
)

// The hosted age-verification flow (package agehosted, docs/age.md) keeps
// end users' accounts and the proofs of age they made. An account belongs
// to one environment and is shared by every integrator of it: a person
// proves their age to verifyd once, not to each site.

// AgeAccount is an end user of the age-verification flow.
type AgeAccount struct {
	// ID is a UUID v4; it is also the customer id of the identity
	// verifications the account makes with the document method.
	ID          string
	Environment Environment
	// Email is normalised (NormalizeEmail); unique within the environment.
	Email string
	// PasswordHash is the argon2id hash in PHC string form; never the
	// password.
	PasswordHash string
	CreatedAt    time.Time
	// EmailConfirmedAt is when the person proved they read the address
	// (a link sent to it); nil before.
	EmailConfirmedAt *time.Time
}

// AgeMethod is how a person proved their age.
type AgeMethod string

// The methods of the age flow. AgeMethodSandbox marks the sandbox's
// shortcut (no check at all) and AgeMethodNone a person who went back
// without trying; neither is ever accepted as a stored proof.
const (
	AgeMethodDocument        AgeMethod = "document"
	AgeMethodCreditCard      AgeMethod = "credit_card"
	AgeMethodMobileOperator  AgeMethod = "mobile_operator"
	AgeMethodEmailEstimation AgeMethod = "email_estimation"
	AgeMethodSandbox         AgeMethod = "sandbox"
	AgeMethodNone            AgeMethod = "none"
)

// AgeResult is what a proof of age established.
type AgeResult string

// The results. A pending proof waits for the pipeline, a person (review)
// or a provider.
const (
	AgeResultPending AgeResult = "pending"
	AgeResultAdult   AgeResult = "adult"
	AgeResultMinor   AgeResult = "minor"
	AgeResultFailed  AgeResult = "failed"
)

// Decided reports whether the result is final.
func (r AgeResult) Decided() bool { return r != AgeResultPending && r != "" }

// AgeProof is one attempt of a person to prove their age, and its result.
// Only the result is kept: the document method's images and evidence stay
// with its identity verification (sealed), and a provider's data is not
// stored.
type AgeProof struct {
	ID          string
	Environment Environment
	// AccountID is "" for the sandbox shortcut, which belongs to nobody.
	AccountID string
	Method    AgeMethod
	// Provider names what checked: "verifyd-document", a provider's name.
	Provider string
	Result   AgeResult
	// IdentityVerificationID is the internal identity verification of the
	// document method ("" for other methods).
	IdentityVerificationID string
	// BusinessID and RequestID are the integrator and authorize request
	// during which the proof was started; Country is that request's.
	BusinessID string
	RequestID  string
	Country    string
	CreatedAt  time.Time
	// DecidedAt is when the result became final (nil while pending).
	DecidedAt *time.Time
}

// NormalizeEmail returns the canonical form of an account e-mail address
// (surrounding space removed, lowercase), or "" when it is not an address.
// Lowercasing the local part too is a deliberate simplification: nobody
// expects Anna@ and anna@ to be two accounts.
func NormalizeEmail(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if !ValidEmail(s) {
		return ""
	}
	return s
}

// AgeAccountStore persists the accounts and proofs of the hosted age flow.
type AgeAccountStore interface {
	// CreateAgeAccount stores a new account; an e-mail address already used
	// in the environment is an EConflict error.
	CreateAgeAccount(ctx context.Context, a AgeAccount) error
	// AgeAccountByEmail returns the account with the (normalised) address in
	// the environment, or ErrNotFound.
	AgeAccountByEmail(ctx context.Context, env Environment, email string) (AgeAccount, error)
	// AgeAccount returns an account of the environment by id, or ErrNotFound.
	AgeAccount(ctx context.Context, env Environment, id string) (AgeAccount, error)
	// SetAgePasswordHash replaces an account's password hash (rehashing with
	// new parameters after a login).
	SetAgePasswordHash(ctx context.Context, env Environment, id, hash string) error
	// CreateAgeProof stores a new proof.
	CreateAgeProof(ctx context.Context, p AgeProof) error
	// DecideAgeProof sets the result of a pending proof at the given time and
	// returns it. A proof decided before is returned unchanged with an
	// EConflict error; an unknown one is ErrNotFound.
	DecideAgeProof(ctx context.Context, id string, result AgeResult, at time.Time) (AgeProof, error)
	// AgeProof returns a proof of the environment by id, or ErrNotFound.
	AgeProof(ctx context.Context, env Environment, id string) (AgeProof, error)
	// AgeProofs lists an account's proofs, newest first.
	AgeProofs(ctx context.Context, env Environment, accountID string) ([]AgeProof, error)
	// DeleteAgeAccount erases an account (the right to erasure), in one
	// transaction: its sessions in d.SessionRealm, its proofs, consents and passkeys, the account
	// (e-mail address, password hash); the access tokens issued for its
	// codes are revoked and its unused codes expired at d.At; its internal
	// identity verifications lose the customer's id and e-mail address, and
	// those not finished end as expired (cause account_deleted) with their
	// purge job. An unknown account is ErrNotFound and changes nothing.
	DeleteAgeAccount(ctx context.Context, d AgeAccountDeletion) (AgeAccountDeleted, error)
}

// AgeAccountDeletion names the account DeleteAgeAccount erases.
type AgeAccountDeletion struct {
	Environment Environment
	AccountID   string
	// SessionRealm is the realm of the account's browser sessions.
	SessionRealm string
	At           time.Time
}

// AgeAccountDeleted says what DeleteAgeAccount removed or changed.
type AgeAccountDeleted struct {
	Sessions, Proofs, Consents, Passkeys, MailTokens int
	// RevokedTokens and ExpiredCodes count the OAuth tokens revoked and the
	// unused codes made unusable.
	RevokedTokens, ExpiredCodes int
	// Verifications are the account's internal identity verifications;
	// Ended those of them that were not finished and were ended.
	Verifications []string
	Ended         int
}

// AgeConsent records that a person agreed to share the result of their age
// check with one business: the flow sends no code to a business the
// signed-in person has not agreed to share with (docs/age.md, consent).
// Only agreements are stored; a "no" ends that flow and is asked again
// next time.
type AgeConsent struct {
	Environment Environment
	AccountID   string
	BusinessID  string
	// BusinessName is the business's name when the consent was listed
	// (AgeConsents); it is not stored with the consent.
	BusinessName string
	GrantedAt    time.Time
}

// AgeConsentStore persists the consents of age accounts.
type AgeConsentStore interface {
	// GrantAgeConsent records a consent; granting again keeps the first
	// grant's time. An unknown account or business is ErrNotFound.
	GrantAgeConsent(ctx context.Context, c AgeConsent) error
	// AgeConsent returns the consent of an account for a business, or
	// ErrNotFound.
	AgeConsent(ctx context.Context, env Environment, accountID, businessID string) (AgeConsent, error)
	// AgeConsents lists an account's consents, most recent first, with
	// each business's name.
	AgeConsents(ctx context.Context, env Environment, accountID string) ([]AgeConsent, error)
	// RevokeAgeConsent deletes a consent; one that does not exist is
	// ErrNotFound.
	RevokeAgeConsent(ctx context.Context, env Environment, accountID, businessID string) error
}

// AgePasskey is a WebAuthn credential (a passkey) of an age account: it
// logs the person in without a password, and its assertions with user
// verification count as authentication at each use (docs/age.md).
type AgePasskey struct {
	Environment Environment
	AccountID   string
	// CredentialID is the credential's id (raw bytes), unique per
	// environment.
	CredentialID []byte
	// Credential is the WebAuthn library's record of it (public key,
	// signature counter, flags), as JSON; the store keeps it opaque.
	Credential []byte
	CreatedAt  time.Time
	// LastUsedAt is the last login with it (nil before).
	LastUsedAt *time.Time
}

// AgePasskeyStore persists the passkeys of age accounts.
type AgePasskeyStore interface {
	// CreateAgeAccountWithPasskey stores a new account (its PasswordHash
	// may be "": a passkey-only account) with its first passkey,
	// atomically. A used address or credential id is EConflict.
	CreateAgeAccountWithPasskey(ctx context.Context, a AgeAccount, p AgePasskey) error
	// AddAgePasskey stores another passkey of an existing account; an
	// unknown account is ErrNotFound, a used credential id EConflict.
	AddAgePasskey(ctx context.Context, p AgePasskey) error
	// AgePasskey returns the passkey with a credential id in env, or
	// ErrNotFound.
	AgePasskey(ctx context.Context, env Environment, credentialID []byte) (AgePasskey, error)
	// AgePasskeys lists an account's passkeys, oldest first.
	AgePasskeys(ctx context.Context, env Environment, accountID string) ([]AgePasskey, error)
	// UseAgePasskey records a login: the credential's new record (its
	// signature counter) and the time. Unknown is ErrNotFound.
	UseAgePasskey(ctx context.Context, env Environment, credentialID, credential []byte, at time.Time) error
}

// AgeMailPurpose is what an e-mailed token does.
type AgeMailPurpose string

// The purposes of e-mailed tokens (docs/age.md, e-mail).
const (
	AgeMailConfirm AgeMailPurpose = "confirm" // confirm the account's address
	AgeMailReset   AgeMailPurpose = "reset"   // set a new password
	AgeMailCode    AgeMailPurpose = "code"    // a one-time login code
	AgeMailDelete  AgeMailPurpose = "delete"  // delete the account
)

// AgeMailToken is a single-use secret sent by e-mail. Only its SHA-256 is
// stored.
type AgeMailToken struct {
	Hash        []byte
	Environment Environment
	AccountID   string
	Purpose     AgeMailPurpose
	// Email is the address it was sent to (a confirmation confirms that
	// address only).
	Email                string
	CreatedAt, ExpiresAt time.Time
	UsedAt               *time.Time
}

// AgeMailStore persists e-mailed tokens and address confirmations.
type AgeMailStore interface {
	// CreateAgeMailToken stores a token of an account of the environment
	// (ErrNotFound when there is none) and deletes tokens that expired
	// more than an hour before t.CreatedAt.
	CreateAgeMailToken(ctx context.Context, t AgeMailToken) error
	// UseAgeMailToken marks a token used, once: it must be of the purpose
	// and environment, unused and unexpired at at; anything else is
	// ErrNotFound and changes nothing.
	UseAgeMailToken(ctx context.Context, env Environment, purpose AgeMailPurpose, hash []byte, at time.Time) (AgeMailToken, error)
	// AgeMailToken returns a token that UseAgeMailToken would accept at
	// at, without using it (a page shows its form first).
	AgeMailToken(ctx context.Context, env Environment, purpose AgeMailPurpose, hash []byte, at time.Time) (AgeMailToken, error)
	// ConfirmAgeEmail records that the account's address, if it is still
	// email, was confirmed at at (the first confirmation is kept).
	// ErrNotFound when the account or address does not match.
	ConfirmAgeEmail(ctx context.Context, env Environment, accountID, email string, at time.Time) error
}
