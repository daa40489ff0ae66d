package mrzread

import (
	"math"
	"sort"

	"github.com/verifyd/verifyd/mrz"
)

// selectBand picks the group of 1–3 parallel, regularly spaced, MRZ-like
// lines that most looks like a machine-readable zone.
func selectBand(lines []*textLine, hint mrz.Format) []*textLine {
	var cand []*textLine
	for _, l := range lines {
		if mrzLike(l) {
			cand = append(cand, l)
		}
	}
	mid := func(l *textLine) float64 { return l.baseY((l.x0 + l.x1) / 2) }
	sort.Slice(cand, func(i, j int) bool { return mid(cand[i]) < mid(cand[j]) })
	compatible := func(a, b *textLine) (float64, bool) { // a above b
		// Heights compare as measured, or as the letters' heights where
		// one line's fillers made its median theirs (glyphHeight).
		if !similarHeights(a.h, b.h) && !similarHeights(a.hl, b.hl) || b.p < 0.88*a.p || b.p > 1.14*a.p {
			return 0, false
		}
		if math.Abs(a.slope-b.slope) > 0.04 {
			return 0, false
		}
		ov := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
		if ov < 0.4*math.Min(a.x1-a.x0, b.x1-b.x0) {
			return 0, false
		}
		xm := (math.Max(a.x0, b.x0) + math.Min(a.x1, b.x1)) / 2
		s := (b.baseY(xm) - a.baseY(xm)) / ((a.h + b.h) / 2)
		if s < 1.2 || s > 2.4 {
			return 0, false
		}
		return s, true
	}
	lineScore := func(l *textLine) float64 {
		n := (l.x1 - l.x0) / l.p
		s := math.Min(float64(len(l.comps)), 44) * l.reg
		for _, w := range []float64{30, 36, 44} {
			if math.Abs(n-w) < 2.5 {
				s *= 1.3
				break
			}
		}
		return s
	}
	var best []*textLine
	bestScore := 0.0
	for i, top := range cand {
		group := []*textLine{top}
		score := lineScore(top)
		last := top
		for len(group) < 3 {
			// The best-scoring compatible line below (pieces of one line
			// that were not joined compete; the longest wins).
			var next *textLine
			for j := i + 1; j < len(cand); j++ {
				if _, ok := compatible(last, cand[j]); ok && (next == nil || lineScore(cand[j]) > lineScore(next)) {
					next = cand[j]
				}
			}
			if next == nil {
				break
			}
			group = append(group, next)
			score += lineScore(next)
			last = next
		}
		// Every prefix of the group is a candidate too.
		for k := len(group); k >= 1; k-- {
			s := 0.0
			for _, l := range group[:k] {
				s += lineScore(l)
			}
			if k >= 2 {
				s *= 1.2
			}
			if hint != 0 && k == hint.Lines() {
				s *= 1.5
			}
			if s > bestScore {
				best, bestScore = group[:k], s
			}
		}
		_ = score
	}
	return best
}

// similarHeights reports heights of two lines of one zone, b below a.
func similarHeights(a, b float64) bool { return b >= 0.8*a && b <= 1.25*a }

// ends of a line beyond its components.
type endKind int

const (
	endClean   endKind = iota // a clear margin follows the last glyph
	endBlocked                // something large (a finger) crosses the line
	endBorder                 // the line runs off the image
)

// walkEnd extends line l from its last (dir = +1) or first (dir = -1)
// component over further ink in bin, stopping at a gap wider than a glyph
// gap, at something crossing the line, or at the image border. It returns
// the outermost ink x and why it stopped.
func walkEnd(bin []uint8, w, h int, l *textLine, dir int) (float64, endKind) {
	start := l.x1 - 1
	if dir < 0 {
		start = l.x0
	}
	last := start
	maxGap := 0.9 * l.p
	for x := start + float64(dir); ; x += float64(dir) {
		xi := int(x)
		if xi < 0 || xi >= w {
			return last, endBorder
		}
		yb := l.baseY(x)
		y0, y1 := int(yb-0.9*l.h), int(yb-0.1*l.h)
		if y0 < 0 || y1 >= h {
			return last, endBorder
		}
		ink := false
		for y := y0; y <= y1; y++ {
			if bin[y*w+xi] != 0 {
				ink = true
				break
			}
		}
		if ink {
			up := darkCount(bin, w, h, xi, int(yb-1.38*l.h), int(yb-1.12*l.h))
			down := darkCount(bin, w, h, xi, int(yb+0.15*l.h), int(yb+0.4*l.h))
			if up > 0 && down > 0 {
				return last, endBlocked
			}
			last = x
		} else if math.Abs(x-last) > maxGap {
			return last, endClean
		}
	}
}

