package mrzocr

import (
	"image"
	"math"
	"slices"
)

// normalize divides the crop by its paper's brightness and stretches the
// ink's range to black: Tesseract binarises with one global threshold,
// which loses glyphs under a shadow or in glare (measured: a TD1 whose
// middle third lay in a reflection came back as K and S). The paper's
// brightness is the largest grey level within about half a pitch (no
// glyph is wider than that around any of its pixels), smoothed over a
// pitch.
func normalize(g *image.Gray, pitch float64) *image.Gray {
	if pitch <= 0 {
		pitch = 24
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w < 4 || h < 4 {
		return g
	}
	r := max(int(0.6*pitch), 2)
	bg := boxBlur(maxFilter(g.Pix, w, h, g.Stride, r), w, h, max(int(pitch/2), 1))
	ratio := make([]float64, w*h)
	for y := range h {
		for x := range w {
			b := math.Max(float64(bg[y*w+x]), 8)
			ratio[y*w+x] = math.Min(float64(g.Pix[y*g.Stride+x])/b, 1)
		}
	}
	sorted := slices.Clone(ratio)
	slices.Sort(sorted)
	lo := sorted[len(sorted)/100]
	const hi = 0.92
	if lo > hi-0.15 {
		lo = hi - 0.15
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	for i, v := range ratio {
		out.Pix[i] = uint8(255 * math.Min(math.Max((v-lo)/(hi-lo), 0), 1))
	}
	return out
}

// maxFilter is the largest value within a (2r+1)² square around each
// pixel (separable, a monotonic queue per row and column).
func maxFilter(pix []uint8, w, h, stride, r int) []uint8 {
	tmp := make([]uint8, w*h)
	q := make([]int, 0, max(w, h))
	line := make([]uint8, max(w, h))
	out1 := make([]uint8, max(w, h))
	run := func(n int) {
		q = q[:0]
		for i := 0; i < n+r; i++ {
			if i < n {
				for len(q) > 0 && line[q[len(q)-1]] <= line[i] {
					q = q[:len(q)-1]
				}
				q = append(q, i)
			}
			c := i - r
			if c < 0 {
				continue
			}
			for q[0] < c-r {
				q = q[1:]
			}
			out1[c] = line[q[0]]
		}
	}
	for y := range h {
		copy(line, pix[y*stride:y*stride+w])
		run(w)
		copy(tmp[y*w:], out1[:w])
	}
	out := make([]uint8, w*h)
	for x := range w {
		for y := range h {
			line[y] = tmp[y*w+x]
		}
		run(h)
		for y := range h {
			out[y*w+x] = out1[y]
		}
	}
	return out
}

// boxBlur is the mean over a (2r+1)² square (clamped at the edges).
func boxBlur(pix []uint8, w, h, r int) []uint8 {
	tmp := make([]float64, w*h)
	for y := range h {
		sum, n := 0.0, 0
		for x := -r; x < w+r; x++ {
			if x+r < w && x+r >= 0 {
				sum += float64(pix[y*w+x+r])
				n++
			}
			if x-r-1 >= 0 && x-r-1 < w {
				sum -= float64(pix[y*w+x-r-1])
				n--
			}
			if x >= 0 && x < w {
				tmp[y*w+x] = sum / float64(n)
			}
		}
	}
	out := make([]uint8, w*h)
	for x := range w {
		sum, n := 0.0, 0
		for y := -r; y < h+r; y++ {
			if y+r < h && y+r >= 0 {
				sum += tmp[(y+r)*w+x]
				n++
			}
			if y-r-1 >= 0 && y-r-1 < h {
				sum -= tmp[(y-r-1)*w+x]
				n--
			}
			if y >= 0 && y < h {
				out[y*w+x] = uint8(math.Round(sum / float64(n)))
			}
		}
	}
	return out
}
