package verifyd

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Status is the state of an identity verification (SPEC "States and
// transitions").
type Status string

// The statuses of SPEC.md.
const (
	StatusPending  Status = "pending"
	StatusStarted  Status = "started"
	StatusExpired  Status = "expired"
	StatusFailed   Status = "failed"
	StatusApproved Status = "approved"
)

// Terminal reports whether no further transition may leave s.
func (s Status) Terminal() bool {
	return s == StatusExpired || s == StatusFailed || s == StatusApproved
}

// Reason explains a failed verification. The zero value means "no reason"
// and is sent as an empty string, as SPEC.md requires.
type Reason string

// The failure reasons of SPEC.md.
const (
	ReasonNone                   Reason = ""
	ReasonExpiredID              Reason = "expired_id"
	ReasonIDScanError            Reason = "id_scan_error"
	ReasonIDVError               Reason = "idv_error"
	ReasonInvalidID              Reason = "invalid_id"
	ReasonLivenessError          Reason = "liveness_error"
	ReasonMinor                  Reason = "minor"
	ReasonPartialID              Reason = "partial_id"
	ReasonPhotoMismatch          Reason = "photo_mismatch"
	ReasonPoorIDScanError        Reason = "poor_id_scan_error"
	ReasonPotentialFraud         Reason = "potential_fraud"
	ReasonServerErrorUnavailable Reason = "server_error_unavailable"
)

// Reasons lists every failure reason in SPEC order.
var Reasons = []Reason{
	ReasonExpiredID, ReasonIDScanError, ReasonIDVError, ReasonInvalidID,
	ReasonLivenessError, ReasonMinor, ReasonPartialID, ReasonPhotoMismatch,
	ReasonPoorIDScanError, ReasonPotentialFraud, ReasonServerErrorUnavailable,
}

// Valid reports whether r is one of SPEC's failure reasons (not the empty
// reason).
func (r Reason) Valid() bool {
	for _, v := range Reasons {
		if r == v {
			return true
		}
	}
	return false
}

// VerificationLifetime is how long a verification may stay unfinished before
// it expires (SPEC "Limits").
const VerificationLifetime = 5 * 24 * time.Hour

// Flow records how a verification was created: through the hosted page (B1)
// or by direct submission of images (B2).
type Flow string

// The two flows.
const (
	FlowHosted Flow = "hosted"
	FlowDirect Flow = "direct"
)

// Customer is the integrator's end user as SPEC.md describes it.
type Customer struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Phone string `json:"phone,omitempty"`
}

// VerificationSummary is the part of a verification that B3 (GET
// /api/v1/identity-verification/{id}) answers with. The store reads it with
// a query of its own because B3 is the hottest read of the API: reading the
// whole Verification cost SQLite's driver a name and a conversion for each
// of its 28 columns at every call (docs/performance.md).
type VerificationSummary struct {
	ID          string
	Environment Environment
	Customer    Customer
	Webhook     string
	Status      Status
	Reason      Reason
	// SealedHostedToken rebuilds the hosted page URL (nil for direct
	// submissions), as in Verification.
	SealedHostedToken []byte
}

// Verification is one identity verification.
type Verification struct {
	ID          string
	BusinessID  string
	Environment Environment
	// APIKey is the key that created the verification. Webhooks are signed
	// with its secret so the receiver knows which secret to check with.
	APIKey   string
	Customer Customer
	// RedirectURI is the integrator's return address ("" when none).
	RedirectURI string
	Webhook     string
	Flow        Flow
	Status      Status
	Reason      Reason
	// Document is what the integrator declared on direct submission.
	Document DocumentInfo
	// HostedTokenHash identifies the hosted page without storing its token in
	// clear; SealedHostedToken lets the service rebuild the page URL for B3.
	HostedTokenHash   []byte
	SealedHostedToken []byte
	CreatedAt         time.Time
	UpdatedAt         time.Time
	ExpiresAt         time.Time
	// Review says whether a person must decide the verification.
	Review ReviewState
	// Submissions counts processed submissions (hosted flow retries).
	Submissions int
	// HostedSubmissions counts the submissions made on the hosted page, and
	// HostedSubmittedRun is how many check runs existed when the latest one
	// arrived: a later, non-error run has processed it.
	HostedSubmissions  int
	HostedSubmittedRun int
	// DocumentHash identifies the document read from the submission
	// (keyed hash of type, country and number) for duplicate detection.
	DocumentHash []byte
	// ClockOffset is how far a sandbox verification's clock was advanced
	// (always 0 in production): it expires when now+ClockOffset reaches
	// ExpiresAt.
	ClockOffset time.Duration
	// PurgedAt is when the images and identifying evidence of a finished
	// internal verification were deleted (data minimisation, docs/age.md);
	// nil while they are kept.
	PurgedAt *time.Time
	// ConsentedAt is when the customer agreed on the hosted page to the
	// processing of their face (matching and liveness); nil before, and
	// for direct submissions, whose consent the integrator collects.
	ConsentedAt *time.Time
	// RedactedAt is when the integrator redacted the verification (its
	// images, evidence and the customer's e-mail and phone were deleted,
	// docs/api.md "Retention and redaction"); nil when it was not.
	RedactedAt *time.Time
}

