package identity

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
)

// Phase is where a hosted verification stands from the customer's point of
// view; the hosted page shows one screen per phase.
type Phase string

// The phases of the hosted flow.
const (
	// PhaseCapture: the customer has not submitted photos yet.
	PhaseCapture Phase = "capture"
	// PhaseProcessing: a submission waits for, or is in, the pipeline (or
	// its decision is being applied).
	PhaseProcessing Phase = "processing"
	// PhaseRetry: the last submission failed for a reason a better photo can
	// fix, and attempts are left.
	PhaseRetry Phase = "retry"
	// PhaseReview: a person must decide; the customer has nothing left to do.
	PhaseReview Phase = "review"
	// PhaseApproved, PhaseFailed and PhaseExpired are the terminal statuses.
	PhaseApproved Phase = "approved"
	PhaseFailed   Phase = "failed"
	PhaseExpired  Phase = "expired"
)

// Fix says what the customer should do better after a fixable failure.
type Fix struct {
	Reason verifyd.Reason
	// Image is the photo the failing check named ("" when it named none).
	Image verifyd.ImageKind
	// Problem is blur, glare, light, small, cutoff or unreadable.
	Problem string
}

// HostedState is a hosted verification as its page shows it.
type HostedState struct {
	View
	Phase Phase
	// AttemptsLeft is how many more submissions the customer may make.
	AttemptsLeft int
	// Fix is set in PhaseRetry.
	Fix Fix
	// Kept lists, in PhaseRetry, the photos (front, back, selfie) of the
	// last submission a retry may leave out: it keeps them (KeptFields).
	Kept []verifyd.ImageKind
	// Declined is set in PhaseFailed when the customer declined the
	// processing of their face (DeclineHosted).
	Declined bool
}

// Keeps reports whether a retry may leave out the photo of kind k.
func (st HostedState) Keeps(k verifyd.ImageKind) bool { return slices.Contains(st.Kept, k) }

// CanSubmit reports whether the page accepts a submission now.
func (st HostedState) CanSubmit() bool {
	return (st.Phase == PhaseCapture || st.Phase == PhaseRetry) && st.AttemptsLeft > 0
}

// Done reports whether the customer has nothing left to do on the page: the
// verification is finished or waits for a person.
func (st HostedState) Done() bool {
	return st.Status.Terminal() || st.Phase == PhaseReview
}

// Sandbox reports whether the verification belongs to the sandbox.
func (st HostedState) Sandbox() bool { return st.Environment == verifyd.EnvSandbox }

// HostedState returns the state of the verification a hosted-page token
// belongs to, without changing it (the page's status polling).
func (s *Service) HostedState(ctx context.Context, token string) (HostedState, error) {
	v, err := s.ByHostedToken(ctx, token)
	if err != nil {
		return HostedState{}, err
	}
	return s.hostedState(ctx, v)
}

// OpenHostedState opens the hosted page (pending → started the first time,
// see OpenHosted) and returns its state.
func (s *Service) OpenHostedState(ctx context.Context, token string) (HostedState, error) {
	v, err := s.OpenHosted(ctx, token)
	if err != nil {
		return HostedState{}, err
	}
	return s.hostedState(ctx, v)
}

func (s *Service) hostedState(ctx context.Context, v View) (HostedState, error) {
	st := HostedState{View: v, AttemptsLeft: max(0, MaxHostedAttempts-v.HostedSubmissions)}
	switch v.Status {
	case verifyd.StatusApproved:
		st.Phase = PhaseApproved
		return st, nil
	case verifyd.StatusFailed:
		st.Phase = PhaseFailed
		if v.Reason == verifyd.ReasonIDVError && v.HostedSubmissions == 0 {
			// Only then can the customer have declined: ask the history.
			history, err := s.store.StatusEvents(ctx, v.ID)
			if err != nil {
				return HostedState{}, err
			}
			st.Declined = len(history) > 0 && history[len(history)-1].Cause == verifyd.CauseConsentDeclined
		}
		return st, nil
	case verifyd.StatusExpired:
		st.Phase = PhaseExpired
		return st, nil
	}
	switch {
	case v.Review == verifyd.ReviewPending:
		st.Phase = PhaseReview
		return st, nil
	case v.HostedSubmissions == 0:
		st.Phase = PhaseCapture
		return st, nil
	}
	// The run that processed the latest submission, if any.
	runs, err := s.store.CheckRuns(ctx, v.ID)
	if err != nil {
		return HostedState{}, err
	}
	var last *verifyd.CheckRun
	for n := range runs {
		if runs[n].Run > v.HostedSubmittedRun && runs[n].Outcome != "error" {
			last = &runs[n]
		}
	}
	st.Phase = PhaseProcessing
	if last != nil && fixableReasons[last.Reason] && st.AttemptsLeft > 0 {
		// The engine left the verification started so the customer can
		// try again (process.go).
		st.Phase = PhaseRetry
		st.Fix = Fix{Reason: last.Reason, Problem: defaultProblem(last.Reason)}
		if results, _, err := s.CheckResults(*last); err == nil {
			st.Fix = fixOf(last.Reason, results)
		}
		// The photo the failing check named is taken again, the others
		// may be kept; a failure that names none asks for all of them.
		fix := st.Fix.Image
		if st.Fix.Problem == "liveness" {
			fix = verifyd.ImageSelfie
		}
		if fix != "" {
			stored, err := s.store.Images(ctx, v.ID)
			if err != nil {
				return HostedState{}, err
			}
			for _, im := range stored {
				if slices.Contains(keptKinds, im.Kind) && im.Kind != fix {
					st.Kept = append(st.Kept, im.Kind)
				}
			}
		}
	}
	// Otherwise the run's decision (or the sandbox's "started" tag) is
	// still to be applied: processing.
	return st, nil
}

