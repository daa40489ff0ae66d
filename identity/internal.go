package identity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/mrz"
)

// Internal verifications serve other parts of verifyd: the age flow's
// document method (package agehosted) creates one per attempt and drives it
// from its own pages. An internal verification is an ordinary hosted-flow
// verification of a business and environment (same pipeline, retries,
// review console, expiry), with three differences: it has no webhook (its
// status changes notify nobody; sqlstore skips the event), no hosted-page
// token (the identity page cannot open it) and no redirect_uri. Its owner
// finds it by id, which is never given to an integrator.

// InternalInput is what an internal verification is created with.
type InternalInput struct {
	BusinessID  string
	Environment verifyd.Environment
	// APIKey is the credential the verification is attributed to (for the
	// age flow: the integrator's age key, the authorize request's client_id).
	APIKey   string
	Customer verifyd.Customer
}

// CreateInternal creates an internal verification and starts it (cause
// hosted_page_opened: the owner's page is open), ready for SubmitInternal.
func (s *Service) CreateInternal(ctx context.Context, in InternalInput) (HostedState, error) {
	var p verifyd.Problems
	s.checkCustomer(&p, in.Customer)
	if in.BusinessID == "" || in.APIKey == "" || !in.Environment.Valid() {
		p.Add("credential", "an internal verification needs a business, an environment and an API key")
	}
	if err := p.Err(); err != nil {
		return HostedState{}, err
	}
	v, err := s.newVerification(verifyd.Credential{BusinessID: in.BusinessID, Environment: in.Environment, APIKey: in.APIKey},
		in.Customer, "", verifyd.FlowHosted)
	if err != nil {
		return HostedState{}, err
	}
	if err := s.store.CreateVerification(ctx, v, nil); err != nil {
		return HostedState{}, fmt.Errorf("create internal verification: %w", err)
	}
	if _, err := s.Transition(ctx, verifyd.Transition{VerificationID: v.ID, To: verifyd.StatusStarted,
		Cause: verifyd.CauseHostedOpened}); err != nil {
		return HostedState{}, err
	}
	return s.stateByID(ctx, v.ID)
}

// internal returns the internal verification with the id; any other
// verification is not found, so an id cannot reach an integrator's
// verification through these methods.
func (s *Service) internal(ctx context.Context, id string) (View, error) {
	v, err := s.store.VerificationByID(ctx, id)
	if errors.Is(err, verifyd.ErrNotFound) || (err == nil && !v.Internal()) {
		return View{}, verifyd.ErrNotFound
	}
	if err != nil {
		return View{}, err
	}
	return View{Verification: v}, nil
}

// InternalState returns an internal verification as a hosted page shows it
// (phase, attempts left, what to fix).
func (s *Service) InternalState(ctx context.Context, id string) (HostedState, error) {
	v, err := s.internal(ctx, id)
	if err != nil {
		return HostedState{}, err
	}
	return s.hostedState(ctx, v)
}

// SubmitInternal accepts a submission for an internal verification, with
// the rules and retries of SubmitHosted, and like it only after the
// person's consent (ConsentInternal; ErrNoConsent before).
func (s *Service) SubmitInternal(ctx context.Context, id string, in HostedSubmission) (HostedState, error) {
	v, err := s.internal(ctx, id)
	if err != nil {
		return HostedState{}, err
	}
	if v.ConsentedAt == nil {
		return HostedState{}, ErrNoConsent
	}
	return s.submitHosted(ctx, v, in)
}

// AgeAtDecision returns the holder's age in whole years on the day an
// internal verification was decided (its UpdatedAt), from the date of birth
// the document check read from the machine-readable zone of its latest
// processed submission. ok is false when none was read (a driving licence,
// the sandbox, a submission not processed yet). After the purge the age is
// read from the summary that replaced the evidence (purge.go), so the
// answer does not depend on whether the age flow looked before or after it.
func (s *Service) AgeAtDecision(ctx context.Context, id string) (years int, ok bool, err error) {
	v, err := s.internal(ctx, id)
	if err != nil {
		return 0, false, err
	}
	runs, err := s.store.CheckRuns(ctx, id)
	if err != nil {
		return 0, false, err
	}
	for n := len(runs) - 1; n >= 0; n-- {
		if runs[n].Outcome == "error" {
			continue
		}
		doc, err := s.openDoc(runs[n])
		if err != nil {
			return 0, false, err
		}
		if doc.Purged {
			if doc.AgeAtDecision == nil {
				return 0, false, nil
			}
			return *doc.AgeAtDecision, true, nil
		}
		years, ok := ageAt(doc.Results, v.UpdatedAt)
		return years, ok, nil
	}
	return 0, false, nil
}

// ageAt is the age at t of the holder whose date of birth the document
// check read.
func ageAt(results []engine.Result, t time.Time) (int, bool) {
	for _, r := range results {
		if d, ok := birthDateOf(r); ok {
			return mrz.Age(d, t), true
		}
	}
	return 0, false
}

// birthDateOf reads evidence["mrz"]["birth_date"] (YYYY-MM-DD) of the
// document check (engine.DocumentCheck).
func birthDateOf(r engine.Result) (mrz.Date, bool) {
	if r.Check != "document" {
		return mrz.Date{}, false
	}
	fields, _ := r.Evidence["mrz"].(map[string]any)
	raw, _ := fields["birth_date"].(string)
	t, err := time.Parse(time.DateOnly, raw)
	if err != nil {
		return mrz.Date{}, false
	}
	d := mrz.Date{Year: t.Year(), Month: t.Month(), Day: t.Day()}
	return d, d.Valid()
}