// RetentionDue returns when the images and identifying evidence of a
// finished identity-API verification are deleted, on the real clock: days
// after its decision on the verification's own clock (a sandbox
// verification's clock may have been advanced), or at once for one that
// expired unfinished. ok is false for an unfinished verification.
func (v Verification) RetentionDue(days int) (due time.Time, ok bool) {
	if !v.Status.Terminal() {
		return time.Time{}, false
	}
	if v.Status == StatusExpired {
		return v.UpdatedAt, true
	}
	return v.UpdatedAt.Add(time.Duration(days)*24*time.Hour - v.ClockOffset), true
}

// Internal reports whether v is an internal verification (the age flow's
// document method, identity.CreateInternal): it has no webhook and no
// hosted-page token, which every verification of the identity API has.
// Internal verifications are purged once finished; the identity API's
// after their business's retention (Business.RetentionDays).
func (v Verification) Internal() bool { return v.Webhook == "" && v.HostedTokenHash == nil }

// ReviewState is where a verification stands in the review queue.
type ReviewState string

// The review states.
const (
	ReviewNone    ReviewState = ""
	ReviewPending ReviewState = "pending"
	ReviewDecided ReviewState = "decided"
)

// CheckRun is one run of the verification pipeline, with each check's
// evidence sealed at rest (it holds personal data read from documents).
type CheckRun struct {
	VerificationID string
	Run            int
	At             time.Time
	// Outcome is approved, failed, review or error.
	Outcome       string
	Reason        Reason
	SealedResults []byte
}

// DueAt returns the real time at which the verification expires.
func (v Verification) DueAt() time.Time { return v.ExpiresAt.Add(-v.ClockOffset) }

// DocumentInfo is the declared type and country of a submitted document.
type DocumentInfo struct {
	Type    DocumentType
	Country string
}

// ImageKind names one of the images of a submission.
type ImageKind string

// The images of a submission.
const (
	ImageSelfie        ImageKind = "selfie"
	ImageDocumentFront ImageKind = "document_front"
	ImageDocumentBack  ImageKind = "document_back"
)

// The hosted page's camera sends, with a selfie taken on it, a short burst
// of smaller frames captured just after it: the liveness check rates each
// and looks for the small movements of a live person in front of a camera.
// Frames are optional (uploads and B2 have none).
const (
	MaxSelfieFrames    = 3
	MaxSelfieFrameSize = 1 << 20
)

// SelfieFrame names the n-th frame (1-based) of a selfie burst.
func SelfieFrame(n int) ImageKind { return ImageKind("selfie_frame_" + strconv.Itoa(n)) }

// SelfieFrameIndex returns n for SelfieFrame(n), or 0 for other kinds.
func (k ImageKind) SelfieFrameIndex() int {
	rest, ok := strings.CutPrefix(string(k), "selfie_frame_")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || n > MaxSelfieFrames || SelfieFrame(n) != k {
		return 0
	}
	return n
}

// StoredImage is one submitted image, sealed at rest.
type StoredImage struct {
	Kind   ImageKind
	Format string
	Width  int
	Height int
	// SHA256 of the plaintext image, kept so later checks can find reused
	// images without decrypting every stored one.
	SHA256 []byte
	Sealed []byte
}

// WebhookPayload returns the exact body of the status-change notification
// of SPEC "Events": {"id", "customer_id", "status", "reason"}.
func WebhookPayload(v Verification) []byte {
	b, err := json.Marshal(struct {
		ID         string `json:"id"`
		CustomerID string `json:"customer_id"`
		Status     Status `json:"status"`
		Reason     Reason `json:"reason"`
	}{v.ID, v.Customer.ID, v.Status, v.Reason})
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	return b
}
