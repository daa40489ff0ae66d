package viz

import (
	"image"
	"math"
	"slices"
	"sort"
)

// TextRegion finds where a photo's printed text is, and how tall its
// glyphs are: the region to read and the scale to read it at, for a
// document side that carries no MRZ to say so (an ID card's front, a
// driving licence).
//
// The document's outline is not a reliable guide: on independently
// generated photos (scripts/indepdocs) quality.FindDocument, which models
// the background from the frame's border, found no document on 91 of 193
// photos of cards and pages lying on wood, marble, cloth or patterned
// tablecloths, and the whole photo was then read at a scale where a card
// filling a third of it had 6 px per mm and its text was lost. Text is
// what the reading needs, and it looks like nothing else on a table:
// dark, glyph-sized shapes in rows of similar height. So the photo is
// thresholded locally at ~1000 px, its connected components that have a
// glyph's size and shape are chained with their neighbours along a row
// (at most ±25° off level), chains of three or more are text lines, and
// the largest cluster of lines near one another is the text. Glyph is the
// median height of the components of those lines, in photo pixels.
//
// A card filling a small part of a large photo is searched again around
// what was found: at the photo's search scale its labels are under 4 px
// and drop out, the value lines they separate fall into clusters of
// their own, and only the largest was kept — an independently generated
// card's front, a third of a 1,100 × 2,000 px photo, lost its dates and
// number so. Searched again in a window three times the region's size,
// at the larger scale the window allows, the labels come back and join
// the text; the region is what both searches found.
//
// Out of focus, a word's letters run into one shape, too wide for a
// glyph: a soft-focus photo of a permit on a pale table (independently
// generated) yielded six glyph-shaped components and no text. When the
// search finds none, it is made again taking such word-shaped components
// for runs of letters, each counted as its width in capitals.
func TextRegion(img image.Image) (rect image.Rectangle, glyph float64, ok bool) {
	return textRegion(img, true)
}

// TextBlock is TextRegion without the lines that stand apart from the
// largest block of text (see growCluster): where the text is densest,
// which is where an MRZ search in a crop does best. Given the whole
// card's text instead, the search took a bent passport page's other
// lines for the zone, where the block alone had read it (independently
// generated photos, docs/accuracy.md, tenth pass).
func TextBlock(img image.Image) (rect image.Rectangle, glyph float64, ok bool) {
	return textRegion(img, false)
}

// textRegion is TextRegion, or TextBlock when grow is false.
func textRegion(img image.Image, grow bool) (rect image.Rectangle, glyph float64, ok bool) {
	words := false
	rect, glyph, ok = textRegionIn(img, img.Bounds(), words, grow)
	if !ok {
		words = true
		if rect, glyph, ok = textRegionIn(img, img.Bounds(), words, grow); !ok {
			return rect, glyph, ok
		}
	}
	b := img.Bounds()
	win := rect.Inset(-max(rect.Dx(), rect.Dy())).Intersect(b)
	if long := max(b.Dx(), b.Dy()); long > textDetectSide && max(win.Dx(), win.Dy())*4 <= long*3 {
		// What reaches three of the window's sides is the table's
		// texture seen anew at the larger scale, not the card's labels
		// (gingham checks under an independently generated Portuguese
		// card, one of their rows broken by the card into too few
		// repeats to be taken for a pattern at the window's scale: the
		// whole window, most of a 3,900-px photo, was read for a card
		// a third of its width, and the card's dates were lost).
		if r, g, found := textRegionIn(img, win, words, grow); found && r.Overlaps(rect) && EdgesNear(r, win, 50) < 3 {
			rect, glyph = rect.Union(r), g
		}
	}
	return rect, glyph, ok
}

