package faceapi

import (
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/verifyd/verifyd/internal/noderef"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/tfjs"
)

// The reference is face-api itself on TensorFlow.js's WASM backend in Node
// (scripts/face-reference.mjs), installed by scripts/npm-face-install into
// .cache/npm-face. The test images are the sample photos inside that npm
// package (demo/sample1.jpg … sample6.jpg); they are not in this
// repository.

// modelsDir returns the directory with the face-api model files, skipping
// the test when they are absent.
func modelsDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("VERIFYD_MODELS_DIR")
	if dir == "" {
		dir = filepath.Join(testdb.RepoRoot(t), DefaultDir)
	}
	if err := Check(dir); err != nil {
		testdb.Skip(t, fmt.Sprintf("face model tests need the model files: %v", err))
	}
	return dir
}

// findReference returns the Node reference, skipping the test when it is
// absent.
func findReference(t testing.TB) noderef.Reference {
	t.Helper()
	return noderef.Find(t, "face parity tests need", "face-reference.mjs", "@vladmandic/face-api/demo/sample1.jpg")
}

func loadSample(t testing.TB, r noderef.Reference, name string) *tfjs.Tensor {
	t.Helper()
	f, err := os.Open(filepath.Join(r.Samples, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ImageTensor(img)
}

type refItem struct {
	Name           string  `json:"name"`
	Kind           string  `json:"kind"`
	Raw            string  `json:"raw"`
	Width          int     `json:"width"`
	Height         int     `json:"height"`
	InputSize      int     `json:"inputSize,omitempty"`
	ScoreThreshold float64 `json:"scoreThreshold,omitempty"`
	MinConfidence  float64 `json:"minConfidence,omitempty"`
	MaxResults     int     `json:"maxResults,omitempty"`

	img *tfjs.Tensor
}

type refResult struct {
	Name       string         `json:"name"`
	Descriptor []float32      `json:"descriptor"`
	RawShape   []int          `json:"rawShape"`
	Raw        []float32      `json:"raw"`
	SSDBoxes   []float32      `json:"ssdBoxes"`
	SSDScores  []float32      `json:"ssdScores"`
	Detections []refDetection `json:"detections"`
	Landmarks  [][2]float64   `json:"landmarks"`
	Faces      []refFace      `json:"faces"`
	Ms         []float64      `json:"ms"`
	CPUMs      []float64      `json:"cpuMs"`
}

// refDetection is a detection of face-api's (box in image pixels).
type refDetection struct {
	X, Y, Width, Height, Score float64
}

// refFace is one result of face-api's detectAllFaces().withFaceLandmarks()
// .withFaceDescriptors().
type refFace struct {
	refDetection
	Landmarks  [][2]float64 `json:"landmarks"`
	Aligned    Box          `json:"aligned"`
	Descriptor []float32    `json:"descriptor"`
}

type refOutput = noderef.Output[refResult]

// addItem writes img's pixels for the reference and appends the item.
func addItem(t testing.TB, items []refItem, dir string, it refItem) []refItem {
	t.Helper()
	h, w, _ := it.img.HWC()
	it.Raw = filepath.Join(dir, fmt.Sprintf("%d.rgb", len(items)))
	it.Width, it.Height = w, h
	if err := os.WriteFile(it.Raw, RGBBytes(it.img), 0o600); err != nil {
		t.Fatal(err)
	}
	return append(items, it)
}

// runReference runs the Node reference on the items.
func runReference(t testing.TB, r noderef.Reference, models string, items []refItem, iterations int) refOutput {
	t.Helper()
	return noderef.Run[refResult](t, r, map[string]any{
		"npmDir": r.NpmDir, "modelDir": models, "iterations": iterations, "items": items,
	}, len(items))
}

var samples = []string{"sample1.jpg", "sample2.jpg", "sample3.jpg", "sample4.jpg", "sample5.jpg", "sample6.jpg"}

// Tolerances of the parity test. The Go and WASM implementations run the
// same float32 operations on the same weights and pixels but sum in
// different orders, so outputs differ by rounding only.
const (
	// descriptorTol bounds |go - ref| / |ref| (Euclidean norms). Face
	// matching thresholds are around 0.6 in absolute distance on
	// descriptors of norm ~1, so 1e-3 is far below anything that matters.
	descriptorTol = 1e-3
	// rawTol bounds the largest absolute difference of the detector's raw
	// output (logits, magnitudes up to ~10).
	rawTol = 1e-3
	// boxTol bounds box coordinate differences in pixels, scoreTol score
	// differences.
	boxTol   = 1.0
	scoreTol = 1e-3
	// landmarkTol bounds landmark coordinate differences in pixels. The
	// network regresses coordinates relative to its 112×112 input, so
	// rounding differences of its outputs are scaled up by image/112
	// (up to ~17× for the whole 1920-px photos, ~3× for face crops);
	// 0.05 px is far below the pixel the aligned box is rounded to.
	landmarkTol = 0.05
)

func TestParityWithFaceAPI(t *testing.T) {
	models := modelsDir(t)
	ref := findReference(t)
	rec, err := LoadRecognitionNet(models)
	if err != nil {
		t.Fatal(err)
	}
	det, err := LoadTinyDetector(models)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := LoadLandmarkNet(models)
	if err != nil {
		t.Fatal(err)
	}
	an, err := LoadAnalyzer(models)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	var items []refItem
	var goDets [][]Detection
	for _, s := range samples {
		img := loadSample(t, ref, s)
		for _, size := range []int{416, 224} {
			items = addItem(t, items, dir, refItem{Name: fmt.Sprintf("%s detect %d", s, size), Kind: "detect", InputSize: size, ScoreThreshold: 0.5, img: img})
		}
		// The descriptor of the whole photo exercises padding to a
		// square and resizing; the face crops are what matching uses.
		items = addItem(t, items, dir, refItem{Name: s + " descriptor whole", Kind: "descriptor", img: img})
		// The landmark net on the whole photo exercises its padding
		// to a square; on face crops, what the pipeline does.
		items = addItem(t, items, dir, refItem{Name: s + " landmarks whole", Kind: "landmarks", img: img})
		items = addItem(t, items, dir, refItem{Name: s + " faces 416", Kind: "faces", InputSize: 416, ScoreThreshold: 0.5, img: img})
		dets, err := det.Detect(img, TinyDetectorOptions{InputSize: 416})
		if err != nil {
			t.Fatal(err)
		}
		goDets = append(goDets, dets)
		for i, d := range dets {
			if i == 3 {
				break
			}
			r := image.Rect(int(d.Box.X), int(d.Box.Y), int(d.Box.Right()+0.5), int(d.Box.Bottom()+0.5))
			items = addItem(t, items, dir, refItem{Name: fmt.Sprintf("%s descriptor face %d", s, i), Kind: "descriptor", img: Crop(img, r)})
			items = addItem(t, items, dir, refItem{Name: fmt.Sprintf("%s landmarks face %d", s, i), Kind: "landmarks", img: Crop(img, r)})
		}
	}
	out := runReference(t, ref, models, items, 0)
	t.Logf("reference: %v, backend %s, simd %v", out.Versions, out.Backend, out.SIMD)

	var worstDesc, worstRaw, worstLmNet float64
	var worst worstDiffs // of the detections and the pipeline's faces
	faces, pipeFaces := 0, 0
	for i, it := range items {
		want := out.Results[i]
		switch it.Kind {
		case "landmarks":
			worstLmNet = max(worstLmNet, checkLandmarks(t, it.Name, lm.Landmarks(it.img), want.Landmarks))
		case "faces":
			got, err := an.Faces(it.img, TinyDetectorOptions{InputSize: it.InputSize, ScoreThreshold: it.ScoreThreshold})
			if err != nil {
				t.Fatal(err)
			}
			pipeFaces += checkFaces(t, it.Name, got, want.Faces, &worst)
		case "descriptor":
			worstDesc = max(worstDesc, checkDescriptor(t, it.Name, rec.Descriptor(it.img), want.Descriptor))
		case "detect":
			raw := det.Forward(it.img, it.InputSize)
			if fmt.Sprint(raw.Shape) != fmt.Sprint(want.RawShape) {
				t.Errorf("%s: raw output shape %v, face-api %v", it.Name, raw.Shape, want.RawShape)
				continue
			}
			var d float64
			for j, v := range raw.Data {
				d = max(d, abs(float64(v)-float64(want.Raw[j])))
			}
			worstRaw = max(worstRaw, d)
			if d > rawTol {
				t.Errorf("%s: raw output differs from face-api by up to %.2g, tolerance %g", it.Name, d, rawTol)
			}
			got, err := det.Detect(it.img, TinyDetectorOptions{InputSize: it.InputSize, ScoreThreshold: it.ScoreThreshold})
			if err != nil {
				t.Fatal(err)
			}
			faces += checkDetections(t, it.Name, got, want.Detections, &worst)
		}
	}
	if faces == 0 || pipeFaces == 0 {
		t.Errorf("no faces found in any sample (%d detections, %d pipeline faces)", faces, pipeFaces)
	}
	t.Logf("%d items, %d faces, %d pipeline faces: worst descriptor difference %.2g (relative L2), raw detector output %.2g (abs), box %.2g px, score %.2g",
		len(items), faces, pipeFaces, worstDesc, worstRaw, worst.box, worst.score)
	t.Logf("landmark net alone %.2g px; pipeline: landmarks %.2g px, descriptor %.2g (relative L2), aligned boxes equal",
		worstLmNet, worst.landmarks, worst.descriptor)
}

// worstDiffs are the largest differences from face-api that the checks
// below have seen.
type worstDiffs struct {
	box, score, landmarks, descriptor float64
}

// checkDetections compares a detector's detections with face-api's and
// returns how many there are (none when their numbers differ).
func checkDetections(t testing.TB, name string, got []Detection, want []refDetection, worst *worstDiffs) int {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d faces, face-api %d", name, len(got), len(want))
		return 0
	}
	for j, g := range got {
		checkDetection(t, fmt.Sprintf("%s face %d", name, j), g, want[j], worst)
	}
	return len(got)
}

// checkDetection compares one detection's box and score with face-api's.
func checkDetection(t testing.TB, what string, got Detection, want refDetection, worst *worstDiffs) {
	t.Helper()
	b := got.Box
	bd := max(abs(b.X-want.X), abs(b.Y-want.Y), abs(b.Width-want.Width), abs(b.Height-want.Height))
	sd := abs(got.Score - want.Score)
	worst.box, worst.score = max(worst.box, bd), max(worst.score, sd)
	if bd > boxTol || sd > scoreTol {
		t.Errorf("%s: box %+v score %.5f, face-api box {%.2f %.2f %.2f %.2f} score %.5f",
			what, b, got.Score, want.X, want.Y, want.Width, want.Height, want.Score)
	}
}

// checkFaces compares the pipeline's faces (detection, landmarks, aligned
// box and descriptor) with face-api's and returns how many there are (none
// when their numbers differ).
func checkFaces(t testing.TB, name string, got []Face, want []refFace, worst *worstDiffs) int {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d faces, face-api %d", name, len(got), len(want))
		return 0
	}
	for j, g := range got {
		w, what := want[j], fmt.Sprintf("%s face %d", name, j)
		checkDetection(t, what, g.Detection, w.refDetection, worst)
		worst.landmarks = max(worst.landmarks, checkLandmarks(t, what, g.Landmarks, w.Landmarks))
		// The aligned box is made of whole pixels (rounded down from the
		// landmarks): equal unless a landmark difference crosses a pixel
		// boundary.
		if g.Aligned != w.Aligned {
			t.Errorf("%s: aligned box %+v, face-api %+v", what, g.Aligned, w.Aligned)
		}
		worst.descriptor = max(worst.descriptor, checkDescriptor(t, what, g.Descriptor, w.Descriptor))
	}
	return len(got)
}

// checkLandmarks compares landmarks with face-api's and returns the
// largest difference in pixels.
func checkLandmarks(t testing.TB, what string, got []Point, want [][2]float64) float64 {
	t.Helper()
	d := landmarkDiff(got, want)
	if d > landmarkTol {
		t.Errorf("%s: landmarks differ from face-api by up to %.2g px, tolerance %g", what, d, landmarkTol)
	}
	return d
}

// checkDescriptor compares a descriptor with face-api's and returns the
// relative difference (|got - want| / |want|).
func checkDescriptor(t testing.TB, what string, got, want []float32) float64 {
	t.Helper()
	rel := Distance(got, want) / norm(want)
	if len(want) != DescriptorSize || rel > descriptorTol {
		t.Errorf("%s: descriptor differs from face-api by %.2g (relative), tolerance %g", what, rel, descriptorTol)
	}
	return rel
}

// landmarkDiff is the largest coordinate difference between two sets of
// landmarks in pixels (+Inf when their numbers differ).
func landmarkDiff(got []Point, want [][2]float64) float64 {
	if len(got) != LandmarkCount || len(want) != len(got) {
		return math.Inf(1)
	}
	var d float64
	for i, p := range got {
		d = max(d, abs(p.X-want[i][0]), abs(p.Y-want[i][1]))
	}
	return d
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
