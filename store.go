package verifyd

import (
	"context"
	"time"
)

// Store is everything the service persists. sqlstore implements it for
// SQLite and PostgreSQL; storetest holds the suite both must pass.
type Store interface {
	BusinessStore
	CredentialStore
	RedirectStore
	VerificationStore
	LifecycleStore
	EngineStore
	SettingStore
	OperatorStore
	AgeOAuthStore
	AgeAccountStore
	AgeConsentStore
	AgePasskeyStore
	AgeMailStore
	RetentionStore
	LivenessStore
	AuditStore
	BrandingStore
	WebhookTestStore
	BusinessUserStore
	// Ping reports whether the database answers; /readyz uses it.
	Ping(ctx context.Context) error
	Close() error
}

// BusinessStore persists businesses.
type BusinessStore interface {
	// CreateBusiness stores a business together with its first credentials,
	// atomically. A business starts with the default policies
	// (DirectLivenessAuto, DefaultRetentionDays) whatever b says, except
	// SandboxOnly, which is stored as given and never changes, as
	// Business shows them once stored; SetDirectLiveness and
	// SetRetentionDays change them.
	CreateBusiness(ctx context.Context, b Business, creds []StoredCredential) error
	Business(ctx context.Context, id string) (Business, error)
	// SetDirectLiveness changes a business's policy for direct
	// submissions; ErrNotFound when there is no such business.
	SetDirectLiveness(ctx context.Context, id string, p DirectLiveness) error
	// SetRetentionDays changes a business's retention (ErrNotFound when
	// there is no such business) and, in the same transaction, enqueues a
	// purge job at the new due time (Verification.RetentionDue) for each
	// of its finished identity-API verifications not purged yet, so a
	// shorter retention takes effect without waiting for the old one.
	SetRetentionDays(ctx context.Context, id string, days int) error
	// Businesses lists all businesses, oldest first.
	Businesses(ctx context.Context) ([]Business, error)
}

// CredentialStore persists API keys with their sealed secrets.
type CredentialStore interface {
	CreateCredential(ctx context.Context, c StoredCredential) error
	// Credential returns the credential with the given key, revoked or not.
	Credential(ctx context.Context, apiKey string) (StoredCredential, error)
	// Credentials lists a business's credentials, oldest first.
	Credentials(ctx context.Context, businessID string) ([]StoredCredential, error)
	// RevokeCredential marks a key revoked at the given time. Revoking an
	// already revoked key keeps the first revocation time.
	RevokeCredential(ctx context.Context, apiKey string, at time.Time) (StoredCredential, error)
}

// RedirectList names one allowed-redirect list: a business has one per
// interface and environment.
type RedirectList struct {
	BusinessID  string
	Interface   Interface
	Environment Environment
}

// RedirectStore persists allowed-redirect lists. Lists keep insertion order.
type RedirectStore interface {
	Redirects(ctx context.Context, l RedirectList) ([]string, error)
	// AddRedirects appends the URLs not already present. It fails with
	// EBadRequest when the list would exceed MaxRedirects.
	AddRedirects(ctx context.Context, l RedirectList, urls []string) error
	// ReplaceRedirects makes the list exactly urls (duplicates dropped).
	ReplaceRedirects(ctx context.Context, l RedirectList, urls []string) error
	// RemoveRedirects deletes the given URLs; absent ones are ignored.
	RemoveRedirects(ctx context.Context, l RedirectList, urls []string) error
	// RedirectAllowed reports whether url is on the list, by exact match.
	RedirectAllowed(ctx context.Context, l RedirectList, url string) (bool, error)
}

// VerificationStore persists identity verifications and their images.
type VerificationStore interface {
	CreateVerification(ctx context.Context, v Verification, images []StoredImage) error
	// Verification returns the verification only when it belongs to the
	// business and environment given; otherwise ErrNotFound, so one tenant
	// cannot probe another's ids.
	Verification(ctx context.Context, businessID string, env Environment, id string) (Verification, error)
	// VerificationSummary is Verification's fields that B3 answers with,
	// under the same ownership rule, read as fresh as Verification.
	VerificationSummary(ctx context.Context, businessID string, env Environment, id string) (VerificationSummary, error)
	// VerificationByHostedToken finds the verification whose hosted-page token
	// hashes to hash.
	VerificationByHostedToken(ctx context.Context, hash []byte) (Verification, error)
	// Images returns the sealed images of a verification.
	Images(ctx context.Context, verificationID string) ([]StoredImage, error)
	// ListVerifications lists a business's identity-API verifications
	// matching q, newest first (created_at, then id, descending), at most
	// ListLimit(q.Limit). Internal verifications are never listed.
	ListVerifications(ctx context.Context, q VerificationQuery) ([]Verification, error)
	// RecordConsent records that the customer agreed to the processing of
	// their face on the hosted page: ConsentedAt becomes at unless it is
	// set already (the first consent is kept). It fails with ErrNotFound
	// for an unknown id and with an EConflict error, changing nothing, for
	// a finished verification.
	RecordConsent(ctx context.Context, id string, at time.Time) (Verification, error)
}

