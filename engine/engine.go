// Package engine decides identity verifications: a pipeline of small,
// separately tested checks turns a selfie and document photos into
// approved, failed with one of SPEC.md's reasons, or "needs review".
//
// Each check returns pass, fail (with a reason), review (a person must
// decide) or error (our failure, never the customer's), with evidence that
// is stored for operators. The pipeline stops at the first failure; any
// review result sends the verification to the review queue; only a
// verification whose every check passed is approved.
package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/verifyd/verifyd"
)

// Outcome is a check's verdict.
type Outcome string

// The outcomes.
const (
	Pass   Outcome = "pass"
	Fail   Outcome = "fail"
	Review Outcome = "review"
	Error  Outcome = "error"
)

// Result is what one check found.
type Result struct {
	Check   string         `json:"check"`
	Outcome Outcome        `json:"outcome"`
	Reason  verifyd.Reason `json:"reason,omitempty"`
	// Detail explains the outcome to an operator in a sentence.
	Detail   string         `json:"detail,omitempty"`
	Evidence map[string]any `json:"evidence,omitempty"`
	Millis   int64          `json:"ms"`
}

// Image is one submitted photo, decoded once for all checks.
type Image struct {
	Kind   verifyd.ImageKind
	Bytes  []byte
	Format string
	Image  image.Image
}

// Input is what the pipeline decides on. Checks may add what they found
// for later checks (for example the MRZ fields).
type Input struct {
	VerificationID string
	BusinessID     string
	CustomerID     string
	Environment    verifyd.Environment
	DocumentType   verifyd.DocumentType
	Country        string
	Selfie         *Image
	Front          *Image
	Back           *Image
	// Frames is the burst of camera frames taken with a hosted-page
	// selfie, in order; empty for uploads and direct submissions.
	Frames []*Image
	// DirectReview is set for a production direct submission (SPEC B2:
	// one selfie, no live capture) of a business whose policy is
	// verifyd.DirectLivenessReview: the liveness check then sends what it
	// would pass to review.
	DirectReview bool
	// Now is the reference time for expiry and age.
	Now time.Time
	// hold is what the run holds of a DecodeBudget, released by
	// Pipeline.Run when the run ends.
	hold *holdings
	// Facts carries findings between checks, such as "mrz" → mrz.Fields.
	Facts map[string]any
}

// FactDocumentKey is the fact a document check sets to identify the
// document read ("TYPE|COUNTRY|NUMBER"); the caller stores a keyed hash of
// it to find the same document used by another customer.
const FactDocumentKey = "document_key"

// Check is one step of the pipeline.
type Check interface {
	Name() string
	Run(ctx context.Context, in *Input) Result
}

// ErrUnavailable marks a failure of a required component that is missing
// or down (models, templates): the verification fails with
// server_error_unavailable rather than being retried forever.
var ErrUnavailable = errors.New("a required verification component is unavailable")

// Decision is the pipeline's verdict.
type Decision struct {
	// Status is approved or failed; "" means the verification needs review.
	Status  verifyd.Status `json:"status"`
	Reason  verifyd.Reason `json:"reason"`
	Review  bool           `json:"review"`
	Results []Result       `json:"results"`
}

// Summary describes the decision in a few words for logs and operators.
func (d Decision) Summary() string {
	switch {
	case d.Review:
		return "needs review"
	case d.Status == verifyd.StatusFailed:
		return "failed: " + string(d.Reason)
	}
	return string(d.Status)
}

// Pipeline runs checks in order.
type Pipeline struct {
	checks []Check
	// Timeout bounds one check.
	Timeout time.Duration
}

// NewPipeline returns a pipeline of the given checks.
func NewPipeline(checks ...Check) *Pipeline {
	return &Pipeline{checks: checks, Timeout: 30 * time.Second}
}

// CheckError is returned by Run when a check errored: the caller retries
// the whole run, and gives up with idv_error when retries are exhausted.
type CheckError struct {
	Check  string
	Detail string
	// Unavailable means a required component is missing: retrying does not help.
	Unavailable bool
}

func (e *CheckError) Error() string { return fmt.Sprintf("check %s: %s", e.Check, e.Detail) }

// Run runs the checks and returns the decision, with every result so far
// even when a check errored (as a *CheckError).
func (p *Pipeline) Run(ctx context.Context, in *Input) (Decision, error) {
	if in.Facts == nil {
		in.Facts = map[string]any{}
	}
	if in.hold == nil {
		in.hold = &holdings{}
	}
	defer in.hold.releaseAll()
	var d Decision
	for _, c := range p.checks {
		r := p.runOne(ctx, c, in)
		d.Results = append(d.Results, r)
		switch r.Outcome {
		case Fail:
			d.Status, d.Reason, d.Review = verifyd.StatusFailed, r.Reason, false
			return d, nil
		case Review:
			d.Review = true
		case Error:
			unavailable, _ := r.Evidence["unavailable"].(bool)
			return d, &CheckError{Check: r.Check, Detail: r.Detail, Unavailable: unavailable}
		}
	}
	if !d.Review {
		d.Status = verifyd.StatusApproved
	}
	return d, nil
}

// runOne runs a check with a timeout and turns a panic into an error
// result, so one faulty check cannot take the worker down.
func (p *Pipeline) runOne(ctx context.Context, c Check, in *Input) (r Result) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- Result{Outcome: Error, Detail: fmt.Sprintf("panic: %v", v)}
			}
		}()
		done <- c.Run(ctx, in)
	}()
	select {
	case r = <-done:
	case <-ctx.Done():
		r = Result{Outcome: Error, Detail: "timed out: " + ctx.Err().Error()}
	}
	r.Check = c.Name()
	r.Millis = time.Since(start).Milliseconds()
	return r
}

// Passed, Failed, NeedsReview and Errored build results.
func Passed(detail string, evidence map[string]any) Result {
	return Result{Outcome: Pass, Detail: detail, Evidence: evidence}
}

// Failed builds a failing result with a SPEC reason.
func Failed(reason verifyd.Reason, detail string, evidence map[string]any) Result {
	return Result{Outcome: Fail, Reason: reason, Detail: detail, Evidence: evidence}
}

// NeedsReview builds a result that sends the verification to a person.
func NeedsReview(detail string, evidence map[string]any) Result {
	return Result{Outcome: Review, Detail: detail, Evidence: evidence}
}

// Errored builds an error result; unavailable marks a missing component.
func Errored(err error, evidence map[string]any) Result {
	if evidence == nil {
		evidence = map[string]any{}
	}
	if errors.Is(err, ErrUnavailable) {
		evidence["unavailable"] = true
	}
	return Result{Outcome: Error, Detail: err.Error(), Evidence: evidence}
}
