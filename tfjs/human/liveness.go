// Package human runs the passive liveness and anti-spoofing models of the
// npm package @vladmandic/human 3.3.6 in pure Go, on the TensorFlow.js
// graph models that package ships (models/antispoof.json and
// models/liveness.json), with tfjs.Graph.
//
// Both are small Keras classifiers scoring one face crop:
//
//   - antispoof (128×128 input, three conv/pool blocks, dense, sigmoid;
//     weights float16; human names its source as
//     https://www.kaggle.com/anku420/fake-face-detection): human reports
//     its single output as the face's "real" score;
//   - liveness (32×32 input, four conv + batch-norm blocks, dense,
//     softmax over two classes; weights float32; source named as
//     https://github.com/leokwu/livenessnet): human reports the first of
//     the two outputs as the "live" score.
//
// The input preparation is human's, operation for operation (see
// FaceCrop and ScoreCrop). What differs from human is the face box: human
// crops around its own BlazeFace detection (enlarged ×1.4 and made square,
// see EnlargeBox), optionally rotated upright (off by default); callers
// here pass the box, e.g. from face-api's tiny face detector. The two
// detectors frame a face differently, so scores are not those human would
// report for the same photo, only those it would compute for the same
// crop. The training data and accuracy of both models are unknown: treat
// the scores as signals to calibrate, not as decisions.
//
// The model files are not in this repository: `verifyd models fetch`
// downloads the pinned npm tarball, checks its integrity and extracts
// them; Check reports whether a directory holds them.
package human

import (
	"errors"
	"fmt"
	"image"
	"math"
	"path/filepath"

	"github.com/verifyd/verifyd/tfjs"
)

// CropSize is the side of the square face crop human hands to the two
// models: the input size of its FaceMesh model (the crop is cut when the
// mesh is enabled, human's default; with the mesh disabled it would be
// BlazeFace's 256).
const CropSize = 192

// DefaultBoxScale is human's face.detector.scale default: how much it
// enlarges the BlazeFace box before cropping.
const DefaultBoxScale = 1.4

// Liveness holds the two models. It is safe for concurrent use.
type Liveness struct {
	antispoof, liveness         *tfjs.Graph
	antispoofSize, livenessSize int
}

// Scores are the outputs for one face crop, in [0, 1].
type Scores struct {
	// Real is the anti-spoofing model's sigmoid output, human's
	// FaceResult.real: high for a real face, low for a spoof (a photo of
	// a photo or a screen, per the model's training set).
	Real float64
	// Live is the first softmax output of the liveness model, human's
	// FaceResult.live.
	Live float64
}

// LoadLiveness loads antispoof.json and liveness.json (with their .bin
// weights) from dir. It does not check the files' hashes; Check does.
func LoadLiveness(dir string) (*Liveness, error) {
	as, err := tfjs.LoadGraphModel(filepath.Join(dir, AntispoofModel))
	if err != nil {
		return nil, fmt.Errorf("human: %w", err)
	}
	lv, err := tfjs.LoadGraphModel(filepath.Join(dir, LivenessModel))
	if err != nil {
		return nil, fmt.Errorf("human: %w", err)
	}
	return NewLiveness(as, lv)
}

// NewLiveness wraps the two graphs, checking they take one square RGB
// image and produce one output each.
func NewLiveness(antispoof, liveness *tfjs.Graph) (*Liveness, error) {
	as, err := squareInput("antispoof", antispoof)
	if err != nil {
		return nil, err
	}
	lv, err := squareInput("liveness", liveness)
	if err != nil {
		return nil, err
	}
	return &Liveness{antispoof: antispoof, liveness: liveness, antispoofSize: as, livenessSize: lv}, nil
}