// keptKinds are the photos a retry may leave out; the selfie comes with
// its burst and liveness frames.
var keptKinds = []verifyd.ImageKind{verifyd.ImageDocumentFront, verifyd.ImageDocumentBack, verifyd.ImageSelfie}

// selfieKind reports whether k is stored with (and kept with) the selfie.
func selfieKind(k verifyd.ImageKind) bool {
	return k == verifyd.ImageSelfie || strings.HasPrefix(string(k), "selfie_frame_") || strings.HasPrefix(string(k), "liveness_frame_")
}

func defaultProblem(r verifyd.Reason) string {
	switch r {
	case verifyd.ReasonPartialID:
		return "cutoff"
	case verifyd.ReasonIDScanError:
		return "unreadable"
	case verifyd.ReasonLivenessError:
		return "liveness"
	}
	return "blur"
}

// fixOf reads what to fix from the failing check's result: its evidence
// may name the problem ("fix": blur, glare, light, small, cutoff,
// unreadable) and the photo ("image": document_front, document_back,
// selfie); otherwise both are guessed from the check's detail, and the
// problem from the reason.
func fixOf(reason verifyd.Reason, results []engine.Result) Fix {
	f := Fix{Reason: reason, Problem: defaultProblem(reason)}
	for _, r := range results {
		if r.Outcome != engine.Fail {
			continue
		}
		detail := strings.ToLower(r.Detail)
		for _, k := range []verifyd.ImageKind{verifyd.ImageDocumentFront, verifyd.ImageDocumentBack, verifyd.ImageSelfie} {
			if strings.Contains(detail, string(k)) {
				f.Image = k
				break
			}
		}
		for _, p := range []struct{ word, problem string }{
			{"blur", "blur"}, {"sharp", "blur"}, {"focus", "blur"}, {"glare", "glare"}, {"reflect", "glare"},
			{"dark", "light"}, {"bright", "light"}, {"expos", "light"}, {" px ", "small"}, {"too small", "small"},
			{"cut off", "cutoff"}, {"covered", "cutoff"}, {"outside", "cutoff"}, {"decode", "unreadable"},
		} {
			if strings.Contains(detail, p.word) {
				f.Problem = p.problem
				break
			}
		}
		if v, ok := r.Evidence["fix"].(string); ok && v != "" {
			f.Problem = v
		}
		if v, ok := r.Evidence["image"].(string); ok && v != "" {
			f.Image = verifyd.ImageKind(v)
		}
	}
	return f
}

// HostedSubmission is what the customer sends from the hosted page: raw
// image bytes (a field that exceeded the size limit is passed on with
// MaxImageBytes+1 bytes so it is reported as too large).
type HostedSubmission struct {
	DocumentType string
	Country      string
	Front        []byte
	Back         []byte
	Selfie       []byte
	// Frames is the optional burst the page's camera captured after the
	// selfie (at most verifyd.MaxSelfieFrames, each at most
	// verifyd.MaxSelfieFrameSize bytes).
	Frames [][]byte
	// Challenge is the id of the active liveness challenge the person
	// performed after the camera selfie (IssueChallenge), "" when none
	// was (an uploaded selfie, no camera).
	Challenge string
	// LivenessFrames are the frames the page recorded during the
	// challenge, in order; LivenessFrameMs their times in milliseconds
	// since its lead-in began (decimal text, as the form sends them).
	LivenessFrames  [][]byte
	LivenessFrameMs []string
	// ManualStep is the movement the person said they cannot make, asking
	// for a manual check instead ("" when they did not).
	ManualStep string
}

