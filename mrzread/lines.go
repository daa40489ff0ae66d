package mrzread

import (
	"math"
	"slices"
	"sort"
)

// textLine is a row of glyph-like components (in detection coordinates).
type textLine struct {
	comps []int // indices into the component slice, left to right
	// Baseline: bottom y = icpt + slope*x.
	icpt, slope float64
	h           float64 // median glyph height
	hl          float64 // its letters' height, fillers left out (glyphHeight)
	p           float64 // median pitch (x distance between neighbours)
	reg         float64 // fraction of neighbour distances that are whole pitches
	narrow      int     // components no wider than a glyph
	x0, x1      float64 // extent of its components
}

func (l *textLine) baseY(x float64) float64 { return l.icpt + l.slope*x }

// glyphLike reports whether c could be one MRZ glyph (or two merged).
func glyphLike(c *comp, minH, maxH int) bool {
	h, w := c.h(), c.w()
	if h < minH || h > maxH || w > 2*h+2 || w < 1 {
		return false
	}
	fill := float64(c.area) / float64(w*h)
	return fill > 0.08 && fill < 0.9
}

// chains links each glyph-like component to its nearest right neighbour of
// similar height on the same row and returns the resulting rows.
func chains(cs []comp, cand []int) [][]int {
	sort.Slice(cand, func(i, j int) bool { return cs[cand[i]].x0 < cs[cand[j]].x0 })
	n := len(cand)
	next := make([]int, n)
	nextCost := make([]float64, n)
	for i := range next {
		next[i] = -1
	}
	for ai := 0; ai < n; ai++ {
		a := &cs[cand[ai]]
		ha := float64(a.h())
		limit := float64(a.x1) + 1.1*ha
		best, bestCost := -1, math.Inf(1)
		for bi := ai + 1; bi < n; bi++ {
			b := &cs[cand[bi]]
			if float64(b.x0) > limit {
				break
			}
			if b.cx() <= a.cx()+0.3*ha {
				continue
			}
			hb := float64(b.h())
			if hb < 0.7*ha || hb > 1.43*ha {
				continue
			}
			ov := min(a.y1, b.y1) - max(a.y0, b.y0)
			if float64(ov) < 0.5*math.Min(ha, hb) {
				continue
			}
			dx := b.cx() - a.cx()
			if dx > 1.8*math.Max(ha, hb) {
				continue
			}
			dy := math.Min(math.Abs(b.bottom()-a.bottom()), math.Abs(b.centreY()-a.centreY()))
			if dy > 0.25*math.Max(ha, hb)+0.14*dx {
				continue
			}
			cost := dx + 3*dy
			if cost < bestCost {
				best, bestCost = bi, cost
			}
		}
		next[ai], nextCost[ai] = best, bestCost
	}
	// Keep a link only if a is also b's best predecessor.
	prev := make([]int, n)
	prevCost := make([]float64, n)
	for i := range prev {
		prev[i] = -1
		prevCost[i] = math.Inf(1)
	}
	for ai, b := range next {
		if b >= 0 && nextCost[ai] < prevCost[b] {
			prev[b], prevCost[b] = ai, nextCost[ai]
		}
	}
	for ai, b := range next {
		if b >= 0 && prev[b] != ai {
			next[ai] = -1
		}
	}
	hasPrev := make([]bool, n)
	for _, b := range next {
		if b >= 0 {
			hasPrev[b] = true
		}
	}
	var out [][]int
	for ai := 0; ai < n; ai++ {
		if hasPrev[ai] {
			continue
		}
		var ch []int
		for i := ai; i >= 0; i = next[i] {
			ch = append(ch, cand[i])
		}
		out = append(out, ch)
	}
	return out
}

