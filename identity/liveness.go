package identity

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/liveness"
)

// Field names of the active liveness capture in a hosted submission.
const (
	FieldLivenessChallenge = "liveness_challenge"
	FieldLivenessFrame     = "liveness_frame"
	FieldLivenessFrameMs   = "liveness_frame_ms"
	FieldLivenessManual    = "liveness_manual"
)

// IssueChallenge draws an active liveness challenge for the verification a
// hosted-page token belongs to (the page asks for one when the person
// starts the selfie). It is bound to the verification and to the attempt
// the next submission will be; drawing again replaces an unused one. A
// verification that takes no submission now is refused (EConflict).
func (s *Service) IssueChallenge(ctx context.Context, token string) (liveness.Challenge, error) {
	v, err := s.ByHostedToken(ctx, token)
	if err != nil {
		return liveness.Challenge{}, err
	}
	if v.ConsentedAt == nil {
		return liveness.Challenge{}, ErrNoConsent
	}
	return s.issueChallenge(ctx, v)
}

// IssueInternalChallenge is IssueChallenge for an internal verification
// (the age flow's document method), also only after the person's consent.
func (s *Service) IssueInternalChallenge(ctx context.Context, id string) (liveness.Challenge, error) {
	v, err := s.internal(ctx, id)
	if err != nil {
		return liveness.Challenge{}, err
	}
	if v.ConsentedAt == nil {
		return liveness.Challenge{}, ErrNoConsent
	}
	return s.issueChallenge(ctx, v)
}

