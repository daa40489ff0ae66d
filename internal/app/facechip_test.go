package app

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

func TestFitSimilarity(t *testing.T) {
	want := similarity{a: 0.8 * math.Cos(0.3), b: 0.8 * math.Sin(0.3), tx: 12, ty: -7}
	src := []faceapi.Point{{X: 1, Y: 2}, {X: 40, Y: 5}, {X: 20, Y: 30}, {X: -3, Y: 17}}
	dst := make([]faceapi.Point, len(src))
	for i, p := range src {
		dst[i].X, dst[i].Y = want.apply(p.X, p.Y)
	}
	got := fitSimilarity(src, dst)
	for _, d := range []float64{got.a - want.a, got.b - want.b, got.tx - want.tx, got.ty - want.ty} {
		if math.Abs(d) > 1e-9 {
			t.Fatalf("fitSimilarity = %+v, want %+v", got, want)
		}
	}
}

// templateLandmarks returns 68 landmarks whose points used by
// chipTransform lie on dlib's mean face in a size×size chip with the
// given padding, mapped through m.
func templateLandmarks(size int, padding float64, m similarity) []faceapi.Point {
	pts := make([]faceapi.Point, 68)
	for i := 17; i < 68; i++ {
		x := (padding + dlibMeanFaceX[i-17]) / (2*padding + 1) * float64(size)
		y := (padding + dlibMeanFaceY[i-17]) / (2*padding + 1) * float64(size)
		pts[i].X, pts[i].Y = m.apply(x, y)
	}
	return pts
}

func TestChipTransform(t *testing.T) {
	// Landmarks of a face rotated by 20°, scaled ×2.5 and moved: the chip
	// transform recovers exactly that map.
	want := similarity{a: 2.5 * math.Cos(0.35), b: 2.5 * math.Sin(0.35), tx: 300, ty: 120}
	got := chipTransform(templateLandmarks(chipSize, chipPadding, want), chipSize, chipPadding)
	for _, d := range []float64{got.a - want.a, got.b - want.b, got.tx - want.tx, got.ty - want.ty} {
		if math.Abs(d) > 1e-9 {
			t.Fatalf("chipTransform = %+v, want %+v", got, want)
		}
	}
}

func TestFaceChip(t *testing.T) {
	img := tfjs.New(200, 240, 3)
	for i := range img.Data {
		img.Data[i] = float32(i % 251)
	}
	// The identity map shifted by whole pixels copies the image.
	chip := faceChip(img, similarity{a: 1, tx: 30, ty: 20}, 150)
	for y := 0; y < 150; y++ {
		for x := 0; x < 150; x++ {
			for c := 0; c < 3; c++ {
				got, want := chip.Data[(y*150+x)*3+c], img.Data[((y+20)*240+x+30)*3+c]
				if math.Abs(float64(got-want)) > 1e-3 {
					t.Fatalf("chip (%d, %d, %d) = %v, want %v", x, y, c, got, want)
				}
			}
		}
	}
	// Outside the image the chip is black.
	out := faceChip(img, similarity{a: 1, tx: 1000, ty: 1000}, 10)
	for _, v := range out.Data {
		if v != 0 {
			t.Fatalf("chip outside the image: %v", v)
		}
	}
	// A chip shrinking the image fourfold samples 2×2 means, not single
	// pixels: a pattern alternating every pixel comes out as its mean.
	stripes := tfjs.New(800, 800, 3)
	for y := 0; y < 800; y++ {
		for x := 0; x < 800; x++ {
			for c := 0; c < 3; c++ {
				stripes.Data[(y*800+x)*3+c] = float32(255 * (x % 2))
			}
		}
	}
	small := faceChip(stripes, similarity{a: 4, tx: 100, ty: 100}, 100)
	for i, v := range small.Data {
		if math.Abs(float64(v)-127.5) > 1e-3 {
			t.Fatalf("antialiased chip value %d = %v, want 127.5", i, v)
		}
	}
}

func TestMirror(t *testing.T) {
	x := tfjs.FromData([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 2, 2, 3)
	want := []float32{4, 5, 6, 1, 2, 3, 10, 11, 12, 7, 8, 9}
	for i, v := range mirror(x).Data {
		if v != want[i] {
			t.Fatalf("mirror = %v, want %v", mirror(x).Data, want)
		}
	}
	h := halveTensor(tfjs.FromData([]float32{0, 4, 8, 12}, 2, 2, 1))
	if len(h.Data) != 1 || h.Data[0] != 6 {
		t.Fatalf("halveTensor = %v, want [6]", h.Data)
	}
}

// TestChipMirroredDescriptor checks that the engine's descriptor is the
// mean of the descriptors of dlib's chip and of its mirror image, and
// that the other crops are what they say.
func TestChipMirroredDescriptor(t *testing.T) {
	dir := os.Getenv("VERIFYD_MODELS_DIR")
	if dir == "" {
		dir = filepath.Join(testdb.RepoRoot(t), faceapi.DefaultDir)
	}
	if err := faceapi.Check(dir); err != nil {
		testdb.Skip(t, fmt.Sprintf("needs the face models (go run ./cmd/verifyd models fetch): %v", err))
	}
	m, err := LoadFaceModels(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.crop != ChipMirrored {
		t.Fatalf("LoadFaceModels describes with crop %d, want ChipMirrored", m.crop)
	}
	// Any picture and landmarks will do: the test checks how the
	// descriptor is composed, not what it says.
	img := tfjs.New(400, 300, 3)
	for i := range img.Data {
		img.Data[i] = float32((i*7919)%256) * float32(1+i%3) / 3
	}
	f := faceapi.Face{
		Landmarks: templateLandmarks(chipSize, chipPadding, similarity{a: 1.2, b: 0.2, tx: 60, ty: 80}),
		Aligned:   faceapi.Box{X: 100, Y: 120, Width: 150, Height: 150},
	}
	chip := FaceChip(img, f.Landmarks, chipSize, chipPadding)
	a, b := m.analyzer.Descriptor(chip), m.analyzer.Descriptor(mirror(chip))
	got := m.descriptor(img, f)
	var diff float64
	for i := range got {
		diff = math.Max(diff, math.Abs(float64(got[i]-(a[i]+b[i])/2)))
	}
	if diff > 1e-6 {
		t.Errorf("ChipMirrored descriptor differs from the mean of the chip's and its mirror's by %g", diff)
	}
	if d := faceapi.Distance(a, b); d < 0.01 {
		t.Fatalf("the chip and its mirror describe alike (%g): the test cannot tell them apart", d)
	}
	m.crop = ChipOnly
	if d := faceapi.Distance(m.descriptor(img, f), a); d > 1e-6 {
		t.Errorf("ChipOnly descriptor is %g from the chip's", d)
	}
	m.crop = FaceAPICrop
	want := m.analyzer.Descriptor(faceapi.Crop(img, image.Rect(100, 120, 250, 270)))
	if d := faceapi.Distance(m.descriptor(img, f), want); d > 1e-6 {
		t.Errorf("FaceAPICrop descriptor is %g from the aligned box's", d)
	}
}
