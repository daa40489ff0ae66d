package human

import (
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/verifyd/verifyd/internal/noderef"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// faceResDir returns a directory holding the pinned FaceRes files: the
// models directory when `verifyd models fetch` put them there, else the
// models/ directory of the same pinned @vladmandic/human install
// scripts/npm-face-install made (checked against the same SHA-256).
func faceResDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("VERIFYD_MODELS_DIR")
	if dir == "" {
		dir = filepath.Join(testdb.RepoRoot(t), "models")
	}
	if CheckFaceRes(dir) == nil {
		return dir
	}
	npm := filepath.Join(testdb.RepoRoot(t), ".cache", "npm-face", "node_modules", "@vladmandic", "human", "models")
	if err := CheckFaceRes(npm); err != nil {
		testdb.Skip(t, fmt.Sprintf("FaceRes tests need faceres.{json,bin} in the models directory or scripts/npm-face-install: %v", err))
	}
	return npm
}

func TestSimilarity(t *testing.T) {
	a := []float32{0, 0, 0, 0}
	b := []float32{3, 4, 0, 0} // distance 5
	if d := FaceResDistance(a, b); d != 5 {
		t.Errorf("distance %v, want 5", d)
	}
	// (0.8 − 5/20) / 0.6 = 0.91666…
	if s := Similarity(a, b); math.Abs(s-0.55/0.6) > 1e-12 {
		t.Errorf("similarity %v, want %v", s, 0.55/0.6)
	}
	if s := Similarity(a, a); s != 1 {
		t.Errorf("similarity of identical descriptors %v", s)
	}
	// d = 4: (0.8 − 0.2)/0.6 = 1 exactly; d ≥ 16: 0.
	if s := Similarity(a, []float32{4, 0, 0, 0}); math.Abs(s-1) > 1e-12 {
		t.Errorf("similarity at distance 4: %v", s)
	}
	if s := Similarity(a, []float32{20, 0, 0, 0}); s != 0 {
		t.Errorf("similarity at distance 20: %v", s)
	}
	if d := FaceResDistance(a, []float32{1}); !math.IsInf(d, 1) {
		t.Errorf("distance of descriptors of different lengths: %v", d)
	}
}

func TestCheckFaceRes(t *testing.T) {
	dir := t.TempDir()
	if err := CheckFaceRes(dir); err == nil {
		t.Fatal("empty directory passes")
	}
	// The liveness check does not need FaceRes and vice versa.
	if len(FaceResFiles) != 2 || len(ModelFiles) != 4 {
		t.Errorf("%d FaceRes files, %d liveness files", len(FaceResFiles), len(ModelFiles))
	}
}

// TestFaceRes loads the real model: 224×224 input, a 1024-value
// descriptor in ReLU6's range, and the same descriptor from concurrent
// calls.
func TestFaceRes(t *testing.T) {
	f, err := LoadFaceRes(faceResDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if f.size != 224 {
		t.Errorf("input size %d, want 224", f.size)
	}
	img := tfjs.New(150, 130, 3)
	for i := range img.Data {
		img.Data[i] = float32((i*7919)%256) * float32(i%3+1) / 3
	}
	box := image.Rect(10, 20, 110, 120)
	want, err := f.Describe(img, box)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 1024 {
		t.Fatalf("descriptor of %d values", len(want))
	}
	nonzero := 0
	for _, v := range want {
		if v < 0 || v > 6 || math.IsNaN(float64(v)) {
			t.Fatalf("descriptor value %v outside [0, 6]", v)
		}
		if v > 0 {
			nonzero++
		}
	}
	if nonzero < 10 { // ReLU6 then averaging: sparse (35 of 1024 on this noise)
		t.Errorf("only %d non-zero descriptor values", nonzero)
	}
	var wg sync.WaitGroup
	for k := 0; k < 3; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := f.Describe(img, box)
			if err != nil {
				t.Error(err)
				return
			}
			if d := FaceResDistance(got, want); d != 0 {
				t.Errorf("concurrent descriptor differs by %g", d)
			}
		}()
	}
	wg.Wait()
}

type faceResRef struct {
	Name       string    `json:"name"`
	Descriptor []float32 `json:"descriptor"`
	Gender     float64   `json:"gender"`
}

