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
// Verifications of the identity API are never purged here: the integrator
// reads them (B3), may be asked about them later, and decides its own
// retention.

// Purge deletes a finished internal verification's images and replaces its
// check runs' evidence with a summary: for each check its name, outcome and
// reason; for the run, whether it ended with an error (not the error's
// text); and the holder's age on the day of the decision, which the age
// flow needs to tell an adult from a minor. Status, reason, history and
// times are kept. Anything else (unknown, unfinished, not internal, purged
// already) is left alone, so the job may run any number of times.
func (s *Service) Purge(ctx context.Context, id string) error {
	v, err := s.store.VerificationByID(ctx, id)
	if errors.Is(err, verifyd.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if v.PurgedAt != nil || !v.Internal() || !v.Status.Terminal() {
		return nil
	}
	runs, err := s.store.CheckRuns(ctx, id)
	if err != nil {
		return err
	}
	summaries := make([]verifyd.CheckRun, len(runs))
	for n, run := range runs {
		sum := runDoc{Purged: true, Results: []engine.Result{}}
		if doc, err := s.openDoc(run); err == nil {
			sum = summarise(doc, v)
		} else {
			// Evidence that does not open is deleted all the same.
			sum.Error = "the evidence could not be opened; it was deleted after the decision"
		}
		sealed, err := s.sealDoc(id, sum)
		if err != nil {
			return err
		}
		summaries[n] = verifyd.CheckRun{VerificationID: id, Run: run.Run, SealedResults: sealed}
	}
	// A conflict (a run recorded in between) fails the job, which runs again
	// and summarises that run too.
	if _, err := s.store.PurgeVerification(ctx, id, summaries, s.now()); err != nil {
		return fmt.Errorf("purge %s: %w", id, err)
	}
	return nil
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