// textRegionIn is TextRegion's search within area b of img; words says
// whether a component may be a run of letters run together, grow whether
// the lines apart from the largest cluster join it (growCluster).
func textRegionIn(img image.Image, b image.Rectangle, words, grow bool) (rect image.Rectangle, glyph float64, ok bool) {
	long := max(b.Dx(), b.Dy())
	if long < 64 {
		return image.Rectangle{}, 0, false
	}
	s := min(1.0, textDetectSide/float64(long))
	w, h := max(int(float64(b.Dx())*s), 1), max(int(float64(b.Dy())*s), 1)
	g := image.NewGray(image.Rect(0, 0, w, h))
	scaleGray(g, img, b)
	comps := glyphComponents(g, words)
	lines := chainLines(comps)
	if grow {
		comps, lines = untiled(lines, comps)
	}
	if len(lines) == 0 {
		return image.Rectangle{}, 0, false
	}
	reach := 4.0
	if words {
		// Blurred small labels vanish, and the values' rows they
		// separated stand twice as far apart.
		reach = 8
	}
	cl := largestCluster(lines, comps, reach)
	if grow {
		comps, lines, cl = untextured(cl, lines, comps, reach, g.Rect)
		cl = growCluster(cl, lines, comps)
	}
	var box image.Rectangle
	var heights []float64
	glyphs := 0
	for _, li := range cl {
		for _, ci := range lines[li] {
			box = box.Union(comps[ci].box)
			heights = append(heights, float64(comps[ci].box.Dy()))
			glyphs += comps[ci].glyphs
		}
	}
	if glyphs < textMinGlyphs {
		return image.Rectangle{}, 0, false
	}
	sort.Float64s(heights)
	med := heights[len(heights)/2]
	// A margin of a few glyphs: the first and last letters of a field
	// are often fainter or merged with a border and not chained.
	m := int(math.Ceil(3 * med))
	box = box.Inset(-m)
	rect = image.Rect(b.Min.X+int(float64(box.Min.X)/s), b.Min.Y+int(float64(box.Min.Y)/s),
		b.Min.X+int(math.Ceil(float64(box.Max.X)/s)), b.Min.Y+int(math.Ceil(float64(box.Max.Y)/s))).Intersect(b)
	return rect, med / s, !rect.Empty()
}

const (
	// textDetectSide is the long side the photo is searched at: the
	// capitals of a card filling a third of the frame are then ~8 px.
	textDetectSide = 1000
	// textMinGlyphs is the fewest glyphs taken for text.
	textMinGlyphs = 12
)

type component struct {
	box  image.Rectangle
	area int
	// glyphs is how many letters the component stands for: one, or
	// for a run of letters run together, its width in capitals.
	glyphs int
	// depth is how much darker than its surroundings the component's
	// darkest pixel is, in grey levels.
	depth int
}

// glyphComponents returns the connected components of the pixels darker
// than their surroundings that have the size and shape of a glyph, or with
// words, also of a run of letters run together.
func glyphComponents(g *image.Gray, words bool) []component {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	// A window of a few glyph heights: ink against its own paper.
	// depth is how much darker than its surroundings a dark pixel is
	// (0: not dark).
	depth := make([]uint8, w*h)
	eachLocalMean(g, max(max(w, h)/60, 6), func(x, y, v, mean int) {
		if v < mean-12 && v*100 < mean*88 {
			depth[y*w+x] = uint8(mean - v)
		}
	})
	// Components by flood fill (8-connected).
	seen := make([]bool, w*h)
	var out []component
	var stack []int
	maxH := max(h/8, 8)
	for start := range depth {
		if depth[start] == 0 || seen[start] {
			continue
		}
		seen[start] = true
		stack = append(stack[:0], start)
		box := image.Rect(start%w, start/w, start%w+1, start/w+1)
		area, deep := 0, 0
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			area++
			deep = max(deep, int(depth[p]))
			x, y := p%w, p/w
			box = box.Union(image.Rect(x, y, x+1, y+1))
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						continue
					}
					if q := yy*w + xx; depth[q] > 0 && !seen[q] {
						seen[q] = true
						stack = append(stack, q)
					}
				}
			}
		}
		bw, bh := box.Dx(), box.Dy()
		fill := float64(area) / float64(bw*bh)
		// A glyph: 4 px to an eighth of the photo tall, not much wider
		// than tall (two or three touching letters at most), neither a
		// speck nor a solid shape: strokes fill at most about two thirds
		// of a glyph's box even in bold, a dot or a square of a
		// tablecloth's pattern three quarters or more.
		switch {
		case bh >= 4 && bh <= maxH && bw <= 3*bh && fill >= 0.08 && fill <= 0.72:
			out = append(out, component{box, area, 1, deep})
		case words && bh >= 4 && bh <= maxH && bw <= 16*bh && fill >= 0.25 && fill <= 0.85:
			// Letters blurred together, their strokes filled in: a
			// capital is about three quarters as wide as tall. A solid
			// bar or dot fills more, a frame or a stripe's outline less.
			out = append(out, component{box, area, max(1, int(float64(bw)/(0.75*float64(bh)))), deep})
		}
	}
	return out
}

