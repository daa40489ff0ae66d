package faceapi

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/verifyd/verifyd/tfjs"
)

// LandmarkManifest is the weights manifest of the 68-point landmark
// network (face-api's FaceLandmark68Net, not the tiny variant).
const LandmarkManifest = "face_landmark_68_model-weights_manifest.json"

// LandmarkCount is the number of points LandmarkNet finds: the iBUG 300-W
// 68-point layout (jaw 0–16, eyebrows 17–26, nose 27–35, eyes 36–47,
// mouth 48–67).
const LandmarkCount = 68

// LandmarkInputSize is the side of the square image the landmark network
// sees.
const LandmarkInputSize = 112

// landmarkMean is face-api's FaceFeatureExtractor mean RGB (the same as
// the recognition net's).
var landmarkMean = [3]float32{122.782, 117.001, 104.298}

// Point is a position in image pixels (floating point, like face-api's).
type Point struct{ X, Y float64 }

// LandmarkNet finds 68 face landmarks in a face crop: face-api's
// FaceLandmark68Net, four densely connected blocks of depthwise separable
// convolutions (FaceFeatureExtractor), a 7×7 average pool and a fully
// connected layer regressing 136 coordinates. Safe for concurrent use.
type LandmarkNet struct {
	conv0  *tfjs.Conv2D        // dense0/conv0: 3×3 stride 2, bias, ReLU
	blocks [4][4]separableConv // blocks[0][0] unused (conv0 above)
	fcW    *tfjs.Tensor        // [256, 136]
	fcB    *tfjs.Tensor        // [136]
}

// LoadLandmarkNet loads the network from a models directory.
func LoadLandmarkNet(dir string) (*LandmarkNet, error) {
	w, _, err := tfjs.LoadManifestFile(filepath.Join(dir, LandmarkManifest))
	if err != nil {
		return nil, err
	}
	return NewLandmarkNet(w)
}

// NewLandmarkNet builds the network from its weights.
func NewLandmarkNet(w tfjs.Weights) (*LandmarkNet, error) {
	n := &LandmarkNet{}
	var err error
	fail := func(err error) (*LandmarkNet, error) {
		return nil, fmt.Errorf("faceapi: landmark net: %w", err)
	}
	f, err := w.Get("dense0/conv0/filters", 3, 3, 3, -1)
	if err != nil {
		return fail(err)
	}
	b, err := w.Get("dense0/conv0/bias", f.Shape[3])
	if err != nil {
		return fail(err)
	}
	if n.conv0, err = tfjs.NewConv2D(f, 2); err != nil {
		return fail(err)
	}
	n.conv0.Bias, n.conv0.Act = b.Data, tfjs.ReLU
	channels := f.Shape[3]
	for bi := range n.blocks {
		for ci := range n.blocks[bi] {
			if bi == 0 && ci == 0 {
				continue
			}
			prefix := fmt.Sprintf("dense%d/conv%d", bi, ci)
			dw, err := w.Get(prefix+"/depthwise_filter", 3, 3, channels, 1)
			if err != nil {
				return fail(err)
			}
			pw, err := w.Get(prefix+"/pointwise_filter", 1, 1, channels, -1)
			if err != nil {
				return fail(err)
			}
			bias, err := w.Get(prefix+"/bias", pw.Shape[3])
			if err != nil {
				return fail(err)
			}
			pc, err := tfjs.NewConv2D(pw, 1)
			if err != nil {
				return fail(err)
			}
			pc.Bias = bias.Data
			if ci == 0 {
				// The first convolution of a block is followed by a
				// ReLU; the others' outputs are summed first.
				pc.Act = tfjs.ReLU
			}
			n.blocks[bi][ci] = separableConv{depthwise: dw, pointwise: pc}
			channels = pw.Shape[3]
		}
	}
	if n.fcW, err = w.Get("fc/weights", channels, 2*LandmarkCount); err != nil {
		return fail(err)
	}
	if n.fcB, err = w.Get("fc/bias", 2*LandmarkCount); err != nil {
		return fail(err)
	}
	return n, nil
}