// SettingStore keeps small installation-wide values, such as the check value
// that detects a wrong master key.
type SettingStore interface {
	// PutSettingIfAbsent stores value under name unless a value exists, and
	// returns the value now stored.
	PutSettingIfAbsent(ctx context.Context, name string, value []byte) ([]byte, error)
	// Setting returns the value stored under name, or ErrNotFound.
	Setting(ctx context.Context, name string) ([]byte, error)
}

// LifecycleStore persists status changes with their history and webhook
// events. Each change commits together with the durable jobs it causes
// (the webhook delivery, a rescheduled expiry), or not at all.
type LifecycleStore interface {
	// TransitionVerification applies t if verifyd.CanTransition allows it
	// from the current status (otherwise an EConflict error), appends the
	// history entry, and creates webhook event eventID with its delivery job.
	// An internal verification (Verification.Internal) gets no webhook
	// event; when it reaches a terminal status its purge job is enqueued in
	// the same transaction instead.
	TransitionVerification(ctx context.Context, t Transition, eventID string) (Verification, error)
	// VerificationByID returns a verification of any business (operators,
	// background jobs).
	VerificationByID(ctx context.Context, id string) (Verification, error)
	// StatusEvents returns a verification's history, oldest first.
	StatusEvents(ctx context.Context, verificationID string) ([]StatusEvent, error)
	// AdvanceClock moves a sandbox verification's clock forward and
	// schedules an expiry check at the new due time.
	AdvanceClock(ctx context.Context, verificationID string, by time.Duration, now time.Time) (Verification, error)

	WebhookEvent(ctx context.Context, id string) (WebhookEvent, error)
	// WebhookEvents lists events, newest first, filtered by state and
	// verification when those are not empty.
	WebhookEvents(ctx context.Context, f WebhookFilter) ([]WebhookEvent, error)
	WebhookAttempts(ctx context.Context, eventID string) ([]WebhookAttempt, error)
	RecordWebhookAttempt(ctx context.Context, a WebhookAttempt, state WebhookState) error
	// PendingBefore reports whether an earlier event of the same
	// verification is still pending; delivery keeps events in order.
	PendingBefore(ctx context.Context, e WebhookEvent) (bool, error)
	// ResendWebhook sets an event pending again and enqueues a delivery.
	ResendWebhook(ctx context.Context, eventID string) (WebhookEvent, error)
	// CountWebhookEvents counts events in a state (the queue-depth metric).
	CountWebhookEvents(ctx context.Context, state WebhookState) (int, error)
}

// WebhookFilter selects webhook events; empty fields select everything.
type WebhookFilter struct {
	State          WebhookState
	VerificationID string
	// BusinessID and Environment keep one business's events (of the
	// verifications of that environment).
	BusinessID  string
	Environment Environment
	Limit       int
}

// EngineStore persists what the verification engine and the review console
// need.
type EngineStore interface {
	// RecordCheckRun stores a pipeline run (numbering it), counts the
	// submission, and sets the review state and document hash (when not nil).
	// It refuses (EConflict) a verification that was purged: its decision
	// was made without the run.
	RecordCheckRun(ctx context.Context, run CheckRun, review ReviewState, documentHash []byte) (CheckRun, error)
	// CheckRuns returns a verification's runs, oldest first.
	CheckRuns(ctx context.Context, verificationID string) ([]CheckRun, error)
	// ReviewQueue lists verifications waiting for a person, oldest first.
	ReviewQueue(ctx context.Context, limit int) ([]Verification, error)
	// DocumentApprovedForOtherCustomer reports whether an approved
	// verification of the business with another customer id read the same
	// document.
	DocumentApprovedForOtherCustomer(ctx context.Context, businessID, customerID string, documentHash []byte) (bool, error)
	// SelfieOfOtherCustomer reports whether another customer of the
	// business submitted a selfie with this SHA-256.
	SelfieOfOtherCustomer(ctx context.Context, businessID, customerID string, sha256 []byte) (bool, error)
	// ReplaceSubmission stores a new submission of a hosted verification
	// (document type, country and images), counts it in HostedSubmissions
	// and enqueues its processing. It refuses (EConflict) a finished
	// verification, one waiting for review, and one whose previous hosted
	// submission no non-error check run has processed yet.
	ReplaceSubmission(ctx context.Context, id string, doc DocumentInfo, images []StoredImage) error
}

