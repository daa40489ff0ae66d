package viz

import (
	"image"
	"math"
)

// EstimateSkew estimates how far the text in rect of img is turned, in
// degrees clockwise as displayed (the Region.Angle convention), within
// ±maxDeg: the angle at which the rows of dark pixels line up best. Text
// lines make the row profile of a correctly turned page peaked (lines and
// gaps alternate); the sum of squared row counts is largest there. This is
// the classic projection-profile method, used for photos where no MRZ gave
// the angle (an ID card's front); Tesseract's own deskewing handles only a
// few degrees.
func EstimateSkew(img image.Image, rect image.Rectangle, maxDeg float64) float64 {
	rect = rect.Intersect(img.Bounds())
	if rect.Dx() < 32 || rect.Dy() < 32 {
		return 0
	}
	// ~500 px wide: text lines of a card are then still 4+ px tall.
	s := min(1.0, 500/float64(rect.Dx()))
	w, h := max(int(float64(rect.Dx())*s), 1), max(int(float64(rect.Dy())*s), 1)
	g := image.NewGray(image.Rect(0, 0, w, h))
	scaleGray(g, img, rect)
	dark := darkPixels(g)
	if len(dark) < 50 {
		return 0
	}
	score := func(deg float64) float64 {
		a := deg * math.Pi / 180
		sin, cos := math.Sin(a), math.Cos(a)
		off := float64(w + h)
		rows := make([]float64, 2*(w+h)+2)
		for _, p := range dark {
			// The row the pixel falls in once the page is turned by -deg.
			y := -float64(p.X)*sin + float64(p.Y)*cos + off
			rows[int(y)]++
		}
		var sum float64
		for _, r := range rows {
			sum += r * r
		}
		return sum
	}
	best, bestScore := 0.0, -1.0
	for d := -maxDeg; d <= maxDeg+1e-9; d += 1 {
		if sc := score(d); sc > bestScore {
			best, bestScore = d, sc
		}
	}
	for d := best - 0.8; d <= best+0.8+1e-9; d += 0.2 {
		if sc := score(d); sc > bestScore {
			best, bestScore = d, sc
		}
	}
	return math.Round(best*10) / 10
}

// darkPixels returns the pixels darker than their neighbourhood (a local
// threshold over a box of ~1/16 of the width): print, not shading.
func darkPixels(g *image.Gray) []image.Point {
	var out []image.Point
	eachLocalMean(g, max(g.Rect.Dx()/32, 4), func(x, y, v, mean int) {
		if v < mean-25 {
			out = append(out, image.Pt(x, y))
		}
	})
	return out
}

// eachLocalMean calls f with every pixel of g (coordinates from 0), its
// grey level and the mean of the (2r+1)² box around it, clipped to the
// image, from an integral image.
func eachLocalMean(g *image.Gray, r int, f func(x, y, v, mean int)) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	in := make([]int, (w+1)*(h+1))
	for y := 0; y < h; y++ {
		row := 0
		for x := 0; x < w; x++ {
			row += int(g.Pix[y*g.Stride+x])
			in[(y+1)*(w+1)+x+1] = in[y*(w+1)+x+1] + row
		}
	}
	for y := 0; y < h; y++ {
		y0, y1 := max(y-r, 0), min(y+r+1, h)
		for x := 0; x < w; x++ {
			x0, x1 := max(x-r, 0), min(x+r+1, w)
			sum := in[y1*(w+1)+x1] - in[y0*(w+1)+x1] - in[y1*(w+1)+x0] + in[y0*(w+1)+x0]
			f(x, y, int(g.Pix[y*g.Stride+x]), sum/((y1-y0)*(x1-x0)))
		}
	}
}
