package engine

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/liveness"
)

// These tests cover what ActiveLivenessCheck does around liveness.Analyze:
// the routes that never reach it, how its report maps to a result, and
// which frames get descriptors. A fake analyzer stands in for the face
// models here only; whether real frames pass is decided with the real
// models (internal/browsertest's liveness tests).

// TestActiveLivenessResult: Analyze's pass passes, its fail fails with
// liveness_error and tells the hosted page what to fix, its review goes to
// a person; the report's steps are the evidence.
func TestActiveLivenessResult(t *testing.T) {
	t.Parallel()
	steps := []liveness.StepReport{{Step: liveness.TurnLeft, Done: true, Peak: 24, AtMillis: 2500}}
	for _, tc := range []struct {
		outcome liveness.Outcome
		want    Outcome
		reason  verifyd.Reason
		fix     any
	}{
		{liveness.Pass, Pass, "", nil},
		{liveness.Fail, Fail, verifyd.ReasonLivenessError, "liveness"},
		{liveness.Review, Review, "", nil},
	} {
		r := activeResult(liveness.Report{Outcome: tc.outcome, Why: "why " + string(tc.outcome), Steps: steps}, map[string]any{})
		if r.Outcome != tc.want || r.Reason != tc.reason || r.Detail != "why "+string(tc.outcome) || r.Evidence["fix"] != tc.fix {
			t.Errorf("%s: %+v", tc.outcome, r)
		}
		if got, _ := r.Evidence["steps"].([]liveness.StepReport); len(got) != 1 || got[0] != steps[0] {
			t.Errorf("%s: evidence steps %v", tc.outcome, r.Evidence["steps"])
		}
	}
	// A report without a reason still explains the review.
	if r := activeResult(liveness.Report{Outcome: liveness.Review}, map[string]any{}); r.Detail == "" {
		t.Error("a review without Why has no detail")
	}
}

// TestActiveLivenessRoutes: submissions that cannot be judged by Analyze.
func TestActiveLivenessRoutes(t *testing.T) {
	t.Parallel()
	ch := &liveness.Challenge{ID: "c", Steps: []liveness.Step{liveness.Blink, liveness.LookUp, liveness.Closer}}
	check := ActiveLivenessCheck{Faces: &countingFaces{}, Thresholds: DefaultFaceThresholds}
	for _, tc := range []struct {
		name    string
		capture *Capture
		want    Outcome
		detail  string
	}{
		{"direct submission", nil, Pass, "passive liveness check"},
		{"uploaded selfie", &Capture{}, Review, "not taken with the live camera challenge"},
		{"manual check asked", &Capture{Challenge: ch, ManualStep: liveness.LookUp, Frames: []CaptureFrame{{}}}, Review, `"look_up" and asked for a manual check`},
		{"no frames", &Capture{Challenge: ch}, Review, "sent no frames"},
	} {
		r := check.Run(context.Background(), &Input{Capture: tc.capture, Facts: map[string]any{}})
		if r.Outcome != tc.want || !strings.Contains(r.Detail, tc.detail) {
			t.Errorf("%s: %s %q, want %s containing %q", tc.name, r.Outcome, r.Detail, tc.want, tc.detail)
		}
	}
}

// countingFaces is a fake face analyzer that finds one face on every
// frame and counts which path was asked.
type countingFaces struct {
	mu                   sync.Mutex
	described, landmarks int
	fail                 bool
}

func (c *countingFaces) face(describe bool) []Face {
	f := Face{Box: image.Rect(100, 100, 300, 300), Score: 0.9, Landmarks: make([]Point, 68)}
	if describe {
		f.Descriptor = make([]float32, 128)
	}
	return []Face{f}
}

func (c *countingFaces) Faces(context.Context, image.Image) ([]Face, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.described++
	if c.fail {
		return nil, errors.New("models down")
	}
	return c.face(true), nil
}

func (c *countingFaces) Landmarks(context.Context, image.Image) ([]Face, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.landmarks++
	return c.face(false), nil
}

func frameJPEG(t *testing.T, shade uint8) []byte {
	img := image.NewGray(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = shade + uint8(i%7)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestActiveLivenessDescribesFewFrames: of forty frames only
// DescribedFrames get descriptors when a landmarks-only path exists; the
// models' error is the check's error (retried), not the customer's failure.
func TestActiveLivenessDescribesFewFrames(t *testing.T) {
	t.Parallel()
	ch := &liveness.Challenge{ID: "c", Steps: []liveness.Step{liveness.Blink, liveness.LookUp, liveness.Closer}}
	var frames []CaptureFrame
	for i := range 40 {
		frames = append(frames, CaptureFrame{Image: &Image{Bytes: frameJPEG(t, uint8(i))}, At: time.Duration(250*i) * time.Millisecond})
	}
	faces := &countingFaces{}
	r := ActiveLivenessCheck{Faces: faces, Landmarks: faces, Thresholds: DefaultFaceThresholds}.Run(context.Background(),
		&Input{Capture: &Capture{Challenge: ch, Frames: frames}, Facts: map[string]any{}})
	if r.Outcome == Error || faces.described != DescribedFrames || faces.landmarks != 40-DescribedFrames {
		t.Fatalf("%s %q: %d frames described, %d landmarks only; want %d and %d", r.Outcome, r.Detail,
			faces.described, faces.landmarks, DescribedFrames, 40-DescribedFrames)
	}
	if r.Evidence["steps"] == nil || r.Evidence["frames"] != 40 {
		t.Fatalf("evidence %v", r.Evidence)
	}

	// Without a landmarks path every frame is described.
	all := &countingFaces{}
	ActiveLivenessCheck{Faces: all, Thresholds: DefaultFaceThresholds}.Run(context.Background(),
		&Input{Capture: &Capture{Challenge: ch, Frames: frames[:7]}, Facts: map[string]any{}})
	if all.described != 7 {
		t.Fatalf("without a landmarks path %d of 7 frames described", all.described)
	}

	down := &countingFaces{fail: true}
	r = ActiveLivenessCheck{Faces: down, Landmarks: down, Thresholds: DefaultFaceThresholds}.Run(context.Background(),
		&Input{Capture: &Capture{Challenge: ch, Frames: frames}, Facts: map[string]any{}})
	if r.Outcome != Error {
		t.Fatalf("models down: %s %q, want error", r.Outcome, r.Detail)
	}
}

func TestSpread(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, k int
		want string
	}{
		{10, 5, "x.x.x.x..x"}, {3, 5, "xxx"}, {0, 5, ""}, {7, 1, "...x..."},
	} {
		var b strings.Builder
		for _, on := range spread(tc.n, tc.k) {
			b.WriteByte(map[bool]byte{true: 'x', false: '.'}[on])
		}
		if b.String() != tc.want {
			t.Errorf("spread(%d, %d) = %s, want %s", tc.n, tc.k, b.String(), tc.want)
		}
	}
}
