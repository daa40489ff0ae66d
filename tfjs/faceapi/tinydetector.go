package faceapi

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/verifyd/verifyd/tfjs"
)

// Box is a rectangle in image pixels (floating point, like face-api's).
type Box struct {
	X, Y, Width, Height float64
}

// Right is X + Width.
func (b Box) Right() float64 { return b.X + b.Width }

// Bottom is Y + Height.
func (b Box) Bottom() float64 { return b.Y + b.Height }

// Detection is a face found by a detector.
type Detection struct {
	Box   Box     // in the input image's pixels
	Score float64 // 0..1
}

// TinyDetectorOptions are face-api's TinyFaceDetectorOptions.
type TinyDetectorOptions struct {
	// InputSize is the side the image is resized to, a multiple of 32
	// (face-api's default 416; smaller is faster and finds fewer small
	// faces).
	InputSize int
	// ScoreThreshold drops detections scoring at most this (default 0.5).
	ScoreThreshold float64
}

func (o TinyDetectorOptions) withDefaults() (TinyDetectorOptions, error) {
	if o.InputSize == 0 {
		o.InputSize = 416
	}
	if o.ScoreThreshold == 0 {
		o.ScoreThreshold = 0.5
	}
	if o.InputSize%32 != 0 || o.InputSize < 64 {
		return o, fmt.Errorf("faceapi: tiny detector input size %d is not a multiple of 32 (at least 64)", o.InputSize)
	}
	if !(o.ScoreThreshold > 0 && o.ScoreThreshold < 1) { // also refuses NaN
		return o, fmt.Errorf("faceapi: tiny detector score threshold %v not in (0, 1)", o.ScoreThreshold)
	}
	return o, nil
}

// face-api's tinyFaceDetector constants.
var (
	tinyMean    = [3]float32{117.001, 114.697, 97.404}
	tinyAnchors = [5][2]float64{
		{1.603231, 2.094468},
		{6.041143, 7.080126},
		{2.882459, 3.518061},
		{4.266906, 5.178857},
		{9.041765, 10.66308},
	}
)

const tinyIOUThreshold = 0.4

// TinyDetector is face-api's TinyFaceDetector: a Tiny-YOLOv2 with
// depthwise separable convolutions predicting 5 anchor boxes on a grid of
// InputSize/32 cells. Safe for concurrent use.
type TinyDetector struct {
	conv0  *tfjs.Conv2D
	sep    [5]separableConv
	conv8  *tfjs.Conv2D
	boxLen int
}

type separableConv struct {
	depthwise *tfjs.Tensor // [3, 3, C, 1]
	pointwise *tfjs.Conv2D // 1×1 with bias and leaky ReLU
}

// LoadTinyDetector loads the detector from a models directory.
func LoadTinyDetector(dir string) (*TinyDetector, error) {
	w, _, err := tfjs.LoadManifestFile(filepath.Join(dir, TinyDetectorManifest))
	if err != nil {
		return nil, err
	}
	return NewTinyDetector(w)
}

// NewTinyDetector builds the detector from its weights.
func NewTinyDetector(w tfjs.Weights) (*TinyDetector, error) {
	d := &TinyDetector{}
	conv := func(prefix string, act tfjs.Activation) (*tfjs.Conv2D, error) {
		f, err := w.Get(prefix+"/filters", -1, -1, -1, -1)
		if err != nil {
			return nil, err
		}
		b, err := w.Get(prefix+"/bias", f.Shape[3])
		if err != nil {
			return nil, err
		}
		c, err := tfjs.NewConv2D(f, 1)
		if err != nil {
			return nil, err
		}
		c.Bias, c.Act = b.Data, act
		return c, nil
	}
	var err error
	if d.conv0, err = conv("conv0", tfjs.Leaky); err != nil {
		return nil, fmt.Errorf("faceapi: tiny detector: %w", err)
	}
	for i := range d.sep {
		prefix := fmt.Sprintf("conv%d", i+1)
		dw, err := w.Get(prefix+"/depthwise_filter", 3, 3, -1, 1)
		if err != nil {
			return nil, fmt.Errorf("faceapi: tiny detector: %w", err)
		}
		pw, err := w.Get(prefix+"/pointwise_filter", 1, 1, dw.Shape[2], -1)
		if err != nil {
			return nil, fmt.Errorf("faceapi: tiny detector: %w", err)
		}
		b, err := w.Get(prefix+"/bias", pw.Shape[3])
		if err != nil {
			return nil, fmt.Errorf("faceapi: tiny detector: %w", err)
		}
		pc, err := tfjs.NewConv2D(pw, 1)
		if err != nil {
			return nil, fmt.Errorf("faceapi: tiny detector: %w", err)
		}
		pc.Bias, pc.Act = b.Data, tfjs.Leaky
		d.sep[i] = separableConv{depthwise: dw, pointwise: pc}
	}
	if d.conv8, err = conv("conv8", tfjs.Linear); err != nil {
		return nil, fmt.Errorf("faceapi: tiny detector: %w", err)
	}
	if d.conv8.Cout != len(tinyAnchors)*5 {
		return nil, fmt.Errorf("faceapi: tiny detector: conv8 has %d outputs, want %d", d.conv8.Cout, len(tinyAnchors)*5)
	}
	d.boxLen = 5
	return d, nil
}

