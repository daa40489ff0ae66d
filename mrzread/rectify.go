package mrzread

import (
	"image"
	"math"
	"sort"

	"github.com/verifyd/verifyd/mrz"
)

// nominalSpacing is the distance between the baselines of an MRZ's
// lines in character pitches: 6 lines and 10 characters per inch.
const nominalSpacing = 10.0 / 6

// rectPitch is the character pitch, in pixels, of the rectified zone.
const rectPitch = 24

// detection is the detection-scale view of an image: grey levels shrunk
// by an integer factor, their adaptive threshold and its components.
type detection struct {
	f   int
	det *gray
	bin []uint8
	cs  []comp
	// maxH is the tallest glyph looked for.
	maxH int
}

func detect(g *gray) *detection { return detectR(g, 0) }

// detectSide is the longest side lines are first looked for on.
const detectSide = 1700

// detectR is detect with the threshold window's radius r (0: 1/25 of the
// image's smaller side).
func detectR(g *gray, r int) *detection { return detectS(g, r, detectSide) }

// shrinkFactor is the smallest whole factor that shrinks g to at most
// side pixels a side (1 when side is 0).
func shrinkFactor(g *gray, side int) int {
	f := 1
	for side > 0 && max(g.w, g.h)/f > side {
		f++
	}
	return f
}

// detectS is detectR on g shrunk by a whole factor to at most side pixels
// a side (0: not shrunk).
func detectS(g *gray, r, side int) *detection {
	f := shrinkFactor(g, side)
	det := g.shrink(f)
	if r <= 0 {
		r = min(max(min(det.w, det.h)/25, 10), 100)
	}
	bin := binarize(det, r)
	return &detection{f: f, det: det, bin: bin, cs: components(bin, det.w, det.h), maxH: max(det.h/8, 8)}
}

// textAngle estimates the direction of text lines in degrees (−45…45,
// clockwise positive): the mode of the directions from each glyph-sized
// component to its nearest neighbour of similar size about one glyph away.
// ok is false when too few pairs agree.
func textAngle(cs []comp, minH, maxH int) (deg float64, ok bool) {
	var idx []int
	for i := range cs {
		if glyphLike(&cs[i], minH, maxH) {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return cs[idx[a]].cx() < cs[idx[b]].cx() })
	var hist [91]float64 // 1° bins, −45…45
	var angles []float64
	for ai, i := range idx {
		a := &cs[i]
		size := math.Max(float64(a.h()), float64(a.w()))
		best, bestD := -1, math.Inf(1)
		// Neighbours to the right (the left one is found from its side).
		for bi := ai + 1; bi < len(idx); bi++ {
			b := &cs[idx[bi]]
			dx := b.cx() - a.cx()
			if dx > 1.8*size {
				break
			}
			sb := math.Max(float64(b.h()), float64(b.w()))
			if sb < 0.75*size || sb > 1.33*size {
				continue
			}
			dy := b.centreY() - a.centreY()
			d := math.Hypot(dx, dy)
			if d < 0.5*size || d > 1.8*size {
				continue
			}
			if d < bestD {
				best, bestD = bi, d
			}
		}
		if best < 0 {
			continue
		}
		b := &cs[idx[best]]
		deg := math.Atan2(b.centreY()-a.centreY(), b.cx()-a.cx()) * 180 / math.Pi
		if deg < -45 || deg > 45 {
			continue
		}
		angles = append(angles, deg)
		k := int(math.Round(deg)) + 45
		for j := max(k-1, 0); j <= min(k+1, 90); j++ {
			hist[j] += 1 - 0.5*math.Abs(float64(j-k))
		}
	}
	peak := 0
	for k := range hist {
		if hist[k] > hist[peak] {
			peak = k
		}
	}
	if hist[peak] < 8 {
		return 0, false
	}
	c := float64(peak - 45)
	var near []float64
	for _, a := range angles {
		if math.Abs(a-c) <= 2 {
			near = append(near, a)
		}
	}
	if len(near) < 6 {
		return c, true
	}
	return median(near), true
}

