package app

import (
	"image"
	"math"

	xdraw "golang.org/x/image/draw"
	"gonum.org/v1/gonum/mat"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread"
	"github.com/verifyd/verifyd/quality"
)

// rectifiedSide is the long side of a document warped upright for
// reading: the enlargement's 1400 px, at which an ID-1 card's or a
// passport page's MRZ glyphs are some 25 px tall. Larger is not better:
// above ~1700 px mrzread detects on a halved image, and a passport page
// warped to 2000 px, read perfectly at 1400, lost its first line.
const rectifiedSide = enlargedSide

// readRectified reads the MRZ of the document warped to an upright
// rectangle from its outline's corners (quality.FindDocumentQuad), with
// the zone's corners mapped back to the photo. mrzread straightens a
// zone from its own lines; a zone seen at an angle and in perspective
// at once (a passport page turned 14° on wood grain, one held at a slant
// so its far edge is a quarter shorter) defeated that on independently
// generated photos while every glyph was legible: the document's outline
// is a longer, surer baseline than the zone's two lines.
func readRectified(img image.Image, hint mrz.Format) (mrzread.Result, bool) {
	q, ok := quality.FindDocumentQuad(img)
	if !ok {
		return mrzread.Result{}, false
	}
	dist := func(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }
	w := max(dist(q[0], q[1]), dist(q[3], q[2]))
	h := max(dist(q[0], q[3]), dist(q[1], q[2]))
	if w < 8 || h < 8 {
		return mrzread.Result{}, false
	}
	// Perspective shortens the far edge, so the edges' lengths do not
	// give the document's proportions (a page warped to them was a
	// sixth too flat and its first line was lost); the ICAO sizes do:
	// ID-1 cards (TD1) 85.6 × 54 mm, TD2 and passport pages (TD3)
	// 105 × 74 and 125 × 88 mm.
	var r mrzread.Result
	var rhm hom // the map of r's warp
	read := false
	src := luminance(img)
	for _, aspect := range []float64{125.0 / 88, 85.6 / 54} {
		dw, dh := rectifiedSide, int(math.Round(rectifiedSide/aspect))
		if h > w {
			dw, dh = dh, dw
		}
		to := [4][2]float64{{0, 0}, {float64(dw), 0}, {float64(dw), float64(dh)}, {0, float64(dh)}}
		hm, ok := homography(to, q)
		if !ok {
			return mrzread.Result{}, false
		}
		rr, err := mrzread.Read(warpGray(src, hm, dw, dh), hint)
		if err != nil {
			continue
		}
		r, rhm, read = rr, hm, true
		if usable(r) {
			break
		}
	}
	if !read {
		return mrzread.Result{}, false
	}
	for i, p := range r.Quad {
		x, y := rhm.apply(float64(p.X), float64(p.Y))
		r.Quad[i] = image.Pt(int(math.Round(x)), int(math.Round(y)))
	}
	r.Band = image.Rectangle{r.Quad[0], r.Quad[0]}
	for _, p := range r.Quad[1:] {
		r.Band = r.Band.Union(image.Rectangle{p, p})
	}
	// The zone's angle in the photo: its bottom edge's.
	bl, br := r.Quad[3], r.Quad[2]
	r.Rotation, r.Skew = 0, math.Atan2(float64(br.Y-bl.Y), float64(br.X-bl.X))*180/math.Pi
	return r, true
}

// hom is a plane projective map, row-major with h[8] = 1.
type hom [9]float64

func (h hom) apply(x, y float64) (float64, float64) {
	d := h[6]*x + h[7]*y + h[8]
	return (h[0]*x + h[1]*y + h[2]) / d, (h[3]*x + h[4]*y + h[5]) / d
}

// homography is the projective map taking the four points from onto to.
func homography(from, to [4][2]float64) (hom, bool) {
	a := mat.NewDense(8, 8, nil)
	b := mat.NewVecDense(8, nil)
	for i := range 4 {
		x, y, u, v := from[i][0], from[i][1], to[i][0], to[i][1]
		a.SetRow(2*i, []float64{x, y, 1, 0, 0, 0, -u * x, -u * y})
		a.SetRow(2*i+1, []float64{0, 0, 0, x, y, 1, -v * x, -v * y})
		b.SetVec(2*i, u)
		b.SetVec(2*i+1, v)
	}
	var s mat.VecDense
	if err := s.SolveVec(a, b); err != nil {
		return hom{}, false
	}
	var h hom
	for i := range 8 {
		h[i] = s.AtVec(i)
	}
	h[8] = 1
	return h, true
}

// luminance returns img's grey levels: a JPEG's Y plane as it is, other
// images converted.
func luminance(img image.Image) *image.Gray {
	switch m := img.(type) {
	case *image.Gray:
		return m
	case *image.YCbCr:
		b := m.Bounds()
		return &image.Gray{Pix: m.Y[m.YOffset(b.Min.X, b.Min.Y):], Stride: m.YStride, Rect: b}
	}
	b := img.Bounds()
	g := image.NewGray(b)
	xdraw.Draw(g, b, img, b.Min, xdraw.Src)
	return g
}

// warpGray samples src bilinearly at h(x, y) for every pixel of a w×h
// image; outside src is white, as paper.
func warpGray(src *image.Gray, hm hom, w, h int) *image.Gray {
	dst := image.NewGray(image.Rect(0, 0, w, h))
	b := src.Bounds()
	for y := range h {
		for x := range w {
			sx, sy := hm.apply(float64(x)+0.5, float64(y)+0.5)
			sx, sy = sx-0.5, sy-0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			if x0 < b.Min.X || y0 < b.Min.Y || x0+1 >= b.Max.X || y0+1 >= b.Max.Y {
				dst.Pix[y*dst.Stride+x] = 255
				continue
			}
			fx, fy := sx-float64(x0), sy-float64(y0)
			i := src.PixOffset(x0, y0)
			p00, p10 := float64(src.Pix[i]), float64(src.Pix[i+1])
			p01, p11 := float64(src.Pix[i+src.Stride]), float64(src.Pix[i+src.Stride+1])
			v := (p00*(1-fx)+p10*fx)*(1-fy) + (p01*(1-fx)+p11*fx)*fy
			dst.Pix[y*dst.Stride+x] = uint8(v + 0.5)
		}
	}
	return dst
}