// Forward runs the network on a [H, W, 3] RGB tensor in 0..255 and returns
// its raw output, [InputSize/32, InputSize/32, 25]: for each cell and
// anchor x, y, w, h and the score logit.
func (d *TinyDetector) Forward(img *tfjs.Tensor, inputSize int) *tfjs.Tensor {
	x := batchInput(img, inputSize, false)
	normalize(x, tinyMean)
	out := d.conv0.Apply(x, tfjs.Valid)
	out = tfjs.MaxPool(out, 2, 2, tfjs.Same)
	for i, s := range d.sep {
		// depthwiseSeparableConv: pad 1, separable conv, + bias, leaky.
		out = s.apply(out, 1)
		if i < len(d.sep)-1 {
			out = tfjs.MaxPool(out, 2, 2, tfjs.Same)
		} else {
			out = tfjs.MaxPool(out, 2, 1, tfjs.Same)
		}
	}
	return d.conv8.Apply(out, tfjs.Valid)
}

// Detect finds faces in a [H, W, 3] RGB tensor in 0..255, as face-api's
// tinyFaceDetector.locateFaces does: decode the grid, keep scores above
// the threshold, non-maximum suppression at IoU 0.4, boxes in image pixels
// ordered by descending score.
func (d *TinyDetector) Detect(img *tfjs.Tensor, opts TinyDetectorOptions) ([]Detection, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	h, w, _ := img.HWC()
	if h == 0 || w == 0 {
		return nil, nil
	}
	out := d.Forward(img, opts.InputSize)
	return d.decode(out, w, h, opts), nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func (d *TinyDetector) decode(out *tfjs.Tensor, imgW, imgH int, opts TinyDetectorOptions) []Detection {
	cells, _, _ := out.HWC()
	// getReshapedInputDimensions: the image scaled so its longer side is
	// InputSize; padding went to the right or bottom.
	scale := float64(opts.InputSize) / float64(max(imgW, imgH))
	rw, rh := math.Round(float64(imgW)*scale), math.Round(float64(imgH)*scale)
	side := math.Max(rw, rh)
	cfx, cfy := side/rw, side/rh
	type cand struct {
		box   Box // relative to the image, 0..1
		score float64
	}
	var cands []cand
	nc := float64(cells)
	for row := 0; row < cells; row++ {
		for col := 0; col < cells; col++ {
			for a, anchor := range tinyAnchors {
				v := out.Data[((row*cells+col)*len(tinyAnchors)+a)*d.boxLen:]
				score := sigmoid(float64(v[4]))
				if score <= opts.ScoreThreshold {
					continue
				}
				ctX := (float64(col) + sigmoid(float64(v[0]))) / nc * cfx
				ctY := (float64(row) + sigmoid(float64(v[1]))) / nc * cfy
				bw := math.Exp(float64(v[2])) * anchor[0] / nc * cfx
				bh := math.Exp(float64(v[3])) * anchor[1] / nc * cfy
				// face-api builds a BoundingBox(x, y, x+w, y+h) and
				// takes width = right - left, which can differ from w in
				// the last bit; kept so later rounding down matches.
				x, y := ctX-bw/2, ctY-bh/2
				cands = append(cands, cand{Box{X: x, Y: y, Width: float64(x+bw) - x, Height: float64(y+bh) - y}, score})
			}
		}
	}
	// nonMaxSuppression on the boxes rescaled to InputSize (IoU is scale
	// invariant, but keep face-api's arithmetic), highest score first;
	// equal scores keep face-api's order (a stable ascending sort popped
	// from the end).
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return cands[idx[i]].score < cands[idx[j]].score })
	s := float64(opts.InputSize)
	scaled := func(b Box) Box { return Box{b.X * s, b.Y * s, b.Width * s, b.Height * s} }
	var dets []Detection
	for len(idx) > 0 {
		cur := idx[len(idx)-1]
		idx = idx[:len(idx)-1]
		cb := scaled(cands[cur].box)
		keep := idx[:0]
		for _, j := range idx {
			if iou(cb, scaled(cands[j].box)) <= tinyIOUThreshold {
				keep = append(keep, j)
			}
		}
		idx = keep
		b := cands[cur].box
		// locateFaces rebuilds each detection from its relative box
		// (new FaceDetection(score, relativeBox, imageDims)), which can
		// move it by a rounding error; reproduced, since the pipeline
		// rounds boxes down.
		dets = append(dets, Detection{
			Box: rescaleRoundTrip(Box{X: b.X * float64(imgW), Y: b.Y * float64(imgH), Width: b.Width * float64(imgW), Height: b.Height * float64(imgH)},
				float64(imgW), float64(imgH)),
			Score: cands[cur].score,
		})
	}
	return dets
}

func iou(a, b Box) float64 {
	w := math.Max(0, math.Min(a.Right(), b.Right())-math.Max(a.X, b.X))
	h := math.Max(0, math.Min(a.Bottom(), b.Bottom())-math.Max(a.Y, b.Y))
	inter := w * h
	return inter / (a.Width*a.Height + b.Width*b.Height - inter)
}