// chainLines links each component to its nearest neighbour to the right
// of similar height on the same row and returns the chains of at least
// three glyphs (indices into comps).
func chainLines(comps []component) [][]int {
	order := make([]int, len(comps))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return comps[order[i]].box.Min.X < comps[order[j]].box.Min.X })
	sets := newDisjoint(len(comps))
	for oi, i := range order {
		a := comps[i].box
		ha := float64(a.Dy())
		cya := float64(a.Min.Y+a.Max.Y) / 2
		best, bestGap := -1, math.Inf(1)
		for _, j := range order[oi+1:] {
			c := comps[j].box
			gap := float64(c.Min.X - a.Max.X)
			if gap > 1.5*ha {
				break
			}
			hc := float64(c.Dy())
			if hc > 1.6*ha || ha > 1.6*hc {
				continue
			}
			// Along a row turned by at most ~25°: the centre may rise or
			// fall by half the distance between the centres.
			dx := float64(c.Min.X+c.Max.X)/2 - float64(a.Min.X+a.Max.X)/2
			dy := math.Abs(float64(c.Min.Y+c.Max.Y)/2 - cya)
			if dx <= 0 || dy > 0.5*dx+0.25*ha {
				continue
			}
			if gap < bestGap {
				best, bestGap = j, gap
			}
		}
		if best >= 0 {
			sets.join(i, best)
		}
	}
	groups := map[int][]int{}
	for i := range comps {
		groups[sets.find(i)] = append(groups[sets.find(i)], i)
	}
	var lines [][]int
	for _, g := range groups {
		if glyphsOf(g, comps) >= 3 {
			lines = append(lines, g)
		}
	}
	// A stable order, for a deterministic result.
	sort.Slice(lines, func(i, j int) bool { return slices.Min(lines[i]) < slices.Min(lines[j]) })
	return lines
}

// largestCluster groups the lines whose boxes come within reach glyph
// heights of each other and returns the group holding most glyphs:
// the document's text, not a row of blobs in a tablecloth's pattern far
// from it.
func largestCluster(lines [][]int, comps []component, reach float64) []int {
	boxes := make([]image.Rectangle, len(lines))
	hs := make([]float64, len(lines))
	for i, l := range lines {
		var hh []float64
		for _, ci := range l {
			boxes[i] = boxes[i].Union(comps[ci].box)
			hh = append(hh, float64(comps[ci].box.Dy()))
		}
		sort.Float64s(hh)
		hs[i] = hh[len(hh)/2]
	}
	sets := newDisjoint(len(lines))
	for i := range lines {
		for j := i + 1; j < len(lines); j++ {
			m := int(math.Ceil(reach * max(hs[i], hs[j])))
			mx := m
			// Fields of one row stand further apart than rows do (a
			// card's number at the top right, beyond its header). Such
			// a number, printed smaller or lower than the header, or on
			// a card turned by a few degrees, overlaps the header's
			// height by a quarter of its own (Swiss and Dutch cards of
			// independently generated photos lost theirs at a half).
			a, b := boxes[i], boxes[j]
			if ov := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y); 4*ov >= min(a.Dy(), b.Dy()) {
				mx = 2 * m
			}
			if image.Rect(a.Min.X-mx, a.Min.Y-m, a.Max.X+mx, a.Max.Y+m).Overlaps(b) {
				sets.join(i, j)
			}
		}
	}
	find := sets.find
	size := map[int]int{}
	for i, l := range lines {
		size[find(i)] += glyphsOf(l, comps)
	}
	best, bestSize := -1, -1
	for i := range lines {
		if r := find(i); size[r] > bestSize || size[r] == bestSize && r < best {
			best, bestSize = r, size[r]
		}
	}
	var out []int
	for i := range lines {
		if find(i) == best {
			out = append(out, i)
		}
	}
	return out
}

// untextured returns comps, lines and cluster cl as they are unless cl
// reaches three or more edges of area b: text that runs to the photo's
// edges on three sides is a table's texture read as rows of glyphs, not
// a document's. The card's text is then the largest cluster of the rows
// of five glyphs or more (longLines), else of the components at least
// twice as dark as the median one (inked), whichever first does not
// reach three edges; else cl stays.
func untextured(cl []int, lines [][]int, comps []component, reach float64, b image.Rectangle) ([]component, [][]int, []int) {
	if EdgesNear(clusterBox(cl, lines, comps), b, 50) < 3 {
		return comps, lines, cl
	}
	if lc, ok := longLines(lines, comps, reach, b); ok {
		return comps, lines, lc
	}
	if dark, dl, dc, ok := inked(lines, comps, reach, b); ok {
		return dark, dl, dc
	}
	return comps, lines, cl
}