// rotated returns g turned by −deg about its centre onto a canvas large
// enough to hold it (so that text at deg becomes level) and the map from
// the new image's coordinates back to g's.
func (g *gray) rotated(deg float64) (*gray, func(x, y float64) (float64, float64)) {
	a := deg * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	W := int(math.Ceil(float64(g.w)*math.Abs(cos) + float64(g.h)*math.Abs(sin)))
	H := int(math.Ceil(float64(g.w)*math.Abs(sin) + float64(g.h)*math.Abs(cos)))
	cx, cy := float64(g.w)/2, float64(g.h)/2
	CX, CY := float64(W)/2, float64(H)/2
	back := func(x, y float64) (float64, float64) {
		dx, dy := x-CX, y-CY
		return cx + dx*cos - dy*sin, cy + dx*sin + dy*cos
	}
	out := &gray{w: W, h: H, pix: make([]uint8, W*H)}
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			sx, sy := back(float64(x)+0.5, float64(y)+0.5)
			// The built-in min and max, not math's calls: the same for
			// numbers, and this runs for every pixel of every levelling.
			sx = min(max(sx, 0.5), float64(g.w)-0.5)
			sy = min(max(sy, 0.5), float64(g.h)-0.5)
			v, _ := g.bilinear(sx, sy)
			out.pix[y*W+x] = uint8(v + 0.5)
		}
	}
	return out, back
}

// levelled is the detection image turned by −deg (text at deg level),
// its threshold, components and the zone's lines found in it.
type levelled struct {
	deg  float64
	det  *gray
	back func(x, y float64) (float64, float64)
	bin  []uint8
	cs   []comp
	band []*textLine
}

// level turns d's image by −deg and finds the zone's lines in it.
func level(d *detection, deg float64, minH int, hint mrz.Format) *levelled {
	rdet, back := d.det.rotated(deg)
	r := min(max(min(rdet.w, rdet.h)/25, 10), 100)
	bin := binarize(rdet, r)
	cs := components(bin, rdet.w, rdet.h)
	lines := findLines(cs, minH, max(rdet.h/8, 8))
	return &levelled{deg: deg, det: rdet, back: back, bin: bin, cs: cs, band: selectBand(lines, hint)}
}

// curve is a baseline y = a + b (x−x0) + c (x−x0)².
type curve struct{ x0, a, b, c float64 }

func (q curve) at(x float64) float64 {
	t := x - q.x0
	return q.a + q.b*t + q.c*t*t
}

// fitCurve fits the baseline of l through the bottoms of its full-height
// glyphs with a quadratic term (a bent page, lens distortion), dropping
// outliers; the quadratic term is kept only when the line has enough
// glyphs spread along it.
func fitCurve(cs []comp, l *textLine) curve {
	type pt struct{ x, y float64 }
	var pts []pt
	for _, i := range l.comps {
		c := &cs[i]
		h := float64(c.h())
		if h >= 0.8*l.h && h <= 1.3*l.h && float64(c.w()) <= 1.25*h+1 {
			pts = append(pts, pt{c.cx(), c.bottom()})
		}
	}
	x0 := (l.x0 + l.x1) / 2
	q := curve{x0: x0, a: l.baseY(x0), b: l.slope}
	quad := len(pts) >= 10
	for iter := 0; iter < 3 && len(pts) >= 3; iter++ {
		a, b, c := polyfit(pts, quad, func(p pt) (float64, float64) { return p.x - x0, p.y })
		q = curve{x0: x0, a: a, b: b, c: c}
		var in []pt
		for _, p := range pts {
			if math.Abs(p.y-q.at(p.x)) <= 0.15*l.h+1 {
				in = append(in, p)
			}
		}
		if len(in) == len(pts) || len(in) < 3 {
			break
		}
		pts = in
	}
	return q
}

