package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/seal"
)

// MaxHostedAttempts is how many submissions a customer may make on the
// hosted page when a failure is one they can fix (a blurred or cut-off
// photo); the last failure is final.
const MaxHostedAttempts = 3

// fixableReasons are failures a new photo can fix.
var fixableReasons = map[verifyd.Reason]bool{
	verifyd.ReasonPoorIDScanError: true,
	verifyd.ReasonPartialID:       true,
	verifyd.ReasonIDScanError:     true,
	// A failed liveness challenge: the person may not have followed a
	// prompt in time; SPEC's failed status means several attempts were made.
	verifyd.ReasonLivenessError: true,
}

// MaxPipelineRuns is how often the pipeline is started on one submission.
// A run that neither decides nor fails cleanly (it errored, or the process
// died during it: a photo that exhausts memory kills the process, and on
// restart the rescued job would kill it again) is retried; the next
// attempt after MaxPipelineRuns fails the verification with idv_error
// without running the pipeline, so such a submission takes the service
// down MaxPipelineRuns times at most (docs/reliability.md).
const MaxPipelineRuns = 3

// errPipelineRuns is the recorded error of a verification failed by
// MaxPipelineRuns.
var errPipelineRuns = fmt.Errorf("the pipeline was started %d times on this submission without finishing; the process may have died during it", MaxPipelineRuns)

// Process runs the verification pipeline on a verification's submission:
// it starts the verification, decides it, stores every check's evidence,
// and applies the decision through the normal transitions (and so the
// webhooks). attempt and final come from the job queue: a run that errors
// is retried, and when retries are exhausted the verification fails with
// idv_error (our failure is never blamed on the customer).
func (s *Service) Process(ctx context.Context, id string, attempt int, final bool) error {
	v, err := s.store.VerificationByID(ctx, id)
	if errors.Is(err, verifyd.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if v.Status.Terminal() {
		return nil
	}
	if v.Environment == verifyd.EnvSandbox {
		return s.processSandbox(ctx, v)
	}
	if v.Status == verifyd.StatusPending {
		if v, err = s.Transition(ctx, verifyd.Transition{VerificationID: id, To: verifyd.StatusStarted, Cause: verifyd.CauseSubmission}); err != nil {
			return ignoreConflict(err)
		}
	}
	if attempt > MaxPipelineRuns {
		return s.decide(ctx, v, engine.Decision{}, errPipelineRuns, true)
	}
	in, err := s.pipelineInput(ctx, v)
	if err != nil {
		return err
	}
	if s.cfg.Pipeline == nil {
		return s.decide(ctx, v, engine.Decision{}, &engine.CheckError{Check: "pipeline", Detail: "no verification pipeline configured", Unavailable: true}, final)
	}
	d, runErr := s.cfg.Pipeline.Run(ctx, in)
	var docHash []byte
	if key, ok := in.Facts[engine.FactDocumentKey].(string); ok && key != "" {
		docHash = DocumentHasher(s.sealer)(v.BusinessID, key)
	}
	return s.decideWithHash(ctx, v, d, runErr, final, docHash)
}

// DocumentHasher returns the function that computes the stored, keyed hash
// identifying a document within a business.
func DocumentHasher(sealer *seal.Sealer) func(businessID, key string) []byte {
	return func(businessID, key string) []byte { return sealer.MAC([]byte(businessID + "|" + key)) }
}

func ignoreConflict(err error) error {
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		return nil // decided meanwhile (expired, or another replica)
	}
	return err
}

func (s *Service) decide(ctx context.Context, v verifyd.Verification, d engine.Decision, runErr error, final bool) error {
	return s.decideWithHash(ctx, v, d, runErr, final, nil)
}

