package human

import (
	"errors"
	"fmt"
	"image"
	"math"
	"path/filepath"

	"github.com/verifyd/verifyd/tfjs"
)

// FaceRes is human's face description model (models/faceres.json of
// @vladmandic/human 3.3.6; human's config.face.description): a MobileNet
// v1 (224×224 input, 13 depthwise-separable blocks with batch norm and
// ReLU6) pre-trained on VGGFace2 for face identification, with age and
// gender heads, by A. Savchenko (HSE_FaceRec_tf, named in the model's
// generatedBy; converted by human's author). human reports the global
// average pooling of the last block, 1024 values in [0, 6], as the face's
// descriptor and compares two with match.similarity (see Similarity).
//
// FaceRes is safe for concurrent use.
type FaceRes struct {
	g    *tfjs.Graph
	size int
}

// FaceResModel is the graph model's file name (with faceres.bin).
const FaceResModel = "faceres.json"

// FaceResDescriptorNode is the node human reads the descriptor from.
const FaceResDescriptorNode = "global_pooling/Mean"

// FaceResFiles are the pinned FaceRes files of the same tarball as
// ModelFiles. They are listed apart so that a models directory written
// before FaceRes was added still passes Check (the liveness models).
var FaceResFiles = []ModelFile{
	{Name: "faceres.bin", Size: 6978814, SHA256: "2c7d2d62b76c97528b736527aa09d310ea71743c9e3e79fb6c62d4b2d73af79b"},
	{Name: "faceres.json", Size: 71432, SHA256: "5b83d49c0385d2e68a05122441b94226313677cae9fcc40b9587ad50079eb4df"},
}

// ErrFaceResMissing is wrapped by CheckFaceRes's error when files are absent.
var ErrFaceResMissing = errors.New("FaceRes model missing")

// CheckFaceRes verifies that dir holds the FaceRes files with the pinned
// size and SHA-256.
func CheckFaceRes(dir string) error {
	return tfjs.PinnedFiles{
		Package: Package, Version: Version, Files: FaceResFiles, ErrMissing: ErrFaceResMissing,
		Noun: "FaceRes model files", Models: "FaceRes model",
	}.Check(dir)
}

// LoadFaceRes loads faceres.json (with faceres.bin) from dir. It does not
// check the files' hashes; CheckFaceRes does.
func LoadFaceRes(dir string) (*FaceRes, error) {
	g, err := tfjs.LoadGraphModel(filepath.Join(dir, FaceResModel))
	if err != nil {
		return nil, fmt.Errorf("human: %w", err)
	}
	return NewFaceRes(g)
}

// NewFaceRes wraps the graph, checking it takes one square RGB image and
// has the descriptor node.
func NewFaceRes(g *tfjs.Graph) (*FaceRes, error) {
	in := g.Inputs()
	if len(in) != 1 {
		return nil, fmt.Errorf("human: FaceRes model has %d inputs, want 1", len(in))
	}
	s := in[0].Shape
	if len(s) != 4 || s[1] != s[2] || s[1] <= 0 || s[3] != 3 {
		return nil, fmt.Errorf("human: FaceRes model input has shape %v, want [-1, n, n, 3]", s)
	}
	f := &FaceRes{g: g, size: s[1]}
	// Fail at load, not at the first face, when the node is missing.
	if _, err := f.DescribeCrop(tfjs.New(1, 1, 3)); err != nil {
		return nil, err
	}
	return f, nil
}

// Describe returns the FaceRes descriptor of the face inside box on img, a
// [height, width, 3] tensor of RGB values in 0..255: DescribeCrop(FaceCrop(img, box)).
// human crops around its BlazeFace box enlarged ×1.4 and made square
// (EnlargeBox(box, DefaultBoxScale) of a face detector's box is the
// nearest equivalent).
func (f *FaceRes) Describe(img *tfjs.Tensor, box image.Rectangle) ([]float32, error) {
	crop, err := FaceCrop(img, box)
	if err != nil {
		return nil, err
	}
	return f.DescribeCrop(crop)
}

// DescribeCrop returns the descriptor of a face crop made by FaceCrop
// (values 0..1), prepared as human's faceres.enhance does with its default
// configuration (no extra crop): TensorFlow.js resizeBilinear to the
// model's input size (alignCorners false), times 255; then the model's
// global_pooling/Mean output, 1024 values.
func (f *FaceRes) DescribeCrop(crop *tfjs.Tensor) ([]float32, error) {
	if len(crop.Shape) != 3 || crop.Shape[2] != 3 || crop.Shape[0] == 0 || crop.Shape[1] == 0 {
		return nil, fmt.Errorf("human: face crop of shape %v, want [height, width, 3]", crop.Shape)
	}
	x := tfjs.ResizeBilinear(crop, f.size, f.size)
	for i, v := range x.Data {
		x.Data[i] = v * 255
	}
	outs, err := f.g.ExecuteNodes(map[string]*tfjs.Tensor{f.g.Inputs()[0].Name: x.Reshape(1, f.size, f.size, 3)}, FaceResDescriptorNode)
	if err != nil {
		return nil, fmt.Errorf("human: FaceRes: %w", err)
	}
	d := outs[0]
	if len(d.Shape) != 2 || d.Shape[0] != 1 || d.Shape[1] == 0 {
		return nil, fmt.Errorf("human: FaceRes descriptor of shape %v, want [1, n]", d.Shape)
	}
	return append([]float32(nil), d.Data...), nil
}

// FaceResDistance is the Euclidean distance of two descriptors (as many
// values each). human's similarity is a function of it alone.
func FaceResDistance(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// Similarity is human's match.similarity with its defaults (order 2,
// multiplier 25, min 0.2, max 0.8) without its rounding to two decimals:
// with d the Euclidean distance, dist = 25·d², root = √dist = 5d, and
// similarity = clamp((1 − root/100 − 0.2) / 0.6, 0, 1) =
// clamp((0.8 − d/20) / 0.6, 0, 1): 1 for identical descriptors, 0 from
// d = 16 on. human's facematch demo names a database match above 0.4
// (d < 11.2); that threshold is not calibrated here.
func Similarity(a, b []float32) float64 {
	d := FaceResDistance(a, b)
	if d == 0 {
		return 1
	}
	return min(max((1-5*d/100-0.2)/0.6, 0), 1)
}