// readRectified finds the zone at any angle up to ±45°, fits each line's
// baseline with a curvature term, finds the direction of its columns
// (slantProfile) and its height across the lines (from their spacing),
// resamples the zone onto a straight, level, upright band of
// rectPitch-pixel pitch (rotation, bend, lens distortion, the lean and
// foreshortening of a document held at an angle, and scale removed;
// the pitch's change along the lines under perspective is followed by
// the band's columns, what remains of it is left to the cell fit) and
// reads that band. The Quad and Band of the result are in g's
// coordinates.
func readRectified(g *gray, d *detection, ts *templateSet, hint mrz.Format) (Result, error) {
	minH, maxH := 7, max(d.det.h/8, 8)
	deg, ok := textAngle(d.cs, minH, maxH)
	if !ok {
		return Result{}, ErrNoMRZ
	}
	// The zone's own lines say how level the turn left them: other text
	// on the document, seen at another angle under perspective, can
	// outvote them in textAngle. One more turn by their slope.
	var lv *levelled
	for pass := 0; pass < 2; pass++ {
		l := level(d, deg, minH, hint)
		if lv == nil || len(l.band) >= len(lv.band) {
			lv = l
		}
		if pass > 0 || len(l.band) == 0 {
			break
		}
		var sl []float64
		for _, b := range l.band {
			sl = append(sl, b.slope)
		}
		ms := median(sl)
		if math.Abs(ms) < 0.035 {
			break
		}
		deg += math.Atan(ms) * 180 / math.Pi
	}
	if len(lv.band) == 0 {
		return Result{}, ErrNoMRZ
	}
	deg = lv.deg
	back, bin, cs, band := lv.back, lv.bin, lv.cs, lv.band
	rw, rh := lv.det.w, lv.det.h
	curves := make([]curve, len(band))
	x0, x1 := math.Inf(1), math.Inf(-1)
	var ps []float64
	for i, l := range band {
		curves[i] = fitCurve(cs, l)
		x0, x1 = math.Min(x0, l.x0), math.Max(x1, l.x1)
		ps = append(ps, l.p)
	}
	// Lines of one zone bend alike: a line with a curvature far from the
	// others' (few glyphs) takes theirs.
	if len(band) >= 2 {
		var cv []float64
		for _, q := range curves {
			cv = append(cv, q.c)
		}
		mc := median(cv)
		for i := range curves {
			if len(band[i].comps) < 12 {
				q := curves[i]
				xm := (band[i].x0 + band[i].x1) / 2
				y := q.at(xm)
				q.c = mc
				q.a += y - q.at(xm)
				curves[i] = q
			}
		}
	}
	p := median(ps)     // detection pixels per character
	s := p / rectPitch  // detection pixels per rectified pixel
	h := band[0].h      // glyph height
	spacing := 1.65 * h // between baselines
	if len(band) >= 2 {
		xm := (x0 + x1) / 2
		spacing = (curves[len(curves)-1].at(xm) - curves[0].at(xm)) / float64(len(curves)-1)
		if spacing < 1.1*h {
			return Result{}, ErrNoMRZ
		}
	}
	// The vertical scale: the document's columns may be foreshortened
	// differently from its lines (a card held at an angle squashes the
	// glyphs across the line). The lines of an MRZ are printed at 6 per
	// inch and its characters at 10 per inch, so the distance between
	// baselines is nominalSpacing pitches on every document; resampling
	// the band so that it is restores the glyphs' height (what remains,
	// another printer's glyph height, is left to the per-line glyph
	// scale, see rematchLine).
	sv := s // detection pixels per rectified pixel, across the lines
	if len(band) >= 2 {
		sv = s * math.Min(math.Max(spacing/(nominalSpacing*p), 0.7), 1.4)
	}
	top := spacing + 1.4*h // above the first baseline: a missing line, then margin
	bot := spacing + 0.9*h
	xa, xb := x0-3*p, x1+3*p
	// Along the lines the pitch changes under perspective (the far end
	// of a card held at an angle is smaller): the band's columns follow
	// the local pitch pa + p1 (x − xa), so that every glyph of the band
	// is as wide as it is tall there (the cells are sampled square).
	pa, p1 := pitchTrend(cs, band, xa, p)
	uOf := func(x float64) float64 { // band column of x
		if math.Abs(p1) < 1e-6 {
			return (x - xa) / pa * rectPitch
		}
		return rectPitch / p1 * math.Log(1+p1*(x-xa)/pa)
	}
	xOf := func(u float64) float64 { // x of band column u
		if math.Abs(p1) < 1e-6 {
			return xa + u*pa/rectPitch
		}
		return xa + pa/p1*(math.Exp(p1*u/rectPitch)-1)
	}
	W := int(uOf(xb))
	sMax := math.Max(pa, pa+p1*(xb-xa)) / rectPitch
	var V0, Sr float64
	m := len(curves)
	// Under perspective the document's columns are not perpendicular to
	// its lines. Their direction at either end comes from the ink
	// (slantProfile); failing that, since the lines of a zone start and
	// end in the same columns, from where the lines start and end (when
	// they agree).
	shear := func(ends []float64) float64 {
		if m < 2 {
			return 0
		}
		var pts [][2]float64
		for i, x := range ends {
			pts = append(pts, [2]float64{curves[i].at(x), x})
		}
		a, b, _ := polyfit(pts, false, func(q [2]float64) (float64, float64) { return q[0], q[1] })
		for _, q := range pts {
			if math.Abs(q[1]-(a+b*q[0])) > 0.35*p {
				return 0 // a line not found to its end
			}
		}
		if math.Abs(b) > 0.5 {
			return 0
		}
		return b
	}
	var starts, stops []float64
	for _, l := range band {
		starts = append(starts, float64(cs[l.comps[0]].cx()))
		stops = append(stops, float64(cs[l.comps[len(l.comps)-1]].cx()))
	}
	shL, shR := shear(starts), shear(stops)
	if l, r, ok := slantProfile(bin, rw, rh, band, curves, x0, x1); ok {
		shL, shR = l, r
	}
	mid := curves[m/2]
	yAt := func(x, v float64) float64 {
		if m == 1 {
			return curves[0].at(x) + (v-V0)*sv
		}
		t := (v - V0) / Sr
		i := min(max(int(math.Floor(t)), 0), m-2)
		y0, y1 := curves[i].at(x), curves[i+1].at(x)
		return y0 + (t-float64(i))*(y1-y0)
	}
	// toRot maps rectified (u, v) to the rotated detection frame.
	toRot := func(u, v float64) (float64, float64) {
		xl := xOf(u)
		t := clamp01((xl - x0) / math.Max(x1-x0, 1))
		sh := shL*(1-t) + shR*t
		x := xl
		for it := 0; it < 2; it++ {
			x = xl + sh*(yAt(x, v)-mid.at(x))
		}
		return x, yAt(x, v)
	}
	f := float64(d.f)
	toFull := func(u, v float64) (float64, float64) {
		x, y := back(toRot(u, v))
		return x * f, y * f
	}
	var res Result
	var err error
	for pass := 0; ; pass++ {
		V0, Sr = top/sv, spacing/sv
		H := int((top + bot + spacing*float64(len(band)-1)) / sv)
		if W < 32 || H < 32 || W > 4000 || H > 2000 {
			return Result{}, ErrNoMRZ
		}
		rect := resample(g, W, H, math.Max(sMax, sv)*f, toFull)
		rd := detectR(rect, 2*rectPitch)
		rd.maxH = 3 * rectPitch
		res, err = readZone(rect, rd, ts, hint)
		// Only one line was found at detection scale (the others broken
		// up by the angle, blur or a shadow): the band's height was a
		// guess, and the lines found in the band say how far off it was.
		// One more pass at their spacing.
		if pass > 0 || len(band) >= 2 || err != nil || res.spacing == 0 || math.Abs(res.spacing/nominalSpacing-1) <= 0.04 {
			break
		}
		sv *= math.Min(math.Max(res.spacing/nominalSpacing, 0.7), 1.4)
	}
	if err != nil {
		return Result{}, err
	}
	// Back to g's coordinates.
	minP, maxP := image.Pt(math.MaxInt, math.MaxInt), image.Pt(math.MinInt, math.MinInt)
	for i, q := range res.Quad {
		fx, fy := toFull(float64(q.X), float64(q.Y))
		pt := image.Pt(int(math.Round(fx)), int(math.Round(fy)))
		res.Quad[i] = pt
		minP = image.Pt(min(minP.X, pt.X), min(minP.Y, pt.Y))
		maxP = image.Pt(max(maxP.X, pt.X), max(maxP.Y, pt.Y))
		if !res.Valid && (fx < 0 || fy < 0 || fx > float64(g.w) || fy > float64(g.h)) {
			// The zone runs off the image (the rectified band shows paper
			// white there). A reading that verifies read every cell: a
			// corner just beyond the frame does not make it partial.
			res.CutOff = true
			res.Valid = false
		}
	}
	res.Band = image.Rectangle{minP, maxP}.Intersect(image.Rect(0, 0, g.w, g.h))
	res.Skew += deg
	return res, nil
}

