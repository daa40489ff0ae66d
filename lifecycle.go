package verifyd

import (
	"fmt"
	"time"
)

// Cause says what made a verification change status. It is recorded in the
// event history for operators.
type Cause string

// The causes of status changes.
const (
	CauseCreated        Cause = "created"
	CauseHostedOpened   Cause = "hosted_page_opened"
	CauseSubmission     Cause = "submission"
	CauseEngine         Cause = "engine"
	CauseReview         Cause = "review"
	CauseExpiry         Cause = "expiry"
	CauseSandboxControl Cause = "sandbox_simulate"
	// CauseAccountDeleted: the age account the internal verification was
	// made for was deleted while it was under way.
	CauseAccountDeleted Cause = "account_deleted"
	// CauseRedaction: the integrator redacted the verification while it
	// was under way (docs/api.md "Retention and redaction").
	CauseRedaction Cause = "redaction"
	// CauseConsentDeclined: the customer declined, on the hosted page, the
	// processing of their face; the verification fails with ReasonIDVError
	// (docs/hosted-flow.md "Consent").
	CauseConsentDeclined Cause = "consent_declined"
)

// CanTransition reports whether a verification may move from one status to
// another. It is the state machine of SPEC "States and transitions":
// pending → started → approved | failed, and pending | started → expired.
// Terminal statuses never change again.
func CanTransition(from, to Status) bool {
	switch from {
	case StatusPending:
		return to == StatusStarted || to == StatusExpired
	case StatusStarted:
		return to == StatusApproved || to == StatusFailed || to == StatusExpired
	}
	return false
}

// Transition is one requested status change.
type Transition struct {
	VerificationID string
	To             Status
	// Reason is required for failed and empty otherwise.
	Reason Reason
	Cause  Cause
	// Actor names who caused it when a person did (an operator's login).
	Actor string
	At    time.Time
}

// Validate checks the reason rule of a transition.
func (t Transition) Validate() error {
	switch {
	case t.To == StatusFailed && !t.Reason.Valid():
		return Errorf(EInvalid, "a failed verification needs one of SPEC's reasons")
	case t.To != StatusFailed && t.Reason != ReasonNone:
		return Errorf(EInvalid, "only a failed verification has a reason")
	case t.To == StatusPending || !validStatus(t.To):
		return Errorf(EInvalid, "cannot move a verification to %q", t.To)
	}
	return nil
}

func validStatus(s Status) bool {
	switch s {
	case StatusPending, StatusStarted, StatusExpired, StatusFailed, StatusApproved:
		return true
	}
	return false
}

// ErrTransition is returned when a transition is not allowed from the
// verification's current status.
func ErrTransition(from, to Status) *Error {
	return Errorf(EConflict, "a %s verification cannot become %s", from, to)
}

// StatusEvent is one entry of a verification's immutable history.
type StatusEvent struct {
	VerificationID string    `json:"verification_id"`
	Seq            int       `json:"seq"`
	At             time.Time `json:"at"`
	From           Status    `json:"from"`
	To             Status    `json:"to"`
	Reason         Reason    `json:"reason"`
	Cause          Cause     `json:"cause"`
	Actor          string    `json:"actor,omitempty"`
}

// WebhookState is the delivery state of a webhook event.
type WebhookState string

// The delivery states.
const (
	WebhookPending   WebhookState = "pending"
	WebhookDelivered WebhookState = "delivered"
	WebhookFailed    WebhookState = "failed"
)

// WebhookEvent is one status-change notification to an integrator. Payload
// holds the exact bytes that are signed and sent on every attempt, so
// retries are byte-identical.
type WebhookEvent struct {
	ID             string `json:"id"`
	VerificationID string `json:"verification_id"`
	// Seq is the history entry this event reports; events of one
	// verification are delivered in Seq order.
	Seq         int          `json:"seq"`
	BusinessID  string       `json:"business_id"`
	APIKey      string       `json:"api_key"`
	URL         string       `json:"url"`
	Payload     []byte       `json:"-"`
	State       WebhookState `json:"state"`
	Attempts    int          `json:"attempts"`
	CreatedAt   time.Time    `json:"created_at"`
	DeliveredAt *time.Time   `json:"delivered_at,omitempty"`
	LastError   string       `json:"last_error,omitempty"`
}

// WebhookAttempt records one delivery attempt.
type WebhookAttempt struct {
	EventID    string        `json:"event_id"`
	Attempt    int           `json:"attempt"`
	At         time.Time     `json:"at"`
	StatusCode int           `json:"status_code,omitempty"`
	Latency    time.Duration `json:"latency_ns"`
	Error      string        `json:"error,omitempty"`
}

// String describes an attempt for logs.
func (a WebhookAttempt) String() string {
	if a.Error != "" {
		return fmt.Sprintf("attempt %d: %s", a.Attempt, a.Error)
	}
	return fmt.Sprintf("attempt %d: HTTP %d in %s", a.Attempt, a.StatusCode, a.Latency)
}