// RetentionStore deletes what a decided verification no longer needs (data
// minimisation, docs/age.md; retention and redaction, docs/api.md).
type RetentionStore interface {
	// PurgeVerification deletes the images of a finished verification
	// (internal, or of the identity API once its retention is over),
	// replaces the sealed results of
	// its check runs by the ones in runs (one per stored run, matched by
	// Run; the other fields are ignored), clears its document hash and sets
	// PurgedAt to at, all in one transaction. Its status, reason, history
	// and UpdatedAt are kept. Purging a verification already purged changes
	// nothing and returns it as it is. It fails with ErrNotFound for an
	// unknown id, and with an EConflict error, changing nothing, when the
	// verification is not finished, or runs does not name exactly its
	// stored runs (one was recorded meanwhile).
	PurgeVerification(ctx context.Context, id string, runs []CheckRun, at time.Time) (Verification, error)
	// RedactVerification does what PurgeVerification does unless the
	// verification was purged before (then runs is ignored: its evidence
	// is summaries already) and also deletes the customer's
	// e-mail and phone, the declared document type and country and the
	// hosted-page token, and sets RedactedAt to at. Redacting a redacted
	// verification changes nothing and returns it as it is. Errors as for
	// PurgeVerification.
	RedactVerification(ctx context.Context, id string, runs []CheckRun, at time.Time) (Verification, error)
}

// OperatorStore persists review-console operators and browser sessions.
type OperatorStore interface {
	// CreateOperator stores a new operator; an existing username is an
	// EConflict error.
	CreateOperator(ctx context.Context, o Operator) error
	// Operator returns the operator with the given username, disabled or
	// not, or ErrNotFound.
	Operator(ctx context.Context, username string) (Operator, error)
	// Operators lists every operator, oldest first.
	Operators(ctx context.Context) ([]Operator, error)
	// DisableOperator marks an operator disabled at the given time, or
	// ErrNotFound. Disabling a disabled operator keeps the first time.
	DisableOperator(ctx context.Context, username string, at time.Time) (Operator, error)
	SessionStore
}

// SessionStore persists browser sessions (webauth).
type SessionStore interface {
	// CreateSession stores a session; it also deletes sessions that expired
	// before the new one's creation time.
	CreateSession(ctx context.Context, s WebSession) error
	// Session returns the session whose token hashes to tokenHash, or
	// ErrNotFound. Callers check expiry.
	Session(ctx context.Context, tokenHash []byte) (WebSession, error)
	// TouchSession records activity: LastSeenAt becomes at (never earlier
	// than it was).
	TouchSession(ctx context.Context, tokenHash []byte, at time.Time) error
	// DeleteSession removes a session; an absent one is not an error.
	DeleteSession(ctx context.Context, tokenHash []byte) error
	// DeleteSessions removes every session of a subject in a realm and
	// returns how many there were.
	DeleteSessions(ctx context.Context, realm, subject string) (int, error)
}

// AgeOAuthStore persists the OAuth side of the age interface (SPEC A1–A3):
// authorize requests, codes and access tokens. Codes and tokens are found by
// the SHA-256 of their value; the values themselves are never stored.
type AgeOAuthStore interface {
	// CreateAgeAuthRequest stores a new authorize request. In the same
	// transaction it deletes tokens that expired at or before purgeBefore,
	// then codes that expired by then and have no tokens left, then requests
	// that expired by then and have no code, so the tables stay small. An
	// existing id is an EConflict error (and nothing is stored).
	CreateAgeAuthRequest(ctx context.Context, r AgeAuthRequest, purgeBefore time.Time) error
	// AgeAuthRequest returns the request with the given id, whether expired
	// or completed or not, or ErrNotFound.
	AgeAuthRequest(ctx context.Context, id string) (AgeAuthRequest, error)
	// CompleteAgeAuthRequest marks the request completed at c.CreatedAt and
	// stores code c issued for it, atomically. It fails with ErrNotFound when
	// the request does not exist or had expired at c.CreatedAt, and with an
	// EConflict error when it was completed before; then nothing changes.
	CompleteAgeAuthRequest(ctx context.Context, requestID string, c AgeCode) error
	// AgeCode returns the code with the given hash, whether used or expired
	// or not, or ErrNotFound.
	AgeCode(ctx context.Context, hash []byte) (AgeCode, error)
	// RedeemAgeCode marks the code used at t.CreatedAt, in one conditional
	// update that succeeds only while the code is unused and unexpired, and
	// stores access token t as issued for it (t.CodeHash is set to
	// codeHash), in one transaction. Of concurrent calls for one code at most
	// one succeeds; the others, and calls for a code that is unknown, used or
	// expired, fail with ErrCodeSpent and change nothing.
	RedeemAgeCode(ctx context.Context, codeHash []byte, t AgeToken) (AgeCode, error)
	// RevokeAgeTokens revokes every token issued for the code at the given
	// time (an already revoked token keeps its first time) and returns how
	// many it revoked.
	RevokeAgeTokens(ctx context.Context, codeHash []byte, at time.Time) (int, error)
	// AgeToken returns the token with the given hash, or ErrNotFound.
	// Callers check expiry and revocation.
	AgeToken(ctx context.Context, hash []byte) (AgeToken, error)
}