// Image returns the bytes sent for the photo field (front, back or
// selfie), nil for any other name.
func (in HostedSubmission) Image(field string) []byte {
	switch field {
	case FieldFront:
		return in.Front
	case FieldBack:
		return in.Back
	case FieldSelfie:
		return in.Selfie
	}
	return nil
}

// Field names of a hosted submission, as the form sends them and as
// validation problems name them.
const (
	FieldDocumentType    = "document_type"
	FieldDocumentCountry = "document_country"
	FieldFront           = "front"
	FieldBack            = "back"
	FieldSelfie          = "selfie"
	FieldSelfieFrame     = "selfie_frame"
)

// SubmitHosted accepts a submission from the hosted page: it refuses one
// without the customer's consent (ErrNoConsent), validates and seals the
// images like B2, replaces any previous submission and enqueues
// its processing. It refuses (EConflict) a finished verification, one
// under review, one whose previous submission is still being processed,
// and one whose attempts are used up.
func (s *Service) SubmitHosted(ctx context.Context, token string, in HostedSubmission) (HostedState, error) {
	v, err := s.ByHostedToken(ctx, token)
	if err != nil {
		return HostedState{}, err
	}
	if v.ConsentedAt == nil {
		return HostedState{}, ErrNoConsent
	}
	return s.submitHosted(ctx, v, in)
}

// submitHosted is SubmitHosted for a verification found by its token or,
// for an internal verification, by its id.
func (s *Service) submitHosted(ctx context.Context, v View, in HostedSubmission) (HostedState, error) {
	st, err := s.hostedState(ctx, v)
	if err != nil {
		return HostedState{}, err
	}
	if !st.CanSubmit() {
		return st, verifyd.Errorf(verifyd.EConflict, "this verification takes no submission now (%s)", st.Phase)
	}
	var p verifyd.Problems
	docType := verifyd.DocumentType(in.DocumentType)
	switch {
	case in.DocumentType == "":
		p.Add(FieldDocumentType, "is required")
	case !docType.Valid():
		p.Add(FieldDocumentType, "must be IdCard, DriverLicense, Passport or ResidencePermit")
	}
	switch {
	case in.Country == "":
		p.Add(FieldDocumentCountry, "is required")
	case !verifyd.ValidDocumentCountry(in.Country):
		p.Add(FieldDocumentCountry, "must be a lowercase 3-letter country code from the supported list")
	}
	type field struct {
		name string
		kind verifyd.ImageKind
		data []byte
	}
	// A retry for the same document may leave out the photos the last
	// submission had: they are kept, sealed as they are (the selfie with
	// its burst and liveness frames), and only the photo to fix is sent.
	var kept []verifyd.StoredImage
	keep := map[verifyd.ImageKind]bool{}
	if st.Phase == PhaseRetry && docType == st.Document.Type && in.Country == st.Document.Country {
		keep[verifyd.ImageDocumentFront] = len(in.Front) == 0 && st.Keeps(verifyd.ImageDocumentFront)
		keep[verifyd.ImageDocumentBack] = len(in.Back) == 0 && docType.NeedsBack() && st.Keeps(verifyd.ImageDocumentBack)
		keep[verifyd.ImageSelfie] = len(in.Selfie) == 0 && len(in.Frames) == 0 && in.Challenge == "" && st.Keeps(verifyd.ImageSelfie)
		if keep[verifyd.ImageDocumentFront] || keep[verifyd.ImageDocumentBack] || keep[verifyd.ImageSelfie] {
			prev, err := s.store.Images(ctx, v.ID)
			if err != nil {
				return HostedState{}, err
			}
			for _, im := range prev {
				if keep[im.Kind] || (keep[verifyd.ImageSelfie] && selfieKind(im.Kind)) {
					kept = append(kept, im)
				}
			}
		}
	}
	var fields []field
	if !keep[verifyd.ImageDocumentFront] {
		fields = append(fields, field{FieldFront, verifyd.ImageDocumentFront, in.Front})
	}
	if (docType.NeedsBack() || len(in.Back) > 0) && !keep[verifyd.ImageDocumentBack] {
		fields = append(fields, field{FieldBack, verifyd.ImageDocumentBack, in.Back})
	}
	if !keep[verifyd.ImageSelfie] {
		fields = append(fields, field{FieldSelfie, verifyd.ImageSelfie, in.Selfie})
	}
	switch {
	case len(in.Frames) > verifyd.MaxSelfieFrames:
		p.Add(FieldSelfieFrame, fmt.Sprintf("at most %d frames are accepted", verifyd.MaxSelfieFrames))
	default:
		for n, b := range in.Frames {
			if len(b) > verifyd.MaxSelfieFrameSize {
				p.Add(FieldSelfieFrame, fmt.Sprintf("frame %d is larger than %d KiB", n+1, verifyd.MaxSelfieFrameSize>>10))
				continue
			}
			fields = append(fields, field{FieldSelfieFrame, verifyd.SelfieFrame(n + 1), b})
		}
	}
	images := make([]verifyd.Image, len(fields))
	for n, f := range fields {
		im, problem := verifyd.DecodeImageBytes(f.data)
		if problem != "" {
			p.Add(f.name, problem)
		}
		images[n] = im
	}
	capt := checkCapture(&p, in)
	if err := p.Err(); err != nil {
		return st, err
	}
	if in.Challenge != "" {
		// Used only once everything else is valid, so a refused form
		// does not spend the person's movements.
		if err := s.useChallenge(ctx, v, in.Challenge, capt, v.HostedSubmissions+1); err != nil {
			return st, err
		}
		for n, im := range capt.frames {
			fields = append(fields, field{FieldLivenessFrame, verifyd.LivenessFrameImage(n + 1), im.Bytes})
			images = append(images, im)
		}
	}
	stored := make([]verifyd.StoredImage, len(fields))
	for n, f := range fields {
		sealed, err := s.sealer.Seal(images[n].Bytes, imageAAD(v.ID, f.kind))
		if err != nil {
			return HostedState{}, err
		}
		stored[n] = verifyd.StoredImage{Kind: f.kind, Format: images[n].Format, Width: images[n].Width,
			Height: images[n].Height, SHA256: images[n].SHA256(), Sealed: sealed}
	}
	stored = append(stored, kept...)
	doc := verifyd.DocumentInfo{Type: docType, Country: in.Country}
	if err := s.store.ReplaceSubmission(ctx, v.ID, doc, stored); err != nil {
		if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
			// Another submission won the race.
			st, _ = s.stateByID(ctx, v.ID)
		}
		return st, err
	}
	return s.stateByID(ctx, v.ID)
}

