package mrzocr

import (
	"image"
	"image/draw"
	"math"
)

// squareToQuad is the projective map of the unit square onto a
// quadrilateral (top-left, top-right, bottom-right, bottom-left):
// Heckbert's closed form.
type squareToQuad [9]float64

func newSquareToQuad(q [4][2]float64) squareToQuad {
	x0, y0 := q[0][0], q[0][1]
	x1, y1 := q[1][0], q[1][1]
	x2, y2 := q[2][0], q[2][1]
	x3, y3 := q[3][0], q[3][1]
	sx, sy := x0-x1+x2-x3, y0-y1+y2-y3
	if math.Abs(sx) < 1e-9 && math.Abs(sy) < 1e-9 {
		return squareToQuad{x1 - x0, x3 - x0, x0, y1 - y0, y3 - y0, y0, 0, 0, 1}
	}
	dx1, dx2, dy1, dy2 := x1-x2, x3-x2, y1-y2, y3-y2
	den := dx1*dy2 - dx2*dy1
	if math.Abs(den) < 1e-9 {
		return squareToQuad{x1 - x0, x3 - x0, x0, y1 - y0, y3 - y0, y0, 0, 0, 1}
	}
	g := (sx*dy2 - dx2*sy) / den
	h := (dx1*sy - sx*dy1) / den
	return squareToQuad{x1 - x0 + g*x1, x3 - x0 + h*x3, x0, y1 - y0 + g*y1, y3 - y0 + h*y3, y0, g, h, 1}
}

func (m squareToQuad) apply(u, v float64) (float64, float64) {
	w := m[6]*u + m[7]*v + m[8]
	return (m[0]*u + m[1]*v + m[2]) / w, (m[3]*u + m[4]*v + m[5]) / w
}

// grayOf returns the part r of img in grey levels (a copy).
func grayOf(img image.Image, r image.Rectangle) *image.Gray {
	r = r.Intersect(img.Bounds())
	g := image.NewGray(r)
	draw.Draw(g, r, img, r.Min, draw.Src)
	return g
}

// warp samples the quadrilateral q of img, extended by mu (along the
// lines) and mv (across them) as fractions of its sides, onto an upright
// w×h image: a zone photographed at an angle comes out level and square.
// What lies outside the photo is white, as paper is.
func warp(img image.Image, q [4][2]float64, mu, mv float64, w, h int) *image.Gray {
	m := newSquareToQuad(q)
	dst := image.NewGray(image.Rect(0, 0, w, h))
	// The source pixels needed, converted to grey once.
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, uv := range [][2]float64{{-mu, -mv}, {1 + mu, -mv}, {1 + mu, 1 + mv}, {-mu, 1 + mv}} {
		x, y := m.apply(uv[0], uv[1])
		minX, minY, maxX, maxY = math.Min(minX, x), math.Min(minY, y), math.Max(maxX, x), math.Max(maxY, y)
	}
	src := grayOf(img, image.Rect(int(minX)-2, int(minY)-2, int(maxX)+3, int(maxY)+3))
	b := src.Bounds()
	if b.Empty() {
		return dst
	}
	// A destination pixel covers several source pixels when the zone is
	// shrunk: sampling at sub-pixel offsets keeps thin strokes.
	step := math.Max(math.Hypot(q[1][0]-q[0][0], q[1][1]-q[0][1])*(1+2*mu)/float64(w), 1)
	n := min(int(math.Ceil(step)), 4)
	for y := range h {
		for x := range w {
			sum, cnt := 0.0, 0
			for sy := range n {
				for sx := range n {
					u := -mu + (1+2*mu)*(float64(x)+(float64(sx)+0.5)/float64(n))/float64(w)
					v := -mv + (1+2*mv)*(float64(y)+(float64(sy)+0.5)/float64(n))/float64(h)
					px, py := m.apply(u, v)
					sum += bilinear(src, px-0.5, py-0.5)
					cnt++
				}
			}
			dst.Pix[y*dst.Stride+x] = uint8(math.Round(sum / float64(cnt)))
		}
	}
	return dst
}

// bilinear is the grey level at (x, y), pixel centres at integer
// coordinates; outside the image, white.
func bilinear(g *image.Gray, x, y float64) float64 {
	b := g.Bounds()
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	if x0 < b.Min.X || y0 < b.Min.Y || x0+1 >= b.Max.X || y0+1 >= b.Max.Y {
		if x0 < b.Min.X-1 || y0 < b.Min.Y-1 || x0 >= b.Max.X || y0 >= b.Max.Y {
			return 255
		}
		x0, y0 = min(max(x0, b.Min.X), b.Max.X-2), min(max(y0, b.Min.Y), b.Max.Y-2)
		x, y = math.Min(math.Max(x, float64(x0)), float64(x0+1)), math.Min(math.Max(y, float64(y0)), float64(y0+1))
	}
	fx, fy := x-float64(x0), y-float64(y0)
	i := (y0-b.Min.Y)*g.Stride + x0 - b.Min.X
	p00, p10 := float64(g.Pix[i]), float64(g.Pix[i+1])
	p01, p11 := float64(g.Pix[i+g.Stride]), float64(g.Pix[i+g.Stride+1])
	return (p00*(1-fx)+p10*fx)*(1-fy) + (p01*(1-fx)+p11*fx)*fy
}
