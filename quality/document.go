package quality

import (
	"image"
	"math"
	"slices"
)

// Parameters of FindDocument.
const (
	// findSide is the long side of the thumbnail FindDocument works on:
	// a document's outline is a large-scale feature, and at 240 px one
	// thumbnail pixel is well under 1% of a document filling half of the
	// photo, far inside the IoU tolerance the region needs.
	findSide = 240
	// minContrast is the smallest colour difference (|ΔR|+|ΔG|+|ΔB|
	// against the background model) that marks a pixel as "not
	// background". Sensor noise and JPEG on a plain table, averaged over
	// the 3×3 samples of a thumbnail pixel, stay under ~20; a light card
	// on a mid-grey table differs by 200 or more.
	minContrast = 45
	// spreadFactor scales the background's own variation (the 75th
	// percentile of the border pixels' distance to the background model)
	// into the threshold, so that a textured background (wood grain,
	// fabric) is not mistaken for the document.
	spreadFactor = 3
	// maxContrast: when the background varies so much that the threshold
	// would exceed this, there is no plain background to separate the
	// document from, and FindDocument gives up.
	maxContrast = 250
	// minDocArea and maxDocArea bound the plausible share of the photo
	// covered by the document's bounding box: below 4% (a fifth of the
	// frame's width) what was found is more likely an object on the table;
	// a document a third of the frame wide covers 9 %, and on a 3 MP photo
	// its zone still reads once found and enlarged (independently
	// generated photos, docs/accuracy.md; 10 % until 2026-11-28); above
	// 97% the document fills the frame and there is no background to
	// separate (the fallback, the central region, is then right).
	minDocArea, maxDocArea = 0.04, 0.97
	// minFill is the smallest share of its bounding box the document
	// (holes filled) must cover: a card or page is a convex quadrilateral,
	// which covers at least half of its bounding box at any rotation;
	// ragged shapes are shadows, hands or clutter.
	minFill = 0.5
	// mergeShare and mergeFill: a component of at least mergeShare of the
	// largest one, next to it, joins it when the two together still fill
	// mergeFill of their common bounding box, as the two halves of a card
	// split by a full-width band of the background's colour do (an object
	// lying against the card does not).
	mergeShare, mergeFill = 0.05, 0.7
	// clutterArea and maxClutter: more than maxClutter separate marks of
	// at least clutterArea thumbnail pixels outside the region mean the
	// region is a part of the document (a card filling the frame: the
	// border is card stock, and its photo box stands out from it, but so
	// does every word of its print), not the document on a background
	// (a plain table has none; a few objects are tolerated).
	clutterArea, maxClutter = 2, 10
	// trimCoverage: rows and columns at the edges of the found region
	// whose coverage by it is below this share of the typical (90th
	// percentile) coverage are trimmed. A card's rows and columns are
	// nearly all fully covered (a rotation tapers only its ends, given
	// back below), while an object or a glare spilling onto the table
	// next to the card covers only part of them.
	trimCoverage = 0.5
	// rampStep: after trimming, the region grows back over rows or columns
	// whose coverage keeps falling by at least this share of the typical
	// coverage per step outwards, the tapering ends of a rotated document
	// (at 5° a card's coverage falls by ~8% of its full value per
	// thumbnail column; an object's plateau stays flat).
	rampStep = 0.02
)

// CentralFraction is the share of each dimension DocumentRegion uses when
// no document is found: people centre the document, and the central 80%
// excludes most of the background at the frame's edges.
const CentralFraction = 0.8

// DocumentRegion returns FindDocument's region, or the central
// CentralFraction of the image when no document is found.
func DocumentRegion(img image.Image) (image.Rectangle, bool) {
	if r, ok := FindDocument(img); ok {
		return r, true
	}
	return Central(img.Bounds(), CentralFraction), false
}

