package app

import (
	"image"
	"image/color"
	"testing"
)

// TestShrinkLargePhoto: a photo over twice the face side is halved by
// 2×2 means before the final resampling, and the factor back to the
// photo's coordinates is exact.
func TestShrinkLargePhoto(t *testing.T) {
	img := image.NewYCbCr(image.Rect(0, 0, 4000, 3000), image.YCbCrSubsampleRatio420)
	for i := range img.Y {
		img.Y[i] = 200
	}
	for i := range img.Cb {
		img.Cb[i], img.Cr[i] = 128, 128
	}
	small, scale := shrink(img, faceMaxSide)
	if b := small.Bounds(); b.Dx() != faceMaxSide || b.Dy() != 1200 || scale != 2.5 {
		t.Fatalf("shrunk to %v, scale %v", b, scale)
	}
	if c := color.RGBAModel.Convert(small.At(800, 600)).(color.RGBA); c.R < 198 || c.R > 202 || c.G < 198 || c.B > 202 {
		t.Fatalf("a uniform photo changed colour: %v", c)
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
