package quality_test

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/quality/qualitytest"
)

// measure finds the document and measures it, as the engine does.
func measure(img image.Image) quality.Metrics {
	r, _ := quality.DocumentRegion(img)
	return quality.Measure(img, r)
}

func TestSharpnessFallsWithBlur(t *testing.T) {
	t.Parallel()
	for _, sc := range []qualitytest.Scene{{Seed: 1}, {Seed: 2, Angle: 4}} {
		photo, _ := qualitytest.Photo(sc)
		prev, prevRaw := math.Inf(1), math.Inf(1)
		for _, sigma := range []float64{0, 0.5, 1, 1.5, 2, 3, 4} {
			m := measure(qualitytest.Blur(photo, sigma))
			t.Logf("seed %d σ %.1f: sharpness %.1f raw %.1f", sc.Seed, sigma, m.Sharpness, m.RawSharpness)
			if m.Sharpness >= prev || m.RawSharpness >= prevRaw {
				t.Errorf("seed %d: blur σ %.1f did not lower sharpness (%.1f, raw %.1f after %.1f, %.1f)", sc.Seed, sigma, m.Sharpness, m.RawSharpness, prev, prevRaw)
			}
			prev, prevRaw = m.Sharpness, m.RawSharpness
		}
	}
}

// TestSharpnessResistsNoise: noise must not make a blurred photo look
// sharp (the reason for the denoising Gaussian).
func TestSharpnessResistsNoise(t *testing.T) {
	t.Parallel()
	photo, _ := qualitytest.Photo(qualitytest.Scene{Seed: 3})
	blurred := measure(qualitytest.Blur(photo, 3))
	noisy, _ := qualitytest.JPEG(qualitytest.Noise(qualitytest.Blur(photo, 3), 12, 1), 60)
	sharp, _ := qualitytest.JPEG(qualitytest.Blur(photo, 1), 60)
	n, s := measure(noisy), measure(sharp)
	t.Logf("σ 3: %.1f; σ 3 + noise 12 + JPEG: %.1f (raw %.1f); σ 1 + JPEG: %.1f", blurred.Sharpness, n.Sharpness, n.RawSharpness, s.Sharpness)
	if n.Sharpness > s.Sharpness/3 {
		t.Errorf("noise of σ 12 lifts a σ 3 blur to %.1f, near σ 1's %.1f", n.Sharpness, s.Sharpness)
	}
}

func TestExposureFollowsGain(t *testing.T) {
	t.Parallel()
	photo, _ := qualitytest.Photo(qualitytest.Scene{Seed: 4, Angle: -2})
	var prev quality.Metrics
	for i, gain := range []float64{0.1, 0.2, 0.35, 0.6, 1, 1.4, 1.8} {
		m := measure(qualitytest.Expose(photo, gain))
		t.Logf("gain %.2f: mean %.1f dark %.3f bright %.3f", gain, m.Mean, m.Dark, m.Bright)
		if i > 0 && (m.Mean <= prev.Mean || m.Dark > prev.Dark || m.Bright < prev.Bright) {
			t.Errorf("gain %.2f: mean %.1f dark %.3f bright %.3f after mean %.1f dark %.3f bright %.3f",
				gain, m.Mean, m.Dark, m.Bright, prev.Mean, prev.Dark, prev.Bright)
		}
		prev = m
	}
	if dark := measure(qualitytest.Expose(photo, 0.1)); dark.Dark < 0.2 || dark.Mean > 25 {
		t.Errorf("a tenth of the exposure: mean %.1f, dark %.3f", dark.Mean, dark.Dark)
	}
	if normal := measure(photo); normal.Dark > 0.01 || normal.Bright > 0.01 {
		t.Errorf("a normal photo clips: dark %.3f, bright %.3f", normal.Dark, normal.Bright)
	}
}