func darkCount(bin []uint8, w, h, x, y0, y1 int) int {
	n := 0
	for y := max(y0, 0); y <= min(y1, h-1); y++ {
		if bin[y*w+x] != 0 {
			n++
		}
	}
	return n
}

// lineGeom is an MRZ line in full-resolution coordinates: its baseline and
// the x of each character cell's centre.
type lineGeom struct {
	icpt, slope float64
	h           float64
	centres     []float64 // x of the centre of each of the N cells
	pitch       []float64 // local x pitch at each cell
	found       bool      // detected (false: extrapolated from neighbours)
	leftEnd     endKind
	rightEnd    endKind
}

func (g *lineGeom) baseY(x float64) float64 { return g.icpt + g.slope*x }

// anchors are the known ends of an MRZ line: lx is the x of the centre of
// cell 0 (when left), rx that of cell n-1 (when right), full resolution.
type anchors struct {
	left, right bool
	lx, rx      float64
	// ok: both ends are real and n glyphs apart, so the line can anchor
	// the others.
	ok bool
	// span is the number of glyphs from end to end.
	span float64
}

// lineAnchors derives the anchors of a detected line from the ends of its
// ink (detection coordinates xl, xr; f scales to full resolution): the
// centre of the end glyph when the line's first (last) component is a
// single glyph at that end, else the ink edge moved in by half a glyph.
func lineAnchors(cs []comp, l *textLine, f, xl, xr float64, le, re endKind, n int) anchors {
	p := l.p * f
	first, last := &cs[l.comps[0]], &cs[l.comps[len(l.comps)-1]]
	lx, rx := xl*f+0.345*p, (xr+1)*f-0.345*p
	if first.w() <= first.h()*5/4+1 && float64(first.x0)-xl < 0.5*l.p {
		lx = first.cx() * f
	}
	if last.w() <= last.h()*5/4+1 && xr-float64(last.x1-1) < 0.5*l.p {
		rx = last.cx() * f
	}
	// Count the glyphs between the ends with the local pitch (it changes
	// along the line under perspective).
	span := (rx-lx)/p + 1
	if os, _ := numberGlyphs(cs, l, f); len(os) > 1 {
		first, last := os[0], os[len(os)-1]
		span = last.k - first.k + 1 + (first.x-lx)/localPitch(os, true, p) + (rx-last.x)/localPitch(os, false, p)
	}
	a := anchors{left: le == endClean, right: re == endClean, lx: lx, rx: rx, span: span}
	if a.left && a.right {
		a.ok = math.Abs(span-float64(n)) < 0.75
	}
	return a
}

// glyphObs is the centre x of a glyph and its cell number.
type glyphObs struct {
	x, k float64
	wide bool // estimated inside a component of several merged glyphs
	seg  int  // run of glyphs without a missing one in between
}

// numberGlyphs lists the glyph centres of line l (full resolution; f
// scales from detection coordinates) and numbers them in order: neighbours
// are round(dx / local pitch) apart, a step of two or more starts a new
// run (seg). Components of several merged glyphs are split evenly (wide).
// worstAt is the step least like a whole number of pitches.
func numberGlyphs(cs []comp, l *textLine, f float64) (os []glyphObs, worstAt int) {
	p := l.p * f
	for _, i := range l.comps {
		c := &cs[i]
		x0, x1 := float64(c.x0)*f, float64(c.x1)*f
		if c.w() <= c.h()*5/4+1 {
			os = append(os, glyphObs{x: c.cx() * f})
			continue
		}
		m := max(1, int(math.Round((x1-x0)/p-0.69))+1)
		for j := 0; j < m; j++ {
			x := x0 + 0.345*p
			if m > 1 {
				x += float64(j) * (x1 - x0 - 0.69*p) / float64(m-1)
			}
			os = append(os, glyphObs{x: x, wide: true})
		}
	}
	pl := p
	worst := 0.0
	worstAt = -1
	for i := 1; i < len(os); i++ {
		dx := os[i].x - os[i-1].x
		r := dx / pl
		m := math.Max(0, math.Round(r))
		os[i].seg = os[i-1].seg
		if m >= 2 {
			os[i].seg++
		}
		if m == 1 && !os[i].wide && !os[i-1].wide {
			pl = 0.7*pl + 0.3*dx
			if d := math.Abs(r - m); d > worst {
				worst, worstAt = d, i
			}
		}
		os[i].k = os[i-1].k + m
	}
	return os, worstAt
}