// Central returns the centred rectangle of frac of b's width and height.
func Central(b image.Rectangle, frac float64) image.Rectangle {
	mx := int(math.Round(float64(b.Dx()) * (1 - frac) / 2))
	my := int(math.Round(float64(b.Dy()) * (1 - frac) / 2))
	return image.Rect(b.Min.X+mx, b.Min.Y+my, b.Max.X-mx, b.Max.Y-my)
}

// FindDocument estimates the bounding box of the document (card or page)
// in a photo of it lying on a background, assuming the background is
// roughly uniform (or a smooth gradient) and visible at the frame's edges.
//
// On a small thumbnail it fits a background model to the frame's border (a
// plane per colour channel, robust to the document or objects touching the
// border), marks the pixels that differ from it by more than a threshold
// that grows with the background's own variation, closes small gaps, takes
// the largest connected region (with pieces that complete it into a
// rectangle), fills its holes and trims rows and columns it covers only
// partly (objects, shadows or glare attached to it). The result is
// rejected (ok false) when it is implausibly small or large, too ragged to
// be a quadrilateral, or surrounded by print (the document fills the frame
// and what stands out is a part of it); callers then fall back to the
// central region (DocumentRegion).
func FindDocument(img image.Image) (image.Rectangle, bool) {
	f, ok := findDocument(img)
	if !ok {
		return image.Rectangle{}, false
	}
	b := img.Bounds()
	r := image.Rect(
		b.Min.X+int(math.Floor(float64(f.box.Min.X)*f.sx)), b.Min.Y+int(math.Floor(float64(f.box.Min.Y)*f.sy)),
		b.Min.X+int(math.Ceil(float64(f.box.Max.X)*f.sx)), b.Min.Y+int(math.Ceil(float64(f.box.Max.Y)*f.sy)),
	)
	return r.Intersect(b), true
}

// FindDocumentQuad is FindDocument's document as the corners of its
// outline (top-left, top-right, bottom-right, bottom-left, in image
// coordinates), for a document turned by less than 45°: each corner is
// the document's extreme point in its diagonal direction, which for any
// convex quadrilateral is a vertex. A card's rounded corners pull each
// one inwards along its diagonal by under 1.5 % of the card's size,
// nearly a uniform scaling, so a perspective correction from them keeps
// its shape.
func FindDocumentQuad(img image.Image) ([4][2]float64, bool) {
	f, ok := findDocument(img)
	if !ok {
		return [4][2]float64{}, false
	}
	// Extremes of x+y (bottom-right), -(x+y) (top-left), x-y (top-right)
	// and y-x (bottom-left).
	dirs := [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}
	var best [4]float64
	var at [4][2]int
	for i := range best {
		best[i] = math.Inf(-1)
	}
	for y := f.box.Min.Y; y < f.box.Max.Y; y++ {
		for x := f.box.Min.X; x < f.box.Max.X; x++ {
			if !f.doc[y*f.w+x] {
				continue
			}
			for i, d := range dirs {
				if v := d[0]*float64(x) + d[1]*float64(y); v > best[i] {
					best[i], at[i] = v, [2]int{x, y}
				}
			}
		}
	}
	// Refine: each side is a straight line fitted through the mask's
	// edge between the extreme corners (their inner 80 %), which the
	// rounded corners, a notch of glare or a shadow barely move; the
	// corners are where the lines meet.
	c := [4][2]float64{}
	for i, p := range at {
		c[i] = [2]float64{float64(p[0]) + 0.5 + 0.5*dirs[i][0], float64(p[1]) + 0.5 + 0.5*dirs[i][1]}
	}
	if r, ok := f.refineCorners(c); ok {
		c = r
	}
	b := img.Bounds()
	var q [4][2]float64
	for i, p := range c {
		q[i] = [2]float64{float64(b.Min.X) + p[0]*f.sx, float64(b.Min.Y) + p[1]*f.sy}
	}
	return q, true
}