func (s *Service) issueChallenge(ctx context.Context, v View) (liveness.Challenge, error) {
	st, err := s.hostedState(ctx, v)
	if err != nil {
		return liveness.Challenge{}, err
	}
	if !st.CanSubmit() {
		return liveness.Challenge{}, verifyd.Errorf(verifyd.EConflict, "this verification takes no submission now (%s)", st.Phase)
	}
	id, err := uuid.NewRandomFromReader(s.rand)
	if err != nil {
		return liveness.Challenge{}, err
	}
	// The draw's secrecy until the page shows it is what defeats a
	// prepared recording: it comes from the service's randomness (crypto
	// in production), never from a seeded generator.
	var drawErr error
	steps := liveness.Draw(func(k int) int {
		n, err := rand.Int(s.rand, big.NewInt(int64(k)))
		if err != nil {
			drawErr = err
			return 0
		}
		return int(n.Int64())
	}, liveness.ChallengeSteps)
	if drawErr != nil {
		return liveness.Challenge{}, fmt.Errorf("draw a liveness challenge: %w", drawErr)
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	c := liveness.Challenge{ID: id.String(), Subject: v.ID, Attempt: v.HostedSubmissions + 1, Steps: steps,
		IssuedAt: now, ExpiresAt: now.Add(liveness.Lifetime)}
	if err := s.store.CreateLivenessChallenge(ctx, c); err != nil {
		return liveness.Challenge{}, err
	}
	return c, nil
}

// capture is a submission's checked liveness capture.
type capture struct {
	frames []verifyd.Image
	use    verifyd.ChallengeUse
}

// checkCapture validates the liveness part of a hosted submission: frames
// only with a challenge, at most liveness.MaxFrames of at most
// liveness.MaxFrameBytes and liveness.MaxFrameSide pixels, each with its
// time in milliseconds since the lead-in began, in order and within the
// challenge's duration (plus its slack).
func checkCapture(p *verifyd.Problems, in HostedSubmission) capture {
	var c capture
	if in.Challenge == "" {
		if len(in.LivenessFrames) > 0 || in.ManualStep != "" {
			p.Add(FieldLivenessChallenge, "is required with liveness frames or a manual-check request")
		}
		return c
	}
	if in.ManualStep != "" && !liveness.Step(in.ManualStep).Valid() {
		p.Add(FieldLivenessManual, "must be turn_left, turn_right, look_up, blink or closer")
	}
	c.use.ManualStep = liveness.Step(in.ManualStep)
	switch {
	case len(in.LivenessFrames) > liveness.MaxFrames:
		p.Add(FieldLivenessFrame, fmt.Sprintf("at most %d frames are accepted", liveness.MaxFrames))
		return c
	case len(in.LivenessFrameMs) != len(in.LivenessFrames):
		p.Add(FieldLivenessFrameMs, "must give one time for each frame")
		return c
	}
	limit := (liveness.LeadIn + liveness.ChallengeSteps*liveness.StepWindow + liveness.Slack).Milliseconds()
	last := int64(-1)
	for n, b := range in.LivenessFrames {
		if len(b) > liveness.MaxFrameBytes {
			p.Add(FieldLivenessFrame, fmt.Sprintf("frame %d is larger than %d KiB", n+1, liveness.MaxFrameBytes>>10))
			continue
		}
		im, problem := verifyd.DecodeImageBytes(b)
		if problem == "" && max(im.Width, im.Height) > liveness.MaxFrameSide {
			problem = fmt.Sprintf("is larger than %d pixels on its long side", liveness.MaxFrameSide)
		}
		if problem != "" {
			p.Add(FieldLivenessFrame, fmt.Sprintf("frame %d %s", n+1, problem))
			continue
		}
		ms, err := strconv.ParseInt(in.LivenessFrameMs[n], 10, 64)
		if err != nil || ms < 0 || ms > limit || ms < last {
			p.Add(FieldLivenessFrameMs, fmt.Sprintf("frame %d: must be milliseconds since the challenge began, in order", n+1))
			continue
		}
		last = ms
		sum := sha256.Sum256(b)
		c.frames = append(c.frames, im)
		c.use.Frames = append(c.use.Frames, verifyd.LivenessFrame{At: time.Duration(ms) * time.Millisecond, SHA256: sum[:]})
	}
	return c
}

// useChallenge consumes the submission's challenge for attempt. A
// challenge that is used, expired, replaced by a newer draw or drawn for
// another verification or attempt is a field problem: the page draws a
// new one and the person repeats the movements.
func (s *Service) useChallenge(ctx context.Context, v View, id string, c capture, attempt int) error {
	c.use.Subject, c.use.Attempt, c.use.At = v.ID, attempt, s.now().UTC()
	if _, err := s.store.ConsumeLivenessChallenge(ctx, id, c.use); err != nil {
		if errors.Is(err, verifyd.ErrChallengeSpent) {
			return verifyd.InvalidFields([]verifyd.FieldError{{Field: FieldLivenessChallenge,
				Problem: "is used, expired or not this attempt's: perform a new challenge"}})
		}
		return err
	}
	return nil
}

// captureInput is the engine's view of the liveness capture of a hosted
// verification's latest submission: the challenge used with it, its
// frames (images LivenessFrameImage(n)) with their times, and the digests
// of the frames of earlier attempts.
func (s *Service) captureInput(ctx context.Context, v verifyd.Verification, images map[verifyd.ImageKind]engine.Image) (*engine.Capture, error) {
	attempt := v.HostedSubmissions
	c, err := s.store.UsedLivenessChallenge(ctx, v.ID, attempt)
	for errors.Is(err, verifyd.ErrNotFound) && attempt > 1 {
		// A retry that kept the selfie (submitHosted) kept the frames of
		// the challenge performed with it: that earlier attempt's
		// challenge is this submission's when its frames are the ones
		// stored now, byte for byte.
		attempt--
		c, err = s.store.UsedLivenessChallenge(ctx, v.ID, attempt)
		if err == nil && !framesStored(c, images) {
			return &engine.Capture{}, nil
		}
	}
	if errors.Is(err, verifyd.ErrNotFound) {
		return &engine.Capture{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := &engine.Capture{Challenge: &c.Challenge, ManualStep: c.ManualStep}
	for n, f := range c.Frames {
		cf := engine.CaptureFrame{At: f.At}
		if im, ok := images[verifyd.LivenessFrameImage(n+1)]; ok {
			cf.Image = &im
		}
		out.Frames = append(out.Frames, cf)
	}
	earlier, err := s.store.EarlierLivenessDigests(ctx, v.ID, attempt)
	if err != nil {
		return nil, err
	}
	for _, d := range earlier {
		out.EarlierDigests = append(out.EarlierDigests, hex.EncodeToString(d))
	}
	return out, nil
}

// framesStored reports whether the images hold exactly the frames that
// were submitted with c (by their SHA-256), and there were some.
func framesStored(c verifyd.StoredChallenge, images map[verifyd.ImageKind]engine.Image) bool {
	if len(c.Frames) == 0 {
		return false
	}
	for n, f := range c.Frames {
		im, ok := images[verifyd.LivenessFrameImage(n+1)]
		if !ok {
			return false
		}
		sum := sha256.Sum256(im.Bytes)
		if !bytes.Equal(sum[:], f.SHA256) {
			return false
		}
	}
	_, extra := images[verifyd.LivenessFrameImage(len(c.Frames)+1)]
	return !extra
}
