package faceapi

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/verifyd/verifyd/tfjs"
)

// SSDManifest is the weights manifest of face-api's SSD MobileNet v1 face
// detector.
const SSDManifest = "ssd_mobilenetv1_model-weights_manifest.json"

// SSDOptions are face-api's SsdMobilenetv1Options.
type SSDOptions struct {
	// MinConfidence drops detections scoring at most this (face-api's
	// default 0.5; zero means the default).
	MinConfidence float64
	// MaxResults caps the number of detections (default 100; zero means
	// the default).
	MaxResults int
}

func (o SSDOptions) withDefaults() (SSDOptions, error) {
	// face-api: `minConfidence || 0.5`, `maxResults || 100`.
	if o.MinConfidence == 0 {
		o.MinConfidence = 0.5
	}
	if o.MaxResults == 0 {
		o.MaxResults = 100
	}
	if o.MinConfidence <= 0 || o.MinConfidence >= 1 || math.IsNaN(o.MinConfidence) {
		return o, fmt.Errorf("faceapi: SSD minConfidence %v not in (0, 1)", o.MinConfidence)
	}
	if o.MaxResults < 0 {
		return o, fmt.Errorf("faceapi: SSD maxResults %d is negative", o.MaxResults)
	}
	return o, nil
}

// face-api's SSD constants (src/ssdMobilenetv1).
const (
	ssdInputSize    = 512
	ssdIOUThreshold = 0.5
	// ssdBNEpsilon is the batch normalisation epsilon of mobileNetV1.ts.
	ssdBNEpsilon float32 = 0.0010000000474974513
	ssdPriors            = 5118
)

// ssdStride2 are the MobileNet layers whose depthwise convolution has
// stride 2 (getStridesForLayerIdx).
var ssdStride2 = map[int]bool{2: true, 4: true, 6: true, 12: true}

// ssdConv is a convolution followed by a per-channel scale and offset and
// clipByValue(0, 6): face-api's pointwiseConvLayer (scale nil, offset the
// batch_norm_offset) or a depthwise convolution with its batch norm folded
// in (dw set).
type ssdConv struct {
	conv   *tfjs.Conv2D // nil for a depthwise layer
	dw     *tfjs.Tensor // [3, 3, C, 1]
	stride int
	scale  []float32 // nil: 1
	offset []float32
}

func (c *ssdConv) apply(x *tfjs.Tensor) *tfjs.Tensor {
	var out *tfjs.Tensor
	if c.dw != nil {
		out = tfjs.DepthwiseConv2D(x, c.dw, c.stride, tfjs.Same)
	} else {
		out = c.conv.Apply(x, tfjs.Same)
	}
	return tfjs.ChannelAffineClip(out, c.scale, c.offset, 0, 6)
}

// ssdBoxPredictor is one of the six box predictor heads: 1×1 convolutions
// with bias giving 4 box encodings and 3 class logits per anchor.
type ssdBoxPredictor struct {
	box, class *tfjs.Conv2D
}

// SSDDetector is face-api's SsdMobilenetv1: a MobileNet v1 (depthwise
// separable convolutions, batch normalisation, ReLU6) on a 512×512 input,
// followed by SSD box predictors on six feature maps (32×32 to 1×1, 5118
// anchors). Safe for concurrent use.
type SSDDetector struct {
	mobilenet [27]ssdConv // conv_0, then depthwise and pointwise of conv_1 … conv_13
	predict   [8]ssdConv  // prediction_layer conv_0 … conv_7
	heads     [6]ssdBoxPredictor
	priors    []float32 // Output/extra_dim, [5118, 4]
}

// LoadSSDDetector loads the detector from a models directory.
func LoadSSDDetector(dir string) (*SSDDetector, error) {
	w, _, err := tfjs.LoadManifestFile(filepath.Join(dir, SSDManifest))
	if err != nil {
		return nil, err
	}
	return NewSSDDetector(w)
}

