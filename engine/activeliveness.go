package engine

import (
	"context"
	"encoding/hex"
	"fmt"
	"image"
	"sync"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/liveness"
)

// LandmarkFinder is a FaceAnalyzer that leaves out the descriptors: the
// landmarks are what the active liveness check follows over some forty
// frames, and the recognition network is most of a face's cost. The face
// models (internal/app FaceModels) implement it.
type LandmarkFinder interface {
	Landmarks(ctx context.Context, img image.Image) ([]Face, error)
}

// DescribedFrames is how many frames of a capture, spread evenly over the
// sequence, get a descriptor: enough to see a face swapped during the
// sequence and compare it with the selfie, without running the
// recognition network forty times.
const DescribedFrames = 5

// ActiveLivenessCheck decides the hosted page's active liveness capture
// (package liveness): the frames the page recorded while the person
// followed the server's random challenge. It runs the face models on each
// frame and hands the landmarks to liveness.Analyze, which checks that
// each requested movement happened in order and in time, that the motion
// is that of a three-dimensional head rather than a flat picture, that
// the face is the selfie's throughout and that no frame was submitted
// before.
//
// Analyze's pass passes; its fail fails with liveness_error (on the
// hosted page the person may try again while attempts remain: identity's
// fixable reasons); its review goes to a person. A hosted submission
// without a capture (an uploaded selfie, a refused camera) or whose
// person asked for a manual check goes to review, saying so. Direct
// submissions (B2) carry no capture: the passive LivenessCheck rates
// their selfie, and this check passes them on.
type ActiveLivenessCheck struct {
	Faces FaceAnalyzer
	// Landmarks, when set, finds the faces of the frames that get no
	// descriptor (all but DescribedFrames); otherwise Faces does.
	Landmarks  LandmarkFinder
	Thresholds FaceThresholds
}

// Name implements Check.
func (ActiveLivenessCheck) Name() string { return "active_liveness" }

// Run implements Check.
func (c ActiveLivenessCheck) Run(ctx context.Context, in *Input) Result {
	capt := in.Capture
	switch {
	case capt == nil:
		return Passed("a direct submission carries no live capture: the passive liveness check rated the selfie", nil)
	case capt.Challenge == nil:
		return NeedsReview("the selfie was not taken with the live camera challenge (an uploaded photo, or the camera was unavailable): "+
			"check that it shows a live person", map[string]any{"capture": "none"})
	}
	ev := map[string]any{"challenge": capt.Challenge.Steps, "frames": len(capt.Frames)}
	if capt.ManualStep != "" {
		ev["manual_step"] = capt.ManualStep
		return NeedsReview(fmt.Sprintf("the person said they cannot make the movement %q and asked for a manual check: "+
			"check that the selfie shows a live person", capt.ManualStep), ev)
	}
	if len(capt.Frames) == 0 {
		return NeedsReview("the live camera challenge sent no frames: check that the selfie shows a live person", ev)
	}
	frames, err := c.frames(ctx, capt)
	if err != nil {
		return Errored(err, ev)
	}
	ref, _ := in.Facts[FactSelfieDescriptor].([]float32)
	rep := liveness.Analyze(liveness.Input{
		Challenge: *capt.Challenge, Frames: frames, EarlierDigests: capt.EarlierDigests,
		Reference: ref, MismatchDistance: c.Thresholds.MismatchDistance,
	})
	return activeResult(rep, ev)
}

// activeResult maps Analyze's report to the check's result; the report's
// steps are the evidence.
func activeResult(rep liveness.Report, ev map[string]any) Result {
	ev["outcome"], ev["steps"] = rep.Outcome, rep.Steps
	switch rep.Outcome {
	case liveness.Pass:
		return Passed(rep.Why, ev)
	case liveness.Fail:
		// What the hosted page tells a person who may try again.
		ev["fix"], ev["image"] = "liveness", string(verifyd.ImageSelfie)
		return Failed(verifyd.ReasonLivenessError, rep.Why, ev)
	}
	if rep.Why == "" {
		rep.Why = "the live camera challenge could not be judged automatically"
	}
	return NeedsReview(rep.Why, ev)
}

// frames runs the face models on every frame: full descriptors on
// DescribedFrames of them spread over the sequence, landmarks alone on
// the rest. Two frames are analysed at a time (the models bound their own
// concurrency).
func (c ActiveLivenessCheck) frames(ctx context.Context, capt *Capture) ([]liveness.Frame, error) {
	n := len(capt.Frames)
	described := spread(n, DescribedFrames)
	out := make([]liveness.Frame, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = c.frame(ctx, capt.Frames[i], described[i] || c.Landmarks == nil)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("liveness frame %d: %w", i+1, err)
		}
	}
	return out, nil
}

func (c ActiveLivenessCheck) frame(ctx context.Context, f CaptureFrame, describe bool) (liveness.Frame, error) {
	lf := liveness.Frame{At: f.At}
	if f.Image == nil {
		return lf, nil // a frame the store lost counts as one without a face
	}
	lf.Digest = hex.EncodeToString(sha(f.Image.Bytes))
	img := f.Image.Image
	if img == nil {
		var err error
		if img, _, _, err = DecodeImage(f.Image.Bytes); err != nil {
			return lf, nil // validated at submission; an undecodable frame shows no face
		}
	}
	var faces []Face
	var err error
	if describe {
		faces, err = c.Faces.Faces(ctx, img)
	} else {
		faces, err = c.Landmarks.Landmarks(ctx, img)
	}
	if err != nil {
		return lf, err
	}
	faces = c.Thresholds.Usable(faces)
	lf.Faces = len(faces)
	if len(faces) == 1 {
		lf.Landmarks = make([]liveness.Point, len(faces[0].Landmarks))
		for i, p := range faces[0].Landmarks {
			lf.Landmarks[i] = liveness.Point{X: p.X, Y: p.Y}
		}
		lf.Descriptor = faces[0].Descriptor
	}
	return lf, nil
}

// spread marks k indices of n spread evenly from the first to the last.
func spread(n, k int) []bool {
	out := make([]bool, n)
	if n == 0 {
		return out
	}
	if k >= n {
		for i := range out {
			out[i] = true
		}
		return out
	}
	for j := range k {
		if k == 1 {
			out[n/2] = true
			break
		}
		out[j*(n-1)/(k-1)] = true
	}
	return out
}
