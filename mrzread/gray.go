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
// outside the image. Within it x and y are at least -0.5, where
// truncation gives math.Floor's value except on [-0.5, 0): levelling
// and resampling call this for every pixel they draw, and math.Floor is
// a call.
func (g *gray) bilinear(x, y float64) (float64, bool) {
	x -= 0.5
	y -= 0.5
	if x < -0.5 || y < -0.5 || x > float64(g.w)-0.5 || y > float64(g.h)-0.5 {
		return 0, false
	}
	x0, y0 := int(x), int(y)
	if x < 0 {
		x0 = -1
	}
	if y < 0 {
		y0 = -1
	}
	fx, fy := x-float64(x0), y-float64(y0)
	x1, y1 := x0+1, y0+1
	x0, x1 = max(x0, 0), min(x1, g.w-1)
	y0, y1 = max(y0, 0), min(y1, g.h-1)
	r0, r1 := g.pix[y0*g.w:][:g.w], g.pix[y1*g.w:][:g.w]
	a := float64(r0[x0])
	b := float64(r0[x1])
	c := float64(r1[x0])
	d := float64(r1[x1])
	return (a*(1-fx)+b*fx)*(1-fy) + (c*(1-fx)+d*fx)*fy, true
}

// binarize marks pixels darker than their neighbourhood (window of radius
// r) by a margin: dark text on a lighter, possibly unevenly lit, ground.
//
// The margin is 15 % of the neighbourhood's mean, and at least a floor
// that follows the image: 12 grey levels on a photo of ordinary contrast,
// less on a dim, flat one (an underexposed photo whose whole range is 30
// levels has glyphs 10–15 levels darker than the paper, which a fixed 12
// breaks into pieces), and more than the pixel noise. A noisy image (low
// light amplified by the camera's gain) is smoothed first, so that the
// noise does not scatter specks that merge with the glyphs and bury the
// lines in tens of thousands of components. A pixel darker than the
// mean by less than 15 % but by more than stdK local standard deviations
// (and the floor) is kept when it is connected to one that passes the 15 %
// margin (see hysteresis): faint, soft print.
func binarize(g *gray, r int) []uint8 {
	sigma := noiseSigma(g)
	if sigma >= noisySigma {
		g = g.box3()
		// A 3×3 mean divides white noise by 3; the noise of a JPEG is
		// not white, so count on less.
		sigma /= 2
	}
	lo, hi := g.percentiles(0.02, 0.98)
	floor := uint32(math.Round(math.Max(math.Min(12, 0.12*float64(hi-lo)), 3*sigma)))
	floor = max(floor, 3)
	w, h := g.w, g.h
	integ := make([]uint32, (w+1)*(h+1))
	for y := 0; y < h; y++ {
		var sum uint32
		row, above, next := g.pix[y*w:][:w], integ[y*(w+1)+1:][:w], integ[(y+1)*(w+1)+1:][:w]
		for x, v := range row {
			sum += uint32(v)
			next[x] = above[x] + sum
		}
	}
	sd, nbx := localStd(g, integ, r)
	out := make([]uint8, w*h)
	// The rows' sums are taken from row slices of the integral image,
	// which the compiler checks once per row, not four times per pixel:
	// binarize runs on every detection and levelling, a fifth of the
	// reader's time on independently generated photos (the same
	// arithmetic, so the same result).
	for y := 0; y < h; y++ {
		y0, y1 := max(y-r, 0), min(y+r+1, h)
		top, bottom := integ[y0*(w+1):][:w+1], integ[y1*(w+1):][:w+1]
		sdRow := sd[(y/stdBlock)*nbx:][:nbx]
		pix, o := g.pix[y*w:][:w], out[y*w:][:w]
		for x, px := range pix {
			x0, x1 := max(x-r, 0), min(x+r+1, w)
			n := uint32((y1 - y0) * (x1 - x0))
			s := bottom[x1] - top[x1] - bottom[x0] + top[x0]
			v := uint32(px)
			// Not darker than the mean by the floor: never ink.
			if v*n+floor*n >= s {
				continue
			}
			// Dark when v < mean - max(floor, min(mean*0.15, stdK*std)):
			// first v*n*100 < s*85, the margin of ordinary contrast.
			if v*n*100 < s*85 {
				o[x] = 1
				continue
			}
			m := float32(s) / float32(n)
			if float32(v) < m-max(float32(floor), stdK*sdRow[x/stdBlock]) {
				o[x] = weak
			}
		}
	}
	hysteresis(out, w, h)
	return out
}

