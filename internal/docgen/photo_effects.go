package docgen

import (
	"image"
	"math"
	"math/rand/v2"
)

// bendFunc returns the bow of a page of width w (pixels) bent like an open
// booklet: a parabola, zero at both edges and ±sag·(0.4–1) at the middle
// (cylinder seen at an angle), its apex up to 15 % off centre.
func bendFunc(sag, w float64, rng *rand.Rand) func(float64) float64 {
	s := sag * (0.4 + 0.6*rng.Float64())
	if rng.IntN(2) == 0 {
		s = -s
	}
	c := w * (0.5 + 0.15*(2*rng.Float64()-1))
	return func(x float64) float64 {
		var t float64
		if x < c {
			t = (c - x) / c
		} else {
			t = (x - c) / (w - c)
		}
		return s * (1 - t*t)
	}
}

// addShadow darkens one side of a soft-edged line across the document by
// 25–60 % (a hand or the phone between the light and the document).
func addShadow(img *image.RGBA, corners, mrzQ [4]Point, rng *rand.Rand) {
	docW := math.Hypot(corners[1].X-corners[0].X, corners[1].Y-corners[0].Y)
	var px, py float64
	if rng.IntN(2) == 0 { // through the MRZ
		t := rng.Float64()
		px = mrzQ[0].X + (mrzQ[1].X-mrzQ[0].X)*t
		py = mrzQ[0].Y + (mrzQ[3].Y-mrzQ[0].Y)*rng.Float64()
	} else {
		u, v := rng.Float64(), rng.Float64()
		px = corners[0].X*(1-u)*(1-v) + corners[1].X*u*(1-v) + corners[2].X*u*v + corners[3].X*(1-u)*v
		py = corners[0].Y*(1-u)*(1-v) + corners[1].Y*u*(1-v) + corners[2].Y*u*v + corners[3].Y*(1-u)*v
	}
	th := rng.Float64() * 2 * math.Pi
	nx, ny := math.Cos(th), math.Sin(th)
	soft := docW * (0.01 + 0.05*rng.Float64())
	depth := 0.25 + 0.35*rng.Float64()
	// A slight curve on the shadow's edge.
	curve := (2*rng.Float64() - 1) * 0.3 / docW
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			dx, dy := float64(x)-px, float64(y)-py
			along := -dx*ny + dy*nx
			d := dx*nx + dy*ny + curve*along*along
			s := smooth(-soft, soft, d)
			if s <= 0 {
				continue
			}
			g := 1 - depth*s
			i := img.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				img.Pix[i+k] = uint8(float64(img.Pix[i+k]) * g)
			}
		}
	}
}

// barrel applies lens barrel distortion k: the output pixel at radius r
// (fraction of the half-diagonal from the centre) shows the scene at
// r·(1 + k r²).
func barrel(img *image.RGBA, k float64) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewRGBA(b)
	cx, cy := float64(w)/2, float64(h)/2
	rn := math.Hypot(cx, cy)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := (float64(x)+0.5-cx)/rn, (float64(y)+0.5-cy)/rn
			f := 1 + k*(dx*dx+dy*dy)
			var acc [4]float64
			bilinearRGBA(img, cx+dx*f*rn-0.5, cy+dy*f*rn-0.5, &acc)
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = clamp8(acc[0]), clamp8(acc[1]), clamp8(acc[2]), 255
		}
	}
	return out
}

// barrelPoint maps a scene point to where barrel(·, k) shows it (the
// inverse of r → r(1 + k r²), by fixed-point iteration).
func barrelPoint(p Point, k float64, w, h int) Point {
	cx, cy := float64(w)/2, float64(h)/2
	rn := math.Hypot(cx, cy)
	sx, sy := (p.X-cx)/rn, (p.Y-cy)/rn
	dx, dy := sx, sy
	for i := 0; i < 30; i++ {
		f := 1 + k*(dx*dx+dy*dy)
		dx, dy = sx/f, sy/f
	}
	return Point{cx + dx*rn, cy + dy*rn}
}

