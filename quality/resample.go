package quality

import (
	"image"
	"image/color"
	"math"
)

// plane is a single-channel float image, row-major.
type plane struct {
	w, h int
	pix  []float32
}

// axis maps each source pixel of one dimension to the (at most two)
// destination pixels its footprint overlaps when n pixels are shrunk to m
// (m ≤ n): source j covers [j·m/n, (j+1)·m/n) in destination coordinates
// and gives destination d0[j] the weight w0[j] and d0[j]+1 the weight
// w1[j]. The weights of each destination pixel sum to 1 (area averaging).
type axis struct {
	d0     []int32
	w0, w1 []float32
}

func newAxis(n, m int) axis {
	a := axis{d0: make([]int32, n), w0: make([]float32, n), w1: make([]float32, n)}
	s := float64(m) / float64(n)
	for j := 0; j < n; j++ {
		lo, hi := float64(j)*s, float64(j+1)*s
		d := min(int(lo), m-1)
		a.d0[j] = int32(d)
		if edge := float64(d + 1); hi > edge && d+1 < m {
			a.w0[j], a.w1[j] = float32(edge-lo), float32(hi-edge)
		} else {
			a.w0[j] = float32(hi - lo)
		}
	}
	return a
}

// workingCopy returns the luminance and the per-pixel min(R,G,B) of region
// r of img, shrunk by area averaging so that its long side is at most
// maxSide. Rows are read and shrunk one at a time: memory is the output.
func workingCopy(img image.Image, r image.Rectangle, maxSide int) (lum, white plane) {
	rw, rh := r.Dx(), r.Dy()
	s := math.Min(1, float64(maxSide)/float64(max(rw, rh)))
	mw, mh := max(1, int(math.Round(float64(rw)*s))), max(1, int(math.Round(float64(rh)*s)))
	lum = plane{mw, mh, make([]float32, mw*mh)}
	white = plane{mw, mh, make([]float32, mw*mh)}
	ax, ay := newAxis(rw, mw), newAxis(rh, mh)
	rowL, rowW := make([]float32, rw), make([]float32, rw)
	hL, hW := rowL, rowW
	if mw != rw {
		hL, hW = make([]float32, mw), make([]float32, mw)
	}
	for y := 0; y < rh; y++ {
		readRow(img, r.Min.X, r.Max.X, r.Min.Y+y, rowL, rowW)
		if mw != rw {
			clear(hL)
			clear(hW)
			for j := 0; j < rw; j++ {
				d, w0, w1 := ax.d0[j], ax.w0[j], ax.w1[j]
				hL[d] += w0 * rowL[j]
				hW[d] += w0 * rowW[j]
				if w1 != 0 {
					hL[d+1] += w1 * rowL[j]
					hW[d+1] += w1 * rowW[j]
				}
			}
		}
		d := int(ay.d0[y])
		addScaled(lum.pix[d*mw:(d+1)*mw], hL, ay.w0[y])
		addScaled(white.pix[d*mw:(d+1)*mw], hW, ay.w0[y])
		if w1 := ay.w1[y]; w1 != 0 {
			addScaled(lum.pix[(d+1)*mw:(d+2)*mw], hL, w1)
			addScaled(white.pix[(d+1)*mw:(d+2)*mw], hW, w1)
		}
	}
	return lum, white
}

func addScaled(dst, src []float32, w float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] += w * v
	}
}

// luma is BT.601 luma, as JPEG's Y.
func luma(r, g, b uint8) float32 {
	return 0.299*float32(r) + 0.587*float32(g) + 0.114*float32(b)
}