// fitLine fits the baseline of l through the bottoms of its full-height
// components (least squares, then again without outliers) and computes
// its height, pitch and regularity.
func fitLine(cs []comp, l *textLine) {
	hs := make([]float64, 0, len(l.comps))
	for _, i := range l.comps {
		c := &cs[i]
		if c.w() <= c.h()*5/4+1 {
			hs = append(hs, float64(c.h()))
		}
	}
	if len(hs) == 0 {
		for _, i := range l.comps {
			hs = append(hs, float64(cs[i].h()))
		}
	}
	l.narrow = len(hs)
	slices.Sort(hs)
	l.h = median(hs)
	l.hl = glyphHeight(hs)
	use := make([]bool, len(l.comps))
	for k, i := range l.comps {
		c := &cs[i]
		use[k] = float64(c.h()) >= 0.8*l.h && float64(c.h()) <= 1.3*l.h
	}
	for iter := 0; iter < 3; iter++ {
		var sx, sy, sxx, sxy, n float64
		for k, i := range l.comps {
			if !use[k] {
				continue
			}
			x, y := cs[i].cx(), cs[i].bottom()
			sx += x
			sy += y
			sxx += x * x
			sxy += x * y
			n++
		}
		if n == 0 {
			break
		}
		den := n*sxx - sx*sx
		if n >= 2 && den > 1e-9 {
			l.slope = (n*sxy - sx*sy) / den
		} else {
			l.slope = 0
		}
		if math.Abs(l.slope) > 0.2 {
			l.slope = math.Copysign(0.2, l.slope)
		}
		l.icpt = (sy - l.slope*sx) / n
		if iter == 2 {
			break
		}
		for k, i := range l.comps {
			if use[k] && math.Abs(cs[i].bottom()-l.baseY(cs[i].cx())) > 0.2*l.h+1 {
				use[k] = false
			}
		}
	}
	var dxs []float64
	for k := 1; k < len(l.comps); k++ {
		a, b := &cs[l.comps[k-1]], &cs[l.comps[k]]
		if a.w() > a.h()*5/4+1 || b.w() > b.h()*5/4+1 {
			continue
		}
		if dx := b.cx() - a.cx(); dx > 0.55*l.h && dx < maxStep*l.h {
			dxs = append(dxs, dx)
		}
	}
	if len(dxs) >= 2 {
		l.p = median(dxs)
	} else {
		l.p = 0.97 * l.h
	}
	// Regularity is judged against the local pitch (the median of the
	// nearest neighbour distances of whole glyphs around each pair):
	// perspective makes the pitch change along a line, by half from end
	// to end for a card held at a steep angle, and a line's median pitch
	// would call its ends irregular.
	type step struct{ x, dx float64 }
	var steps []step
	for k := 1; k < len(l.comps); k++ {
		a, b := &cs[l.comps[k-1]], &cs[l.comps[k]]
		if a.w() > a.h()*5/4+1 || b.w() > b.h()*5/4+1 {
			continue
		}
		if dx := b.cx() - a.cx(); dx > 0.55*l.h && dx < maxStep*l.h {
			steps = append(steps, step{(a.cx() + b.cx()) / 2, dx})
		}
	}
	var win [6]float64
	localP := func(x float64) float64 {
		if len(steps) < 5 {
			return l.p
		}
		i := sort.Search(len(steps), func(i int) bool { return steps[i].x >= x })
		lo, hi := max(i-3, 0), min(i+3, len(steps))
		d := win[:0]
		for _, s := range steps[lo:hi] {
			d = append(d, s.dx)
		}
		slices.Sort(d)
		return d[len(d)/2]
	}
	good, all := 0, 0
	for k := 1; k < len(l.comps); k++ {
		a, b := &cs[l.comps[k-1]], &cs[l.comps[k]]
		if a.w() > a.h()*5/4+1 || b.w() > b.h()*5/4+1 {
			continue
		}
		r := (b.cx() - a.cx()) / localP((a.cx()+b.cx())/2)
		if r > 6 {
			continue
		}
		all++
		if math.Abs(r-math.Round(r)) < 0.18 && r > 0.5 {
			good++
		}
	}
	if all > 0 {
		l.reg = float64(good) / float64(all)
	}
	l.x0, l.x1 = math.Inf(1), math.Inf(-1)
	for _, i := range l.comps {
		l.x0 = math.Min(l.x0, float64(cs[i].x0))
		l.x1 = math.Max(l.x1, float64(cs[i].x1))
	}
}

