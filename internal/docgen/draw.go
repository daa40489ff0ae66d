package docgen

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// Printed (non-MRZ) text uses the Go fonts, which are compiled in.
var (
	goOnce            sync.Once
	goRegular, goBold *sfnt.Font
	goFaceMu          sync.Mutex
	goFaces           = map[goFaceKey]font.Face{}
	errGoFont         error
)

// kappa places the control points of a cubic approximating a quarter circle.
var kappa = 4 * (math.Sqrt2 - 1) / 3

type goFaceKey struct {
	bold bool
	px   int
}

// textFace returns a Go font face whose em is px pixels.
func textFace(bold bool, px float64) font.Face {
	goOnce.Do(func() {
		if goRegular, errGoFont = opentype.Parse(goregular.TTF); errGoFont != nil {
			return
		}
		goBold, errGoFont = opentype.Parse(gobold.TTF)
	})
	if errGoFont != nil {
		panic(errGoFont) // compiled-in font data: cannot fail
	}
	k := goFaceKey{bold, int(math.Round(px))}
	if k.px < 4 {
		k.px = 4
	}
	goFaceMu.Lock()
	defer goFaceMu.Unlock()
	if f, ok := goFaces[k]; ok {
		return f
	}
	f := goRegular
	if bold {
		f = goBold
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: float64(k.px), DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic(err)
	}
	goFaces[k] = face
	return face
}

// drawText draws s with its baseline starting at (x, y). Faces are shared
// and font.Face is not safe for concurrent use, so drawing is serialised.
func drawText(dst draw.Image, face font.Face, x, y float64, s string, c color.Color) float64 {
	goFaceMu.Lock()
	defer goFaceMu.Unlock()
	d := font.Drawer{Dst: dst, Src: image.NewUniform(c), Face: face,
		Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(y * 64)}}
	d.DrawString(s)
	return float64(d.Dot.X) / 64
}

// shape accumulates a path in image coordinates and fills it.
type shape struct {
	z    *vector.Rasterizer
	r    image.Rectangle
	used bool
}

func newShape(r image.Rectangle) *shape {
	return &shape{z: vector.NewRasterizer(max(r.Dx(), 1), max(r.Dy(), 1)), r: r}
}

func (s *shape) pt(x, y float64) (float32, float32) {
	return float32(x - float64(s.r.Min.X)), float32(y - float64(s.r.Min.Y))
}

func (s *shape) moveTo(x, y float64) { s.used = true; s.z.MoveTo(s.pt(x, y)) }
func (s *shape) lineTo(x, y float64) { s.z.LineTo(s.pt(x, y)) }
func (s *shape) cubeTo(ax, ay, bx, by, cx, cy float64) {
	x1, y1 := s.pt(ax, ay)
	x2, y2 := s.pt(bx, by)
	x3, y3 := s.pt(cx, cy)
	s.z.CubeTo(x1, y1, x2, y2, x3, y3)
}
func (s *shape) close() { s.z.ClosePath() }

// ellipse adds an axis-aligned ellipse.
func (s *shape) ellipse(cx, cy, rx, ry float64) {
	kx, ky := kappa*rx, kappa*ry
	s.moveTo(cx+rx, cy)
	s.cubeTo(cx+rx, cy+ky, cx+kx, cy+ry, cx, cy+ry)
	s.cubeTo(cx-kx, cy+ry, cx-rx, cy+ky, cx-rx, cy)
	s.cubeTo(cx-rx, cy-ky, cx-kx, cy-ry, cx, cy-ry)
	s.cubeTo(cx+kx, cy-ry, cx+rx, cy-ky, cx+rx, cy)
	s.close()
}

