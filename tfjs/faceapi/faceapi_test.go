package faceapi

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/tfjs"
)

func TestSquarePad(t *testing.T) {
	for _, c := range []struct {
		h, w   int
		center bool
		want   tfjs.Pad
	}{
		{10, 10, true, tfjs.Pad{}},
		{10, 7, false, tfjs.Pad{Right: 3}},
		{7, 10, false, tfjs.Pad{Bottom: 3}},
		{10, 7, true, tfjs.Pad{Left: 1, Right: 2}}, // Math.round(1.5) = 2 at the end
		{6, 10, true, tfjs.Pad{Top: 2, Bottom: 2}},
	} {
		if got := squarePad(c.h, c.w, c.center); got != c.want {
			t.Errorf("squarePad(%d, %d, %v) = %+v, want %+v", c.h, c.w, c.center, got, c.want)
		}
	}
}

// A synthetic detector output: one confident anchor box and one
// overlapping weaker one, which non-maximum suppression removes.
func TestTinyDecode(t *testing.T) {
	d := &TinyDetector{boxLen: 5}
	out := tfjs.New(13, 13, 25)
	logit := func(p float64) float32 { return float32(math.Log(p / (1 - p))) }
	set := func(row, col, anchor int, x, y, w, h, score float32) {
		copy(out.Data[((row*13+col)*5+anchor)*5:], []float32{x, y, w, h, score})
	}
	for i := range 13 * 13 * 5 {
		out.Data[i*5+4] = -10
	}
	set(6, 6, 1, 0, 0, 0, 0, logit(0.9))   // centre (6.5/13), anchor 1 size
	set(6, 6, 3, 0, 0, 0, 0, logit(0.7))   // same centre, similar size: suppressed
	set(1, 1, 0, 0, 0, 0, 0, logit(0.6))   // elsewhere: kept
	set(10, 10, 0, 0, 0, 0, 0, logit(0.5)) // at the threshold: dropped
	dets := d.decode(out, 800, 600, TinyDetectorOptions{InputSize: 416, ScoreThreshold: 0.5})
	if len(dets) != 2 {
		t.Fatalf("%d detections, want 2: %+v", len(dets), dets)
	}
	// The image is 800×600: padded at the bottom to 800×800, so y scales
	// by 800/600 relative to the image height.
	b := dets[0].Box
	wantW := 6.041143 / 13 * 800
	wantH := 7.080126 / 13 * (800.0 / 600) * 600
	if math.Abs(dets[0].Score-0.9) > 1e-6 || math.Abs(b.Width-wantW) > 1e-3 || math.Abs(b.Height-wantH) > 1e-3 ||
		math.Abs(b.X+b.Width/2-400) > 1e-3 || math.Abs(b.Y+b.Height/2-400) > 1e-3 {
		t.Errorf("first detection %+v, want centre (400, 400) size %.1f×%.1f score 0.9", dets[0], wantW, wantH)
	}
	if math.Abs(dets[1].Score-0.6) > 1e-6 {
		t.Errorf("second detection %+v, want score 0.6", dets[1])
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := Check(dir); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "models fetch") {
		t.Errorf("empty directory: %v", err)
	}
	for _, f := range ModelFiles {
		os.WriteFile(filepath.Join(dir, f.Name), make([]byte, f.Size), 0o600)
	}
	if err := Check(dir); err == nil || errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("files of the right size with other contents: %v", err)
	}
	if _, ok := ModelFileNamed(RecognitionManifest); !ok {
		t.Errorf("ModelFileNamed(%q) not found (ModelFiles must stay sorted)", RecognitionManifest)
	}
}

// The networks may be shared by goroutines; results do not depend on how
// the work was split (run with -race).
func TestConcurrentUse(t *testing.T) {
	models := modelsDir(t)
	rec, err := LoadRecognitionNet(models)
	if err != nil {
		t.Fatal(err)
	}
	det, err := LoadTinyDetector(models)
	if err != nil {
		t.Fatal(err)
	}
	imgs := make([]*tfjs.Tensor, 4)
	for i := range imgs {
		imgs[i] = tfjs.New(120+10*i, 100, 3)
		for j := range imgs[i].Data {
			imgs[i].Data[j] = float32((j*7 + i*13) % 256)
		}
	}
	type result struct {
		desc []float32
		raw  *tfjs.Tensor
	}
	want := make([]result, len(imgs))
	for i, img := range imgs {
		want[i] = result{rec.Descriptor(img), det.Forward(img, 128)}
	}
	got := make([]result, len(imgs))
	done := make(chan int)
	for i, img := range imgs {
		go func() {
			got[i] = result{rec.Descriptor(img), det.Forward(img, 128)}
			done <- i
		}()
	}
	for range imgs {
		<-done
	}
	for i := range imgs {
		if Distance(got[i].desc, want[i].desc) != 0 || !equalData(got[i].raw.Data, want[i].raw.Data) {
			t.Errorf("image %d: concurrent result differs from sequential", i)
		}
	}
}

func equalData(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
