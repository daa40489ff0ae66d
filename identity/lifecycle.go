package identity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/verifyd/verifyd"
)

// Transition applies a status change: the history entry, the webhook event
// and its delivery are committed with it.
func (s *Service) Transition(ctx context.Context, t verifyd.Transition) (verifyd.Verification, error) {
	if err := t.Validate(); err != nil {
		return verifyd.Verification{}, err
	}
	if t.At.IsZero() {
		t.At = s.now()
	}
	eventID, err := verifyd.RandomToken(s.rand, 16)
	if err != nil {
		return verifyd.Verification{}, err
	}
	return s.store.TransitionVerification(ctx, t, "evt_"+eventID)
}

// OpenHosted resolves a hosted-page token and, the first time the customer
// opens the page, moves the verification from pending to started.
func (s *Service) OpenHosted(ctx context.Context, token string) (View, error) {
	v, err := s.ByHostedToken(ctx, token)
	if err != nil || v.Status != verifyd.StatusPending {
		return v, err
	}
	moved, err := s.Transition(ctx, verifyd.Transition{VerificationID: v.ID, To: verifyd.StatusStarted,
		Cause: verifyd.CauseHostedOpened})
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		// Opened twice at once: the other request started it.
		return s.ByHostedToken(ctx, token)
	}
	if err != nil {
		return View{}, err
	}
	v.Verification = moved
	return v, nil
}

// NotDueError says an expiry check ran before the verification was due; the
// queue runs it again at At.
type NotDueError struct{ At time.Time }

func (e *NotDueError) Error() string {
	return fmt.Sprintf("not due until %s", e.At.Format(time.RFC3339))
}

// NotDueUntil tells the queue when to run the check again.
func (e *NotDueError) NotDueUntil() time.Time { return e.At }

// ExpireDue expires a verification whose lifetime (5 days, on its own
// clock) is over. A finished verification is left alone.
func (s *Service) ExpireDue(ctx context.Context, id string) error {
	v, err := s.store.VerificationByID(ctx, id)
	if errors.Is(err, verifyd.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	if v.Status.Terminal() {
		return nil
	}
	if now := s.now(); now.Before(v.DueAt()) {
		return &NotDueError{At: v.DueAt()}
	}
	_, err = s.Transition(ctx, verifyd.Transition{VerificationID: id, To: verifyd.StatusExpired, Cause: verifyd.CauseExpiry})
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		return nil // finished or expired by someone else in between
	}
	return err
}

// SimulateInput is the body of the sandbox simulate endpoint.
type SimulateInput struct {
	Status verifyd.Status `json:"status"`
	Reason verifyd.Reason `json:"reason"`
}

// Simulate moves a sandbox verification as the engine would: a pending
// verification asked to become approved or failed is started first, so the
// integrator receives the same sequence of webhooks as in production.
func (s *Service) Simulate(ctx context.Context, cred verifyd.Credential, id string, in SimulateInput) (View, error) {
	v, err := s.Get(ctx, cred, id)
	if err != nil {
		return View{}, err
	}
	return s.simulate(ctx, v, in)
}

// simulate applies a sandbox outcome to v (Simulate and the hosted page's
// sandbox panel).
func (s *Service) simulate(ctx context.Context, v View, in SimulateInput) (View, error) {
	id := v.ID
	var p verifyd.Problems
	switch in.Status {
	case verifyd.StatusStarted, verifyd.StatusApproved:
		if in.Reason != "" {
			p.Add("reason", "only a failed verification has a reason")
		}
	case verifyd.StatusFailed:
		if !in.Reason.Valid() {
			p.Add("reason", "must be one of SPEC's failure reasons")
		}
	default:
		p.Add("status", "must be started, approved or failed (use advance-time to expire)")
	}
	if err := p.Err(); err != nil {
		return View{}, err
	}
	steps := []verifyd.Status{in.Status}
	if v.Status == verifyd.StatusPending && in.Status != verifyd.StatusStarted {
		steps = []verifyd.Status{verifyd.StatusStarted, in.Status}
	}
	for _, to := range steps {
		if !verifyd.CanTransition(v.Status, to) {
			return View{}, verifyd.InvalidFields([]verifyd.FieldError{{Field: "status",
				Problem: fmt.Sprintf("a %s verification cannot become %s", v.Status, to)}})
		}
		reason := verifyd.ReasonNone
		if to == verifyd.StatusFailed {
			reason = in.Reason
		}
		moved, err := s.Transition(ctx, verifyd.Transition{VerificationID: id, To: to, Reason: reason,
			Cause: verifyd.CauseSandboxControl})
		if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
			return View{}, verifyd.InvalidFields([]verifyd.FieldError{{Field: "status", Problem: err.(*verifyd.Error).Message}})
		}
		if err != nil {
			return View{}, err
		}
		v.Verification = moved
	}
	return s.view(v.Verification)
}

// AdvanceTimeInput is the body of the sandbox advance-time endpoint.
type AdvanceTimeInput struct {
	Seconds int64 `json:"seconds"`
}

// maxAdvance bounds one advance-time call.
const maxAdvance = 10 * 365 * 24 * time.Hour

// AdvanceTime moves a sandbox verification's clock forward. The regular
// expiry job then expires it once it is due on its clock.
func (s *Service) AdvanceTime(ctx context.Context, cred verifyd.Credential, id string, in AdvanceTimeInput) (View, error) {
	if _, err := s.Get(ctx, cred, id); err != nil {
		return View{}, err
	}
	// Compared in seconds: multiplied first, 9223372037 s would wrap
	// round to a negative duration and move the clock back.
	if in.Seconds <= 0 || in.Seconds > int64(maxAdvance/time.Second) {
		return View{}, verifyd.InvalidFields([]verifyd.FieldError{{Field: "seconds", Problem: "must be a positive number of seconds, at most ten years"}})
	}
	v, err := s.store.AdvanceClock(ctx, id, time.Duration(in.Seconds)*time.Second, s.now())
	if err != nil {
		return View{}, err
	}
	return s.view(v)
}