// refineCorners fits the document's four sides to the mask's edge
// between the rough corners c (thumbnail coordinates) and returns where
// they meet, or false when a side has too few points or a corner moves
// by more than a tenth of the document's size (the mask is not a
// quadrilateral there).
func (f found) refineCorners(c [4][2]float64) ([4][2]float64, bool) {
	h := len(f.doc) / f.w
	inside := func(x, y int) bool { return x >= 0 && y >= 0 && x < f.w && y < h && f.doc[y*f.w+x] }
	// side i runs from corner i to corner i+1: top, right, bottom, left.
	// Horizontal sides are y(x), vertical ones x(y).
	var lines [4][2]float64 // a + b t
	for i := range 4 {
		p, q := c[i], c[(i+1)%4]
		horizontal := i%2 == 0
		var t0, t1 float64
		if horizontal {
			t0, t1 = min(p[0], q[0]), max(p[0], q[0])
		} else {
			t0, t1 = min(p[1], q[1]), max(p[1], q[1])
		}
		span := t1 - t0
		t0, t1 = t0+0.1*span, t1-0.1*span
		var pts [][2]float64
		for t := int(math.Ceil(t0)); float64(t) <= t1; t++ {
			// The outermost document pixel on this row or column, on
			// the side's side.
			e := -1
			switch i {
			case 0: // top: smallest y
				for y := 0; y < h; y++ {
					if inside(t, y) {
						e = y
						break
					}
				}
			case 2: // bottom: largest y
				for y := h - 1; y >= 0; y-- {
					if inside(t, y) {
						e = y + 1
						break
					}
				}
			case 1: // right: largest x
				for x := f.w - 1; x >= 0; x-- {
					if inside(x, t) {
						e = x + 1
						break
					}
				}
			case 3: // left: smallest x
				for x := 0; x < f.w; x++ {
					if inside(x, t) {
						e = x
						break
					}
				}
			}
			if e >= 0 {
				pts = append(pts, [2]float64{float64(t) + 0.5, float64(e)})
			}
		}
		l, ok := fitLine(pts)
		if !ok {
			return c, false
		}
		lines[i] = l
	}
	var out [4][2]float64
	size := math.Hypot(c[2][0]-c[0][0], c[2][1]-c[0][1])
	for i := range 4 {
		// Corner i is where side i-1 (vertical if i is even) meets side i.
		hz, vt := lines[i&^1], lines[(i+3)%4]
		if i%2 == 1 {
			hz, vt = lines[(i+3)%4], lines[i]
		}
		// y = a + b x and x = c + d y.
		d := 1 - hz[1]*vt[1]
		if math.Abs(d) < 1e-6 {
			return c, false
		}
		x := (vt[0] + vt[1]*hz[0]) / d
		y := hz[0] + hz[1]*x
		if math.Hypot(x-c[i][0], y-c[i][1]) > 0.1*size {
			return c, false
		}
		out[i] = [2]float64{x, y}
	}
	return out, true
}

// fitLine fits v = a + b t through pts (t, v) by least squares, twice:
// the second time without points more than 1.5 px from the first line.
func fitLine(pts [][2]float64) ([2]float64, bool) {
	fit := func(use func([2]float64) bool) ([2]float64, bool) {
		var n, st, sv, stt, stv float64
		for _, p := range pts {
			if use(p) {
				n++
				st += p[0]
				sv += p[1]
				stt += p[0] * p[0]
				stv += p[0] * p[1]
			}
		}
		den := n*stt - st*st
		if n < 5 || den == 0 {
			return [2]float64{}, false
		}
		b := (n*stv - st*sv) / den
		return [2]float64{(sv - b*st) / n, b}, true
	}
	l, ok := fit(func([2]float64) bool { return true })
	if !ok {
		return l, false
	}
	return fit(func(p [2]float64) bool { return math.Abs(p[1]-l[0]-l[1]*p[0]) <= 1.5 })
}

// found is findDocument's result: the document's mask on the w×h
// thumbnail, its bounding box there, and the thumbnail's scale.
type found struct {
	doc    []bool
	w      int
	box    image.Rectangle
	sx, sy float64
}