// untiled returns comps without a pattern's repeats, and their lines, or
// comps and lines as they are when there is no pattern. A pattern printed
// on a cloth — polka dots, gingham checks — is one mark again and again
// at one spacing, in rows as long as a card's and as dark as its ink,
// which the texture rules (untextured) cannot tell from text and which
// need not reach the photo's edges; a card's letters differ in width,
// area and spacing. On independently generated photos a Belgian permit
// at 8 px/mm on a polka-dot cloth (docs/accuracy.md, twenty-fifth pass)
// was read over the whole photo, its dots taken for blurred words, and
// sent to review with nothing read.
//
// A pattern is tilesMin marks or more, half of the lines' marks at
// least, of one shape (repeats); once it is found, every mark of that
// shape goes, in a row or not (one whose neighbours the card hides,
// left behind, chains with others into rows around the card), and then
// every row of five marks or more, three quarters of its marks of one
// shape at one pitch: the pattern's marks cut along the photo's or the
// cloth's edge, once chained with whole ones, make rows of their own.
func untiled(lines [][]int, comps []component) ([]component, [][]int) {
	tile, shaped := repeats(lines, comps, tilesMin, 0.5)
	if tile == nil {
		return comps, lines
	}
	for ci := range comps {
		tile[ci] = tile[ci] || shaped(ci)
	}
	comps = without(comps, tile)
	lines = chainLines(comps)
	cut := make([]bool, len(comps))
	for _, l := range lines {
		if row, _ := repeats([][]int{l}, comps, 5, 0.75); row != nil {
			for ci, v := range row {
				cut[ci] = cut[ci] || v
			}
		}
	}
	if !slices.Contains(cut, true) {
		return comps, lines
	}
	comps = without(comps, cut)
	return comps, chainLines(comps)
}

// repeats marks the marks of lines that repeat one shape at one pitch:
// the lines' median width and height, and the median area of the marks
// of that box, each within a tenth (and a pixel), with a neighbour on
// their line of that shape at the median distance between such
// neighbours' centres, within a tenth. It returns nil when they are
// fewer than least, or the marks of the shape fewer than share of the
// lines' marks, or smaller than tiledMinHeight: below that height a pixel
// is a glyph's whole difference in width, and small text would pass for
// a pattern. shaped reports whether a mark has the shape.
func repeats(lines [][]int, comps []component, least int, share float64) (tile []bool, shaped func(int) bool) {
	var ws, hs, as []int
	for _, l := range lines {
		for _, ci := range l {
			ws, hs, as = append(ws, comps[ci].box.Dx()), append(hs, comps[ci].box.Dy()), append(as, comps[ci].area)
		}
	}
	if len(ws) < least {
		return nil, nil
	}
	mw, mh := median(ws), median(hs)
	if mh < tiledMinHeight {
		return nil, nil
	}
	// The area is the median of the marks of the median box alone: over
	// all marks, the card's glyphs pull it below the pattern's (gingham
	// checks under an independently generated Portuguese card, their
	// outlines' median area 897 px, all marks' 827, so that a third of
	// the checks were not of the shape and no pattern was found).
	var boxed []int
	for i := range ws {
		if within(ws[i], mw) && within(hs[i], mh) {
			boxed = append(boxed, as[i])
		}
	}
	if len(boxed) == 0 {
		// No mark has both the median width and height: no one shape.
		return nil, nil
	}
	ma := median(boxed)
	shaped = func(ci int) bool {
		c := comps[ci]
		return within(c.box.Dx(), mw) && within(c.box.Dy(), mh) && within(c.area, ma)
	}
	// Neighbours along each line, left to right, both of the shape.
	var pairs [][3]int // a, b, twice the distance between their centres
	for _, l := range lines {
		row := slices.Clone(l)
		slices.SortFunc(row, func(i, j int) int { return comps[i].box.Min.X - comps[j].box.Min.X })
		for k := 1; k < len(row); k++ {
			a, c := comps[row[k-1]].box, comps[row[k]].box
			if shaped(row[k-1]) && shaped(row[k]) {
				pairs = append(pairs, [3]int{row[k-1], row[k], c.Min.X + c.Max.X - a.Min.X - a.Max.X})
			}
		}
	}
	if len(pairs) == 0 {
		return nil, nil
	}
	ps := make([]int, len(pairs))
	for i, p := range pairs {
		ps[i] = p[2]
	}
	pitch := median(ps)
	tile = make([]bool, len(comps))
	count := 0
	for _, p := range pairs {
		if within(p[2], pitch) {
			for _, ci := range p[:2] {
				if !tile[ci] {
					tile[ci] = true
					count++
				}
			}
		}
	}
	// The share counts every mark of the shape, paired at the pitch or
	// not: a check cut by the photo's edge or the card, or whose
	// neighbour lost its outline in a shadow, is still the pattern's.
	of := 0
	for _, a := range boxed {
		if within(a, ma) {
			of++
		}
	}
	if count < least || float64(of) < share*float64(len(ws)) {
		return nil, nil
	}
	return tile, shaped
}

