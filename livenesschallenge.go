package verifyd

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/verifyd/verifyd/liveness"
)

// LivenessFrame is what is kept of one frame recorded during an active
// liveness challenge: when the page stamped it (since the challenge's
// lead-in began) and the SHA-256 of its bytes. The frames themselves are
// stored, sealed, with the submission's images (LivenessFrameImage); the
// digests outlive a new submission so a frame replayed in a later attempt
// is recognised.
type LivenessFrame struct {
	At     time.Duration
	SHA256 []byte
}

// StoredChallenge is an active liveness challenge as the store keeps it:
// the drawn challenge, when it was used (nil while unused), the frames
// submitted with it and the step the person asked a manual check for.
type StoredChallenge struct {
	liveness.Challenge
	UsedAt *time.Time
	Frames []LivenessFrame
	// ManualStep is the movement the person said they cannot make (the
	// page's "ask for a manual check" button), or "" when they performed
	// the challenge.
	ManualStep liveness.Step
}

// ChallengeUse is a submission's use of a challenge.
type ChallengeUse struct {
	// Subject and Attempt must be those the challenge was drawn for.
	Subject string
	Attempt int
	At      time.Time
	Frames  []LivenessFrame
	// ManualStep: see StoredChallenge.
	ManualStep liveness.Step
}

// ErrChallengeSpent is returned by LivenessStore.ConsumeLivenessChallenge
// when the challenge is unknown, already used, expired, or belongs to
// another subject or attempt. The hosted page asks for a new one.
var ErrChallengeSpent = &Error{Code: EConflict, Message: "the liveness challenge is unknown, used, expired or drawn for another attempt"}

// LivenessStore persists active liveness challenges (package liveness).
// A challenge's Subject is the identity verification it was drawn for
// (for the age flow's document method, its internal verification).
type LivenessStore interface {
	// CreateLivenessChallenge stores a new, unused challenge and, in the
	// same transaction, deletes the subject's other unused challenges: a
	// new draw replaces the one the person did not perform.
	CreateLivenessChallenge(ctx context.Context, c liveness.Challenge) error
	// ConsumeLivenessChallenge marks challenge id used at u.At and stores
	// the frames submitted with it and u.ManualStep, in one conditional
	// update that succeeds only while the challenge is unused, not expired
	// at u.At, and drawn for u.Subject and u.Attempt. Of concurrent calls at
	// most one succeeds; the others, and every call that does not meet the
	// conditions, fail with ErrChallengeSpent and change nothing.
	ConsumeLivenessChallenge(ctx context.Context, id string, u ChallengeUse) (StoredChallenge, error)
	// LivenessChallenge returns the challenge with the given id, or
	// ErrNotFound.
	LivenessChallenge(ctx context.Context, id string) (StoredChallenge, error)
	// UsedLivenessChallenge returns the challenge last used for the
	// subject's attempt, or ErrNotFound when none was.
	UsedLivenessChallenge(ctx context.Context, subject string, attempt int) (StoredChallenge, error)
	// EarlierLivenessDigests returns the SHA-256 of every frame submitted
	// with the subject's challenges used for attempts before attempt.
	EarlierLivenessDigests(ctx context.Context, subject string, attempt int) ([][]byte, error)
}

// MaxLivenessFrames bounds the frames a submission may carry
// (liveness.MaxFrames); each is at most MaxLivenessFrameBytes.
const (
	MaxLivenessFrames     = liveness.MaxFrames
	MaxLivenessFrameBytes = liveness.MaxFrameBytes
)

// LivenessFrameImage names the n-th (1-based) frame of an active liveness
// challenge among a submission's images.
func LivenessFrameImage(n int) ImageKind { return ImageKind("liveness_frame_" + strconv.Itoa(n)) }

// LivenessFrameIndex returns n for LivenessFrameImage(n), or 0 for other
// kinds.
func (k ImageKind) LivenessFrameIndex() int {
	rest, ok := strings.CutPrefix(string(k), "liveness_frame_")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || n > MaxLivenessFrames || LivenessFrameImage(n) != k {
		return 0
	}
	return n
}
