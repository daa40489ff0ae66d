package identity

import (
	"context"
	"errors"
	"fmt"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
)

// Data minimisation (docs/age.md). An internal verification serves only to
// decide an age proof; once it is finished (approved, failed for good or
// expired) its photos and the identifying evidence its checks stored (the
// MRZ's names, document number, date of birth) have no further use, and
// several laws forbid keeping them. sqlstore enqueues a purge job in the
// transaction that finishes it; the job calls Purge, which deletes the
// images and replaces every run's evidence with a summary in one store
// transaction.
//
// Verifications of the identity API are purged by the same job when their
// business's retention is over (Business.RetentionDays, docs/api.md
// "Retention and redaction"): the job is scheduled at the decision, at a
// sandbox clock advance and at a change of the setting, and the due time
// is checked again when it runs (the setting may have grown since).
//
// Redact is the integrator's request to delete a verification's data now.

// Purge deletes a finished verification's images and replaces its check
// runs' evidence with a summary: for each check its name, outcome and
// reason; for the run, whether it ended with an error (not the error's
// text); and, for an internal verification, the holder's age on the day of
// the decision, which the age flow needs to tell an adult from a minor.
// Status, reason, history and times are kept. An identity-API
// verification whose retention is not over yet gets a *NotDueError (the
// queue runs the job again then). Anything else (unknown, unfinished,
// purged already) is left alone, so the job may run any number of times.
func (s *Service) Purge(ctx context.Context, id string) error {
	v, err := s.store.VerificationByID(ctx, id)
	if errors.Is(err, verifyd.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if v.PurgedAt != nil || !v.Status.Terminal() {
		return nil
	}
	if !v.Internal() {
		b, err := s.store.Business(ctx, v.BusinessID)
		if err != nil {
			return err
		}
		if due, _ := v.RetentionDue(b.RetentionDays); s.now().Before(due) {
			return &NotDueError{At: due}
		}
	}
	summaries, err := s.summaries(ctx, v)
	if err != nil {
		return err
	}
	// A conflict (a run recorded in between) fails the job, which runs again
	// and summarises that run too.
	if _, err := s.store.PurgeVerification(ctx, id, summaries, s.now()); err != nil {
		return fmt.Errorf("purge %s: %w", id, err)
	}
	return nil
}

// Redact deletes a verification's images, evidence, the customer's e-mail
// and phone, the declared document and the hosted page, for good, and
// returns what is left: id, customer id, webhook, status, reason, times,
// history and the checks' outcomes. A verification still under way is
// ended first, as expired (cause "redaction", with its webhook), because
// nothing can be decided without its data. Redacting it again returns it
// as it is.
func (s *Service) Redact(ctx context.Context, cred verifyd.Credential, id string) (View, error) {
	v, err := s.store.Verification(ctx, cred.BusinessID, cred.Environment, id)
	if err != nil {
		return View{}, err
	}
	actor := verifyd.ActorFrom(ctx)
	if actor.Kind == verifyd.ActorSystem {
		actor = verifyd.Actor{Kind: verifyd.ActorAPIKey, Name: cred.APIKey}
	}
	return s.redact(ctx, v, actor)
}

// redact redacts v and records actor in the audit log.
func (s *Service) redact(ctx context.Context, v verifyd.Verification, actor verifyd.Actor) (View, error) {
	id := v.ID
	if v.Internal() {
		// The age flow's own verifications are not the identity API's to
		// redact (they are purged at their decision anyway).
		return View{}, verifyd.ErrNotFound
	}
	if v.RedactedAt != nil {
		return s.view(v)
	}
	for attempt := 0; ; attempt++ {
		if !v.Status.Terminal() {
			moved, err := s.Transition(ctx, verifyd.Transition{VerificationID: id, To: verifyd.StatusExpired,
				Cause: verifyd.CauseRedaction})
			switch {
			case verifyd.ErrorCodeOf(err) == verifyd.EConflict:
				// decided in between: read it again
				if v, err = s.store.VerificationByID(ctx, id); err != nil {
					return View{}, err
				}
			case err != nil:
				return View{}, err
			default:
				v = moved
			}
		}
		summaries, err := s.summaries(ctx, v)
		if err != nil {
			return View{}, err
		}
		redacted, err := s.store.RedactVerification(ctx, id, summaries, s.now())
		// A run recorded in between (the pipeline was under way) is
		// refused once the verification is finished; summarise again.
		if verifyd.ErrorCodeOf(err) == verifyd.EConflict && attempt < 3 {
			if v, err = s.store.VerificationByID(ctx, id); err != nil {
				return View{}, err
			}
			continue
		}
		if err != nil {
			return View{}, fmt.Errorf("redact %s: %w", id, err)
		}
		s.audit(ctx, actor, v.BusinessID, verifyd.AuditRedact, id, fmt.Sprintf("status %s %s", redacted.Status, redacted.Reason))
		return s.view(redacted)
	}
}

// summaries returns a summary of each of v's check runs, as Purge keeps
// them.
func (s *Service) summaries(ctx context.Context, v verifyd.Verification) ([]verifyd.CheckRun, error) {
	id := v.ID
	runs, err := s.store.CheckRuns(ctx, id)
	if err != nil {
		return nil, err
	}
	summaries := make([]verifyd.CheckRun, len(runs))
	for n, run := range runs {
		sum := runDoc{Purged: true, Results: []engine.Result{}}
		if doc, err := s.openDoc(run); err == nil {
			sum = summarise(doc, v)
			if !v.Internal() {
				// Only the age flow needs the holder's age.
				sum.AgeAtDecision = nil
			}
		} else {
			// Evidence that does not open is deleted all the same.
			sum.Error = "the evidence could not be opened; it was deleted after the decision"
		}
		sealed, err := s.sealDoc(id, sum)
		if err != nil {
			return nil, err
		}
		summaries[n] = verifyd.CheckRun{VerificationID: id, Run: run.Run, SealedResults: sealed}
	}
	return summaries, nil
}

// audit records what the actor of ctx did. The change is committed
// already, so a failure to record it is not reported as the change's
// failure (the client would retry something done).
func (s *Service) audit(ctx context.Context, actor verifyd.Actor, businessID, action, subject, detail string) {
	_ = s.store.AppendAudit(ctx, verifyd.AuditEntry{At: s.now().UTC(), BusinessID: businessID,
		Actor: actor, Action: action, Subject: subject, Detail: detail})
}

// summarise keeps what a decided run may keep: no detail text (it quotes
// what was read, such as the MRZ's check digits or the holder's age) and no
// evidence.
func summarise(doc runDoc, v verifyd.Verification) runDoc {
	sum := runDoc{Purged: true, Results: make([]engine.Result, 0, len(doc.Results))}
	for _, r := range doc.Results {
		sum.Results = append(sum.Results, engine.Result{Check: r.Check, Outcome: r.Outcome, Reason: r.Reason})
	}
	if doc.Error != "" {
		sum.Error = "the run ended with an error (details deleted after the decision)"
	}
	if years, ok := ageAt(doc.Results, v.UpdatedAt); ok {
		sum.AgeAtDecision = &years
	}
	return sum
}
