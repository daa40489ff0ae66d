package liveness

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
