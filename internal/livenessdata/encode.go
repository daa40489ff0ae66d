package livenessdata

import (
	"bytes"
	"fmt"
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

// Video returns a sequence of species sp for the challenge steps, drawn
// from seed like EncodedSequence, but with frames at a steady fps from
// time 0 to the challenge's end, as a camera delivers them: for a fake
// camera (Chromium's --use-file-for-fake-video-capture, see Y4M) from
// which the page takes its own frames. Times are from the lead-in's
// start; the caller aligns them with the page. For Reuse and Frozen a
// fake camera makes little sense (the page re-encodes what it sees): a
// frozen video shows one picture throughout.
func (s *Set) Video(sp Species, steps []liveness.Step, seed uint64, fps int) (Sequence, error) {
	steady := func(total time.Duration, _ *rand.Rand) []time.Duration {
		var out []time.Duration
		for i := 0; time.Duration(i)*time.Second/time.Duration(fps) < total; i++ {
			out = append(out, time.Duration(i)*time.Second/time.Duration(fps))
		}
		return out
	}
	return s.attack(sp, steps, rand.New(rand.NewPCG(seed, 0x6c6976656e657373)), steady)
}

// Y4M encodes frames, all of one size and at a steady fps, as a
// YUV4MPEG2 stream (4:2:0, BT.601 studio range), the format Chromium's
// fake camera plays (it loops at the end). Odd sides are cropped by one
// pixel.
func Y4M(frames []TimedFrame, fps int) ([]byte, error) {
	if len(frames) == 0 {
		return nil, fmt.Errorf("livenessdata: no frames")
	}
	b0 := frames[0].Image.Bounds()
	w, h := b0.Dx()&^1, b0.Dy()&^1
	var out bytes.Buffer
	fmt.Fprintf(&out, "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C420jpeg\n", w, h, fps)
	y := make([]byte, w*h)
	u := make([]byte, w*h/4)
	v := make([]byte, w*h/4)
	for i, f := range frames {
		if b := f.Image.Bounds(); b.Dx()&^1 != w || b.Dy()&^1 != h {
			return nil, fmt.Errorf("livenessdata: frame %d is %v, the first %v", i, b, b0)
		}
		img := toRGBA(f.Image)
		for j := 0; j < h; j++ {
			for k := 0; k < w; k++ {
				p := img.Pix[img.PixOffset(k, j):]
				r, g, bl := float64(p[0]), float64(p[1]), float64(p[2])
				y[j*w+k] = clamp8(16 + 0.257*r + 0.504*g + 0.098*bl)
				if j%2 == 0 && k%2 == 0 {
					u[(j/2)*(w/2)+k/2] = clamp8(128 - 0.148*r - 0.291*g + 0.439*bl)
					v[(j/2)*(w/2)+k/2] = clamp8(128 + 0.439*r - 0.368*g - 0.071*bl)
				}
			}
		}
		out.WriteString("FRAME\n")
		out.Write(y)
		out.Write(u)
		out.Write(v)
	}
	return out.Bytes(), nil
}
