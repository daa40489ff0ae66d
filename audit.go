package verifyd

import (
	"context"
	"time"
)

// ActorKind says what kind of principal did something recorded in the
// audit log.
type ActorKind string

// The kinds of actors.
const (
	// ActorOperator is a person operating the installation: the command
	// line (named by the operating-system user) or the review console
	// (named by the operator's login).
	ActorOperator ActorKind = "operator"
	// ActorAPIKey is an integrator's server, named by the API key that
	// signed the request.
	ActorAPIKey ActorKind = "api_key"
	// ActorBusinessUser is a person of a business (the dashboard).
	ActorBusinessUser ActorKind = "business_user"
	// ActorCustomer is an integrator's customer on a hosted page (named by
	// the page, never by personal data).
	ActorCustomer ActorKind = "customer"
	// ActorSystem is verifyd itself (the retention job).
	ActorSystem ActorKind = "system"
)

// Actor is who did something.
type Actor struct {
	Kind ActorKind `json:"kind"`
	Name string    `json:"name"`
}

// The audited actions.
const (
	AuditBusinessCreate  = "business.create"
	AuditBusinessSet     = "business.set"
	AuditKeyCreate       = "key.create"
	AuditKeyRevoke       = "key.revoke"
	AuditRedirectsAdd    = "redirects.add"
	AuditRedirectsSet    = "redirects.replace"
	AuditRedirectsRemove = "redirects.remove"
	AuditDecision        = "verification.decide"
	AuditRedact          = "verification.redact"
	AuditWebhookResend   = "webhook.resend"
	AuditUserInvite      = "user.invite"
	AuditUserUninvite    = "user.uninvite"
	AuditUserJoin        = "user.join"
	AuditUserRemove      = "user.remove"
	AuditUserRole        = "user.role"
	AuditPasskeyAdd      = "passkey.add"
	AuditPasskeyRemove   = "passkey.remove"
)

// AuditEntry is one line of the audit log: who did what, when, to what.
// Detail never holds secrets or personal data (no e-mail addresses, no
// images); it names settings and their new values, URLs of redirect lists,
// decisions and reasons.
type AuditEntry struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	BusinessID string    `json:"business_id,omitempty"`
	Actor      Actor     `json:"actor"`
	Action     string    `json:"action"`
	// Subject is what was acted on: an API key, a verification id, a
	// webhook event id, a business id.
	Subject string `json:"subject,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// AuditFilter selects audit entries.
type AuditFilter struct {
	// BusinessID keeps only the entries of one business when not empty.
	BusinessID string
	// Since keeps only entries at or after it when not zero.
	Since time.Time
	// Limit caps the number of entries (the newest are kept); 0 means
	// no cap.
	Limit int
}

// AuditStore persists the audit log.
type AuditStore interface {
	// AppendAudit stores an entry; its ID is assigned by the store.
	AppendAudit(ctx context.Context, e AuditEntry) error
	// AuditEntries lists entries oldest first (ordered by At, then by
	// insertion).
	AuditEntries(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
}

type actorKey struct{}

// WithActor returns a context that carries the actor of a request, so the
// services that change data can record who asked without every call
// naming it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor carried by ctx; a context without one is the
// system acting on its own.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Kind: ActorSystem, Name: "verifyd"}
}
