package identity

import (
	"context"

	"github.com/verifyd/verifyd"
)

// Consent on the hosted page (docs/hosted-flow.md "Consent"). Before the
// camera opens, the page names the business (controller) and this
// installation (processor), says what is collected, why and for how long,
// and asks for explicit consent to the processing of the customer's face
// (matching it with the document's photo, checking it is live). The answer
// is recorded either way: a consent on the verification (ConsentedAt), a
// refusal as its end, because no decision can be made without the face.
//
// A refusal fails the verification with reason idv_error ("request could
// not be completed"), SPEC's closest reason: none of them means "the
// person declined", and the others all claim something about the person
// or their document that was never checked. The history records cause
// consent_declined, so the integrator's dashboard tells the two apart, and
// the webhook goes out as for any failure.

// hostedPage is the audit log's actor for what a customer did on a hosted
// page.
var hostedPage = verifyd.Actor{Kind: verifyd.ActorCustomer, Name: "hosted page"}

// ErrNoConsent refuses a hosted-page submission or liveness challenge
// before the customer consented.
var ErrNoConsent = verifyd.Errorf(verifyd.EConflict, "the customer has not consented to the processing of their face")

// NeedsConsent reports whether the page must ask for consent before
// anything else: nothing was submitted yet and nobody consented.
func (st HostedState) NeedsConsent() bool {
	return st.Phase == PhaseCapture && st.HostedSubmissions == 0 && st.ConsentedAt == nil
}

// ConsentHosted records the customer's consent on the hosted page of
// token and returns the page's state. Consenting twice keeps the first
// time; a finished verification gives an EConflict error.
func (s *Service) ConsentHosted(ctx context.Context, token string) (HostedState, error) {
	v, err := s.ByHostedToken(ctx, token)
	if err != nil {
		return HostedState{}, err
	}
	if _, err := s.store.RecordConsent(ctx, v.ID, s.now()); err != nil {
		return HostedState{}, err
	}
	return s.stateByID(ctx, v.ID)
}

// DeclineHosted ends the verification of token because the customer
// declined the processing of their face: failed, reason idv_error, cause
// consent_declined, with its webhook, and an audit entry. Only a page that
// still asks for consent may decline (EConflict otherwise): after a
// consent or a submission the customer leaves the page instead, and the
// verification expires.
func (s *Service) DeclineHosted(ctx context.Context, token string) (HostedState, error) {
	st, err := s.HostedState(ctx, token)
	if err != nil {
		return HostedState{}, err
	}
	if err := s.decline(ctx, st); err != nil {
		return HostedState{}, err
	}
	s.audit(ctx, hostedPage, st.BusinessID, verifyd.AuditConsentDeclined, st.ID, "failed idv_error")
	return s.stateByID(ctx, st.ID)
}

// ConsentInternal records the person's consent to the processing of their
// face for an internal verification (the age flow's document method asks
// on its own page). Consenting twice keeps the first time; a finished
// verification gives an EConflict error.
func (s *Service) ConsentInternal(ctx context.Context, id string) (HostedState, error) {
	v, err := s.internal(ctx, id)
	if err != nil {
		return HostedState{}, err
	}
	if _, err := s.store.RecordConsent(ctx, v.ID, s.now()); err != nil {
		return HostedState{}, err
	}
	return s.stateByID(ctx, v.ID)
}

// DeclineInternal ends an internal verification whose person declined the
// processing of their face, as DeclineHosted does, but without an audit
// entry: the business's audit log would otherwise tell it that someone in
// its age flow declined, which the age flow never tells a site (it learns
// only "not verified"). The history still records cause consent_declined.
func (s *Service) DeclineInternal(ctx context.Context, id string) (HostedState, error) {
	v, err := s.internal(ctx, id)
	if err != nil {
		return HostedState{}, err
	}
	st, err := s.hostedState(ctx, v)
	if err != nil {
		return HostedState{}, err
	}
	if err := s.decline(ctx, st); err != nil {
		return HostedState{}, err
	}
	return s.stateByID(ctx, st.ID)
}

// decline fails a verification that still asks for consent (EConflict
// otherwise) with reason idv_error and cause consent_declined.
func (s *Service) decline(ctx context.Context, st HostedState) error {
	if !st.NeedsConsent() {
		return verifyd.Errorf(verifyd.EConflict, "this verification does not ask for consent")
	}
	steps := []verifyd.Status{verifyd.StatusFailed}
	if st.Status == verifyd.StatusPending {
		steps = []verifyd.Status{verifyd.StatusStarted, verifyd.StatusFailed}
	}
	for _, to := range steps {
		t := verifyd.Transition{VerificationID: st.ID, To: to, Cause: verifyd.CauseConsentDeclined}
		if to == verifyd.StatusFailed {
			t.Reason = verifyd.ReasonIDVError
		}
		if _, err := s.Transition(ctx, t); err != nil {
			return err
		}
	}
	return nil
}
