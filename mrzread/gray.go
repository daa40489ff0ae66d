package mrzread

import (
	"image"
	"image/color"
	"math"
)

// gray is an 8-bit luminance image with origin (0, 0).
type gray struct {
	w, h int
	pix  []uint8
}

func (g *gray) at(x, y int) uint8 { return g.pix[y*g.w+x] }

// toGray converts img to luminance, with fast paths for the types image
// decoders return.
func toGray(img image.Image) *gray {
	b := img.Bounds()
	g := &gray{w: b.Dx(), h: b.Dy(), pix: make([]uint8, b.Dx()*b.Dy())}
	switch m := img.(type) {
	case *image.YCbCr:
		for y := 0; y < g.h; y++ {
			off := m.YOffset(b.Min.X, b.Min.Y+y)
			copy(g.pix[y*g.w:(y+1)*g.w], m.Y[off:off+g.w])
		}
	case *image.Gray:
		for y := 0; y < g.h; y++ {
			off := m.PixOffset(b.Min.X, b.Min.Y+y)
			copy(g.pix[y*g.w:(y+1)*g.w], m.Pix[off:off+g.w])
		}
	case *image.RGBA:
		rgbLum(g, m.Pix, m.Stride, m.PixOffset(b.Min.X, b.Min.Y))
	case *image.NRGBA:
		rgbLum(g, m.Pix, m.Stride, m.PixOffset(b.Min.X, b.Min.Y))
	default:
		for y := 0; y < g.h; y++ {
			for x := 0; x < g.w; x++ {
				g.pix[y*g.w+x] = color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
			}
		}
	}
	return g
}

// rgbLum converts 4-byte-per-pixel RGB(A) rows (alpha ignored, as a photo
// is opaque) with ITU-R BT.601 weights.
func rgbLum(g *gray, pix []uint8, stride, off int) {
	for y := 0; y < g.h; y++ {
		row := pix[off+y*stride:]
		for x := 0; x < g.w; x++ {
			r, gg, b := uint32(row[4*x]), uint32(row[4*x+1]), uint32(row[4*x+2])
			g.pix[y*g.w+x] = uint8((19595*r + 38470*gg + 7471*b + 1<<15) >> 16)
		}
	}
}

// shrink returns g reduced by an integer factor f (box filter).
func (g *gray) shrink(f int) *gray {
	if f <= 1 {
		return g
	}
	out := &gray{w: g.w / f, h: g.h / f}
	out.pix = make([]uint8, out.w*out.h)
	n := uint32(f * f)
	for y := 0; y < out.h; y++ {
		for x := 0; x < out.w; x++ {
			var s uint32
			for dy := 0; dy < f; dy++ {
				row := g.pix[(y*f+dy)*g.w+x*f:]
				for dx := 0; dx < f; dx++ {
					s += uint32(row[dx])
				}
			}
			out.pix[y*out.w+x] = uint8((s + n/2) / n)
		}
	}
	return out
}

// bilinear samples g at (x, y) (pixel centres at integer+0.5); ok is false
// outside the image.
func (g *gray) bilinear(x, y float64) (float64, bool) {
	x -= 0.5
	y -= 0.5
	if x < -0.5 || y < -0.5 || x > float64(g.w)-0.5 || y > float64(g.h)-0.5 {
		return 0, false
	}
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := x-float64(x0), y-float64(y0)
	x1, y1 := x0+1, y0+1
	x0, x1 = max(x0, 0), min(x1, g.w-1)
	y0, y1 = max(y0, 0), min(y1, g.h-1)
	a := float64(g.pix[y0*g.w+x0])
	b := float64(g.pix[y0*g.w+x1])
	c := float64(g.pix[y1*g.w+x0])
	d := float64(g.pix[y1*g.w+x1])
	return (a*(1-fx)+b*fx)*(1-fy) + (c*(1-fx)+d*fx)*fy, true
}

// binarize marks pixels darker than their neighbourhood (window of radius
// r) by a margin: dark text on a lighter, possibly unevenly lit, ground.
func binarize(g *gray, r int) []uint8 {
	w, h := g.w, g.h
	integ := make([]uint32, (w+1)*(h+1))
	for y := 0; y < h; y++ {
		var row uint32
		for x := 0; x < w; x++ {
			row += uint32(g.pix[y*w+x])
			integ[(y+1)*(w+1)+x+1] = integ[y*(w+1)+x+1] + row
		}
	}
	out := make([]uint8, w*h)
	for y := 0; y < h; y++ {
		y0, y1 := max(y-r, 0), min(y+r+1, h)
		for x := 0; x < w; x++ {
			x0, x1 := max(x-r, 0), min(x+r+1, w)
			n := uint32((y1 - y0) * (x1 - x0))
			s := integ[y1*(w+1)+x1] - integ[y0*(w+1)+x1] - integ[y1*(w+1)+x0] + integ[y0*(w+1)+x0]
			// dark when v < mean - max(12, mean*0.15), i.e. v*n*100 < s*85 (or s - 12n)
			v := uint32(g.pix[y*w+x])
			t1 := s * 85 / 100
			if s > 12*n && s-12*n < t1 {
				t1 = s - 12*n
			}
			if v*n < t1 {
				out[y*w+x] = 1
			}
		}
	}
	return out
}

// rotate returns g turned clockwise by deg (0, 90, 180 or 270).
func (g *gray) rotate(deg int) *gray {
	switch deg {
	case 180:
		out := &gray{w: g.w, h: g.h, pix: make([]uint8, len(g.pix))}
		for i, v := range g.pix {
			out.pix[len(g.pix)-1-i] = v
		}
		return out
	case 90, 270:
		out := &gray{w: g.h, h: g.w, pix: make([]uint8, len(g.pix))}
		for y := 0; y < g.h; y++ {
			row := g.pix[y*g.w : (y+1)*g.w]
			for x, v := range row {
				if deg == 90 { // (x, y) goes to (h-1-y, x)
					out.pix[x*out.w+g.h-1-y] = v
				} else { // (x, y) goes to (y, w-1-x)
					out.pix[(g.w-1-x)*out.w+y] = v
				}
			}
		}
		return out
	}
	return g
}
