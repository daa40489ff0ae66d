package faceapi

import (
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/tfjs"
)

// A tall image is padded left and right to a square: the network's
// 0.25..0.75 horizontally spans the image, 0..1 vertically.
func TestLandmarkPostProcess(t *testing.T) {
	out := []float32{0.25, 0.5, 0.75, 0, 0.5, 1}
	landmarkPostProcess(out, 200, 100)
	want := []float32{0, 0.5, 1, 0, 0.5, 1}
	for i := range want {
		if math.Abs(float64(out[i]-want[i])) > 1e-6 {
			t.Fatalf("tall image: relative coordinates %v, want %v", out, want)
		}
	}
	out = []float32{0.5, 0.25, 0.5, 0.75}
	landmarkPostProcess(out, 50, 100) // wide: padded at top and bottom
	want = []float32{0.5, 0, 0.5, 1}
	for i := range want {
		if math.Abs(float64(out[i]-want[i])) > 1e-6 {
			t.Fatalf("wide image: relative coordinates %v, want %v", out, want)
		}
	}
}

func TestClipAtImageBorders(t *testing.T) {
	for _, c := range []struct{ in, want Box }{
		{Box{10.7, 5.2, 20.9, 30.99}, Box{10, 5, 20, 30}},
		{Box{-10.5, 5.7, 100.2, 50.9}, Box{0, 5, 80, 34}}, // cut left, right and bottom
		{Box{90, 50, 10, 10}, Box{90, 50, -10, -10}},      // outside: empty, dropped by Faces
		{Box{70.5, 30.5, 9.5, 9.5}, Box{70, 30, 9, 9}},    // exactly at the border
	} {
		if got := clipAtImageBorders(c.in, 80, 40); got != c.want {
			t.Errorf("clipAtImageBorders(%+v, 80, 40) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// alignDlib: eyes at (40, 50) and (60, 50), mouth at (50, 80); each eye is
// √1000 ≈ 31.6 px from the mouth, so the side is floor(31.6/0.45) = 70
// and the reference point (50, 60) sits at 50 % / 43 % of the box. The
// width is capped at the crop width + x, as in face-api.
func TestAlignDlib(t *testing.T) {
	pts := make([]Point, LandmarkCount)
	for i := 36; i < 42; i++ {
		pts[i] = Point{40, 50}
	}
	for i := 42; i < 48; i++ {
		pts[i] = Point{60, 50}
	}
	for i := 48; i < 68; i++ {
		pts[i] = Point{50, 80}
	}
	if got, want := alignDlib(pts, 200, 200), (Box{15, 29, 70, 70}); got != want {
		t.Errorf("alignDlib = %+v, want %+v", got, want)
	}
	if got, want := alignDlib(pts, 40, 200), (Box{15, 29, 55, 70}); got != want {
		t.Errorf("alignDlib with a 40 px wide crop = %+v, want %+v", got, want)
	}
}

func TestRescaleRoundTrip(t *testing.T) {
	b := Box{776.4727209566616, 445.210324436145, 312.45742773825964, 255.76191181405733}
	got := rescaleRoundTrip(b, 1920, 1280)
	if d := max(abs(got.X-b.X), abs(got.Y-b.Y), abs(got.Width-b.Width), abs(got.Height-b.Height)); d > 1e-9 {
		t.Errorf("rescaleRoundTrip moved %+v to %+v", b, got)
	}
}

// sampleFace returns the region of sample1.jpg (from the npm reference
// install) around its most confident face, skipping when it is absent.
func sampleFace(t testing.TB) *tfjs.Tensor {
	t.Helper()
	p := filepath.Join(testdb.RepoRoot(t), ".cache", "npm-face", "node_modules", "@vladmandic", "face-api", "demo", "sample1.jpg")
	f, err := os.Open(p)
	if err != nil {
		testdb.Skip(t, "the test needs face-api's sample photos: run scripts/npm-face-install ("+err.Error()+")")
	}
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// The face is at about (776, 445), 312×256 px.
	return Crop(ImageTensor(img), image.Rect(700, 380, 1160, 780))
}

// Faces may be called from several goroutines on one Analyzer (run with
// -race); results do not depend on it.
func TestAnalyzerConcurrentUse(t *testing.T) {
	models := modelsDir(t)
	img := sampleFace(t)
	an, err := LoadAnalyzer(models)
	if err != nil {
		t.Fatal(err)
	}
	opts := TinyDetectorOptions{InputSize: 160}
	const n = 3
	got := make([][]Face, n)
	errs := make([]error, n)
	done := make(chan struct{})
	for i := range got {
		go func() {
			got[i], errs[i] = an.Faces(img, opts)
			done <- struct{}{}
		}()
	}
	for range got {
		<-done
	}
	want, err := an.Faces(img, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 1 || len(want[0].Landmarks) != LandmarkCount || len(want[0].Descriptor) != DescriptorSize {
		t.Fatalf("Faces on the face of sample1.jpg: %d faces (%+v), want one with 68 landmarks and a descriptor", len(want), want)
	}
	// The aligned box lies inside the detection, around the landmarks.
	if a, d := want[0].Aligned, want[0].Detection.Box; a.Width < 100 || a.X < d.X-d.Width/4 || a.Right() > d.Right()+d.Width/4 {
		t.Errorf("aligned box %+v for detection %+v", a, d)
	}
	for i := range got {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if len(got[i]) != len(want) || got[i][0].Aligned != want[0].Aligned ||
			landmarkDiff(got[i][0].Landmarks, points(want[0].Landmarks)) != 0 ||
			Distance(got[i][0].Descriptor, want[0].Descriptor) != 0 {
			t.Errorf("goroutine %d: result differs from the sequential one", i)
		}
	}
}

func points(p []Point) [][2]float64 {
	out := make([][2]float64, len(p))
	for i, q := range p {
		out[i] = [2]float64{q.X, q.Y}
	}
	return out
}