// findDocument is FindDocument on the thumbnail.
func findDocument(img image.Image) (found, bool) {
	b := img.Bounds()
	if b.Dx() < 8 || b.Dy() < 8 {
		return found{}, false
	}
	t := newThumb(img, findSide)
	w, h := t.w, t.h
	bg, spread := t.background()
	thr := math.Max(minContrast, spreadFactor*spread)
	if thr > maxContrast {
		return found{}, false
	}

	// Mark pixels that differ from the background model.
	mask := make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			mask[y*w+x] = t.distance(bg, x, y) > thr
		}
	}
	mask = erode(dilate(mask, w, h), w, h) // close one-pixel gaps

	labels, comps := label(mask, w, h)
	if len(comps) == 0 {
		return found{}, false
	}
	main := 0
	for i, c := range comps {
		if c.area > comps[main].area {
			main = i
		}
	}
	chosen := map[int32]bool{int32(main + 1): true}
	box, area := comps[main].box, comps[main].area
	gap := max(2, w/60)
	for merged := true; merged; {
		merged = false
		for i, c := range comps {
			if chosen[int32(i+1)] || float64(c.area) < mergeShare*float64(comps[main].area) {
				continue
			}
			if c.box.Intersect(box.Inset(-gap)).Empty() {
				continue
			}
			u := box.Union(c.box)
			if float64(area+c.area) < mergeFill*float64(u.Dx()*u.Dy()) {
				continue
			}
			chosen[int32(i+1)] = true
			box, area = u, area+c.area
			merged = true
		}
	}
	// Print around the region: it is a part of the document, not all.
	clutter := 0
	for i, c := range comps {
		if !chosen[int32(i+1)] && c.area >= clutterArea && c.box.Intersect(box).Empty() {
			clutter++
		}
	}
	if clutter > maxClutter {
		return found{}, false
	}
	doc := make([]bool, w*h)
	for i, l := range labels {
		doc[i] = chosen[l]
	}
	fillHoles(doc, w, h)
	box = trim(doc, w, box)

	boxArea := float64(box.Dx() * box.Dy())
	if share := boxArea / float64(w*h); share < minDocArea || share > maxDocArea {
		return found{}, false
	}
	covered := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if doc[y*w+x] {
				covered++
			}
		}
	}
	if float64(covered) < minFill*boxArea {
		return found{}, false
	}

	return found{doc: doc, w: w, box: box, sx: float64(b.Dx()) / float64(w), sy: float64(b.Dy()) / float64(h)}, true
}

// fillHoles sets the pixels of m (w×h) that cannot be reached from the
// frame without crossing m: holes are dark print on the document that
// happens to match the background.
func fillHoles(m []bool, w, h int) {
	outside := make([]bool, len(m))
	var stack []int32
	push := func(i int) {
		if !m[i] && !outside[i] {
			outside[i] = true
			stack = append(stack, int32(i))
		}
	}
	for x := 0; x < w; x++ {
		push(x)
		push((h-1)*w + x)
	}
	for y := 0; y < h; y++ {
		push(y * w)
		push(y*w + w - 1)
	}
	for len(stack) > 0 {
		i := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(i - 1)
		}
		if x < w-1 {
			push(i + 1)
		}
		if y > 0 {
			push(i - w)
		}
		if y < h-1 {
			push(i + w)
		}
	}
	for i := range m {
		m[i] = !outside[i]
	}
}