// placeCells computes the cell centres of a detected line of n cells. The
// glyph components are numbered in order along the line (neighbours are a
// whole number of pitches apart) in runs separated by gaps (covered or
// faded glyphs); the runs touching a known end are aligned with it, a 1-D
// projective map x(k) = (a + b k)/(1 + c k) — the exact form of
// perspective along a straight line — is fitted through their centres, the
// other runs are numbered by that map, and the map is fitted again.
func placeCells(cs []comp, l *textLine, f float64, an anchors, n int) *lineGeom {
	g := &lineGeom{icpt: l.icpt * f, slope: l.slope, h: l.h * f, found: true}
	p := l.p * f
	os, worstAt := numberGlyphs(cs, l, f)
	if len(os) == 0 {
		return nil
	}
	nseg := os[len(os)-1].seg + 1
	// Offsets per run; NaN: not yet known. A run is aligned with an
	// anchor only if it reaches it.
	off := make([]float64, nseg+1)
	for i := range off {
		off[i] = math.NaN()
	}
	peL, peR := localPitch(os, true, p), localPitch(os, false, p)
	first, last := os[0], os[len(os)-1]
	leftRun := an.left && math.Abs(first.x-an.lx) < 1.5*peL
	rightRun := an.right && math.Abs(last.x-an.rx) < 1.5*peR
	if leftRun {
		off[0] = math.Round((first.x-an.lx)/peL) - first.k
	}
	if rightRun {
		ro := float64(n-1) - math.Round((an.rx-last.x)/peR) - last.k
		switch {
		case nseg > 1 || !leftRun:
			off[nseg-1] = ro
		case ro != off[0] && worstAt > 0:
			// One run reaching both ends but miscounted somewhere: split
			// it at the least certain step; the left part follows the
			// left end, the right part the right end.
			for i := worstAt; i < len(os); i++ {
				os[i].seg = 1
			}
			nseg = 2
			off[1] = ro
		}
	}
	// Fit on the aligned runs and the anchors, number the other runs by
	// the fit, fit again on all glyphs.
	a, b, c := an.lx, p, 0.0
	switch {
	case an.left && an.right:
		b = (an.rx - an.lx) / float64(n-1)
	case an.right:
		a = an.rx - float64(n-1)*p
	}
	fit := func(withAnchors bool) {
		var pts [][2]float64
		for _, o := range os {
			if !o.wide && !math.IsNaN(off[o.seg]) {
				if k := o.k + off[o.seg]; k >= 0 && k < float64(n) {
					pts = append(pts, [2]float64{k, o.x})
				}
			}
		}
		// The anchors always count (they matter most when the glyphs
		// found cover only part of the line), more so in the first fit.
		copies := 2
		if withAnchors {
			copies = 3
		}
		{
			for i := 0; i < copies; i++ {
				if an.left {
					pts = append(pts, [2]float64{0, an.lx})
				}
				if an.right {
					pts = append(pts, [2]float64{float64(n - 1), an.rx})
				}
			}
		}
		if len(pts) < 2 {
			return
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i][0] < pts[j][0] })
		kmin, kmax := pts[0][0], pts[len(pts)-1][0]
		switch {
		case kmax-kmin >= 0.4*float64(n) && len(pts) >= 6:
			a, b, c = fitProjective(pts)
		case kmax-kmin >= 2:
			a, b, _ = polyfit(pts, false, func(p [2]float64) (float64, float64) { return p[0], p[1] })
			c = 0
		}
	}
	kAt := func(x float64) float64 { return (x - a) / (b - c*x) }
	fit(true)
	for s := 0; s < nseg; s++ {
		if !math.IsNaN(off[s]) {
			continue
		}
		var d []float64
		for _, o := range os {
			if o.seg == s {
				d = append(d, kAt(o.x)-o.k)
			}
		}
		off[s] = math.Round(median(d))
	}
	fit(false)
	// Drop glyphs far from the fit (a broken glyph, a speck) and refit.
	kept := os[:0:0]
	for _, o := range os {
		k := o.k + off[o.seg]
		if math.Abs(o.x-(a+b*k)/(1+c*k)) <= 0.3*p {
			kept = append(kept, o)
		}
	}
	if len(kept) >= 3 {
		os = kept
		fit(false)
	}
	g.centres = make([]float64, n)
	g.pitch = make([]float64, n)
	for k := 0; k < n; k++ {
		kk := float64(k)
		d := 1 + c*kk
		g.centres[k] = (a + b*kk) / d
		g.pitch[k] = (b - a*c) / (d * d)
	}
	// The projective fit describes perspective along a straight line;
	// lens distortion, a bent page or a printer's feed leave smooth
	// residuals it cannot follow, largest at the line's ends. Each cell
	// moves by the median residual of the glyphs within three cells of
	// it (when there are at least two, and by at most a quarter pitch).
	res := make([][2]float64, 0, len(os))
	for _, o := range os {
		if o.wide {
			continue
		}
		k := o.k + off[o.seg]
		if k < 0 || k >= float64(n) {
			continue
		}
		res = append(res, [2]float64{k, o.x - (a+b*k)/(1+c*k)})
	}
	if len(res) >= 6 {
		shift := make([]float64, n)
		var near []float64
		for k := 0; k < n; k++ {
			near = near[:0]
			for _, r := range res {
				if math.Abs(r[0]-float64(k)) <= 3 {
					near = append(near, r[1])
				}
			}
			if len(near) >= 2 {
				shift[k] = math.Max(-0.25*g.pitch[k], math.Min(0.25*g.pitch[k], median(near)))
			}
		}
		for k := range shift {
			g.centres[k] += shift[k]
		}
	}
	return g
}