// weak marks a pixel of binarize's output that is dark enough to be part
// of a glyph but not to start one.
const weak = 2

// hysteresis keeps the weak pixels of bin (value weak) that are
// 4-connected to a strong one (value 1), marking them 1, and clears the
// others: faint strokes join the glyphs whose cores are dark, while a
// background pattern, as deep as the strokes but with no dark core,
// stays paper.
func hysteresis(bin []uint8, w, h int) {
	var stack []int32
	strong := func(i, x, y int) bool {
		return x > 0 && bin[i-1] == 1 || x+1 < w && bin[i+1] == 1 ||
			y > 0 && bin[i-w] == 1 || y+1 < h && bin[i+w] == 1
	}
	anyWeak := false
	for i, v := range bin {
		if v != weak {
			continue
		}
		anyWeak = true
		if !strong(i, i%w, i/w) {
			continue
		}
		bin[i] = 1
		stack = append(stack[:0], int32(i))
		for len(stack) > 0 {
			j := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			x, y := j%w, j/w
			if x > 0 && bin[j-1] == weak {
				bin[j-1] = 1
				stack = append(stack, int32(j-1))
			}
			if x+1 < w && bin[j+1] == weak {
				bin[j+1] = 1
				stack = append(stack, int32(j+1))
			}
			if y > 0 && bin[j-w] == weak {
				bin[j-w] = 1
				stack = append(stack, int32(j-w))
			}
			if y+1 < h && bin[j+w] == weak {
				bin[j+w] = 1
				stack = append(stack, int32(j+w))
			}
		}
	}
	if !anyWeak {
		return
	}
	for i, v := range bin {
		if v == weak {
			bin[i] = 0
		}
	}
}

// stdK: binarize's margin is at most stdK standard deviations of the
// neighbourhood. Faint print (a light printer, soft focus) on bright
// paper is darker than the paper by less than 15 % of it, and the
// relative margin alone breaks its strokes into pieces; a window holding
// glyphs has a standard deviation of about 0.4 of their depth, so the
// glyphs' cores pass. On plain paper the deviation is the paper's
// texture and noise, which then stay below the margin.
const stdK = 1.5

// stdBlock is the size of the blocks over which localStd tabulates the
// neighbourhood's standard deviation (the window is much larger).
const stdBlock = 8