// NewSSDDetector builds the detector from its weights (the names of
// face-api's extractParamsFromWeightMap).
func NewSSDDetector(w tfjs.Weights) (*SSDDetector, error) {
	d, err := newSSDDetector(w)
	if err != nil {
		return nil, fmt.Errorf("faceapi: SSD detector: %w", err)
	}
	return d, nil
}

func newSSDDetector(w tfjs.Weights) (*SSDDetector, error) {
	d := &SSDDetector{}
	conv := func(prefix string, stride int, withBias bool) (*tfjs.Conv2D, []float32, error) {
		f, err := w.Get(prefix+"/weights", -1, -1, -1, -1)
		if err != nil {
			return nil, nil, err
		}
		name := prefix + "/convolution_bn_offset"
		if withBias {
			name = prefix + "/biases"
		}
		b, err := w.Get(name, f.Shape[3])
		if err != nil {
			return nil, nil, err
		}
		c, err := tfjs.NewConv2D(f, stride)
		if err != nil {
			return nil, nil, err
		}
		return c, b.Data, nil
	}
	pointwise := func(prefix string, stride int) (ssdConv, error) {
		c, b, err := conv(prefix, stride, false)
		return ssdConv{conv: c, stride: stride, offset: b}, err
	}
	var err error
	if d.mobilenet[0], err = pointwise("MobilenetV1/Conv2d_0_pointwise", 2); err != nil {
		return nil, err
	}
	channels := d.mobilenet[0].conv.Cout
	for i := 1; i <= 13; i++ {
		prefix := fmt.Sprintf("MobilenetV1/Conv2d_%d_depthwise", i)
		f, err := w.Get(prefix+"/depthwise_weights", 3, 3, channels, 1)
		if err != nil {
			return nil, err
		}
		var bn [4]*tfjs.Tensor
		for j, n := range []string{"gamma", "beta", "moving_mean", "moving_variance"} {
			if bn[j], err = w.Get(prefix+"/BatchNorm/"+n, channels); err != nil {
				return nil, err
			}
		}
		// batchNorm: (x - mean) * gamma / sqrt(variance + epsilon) + beta,
		// folded into x * scale + offset.
		scale, offset := make([]float32, channels), make([]float32, channels)
		for c := range scale {
			scale[c] = bn[0].Data[c] / float32(math.Sqrt(float64(bn[3].Data[c]+ssdBNEpsilon)))
			offset[c] = bn[1].Data[c] - bn[2].Data[c]*scale[c]
		}
		stride := 1
		if ssdStride2[i] {
			stride = 2
		}
		d.mobilenet[2*i-1] = ssdConv{dw: f, stride: stride, scale: scale, offset: offset}
		if d.mobilenet[2*i], err = pointwise(fmt.Sprintf("MobilenetV1/Conv2d_%d_pointwise", i), 1); err != nil {
			return nil, err
		}
		if d.mobilenet[2*i].conv.Cin != channels {
			return nil, fmt.Errorf("layer %d: pointwise filter for %d channels, have %d", i, d.mobilenet[2*i].conv.Cin, channels)
		}
		channels = d.mobilenet[2*i].conv.Cout
	}
	for i := range d.predict {
		if d.predict[i], err = pointwise(fmt.Sprintf("Prediction/Conv2d_%d_pointwise", i), 1+i%2); err != nil {
			return nil, err
		}
	}
	anchors := 0
	for i := range d.heads {
		prefix := fmt.Sprintf("Prediction/BoxPredictor_%d/", i)
		box, bb, err := conv(prefix+"BoxEncodingPredictor", 1, true)
		if err != nil {
			return nil, err
		}
		class, cb, err := conv(prefix+"ClassPredictor", 1, true)
		if err != nil {
			return nil, err
		}
		if box.Cout%4 != 0 || class.Cout != box.Cout/4*3 || box.KH != 1 || box.KW != 1 || class.KH != 1 || class.KW != 1 {
			return nil, fmt.Errorf("box predictor %d: filters %dx%d→%d and %dx%d→%d", i, box.KH, box.KW, box.Cout, class.KH, class.KW, class.Cout)
		}
		box.Bias, class.Bias = bb, cb
		d.heads[i] = ssdBoxPredictor{box: box, class: class}
		anchors += box.Cout / 4 * ssdFeatureSizes[i] * ssdFeatureSizes[i]
	}
	if anchors != ssdPriors {
		return nil, fmt.Errorf("box predictors give %d anchors, want %d", anchors, ssdPriors)
	}
	priors, err := w.Get("Output/extra_dim", 1, ssdPriors, 4)
	if err != nil {
		return nil, err
	}
	d.priors = priors.Data
	return d, nil
}