// localPitch is the median distance between neighbouring glyphs among the
// first (or last) few of os.
func localPitch(os []glyphObs, first bool, p float64) float64 {
	var d []float64
	for j := 1; j < len(os) && len(d) < 6; j++ {
		i := j
		if !first {
			i = len(os) - j
		}
		a, b := os[i-1], os[i]
		if b.k-a.k == 1 && !a.wide && !b.wide {
			d = append(d, b.x-a.x)
		}
	}
	if len(d) == 0 {
		return p
	}
	return median(d)
}

// fitProjective fits x = (a + b k)/(1 + c k) through (k, x) points by
// linear least squares on x = a + b k - c k x.
func fitProjective(pts [][2]float64) (a, b, c float64) {
	var m [3][4]float64
	for _, p := range pts {
		k, x := p[0], p[1]
		row := [3]float64{1, k, -k * x}
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				m[i][j] += row[i] * row[j]
			}
			m[i][3] += row[i] * x
		}
	}
	sol, ok := solve3(m)
	if !ok || math.Abs(sol[2]*pts[len(pts)-1][0]) > 0.4 {
		a, b, _ = polyfit(pts, false, func(p [2]float64) (float64, float64) { return p[0], p[1] })
		return a, b, 0
	}
	return sol[0], sol[1], sol[2]
}

func solve3(m [3][4]float64) ([3]float64, bool) {
	for col := 0; col < 3; col++ {
		p := col
		for row := col + 1; row < 3; row++ {
			if math.Abs(m[row][col]) > math.Abs(m[p][col]) {
				p = row
			}
		}
		m[col], m[p] = m[p], m[col]
		if math.Abs(m[col][col]) < 1e-12 {
			return [3]float64{}, false
		}
		for row := 0; row < 3; row++ {
			if row != col {
				k := m[row][col] / m[col][col]
				for j := col; j < 4; j++ {
					m[row][j] -= k * m[col][j]
				}
			}
		}
	}
	return [3]float64{m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]}, true
}

// polyfit fits y = a + b t (+ c t²) by least squares.
func polyfit[T any](pts []T, quad bool, xy func(T) (float64, float64)) (a, b, c float64) {
	var s [5]float64 // Σ t^i
	var r [3]float64 // Σ y t^i
	for _, p := range pts {
		t, y := xy(p)
		tp := 1.0
		for i := 0; i < 5; i++ {
			s[i] += tp
			if i < 3 {
				r[i] += y * tp
			}
			tp *= t
		}
	}
	if !quad {
		den := s[0]*s[2] - s[1]*s[1]
		if den == 0 {
			return r[0] / math.Max(s[0], 1), 0, 0
		}
		b = (s[0]*r[1] - s[1]*r[0]) / den
		a = (r[0] - b*s[1]) / s[0]
		return a, b, 0
	}
	m := [3][4]float64{{s[0], s[1], s[2], r[0]}, {s[1], s[2], s[3], r[1]}, {s[2], s[3], s[4], r[2]}}
	for col := 0; col < 3; col++ {
		p := col
		for row := col + 1; row < 3; row++ {
			if math.Abs(m[row][col]) > math.Abs(m[p][col]) {
				p = row
			}
		}
		m[col], m[p] = m[p], m[col]
		if m[col][col] == 0 {
			return polyfit(pts, false, xy)
		}
		for row := 0; row < 3; row++ {
			if row != col {
				k := m[row][col] / m[col][col]
				for j := col; j < 4; j++ {
					m[row][j] -= k * m[col][j]
				}
			}
		}
	}
	return m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]
}