// trim shrinks box while its outermost row or column is covered by m less
// than trimCoverage of the typical row or column, alternating between
// columns and rows (objects stacked beside the document cover few columns
// only once the rows they add are trimmed).
func trim(m []bool, w int, box image.Rectangle) image.Rectangle {
	for range 4 {
		prev := box
		cols := make([]int, box.Dx())
		for y := box.Min.Y; y < box.Max.Y; y++ {
			for x := box.Min.X; x < box.Max.X; x++ {
				if m[y*w+x] {
					cols[x-box.Min.X]++
				}
			}
		}
		lo, hi := trimProfile(cols)
		box.Min.X, box.Max.X = box.Min.X+lo, box.Min.X+hi
		rows := make([]int, box.Dy())
		for y := box.Min.Y; y < box.Max.Y; y++ {
			for x := box.Min.X; x < box.Max.X; x++ {
				if m[y*w+x] {
					rows[y-box.Min.Y]++
				}
			}
		}
		lo, hi = trimProfile(rows)
		box.Min.Y, box.Max.Y = box.Min.Y+lo, box.Min.Y+hi
		if box == prev {
			break
		}
	}
	return box
}

func trimProfile(p []int) (lo, hi int) {
	s := slices.Clone(p)
	slices.Sort(s)
	ref := float64(s[len(s)*9/10])
	limit := trimCoverage * ref
	lo, hi = 0, len(p)
	for lo < hi-1 && float64(p[lo]) < limit {
		lo++
	}
	for hi-1 > lo && float64(p[hi-1]) < limit {
		hi--
	}
	// Give back the tapering ends of a rotated document: going outwards,
	// coverage keeps falling steadily (an attached object's plateau does
	// not).
	step := max(1, int(rampStep*ref))
	for lo > 0 && p[lo-1] > 0 && p[lo-1] <= p[lo]-step {
		lo--
	}
	for hi < len(p) && p[hi] > 0 && p[hi] <= p[hi-1]-step {
		hi++
	}
	return lo, hi
}

// thumb is a small RGB copy of an image, each pixel the average of 3×3
// samples spread over its footprint (cheap, and enough to average out noise
// and fine print).
type thumb struct {
	w, h int
	pix  []float32 // RGB
}

func newThumb(img image.Image, side int) thumb {
	b := img.Bounds()
	s := math.Min(1, float64(side)/float64(max(b.Dx(), b.Dy())))
	w, h := max(1, int(math.Round(float64(b.Dx())*s))), max(1, int(math.Round(float64(b.Dy())*s)))
	t := thumb{w: w, h: h, pix: make([]float32, 3*w*h)}
	fx, fy := float64(b.Dx())/float64(w), float64(b.Dy())/float64(h)
	const k = 3
	at := sampler(img)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var sum [3]float32
			for j := 0; j < k; j++ {
				sy := b.Min.Y + min(b.Dy()-1, int((float64(y)+(float64(j)+0.5)/k)*fy))
				for i := 0; i < k; i++ {
					sx := b.Min.X + min(b.Dx()-1, int((float64(x)+(float64(i)+0.5)/k)*fx))
					r, g, bb := at(sx, sy)
					sum[0] += float32(r)
					sum[1] += float32(g)
					sum[2] += float32(bb)
				}
			}
			for c := range sum {
				t.pix[3*(y*w+x)+c] = sum[c] / (k * k)
			}
		}
	}
	return t
}

// plane3 is a background model: per colour channel, c = a + b·x + d·y.
type plane3 [3][3]float64

// distance is |ΔR|+|ΔG|+|ΔB| between thumbnail pixel (x, y) and the model.
func (t thumb) distance(m plane3, x, y int) float64 {
	i := 3 * (y*t.w + x)
	d := 0.0
	for c := 0; c < 3; c++ {
		d += math.Abs(float64(t.pix[i+c]) - (m[c][0] + m[c][1]*float64(x) + m[c][2]*float64(y)))
	}
	return d
}

