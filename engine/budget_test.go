package engine

import (
	"bytes"
	"context"
	"hash/crc32"
	"image"
	"image/jpeg"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
)

func testJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A decoded photo holds its bytes of the budget until the run ends, and
// only those: the decode's transient cost beyond them is returned at once.
func TestDecodeBudgetHoldsUntilTheRunEnds(t *testing.T) {
	const size = 64 << 20
	b := NewDecodeBudget(size)
	in := &Input{
		Selfie: &Image{Kind: verifyd.ImageSelfie, Bytes: testJPEG(t, 640, 480)},
		Front:  &Image{Kind: verifyd.ImageDocumentFront, Bytes: testJPEG(t, 5000, 3200)},
		Facts:  map[string]any{},
	}
	if r := (DecodeCheck{Budget: b}).Run(context.Background(), in); r.Outcome != Pass {
		t.Fatalf("decode: %s %s", r.Outcome, r.Detail)
	}
	if got := in.Front.Image.Bounds(); got.Dx() != 4434 || got.Dy() != 2837 {
		t.Errorf("a 16 MP photo (5000×3200) is kept at %v, want 4434×2837 (%d pixels at most)", got.Size(), WorkingPixels)
	}
	held := imageBytes(in.Selfie.Image) + imageBytes(in.Front.Image)
	if !b.sem.TryAcquire(size - held) {
		t.Fatalf("more than the decoded photos' %d bytes are held", held)
	}
	b.sem.Release(size - held)
	if b.sem.TryAcquire(size - held + 1) {
		t.Fatalf("the decoded photos hold nothing of the budget")
	}
	in.hold.releaseAll()
	if !b.sem.TryAcquire(size) {
		t.Fatal("the budget was not returned when the run ended")
	}
	// A check finishing after its run ended returns its bytes at once.
	b.sem.Release(size)
	b.sem.Acquire(context.Background(), 10)
	in.hold.add(func() { b.release(10) })
	if !b.sem.TryAcquire(size) {
		t.Fatal("a release registered after the run ended was kept")
	}
}

// A phone's 12 MP photo is kept as decoded in either proportion (a bound
// on the long side shrank the 16:9 one), and a larger one is shrunk to
// WorkingPixels in its own proportions.
func TestWorkingSize(t *testing.T) {
	for _, c := range []struct {
		w, h, ww, wh int
		shrink       bool
	}{
		{4000, 3000, 4000, 3000, false},
		{4624, 2600, 4624, 2600, false},
		{2600, 4624, 2600, 4624, false},
		{6000, 4000, 4344, 2896, true},
		{8000, 1000, 8000, 1000, false},
		{12000, 1500, 10033, 1254, true},
	} {
		ww, wh, shrink := workingSize(c.w, c.h)
		if ww != c.ww || wh != c.wh || shrink != c.shrink {
			t.Errorf("workingSize(%d, %d) = %d, %d, %v; want %d, %d, %v", c.w, c.h, ww, wh, shrink, c.ww, c.wh, c.shrink)
		}
		if ww*wh > WorkingPixels {
			t.Errorf("workingSize(%d, %d) keeps %d pixels, more than %d", c.w, c.h, ww*wh, WorkingPixels)
		}
	}
}

// A pipeline run returns what its decodes held, however it ends; a run
// needing more than the whole budget takes all of it and completes.
func TestPipelineReleasesTheBudget(t *testing.T) {
	for _, size := range []int64{32 << 20, 1 << 20} {
		b := NewDecodeBudget(size)
		p := NewPipeline(DecodeCheck{Budget: b}, FaceUnavailableCheck{})
		in := &Input{Selfie: &Image{Kind: verifyd.ImageSelfie, Bytes: testJPEG(t, 640, 480)},
			Front: &Image{Kind: verifyd.ImageDocumentFront, Bytes: testJPEG(t, 1600, 1200)}}
		d, err := p.Run(context.Background(), in)
		if err != nil || d.Results[0].Outcome != Pass {
			t.Fatalf("budget %d: %v %+v", size, err, d.Results)
		}
		if !b.sem.TryAcquire(size) {
			t.Fatalf("budget %d: the run kept part of it", size)
		}
	}
}

func TestDecodeCheckRefusesABomb(t *testing.T) {
	// A 16-bit RGBA PNG header of 7071×7071 pixels: 381 MiB to decode.
	bomb := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x1b\x9f\x00\x00\x1b\x9f\x10\x06\x00\x00\x00")
	bomb = append(bomb, crcIHDR(bomb[12:29])...)
	bomb = append(bomb, "\x00\x00\x00\x00IDAT\x35\xaf\x06\x1e\x00\x00\x00\x00IEND\xae\x42\x60\x82"...)
	in := &Input{Front: &Image{Kind: verifyd.ImageDocumentFront, Bytes: bomb}, Facts: map[string]any{}}
	r := DecodeCheck{Budget: NewDecodeBudget(DefaultDecodeBudget)}.Run(context.Background(), in)
	if r.Outcome != Fail || !strings.Contains(r.Detail, "MiB to decode") {
		t.Fatalf("%s %s", r.Outcome, r.Detail)
	}

}

func crcIHDR(typeAndData []byte) []byte {
	c := crc32.ChecksumIEEE(typeAndData)
	return []byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)}
}
