package docgen

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"sync"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/vector"
)

// Printer is a model of how a document's MRZ was printed, different from
// Render's (which draws the outlines of OCRB.otf, the very font mrzread's
// templates come from, anti-aliased in near-black ink). Reprint erases
// Render's MRZ and prints it again this way.
type Printer struct {
	// Sharp takes the glyphs from the "Sharp" cut of OCR-B (OCRBS.otf:
	// square stroke ends, different joins) instead of the regular cut.
	Sharp bool
	// Width and Height scale each glyph (1 = the font) about the centre of
	// its cell and the baseline; Slant shears it (x += Slant·height).
	Width, Height, Slant float64
	// Spread is how far the ink spreads beyond the outline, in em on each
	// side (negative: a starved, thin print); Soft blurs the edges
	// (pixels), as toner and inkjet dots do.
	Spread, Soft float64
	// Jitter moves each glyph by up to this many millimetres (paper feed,
	// print head registration); Drift tilts each line by up to this many
	// millimetres over its length.
	Jitter, Drift float64
	// Dots, in dots per millimetre, rasterises the glyphs on a coarse
	// binary grid first (a low-resolution printer); 0 prints outlines.
	Dots float64
	// Ink is the ink colour; Density (0–1] its coverage, Speckle the
	// fraction of ink randomly missing (worn ribbon, porous paper).
	Ink              color.RGBA
	Density, Speckle float64
}

// RandomPrinter draws a printer model: either OCR-B cut, glyphs 88–108 %
// wide and 94–106 % tall, slant ±2.5 %, ink spread −0.025…+0.035 em, soft
// edges, per-glyph jitter up to 0.08 mm, line drift up to 0.15 mm, a coarse
// dot grid (8–12 dots/mm) in a third of the cases, inks from black to the
// grey of laser-engraved polycarbonate.
func RandomPrinter(rng *rand.Rand) Printer {
	p := Printer{
		Sharp:  rng.IntN(2) == 0,
		Width:  0.88 + 0.2*rng.Float64(),
		Height: 0.94 + 0.12*rng.Float64(),
		Slant:  (2*rng.Float64() - 1) * 0.025,
		Spread: -0.025 + 0.06*rng.Float64(),
		Soft:   0.3 + 1.2*rng.Float64(),
		Jitter: 0.08 * rng.Float64(),
		Drift:  0.15 * rng.Float64(),
	}
	if rng.IntN(3) == 0 {
		p.Dots = 8 + 4*rng.Float64()
	}
	inks := []color.RGBA{{10, 10, 12, 255}, {25, 25, 45, 255}, {35, 30, 30, 255}, {70, 70, 72, 255}}
	p.Ink = inks[rng.IntN(len(inks))]
	p.Density = 0.8 + 0.2*rng.Float64()
	p.Speckle = 0.08 * rng.Float64()
	return p
}

var (
	sharpOnce sync.Once
	sharpFont *Font
)

// ocrbSharp loads the Sharp cut of OCR-B (glyphs it cannot parse come from
// the regular cut); nil if it is not installed.
func ocrbSharp() *Font {
	sharpOnce.Do(func() {
		reg, err := OCRB()
		if err != nil {
			return
		}
		p := findFont("OCRBS.otf")
		if p == "" {
			return
		}
		sf, err := parseFont(p)
		if err != nil {
			return
		}
		f := &Font{Path: p, advance: reg.advance, glyphs: map[rune][]Segment{}}
		var buf sfnt.Buffer
		for _, r := range MRZAlphabet {
			segs, err := outline(sf, &buf, r)
			if err != nil {
				segs = reg.glyphs[r]
				f.Fallback = append(f.Fallback, r)
			}
			f.glyphs[r] = segs
		}
		sharpFont = f
	})
	return sharpFont
}