// roundRect adds a rectangle with rounded corners of radius rad.
func (s *shape) roundRect(x0, y0, x1, y1, rad float64) {
	k := kappa * rad
	s.moveTo(x0+rad, y0)
	s.lineTo(x1-rad, y0)
	s.cubeTo(x1-rad+k, y0, x1, y0+rad-k, x1, y0+rad)
	s.lineTo(x1, y1-rad)
	s.cubeTo(x1, y1-rad+k, x1-rad+k, y1, x1-rad, y1)
	s.lineTo(x0+rad, y1)
	s.cubeTo(x0+rad-k, y1, x0, y1-rad+k, x0, y1-rad)
	s.lineTo(x0, y0+rad)
	s.cubeTo(x0, y0+rad-k, x0+rad-k, y0, x0+rad, y0)
	s.close()
}

// fill paints the accumulated path with c over dst.
func (s *shape) fill(dst draw.Image, c color.Color) {
	if !s.used {
		return
	}
	s.z.DrawOp = draw.Over
	s.z.Draw(dst, s.r, image.NewUniform(c), image.Point{})
}

func fillEllipse(dst draw.Image, cx, cy, rx, ry float64, c color.Color) {
	r := image.Rect(int(cx-rx)-1, int(cy-ry)-1, int(cx+rx)+2, int(cy+ry)+2).Intersect(dst.Bounds())
	if r.Empty() {
		return
	}
	s := newShape(r)
	s.ellipse(cx, cy, rx, ry)
	s.fill(dst, c)
}

func fillRect(dst draw.Image, x0, y0, x1, y1 float64, c color.Color) {
	r := image.Rect(int(x0)-1, int(y0)-1, int(x1)+2, int(y1)+2).Intersect(dst.Bounds())
	if r.Empty() {
		return
	}
	s := newShape(r)
	s.moveTo(x0, y0)
	s.lineTo(x1, y0)
	s.lineTo(x1, y1)
	s.lineTo(x0, y1)
	s.close()
	s.fill(dst, c)
}

// strokeCurve draws a cubic Bézier of the given width as a chain of dots.
func strokeCurve(dst draw.Image, p [4][2]float64, width float64, c color.Color) {
	minX, minY, maxX, maxY := p[0][0], p[0][1], p[0][0], p[0][1]
	for _, q := range p {
		minX, maxX = math.Min(minX, q[0]), math.Max(maxX, q[0])
		minY, maxY = math.Min(minY, q[1]), math.Max(maxY, q[1])
	}
	r := image.Rect(int(minX-width)-1, int(minY-width)-1, int(maxX+width)+2, int(maxY+width)+2).Intersect(dst.Bounds())
	if r.Empty() {
		return
	}
	s := newShape(r)
	length := 0.0
	for i := 1; i < 4; i++ {
		length += math.Hypot(p[i][0]-p[i-1][0], p[i][1]-p[i-1][1])
	}
	n := int(length/(width*0.5)) + 2
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		u := 1 - t
		x := u*u*u*p[0][0] + 3*u*u*t*p[1][0] + 3*u*t*t*p[2][0] + t*t*t*p[3][0]
		y := u*u*u*p[0][1] + 3*u*u*t*p[1][1] + 3*u*t*t*p[2][1] + t*t*t*p[3][1]
		s.ellipse(x, y, width/2, width/2)
	}
	s.fill(dst, c)
}

func clamp8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

func mix(a, b color.RGBA, t float64) color.RGBA {
	return color.RGBA{
		clamp8(float64(a.R)*(1-t) + float64(b.R)*t),
		clamp8(float64(a.G)*(1-t) + float64(b.G)*t),
		clamp8(float64(a.B)*(1-t) + float64(b.B)*t),
		255,
	}
}

// hsl converts hue (degrees), saturation and lightness (0–1) to RGB.
func hsl(h, s, l float64) color.RGBA {
	h = math.Mod(h, 360)
	if h < 0 {
		h += 360
	}
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := l - c/2
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	return color.RGBA{clamp8((r + m) * 255), clamp8((g + m) * 255), clamp8((b + m) * 255), 255}
}