// ssdFeatureSizes are the sides of the six feature maps the heads see
// with a 512×512 input.
var ssdFeatureSizes = [6]int{32, 16, 8, 4, 2, 1}

// SSDOutput is the network's decoded output before non-maximum
// suppression: for each of the 5118 anchors a box (top, left, bottom,
// right, relative to the 512×512 input, which the image fills from its
// top-left corner) and a face score.
type SSDOutput struct {
	Boxes  [][4]float32
	Scores []float32
}

// Forward runs the network on a [H, W, 3] RGB tensor in 0..255 as
// face-api's SsdMobilenetv1.forwardInput does: pad to a square at the
// bottom or right, resize to 512×512, scale to -1..1, MobileNet v1, the
// prediction layer, and the output layer (box decoding with the priors,
// sigmoid of the face class logit).
func (d *SSDDetector) Forward(img *tfjs.Tensor) SSDOutput {
	x := batchInput(img, ssdInputSize, false)
	for i, v := range x.Data {
		x.Data[i] = v/127.5 - 1
	}
	var conv11 *tfjs.Tensor
	for i := range d.mobilenet {
		x = d.mobilenet[i].apply(x)
		if i == 22 { // pointwise of conv_11
			conv11 = x
		}
	}
	p := d.predict
	conv0 := p[0].apply(x)
	conv1 := p[1].apply(conv0)
	conv3 := p[3].apply(p[2].apply(conv1))
	conv5 := p[5].apply(p[4].apply(conv3))
	conv7 := p[7].apply(p[6].apply(conv5))
	maps := [6]*tfjs.Tensor{conv11, x, conv1, conv3, conv5, conv7}

	out := SSDOutput{Boxes: make([][4]float32, 0, ssdPriors), Scores: make([]float32, 0, ssdPriors)}
	for i, h := range d.heads {
		if fh, fw, _ := maps[i].HWC(); fh != ssdFeatureSizes[i] || fw != ssdFeatureSizes[i] {
			panic(fmt.Sprintf("faceapi: SSD feature map %d is %dx%d", i, fh, fw))
		}
		enc := h.box.Apply(maps[i], tfjs.Same).Data
		cls := h.class.Apply(maps[i], tfjs.Same).Data
		for a := 0; a < len(enc)/4; a++ {
			n := len(out.Boxes)
			out.Boxes = append(out.Boxes, decodeSSDBox(d.priors[4*n:4*n+4], enc[4*a:4*a+4]))
			out.Scores = append(out.Scores, ssdSigmoid(cls[3*a+1]))
		}
	}
	return out
}

// decodeSSDBox is face-api's decodeBoxesLayer for one anchor, in float32
// as TensorFlow.js computes it.
func decodeSSDBox(prior, enc []float32) [4]float32 {
	sizeY, sizeX := prior[2]-prior[0], prior[3]-prior[1]
	centreY, centreX := prior[0]+sizeY/2, prior[1]+sizeX/2
	halfH := expf(enc[2]/5) * sizeY / 2
	cy := enc[0]/10*sizeY + centreY
	halfW := expf(enc[3]/5) * sizeX / 2
	cx := enc[1]/10*sizeX + centreX
	return [4]float32{cy - halfH, cx - halfW, cy + halfH, cx + halfW}
}

func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

func ssdSigmoid(x float32) float32 { return float32(sigmoid(float64(x))) }