func squareInput(name string, g *tfjs.Graph) (int, error) {
	in := g.Inputs()
	if len(in) != 1 || len(g.Outputs()) != 1 {
		return 0, fmt.Errorf("human: %s model has %d inputs and %d outputs, want 1 and 1", name, len(in), len(g.Outputs()))
	}
	s := in[0].Shape
	// human resizes to [shape[2], shape[1]] (height from the width
	// entry); for a square input that is the same.
	if len(s) != 4 || s[1] != s[2] || s[1] <= 0 || s[3] != 3 {
		return 0, fmt.Errorf("human: %s model input has shape %v, want [-1, n, n, 3]", name, s)
	}
	return s[1], nil
}

// Score scores the face inside box on img, a [height, width, 3] tensor of
// RGB values in 0..255 (faceapi.ImageTensor makes one from an
// image.Image). The box may extend past the image; that part of the crop
// is black, as in human. It is Score(img, box) = ScoreCrop(FaceCrop(img,
// box)).
func (l *Liveness) Score(img *tfjs.Tensor, box image.Rectangle) (Scores, error) {
	crop, err := FaceCrop(img, box)
	if err != nil {
		return Scores{}, err
	}
	return l.ScoreCrop(crop)
}

// ScoreCrop scores a face crop made by FaceCrop (any square size works;
// human's is CropSize). As human's antispoof.predict and
// liveness.predict do, it resizes the crop bilinearly to each model's
// input size (TensorFlow.js resizeBilinear, alignCorners false), runs the
// model and takes the first output value. human then rounds the scores to
// two decimals for display; they are returned unrounded here.
func (l *Liveness) ScoreCrop(crop *tfjs.Tensor) (Scores, error) {
	if len(crop.Shape) != 3 || crop.Shape[2] != 3 || crop.Shape[0] == 0 || crop.Shape[1] == 0 {
		return Scores{}, fmt.Errorf("human: face crop of shape %v, want [height, width, 3]", crop.Shape)
	}
	real, err := run(l.antispoof, crop, l.antispoofSize)
	if err != nil {
		return Scores{}, fmt.Errorf("human: antispoof: %w", err)
	}
	live, err := run(l.liveness, crop, l.livenessSize)
	if err != nil {
		return Scores{}, fmt.Errorf("human: liveness: %w", err)
	}
	return Scores{Real: real, Live: live}, nil
}

func run(g *tfjs.Graph, crop *tfjs.Tensor, size int) (float64, error) {
	x := tfjs.ResizeBilinear(crop, size, size)
	y, err := g.Run(x.Reshape(1, size, size, 3))
	if err != nil {
		return 0, err
	}
	if len(y.Data) == 0 {
		return 0, errors.New("empty output")
	}
	return float64(y.Data[0]), nil
}

// FaceCrop cuts box out of img ([height, width, 3], values 0..255) and
// resizes it to CropSize×CropSize with values in 0..1, as human's
// cutAndResize does: tf.image.cropAndResize with the box given as
// fractions of the image (top/height, left/width, bottom/height,
// right/width, rounded to float32), bilinear interpolation sampling the
// box's first and last pixel rows/columns at the crop's edges, zeros
// outside the image, then division by 255. The arithmetic is float32 in
// the order of TensorFlow.js's WASM kernel, so the crop is bit-identical
// to the reference's (except for a special case of that kernel, which
// copies rows without interpolation when the image is exactly 192 pixels
// wide and the box spans all of it; then it differs, wrongly).
func FaceCrop(img *tfjs.Tensor, box image.Rectangle) (*tfjs.Tensor, error) {
	if len(img.Shape) != 3 || img.Shape[2] != 3 || img.Shape[0] == 0 || img.Shape[1] == 0 {
		return nil, fmt.Errorf("human: image of shape %v, want [height, width, 3]", img.Shape)
	}
	if box.Empty() {
		return nil, fmt.Errorf("human: empty face box %v", box)
	}
	h, w, _ := img.HWC()
	out := cropAndResize(img, [4]float32{
		float32(float64(box.Min.Y) / float64(h)), float32(float64(box.Min.X) / float64(w)),
		float32(float64(box.Max.Y) / float64(h)), float32(float64(box.Max.X) / float64(w)),
	}, CropSize, CropSize)
	for i, v := range out.Data {
		out.Data[i] = v / 255
	}
	return out, nil
}