// pitchTrend fits the pitch of the zone's lines as a straight function
// of x, pa + p1 (x − xa), through the distances between neighbouring
// whole glyphs (dropping those more than 15 % off the fit); p is the
// median pitch, returned unchanged (p1 = 0) when the glyphs are too few
// or the trend implausible (more than 3:1 over the zone and its margin).
func pitchTrend(cs []comp, band []*textLine, xa, p float64) (pa, p1 float64) {
	var pts [][2]float64
	for _, l := range band {
		for k := 1; k < len(l.comps); k++ {
			a, b := &cs[l.comps[k-1]], &cs[l.comps[k]]
			if a.w() > a.h()*5/4+1 || b.w() > b.h()*5/4+1 {
				continue
			}
			if dx := b.cx() - a.cx(); dx > 0.55*l.h && dx < 1.5*l.h {
				pts = append(pts, [2]float64{(a.cx()+b.cx())/2 - xa, dx})
			}
		}
	}
	if len(pts) < 12 {
		return p, 0
	}
	xy := func(q [2]float64) (float64, float64) { return q[0], q[1] }
	a, b, _ := polyfit(pts, false, xy)
	var in [][2]float64
	for _, q := range pts {
		if math.Abs(q[1]-(a+b*q[0])) <= 0.15*(a+b*q[0]) {
			in = append(in, q)
		}
	}
	if len(in) >= 12 {
		a, b, _ = polyfit(in, false, xy)
	}
	xmax := 0.0
	for _, q := range pts {
		xmax = math.Max(xmax, q[0])
	}
	end := a + b*(xmax+p)
	if a <= 0 || end <= 0 || end/a > 3 || a/end > 3 {
		return p, 0
	}
	return a, b
}