// Landmarks finds the 68 landmarks of the face in a [H, W, 3] RGB tensor
// in 0..255 (normally a face crop), in that tensor's pixels, as face-api's
// detectLandmarks does: the image is padded to a centered square, resized
// to 112×112, and the network's outputs are mapped back to the image.
func (n *LandmarkNet) Landmarks(img *tfjs.Tensor) []Point {
	h, w, _ := img.HWC()
	rel := n.relative(img)
	pts := make([]Point, LandmarkCount)
	for i := range pts {
		// FaceLandmarks68: relative position × image dimensions.
		pts[i] = Point{float64(rel[2*i]) * float64(w), float64(rel[2*i+1]) * float64(h)}
	}
	return pts
}

// relative runs the network and face-api's FaceLandmark68NetBase
// postProcess: the x, y of each point relative to the image's width and
// height (0..1 inside it), interleaved.
func (n *LandmarkNet) relative(img *tfjs.Tensor) []float32 {
	h, w, _ := img.HWC()
	x := batchInput(img, LandmarkInputSize, true)
	normalize(x, landmarkMean)
	out := n.forward(x)
	landmarkPostProcess(out, h, w)
	return out
}

// landmarkPostProcess maps the network's outputs, coordinates relative to
// its square input, to coordinates relative to an h×w image, in place and
// in float32 like the tensors face-api computes them with.
func landmarkPostProcess(out []float32, h, w int) {
	// The network sees the image padded to a square; postProcess assumes
	// half of the padding on each side (while padToSquare puts the odd
	// pixel at the end: face-api's own half-pixel inaccuracy, kept).
	// Dimensions are of the image scaled to the input size, in float64
	// as JavaScript computes them, then filled into float32 tensors.
	scale := float64(LandmarkInputSize) / float64(max(h, w))
	iw, ih := float64(w)*scale, float64(h)*scale
	var padX, padY float64
	if iw < ih {
		padX = math.Abs(iw-ih) / 2
	}
	if ih < iw {
		padY = math.Abs(iw-ih) / 2
	}
	size := float32(LandmarkInputSize)
	px, py, fw, fh := float32(padX), float32(padY), float32(iw), float32(ih)
	for i := 0; i+1 < len(out); i += 2 {
		// float32(...) around each product keeps the compiler from
		// fusing it with the subtraction (tf.mul, tf.sub and tf.div are
		// separately rounded operations).
		out[i] = (float32(out[i]*size) - px) / fw
		out[i+1] = (float32(out[i+1]*size) - py) / fh
	}
}

// forward runs FaceFeatureExtractor and the fully connected layer on a
// normalized [112, 112, 3] input and returns the 136 raw outputs.
func (n *LandmarkNet) forward(x *tfjs.Tensor) []float32 {
	out := x
	for bi := range n.blocks {
		out = n.denseBlock4(out, bi)
	}
	out = tfjs.AvgPool(out, 7, 2, tfjs.Valid)
	return tfjs.Dense(out, n.fcW, n.fcB).Data
}

// denseBlock4 is face-api's denseBlock4 (with isScaleDown): every
// convolution sees the sum of the outputs of the ones before it.
func (n *LandmarkNet) denseBlock4(x *tfjs.Tensor, bi int) *tfjs.Tensor {
	b := &n.blocks[bi]
	var out1 *tfjs.Tensor
	if bi == 0 {
		out1 = n.conv0.Apply(x, tfjs.Same)
	} else {
		out1 = b[0].apply(x, 2)
	}
	out2 := b[1].apply(out1, 1)
	in3 := tfjs.Activate(tfjs.Add(out1, out2), tfjs.ReLU)
	out3 := b[2].apply(in3, 1)
	in4 := tfjs.Activate(tfjs.Add(out1, tfjs.Add(out2, out3)), tfjs.ReLU)
	out4 := b[3].apply(in4, 1)
	return tfjs.Activate(tfjs.Add(out1, tfjs.Add(out2, tfjs.Add(out3, out4))), tfjs.ReLU)
}

// apply is face-api's depthwiseSeparableConv with "same" padding:
// TensorFlow.js's separableConv2d (a depthwise convolution, then a 1×1
// convolution) plus the bias, and the pointwise convolution's activation.
func (s separableConv) apply(x *tfjs.Tensor, stride int) *tfjs.Tensor {
	out := tfjs.DepthwiseConv2D(x, s.depthwise, stride, tfjs.Same)
	return s.pointwise.Apply(out, tfjs.Valid)
}