// Reprint returns a copy of doc whose MRZ is printed by p: Render's glyphs
// are erased (the background under them recovered from their known
// coverage, the fully inked pixels filled in from around) and the lines
// printed again. The geometry fields (Pitch, Baselines, MRZ…) stay those
// of the nominal layout.
func Reprint(doc *Document, p Printer, seed uint64) (*Document, error) {
	reg, err := OCRB()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e1))
	out := *doc
	img := image.NewRGBA(doc.Image.Rect)
	copy(img.Pix, doc.Image.Pix)
	out.Image = img
	zone := doc.MRZ.Inset(-2).Intersect(img.Bounds())
	zw, zh := zone.Dx(), zone.Dy()

	// Render's coverage, exactly as Render drew it.
	z := vector.NewRasterizer(zw, zh)
	for i, l := range doc.Lines {
		oy := doc.Baselines[i] - float64(zone.Min.Y)
		for j, r := range l {
			ox := doc.MRZLeft + float64(j)*doc.Pitch - float64(zone.Min.X)
			reg.AddGlyph(z, r, func(x, y float64) (float64, float64) { return ox + x*doc.EmPx, oy + y*doc.EmPx })
		}
	}
	cov := image.NewAlpha(image.Rect(0, 0, zw, zh))
	z.Draw(cov, cov.Bounds(), image.Opaque, image.Point{})
	erase(img, zone, cov, color.RGBA{18, 18, 24, 255})

	// Print again.
	font := reg
	if p.Sharp {
		if s := ocrbSharp(); s != nil {
			font = s
		}
	}
	if p.Width == 0 {
		p.Width = 1
	}
	if p.Height == 0 {
		p.Height = 1
	}
	if p.Density == 0 {
		p.Density = 1
	}
	// A margin around the zone for spread and jitter.
	pad := int(math.Ceil(0.3 * doc.EmPx))
	pz := doc.MRZ.Inset(-pad).Intersect(img.Bounds())
	pw, ph := pz.Dx(), pz.Dy()
	dotScale := 1.0 // rasterise at doc resolution × dotScale
	if p.Dots > 0 {
		dotScale = p.Dots / doc.PxPerMM
	}
	rw, rh := int(math.Ceil(float64(pw)*dotScale)), int(math.Ceil(float64(ph)*dotScale))
	z = vector.NewRasterizer(rw, rh)
	adv := font.Advance()
	mmPx := doc.PxPerMM
	for i, l := range doc.Lines {
		oy := doc.Baselines[i] - float64(pz.Min.Y)
		drift := (2*rng.Float64() - 1) * p.Drift * mmPx
		n := float64(len(l))
		for j, r := range l {
			jx := (2*rng.Float64() - 1) * p.Jitter * mmPx
			jy := (2*rng.Float64()-1)*p.Jitter*mmPx + drift*(float64(j)/n-0.5)
			cx := doc.MRZLeft + (float64(j)+0.5)*doc.Pitch - float64(pz.Min.X) + jx
			by := oy + jy
			font.AddGlyph(z, r, func(x, y float64) (float64, float64) {
				xx := (x-adv/2)*p.Width + p.Slant*(-y)*p.Height
				yy := y * p.Height
				return (cx + xx*doc.EmPx) * dotScale, (by + yy*doc.EmPx) * dotScale
			})
		}
	}
	raw := image.NewAlpha(image.Rect(0, 0, rw, rh))
	z.Draw(raw, raw.Bounds(), image.Opaque, image.Point{})
	// Coverage at document resolution (a coarse dot grid is thresholded,
	// then sampled up with nearest neighbours: square dots).
	a := make([]float64, pw*ph)
	for y := 0; y < ph; y++ {
		for x := 0; x < pw; x++ {
			if p.Dots > 0 {
				sx := min(int((float64(x)+0.5)*dotScale), rw-1)
				sy := min(int((float64(y)+0.5)*dotScale), rh-1)
				if raw.Pix[sy*raw.Stride+sx] >= 128 {
					a[y*pw+x] = 1
				}
			} else {
				a[y*pw+x] = float64(raw.Pix[y*raw.Stride+x]) / 255
			}
		}
	}
	// Ink spread and soft edges: blur the coverage, then threshold it
	// where the edge moves by Spread (an edge of a blurred step sits at
	// level ½; level t sits σ·Φ⁻¹(1−t) further out).
	sigma := math.Max(p.Soft, 0.3) + math.Abs(p.Spread)*doc.EmPx*0.6
	blurPlane(a, pw, ph, sigma)
	shift := p.Spread * doc.EmPx // pixels per side, + grows
	t := 0.5 - 0.4*math.Tanh(shift/(1.2*sigma))
	edge := 0.5 / (0.4 + 0.6*p.Soft)
	for i, v := range a {
		c := clamp01((v-t)*edge*2.5 + 0.5)
		if p.Speckle > 0 && c > 0 && rng.Float64() < p.Speckle {
			c *= 0.3
		}
		a[i] = c * p.Density
	}
	for y := 0; y < ph; y++ {
		for x := 0; x < pw; x++ {
			v := a[y*pw+x]
			if v <= 0 {
				continue
			}
			o := img.PixOffset(pz.Min.X+x, pz.Min.Y+y)
			for k, c := range [3]uint8{p.Ink.R, p.Ink.G, p.Ink.B} {
				img.Pix[o+k] = clamp8(float64(img.Pix[o+k])*(1-v) + float64(c)*v)
			}
		}
	}
	return &out, nil
}