// localStd returns, for every stdBlock×stdBlock block of g (row-major,
// nbx blocks a row), the standard deviation of the grey levels in the
// window of radius about r around it; integ is g's integral image.
func localStd(g *gray, integ []uint32, r int) (sd []float32, nbx int) {
	w, h := g.w, g.h
	nbx, nby := (w+stdBlock-1)/stdBlock, (h+stdBlock-1)/stdBlock
	// Sums of squares per block, then their integral over blocks.
	sq := make([]uint64, (nbx+1)*(nby+1))
	for y := 0; y < h; y++ {
		row := g.pix[y*w : (y+1)*w]
		base := (y/stdBlock + 1) * (nbx + 1)
		for x, v := range row {
			sq[base+x/stdBlock+1] += uint64(uint32(v) * uint32(v))
		}
	}
	for by := 1; by <= nby; by++ {
		for bx := 1; bx <= nbx; bx++ {
			i := by*(nbx+1) + bx
			sq[i] += sq[i-1] + sq[i-nbx-1] - sq[i-nbx-2]
		}
	}
	rb := max(1, (r+stdBlock/2)/stdBlock)
	sd = make([]float32, nbx*nby)
	for by := 0; by < nby; by++ {
		b0, b1 := max(by-rb, 0), min(by+rb+1, nby)
		y0, y1 := b0*stdBlock, min(b1*stdBlock, h)
		for bx := 0; bx < nbx; bx++ {
			a0, a1 := max(bx-rb, 0), min(bx+rb+1, nbx)
			x0, x1 := a0*stdBlock, min(a1*stdBlock, w)
			n := float64((y1 - y0) * (x1 - x0))
			s := float64(integ[y1*(w+1)+x1] - integ[y0*(w+1)+x1] - integ[y1*(w+1)+x0] + integ[y0*(w+1)+x0])
			s2 := float64(sq[b1*(nbx+1)+a1] - sq[b0*(nbx+1)+a1] - sq[b1*(nbx+1)+a0] + sq[b0*(nbx+1)+a0])
			m := s / n
			sd[by*nbx+bx] = float32(math.Sqrt(math.Max(s2/n-m*m, 0)))
		}
	}
	return sd, nbx
}

// noisySigma is the pixel noise (standard deviation, grey levels) from
// which binarize smooths an image first. Photos in ordinary light measure
// 0.6–1.8; underexposed ones brightened by the camera 5–18.
const noisySigma = 3

// percentiles returns the grey levels below which fractions a and b of
// g's pixels lie.
func (g *gray) percentiles(a, b float64) (lo, hi uint8) {
	var hist [256]int
	for _, v := range g.pix {
		hist[v]++
	}
	c, n := 0, len(g.pix)
	la, lb := -1, -1
	for k, m := range hist {
		c += m
		if la < 0 && float64(c) >= a*float64(n) {
			la = k
		}
		if lb < 0 && float64(c) >= b*float64(n) {
			lb = k
		}
	}
	return uint8(max(la, 0)), uint8(max(lb, 0))
}

// box3 returns g smoothed by a 3×3 mean (edges replicated).
func (g *gray) box3() *gray {
	w, h := g.w, g.h
	rows := make([]uint16, w*h) // horizontal sums of 3
	for y := 0; y < h; y++ {
		row := g.pix[y*w : (y+1)*w]
		out := rows[y*w : (y+1)*w]
		for x := 0; x < w; x++ {
			out[x] = uint16(row[max(x-1, 0)]) + uint16(row[x]) + uint16(row[min(x+1, w-1)])
		}
	}
	res := &gray{w: w, h: h, pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		a, b, c := rows[max(y-1, 0)*w:], rows[y*w:], rows[min(y+1, h-1)*w:]
		out := res.pix[y*w : (y+1)*w]
		for x := 0; x < w; x++ {
			out[x] = uint8((uint32(a[x]) + uint32(b[x]) + uint32(c[x]) + 4) / 9)
		}
	}
	return res
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

// noiseSigma estimates the standard deviation of pixel noise in g from
// the median absolute difference of horizontally neighbouring pixels
// (robust to edges, which are few).
func noiseSigma(g *gray) float64 {
	var hist [256]int
	n := 0
	for y := 1; y < g.h-1; y += 2 {
		row := g.pix[y*g.w:]
		for x := 1; x+1 < g.w; x += 2 {
			d := 2*int(row[x]) - int(row[x-1]) - int(row[x+1])
			if d < 0 {
				d = -d
			}
			hist[min(d, 255)]++
			n++
		}
	}
	c := 0
	for d, k := range hist {
		c += k
		if 2*c >= n {
			// For Gaussian noise of std s, 2x-a-b has std s*sqrt(6) and
			// its absolute value a median of 0.674 of that.
			return float64(d) / (0.674 * math.Sqrt(6))
		}
	}
	return 0
}