func TestGlareGrowsWithSpot(t *testing.T) {
	t.Parallel()
	photo, box := qualitytest.Photo(qualitytest.Scene{Seed: 5})
	cx, cy := float64(box.Min.X+box.Max.X)/2+100, float64(box.Min.Y+box.Max.Y)/2
	prev := -1.0
	for _, r := range []float64{0, 20, 40, 70, 110, 150} {
		img := image.Image(photo)
		if r > 0 {
			img = qualitytest.Glare(photo, cx, cy, 1.5*r, r)
		}
		m := measure(img)
		t.Logf("glare radius %.0f: glare %.4f largest %.4f blobs %d", r, m.Glare, m.LargestGlare, m.GlareBlobs)
		if m.LargestGlare <= prev && r > 20 {
			t.Errorf("radius %.0f: largest glare %.4f after %.4f", r, m.LargestGlare, prev)
		}
		if r == 0 && (m.Glare != 0 || m.GlareBlobs != 0) {
			t.Errorf("glare %.4f in blobs %d without a spot", m.Glare, m.GlareBlobs)
		}
		if r >= 110 && m.GlareBlobs != 1 {
			t.Errorf("radius %.0f: %d blobs, want 1", r, m.GlareBlobs)
		}
		prev = m.LargestGlare
	}
}

// TestSmallHighlightsAreNotGlare: specks below MinGlareBlob are ignored,
// and a tinted near-white is not glare.
func TestSmallHighlightsAreNotGlare(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 800, 500))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 200, 200, 190, 255
	}
	for y := 10; y < 490; y += 40 {
		for x := 10; x < 790; x += 40 {
			for dy := 0; dy < 5; dy++ {
				for dx := 0; dx < 5; dx++ {
					img.SetRGBA(x+dx, y+dy, color.RGBA{255, 255, 255, 255})
				}
			}
		}
	}
	// A large pale-yellow patch: bright, but not colourless.
	for y := 100; y < 300; y++ {
		for x := 100; x < 400; x++ {
			img.SetRGBA(x, y, color.RGBA{255, 250, 200, 255})
		}
	}
	m := quality.Measure(img, img.Bounds())
	if m.Glare != 0 || m.GlareBlobs != 0 {
		t.Errorf("glare %.4f in %d blobs", m.Glare, m.GlareBlobs)
	}
}

func TestFindDocumentOnPlainBackgrounds(t *testing.T) {
	t.Parallel()
	backgrounds := []color.RGBA{{96, 84, 72, 255}, {40, 40, 44, 255}, {128, 128, 128, 255}, {30, 60, 110, 255}}
	n := 0
	for i, bg := range backgrounds {
		for _, angle := range []float64{-5, 0, 2.5, 5} {
			n++
			sc := qualitytest.Scene{Seed: uint64(n), Angle: angle, Background: bg, DocWidth: []float64{0.55, 0.7, 0.85}[n%3]}
			if i == 1 {
				sc.Width, sc.Height = 1600, 1200
			}
			photo, truth := qualitytest.Photo(sc)
			img := image.Image(photo)
			if n%2 == 0 {
				img, _ = qualitytest.JPEG(qualitytest.Noise(photo, 4, 1), 60)
			}
			r, ok := quality.FindDocument(img)
			iou := qualitytest.IoU(r, truth)
			if !ok || iou < 0.8 {
				t.Errorf("background %v, angle %.1f, width %.2f: found %v %v, truth %v, IoU %.3f", bg, angle, sc.DocWidth, ok, r, truth, iou)
			}
		}
	}
}