// motionBlur averages img along a straight path of length l pixels at
// angle a (integer-offset taps).
func motionBlur(img *image.RGBA, l, a float64) {
	n := max(int(math.Ceil(l)), 1) + 1
	type off struct{ dx, dy int }
	var offs []off
	for i := 0; i < n; i++ {
		t := (float64(i)/float64(n-1) - 0.5) * l
		offs = append(offs, off{int(math.Round(t * math.Cos(a))), int(math.Round(t * math.Sin(a)))})
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	src := make([]uint8, len(img.Pix))
	copy(src, img.Pix)
	inv := 1 / float64(len(offs))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var acc [3]float64
			for _, o := range offs {
				xx, yy := min(max(x+o.dx, 0), w-1), min(max(y+o.dy, 0), h-1)
				j := yy*img.Stride + xx*4
				acc[0] += float64(src[j])
				acc[1] += float64(src[j+1])
				acc[2] += float64(src[j+2])
			}
			i := y*img.Stride + x*4
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = clamp8(acc[0]*inv), clamp8(acc[1]*inv), clamp8(acc[2]*inv)
		}
	}
}

// lowLight underexposes img to a light level of 12–33 %, adds shot noise
// (variance proportional to the signal) and read noise of std readNoise
// (at least 2 levels) at that level, quantises, and applies a gain of 1 to
// 0.9/level (auto exposure), amplifying the noise.
func lowLight(img *image.RGBA, readNoise float64, rng *rand.Rand) {
	level := 0.12 + 0.21*rng.Float64()
	gain := 1 + (0.9/level-1)*rng.Float64()
	readNoise = math.Max(readNoise, 2)
	var table [1 << 12]float64
	for i := range table {
		table[i] = rng.NormFloat64()
	}
	const mask = len(table) - 1
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r := rng.Uint64()
			i := img.PixOffset(x, y)
			lum := table[int(r)&mask]
			for k := 0; k < 3; k++ {
				v := float64(img.Pix[i+k]) * level
				// Shot noise: about 1 level of std at a signal of 4.
				std := math.Sqrt(v/4 + readNoise*readNoise*0.25)
				v += std * (0.8*lum + 0.6*table[int(r>>(12*(k+1)))&mask])
				v = math.Round(math.Max(0, math.Min(255, v)))
				img.Pix[i+k] = clamp8(v * gain)
			}
		}
	}
}

// denoise smears img with an edge-preserving (bilateral, 5×5) filter of
// strength s (0–1), weights from the luminance difference, as phone noise
// reduction does: noise and faint detail go, strong edges stay.
func denoise(img *image.RGBA, s float64) {
	s = math.Max(0, math.Min(1, s))
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	src := make([]uint8, len(img.Pix))
	copy(src, img.Pix)
	lum := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			j := y*img.Stride + x*4
			lum[y*w+x] = 0.3*float32(src[j]) + 0.59*float32(src[j+1]) + 0.11*float32(src[j+2])
		}
	}
	rangeSigma := 8 + 22*s
	var rw [256]float32
	for d := range rw {
		rw[d] = float32(math.Exp(-float64(d*d) / (2 * rangeSigma * rangeSigma)))
	}
	var sw [25]float32
	for j := 0; j < 25; j++ {
		dx, dy := float64(j%5-2), float64(j/5-2)
		sw[j] = float32(math.Exp(-(dx*dx + dy*dy) / (2 * 1.5 * 1.5)))
	}
	mixS := float32(0.5 + 0.5*s)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := lum[y*w+x]
			var acc [3]float32
			var ws float32
			for j := 0; j < 25; j++ {
				xx, yy := min(max(x+j%5-2, 0), w-1), min(max(y+j/5-2, 0), h-1)
				d := int(math.Abs(float64(lum[yy*w+xx] - c)))
				wt := sw[j] * rw[min(d, 255)]
				k := yy*img.Stride + xx*4
				acc[0] += wt * float32(src[k])
				acc[1] += wt * float32(src[k+1])
				acc[2] += wt * float32(src[k+2])
				ws += wt
			}
			i := y*img.Stride + x*4
			for k := 0; k < 3; k++ {
				v := float32(src[i+k])*(1-mixS) + acc[k]/ws*mixS
				img.Pix[i+k] = clamp8(float64(v))
			}
		}
	}
}

// unsharp sharpens img by amount·(img − blur(img, sigma)): the halos of
// phone sharpening.
func unsharp(img *image.RGBA, amount, sigma float64) {
	blurred := image.NewRGBA(img.Bounds())
	copy(blurred.Pix, img.Pix)
	gaussianBlur(blurred, sigma)
	for i := 0; i < len(img.Pix); i += 4 {
		for k := 0; k < 3; k++ {
			v := float64(img.Pix[i+k])
			img.Pix[i+k] = clamp8(v + amount*(v-float64(blurred.Pix[i+k])))
		}
	}
}