// decideWithHash records the run and applies its decision.
func (s *Service) decideWithHash(ctx context.Context, v verifyd.Verification, d engine.Decision, runErr error, final bool, docHash []byte) error {
	outcome, review := d.Summary(), verifyd.ReviewNone
	to, reason := d.Status, d.Reason
	var checkErr *engine.CheckError
	switch {
	case errors.As(runErr, &checkErr) && checkErr.Unavailable:
		outcome, to, reason = "error", verifyd.StatusFailed, verifyd.ReasonServerErrorUnavailable
	case runErr != nil && final:
		outcome, to, reason = "error", verifyd.StatusFailed, verifyd.ReasonIDVError
	case runErr != nil:
		outcome, to = "error", ""
	case d.Review:
		outcome, review, to = "review", verifyd.ReviewPending, ""
	case to == verifyd.StatusFailed && v.Flow == verifyd.FlowHosted && fixableReasons[reason] && hostedAttempt(v) < MaxHostedAttempts:
		// The customer may try again with a better photo.
		to = ""
	}
	sealed, err := s.sealResults(v.ID, d.Results, runErr)
	if err != nil {
		return err
	}
	if _, err := s.store.RecordCheckRun(ctx, verifyd.CheckRun{VerificationID: v.ID, At: s.now().UTC(),
		Outcome: outcome, Reason: reason, SealedResults: sealed}, review, docHash); err != nil {
		// A conflict: the verification was finished (decided, expired or purged)
		// while this run was under way; its evidence is not kept.
		return ignoreConflict(err)
	}
	if to != "" {
		if to == verifyd.StatusApproved {
			reason = verifyd.ReasonNone
		}
		_, err := s.Transition(ctx, verifyd.Transition{VerificationID: v.ID, To: to, Reason: reason, Cause: verifyd.CauseEngine})
		if err := ignoreConflict(err); err != nil {
			return err
		}
	}
	if runErr != nil && to == "" {
		return runErr // the queue retries the run
	}
	return nil
}

// hostedAttempt is which attempt of a hosted verification a run decides:
// the submissions counted on the hosted page (so runs retried after our own
// errors do not use up the customer's attempts), or the processed runs when
// the page counted none.
func hostedAttempt(v verifyd.Verification) int {
	if v.HostedSubmissions > 0 {
		return v.HostedSubmissions
	}
	return v.Submissions + 1
}

// checkAAD binds sealed evidence to its verification.
func checkAAD(id string) []byte { return []byte("checks/" + id) }

// runDoc is what a check run stores, sealed: every check's result with its
// evidence, or, once the verification is purged (purge.go), the summary
// that replaced them.
type runDoc struct {
	Results []engine.Result `json:"results"`
	Error   string          `json:"error,omitempty"`
	// Purged marks a summary left by the purge: results without detail or
	// evidence.
	Purged bool `json:"purged,omitempty"`
	// AgeAtDecision is the holder's age in whole years on the day the
	// verification was decided, read from the document check's MRZ; only a
	// purge summary has it (the age flow's result needs it, not the date).
	AgeAtDecision *int `json:"age_at_decision,omitempty"`
}

func (s *Service) sealResults(id string, results []engine.Result, runErr error) ([]byte, error) {
	doc := runDoc{Results: results}
	if runErr != nil {
		doc.Error = runErr.Error()
	}
	return s.sealDoc(id, doc)
}

func (s *Service) sealDoc(id string, doc runDoc) ([]byte, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return s.sealer.Seal(raw, checkAAD(id))
}

func (s *Service) openDoc(run verifyd.CheckRun) (runDoc, error) {
	var doc runDoc
	raw, err := s.sealer.Open(run.SealedResults, checkAAD(run.VerificationID))
	if err != nil {
		return doc, err
	}
	err = json.Unmarshal(raw, &doc)
	return doc, err
}

// CheckResults opens a run's evidence for operators. After a purge the
// results are the summary: check, outcome and reason only.
func (s *Service) CheckResults(run verifyd.CheckRun) ([]engine.Result, string, error) {
	doc, err := s.openDoc(run)
	return doc.Results, doc.Error, err
}