// erase removes ink of colour ink drawn with coverage cov over zone of img:
// where the coverage is partial the background is solved for, where it is
// (nearly) full it is interpolated between the nearest recovered pixels of
// the row and of the column.
func erase(img *image.RGBA, zone image.Rectangle, cov *image.Alpha, ink color.RGBA) {
	w, h := zone.Dx(), zone.Dy()
	known := make([]bool, w*h)
	val := make([][3]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := float64(cov.Pix[y*cov.Stride+x]) / 255
			o := img.PixOffset(zone.Min.X+x, zone.Min.Y+y)
			if a < 0.8 {
				known[y*w+x] = true
				for k, c := range [3]uint8{ink.R, ink.G, ink.B} {
					val[y*w+x][k] = (float64(img.Pix[o+k]) - float64(c)*a) / (1 - a)
				}
			}
		}
	}
	interp := func(i0, n, step int, x int) ([3]float64, float64, bool) {
		// Nearest known before and after position x of the line starting
		// at i0 with stride step.
		lo, hi := -1, -1
		for k := x - 1; k >= 0; k-- {
			if known[i0+k*step] {
				lo = k
				break
			}
		}
		for k := x + 1; k < n; k++ {
			if known[i0+k*step] {
				hi = k
				break
			}
		}
		switch {
		case lo < 0 && hi < 0:
			return [3]float64{}, 0, false
		case lo < 0:
			return val[i0+hi*step], float64(hi - x), true
		case hi < 0:
			return val[i0+lo*step], float64(x - lo), true
		}
		t := float64(x-lo) / float64(hi-lo)
		var v [3]float64
		for k := range v {
			v[k] = val[i0+lo*step][k]*(1-t) + val[i0+hi*step][k]*t
		}
		return v, float64(hi - lo), true
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if known[y*w+x] {
				continue
			}
			r, dr, okR := interp(y*w, w, 1, x)
			c, dc, okC := interp(x, h, w, y)
			var v [3]float64
			switch {
			case okR && okC: // weight the shorter gap more
				wr, wc := 1/(dr+1), 1/(dc+1)
				for k := range v {
					v[k] = (r[k]*wr + c[k]*wc) / (wr + wc)
				}
			case okR:
				v = r
			case okC:
				v = c
			}
			val[y*w+x] = v
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			o := img.PixOffset(zone.Min.X+x, zone.Min.Y+y)
			for k := 0; k < 3; k++ {
				img.Pix[o+k] = clamp8(val[y*w+x][k])
			}
		}
	}
}

// blurPlane blurs a w×h plane in place with a Gaussian of std sigma.
func blurPlane(a []float64, w, h int, sigma float64) {
	rad := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*rad+1)
	s := 0.0
	for i := range k {
		x := float64(i - rad)
		k[i] = math.Exp(-x * x / (2 * sigma * sigma))
		s += k[i]
	}
	for i := range k {
		k[i] /= s
	}
	tmp := make([]float64, len(a))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var acc float64
			for j, kv := range k {
				xx := min(max(x+j-rad, 0), w-1)
				acc += kv * a[y*w+xx]
			}
			tmp[y*w+x] = acc
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var acc float64
			for j, kv := range k {
				yy := min(max(y+j-rad, 0), h-1)
				acc += kv * tmp[yy*w+x]
			}
			a[y*w+x] = acc
		}
	}
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }
