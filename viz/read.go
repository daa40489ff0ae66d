package viz

import (
	"context"
	"image"
	"image/draw"
	"math"
	"slices"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"

	"github.com/verifyd/verifyd/ocr"
)

// TargetSide is the long side, in pixels, the document is scaled to for
// OCR: the printed fields of an ID-1 card (2–3 mm capitals) are then about
// 30–50 px tall, where Tesseract reads best, and a page costs ~0.3–0.6 s.
const TargetSide = 1600

// Region says where on a photo the document is and how it lies.
type Region struct {
	// Rect bounds the document (the whole image when empty).
	Rect image.Rectangle
	// Angle is the document's rotation in degrees, clockwise as displayed
	// (y down): the image is turned by -Angle to make its text level.
	Angle float64
	// Mask lists polygons to blank out (the machine-readable zone, which
	// the comparison must not read as printed data).
	Mask [][4]image.Point
	// Side is the long side the document is scaled to (0: TargetSide).
	Side int
	// Outline, when known (not all zero), is the document's four corners
	// on the photo. The levelled page is then cut to them: the crop Rect
	// bounds a tilted document with its corners, and turned level it
	// bounds that again, so a page turned by 15° was drawn and read at
	// 2.3 times its own pixels, mostly table (docs/performance.md).
	Outline [4]image.Point
}

// Prepare crops, levels and scales the document for OCR, in grey levels.
func Prepare(img image.Image, r Region) *image.Gray {
	g := geometryOf(img.Bounds(), r)
	return g.draw(grayOf(img, g.rect, r.Mask), g.rect, image.Rect(0, 0, g.w, g.h), 1, g.s < 0.75)
}

// geometry is how Prepare maps a photo onto the page it reads: m takes
// the photo's coordinates to the page's, a page of w × h pixels, scaled by
// s from the crop rect.
type geometry struct {
	rect image.Rectangle
	m    f64.Aff3
	w, h int
	s    float64
}

func geometryOf(bounds image.Rectangle, r Region) geometry {
	rect := r.Rect.Intersect(bounds)
	if rect.Empty() {
		rect = bounds
	}
	long := float64(max(rect.Dx(), rect.Dy()))
	side := float64(TargetSide)
	if r.Side > 0 {
		side = float64(r.Side)
	}
	s := min(side/long, 2.0)
	w, h := int(math.Round(float64(rect.Dx())*s)), int(math.Round(float64(rect.Dy())*s))
	// Turning by -Angle about the crop's centre can move corners out: the
	// output grows to hold the whole turned crop.
	a := -r.Angle * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	ow := int(math.Ceil(math.Abs(float64(w)*cos) + math.Abs(float64(h)*sin)))
	oh := int(math.Ceil(math.Abs(float64(w)*sin) + math.Abs(float64(h)*cos)))
	// page = T(ow/2, oh/2) · R(a) · S(s) · T(-centre of rect)
	cx, cy := float64(rect.Min.X)+float64(rect.Dx())/2, float64(rect.Min.Y)+float64(rect.Dy())/2
	m := f64.Aff3{
		s * cos, -s * sin, 0,
		s * sin, s * cos, 0,
	}
	m[2] = float64(ow)/2 - (m[0]*cx + m[1]*cy)
	m[5] = float64(oh)/2 - (m[3]*cx + m[4]*cy)
	if r.Outline != ([4]image.Point{}) {
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range r.Outline {
			x := m[0]*float64(p.X) + m[1]*float64(p.Y) + m[2]
			y := m[3]*float64(p.X) + m[4]*float64(p.Y) + m[5]
			minX, maxX = math.Min(minX, x), math.Max(maxX, x)
			minY, maxY = math.Min(minY, y), math.Max(maxY, y)
		}
		win := image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX)), int(math.Ceil(maxY))).
			Intersect(image.Rect(0, 0, ow, oh))
		// Only a cut that saves a tenth of the pixels is made: a level
		// document's page stays the one it always was, to the pixel.
		if !win.Empty() && 10*win.Dx()*win.Dy() < 9*ow*oh {
			m[2] -= float64(win.Min.X)
			m[5] -= float64(win.Min.Y)
			ow, oh = win.Dx(), win.Dy()
		}
	}
	return geometry{rect: rect, m: m, w: ow, h: oh, s: s}
}

// draw renders the window of the page (in the page's coordinates)
// enlarged k times, from the part from of src (the photo in grey levels,
// masked). fast trades averaging for speed where the photo is shrunk.
func (g geometry) draw(src *image.Gray, from, window image.Rectangle, k float64, fast bool) *image.Gray {
	w, h := int(math.Round(float64(window.Dx())*k)), int(math.Round(float64(window.Dy())*k))
	m := g.m
	for i := range m {
		m[i] *= k
	}
	m[2] -= float64(window.Min.X) * k
	m[5] -= float64(window.Min.Y) * k
	if !fast && from.In(src.Bounds()) {
		dst := image.NewGray(image.Rect(0, 0, w, h))
		for i := range dst.Pix {
			dst.Pix[i] = 0xff // white where the turned crop leaves corners
		}
		transformGray(dst, m, src, from)
		return dst
	}
	// x/image/draw transforms fast only into RGBA: into a Gray it took
	// its generic path, a pixel at a time through interfaces, which was a
	// quarter of all the CPU the document checks of the independently
	// generated photos took (docs/performance.md). The page is drawn into
	// RGBA and its grey taken back, which is exact: grey in, grey out.
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range rgba.Pix {
		rgba.Pix[i] = 0xff // white where the turned crop leaves corners
	}
	interp := xdraw.Interpolator(xdraw.BiLinear)
	if fast {
		interp = xdraw.ApproxBiLinear // shrinking: averaging matters less than speed here
	}
	interp.Transform(rgba, m, src, from, xdraw.Src, nil)
	dst := image.NewGray(rgba.Rect)
	for i := range dst.Pix {
		dst.Pix[i] = rgba.Pix[4*i]
	}
	return dst
}

// grayOf returns the part rect of img in grey levels (the luma of
// color.GrayModel), with the polygons mask painted white. A JPEG's luma
// plane is that grey already: when nothing is painted it is shared, not
// copied.
func grayOf(img image.Image, rect image.Rectangle, mask [][4]image.Point) *image.Gray {
	rect = rect.Intersect(img.Bounds())
	var plane *image.Gray
	switch m := img.(type) {
	case *image.YCbCr:
		plane = &image.Gray{Pix: m.Y, Stride: m.YStride, Rect: m.Rect}
	case *image.Gray:
		plane = m
	}
	if plane != nil && len(mask) == 0 {
		return plane.SubImage(rect).(*image.Gray)
	}
	out := image.NewGray(rect)
	if plane != nil {
		for y := rect.Min.Y; y < rect.Max.Y; y++ {
			copy(out.Pix[out.PixOffset(rect.Min.X, y):out.PixOffset(rect.Max.X, y)], plane.Pix[plane.PixOffset(rect.Min.X, y):])
		}
	} else {
		draw.Draw(out, rect, img, rect.Min, draw.Src)
	}
	for _, p := range mask {
		// A one-pixel rectangle at the first corner: an empty one would be
		// dropped by Union, and with it the first corner's extent (the
		// top-left corner is the zone's topmost point on a photo turned
		// clockwise, and the MRZ's first characters then escaped the mask).
		bb := image.Rectangle{p[0], p[0].Add(image.Pt(1, 1))}
		for _, q := range p[1:] {
			bb = bb.Union(image.Rectangle{q, q.Add(image.Pt(1, 1))})
		}
		bb = bb.Intersect(rect)
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				if inQuad(p, float64(x)+0.5, float64(y)+0.5) {
					out.Pix[out.PixOffset(x, y)] = 0xff
				}
			}
		}
	}
	return out
}

// inQuad reports whether (x, y) lies inside the convex quadrilateral q.
func inQuad(q [4]image.Point, x, y float64) bool {
	sign := 0.0
	for i := range 4 {
		a, b := q[i], q[(i+1)%4]
		c := float64(b.X-a.X)*(y-float64(a.Y)) - float64(b.Y-a.Y)*(x-float64(a.X))
		if c != 0 {
			if sign != 0 && (c > 0) != (sign > 0) {
				return false
			}
			sign = c
		}
	}
	return true
}