// within reports whether v lies within a tenth of m, or a pixel.
func within(v, m int) bool { return v >= m-max(1, m/10) && v <= m+max(1, m/10) }

// without is comps less those drop marks.
func without(comps []component, drop []bool) []component {
	var out []component
	for i, c := range comps {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out
}

// median is the middle of v's values (the upper one of an even count).
func median(v []int) int {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}

const (
	// tiledMinHeight is the least height, in pixels of the search scale,
	// of a mark repeats tells from a glyph.
	tiledMinHeight = 8
	// tilesMin is the fewest repeats taken for a pattern: a card's
	// line of like digits is a dozen at most.
	tilesMin = 40
)

// longLines returns the largest cluster of the lines of five glyphs or
// more, when it holds text and reaches fewer than three edges of area b.
// A Spanish card lying on a patterned cloth (independently generated
// photos, docs/accuracy.md, twenty-fourth pass) was read over the whole
// photo, 3.5 s of OCR for a review, where its own lines — its names,
// dates and headers, five glyphs and more, in rows a pattern's short
// chains seldom make — lie together on the card.
func longLines(lines [][]int, comps []component, reach float64, b image.Rectangle) ([]int, bool) {
	var idx []int
	var long [][]int
	for i, l := range lines {
		if glyphsOf(l, comps) >= 5 {
			idx = append(idx, i)
			long = append(long, l)
		}
	}
	lc, ok := textCluster(long, comps, reach, b)
	if !ok {
		return nil, false
	}
	out := make([]int, len(lc))
	for i, li := range lc {
		out[i] = idx[li]
	}
	return out, true
}

// inked returns the components at least twice as dark against their
// surroundings as the lines' median one, their lines and their largest
// cluster, when it holds text and reaches fewer than three edges of area
// b. Sensor noise on a dim wooden table makes glyph-sized specks in rows
// everywhere, far more than a card's text (so the median is a speck's)
// and in rows as long; ink is darker: on an independently generated
// Polish card photographed in low light (docs/accuracy.md, twenty-fourth
// pass) the specks were 31–54 grey levels darker than their
// surroundings (10th–90th percentile), the card's letters about 190, and
// the whole noisy photo was read, 10 s of OCR. A texture as dark as the
// ink leaves too few components or the same extent.
func inked(lines [][]int, comps []component, reach float64, b image.Rectangle) ([]component, [][]int, []int, bool) {
	var depths []int
	for _, l := range lines {
		for _, ci := range l {
			depths = append(depths, comps[ci].depth)
		}
	}
	sort.Ints(depths)
	floor := 2 * depths[len(depths)/2]
	var dark []component
	for _, c := range comps {
		if c.depth >= floor {
			dark = append(dark, c)
		}
	}
	dl := chainLines(dark)
	dc, ok := textCluster(dl, dark, reach, b)
	return dark, dl, dc, ok
}

// textCluster returns the largest cluster of lines when it holds text
// (textMinGlyphs) and reaches fewer than three edges of area b.
func textCluster(lines [][]int, comps []component, reach float64, b image.Rectangle) ([]int, bool) {
	if len(lines) == 0 {
		return nil, false
	}
	cl := largestCluster(lines, comps, reach)
	return cl, clusterGlyphs(cl, lines, comps) >= textMinGlyphs && EdgesNear(clusterBox(cl, lines, comps), b, 50) < 3
}

// glyphsOf is how many letters line l's components stand for.
func glyphsOf(l []int, comps []component) int {
	n := 0
	for _, ci := range l {
		n += comps[ci].glyphs
	}
	return n
}

// clusterGlyphs is how many letters cluster cl's lines stand for.
func clusterGlyphs(cl []int, lines [][]int, comps []component) int {
	n := 0
	for _, li := range cl {
		n += glyphsOf(lines[li], comps)
	}
	return n
}

// clusterBox is the box of cluster cl's glyphs.
func clusterBox(cl []int, lines [][]int, comps []component) image.Rectangle {
	var box image.Rectangle
	for _, li := range cl {
		for _, ci := range lines[li] {
			box = box.Union(comps[ci].box)
		}
	}
	return box
}

// EdgesNear counts the sides of b that r comes within a part-th of b's
// size of (r reaches them, within that margin).
func EdgesNear(r, b image.Rectangle, part int) int {
	mx, my := b.Dx()/part, b.Dy()/part
	n := 0
	for _, near := range []bool{r.Min.X-b.Min.X <= mx, b.Max.X-r.Max.X <= mx, r.Min.Y-b.Min.Y <= my, b.Max.Y-r.Max.Y <= my} {
		if near {
			n++
		}
	}
	return n
}

// growCluster adds to the largest cluster the other text lines that are
// the same document's: lines of glyphs of its size (half to twice its
// median height) as long as all of them together still fit a card's text
// (docGlyphsLong × docGlyphsShort median glyph heights), nearest first.
// The largest cluster is the document's main block of fields, but a
// card's header, or its number printed alone at the top right over a
// guilloche, stands more than reach glyphs away from it: an independently
// generated Irish permit lost its number so, and with it the number's
// confirmation; of seed 8's five fronts whose number was not read, four
// had a third to a half of the card left out of their region
// (docs/accuracy.md, tenth pass). A line of a patterned table further
// away than a card's size cannot join.
func growCluster(cl []int, lines [][]int, comps []component) []int {
	in := make([]bool, len(lines))
	var box image.Rectangle
	var hs []float64
	for _, li := range cl {
		in[li] = true
		for _, ci := range lines[li] {
			box = box.Union(comps[ci].box)
			hs = append(hs, float64(comps[ci].box.Dy()))
		}
	}
	if len(hs) == 0 {
		return cl
	}
	sort.Float64s(hs)
	med := hs[len(hs)/2]
	type cand struct {
		li   int
		box  image.Rectangle
		dist int
	}
	var cands []cand
	for li, l := range lines {
		if in[li] {
			continue
		}
		var b image.Rectangle
		var lh []float64
		for _, ci := range l {
			b = b.Union(comps[ci].box)
			lh = append(lh, float64(comps[ci].box.Dy()))
		}
		sort.Float64s(lh)
		if h := lh[len(lh)/2]; h < med/2 || h > 2*med {
			continue
		}
		u := box.Union(b)
		cands = append(cands, cand{li, b, u.Dx() + u.Dy() - box.Dx() - box.Dy()})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].dist < cands[j].dist })
	for _, c := range cands {
		u := box.Union(c.box)
		if CardText(u, med) {
			box = u
			cl = append(cl, c.li)
		}
	}
	return cl
}