// resample draws the W×H rectified band whose pixel (u, v) lies at
// toFull(u, v) in g, averaging over each band pixel's footprint (step
// full-resolution pixels across, up to 4×4 samples), so that a 12 MP
// photo costs no more than a small one. Pixels outside g are white.
func resample(g *gray, W, H int, step float64, toFull func(u, v float64) (float64, float64)) *gray {
	ss := 1
	if step > 1.3 {
		ss = min(int(math.Ceil(step)), 4)
	}
	rect := &gray{w: W, h: H, pix: make([]uint8, W*H)}
	// toFull at every pixel corner; the samples inside a pixel are
	// interpolated between its corners (the map is smooth at that
	// scale), which costs one evaluation per pixel instead of ss².
	cx := make([]float64, (W+1)*(H+1))
	cy := make([]float64, (W+1)*(H+1))
	for y := 0; y <= H; y++ {
		for x := 0; x <= W; x++ {
			cx[y*(W+1)+x], cy[y*(W+1)+x] = toFull(float64(x), float64(y))
		}
	}
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			i := y*(W+1) + x
			x00, y00, x10, y10 := cx[i], cy[i], cx[i+1], cy[i+1]
			x01, y01, x11, y11 := cx[i+W+1], cy[i+W+1], cx[i+W+2], cy[i+W+2]
			var acc float64
			n := 0
			for sy := 0; sy < ss; sy++ {
				v := (float64(sy) + 0.5) / float64(ss)
				for sx := 0; sx < ss; sx++ {
					u := (float64(sx) + 0.5) / float64(ss)
					fx := (1-v)*((1-u)*x00+u*x10) + v*((1-u)*x01+u*x11)
					fy := (1-v)*((1-u)*y00+u*y10) + v*((1-u)*y01+u*y11)
					if v, ok := g.bilinear(fx, fy); ok {
						acc += v
						n++
					}
				}
			}
			if n == 0 {
				rect.pix[y*W+x] = 255
				continue
			}
			rect.pix[y*W+x] = uint8(acc/float64(n) + 0.5)
		}
	}
	return rect
}