// background fits a plane per channel to the pixels of the frame's border
// band (a smooth illumination gradient across a table is nearly linear),
// refitting twice on the pixels within 2.5 times the median distance so
// that the document or objects touching the border do not pull the fit.
// spread is the 75th percentile of the border's distance to the model:
// the background's own variation (noise, texture).
func (t thumb) background() (m plane3, spread float64) {
	band := max(1, min(t.w, t.h)/60)
	var pts [][2]int
	for y := 0; y < t.h; y++ {
		for x := 0; x < t.w; x++ {
			if x < band || y < band || x >= t.w-band || y >= t.h-band {
				pts = append(pts, [2]int{x, y})
			}
		}
	}
	use := make([]bool, len(pts))
	for i := range use {
		use[i] = true
	}
	dist := make([]float64, len(pts))
	sorted := make([]float64, len(pts))
	for iter := 0; iter < 3; iter++ {
		m = fitPlane(t, pts, use)
		for i, p := range pts {
			dist[i] = t.distance(m, p[0], p[1])
		}
		copy(sorted, dist)
		slices.Sort(sorted)
		limit := math.Max(2.5*sorted[len(sorted)/2], 6)
		for i := range use {
			use[i] = dist[i] <= limit
		}
	}
	return m, sorted[len(sorted)*3/4]
}

// fitPlane is the least-squares plane per channel through pts[i], use[i].
func fitPlane(t thumb, pts [][2]int, use []bool) plane3 {
	var a [3][3]float64
	var rhs [3][3]float64 // [channel][row]
	for i, p := range pts {
		if !use[i] {
			continue
		}
		v := [3]float64{1, float64(p[0]), float64(p[1])}
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				a[r][c] += v[r] * v[c]
			}
			for ch := 0; ch < 3; ch++ {
				rhs[ch][r] += v[r] * float64(t.pix[3*(p[1]*t.w+p[0])+ch])
			}
		}
	}
	var m plane3
	for ch := 0; ch < 3; ch++ {
		m[ch] = solve3(a, rhs[ch])
	}
	return m
}

// solve3 solves a·x = y by Cramer's rule; a singular system (all points on
// a line) gives the constant plane through their mean.
func solve3(a [3][3]float64, y [3]float64) [3]float64 {
	det := func(m [3][3]float64) float64 {
		return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
			m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
			m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	}
	d := det(a)
	if math.Abs(d) < 1e-9 {
		if a[0][0] == 0 {
			return [3]float64{}
		}
		return [3]float64{y[0] / a[0][0], 0, 0}
	}
	var x [3]float64
	for c := 0; c < 3; c++ {
		m := a
		for r := 0; r < 3; r++ {
			m[r][c] = y[r]
		}
		x[c] = det(m) / d
	}
	return x
}

func dilate(m []bool, w, h int) []bool { return morph(m, w, h, true) }
func erode(m []bool, w, h int) []bool  { return morph(m, w, h, false) }

// morph dilates (any of the 3×3 neighbourhood set) or erodes (all set;
// pixels outside the image count as set so that the frame does not eat
// a document touching it).
func morph(m []bool, w, h int, dilate bool) []bool {
	out := make([]bool, len(m))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := !dilate
			for dy := -1; dy <= 1 && v != dilate; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						continue
					}
					if m[yy*w+xx] == dilate {
						v = dilate
						break
					}
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}

type component struct {
	area int
	box  image.Rectangle
}

// label returns the 8-connected components of m (w×h) and a label per
// pixel: 0 outside m, i+1 in component i.
func label(m []bool, w, h int) ([]int32, []component) {
	labels := make([]int32, len(m))
	var out []component
	var stack []int32
	for start := range m {
		if !m[start] || labels[start] != 0 {
			continue
		}
		id := int32(len(out) + 1)
		labels[start] = id
		stack = append(stack[:0], int32(start))
		c := component{box: image.Rect(start%w, start/w, start%w+1, start/w+1)}
		for len(stack) > 0 {
			i := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			c.area++
			c.box = c.box.Union(image.Rect(x, y, x+1, y+1))
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						continue
					}
					if j := yy*w + xx; m[j] && labels[j] == 0 {
						labels[j] = id
						stack = append(stack, int32(j))
					}
				}
			}
		}
		out = append(out, c)
	}
	return labels, out
}
