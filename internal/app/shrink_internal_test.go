package app

import (
	"image"
	"image/color"
	"image/draw"
	"math/rand/v2"
	"testing"

	xdraw "golang.org/x/image/draw"
)

// TestShrinkLargePhoto: a photo twice the face side or more is halved by
// 2×2 means; a photo or half within shrinkSlack of the side is kept as it
// is (no second resampling), a larger one is resampled to the side; the
// factor back to the photo's coordinates is exact, and a uniform photo
// keeps its colour.
func TestShrinkLargePhoto(t *testing.T) {
	for _, tc := range []struct {
		w, h         int
		wantW, wantH int
		wantScale    float64
	}{
		{4000, 3000, 2000, 1500, 2},     // 12 MP: halved only
		{3000, 4000, 1500, 2000, 2},     // upright 12 MP
		{4624, 2600, 2312, 1300, 2},     // 16:9 12 MP: halved only (resampled to 1600 until 2026-12-01)
		{5000, 3750, 1600, 1200, 3.125}, // halved to 2500, then resampled
		{8000, 6000, 2000, 1500, 4},     // 48 MP: halved twice
		{2400, 1800, 2400, 1800, 1},     // within the slack: as it is
		{2800, 2100, 1600, 1200, 1.75},  // under twice the side: resampled only
		{1200, 900, 1200, 900, 1},       // small: as it is
	} {
		img := image.NewYCbCr(image.Rect(0, 0, tc.w, tc.h), image.YCbCrSubsampleRatio420)
		for i := range img.Y {
			img.Y[i] = 200
		}
		for i := range img.Cb {
			img.Cb[i], img.Cr[i] = 128, 128
		}
		small, scale := shrink(img, faceMaxSide)
		if b := small.Bounds(); b.Dx() != tc.wantW || b.Dy() != tc.wantH || scale != tc.wantScale {
			t.Errorf("%d×%d shrunk to %v, scale %v; want %d×%d, %v", tc.w, tc.h, b, scale, tc.wantW, tc.wantH, tc.wantScale)
			continue
		}
		if c := color.RGBAModel.Convert(small.At(tc.wantW/2, tc.wantH/2)).(color.RGBA); c.R < 198 || c.R > 202 || c.G < 198 || c.B > 202 {
			t.Errorf("%d×%d: a uniform photo changed colour: %v", tc.w, tc.h, c)
		}
	}
	h := halve(func() *image.RGBA {
		m := image.NewRGBA(image.Rect(0, 0, 2, 2))
		for i, v := range []uint8{0, 100, 200, 100} {
			m.Pix[4*i], m.Pix[4*i+3] = v, 255
		}
		return m
	}())
	if h.Bounds().Dx() != 1 || h.Pix[0] != 100 || h.Pix[3] != 255 {
		t.Fatalf("halve: %v", h.Pix)
	}
}

// TestHalveYCbCr: a decoded JPEG halved from its luma and chroma planes
// (halveYCbCr) is, within rounding, the photo converted to RGBA and then
// halved, for each chroma subsampling and an image whose bounds do not
// start at the origin.
func TestHalveYCbCr(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio444} {
		// Colours drawn in RGB and converted, as an encoder does: random
		// luma and chroma would mostly lie outside the RGB cube.
		whole := image.NewYCbCr(image.Rect(0, 0, 64, 48), ratio)
		for y := 0; y < 48; y++ {
			for x := 0; x < 64; x++ {
				yy, cb, cr := color.RGBToYCbCr(uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)))
				whole.Y[whole.YOffset(x, y)] = yy
				// The last pixel of a chroma block sets it: in gamut,
				// as an encoder's mean would be.
				whole.Cb[whole.COffset(x, y)], whole.Cr[whole.COffset(x, y)] = cb, cr
			}
		}
		img := whole.SubImage(image.Rect(6, 4, 62, 46)).(*image.YCbCr)
		got := halveYCbCr(img)
		b := img.Bounds()
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
		want := halve(rgba)
		if got.Rect != want.Rect {
			t.Fatalf("%v: %v, want %v", ratio, got.Rect, want.Rect)
		}
		worst := 0
		for i := range got.Pix {
			worst = max(worst, int(got.Pix[i])-int(want.Pix[i]), int(want.Pix[i])-int(got.Pix[i]))
		}
		// Converting 2×2 means instead of averaging four conversions
		// differs by rounding, and by clamping where a pixel's luma with
		// its block's chroma leaves the RGB cube (random colours side by
		// side do; with no subsampling they cannot).
		bound := 40
		if ratio == image.YCbCrSubsampleRatio444 {
			bound = 2
		}
		if worst > bound {
			t.Errorf("%v: a pixel differs by %d", ratio, worst)
		}
		mean := 0
		for i := range got.Pix {
			mean += max(int(got.Pix[i])-int(want.Pix[i]), int(want.Pix[i])-int(got.Pix[i]))
		}
		if m := float64(mean) / float64(len(got.Pix)); m > 2 {
			t.Errorf("%v: pixels differ by %.2f on average", ratio, m)
		}
	}
}

// BenchmarkShrink12MP shrinks a 4000 × 3000 JPEG-like photo for the face
// models, as each face check does for each 12 MP photo; and, for
// comparison, times the step shrink took after halving until 2026-11-30:
// Catmull-Rom from 2000 × 1500 to 1600 × 1200.
func BenchmarkShrink12MP(b *testing.B) {
	img := image.NewYCbCr(image.Rect(0, 0, 4000, 3000), image.YCbCrSubsampleRatio420)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range img.Y {
		img.Y[i] = uint8(rng.IntN(256))
	}
	b.Run("shrink", func(b *testing.B) {
		for b.Loop() {
			shrink(img, faceMaxSide)
		}
	})
	b.Run("catmull-rom-2000-to-1600", func(b *testing.B) {
		half := halve(img)
		for b.Loop() {
			dst := image.NewRGBA(image.Rect(0, 0, faceMaxSide, 1200))
			xdraw.CatmullRom.Scale(dst, dst.Bounds(), half, half.Bounds(), xdraw.Src, nil)
		}
	})
}