// slantProfile estimates the direction of the zone's columns (the shear
// dx/dy of its glyphs' vertical strokes in the levelled detection frame,
// as toRot applies it) from the ink itself, at the zone's left and right
// ends: perspective leans the columns of a document held at an angle,
// and by different amounts along the line, and a printer may slant its
// glyphs. For each of four windows along the zone, the ink between each
// line's baseline and its glyphs' tops is projected onto the line along
// candidate directions; the direction along which the projection is
// sharpest (sum of squares of the profile, the classic deslanting
// criterion) is where the strokes are upright, and the columns of all
// lines of the zone line up (ICAO 9303 prints them at one pitch from
// one left margin). A straight fit through the windows' directions gives
// the shear at either end. ok is false when the windows disagree with
// any straight fit.
func slantProfile(bin []uint8, w, h int, band []*textLine, curves []curve, x0, x1 float64) (shL, shR float64, ok bool) {
	const (
		nWin   = 4
		maxSh  = 0.5
		stepSh = 0.02
	)
	nSh := int(2*maxSh/stepSh) + 1
	mid := curves[len(curves)/2]
	span := x1 - x0
	if span < 20 {
		return 0, 0, false
	}
	var ts, shs []float64
	var hist []float64
	for wi := 0; wi < nWin; wi++ {
		wa := x0 + span*float64(wi)/nWin
		wb := x0 + span*float64(wi+1)/nWin
		// Ink pixels of the window, as (x, y − mid(x)).
		var px, py []float64
		for li, l := range band {
			q := curves[li]
			for x := int(wa); x < int(wb) && x < w; x++ {
				if x < 0 {
					continue
				}
				yb := q.at(float64(x))
				ym := mid.at(float64(x))
				for y := int(yb - 1.0*l.h); y <= int(yb-0.05*l.h); y++ {
					if y >= 0 && y < h && bin[y*w+x] != 0 {
						px = append(px, float64(x)-wa)
						py = append(py, float64(y)-ym)
					}
				}
			}
		}
		if len(px) < 50 {
			continue
		}
		maxDy := 0.0
		for _, y := range py {
			maxDy = math.Max(maxDy, math.Abs(y))
		}
		off := maxSh*maxDy + 2
		nb := int(wb-wa+2*off) + 2
		if cap(hist) < nb {
			hist = make([]float64, nb)
		}
		hist = hist[:nb]
		energy := make([]float64, nSh)
		for si := 0; si < nSh; si++ {
			sh := -maxSh + float64(si)*stepSh
			clear(hist)
			for i := range px {
				u := px[i] - sh*py[i] + off
				b := int(u)
				fr := u - float64(b)
				hist[b] += 1 - fr
				hist[b+1] += fr
			}
			e := 0.0
			for _, v := range hist {
				e += v * v
			}
			energy[si] = e
		}
		best := 0
		for si := range energy {
			if energy[si] > energy[best] {
				best = si
			}
		}
		sh := -maxSh + float64(best)*stepSh
		if best > 0 && best < nSh-1 {
			a, b, c := energy[best-1], energy[best], energy[best+1]
			if den := a - 2*b + c; den < 0 {
				sh += 0.5 * (a - c) / den * stepSh
			}
		}
		ts = append(ts, (float64(wi)+0.5)/nWin)
		shs = append(shs, sh)
	}
	if len(ts) < 2 {
		return 0, 0, false
	}
	pts := make([][2]float64, len(ts))
	for i := range ts {
		pts[i] = [2]float64{ts[i], shs[i]}
	}
	xy := func(p [2]float64) (float64, float64) { return p[0], p[1] }
	a, b, _ := polyfit(pts, false, xy)
	for _, p := range pts {
		if math.Abs(p[1]-(a+b*p[0])) > 0.08 {
			return 0, 0, false
		}
	}
	return a, a + b, true
}