// CardText reports whether text found by TextRegion, of median glyph
// height glyph, spans no more glyph heights than a card's text does
// (docGlyphsLong × docGlyphsShort, either way up).
func CardText(text image.Rectangle, glyph float64) bool {
	long, short := float64(max(text.Dx(), text.Dy())), float64(min(text.Dx(), text.Dy()))
	return glyph > 0 && long <= docGlyphsLong*glyph && short <= docGlyphsShort*glyph
}

// docGlyphsLong and docGlyphsShort bound a card's text in median glyph
// heights: an ID-1 card is 85.6 × 54 mm, and the median glyph of its
// labels and values is at least ~1.4 mm tall (6-point labels, values
// twice that), so its text spans at most about 61 × 39 of them; the
// bounds allow a card seen a few degrees turned.
const (
	docGlyphsLong  = 64
	docGlyphsShort = 44
)

// disjoint is a union-find forest over n elements.
type disjoint []int

func newDisjoint(n int) disjoint {
	d := make(disjoint, n)
	for i := range d {
		d[i] = i
	}
	return d
}

func (d disjoint) find(i int) int {
	for d[i] != i {
		d[i] = d[d[i]]
		i = d[i]
	}
	return i
}

// join merges j's set into i's.
func (d disjoint) join(i, j int) { d[d.find(j)] = d.find(i) }