// passes are the readings Read makes, in order, until enough is read.
// Measured on generated pages (mild, tilted, low light; five label
// languages; docs/accuracy.md): Tesseract's local (Sauvola) threshold
// alone confirms 38 of 45, its global (Otsu) threshold alone 24 but it
// keeps the small printed labels; both 40. A reading at 2200 px, once
// third, confirmed 42 of those 45 then, but no document of three seeds
// of independently generated photos later (360 documents, nineteenth
// pass, docs/accuracy.md), where it was the costliest reading of every
// page that went to review (0.3–0.7 s of one core): it was dropped.
// On independently generated photos (56 genuine documents,
// seed 1) two readings at three quarters of the scale, where motion blur,
// a bent page and perspective garble glyphs less, confirmed three more
// documents (27 → 30 approved), and a reading that takes the page for one
// block of lines (page segmentation mode 6) four more (34): in sparse
// mode Tesseract dropped short values standing alone on a guilloche
// background (ROSSI under its label, the passport's P and ITA) that it
// reads as part of a block. The last reading, at half the scale with the
// global threshold, reads values printed large: a bent French card's
// 10.09.1973, capitals ~45 px tall on the page, was garbled at every
// scale down to three quarters and read right from two thirds down
// (with Otsu's threshold; Sauvola's lost it at half) on independently
// generated photos (docs/accuracy.md, fourteenth pass). Later readings
// run only on a page the earlier ones did not confirm.
var passes = []struct {
	// scale is the long side relative to the Region's (TargetSide when
	// it has none).
	scale     float64
	threshold int
	// psm is Tesseract's page segmentation mode: 11 finds sparse text
	// anywhere, 6 takes the page for one block of text lines.
	psm int
}{
	{1, 2, 11},
	{1, 2, 6},
	{1, 0, 11},
	{0.75, 2, 11},
	{0.75, 0, 11},
	{0.5, 0, 11},
}

// readDPI is the resolution the page is declared to Tesseract at. The
// page is scaled to 16–19 px/mm (400–480 dpi), but Tesseract, trained on
// 300 dpi scans, read the printed values of 56 independently generated
// document photos best when told 300: at 600 it lost the same values it
// lost with no resolution at all (it then assumes 70 dpi, takes capitals
// 45 px tall for 16 mm shapes and drops them as non-text), at 150 and 300
// it read them (docs/accuracy.md).
const readDPI = 300

// FirstReadings is how many of the page readings come before the caller
// reads its unconfirmed fields' spots again (engine's readSides): of 91
// approved independently generated documents, the first two page readings
// confirmed 75; the others cost ~0.1–0.4 s each on one core, a spot read
// again ~0.2 s (docs/performance.md), so the spots are tried first.
const FirstReadings = 2

// Readings is how many page readings there are (passes).
func Readings() int { return len(passes) }

// Pages keeps the pages Read drew of one photo and Region, by their long
// side, for its later readings and calls: three of the six readings are
// of the page at its first scale and two at three quarters, and drawing a
// page costs 0.05–0.1 s of one core (docs/performance.md).
type Pages map[int]*image.Gray

// Read recognises the document's visual zone: it makes the page readings
// (passes) from, from up to to, after the words of the earlier ones
// (prior, as Read returned them), until enough (nil: never) is satisfied
// by all the words so far, and returns them all. pages (nil: none) keeps
// the pages drawn for the calls of Read on the same photo and Region. Each reading's words
// are lines of their own, in the coordinates of the first reading, for
// NewZone; a caller can read other things between the readings.
func Read(ctx context.Context, eng ocr.Engine, img image.Image, r Region, prior []ocr.Word, from, to int,
	pages Pages, enough func([]ocr.Word) bool) ([]ocr.Word, error) {
	words := slices.Clone(prior)
	base := r.Side
	if base == 0 {
		base = TargetSide
	}
	// Every reading's boxes are scaled to the first's page, whether or
	// not it ran in this call.
	firstW := geometryOf(img.Bounds(), Region{Rect: r.Rect, Angle: r.Angle, Side: base, Outline: r.Outline}).w
	for i := from; i < min(to, len(passes)); i++ {
		p := passes[i]
		r.Side = int(math.Round(float64(base) * p.scale))
		g := pages[r.Side]
		if g == nil {
			g = Prepare(img, r)
			if pages != nil {
				pages[r.Side] = g
			}
		}
		got, err := eng.Words(ctx, g, ocr.Options{PSM: p.psm, Threshold: p.threshold, DPI: readDPI})
		if err != nil {
			return nil, err
		}
		words = Append(words, got, float64(firstW)/float64(g.Rect.Dx()), 0)
		if enough != nil && enough(words) {
			break
		}
	}
	return words, nil
}

// Append adds the words of another reading to words, as lines of their
// own (their blocks numbered after words'), their boxes scaled by k and
// moved down by dy: how readings of one page at another scale, or of
// another photo placed below, are merged into one Zone.
func Append(words, more []ocr.Word, k float64, dy int) []ocr.Word {
	blocks := 0
	for _, w := range words {
		blocks = max(blocks, w.Block+1)
	}
	for _, w := range more {
		w.Block += blocks
		if k != 1 {
			w.Box = image.Rect(int(float64(w.Box.Min.X)*k), int(float64(w.Box.Min.Y)*k),
				int(float64(w.Box.Max.X)*k), int(float64(w.Box.Max.Y)*k))
		}
		w.Box = w.Box.Add(image.Pt(0, dy))
		words = append(words, w)
	}
	return words
}
