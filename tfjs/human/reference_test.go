package human

import (
	"encoding/binary"
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
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// The reference is human's preparation and the two graph models on
// TensorFlow.js's WASM backend in Node (scripts/liveness-reference.mjs),
// installed by scripts/npm-face-install into .cache/npm-face. The face
// images are the sample photos of the face-api npm package
// (demo/sample1.jpg … sample6.jpg); the face boxes come from face-api's
// tiny face detector, run in Go.

func findReference(t testing.TB) noderef.Reference {
	t.Helper()
	return noderef.Find(t, "liveness parity tests need", "liveness-reference.mjs",
		"@vladmandic/human/package.json", "@vladmandic/face-api/demo/sample1.jpg")
}

type refItem struct {
	Name    string `json:"name"`
	Raw     string `json:"raw"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Box     [4]int `json:"box"`
	CropOut string `json:"cropOut"`

	img *tfjs.Tensor
	box image.Rectangle
}

type refResult struct {
	Name     string    `json:"name"`
	Real     float64   `json:"real"`
	Live     float64   `json:"live"`
	Liveness []float64 `json:"liveness"`
}

type refOutput = noderef.Output[refResult]

// Tolerances of the parity test. The crop is computed with the same
// float32 operations in the same order, so it must match exactly; the
// networks sum in a different order (Winograd, blocked GEMM vs XNNPACK),
// so the scores differ by rounding. human itself reports the scores
// rounded to 0.01.
const (
	cropTol  = 0.0
	scoreTol = 1e-4
)

var samples = []string{"sample1.jpg", "sample2.jpg", "sample3.jpg", "sample4.jpg", "sample5.jpg", "sample6.jpg"}

func TestParityWithHuman(t *testing.T) {
	models := modelsDir(t)
	if err := faceapi.Check(models); err != nil {
		testdb.Skip(t, fmt.Sprintf("liveness parity test needs the face-api models for face boxes: %v", err))
	}
	ref := findReference(t)
	l, err := LoadLiveness(models)
	if err != nil {
		t.Fatal(err)
	}
	det, err := faceapi.LoadTinyDetector(models)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	var items []refItem
	for si, s := range samples {
		f, err := os.Open(filepath.Join(ref.Samples, s))
		if err != nil {
			t.Fatal(err)
		}
		decoded, err := jpeg.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		img := faceapi.ImageTensor(decoded)
		h, w, _ := img.HWC()
		raw := filepath.Join(dir, fmt.Sprintf("%d.rgb", si))
		if err := os.WriteFile(raw, faceapi.RGBBytes(img), 0o600); err != nil {
			t.Fatal(err)
		}
		dets, err := det.Detect(img, faceapi.TinyDetectorOptions{InputSize: 416})
		if err != nil {
			t.Fatal(err)
		}
		if si == 0 {
			// A box reaching past the top-left corner: the crop's
			// outside part is black (cropAndResize's extrapolation).
			b := image.Rect(-150, -100, 250, 300)
			items = append(items, refItem{
				Name: s + " corner", Raw: raw, Width: w, Height: h, Box: [4]int{b.Min.X, b.Min.Y, b.Max.X, b.Max.Y},
				CropOut: filepath.Join(dir, fmt.Sprintf("%d.crop", len(items))), img: img, box: b,
			})
		}
		for i, d := range dets {
			if i == 3 {
				break
			}
			b := image.Rect(int(d.Box.X), int(d.Box.Y), int(d.Box.Right()+0.5), int(d.Box.Bottom()+0.5))
			// The detector's box as is, and enlarged as human enlarges
			// BlazeFace's (which can reach past the image).
			for _, v := range []struct {
				kind string
				box  image.Rectangle
			}{{"box", b}, {"enlarged", EnlargeBox(b, DefaultBoxScale)}} {
				n := len(items)
				items = append(items, refItem{
					Name: fmt.Sprintf("%s face %d %s", s, i, v.kind), Raw: raw, Width: w, Height: h,
					Box:     [4]int{v.box.Min.X, v.box.Min.Y, v.box.Max.X, v.box.Max.Y},
					CropOut: filepath.Join(dir, fmt.Sprintf("%d.crop", n)),
					img:     img, box: v.box,
				})
			}
		}
	}
	if len(items) < 12 {
		t.Fatalf("only %d face crops from the six samples", len(items))
	}
	out := runReference(t, ref, models, items)
	t.Logf("reference: %v, backend %s, simd %v; %d crops", out.Versions, out.Backend, out.SIMD, len(items))

	var worstCrop, worstReal, worstLive float64
	for i, it := range items {
		want := out.Results[i]
		crop, err := FaceCrop(it.img, it.box)
		if err != nil {
			t.Fatal(err)
		}
		refCrop := readFloat32s(t, it.CropOut)
		if len(refCrop) != len(crop.Data) {
			t.Fatalf("%s: reference crop has %d values, want %d", it.Name, len(refCrop), len(crop.Data))
		}
		var dc float64
		for j, v := range crop.Data {
			dc = max(dc, math.Abs(float64(v)-float64(refCrop[j])))
		}
		got, err := l.ScoreCrop(crop)
		if err != nil {
			t.Fatal(err)
		}
		dr, dl := math.Abs(got.Real-want.Real), math.Abs(got.Live-want.Live)
		worstCrop, worstReal, worstLive = max(worstCrop, dc), max(worstReal, dr), max(worstLive, dl)
		if dc > cropTol {
			t.Errorf("%s: crop differs from the reference by %g (max abs), tolerance %g", it.Name, dc, cropTol)
		}
		if dr > scoreTol || dl > scoreTol {
			t.Errorf("%s: scores real %.6f live %.6f, reference %.6f %.6f (tolerance %g)", it.Name, got.Real, got.Live, want.Real, want.Live, scoreTol)
		}
		t.Logf("%-28s box %-22v real %.4f live %.4f (ref %.4f %.4f)", it.Name, it.box, got.Real, got.Live, want.Real, want.Live)
	}
	t.Logf("worst over %d crops: crop %.3g, real %.3g, live %.3g (tolerances %g, %g)", len(items), worstCrop, worstReal, worstLive, float64(cropTol), scoreTol)
}

func runReference(t testing.TB, r noderef.Reference, models string, items []refItem) refOutput {
	t.Helper()
	out := noderef.Run[refResult](t, r, map[string]any{"npmDir": r.NpmDir, "modelDir": models, "items": items}, len(items))
	for i, res := range out.Results {
		if res.Name != items[i].Name || len(res.Liveness) != 2 {
			t.Fatalf("reference result %d is %q with %d liveness outputs", i, res.Name, len(res.Liveness))
		}
	}
	return out
}

func readFloat32s(t testing.TB, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
