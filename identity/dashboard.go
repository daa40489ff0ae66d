package identity

import (
	"context"
	"fmt"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
)

// The business dashboard's use cases (docs/dashboard-data.md): every one
// takes the business of the signed-in user and never reaches another
// business's verifications, which answer ErrNotFound as unknown ones do.
// Which role may call which (images and redaction are not for viewers) is
// the dashboard's rule, not this package's.

// Page is one page of a verification listing; Next continues it (nil on the
// last page).
type Page struct {
	Verifications []verifyd.Verification
	Next          *verifyd.VerificationCursor
}

// List lists a business's verifications (q.BusinessID is replaced by
// businessID).
func (s *Service) List(ctx context.Context, businessID string, q verifyd.VerificationQuery) (Page, error) {
	q.BusinessID = businessID
	limit := verifyd.ListLimit(q.Limit)
	// One more row than asked says whether there is a next page.
	q.Limit = limit + 1
	if q.Limit > verifyd.MaxListLimit {
		q.Limit, limit = verifyd.MaxListLimit, verifyd.MaxListLimit-1
	}
	vs, err := s.store.ListVerifications(ctx, q)
	if err != nil {
		return Page{}, err
	}
	p := Page{Verifications: vs}
	if len(vs) > limit {
		p.Verifications = vs[:limit]
		last := vs[limit-1]
		p.Next = &verifyd.VerificationCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return p, nil
}

// EventAttempts is a webhook event with its delivery attempts (the
// event's Attempts counts them).
type EventAttempts struct {
	verifyd.WebhookEvent
	AttemptLog []verifyd.WebhookAttempt
}

// ImageInfo describes a stored image without its pixels.
type ImageInfo struct {
	Kind          verifyd.ImageKind
	Format        string
	Width, Height int
}

// Detail is one verification as the dashboard shows it: its history, its
// webhook events with their attempts, the outcomes of its check runs and
// the images still stored.
type Detail struct {
	verifyd.Verification
	History  []verifyd.StatusEvent
	Webhooks []EventAttempts
	// Checks are the latest run's checks: name, outcome and reason only
	// (the evidence stays with the review console).
	Checks []engine.Result
	Images []ImageInfo
}

// ofBusiness returns a verification of the identity API of businessID.
func (s *Service) ofBusiness(ctx context.Context, businessID, id string) (verifyd.Verification, error) {
	v, err := s.store.VerificationByID(ctx, id)
	if err != nil {
		return verifyd.Verification{}, err
	}
	if v.BusinessID != businessID || v.Internal() {
		return verifyd.Verification{}, verifyd.ErrNotFound
	}
	return v, nil
}

// Detail returns a verification of businessID with its history.
func (s *Service) Detail(ctx context.Context, businessID, id string) (Detail, error) {
	v, err := s.ofBusiness(ctx, businessID, id)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Verification: v}
	if d.History, err = s.store.StatusEvents(ctx, id); err != nil {
		return Detail{}, err
	}
	if d.Webhooks, err = s.eventAttempts(ctx, verifyd.WebhookFilter{VerificationID: id, BusinessID: businessID}); err != nil {
		return Detail{}, err
	}
	runs, err := s.store.CheckRuns(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	if len(runs) > 0 {
		if doc, err := s.openDoc(runs[len(runs)-1]); err == nil {
			for _, r := range doc.Results {
				d.Checks = append(d.Checks, engine.Result{Check: r.Check, Outcome: r.Outcome, Reason: r.Reason})
			}
		}
	}
	images, err := s.store.Images(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	for _, im := range images {
		d.Images = append(d.Images, ImageInfo{Kind: im.Kind, Format: im.Format, Width: im.Width, Height: im.Height})
	}
	return d, nil
}

// Image returns one image of a verification of businessID, decrypted:
// ErrNotFound for an image that is not stored, and always for a redacted or
// purged verification (their images are deleted; the check guards against
// a store that lags).
func (s *Service) Image(ctx context.Context, businessID, id string, kind verifyd.ImageKind) (engine.Image, error) {
	v, err := s.ofBusiness(ctx, businessID, id)
	if err != nil {
		return engine.Image{}, err
	}
	if v.RedactedAt != nil || v.PurgedAt != nil {
		return engine.Image{}, verifyd.ErrNotFound
	}
	return s.ImageOf(ctx, v, kind)
}

// RedactForBusiness redacts a verification of businessID, as Redact does
// for an API key; the audit log names the actor of ctx (the dashboard's
// user).
func (s *Service) RedactForBusiness(ctx context.Context, businessID, id string) (View, error) {
	v, err := s.ofBusiness(ctx, businessID, id)
	if err != nil {
		return View{}, err
	}
	return s.redact(ctx, v, verifyd.ActorFrom(ctx))
}

// WebhookEvents lists a business's webhook events with their attempts,
// newest first (f.BusinessID is replaced by businessID).
func (s *Service) WebhookEvents(ctx context.Context, businessID string, f verifyd.WebhookFilter) ([]EventAttempts, error) {
	if businessID == "" {
		// The store reads an empty business id as "every business" (the
		// operator's listing); no business has no events, as in List.
		return []EventAttempts{}, nil
	}
	f.BusinessID = businessID
	f.Limit = verifyd.ListLimit(f.Limit)
	return s.eventAttempts(ctx, f)
}

func (s *Service) eventAttempts(ctx context.Context, f verifyd.WebhookFilter) ([]EventAttempts, error) {
	events, err := s.store.WebhookEvents(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]EventAttempts, 0, len(events))
	// One query per event: a page shows at most ListLimit events, and the
	// attempts of each are few (webhook.MaxAttempts).
	for _, ev := range events {
		attempts, err := s.store.WebhookAttempts(ctx, ev.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, EventAttempts{WebhookEvent: ev, AttemptLog: attempts})
	}
	return out, nil
}

// ResendWebhook sends a business's webhook event again (pending, a new
// delivery job) and records it in the audit log with the actor of ctx.
func (s *Service) ResendWebhook(ctx context.Context, businessID, eventID string) (verifyd.WebhookEvent, error) {
	ev, err := s.store.WebhookEvent(ctx, eventID)
	if err != nil {
		return verifyd.WebhookEvent{}, err
	}
	if ev.BusinessID != businessID {
		return verifyd.WebhookEvent{}, verifyd.ErrNotFound
	}
	if ev, err = s.store.ResendWebhook(ctx, eventID); err != nil {
		return verifyd.WebhookEvent{}, err
	}
	s.audit(ctx, verifyd.ActorFrom(ctx), businessID, verifyd.AuditWebhookResend, eventID,
		fmt.Sprintf("verification %s", ev.VerificationID))
	return ev, nil
}