// readRow reads pixels [x0, x1) of row y into lum (luma) and white
// (min(R,G,B)), with fast paths for the types image decoders return.
func readRow(img image.Image, x0, x1, y int, lum, white []float32) {
	n := x1 - x0
	switch m := img.(type) {
	case *image.YCbCr:
		yi := m.YOffset(x0, y)
		for i := 0; i < n; i++ {
			yy := m.Y[yi+i]
			lum[i] = float32(yy)
			if yy < GlareLevel-20 {
				// min(R,G,B) ≤ luma: far below the glare level the
				// exact value does not matter and costs a conversion.
				white[i] = float32(yy)
				continue
			}
			ci := m.COffset(x0+i, y)
			r, g, b := color.YCbCrToRGB(yy, m.Cb[ci], m.Cr[ci])
			white[i] = float32(min(r, g, b))
		}
	case *image.RGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for i := 0; i < n; i++ {
			r, g, b := p[4*i], p[4*i+1], p[4*i+2]
			lum[i], white[i] = luma(r, g, b), float32(min(r, g, b))
		}
	case *image.NRGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for i := 0; i < n; i++ {
			r, g, b := p[4*i], p[4*i+1], p[4*i+2]
			lum[i], white[i] = luma(r, g, b), float32(min(r, g, b))
		}
	case *image.Gray:
		p := m.Pix[m.PixOffset(x0, y):]
		for i := 0; i < n; i++ {
			lum[i], white[i] = float32(p[i]), float32(p[i])
		}
	default:
		for i := 0; i < n; i++ {
			r, g, b := rgb8(img.At(x0+i, y))
			lum[i], white[i] = luma(r, g, b), float32(min(r, g, b))
		}
	}
}

// sampler returns a function reading the RGB of one pixel of img, without
// the allocation of img.At for the types image decoders return.
func sampler(img image.Image) func(x, y int) (r, g, b uint8) {
	switch m := img.(type) {
	case *image.YCbCr:
		return func(x, y int) (uint8, uint8, uint8) {
			ci := m.COffset(x, y)
			return color.YCbCrToRGB(m.Y[m.YOffset(x, y)], m.Cb[ci], m.Cr[ci])
		}
	case *image.RGBA:
		return func(x, y int) (uint8, uint8, uint8) {
			p := m.Pix[m.PixOffset(x, y):]
			return p[0], p[1], p[2]
		}
	case *image.NRGBA:
		return func(x, y int) (uint8, uint8, uint8) {
			p := m.Pix[m.PixOffset(x, y):]
			return p[0], p[1], p[2]
		}
	case *image.Gray:
		return func(x, y int) (uint8, uint8, uint8) {
			v := m.Pix[m.PixOffset(x, y)]
			return v, v, v
		}
	}
	return func(x, y int) (uint8, uint8, uint8) { return rgb8(img.At(x, y)) }
}

func rgb8(c color.Color) (r, g, b uint8) {
	if c, ok := c.(color.YCbCr); ok {
		return color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
	}
	r32, g32, b32, _ := c.RGBA()
	return uint8(r32 >> 8), uint8(g32 >> 8), uint8(b32 >> 8)
}

// gaussian returns p smoothed by a separable Gaussian of standard
// deviation sigma (radius 2σ, edges clamped).
func gaussian(p plane, sigma float64) plane {
	r := max(1, int(math.Ceil(2*sigma)))
	k := make([]float32, 2*r+1)
	var sum float64
	for i := range k {
		d := float64(i - r)
		v := math.Exp(-d * d / (2 * sigma * sigma))
		k[i] = float32(v)
		sum += v
	}
	for i := range k {
		k[i] /= float32(sum)
	}
	w, h := p.w, p.h
	tmp := make([]float32, w*h)
	for y := 0; y < h; y++ {
		src, dst := p.pix[y*w:(y+1)*w], tmp[y*w:(y+1)*w]
		for x := 0; x < w; x++ {
			var s float32
			if x >= r && x+r < w {
				for i, kv := range k {
					s += kv * src[x+i-r]
				}
			} else {
				for i, kv := range k {
					s += kv * src[min(max(x+i-r, 0), w-1)]
				}
			}
			dst[x] = s
		}
	}
	out := plane{w, h, make([]float32, w*h)}
	for y := 0; y < h; y++ {
		dst := out.pix[y*w : (y+1)*w]
		for i, kv := range k {
			src := tmp[min(max(y+i-r, 0), h-1)*w:][:w]
			for x, v := range src {
				dst[x] += kv * v
			}
		}
	}
	return out
}
