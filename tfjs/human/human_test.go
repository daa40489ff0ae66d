package human

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/tfjs"
)

func TestCropAndResize(t *testing.T) {
	// A 3×3 one-channel image holding 3y + x: bilinear interpolation of a
	// linear function is exact, so every sample is 3·y_in + x_in.
	img := tfjs.New(3, 3, 1)
	for i := range img.Data {
		img.Data[i] = float32(i)
	}
	// The whole image at its own size: the pixels themselves.
	got := cropAndResize(img, [4]float32{0, 0, 1, 1}, 3, 3)
	want := []float32{0, 1, 2, 3, 4, 5, 6, 7, 8}
	if fmt.Sprint(got.Data) != fmt.Sprint(want) {
		t.Errorf("identity crop: %v, want %v", got.Data, want)
	}
	// Upsampled to 5×5: samples at 0, 0.5, 1, 1.5, 2 in each direction
	// (corners aligned: the box's first and last pixels are the crop's).
	got = cropAndResize(img, [4]float32{0, 0, 1, 1}, 5, 5)
	for y := 0; y < 5; y++ {
		for x := 0; x < 5; x++ {
			if w := float32(3*0.5*float64(y) + 0.5*float64(x)); got.Data[y*5+x] != w {
				t.Fatalf("5x5 crop at (%d, %d) = %v, want %v", x, y, got.Data[y*5+x], w)
			}
		}
	}
	// A box starting half an image above: y_in = -1, 0, 1, so the first
	// row is outside and zero; x covers columns 1..2 (x_in = 1, 1.5, 2).
	got = cropAndResize(img, [4]float32{-0.5, 0.5, 0.5, 1}, 3, 3)
	want = []float32{0, 0, 0, 1, 1.5, 2, 4, 4.5, 5}
	if fmt.Sprint(got.Data) != fmt.Sprint(want) {
		t.Errorf("crop past the top: %v, want %v", got.Data, want)
	}
	// A one-pixel crop samples the box centre.
	got = cropAndResize(img, [4]float32{0, 0, 1, 1}, 1, 1)
	if got.Data[0] != 4 {
		t.Errorf("1x1 crop = %v, want 4 (the centre)", got.Data[0])
	}
}

func TestFaceCrop(t *testing.T) {
	// White 10×10 image; a box sticking out on the left gives black
	// (zero) columns there and 1.0 (255/255) inside.
	img := tfjs.New(10, 10, 3)
	for i := range img.Data {
		img.Data[i] = 255
	}
	crop, err := FaceCrop(img, image.Rect(-10, 0, 10, 10))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(crop.Shape) != fmt.Sprint([]int{CropSize, CropSize, 3}) {
		t.Fatalf("crop shape %v", crop.Shape)
	}
	row := crop.Data[100*CropSize*3 : 101*CropSize*3]
	if row[0] != 0 || row[3*(CropSize/2-1)] != 0 || row[3*(CropSize/2+1)] != 1 || row[len(row)-1] != 1 {
		t.Errorf("crop row: left %v, mid-left %v, mid-right %v, right %v; want 0 0 1 1",
			row[0], row[3*(CropSize/2-1)], row[3*(CropSize/2+1)], row[len(row)-1])
	}
	if _, err := FaceCrop(img, image.Rect(5, 5, 5, 9)); err == nil {
		t.Error("empty box accepted")
	}
	if _, err := FaceCrop(tfjs.New(4, 4, 1), image.Rect(0, 0, 2, 2)); err == nil {
		t.Error("one-channel image accepted")
	}
}

func TestEnlargeBox(t *testing.T) {
	cases := []struct {
		box   image.Rectangle
		scale float64
		want  image.Rectangle
	}{
		// Centre (150, 125), enlarged to 140×70, squared on 140.
		{image.Rect(100, 100, 200, 150), 1.4, image.Rect(80, 55, 220, 195)},
		// Math.round rounds halves up: centre 0.5 ± 1.5.
		{image.Rect(0, 0, 3, 1), 1, image.Rect(0, -1, 3, 2)},
		{image.Rect(10, 10, 20, 20), 1, image.Rect(10, 10, 20, 20)},
	}
	for _, c := range cases {
		if got := EnlargeBox(c.box, c.scale); got != c.want {
			t.Errorf("EnlargeBox(%v, %g) = %v, want %v", c.box, c.scale, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := Check(dir); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "models fetch") {
		t.Errorf("empty directory: %v", err)
	}
	for _, f := range ModelFiles {
		if err := os.WriteFile(filepath.Join(dir, f.Name), make([]byte, f.Size), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Check(dir); err == nil || errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "SHA-256 differs") {
		t.Errorf("files of the right size with other contents: %v", err)
	}
}

// modelsDir returns the directory with the liveness model files, skipping
// the test when they are absent.
func modelsDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("VERIFYD_MODELS_DIR")
	if dir == "" {
		dir = filepath.Join(testdb.RepoRoot(t), "models")
	}
	if err := Check(dir); err != nil {
		testdb.Skip(t, fmt.Sprintf("liveness model tests need the model files: %v", err))
	}
	return dir
}

// TestLiveness loads the real models, checks their inputs are what human
// resizes to, and that concurrent scoring gives the sequential results.
func TestLiveness(t *testing.T) {
	l, err := LoadLiveness(modelsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if l.antispoofSize != 128 || l.livenessSize != 32 {
		t.Errorf("model input sizes %d and %d, want 128 and 32", l.antispoofSize, l.livenessSize)
	}
	// Synthetic images: a gradient, noise, flat grey.
	imgs := make([]*tfjs.Tensor, 3)
	for k := range imgs {
		img := tfjs.New(120, 100, 3)
		for i := range img.Data {
			switch k {
			case 0:
				img.Data[i] = float32(i % 256)
			case 1:
				img.Data[i] = float32((i * 2654435761) >> 7 % 256)
			default:
				img.Data[i] = 128
			}
		}
		imgs[k] = img
	}
	box := image.Rect(10, 20, 90, 110)
	want := make([]Scores, len(imgs))
	for k, img := range imgs {
		s, err := l.Score(img, box)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(s.Real) || s.Real < 0 || s.Real > 1 || math.IsNaN(s.Live) || s.Live < 0 || s.Live > 1 {
			t.Errorf("image %d: scores %+v outside [0, 1]", k, s)
		}
		want[k] = s
	}
	if want[0] == want[1] && want[1] == want[2] {
		t.Errorf("three different images score the same: %+v", want[0])
	}
	var wg sync.WaitGroup
	errs := make(chan error, 24)
	for i := 0; i < 24; i++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			s, err := l.Score(imgs[k], box)
			if err == nil && s != want[k] {
				err = fmt.Errorf("image %d: concurrent %+v, sequential %+v", k, s, want[k])
			}
			if err != nil {
				errs <- err
			}
		}(i % len(imgs))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkScore measures one Score call (crop, both resizes, both
// models) on a face-sized box.
func BenchmarkScore(b *testing.B) {
	l, err := LoadLiveness(modelsDir(b))
	if err != nil {
		b.Fatal(err)
	}
	img := tfjs.New(1280, 1920, 3)
	for i := range img.Data {
		img.Data[i] = float32(i % 251)
	}
	box := image.Rect(700, 350, 1150, 800)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.Score(img, box); err != nil {
			b.Fatal(err)
		}
	}
}
