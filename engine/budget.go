package engine

import (
	"context"
	"image"
	"image/color"
	"math"
	"sync"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/sync/semaphore"
)

// DefaultDecodeBudget is the memory the decodes of all running
// verifications may take together: two photos of the largest kind
// admitted (verifyd.MaxDecodeBytes each) at once, or the photo sets of
// several verifications of ordinary 12 MP phone photos (18–50 MiB
// each, decoded). scripts/hostile-load measures the process with it
// (docs/reliability.md).
const DefaultDecodeBudget = 512 << 20

// WorkingPixels is the most pixels a decoded photo is kept at: larger
// photos are scaled down at once, keeping their proportions, and their
// full-size pixels dropped. No check reads finer detail than a 12 MP phone
// photo holds, and a document filling a third of one still gives its MRZ
// characters 20 pixels of height. The bound is on the area, not the long
// side: a phone's 12 MP photo in 16:9 is 4624×2600, and a bound of 4096 px
// on the side shrank it, which took 1–1.5 s of one core by BiLinear — the
// slowest decodes of the independently generated photos (docs/performance.md)
// — to keep fewer pixels than the 4:3 photo of the same camera.
const WorkingPixels = 4096 * 3072

// workingSize is the size a photo of w × h pixels is kept at, and whether
// that is smaller than w × h.
func workingSize(w, h int) (int, int, bool) {
	if int64(w)*int64(h) <= WorkingPixels {
		return w, h, false
	}
	k := math.Sqrt(float64(WorkingPixels) / (float64(w) * float64(h)))
	return max(1, int(float64(w)*k)), max(1, int(float64(h)*k)), true
}

// DecodeBudget bounds the memory that decoding takes across all the
// verifications running in a process: a decode waits until the bytes it
// will allocate (verifyd.DecodeCost) are free, and holds what the decoded
// photo keeps until the pipeline run ends. A fixed number of concurrent
// jobs cannot do this: photos small on the wire differ a hundredfold in
// memory.
type DecodeBudget struct {
	sem  *semaphore.Weighted
	size int64
}

// NewDecodeBudget returns a budget of size bytes.
func NewDecodeBudget(size int64) *DecodeBudget {
	return &DecodeBudget{sem: semaphore.NewWeighted(size), size: size}
}

// acquire waits for n bytes; a request larger than the whole budget
// waits for all of it.
func (b *DecodeBudget) acquire(ctx context.Context, n int64) (int64, error) {
	if b == nil {
		return 0, nil
	}
	n = min(max(n, 1), b.size)
	return n, b.sem.Acquire(ctx, n)
}

func (b *DecodeBudget) release(n int64) {
	if b != nil && n > 0 {
		b.sem.Release(n)
	}
}

// holdings is what one pipeline run holds of a budget, released when the
// run ends (Input.release).
type holdings struct {
	mu     sync.Mutex
	funcs  []func()
	closed bool
}

// add registers a release. A check that timed out may finish its decode
// after the run ended: its release then happens at once, or the budget
// would shrink for good.
func (h *holdings) add(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		f()
		return
	}
	h.funcs = append(h.funcs, f)
}

func (h *holdings) releaseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.funcs {
		f()
	}
	h.funcs, h.closed = nil, true
}

// imageBytes is the memory a decoded image's pixels take.
func imageBytes(img image.Image) int64 {
	switch m := img.(type) {
	case *image.YCbCr:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr))
	case *image.Gray:
		return int64(len(m.Pix))
	case *image.RGBA:
		return int64(len(m.Pix))
	case *image.NRGBA:
		return int64(len(m.Pix))
	case *image.NYCbCrA:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr) + len(m.A))
	}
	b := img.Bounds()
	return int64(b.Dx()) * int64(b.Dy()) * 8
}

// toWorkingSize scales img down to at most WorkingPixels, and keeps it in
// at most four bytes a pixel: a 16-bit PNG's or a CMYK JPEG's pixels are
// converted, since no check reads more than 8 bits.
func toWorkingSize(img image.Image) image.Image {
	b := img.Bounds()
	w, h, shrink := workingSize(b.Dx(), b.Dy())
	if !shrink {
		switch img.(type) {
		case *image.YCbCr, *image.Gray, *image.RGBA, *image.NRGBA, *image.NYCbCrA:
			return img
		}
		dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		xdraw.Draw(dst, dst.Bounds(), img, b.Min, xdraw.Src)
		return dst
	}
	var dst xdraw.Image = image.NewRGBA(image.Rect(0, 0, w, h))
	if _, grey := img.(*image.Gray); grey {
		dst = image.NewGray(image.Rect(0, 0, w, h))
	}
	// The tent kernel widened to the shrink (BiLinear; ApproxBiLinear
	// samples only 2×2 pixels and aliases fine print such as the MRZ).
	// Only photos above 12.6 MP come here.
	xdraw.BiLinear.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	return dst
}

// workingCopyBytes is what toWorkingSize allocates for a photo with the
// header cfg: nothing when it is kept as decoded.
func workingCopyBytes(cfg image.Config) int64 {
	w, h := cfg.Width, cfg.Height
	ww, wh, shrink := workingSize(w, h)
	if !shrink {
		switch cfg.ColorModel {
		case color.YCbCrModel, color.GrayModel, color.RGBAModel, color.NRGBAModel, color.NYCbCrAModel:
			return 0
		}
		return int64(w) * int64(h) * 4 // a 16-bit, CMYK or paletted photo's 4-byte copy
	}
	return int64(ww) * int64(wh) * 4
}

// decode decodes one photo whose share of the run's reservation is
// reserved bytes, and returns it with the bytes it keeps; the rest of the
// share goes back to the budget.
func (b *DecodeBudget) decode(raw []byte, reserved int64) (image.Image, string, int, int64, error) {
	img, format, orientation, err := DecodeImage(raw)
	if err != nil {
		b.release(reserved)
		return nil, format, 0, 0, err
	}
	img = toWorkingSize(img)
	keep := min(reserved, imageBytes(img))
	b.release(reserved - keep)
	return img, format, orientation, keep, nil
}
