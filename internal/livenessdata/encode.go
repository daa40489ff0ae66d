package livenessdata

import (
	"bytes"
	"image/jpeg"
	"math/rand/v2"
	"time"

	"github.com/verifyd/verifyd/liveness"
)

// JPEGQuality is the quality frames are encoded at, as the hosted page's
// canvas.toBlob("image/jpeg", 0.9) does.
const JPEGQuality = 90

// EncodedFrame is a frame as the page uploads it.
type EncodedFrame struct {
	At   time.Duration
	JPEG []byte
}

// Encode encodes frames as JPEG. Go's encoder is deterministic: the same
// picture gives the same bytes, so repeated and reused frames keep
// their digests, as they would when an attacker resubmits a file.
func Encode(frames []TimedFrame) ([]EncodedFrame, error) {
	out := make([]EncodedFrame, len(frames))
	for i, f := range frames {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, f.Image, &jpeg.Options{Quality: JPEGQuality}); err != nil {
			return nil, err
		}
		out[i] = EncodedFrame{At: f.At, JPEG: b.Bytes()}
	}
	return out, nil
}

// EncodedSequence returns, for the challenge steps, the frames of a
// sequence of species sp (Genuine or an attack) as the page would upload
// them, drawn from seed: the same seed gives the same bytes. For Reuse,
// earlier holds the frames of the earlier attempt the attack resubmits
// (submit them first as that attempt); it is nil for the others.
// The browser tests feed these to the page's fake camera.
func (s *Set) EncodedSequence(sp Species, steps []liveness.Step, seed uint64) (frames, earlier []EncodedFrame, err error) {
	seq, err := s.Attack(sp, steps, rand.New(rand.NewPCG(seed, 0x6c6976656e657373)))
	if err != nil {
		return nil, nil, err
	}
	if frames, err = Encode(seq.Frames); err != nil {
		return nil, nil, err
	}
	if seq.Earlier != nil {
		if earlier, err = Encode(seq.Earlier); err != nil {
			return nil, nil, err
		}
	}
	return frames, earlier, nil
}