func TestFindDocumentGivesUp(t *testing.T) {
	t.Parallel()
	// Nothing but a plain, slightly noisy background.
	empty := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for i := 0; i < len(empty.Pix); i += 4 {
		empty.Pix[i], empty.Pix[i+1], empty.Pix[i+2], empty.Pix[i+3] = 90, 90, 90, 255
	}
	noisy := qualitytest.Noise(empty, 3, 2)
	if r, ok := quality.FindDocument(noisy); ok {
		t.Errorf("found %v in an empty scene", r)
	}
	// A card filling the frame: no background to separate it from.
	full := qualitytest.Card(1000, 631, 7)
	if r, ok := quality.FindDocument(full); ok {
		t.Errorf("found %v in a frame-filling card", r)
	}
	r, ok := quality.DocumentRegion(full)
	if want := image.Rect(100, 63, 900, 568); ok || r != want {
		t.Errorf("DocumentRegion = %v, %v; want the central 80%% %v", r, ok, want)
	}
	// Degenerate images do not panic.
	for _, img := range []image.Image{image.NewRGBA(image.Rect(0, 0, 1, 1)), image.NewGray(image.Rect(0, 0, 3, 2000)), image.NewRGBA(image.Rect(0, 0, 0, 0))} {
		quality.FindDocument(img)
		quality.DocumentRegion(img)
		quality.Measure(img, img.Bounds())
	}
}

// TestMeasureImageTypes: the fast paths and the generic one agree.
func TestMeasureImageTypes(t *testing.T) {
	t.Parallel()
	photo, box := qualitytest.Photo(qualitytest.Scene{Seed: 9, Width: 700, Height: 500})
	photo = qualitytest.Glare(photo, 300, 250, 90, 60)
	b := photo.Bounds()
	nrgba := image.NewNRGBA(b)
	rgba64 := image.NewRGBA64(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			nrgba.Set(x, y, photo.At(x, y))
			rgba64.Set(x, y, photo.At(x, y))
		}
	}
	want := quality.Measure(photo, box)
	if want.GlareBlobs == 0 {
		t.Fatal("no glare measured")
	}
	for name, img := range map[string]image.Image{"NRGBA": nrgba, "RGBA64": rgba64} {
		got := quality.Measure(img, box)
		if got != want {
			t.Errorf("%s: %+v\nwant %+v", name, got, want)
		}
	}
	// JPEG at full quality: YCbCr, close but not identical.
	j, _ := qualitytest.JPEG(photo, 100)
	got := quality.Measure(j, box)
	if math.Abs(got.Mean-want.Mean) > 1 || math.Abs(got.Sharpness/want.Sharpness-1) > 0.1 || math.Abs(got.LargestGlare-want.LargestGlare) > 0.002 {
		t.Errorf("YCbCr: %+v\nwant ≈ %+v", got, want)
	}
	// Gray: the luminance only; glare is then any near-white blob.
	gray := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			gray.Set(x, y, photo.At(x, y))
		}
	}
	if g := quality.Measure(gray, box); math.Abs(g.Mean-want.Mean) > 1 || math.Abs(g.Sharpness/want.Sharpness-1) > 0.05 {
		t.Errorf("Gray: %+v\nwant ≈ %+v", g, want)
	}
}

func TestMeasureRegionAndScale(t *testing.T) {
	t.Parallel()
	photo, box := qualitytest.Photo(qualitytest.Scene{Seed: 10, Width: 2400, Height: 1800})
	m := quality.Measure(photo, box)
	if m.Region != box || max(m.Width, m.Height) != quality.MaxSide || math.Abs(m.Scale-1000.0/float64(box.Dx())) > 0.002 {
		t.Errorf("region %v scale %.4f working copy %d×%d (box %v)", m.Region, m.Scale, m.Width, m.Height, box)
	}
	// A region outside the image measures the whole image.
	if m := quality.Measure(photo, image.Rect(-50, -50, -10, -10)); m.Region != photo.Bounds() {
		t.Errorf("region %v", m.Region)
	}
	// Small regions are not upscaled.
	small := image.Rect(100, 100, 400, 300)
	if m := quality.Measure(photo, small); m.Scale != 1 || m.Width != 300 || m.Height != 200 {
		t.Errorf("small region: scale %.3f, %d×%d", m.Scale, m.Width, m.Height)
	}
}

func TestCentral(t *testing.T) {
	t.Parallel()
	if got, want := quality.Central(image.Rect(10, 20, 1010, 520), 0.8), image.Rect(110, 70, 910, 470); got != want {
		t.Errorf("Central = %v, want %v", got, want)
	}
}