// stateByID returns the hosted state of a verification found by its id.
func (s *Service) stateByID(ctx context.Context, id string) (HostedState, error) {
	v, err := s.store.VerificationByID(ctx, id)
	if err != nil {
		return HostedState{}, err
	}
	view, err := s.view(v)
	if err != nil {
		return HostedState{}, err
	}
	return s.hostedState(ctx, view)
}

// The sandbox panel's outcomes besides SPEC's failure reasons.
const (
	SandboxApproved = "approved"
	SandboxReview   = "review"
)

// SandboxOutcomes lists what the hosted page's sandbox panel offers:
// approved, review, then every failure reason.
func SandboxOutcomes() []string {
	out := []string{SandboxApproved, SandboxReview}
	for _, r := range verifyd.Reasons {
		out = append(out, string(r))
	}
	return out
}

// SandboxHosted applies an outcome chosen in the sandbox panel of a hosted
// page: approved or a failure reason through the same transitions (and
// webhooks) as the sandbox simulate control, review by putting the
// verification in the review queue as the engine would. Production
// verifications are not found.
func (s *Service) SandboxHosted(ctx context.Context, token, outcome string) (HostedState, error) {
	v, err := s.ByHostedToken(ctx, token)
	if err != nil {
		return HostedState{}, err
	}
	if v.Environment != verifyd.EnvSandbox {
		return HostedState{}, verifyd.ErrNotFound
	}
	switch r := verifyd.Reason(outcome); {
	case outcome == SandboxApproved:
		_, err = s.simulate(ctx, v, SimulateInput{Status: verifyd.StatusApproved})
	case r.Valid():
		_, err = s.simulate(ctx, v, SimulateInput{Status: verifyd.StatusFailed, Reason: r})
	case outcome == SandboxReview:
		err = s.sandboxReview(ctx, v.Verification)
	default:
		err = verifyd.InvalidFields([]verifyd.FieldError{{Field: "outcome",
			Problem: "must be approved, review or one of SPEC's failure reasons"}})
	}
	if err != nil {
		return HostedState{}, err
	}
	return s.HostedState(ctx, token)
}

func (s *Service) sandboxReview(ctx context.Context, v verifyd.Verification) error {
	if v.Status.Terminal() {
		return verifyd.InvalidFields([]verifyd.FieldError{{Field: "outcome",
			Problem: fmt.Sprintf("a %s verification cannot go to review", v.Status)}})
	}
	if v.Status == verifyd.StatusPending {
		var err error
		if v, err = s.Transition(ctx, verifyd.Transition{VerificationID: v.ID, To: verifyd.StatusStarted,
			Cause: verifyd.CauseSandboxControl}); err != nil {
			return err
		}
	}
	return s.decide(ctx, v, engine.Decision{Review: true, Results: []engine.Result{{
		Check: "sandbox", Outcome: engine.Review, Detail: "sandbox: review chosen on the hosted page's sandbox panel",
	}}}, nil, false)
}
