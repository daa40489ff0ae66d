package faceapi

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/verifyd/verifyd/tfjs"
)

// DescriptorSize is the length of a face descriptor.
const DescriptorSize = 128

// DescriptorInputSize is the side of the square image the recognition
// network sees.
const DescriptorInputSize = 150

// recognitionMean is face-api's FaceRecognitionNet mean RGB.
var recognitionMean = [3]float32{122.782, 117.001, 104.298}

// RecognitionNet computes 128-dimensional face descriptors: face-api's
// FaceRecognitionNet, a ResNet-34-like network ported from dlib. Faces of
// the same person are usually closer than 0.6 (Euclidean distance).
// Safe for concurrent use.
type RecognitionNet struct {
	conv32Down *tfjs.Conv2D
	blocks     []residualBlock
	fc         *tfjs.Tensor // [256, 128]
}

type residualBlock struct {
	down         bool
	conv1, conv2 *tfjs.Conv2D
}

// LoadRecognitionNet loads the network from a models directory.
func LoadRecognitionNet(dir string) (*RecognitionNet, error) {
	w, _, err := tfjs.LoadManifestFile(filepath.Join(dir, RecognitionManifest))
	if err != nil {
		return nil, err
	}
	return NewRecognitionNet(w)
}

// NewRecognitionNet builds the network from its weights.
func NewRecognitionNet(w tfjs.Weights) (*RecognitionNet, error) {
	n := &RecognitionNet{}
	var err error
	// convLayer: conv → + bias → * scale.weights + scale.biases → relu?
	layer := func(prefix string, stride int, relu bool) *tfjs.Conv2D {
		if err != nil {
			return nil
		}
		var f, b, sw, sb *tfjs.Tensor
		if f, err = w.Get(prefix+"/conv/filters", -1, -1, -1, -1); err != nil {
			return nil
		}
		cout := f.Shape[3]
		if b, err = w.Get(prefix+"/conv/bias", cout); err != nil {
			return nil
		}
		if sw, err = w.Get(prefix+"/scale/weights", cout); err != nil {
			return nil
		}
		if sb, err = w.Get(prefix+"/scale/biases", cout); err != nil {
			return nil
		}
		var c *tfjs.Conv2D
		if c, err = tfjs.NewConv2D(f, stride); err != nil {
			return nil
		}
		c.Bias, c.Scale, c.Offset = b.Data, sw.Data, sb.Data
		if relu {
			c.Act = tfjs.ReLU
		}
		return c
	}
	n.conv32Down = layer("conv32_down", 2, true)
	for _, name := range []string{
		"conv32_1", "conv32_2", "conv32_3",
		"conv64_down", "conv64_1", "conv64_2", "conv64_3",
		"conv128_down", "conv128_1", "conv128_2",
		"conv256_down", "conv256_1", "conv256_2", "conv256_down_out",
	} {
		down := strings.Contains(name, "_down")
		stride := 1
		if down {
			stride = 2
		}
		n.blocks = append(n.blocks, residualBlock{
			down:  down,
			conv1: layer(name+"/conv1", stride, true),
			conv2: layer(name+"/conv2", 1, false),
		})
	}
	if err != nil {
		return nil, fmt.Errorf("faceapi: recognition net: %w", err)
	}
	if n.fc, err = w.Get("fc", 256, DescriptorSize); err != nil {
		return nil, fmt.Errorf("faceapi: recognition net: %w", err)
	}
	return n, nil
}

// Descriptor computes the descriptor of a face image, a [H, W, 3] RGB
// tensor in 0..255 (see ImageTensor), normally the aligned face crop. Like
// face-api, it pads the image to a centered square and resizes it to
// 150×150 first.
func (n *RecognitionNet) Descriptor(img *tfjs.Tensor) []float32 {
	x := batchInput(img, DescriptorInputSize, true)
	normalize(x, recognitionMean)
	return n.forward(x)
}

func (n *RecognitionNet) forward(x *tfjs.Tensor) []float32 {
	out := n.conv32Down.Apply(x, tfjs.Valid)
	out = tfjs.MaxPool(out, 3, 2, tfjs.Valid)
	for _, b := range n.blocks {
		out = b.apply(out)
	}
	avg := tfjs.MeanHW(out)
	return tfjs.VecMat(avg, n.fc).Data
}

// apply is face-api's residual / residualDown.
func (b residualBlock) apply(x *tfjs.Tensor) *tfjs.Tensor {
	if !b.down {
		out := b.conv2.Apply(b.conv1.Apply(x, tfjs.Same), tfjs.Same)
		out = tfjs.Add(out, x)
		return tfjs.Activate(out, tfjs.ReLU)
	}
	out := b.conv1.Apply(x, tfjs.Valid)
	out = b.conv2.Apply(out, tfjs.Same)
	pooled := tfjs.AvgPool(x, 2, 2, tfjs.Valid)
	ph, pw, pc := pooled.HWC()
	oh, ow, oc := out.HWC()
	if ph != oh || pw != ow {
		// face-api appends one row and one column of zeros.
		out = tfjs.PadHWC(out, tfjs.Pad{Bottom: ph - oh, Right: pw - ow}, 0)
	}
	if pc != oc {
		pooled = tfjs.PadHWC(pooled, tfjs.Pad{}, oc-pc)
	}
	out = tfjs.Add(pooled, out)
	return tfjs.Activate(out, tfjs.ReLU)
}

// Distance is the Euclidean distance between two descriptors, the measure
// face-api's FaceMatcher uses.
func Distance(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s)
}
