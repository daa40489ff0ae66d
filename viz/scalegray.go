package viz

import (
	"image"

	xdraw "golang.org/x/image/draw"
)

// scaleGray draws the part sr of img (within its bounds) into the whole
// of dst, in grey levels: what xdraw.ApproxBiLinear.Scale(dst,
// dst.Bounds(), img, sr, xdraw.Src, nil) draws, pixel for pixel. For a
// JPEG's YCbCr into a Gray the library has no fast path: it took its
// generic one, an interface call and an allocation per sample, 4 % of all
// the CPU of the document checks of independently generated photos
// (docs/performance.md) for the small pictures TextRegion and
// EstimateSkew look at. This is that path's arithmetic for that one
// pair of types, written out so the compiler sees the types; anything
// else is left to the library.
func scaleGray(dst *image.Gray, img image.Image, sr image.Rectangle) {
	src, ok := img.(*image.YCbCr)
	dr := dst.Bounds()
	if !ok || dr.Size() == sr.Size() || !sr.In(src.Bounds()) || dr.Empty() || sr.Empty() {
		xdraw.ApproxBiLinear.Scale(dst, dr, img, sr, xdraw.Src, nil)
		return
	}
	sw, sh := int32(sr.Dx()), int32(sr.Dy())
	yscale := float64(sh) / float64(dr.Dy())
	xscale := float64(sw) / float64(dr.Dx())
	swMinus1, shMinus1 := sw-1, sh-1
	at := func(x, y int32) (float64, float64, float64) {
		r, g, b, _ := src.YCbCrAt(sr.Min.X+int(x), sr.Min.Y+int(y)).RGBA()
		return float64(r), float64(g), float64(b)
	}
	for dy := int32(0); dy < int32(dr.Dy()); dy++ {
		sy0, sy1, yFrac0, yFrac1 := taps(float64((float64(dy)+0.5)*yscale)-0.5, shMinus1)
		row := dst.Pix[int(dy)*dst.Stride:]
		for dx := int32(0); dx < int32(dr.Dx()); dx++ {
			sx0, sx1, xFrac0, xFrac1 := taps(float64((float64(dx)+0.5)*xscale)-0.5, swMinus1)
			s00r, s00g, s00b := at(sx0, sy0)
			s10r, s10g, s10b := at(sx1, sy0)
			s10r = float64(xFrac1*s00r) + float64(xFrac0*s10r)
			s10g = float64(xFrac1*s00g) + float64(xFrac0*s10g)
			s10b = float64(xFrac1*s00b) + float64(xFrac0*s10b)
			s01r, s01g, s01b := at(sx0, sy1)
			s11r, s11g, s11b := at(sx1, sy1)
			s11r = float64(xFrac1*s01r) + float64(xFrac0*s11r)
			s11g = float64(xFrac1*s01g) + float64(xFrac0*s11g)
			s11b = float64(xFrac1*s01b) + float64(xFrac0*s11b)
			s11r = float64(yFrac1*s10r) + float64(yFrac0*s11r)
			s11g = float64(yFrac1*s10g) + float64(yFrac0*s11g)
			s11b = float64(yFrac1*s10b) + float64(yFrac0*s11b)
			// color.GrayModel of the library's 16-bit colour.
			r, g, b := uint32(uint16(s11r)), uint32(uint16(s11g)), uint32(uint16(s11b))
			row[dx] = uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 24)
		}
	}
}

// taps returns the two source pixels (at most last) around the sample
// position s and their weights, clamped at the edges as the library
// clamps them: s < 0 takes pixel 0 alone, so truncation serves as floor.
func taps(s float64, last int32) (s0, s1 int32, frac0, frac1 float64) {
	s0 = int32(s)
	frac0 = s - float64(s0)
	frac1 = 1 - frac0
	s1 = s0 + 1
	if s < 0 {
		s0, s1 = 0, 0
		frac0, frac1 = 0, 1
	} else if s1 > last {
		s0, s1 = last, last
		frac0, frac1 = 1, 0
	}
	return s0, s1, frac0, frac1
}