// Detect finds faces in a [H, W, 3] RGB tensor in 0..255, as face-api's
// SsdMobilenetv1.locateFaces does: scores above MinConfidence, its
// non-maximum suppression at IoU 0.5 keeping at most MaxResults boxes,
// boxes cut at the input's top/left and at its bottom/right edge and
// mapped to image pixels, in descending score order.
func (d *SSDDetector) Detect(img *tfjs.Tensor, opts SSDOptions) ([]Detection, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	h, w, _ := img.HWC()
	if h == 0 || w == 0 {
		return nil, nil
	}
	out := d.Forward(img)
	keep := ssdNMS(out, opts.MaxResults, ssdIOUThreshold, opts.MinConfidence)
	// getReshapedInputDimensions: the image scaled so its longer side is
	// 512, padding at the right or bottom.
	s := float64(ssdInputSize) / float64(max(w, h))
	padX := float64(ssdInputSize) / math.Round(float64(w)*s)
	padY := float64(ssdInputSize) / math.Round(float64(h)*s)
	imgW, imgH := float64(w), float64(h)
	dets := make([]Detection, 0, len(keep))
	for _, i := range keep {
		b := out.Boxes[i]
		top, bottom := math.Max(0, float64(b[0]))*padY, math.Min(1, float64(b[2]))*padY
		left, right := math.Max(0, float64(b[1]))*padX, math.Min(1, float64(b[3]))*padX
		if right < left || bottom < top {
			// face-api's Rect constructor throws on a negative size
			// (a box wholly outside the image); leave it out.
			continue
		}
		// new FaceDetection(score, new Rect(…), imageDims): the relative
		// box rescaled to the image.
		dets = append(dets, Detection{
			Box:   Box{X: left * imgW, Y: top * imgH, Width: (right - left) * imgW, Height: (bottom - top) * imgH},
			Score: float64(out.Scores[i]),
		})
	}
	return dets, nil
}

// ssdNMS is face-api's ssdMobilenetv1 nonMaxSuppression: candidates
// scoring above scoreThreshold in descending score order (a stable sort),
// each kept unless a kept box overlaps it by more than iouThreshold, at
// most maxOutput of them.
func ssdNMS(out SSDOutput, maxOutput int, iouThreshold, scoreThreshold float64) []int {
	maxOutput = min(maxOutput, len(out.Boxes))
	var cand []int
	for i, s := range out.Scores {
		if float64(s) > scoreThreshold {
			cand = append(cand, i)
		}
	}
	sort.SliceStable(cand, func(i, j int) bool { return out.Scores[cand[i]] > out.Scores[cand[j]] })
	var selected []int
	for _, c := range cand {
		if len(selected) >= maxOutput {
			break
		}
		keep := true
		for j := len(selected) - 1; j >= 0; j-- {
			v := ssdIOU(out.Boxes[c], out.Boxes[selected[j]])
			if v == 0 {
				continue
			}
			if v > iouThreshold {
				// score *= 0, which is ≤ the threshold: suppressed.
				keep = false
				break
			}
		}
		if keep {
			selected = append(selected, c)
		}
	}
	return selected
}

// ssdIOU is nonMaxSuppression.ts's IOU of two [top, left, bottom, right]
// boxes, in float64 as JavaScript computes it.
func ssdIOU(a, b [4]float32) float64 {
	box := func(v [4]float32) (y0, x0, y1, x1 float64) {
		p, q, r, s := float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])
		return math.Min(p, r), math.Min(q, s), math.Max(p, r), math.Max(q, s)
	}
	ay0, ax0, ay1, ax1 := box(a)
	by0, bx0, by1, bx1 := box(b)
	areaA := (ay1 - ay0) * (ax1 - ax0)
	areaB := (by1 - by0) * (bx1 - bx0)
	if areaA <= 0 || areaB <= 0 {
		return 0
	}
	inter := math.Max(math.Min(ay1, by1)-math.Max(ay0, by0), 0) * math.Max(math.Min(ax1, bx1)-math.Max(ax0, bx0), 0)
	return inter / (areaA + areaB - inter)
}
