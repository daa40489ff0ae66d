package viz

import (
	"image"
	"math"

	"golang.org/x/image/math/f64"
)

// transformGray draws src's part sr onto dst through the affine map s2d
// (source to destination coordinates) with the tent kernel, exactly as
// golang.org/x/image/draw's BiLinear.Transform(dst, s2d, src, sr,
// draw.Src, nil) draws it into an RGBA image, pixel for pixel
// (TestTransformGrayExact): destination pixels whose source point lies
// outside sr keep their value; sr must lie within src's bounds. Written here because x/image/draw has no
// grey-to-grey path and calls the kernel's function through a pointer for
// every tap of every pixel: drawing the pages of the visual zone took more
// CPU than anything else the visual zone did in Go, half of the process's
// CPU on six review cases of independently generated photos, while
// Tesseract itself ran in other processes (docs/performance.md). The
// arithmetic is the library's, in the same order, so that the pages, and
// what Tesseract reads on them, do not change.
func transformGray(dst *image.Gray, s2d f64.Aff3, src *image.Gray, sr image.Rectangle) {
	dr := transformRect(&s2d, &sr)
	adr := dst.Bounds().Intersect(dr)
	if adr.Empty() || sr.Empty() {
		return
	}
	d2s := invert(&s2d)
	// The library's bias keeps source coordinates non-negative, so that
	// int() rounds down; kept for the same rounding.
	bias := transformRect(&d2s, &adr).Min
	bias.X--
	bias.Y--
	d2s[2] -= float64(bias.X)
	d2s[5] -= float64(bias.Y)
	adr = adr.Sub(dr.Min)
	xscale := math.Max(math.Abs(d2s[0]), math.Abs(d2s[1]))
	yscale := math.Max(math.Abs(d2s[3]), math.Abs(d2s[4]))
	// Shrinking broadens the kernel so that every source pixel counts.
	xHalfWidth, xArgScale := 1.0, 1.0
	if xscale > 1 {
		xHalfWidth, xArgScale = xscale, 1/xscale
	}
	yHalfWidth, yArgScale := 1.0, 1.0
	if yscale > 1 {
		yHalfWidth, yArgScale = yscale, 1/yscale
	}
	xWeights := make([]float64, 1+2*int(math.Ceil(xHalfWidth)))
	yWeights := make([]float64, 1+2*int(math.Ceil(yHalfWidth)))
	for dy := adr.Min.Y; dy < adr.Max.Y; dy++ {
		dyf := float64(dr.Min.Y+dy) + 0.5
		d := (dr.Min.Y+dy-dst.Rect.Min.Y)*dst.Stride + (dr.Min.X + adr.Min.X - dst.Rect.Min.X)
		for dx := adr.Min.X; dx < adr.Max.X; dx, d = dx+1, d+1 {
			dxf := float64(dr.Min.X+dx) + 0.5
			sx := float64(d2s[0]*dxf) + float64(d2s[1]*dyf) + d2s[2]
			sy := float64(d2s[3]*dxf) + float64(d2s[4]*dyf) + d2s[5]
			if !(image.Point{int(sx) + bias.X, int(sy) + bias.Y}).In(sr) {
				continue
			}
			ix, jx := tentWeights(xWeights, sx+float64(bias.X)-0.5, xHalfWidth, xArgScale, sr.Min.X, sr.Max.X)
			iy, jy := tentWeights(yWeights, sy+float64(bias.Y)-0.5, yHalfWidth, yArgScale, sr.Min.Y, sr.Max.Y)
			var p float64
			for ky := iy; ky < jy; ky++ {
				yw := yWeights[ky-iy]
				if yw == 0 {
					continue
				}
				row := (ky-src.Rect.Min.Y)*src.Stride - src.Rect.Min.X
				for kx := ix; kx < jx; kx++ {
					if w := xWeights[kx-ix] * yw; w != 0 {
						p += float64(float64(uint32(src.Pix[row+kx])*0x101) * w)
					}
				}
			}
			// The library's 16-bit value, rounded, then its high byte.
			v := int32(p + 0.5)
			dst.Pix[d] = uint8(min(max(v, 0), 0xffff) >> 8)
		}
	}
}

// tentWeights fills w with the tent kernel's weights, normalised, of the
// source pixels around s (in pixel centres' coordinates) within half of
// it and within [lo, hi), as x/image/draw computes them, and returns the
// pixels' range [i, j).
func tentWeights(w []float64, s, half, argScale float64, lo, hi int) (int, int) {
	i := max(floor(s-half), lo)
	j := min(ceil(s+half), hi)
	ws := w[:j-i]
	total := 0.0
	for k := range ws {
		ws[k] = 0
		if t := math.Abs((s - float64(k+i)) * argScale); t < 1 {
			ws[k] = 1 - t
		}
		total += ws[k]
	}
	for k := range ws {
		ws[k] /= total
	}
	return i, j
}

// transformRect is the bounding box of sr mapped by s2d, as x/image/draw
// computes it.
func transformRect(s2d *f64.Aff3, sr *image.Rectangle) image.Rectangle {
	var dr image.Rectangle
	for i, p := range [...]image.Point{sr.Min, {sr.Max.X, sr.Min.Y}, {sr.Min.X, sr.Max.Y}, sr.Max} {
		sxf, syf := float64(p.X), float64(p.Y)
		dx := int(math.Floor(float64(s2d[0]*sxf) + float64(s2d[1]*syf) + s2d[2]))
		dy := int(math.Floor(float64(s2d[3]*sxf) + float64(s2d[4]*syf) + s2d[5]))
		if i == 0 {
			dr = image.Rect(dx, dy, dx+1, dy+1)
			continue
		}
		dr.Min.X, dr.Max.X = min(dr.Min.X, dx), max(dr.Max.X, dx+1)
		dr.Min.Y, dr.Max.Y = min(dr.Min.Y, dy), max(dr.Max.Y, dy+1)
	}
	return dr
}

// invert is the inverse of the affine map m, as x/image/draw computes it.
func invert(m *f64.Aff3) f64.Aff3 {
	m00, m01 := m[4], -m[1]
	m02 := float64(m[5]*m[1]) - float64(m[4]*m[2])
	m10, m11 := -m[3], m[0]
	m12 := float64(m[3]*m[2]) - float64(m[5]*m[0])
	det := float64(m00*m11) - float64(m10*m01)
	return f64.Aff3{m00 / det, m01 / det, m02 / det, m10 / det, m11 / det, m12 / det}
}

// floor and ceil are math.Floor and math.Ceil for the coordinates of a
// page (far below 2⁵³), without a call: tentWeights runs twice for each
// pixel of every page drawn through the kernel, and without the calls a
// page is drawn a quarter faster (BenchmarkPrepareKernel).
func floor(x float64) int {
	i := int(x)
	if float64(i) > x {
		i--
	}
	return i
}

func ceil(x float64) int {
	i := int(x)
	if float64(i) < x {
		i++
	}
	return i
}