// maxStep is the longest step from one glyph to the next, in glyph
// heights (the line's median height), that measures a line's pitch. An
// MRZ's pitch is 1.08 of its letters' height and 1.35 of its fillers'
// (four fifths as tall), which are the median of a line of a short name;
// a page tilted away from the camera is squashed in height and not in
// width, and a passport page held at 33° (fillers 16 px tall, 27 px
// apart: 1.7) had its first line's pitch measured from a few stray steps
// and was not taken for a zone's line (independently generated photos,
// docs/accuracy.md, twenty-sixth pass). 1.8 keeps a glyph missing between
// two (2.2 and more) out.
const maxStep = 1.8

// glyphHeight is the height of a line's letters and digits, of its
// glyphs' heights sorted: the median of the heights that reach 0.85 of its
// fifth tallest (of its quarter tallest, on lines shorter than 20). A zone's fillers are shorter than
// its letters in OCR-B (about four fifths) and a zone's line often holds
// more fillers than letters (a TD1 card's first line, 16 of 30; a
// passport's first line of a short name, 30 of 44): the median of all its
// glyphs is then the fillers' height, and a card held at 29° (its line
// less regular than a flat one's, so judged by the tighter ratio of
// mrzLike) had its first line's pitch at 1.45 of it and was not taken for
// a zone's (independent seed 44, docs/accuracy.md). Every zone's line
// holds at least five letters or digits; lines of fewer than eight glyphs
// keep the median, since one tall speck would be a quarter of them.
//
// It only judges whether a line is a zone's (mrzLike, and whether two
// lines are one zone's): the median, a little lower than this on a line
// without fillers, stays what cells are placed and sampled by, which the
// reader's other measures (the scale search, the fitted shifts) were
// measured against.
func glyphHeight(sorted []float64) float64 {
	if len(sorted) < 8 {
		return median(sorted)
	}
	ref := sorted[len(sorted)-min(5, len(sorted)/4)]
	i, _ := slices.BinarySearch(sorted, 0.85*ref)
	return sorted[i+(len(sorted)-i)/2]
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// findLines groups glyph-like components into text lines: nearest-neighbour
// chains, then chains of at least 4 glyphs absorb collinear pieces beyond
// their ends (the parts of a line on either side of a finger, isolated
// glyphs).
func findLines(cs []comp, minH, maxH int) []*textLine {
	var cand []int
	for i := range cs {
		if glyphLike(&cs[i], minH, maxH) {
			cand = append(cand, i)
		}
	}
	chs := chains(cs, cand)
	lines := make([]*textLine, 0, len(chs))
	for _, ch := range chs {
		l := &textLine{comps: ch}
		fitLine(cs, l)
		lines = append(lines, l)
	}
	sort.Slice(lines, func(i, j int) bool { return len(lines[i].comps) > len(lines[j].comps) })
	absorbed := make([]bool, len(lines))
	for i, a := range lines {
		if absorbed[i] || len(a.comps) < 4 {
			continue
		}
		for changed := true; changed; {
			changed = false
			for j, b := range lines {
				if j == i || absorbed[j] {
					continue
				}
				if !collinear(cs, a, b) {
					continue
				}
				a.comps = append(a.comps, b.comps...)
				sort.Slice(a.comps, func(x, y int) bool { return cs[a.comps[x]].x0 < cs[a.comps[y]].x0 })
				fitLine(cs, a)
				absorbed[j] = true
				changed = true
			}
		}
	}
	var out []*textLine
	for i, l := range lines {
		if !absorbed[i] {
			out = append(out, l)
		}
	}
	return out
}

// collinear reports whether line b continues line a beyond one of its
// ends: glyph-sized components on a's baseline, within 25 glyph heights,
// each a whole number of pitches from a's end glyph and from each other
// (as the visible parts of a partly covered MRZ line are).
func collinear(cs []comp, a, b *textLine) bool {
	if b.h < 0.7*a.h || b.h > 1.4*a.h {
		return false
	}
	var gap, from float64
	right := b.x0 >= a.x1-0.3*a.h
	switch {
	case right:
		gap = b.x0 - a.x1
		from = cs[a.comps[len(a.comps)-1]].cx()
	case b.x1 <= a.x0+0.3*a.h:
		gap = a.x0 - b.x1
		from = cs[a.comps[0]].cx()
	default:
		return false
	}
	if gap > 25*a.h {
		return false
	}
	// The pitch near that end of a (perspective changes it along the
	// line), averaged with b's own.
	pitch := endPitch(cs, a, right)
	if len(b.comps) >= 3 && b.p > 0.8*pitch && b.p < 1.25*pitch {
		pitch = (pitch + b.p) / 2
	}
	whole := func(d float64) bool {
		r := math.Abs(d) / pitch
		return r > 0.6 && math.Abs(r-math.Round(r)) < 0.2+0.01*r
	}
	// The baseline b's components must sit on: a's, extended. A line
	// bows (a bent page, lens distortion, perspective on a turned card),
	// and a piece beyond a break in it (merged glyphs, a blot) then
	// leaves a's straight extension: a piece close by, of several
	// glyphs, may follow its own baseline if that meets a's at the
	// break at a similar angle.
	if !onBaseline(cs, a, b, a.baseY) {
		xj := (b.x0 + a.x1) / 2
		if !right {
			xj = (b.x1 + a.x0) / 2
		}
		if gap > 3*a.h || len(b.comps) < 3 || math.Abs(a.slope-b.slope) > 0.1 ||
			math.Abs(a.baseY(xj)-b.baseY(xj)) > 0.2*a.h+1 || !onBaseline(cs, a, b, b.baseY) {
			return false
		}
	}
	// Every component sits on a baseline (onBaseline above); a few odd
	// ones (a glyph half lost in glare) are tolerated.
	prev, bad := from, 0
	for _, i := range b.comps {
		c := &cs[i]
		h := float64(c.h())
		if h < 0.7*a.h || h > 1.4*a.h || float64(c.w()) > 1.3*h+1 || !whole(c.cx()-prev) {
			bad++
			continue
		}
		if right {
			prev = c.cx()
		}
	}
	return bad <= len(b.comps)/4
}

// onBaseline reports whether every component of b sits on the baseline
// base, as glyphs of a's height would.
func onBaseline(cs []comp, a, b *textLine, base func(float64) float64) bool {
	for _, i := range b.comps {
		c := &cs[i]
		if math.Abs(c.bottom()-base(c.cx())) > 0.3*a.h+1 ||
			math.Abs(c.centreY()-(base(c.cx())-a.h/2)) > 0.35*a.h+1 {
			return false
		}
	}
	return true
}

// endPitch is the median distance between neighbouring glyphs among the
// last (right) or first six glyphs of l.
func endPitch(cs []comp, l *textLine, right bool) float64 {
	var d []float64
	n := len(l.comps)
	for j := 1; j < n && j <= 6; j++ {
		i := j
		if right {
			i = n - j
		}
		a, b := &cs[l.comps[i-1]], &cs[l.comps[i]]
		if dx := b.cx() - a.cx(); dx > 0.55*l.h && dx < 1.5*l.h {
			d = append(d, dx)
		}
	}
	if len(d) == 0 {
		return l.p
	}
	return median(d)
}

// mrzLike reports whether l looks like a line of an MRZ: many glyphs at a
// regular pitch close to their height. The pitch is fixed (2.54 mm) but
// the glyphs' height is the printer's: a line of 20 or more glyphs at a
// strictly regular pitch may have glyphs as small as 0.63 of it. An
// independently generated TD1 card printed its glyphs 0.7 of the pitch
// tall; its first and last lines (pitch 1.41 and 1.46 heights) were not
// taken for the zone's, and the zone was read from its middle line down,
// a line off (seed 3, docs/accuracy.md). Shorter or less regular lines
// keep the tighter ratio that sets them apart from printed text.
func mrzLike(l *textLine) bool {
	return mrzProportions(l, l.h) || l.hl > l.h && mrzProportions(l, l.hl)
}

// mrzProportions is mrzLike for a line whose glyphs are h tall.
func mrzProportions(l *textLine, h float64) bool {
	r := l.p / h
	if l.narrow >= 20 && l.reg >= 0.9 && r > 0.7 && r < 1.6 {
		return true
	}
	return l.narrow >= 5 && r > 0.7 && r < 1.35 && l.reg >= 0.55
}