// Images opens a verification's images.
func (s *Service) Images(ctx context.Context, v verifyd.Verification) (map[verifyd.ImageKind]engine.Image, error) {
	stored, err := s.store.Images(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	out := map[verifyd.ImageKind]engine.Image{}
	for _, im := range stored {
		raw, err := s.sealer.Open(im.Sealed, imageAAD(v.ID, im.Kind))
		if err != nil {
			return nil, fmt.Errorf("open %s of %s: %w", im.Kind, v.ID, err)
		}
		out[im.Kind] = engine.Image{Kind: im.Kind, Bytes: raw, Format: im.Format}
	}
	return out, nil
}

// ImageOf returns one image of v, decrypted, or ErrNotFound when it is
// not stored; only that image is opened (a page shows a verification's
// images one request each).
func (s *Service) ImageOf(ctx context.Context, v verifyd.Verification, kind verifyd.ImageKind) (engine.Image, error) {
	stored, err := s.store.Images(ctx, v.ID)
	if err != nil {
		return engine.Image{}, err
	}
	for _, im := range stored {
		if im.Kind != kind {
			continue
		}
		raw, err := s.sealer.Open(im.Sealed, imageAAD(v.ID, im.Kind))
		if err != nil {
			return engine.Image{}, fmt.Errorf("open %s of %s: %w", im.Kind, v.ID, err)
		}
		return engine.Image{Kind: im.Kind, Bytes: raw, Format: im.Format}, nil
	}
	return engine.Image{}, verifyd.ErrNotFound
}

func (s *Service) pipelineInput(ctx context.Context, v verifyd.Verification) (*engine.Input, error) {
	images, err := s.Images(ctx, v)
	if err != nil {
		return nil, err
	}
	in := &engine.Input{
		VerificationID: v.ID, BusinessID: v.BusinessID, CustomerID: v.Customer.ID, Environment: v.Environment,
		DocumentType: v.Document.Type, Country: v.Document.Country, Now: s.now().UTC(), Facts: map[string]any{},
	}
	pick := func(k verifyd.ImageKind) *engine.Image {
		if im, ok := images[k]; ok {
			return &im
		}
		return nil
	}
	in.Selfie, in.Front, in.Back = pick(verifyd.ImageSelfie), pick(verifyd.ImageDocumentFront), pick(verifyd.ImageDocumentBack)
	if v.Environment == verifyd.EnvProduction && v.HostedSubmissions == 0 {
		b, err := s.store.Business(ctx, v.BusinessID)
		if err != nil {
			return nil, fmt.Errorf("business of %s: %w", v.ID, err)
		}
		in.DirectReview = b.DirectLiveness == verifyd.DirectLivenessReview
	}
	for n := 1; n <= verifyd.MaxSelfieFrames; n++ {
		if f := pick(verifyd.SelfieFrame(n)); f != nil {
			in.Frames = append(in.Frames, f)
		}
	}
	if v.Flow == verifyd.FlowHosted && v.HostedSubmissions > 0 {
		if in.Capture, err = s.captureInput(ctx, v, images); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// SandboxOutcome is what a sandbox submission turns into, chosen by a tag
// in the customer's e-mail address (name+TAG@example.com): no tag or
// "approved" approves; a SPEC reason ("minor", "photo_mismatch", …) fails
// with it; "review" waits in the review queue; "started" stays started;
// "pending" is never processed. docs/sandbox.md has the table.
func SandboxOutcome(email string) (to verifyd.Status, reason verifyd.Reason, review bool) {
	local, _, _ := strings.Cut(email, "@")
	_, tag, _ := strings.Cut(local, "+")
	switch r := verifyd.Reason(strings.ToLower(tag)); {
	case tag == "" || strings.EqualFold(tag, "approved"):
		return verifyd.StatusApproved, "", false
	case r.Valid():
		return verifyd.StatusFailed, r, false
	case strings.EqualFold(tag, "review"):
		return verifyd.StatusStarted, "", true
	case strings.EqualFold(tag, "pending"):
		return verifyd.StatusPending, "", false
	}
	return verifyd.StatusStarted, "", false
}

// processSandbox applies the documented sandbox outcome instead of real
// checks, through the same transitions and webhooks.
func (s *Service) processSandbox(ctx context.Context, v verifyd.Verification) error {
	to, reason, review := SandboxOutcome(v.Customer.Email)
	if to == verifyd.StatusPending {
		return nil
	}
	if v.Status == verifyd.StatusPending {
		var err error
		if v, err = s.Transition(ctx, verifyd.Transition{VerificationID: v.ID, To: verifyd.StatusStarted, Cause: verifyd.CauseSubmission}); err != nil {
			return ignoreConflict(err)
		}
	}
	d := engine.Decision{Status: to, Reason: reason, Review: review, Results: []engine.Result{{
		Check: "sandbox", Outcome: engine.Pass, Detail: "sandbox: outcome chosen by the e-mail tag, no real checks ran",
	}}}
	if to == verifyd.StatusStarted && !review {
		return nil
	}
	return s.decide(ctx, v, d, nil, false)
}
