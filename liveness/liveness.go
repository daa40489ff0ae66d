// Package liveness holds the rules of the active liveness challenge: the
// server draws a random sequence of head movements (turn left, turn
// right, look up, blink, move closer), the hosted page prompts the person
// through it while recording camera frames, and Analyze decides from the
// frames' face landmarks whether a live, three-dimensional head followed
// the prompts in order and in time.
//
// A printed photo or a phone screen held to the camera can be tilted and
// moved, but all its landmarks then move by one plane-to-plane mapping (a
// homography); a real head turning shows parallax between the nose, the
// eyes and the face's outline. A recording replayed to the camera cannot
// know a sequence drawn after it was made. The package knows nothing of
// images or networks: it works on the 68 landmarks (iBUG 300-W layout)
// and descriptors the face models give for each frame.
package liveness

import (
	"errors"
	"fmt"
	"time"
)

// Step is one movement the person is asked to make.
type Step string

// The movements. Directions are the person's own: TurnLeft means the
// person turns their head to their left, which in an unmirrored camera
// frame moves the nose towards the frame's right edge.
const (
	TurnLeft  Step = "turn_left"
	TurnRight Step = "turn_right"
	LookUp    Step = "look_up"
	Blink     Step = "blink"
	Closer    Step = "closer"
)

// Steps lists every movement, in a fixed order.
var Steps = []Step{TurnLeft, TurnRight, LookUp, Blink, Closer}

// ChallengeSteps is how many movements the hosted pages' challenges ask
// for: three of the four Drawn, in order, is one sequence in 24, so a
// recording made beforehand is unlikely to match it, while the
// sequence stays about ten seconds long. The evaluation
// (internal/livenessdata) draws the same number: with two steps a
// replayed video whose head happened to move as asked passed once in
// twelve screen attacks (docs/accuracy.md, "Liveness").
const ChallengeSteps = 3

// Drawn are the movements Draw picks from. Blink is not among them: on
// real videos of people closing their eyes (internal/livenessdata), the
// 68-landmark network's eyelid points barely move (eye aspect ratio
// 0.30 → 0.27–0.30, a drop of 0.03–0.14 where an open-to-shut change is
// about 0.6), so every genuine attempt asked to blink failed. Analyze
// still measures it, for a challenge stored before.
var Drawn = []Step{TurnLeft, TurnRight, LookUp, Closer}

// Valid reports whether s is a known movement.
func (s Step) Valid() bool {
	for _, k := range Steps {
		if s == k {
			return true
		}
	}
	return false
}

// Timing of a challenge on the page. The page shows a neutral "look at
// the camera" prompt for LeadIn, then each step's prompt for StepWindow,
// one after the other; frames are stamped with their time since the lead
// in began. A step counts when its movement is seen between its prompt's
// start and its end plus Slack (people react late; frames are late).
const (
	LeadIn     = 1500 * time.Millisecond
	StepWindow = 3000 * time.Millisecond
	Slack      = 1000 * time.Millisecond
)

// Frame limits: the page records at about FramesPerSecond, so a
// three-step challenge yields about 40 frames. MaxFrames bounds what the
// server accepts and analyses; MaxFrameBytes and MaxFrameSide bound each
// frame (the page scales frames to MaxFrameSide before encoding).
const (
	FramesPerSecond = 4
	MaxFrames       = 48
	MaxFrameBytes   = 200 << 10
	MaxFrameSide    = 640
)

// Challenge is one drawn sequence, bound to a verification (or an age
// flow request) and one attempt, valid once and until ExpiresAt.
type Challenge struct {
	ID string
	// Subject is what the challenge is bound to: an identity
	// verification's ID or an age flow request's ID.
	Subject string
	// Attempt is the subject's attempt number the challenge belongs to.
	Attempt   int
	Steps     []Step
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// Lifetime is how long a drawn challenge stays valid: the sequence takes
// about ten seconds; the rest is for reading the prompts and uploading.
const Lifetime = 5 * time.Minute

// Duration is how long the page records: the lead-in and every step.
func (c Challenge) Duration() time.Duration {
	return LeadIn + time.Duration(len(c.Steps))*StepWindow
}

// Window is when step i (0-based) counts: from its prompt's start to its
// end plus Slack.
func (c Challenge) Window(i int) (from, to time.Duration) {
	from = LeadIn + time.Duration(i)*StepWindow
	return from, from + StepWindow + Slack
}

// Draw picks n different movements at random (n is clamped to 2..3, the
// range the page and Analyze are tested with). Turn left and turn right
// may both be drawn: the head must come back through the centre between
// them.
// rnd must return uniformly distributed integers in [0, k), such as
// math/rand/v2's IntN on a crypto-seeded source: the sequence's secrecy
// until it is shown is what defeats a prepared recording.
func Draw(rnd func(k int) int, n int) []Step {
	n = min(max(n, 2), 3)
	pool := append([]Step(nil), Drawn...)
	out := make([]Step, 0, n)
	for len(out) < n {
		i := rnd(len(pool))
		out = append(out, pool[i])
		pool = append(pool[:i], pool[i+1:]...)
	}
	return out
}

// ParseSteps checks a stored or submitted list of movements.
func ParseSteps(ss []string) ([]Step, error) {
	if len(ss) == 0 {
		return nil, errors.New("liveness: no steps")
	}
	out := make([]Step, len(ss))
	for i, s := range ss {
		if !Step(s).Valid() {
			return nil, fmt.Errorf("liveness: unknown step %q", s)
		}
		out[i] = Step(s)
	}
	return out, nil
}

// Point is a landmark position in frame pixels.
type Point struct{ X, Y float64 }

// Frame is what the face models found on one recorded frame.
type Frame struct {
	// At is the frame's time since the lead-in began, as the page stamped it.
	At time.Duration
	// Faces is how many usable faces the frame shows; Landmarks and
	// Descriptor describe the face when it is exactly one.
	Faces      int
	Landmarks  []Point // 68 points, iBUG 300-W order
	Descriptor []float32
	// Digest identifies the frame's bytes (e.g. SHA-256), for repeated
	// and reused frames.
	Digest string
}