// faceResTol bounds ‖go − ref‖ / ‖ref‖ of a descriptor: the network sums
// in another order (blocked GEMM, Winograd vs XNNPACK), which changes the
// float32 rounding only. A match threshold sits near a relative distance
// of 0.3–0.5.
const faceResTol = 1e-4

// TestFaceResParityWithHuman compares the Go descriptor with human's
// preparation and the model on TensorFlow.js WASM in Node
// (testdata/faceres-reference.mjs) on the face-api sample photos: for up
// to three faces per photo found by face-api's tiny detector (Go), the
// detector's box enlarged as human enlarges BlazeFace's, plus one box
// reaching past sample1's corner.
//
//	go test -count=1 -run TestFaceResParityWithHuman -v ./tfjs/human/
func TestFaceResParityWithHuman(t *testing.T) {
	models := modelsDir(t)
	if err := faceapi.Check(models); err != nil {
		testdb.Skip(t, fmt.Sprintf("FaceRes parity test needs the face-api models for face boxes: %v", err))
	}
	frDir := faceResDir(t)
	ref := noderef.Find(t, "FaceRes parity tests need", "", "@vladmandic/human/package.json", "@vladmandic/face-api/demo/sample1.jpg")
	ref.Script = filepath.Join(testdb.RepoRoot(t), "tfjs", "human", "testdata", "faceres-reference.mjs")
	f, err := LoadFaceRes(frDir)
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
		fh, err := os.Open(filepath.Join(ref.Samples, s))
		if err != nil {
			t.Fatal(err)
		}
		decoded, err := jpeg.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		img := faceapi.ImageTensor(decoded)
		h, w, _ := img.HWC()
		raw := filepath.Join(dir, fmt.Sprintf("%d.rgb", si))
		if err := os.WriteFile(raw, faceapi.RGBBytes(img), 0o600); err != nil {
			t.Fatal(err)
		}
		add := func(name string, b image.Rectangle) {
			items = append(items, refItem{Name: name, Raw: raw, Width: w, Height: h,
				Box: [4]int{b.Min.X, b.Min.Y, b.Max.X, b.Max.Y}, img: img, box: b})
		}
		if si == 0 {
			add(s+" corner", image.Rect(-150, -100, 250, 300))
		}
		dets, err := det.Detect(img, faceapi.TinyDetectorOptions{InputSize: 416})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range dets {
			if i == 3 {
				break
			}
			b := image.Rect(int(d.Box.X), int(d.Box.Y), int(d.Box.Right()+0.5), int(d.Box.Bottom()+0.5))
			add(fmt.Sprintf("%s face %d", s, i), EnlargeBox(b, DefaultBoxScale))
		}
	}
	if len(items) < 8 {
		t.Fatalf("only %d face crops from the six samples", len(items))
	}
	out := noderef.Run[faceResRef](t, ref, map[string]any{"npmDir": ref.NpmDir, "modelDir": frDir, "items": items}, len(items))
	t.Logf("reference: %v, backend %s, simd %v; %d crops", out.Versions, out.Backend, out.SIMD, len(items))
	var worst float64
	descs := make([][]float32, len(items))
	for i, it := range items {
		want := out.Results[i]
		if want.Name != it.Name || len(want.Descriptor) != 1024 {
			t.Fatalf("reference result %d is %q with %d values", i, want.Name, len(want.Descriptor))
		}
		got, err := f.Describe(it.img, it.box)
		if err != nil {
			t.Fatal(err)
		}
		descs[i] = got
		var norm float64
		for _, v := range want.Descriptor {
			norm += float64(v) * float64(v)
		}
		rel := FaceResDistance(got, want.Descriptor) / math.Sqrt(norm)
		worst = max(worst, rel)
		if rel > faceResTol {
			t.Errorf("%s: descriptor differs from the reference by %.3g (relative), tolerance %g", it.Name, rel, faceResTol)
		}
		t.Logf("%-24s box %-24v ‖ref‖ %.3f relative error %.2g", it.Name, it.box, math.Sqrt(norm), rel)
	}
	t.Logf("worst relative error over %d crops: %.3g (tolerance %g)", len(items), worst, faceResTol)
}