// cropAndResize is tf.image.cropAndResize for one box [y1, x1, y2, x2]
// (fractions of the image) with bilinear interpolation and extrapolation
// value 0, in the float32 arithmetic of TensorFlow.js's WASM kernel. The
// explicit float32 conversions keep Go from fusing a multiply and an add
// into one rounding (which it may do on arm64 and amd64 v3), so the
// result matches the kernel's separately rounded operations.
func cropAndResize(img *tfjs.Tensor, b [4]float32, cropH, cropW int) *tfjs.Tensor {
	h, w, c := img.HWC()
	y1, x1, y2, x2 := b[0], b[1], b[2], b[3]
	hm1, wm1 := float32(h-1), float32(w-1)
	var hs, ws float32
	if cropH > 1 {
		hs = float32((y2-y1)*hm1) / float32(cropH-1)
	}
	if cropW > 1 {
		ws = float32((x2-x1)*wm1) / float32(cropW-1)
	}
	out := tfjs.New(cropH, cropW, c)
	for y := 0; y < cropH; y++ {
		var yi float32
		if cropH > 1 {
			yi = float32(y1*hm1) + float32(float32(y)*hs)
		} else {
			yi = float32(0.5 * float64(y1+y2) * float64(hm1))
		}
		if yi < 0 || yi > hm1 {
			continue // extrapolation value 0; out starts zeroed
		}
		top := float32(math.Floor(float64(yi)))
		bottom := min(hm1, float32(math.Ceil(float64(yi))))
		yl := yi - top
		rowT := img.Data[int(top)*w*c : (int(top)+1)*w*c]
		rowB := img.Data[int(bottom)*w*c : (int(bottom)+1)*w*c]
		for x := 0; x < cropW; x++ {
			var xi float32
			if cropW > 1 {
				xi = float32(x1*wm1) + float32(float32(x)*ws)
			} else {
				xi = float32(0.5 * float64(x1+x2) * float64(wm1))
			}
			if xi < 0 || xi > wm1 {
				continue
			}
			left := float32(math.Floor(float64(xi)))
			right := min(wm1, float32(math.Ceil(float64(xi))))
			xl := xi - left
			li, ri := int(left)*c, int(right)*c
			dst := out.Data[(y*cropW+x)*c : (y*cropW+x+1)*c]
			for k := range dst {
				tl, tr := rowT[li+k], rowT[ri+k]
				bl, br := rowB[li+k], rowB[ri+k]
				t := tl + float32((tr-tl)*xl)
				bt := bl + float32((br-bl)*xl)
				dst[k] = t + float32((bt-t)*yl)
			}
		}
	}
	return out
}

// EnlargeBox turns a face box into the crop box human would use if box
// were its BlazeFace detection: scaled by scale about its centre
// (enlargeBox; human's default scale is DefaultBoxScale), then made square
// on the longer side with the corners rounded as JavaScript's Math.round
// does (squarifyBox). The result may extend past the image.
func EnlargeBox(box image.Rectangle, scale float64) image.Rectangle {
	x0, y0 := float64(box.Min.X), float64(box.Min.Y)
	x1, y1 := float64(box.Max.X), float64(box.Max.Y)
	cx, cy := x0+(x1-x0)/2, y0+(y1-y0)/2
	hw, hh := scale*math.Abs(x1-x0)/2, scale*math.Abs(y1-y0)/2
	ex0, ey0, ex1, ey1 := cx-hw, cy-hh, cx+hw, cy+hh
	// squarifyBox recomputes centre and size from the enlarged box.
	cx, cy = ex0+(ex1-ex0)/2, ey0+(ey1-ey0)/2
	half := max(math.Abs(ex1-ex0), math.Abs(ey1-ey0)) / 2
	round := func(v float64) int { return int(math.Floor(v + 0.5)) }
	return image.Rect(round(cx-half), round(cy-half), round(cx+half), round(cy+half))
}
