package mrzread

import (
	"errors"
	"image"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// ErrNoMRZ is returned when no machine-readable zone is found.
var ErrNoMRZ = errors.New("mrzread: no machine-readable zone found")

// errUnreadable: MRZ-like lines were found but were not an MRZ (or not
// this way up).
var errUnreadable = errors.New("mrzread: lines found are not readable as an MRZ")

// A zone turned by obliqueDeg degrees or more, whose lines' spacing
// departs from the nominal by more than obliqueSpacing (relative), or
// whose columns lean by more than obliqueLean (along the line per unit
// across it) is read from the rectified band too, even when the direct
// reading verifies: a valid reading of glyphs seen at an angle may
// still hold substitutions no check digit sees. (The direct reading
// follows a rotation exactly, its cells turn with the baseline; it does
// not model glyphs sheared or foreshortened across the line.)
const (
	obliqueDeg     = 8
	obliqueSpacing = 0.12
	obliqueLean    = 0.09
)

// LowConfidence is the confidence below which a character counts as
// unreliable for Result.Covered and Result.Uncertain.
const LowConfidence = 0.35

// Unreadable is the correlation with the best template below which a
// position is reported as '?'.
const Unreadable = 0.35

// Result is what Read recognised.
type Result struct {
	// Format is the detected (or hinted) layout.
	Format mrz.Format
	// Lines are the recognised lines, Format.Lines() of Format.Width()
	// characters. A position that could not be read (outside the image,
	// or nothing visible there) holds '?'.
	Lines []string
	// Confidence holds, per line and position, how sure the reader is of
	// the character, from 0 (unreadable) to 1.
	Confidence [][]float64
	// Alternatives holds, per line and position, the runner-up character
	// allowed at that position (0 if none).
	Alternatives [][]byte
	// Band bounds the zone in image coordinates; Quad gives its corners
	// (top-left, top-right, bottom-right, bottom-left), which may lie
	// outside the image when the zone is cut off.
	Band image.Rectangle
	Quad [4]image.Point
	// Rotation is how far (degrees clockwise: 0, 90, 180 or 270) the image
	// was turned to read the zone upright; Skew is the remaining angle of
	// the text lines in degrees (positive: clockwise as displayed, y
	// pointing down).
	Rotation int
	Skew     float64
	// CutOff reports that the zone touches the image border: characters
	// or whole lines lie outside the image (the evidence is partial).
	CutOff bool
	// Covered reports a contiguous run of unreadable or low-confidence
	// characters inside the image (a finger, glare, damage): partial.
	Covered bool
	// Uncertain lists the runs of at least three consecutive
	// low-confidence (or unreadable) characters inside the image.
	Uncertain []Span
	// Corrections lists characters changed to their runner-up so that a
	// check digit verifies.
	Corrections []Correction
	// Valid reports that every character was read, every check digit
	// verifies and the zone is not cut off.
	Valid bool

	// oblique reports a zone seen at an angle (readDet); spacing is the
	// distance between its first and last line's baselines per line, in
	// pitches (0 when not both were found).
	oblique bool
	spacing float64
	lean    float64
	// code0 is what the first glyph of the first line looks like most,
	// whatever its position allows (the layout forces a P, or an A, C
	// or I, there).
	code0 byte
	// guess holds, per line and position, the best template of a cell
	// reported as '?' ('<' for a cell with nothing visible in it; 0 for
	// one outside the image), for GuessUnchecked.
	guess [][]byte
}

// Span is the positions [Start, End) of line Line (0-based).
type Span struct{ Line, Start, End int }

// Correction is a character replaced by its runner-up because exactly
// that substitution made the check digit of Field verify.
type Correction struct {
	Line, Pos int
	From, To  byte
	// Field is the mrz.Field* name of the check that the substitution
	// made verify, FieldNames for a filler restored in the name field
	// (see fillNames) or FieldOptional for one restored in an empty
	// optional field (see fillOptional).
	Field string
}

// FieldNames is Correction.Field for a character of the name field
// replaced by the filler that the field's layout requires there.
const FieldNames = "names"

// FieldOptional is Correction.Field for a filler restored in an empty
// optional data field or personal number: no check digit made it.
const FieldOptional = "optional_data"

// Parse parses the recognised lines with mrz.Parse.
func (r *Result) Parse(opts ...mrz.Option) (mrz.Fields, error) {
	return mrz.Parse(r.Lines, opts...)
}

// Read finds the machine-readable zone in img and reads it. hint is the
// expected format, or 0 to detect it. A zone that is found but cut off or
// covered is returned with a nil error and CutOff/Covered set; ErrNoMRZ
// means no zone was found at all.
//
// The image is read as it is first; if that does not give a zone whose
// check digits all verify, it is also read turned by 180°, 90° and 270°
// (photos whose EXIF orientation was not applied, documents held upside
// down), and the best reading wins (Result.Rotation).
func Read(img image.Image, hint mrz.Format) (Result, error) {
	ts, err := loadTemplates()
	if err != nil {
		return Result{}, err
	}
	g := toGray(img)
	if g.w < 32 || g.h < 32 {
		return Result{}, ErrNoMRZ
	}
	// Lines are looked for on the photo shrunk to detectSide, where a
	// glyph must stand 7 px tall: a zone whose glyphs are smaller than
	// that at this scale (a passport a fifth of a 7.6 MP photo's width,
	// 14 px glyphs, on a checked tablecloth no crop could separate it
	// from: independently generated photos, docs/accuracy.md) is looked
	// for again at full resolution, only when nothing was found.
	// There, only glyphs too small for the first search are looked for,
	// and only upright or upside down: sideways, such a zone stays
	// unread (what it costs on a card's front, which has no zone, is in
	// docs/engine.md).
	//
	// The upright photo's detection is kept for smallZone below.
	d0 := detectS(g, 0, detectSide)
	best, bestErr := readTurnsFrom(g, d0, ts, hint, detectSide, 0, []int{0, 180, 90, 270})
	// A zone so small is read again, where it was found, as a photo of
	// its own (readAround), when its reading is not valid; and so is one
	// the photo shows (smallZone) where the first search read no valid
	// zone (printed text taken for one). A passport page photographed at
	// 33° on a checked tablecloth, its MRZ glyphs 6 px tall at the
	// search's scale and squashed to three quarters of their height, was
	// read from its printed data and failed as id_scan_error
	// (independently generated photos, docs/accuracy.md, twenty-sixth
	// pass); around the zone it is levelled and rectified as any zone.
	f := shrinkFactor(g, detectSide)
	var around image.Rectangle
	switch {
	case f > 1 && errors.Is(bestErr, ErrNoMRZ):
		best, bestErr = readTurns(g, ts, hint, 0, 8*f, []int{0, 180})
		if bestErr == nil && !best.Valid {
			around = best.Band
		}
	case f > 1 && bestErr == nil && !best.Valid:
		around, _ = smallZone(d0)
	}
	// Only a solid reading of it is taken (at most two unsure
	// characters): a soft passport's zone read so verified with its
	// given name misread (AURY for RUBY, none of the name's letters
	// sure), where the search's enlarged crops, tried when the photo
	// reads no valid zone, read it right (internal/app
	// TestReadCroppedSoftPhoto).
	if !around.Empty() {
		if ar, ok := readAround(img, around, hint); ok && ar.solid() {
			best = ar
		}
	}
	if bestErr != nil {
		return Result{}, bestErr
	}
	b := img.Bounds()
	best.Band = best.Band.Add(b.Min)
	for i := range best.Quad {
		best.Quad[i] = best.Quad[i].Add(b.Min)
	}
	return best, nil
}

// readAround reads the part of img around band (a zone found in image
// coordinates relative to img's origin) as a photo of its own, when that
// part is small enough to be searched at full size; the result's
// coordinates are relative to img's origin too.
func readAround(img image.Image, band image.Rectangle, hint mrz.Format) (Result, bool) {
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok || band.Empty() {
		return Result{}, false
	}
	// Up to half the zone's width on each side, as far as the part can
	// still be searched at full size: lines found in part (glyphs merged
	// or lost at the small scale) are read whole. Above and below, at
	// least an eighth of its width: the search looks for glyphs up to an
	// eighth of the photo's height (detectS), and a part cut to the
	// zone's two lines left its glyphs out.
	b := img.Bounds()
	mx, my := max(min(band.Dx()/2, (detectSide-band.Dx())/2), band.Dx()/10), max(band.Dy(), band.Dx()/8)
	r := image.Rect(band.Min.X-mx, band.Min.Y-my, band.Max.X+mx, band.Max.Y+my).Add(b.Min).Intersect(b)
	if max(r.Dx(), r.Dy()) > detectSide {
		return Result{}, false
	}
	res, err := Read(sub.SubImage(r), hint)
	if err != nil {
		return Result{}, false
	}
	res.Band = res.Band.Sub(b.Min)
	for i := range res.Quad {
		res.Quad[i] = res.Quad[i].Sub(b.Min)
	}
	return res, true
}

// smallZone finds, on d (the upright photo shrunk for the first search:
// detectS at detectSide), two lines of glyphs
// 4 to 6 pixels tall — too small for that search (findLines' 7) — that
// look like a zone's: at least smallZoneGlyphs glyphs each, regularly
// spaced, of an MRZ's proportions, one above the other (selectBand). It
// returns where they lie in the photo. Printed text that small rarely
// runs so long at so regular a pitch; the test chains the components the
// first search already found, only when it read no valid zone.
func smallZone(d *detection) (image.Rectangle, bool) {
	var long []*textLine
	for _, l := range findLines(d.cs, 4, 7) {
		if len(l.comps) >= smallZoneGlyphs && l.reg >= 0.9 {
			long = append(long, l)
		}
	}
	band := selectBand(long, 0)
	if len(band) < 2 {
		return image.Rectangle{}, false
	}
	var r image.Rectangle
	for _, l := range band {
		for _, i := range l.comps {
			c := &d.cs[i]
			r = r.Union(image.Rect(c.x0*d.f, c.y0*d.f, c.x1*d.f, c.y1*d.f))
		}
	}
	return r, true
}

// smallZoneGlyphs is the fewest glyphs a line of smallZone holds: most of
// a TD1 card's 30, fillers included, which are glyphs too.
const smallZoneGlyphs = 25

// readTurns reads g turned by the turns (degrees) as far as needed, with
// lines of glyphs up to maxGlyph pixels tall (0: an eighth of the image)
// looked for on g shrunk to side pixels (0: full size), and returns the
// best reading. With a maxGlyph, the zone is not read again from a
// levelled band (readRectified): levelling a whole photo at full size
// costs a second on 11 MP.
func readTurns(g *gray, ts *templateSet, hint mrz.Format, side, maxGlyph int, turns []int) (Result, error) {
	return readTurnsFrom(g, nil, ts, hint, side, maxGlyph, turns)
}

// readTurnsFrom is readTurns with d0, when not nil, the upright photo's
// detection at side, already made (not with a maxGlyph, which narrows it).
func readTurnsFrom(g *gray, d0 *detection, ts *templateSet, hint mrz.Format, side, maxGlyph int, turns []int) (Result, error) {
	var best Result
	bestErr := ErrNoMRZ
	noLines := map[int]bool{}
	for _, rot := range turns {
		if noLines[(rot+180)%360] {
			// No MRZ-like lines the other way up: turning by 180° finds
			// the same lines, so there are none this way either.
			continue
		}
		gr := g.rotate(rot)
		d := d0
		if rot != 0 || d == nil {
			d = detectS(gr, 0, side)
		}
		if maxGlyph > 0 {
			d.maxH = min(d.maxH, maxGlyph)
		}
		res, err := readZone(gr, d, ts, hint)
		// The other orientations are rectified only while nothing good
		// was found (an upside-down or sideways tilted zone); a cut or
		// covered zone read the right way up is not read better so.
		if maxGlyph == 0 && (err != nil || !res.solid() || res.oblique) && (rot == 0 || bestErr != nil || best.quality() < 0.5) {
			// Tilted beyond what the cell fit follows, bent, distorted:
			// read the zone again from a rectified band. A reading whose
			// check digits verify but with doubtful characters (cells
			// misplaced along a curved line) competes with it.
			if rr, rerr := readRectified(gr, d, ts, hint); rerr == nil {
				// Of two equally valid readings of an oblique zone the
				// rectified one is preferred unless it is clearly less
				// sure: its cells hold upright glyphs of the templates'
				// proportions, where the direct reading's are sheared
				// and foreshortened (a misread there can be as confident
				// as a right reading, since the check digits made it).
				margin := 0.02
				if err == nil && res.oblique {
					margin = -0.05
				}
				better := err != nil || rr.Valid && !res.Valid ||
					rr.Valid == res.Valid && rr.MeanConfidence() > res.MeanConfidence()+margin
				switch {
				case err == nil && res.Valid && rr.Valid && better:
					res = mergeNames(rr, res)
				case err == nil && res.Valid && rr.Valid:
					res = mergeNames(res, rr)
				case better:
					res, err = rr, nil
				}
			}
		}
		if err != nil {
			noLines[rot] = errors.Is(err, ErrNoMRZ)
			continue
		}
		res.Rotation = rot
		res.mapBack(g.w, g.h)
		if bestErr != nil || res.quality() > best.quality()+0.05 {
			best, bestErr = res, nil
		}
		// A zone read upright shows its fillers as fillers, surely, even
		// when it is cut, covered or misread elsewhere; turned by 180° a
		// filler is a '>', which no template matches surely (upright).
		// Such a zone is not read the other ways up: on a cut or covered
		// zone they took two fifths of every failing reading's time, and
		// a search reads such a photo five to ten times
		// (docs/performance.md).
		if res.Valid && (rot == 0 || res.solid()) || rot == 0 && res.upright() {
			break
		}
	}
	return best, bestErr
}

// uprightRun and uprightConfidence define the reading of a zone that is
// the right way up (Result.upright). Of 37 independently generated photos
// of zones (a third of seed 36's, docs/accuracy.md), read the right way
// up, 33 showed a run of 7 to 28 fillers read at 0.5 or more, cut and
// covered zones among them (4 read too poorly whole showed none, and are
// read the other ways up as before); the same photos turned by 180° and
// read so showed none, nor did docgen's, nor any card front or page
// without a zone (at most 1).
const (
	uprightRun        = 4
	uprightConfidence = 0.5
)

// upright reports a reading with uprightRun fillers in a row, each read
// with uprightConfidence or more.
func (r *Result) upright() bool {
	for li, l := range r.Lines {
		if li >= len(r.Confidence) {
			break
		}
		conf, run := r.Confidence[li], 0
		for k := 0; k < min(len(l), len(conf)); k++ {
			if l[k] != '<' || conf[k] < uprightConfidence {
				run = 0
				continue
			}
			if run++; run == uprightRun {
				return true
			}
		}
	}
	return false
}

// solid reports a valid reading with at most two low-confidence
// characters.
func (r *Result) solid() bool {
	if !r.Valid {
		return false
	}
	low := 0
	for _, l := range r.Confidence {
		for _, c := range l {
			if c < LowConfidence {
				low++
			}
		}
	}
	return low <= 2
}

// MeanConfidence is the mean confidence over all positions.
func (r *Result) MeanConfidence() float64 {
	sum, n := 0.0, 0
	for _, l := range r.Confidence {
		for _, c := range l {
			sum += c
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// quality ranks readings of one image: valid ones first, then by mean
// confidence.
func (r *Result) quality() float64 {
	if r.Valid {
		return 2
	}
	return r.MeanConfidence()
}

// mapBack converts Band and Quad from the rotated image read back to the
// original image of size w×h.
func (r *Result) mapBack(w, h int) {
	if r.Rotation == 0 {
		return
	}
	pt := func(p image.Point) image.Point {
		switch r.Rotation {
		case 180:
			return image.Pt(w-p.X, h-p.Y)
		case 90: // the rotated image's (x, y) is the original's (y, h-x)
			return image.Pt(p.Y, h-p.X)
		default: // 270
			return image.Pt(w-p.Y, p.X)
		}
	}
	minP, maxP := image.Pt(math.MaxInt, math.MaxInt), image.Pt(math.MinInt, math.MinInt)
	for i, p := range r.Quad {
		q := pt(p)
		r.Quad[i] = q
		minP = image.Pt(min(minP.X, q.X), min(minP.Y, q.Y))
		maxP = image.Pt(max(maxP.X, q.X), max(maxP.Y, q.Y))
	}
	r.Band = image.Rectangle{minP, maxP}.Intersect(image.Rect(0, 0, w, h))
}

func read(g *gray, ts *templateSet, hint mrz.Format) (Result, error) {
	return readZone(g, detect(g), ts, hint)
}

// readZone is readDet, and when the format was detected (no hint) and
// the reading does not verify, the zone read again as the other format
// of as many lines (TD2 and TD3 both have two): noise or a mark beyond
// a line's end lengthens it, a faded end shortens it, and the length
// alone then picks the wrong layout, which no cell can read right. The
// other layout is taken only if its reading verifies: the check digits
// decide between the hypotheses.
//
// A hint is what the person declared (a passport), and people photograph
// the card they hold under whatever type they picked: when a hinted
// reading does not verify, the zone is read again in the format its lines
// show, and taken when it verifies and parses. Read as the hint, a card's three
// 30-character lines gave two lines of garbage (`PPOTTOSMESTTESSIRL<<<…???`)
// that the engine took for a covered zone, not for the card it is
// (independently generated photos, docs/accuracy.md).
func readZone(g *gray, d *detection, ts *templateSet, hint mrz.Format) (Result, error) {
	res, err := readDet(g, d, ts, hint)
	if err != nil || res.Valid {
		return res, err
	}
	// A card's lines read as a passport's 44 cells run past the card,
	// and the reading is cut off for that reason alone.
	if hint != 0 {
		// Every line of another format verifying and parsing outweighs
		// a hint that reads as garbage, also when look-alikes were
		// swapped to verify (a card's number read with an O for its 0):
		// such corrections are reported, and the engine has the printed
		// data confirm them.
		if alt, aerr := readDet(g, d, ts, 0); aerr == nil && alt.Format != hint && alt.Valid {
			if _, perr := alt.Parse(); perr == nil {
				return alt, nil
			}
		}
		return res, err
	}
	other := map[mrz.Format]mrz.Format{mrz.TD2: mrz.TD3, mrz.TD3: mrz.TD2}[res.Format]
	if other == 0 || res.CutOff {
		return res, err
	}
	if other.Width() < res.Format.Width() {
		// A narrower layout leaves cells of the wider one unread: it is
		// tried only if the wider one found nothing readable in at least
		// half of the cells it has beyond the narrower one on every line
		// (otherwise there is ink the narrower layout would ignore).
		for _, l := range res.Lines {
			if strings.Count(l, "?") < (res.Format.Width()-other.Width())/2 {
				return res, err
			}
		}
	}
	// The other layout must verify as read, with no character changed to
	// make a check digit verify: a check digit that only a correction
	// satisfies is one chance in ten, not evidence.
	// And the document code must be one of that layout's: a passport
	// whose personal number is empty verifies as a TD2 too, once its
	// middle fillers are dropped, but its first glyph is a P.
	if alt, aerr := readDet(g, d, ts, other); aerr == nil && plainlyValid(alt) {
		return alt, nil
	}
	return res, err
}

// plainlyValid reports a reading that verifies with no character changed
// to fit a check digit and whose first glyph is a document code of its
// format.
func plainlyValid(r Result) bool {
	return r.Valid && len(r.Corrections) == 0 && strings.IndexByte(allowed(classes[r.Format][0][0]), r.code0) >= 0
}

// readDet is read with the detection-scale image already prepared.
func readDet(g *gray, d *detection, ts *templateSet, hint mrz.Format) (Result, error) {
	// Detect on an image of at most ~1700 pixels.
	f, det, bin, cs := d.f, d.det, d.bin, d.cs
	lines := findLines(cs, 7, d.maxH)
	band := selectBand(lines, hint)
	if len(band) == 0 {
		return Result{}, ErrNoMRZ
	}
	ff := float64(f)

	// Ends of each line and the format.
	type ends struct {
		xl, xr float64
		le, re endKind
		nInk   float64
	}
	es := make([]ends, len(band))
	var complete []float64
	maxInk := 0.0
	for i, l := range band {
		e := &es[i]
		e.xr, e.re = walkEnd(bin, det.w, det.h, l, +1)
		e.xl, e.le = walkEnd(bin, det.w, det.h, l, -1)
		e.nInk = (e.xr+1-e.xl)/l.p - 0.69 + 1
		if e.le == endClean && e.re == endClean {
			complete = append(complete, e.nInk)
		}
		maxInk = math.Max(maxInk, e.nInk)
	}
	format := hint
	if format == 0 {
		format = chooseFormat(len(band), complete, maxInk)
	}
	n, nl := format.Width(), format.Lines()
	if len(band) > nl {
		band = band[len(band)-nl:]
		es = es[len(es)-nl:]
	}

	// Cells of the detected lines; lines without a trustworthy anchor take
	// it from one that has one.
	geoms := make([]*lineGeom, len(band))
	ans := make([]anchors, len(band))
	for i, l := range band {
		ans[i] = lineAnchors(cs, l, ff, es[i].xl, es[i].xr, es[i].le, es[i].re, n)
	}
	// The reference line: the longest consistent one (a faded end glyph
	// shortens a line, nothing lengthens a consistent one), else the one
	// with both ends clear whose length is closest to n.
	ref := -1
	for i, a := range ans {
		if a.ok && (ref < 0 || a.span > ans[ref].span) {
			ref = i
		}
	}
	if ref < 0 {
		for i, a := range ans {
			if a.left && a.right && (ref < 0 || math.Abs(a.span-float64(n)) < math.Abs(ans[ref].span-float64(n))) {
				ref = i
			}
		}
	}
	own := func(a anchors) anchors {
		if a.left && a.right && !a.ok {
			a.right = false // one end is wrong; trust the left
		}
		if !a.left && !a.right {
			a.left = true // nothing better: the line starts at its first glyph
		}
		return a
	}
	if ref >= 0 {
		geoms[ref] = placeCells(cs, band[ref], ff, own(ans[ref]), n)
	}
	for i, l := range band {
		if i == ref {
			continue
		}
		a := ans[i]
		if ref >= 0 && geoms[ref] != nil {
			rl, rg := band[ref], geoms[ref]
			// The lines of a zone are parallel: a short piece of a line
			// takes the reference's slope.
			if l.x1-l.x0 < 0.6*(rl.x1-rl.x0) {
				l.slope = rl.slope
				var d []float64
				for _, ci := range l.comps {
					d = append(d, cs[ci].bottom()-l.slope*cs[ci].cx())
				}
				l.icpt = median(d)
			}
			// All lines of a zone start and end in the same columns.
			lx := project(rg.centres[0], rl.icpt*ff, rl.slope, l.icpt*ff, l.slope)
			rx := project(rg.centres[n-1], rl.icpt*ff, rl.slope, l.icpt*ff, l.slope)
			tol := 0.5 * l.p * ff
			disagree := math.Abs(a.lx-lx) > tol || math.Abs(a.rx-rx) > tol
			if ans[ref].ok && (!a.ok || disagree) || !ans[ref].ok && !(a.left && a.right) {
				a = anchors{left: true, right: true, lx: lx, rx: rx, ok: true}
			}
		}
		geoms[i] = placeCells(cs, l, ff, own(a), n)
	}
	for i, g := range geoms {
		if g == nil {
			return Result{}, ErrNoMRZ
		}
		g.leftEnd, g.rightEnd = es[i].le, es[i].re
	}

	// Lines not found: extrapolate from the found ones, on the side where
	// they would have left the image.
	spacing := 1.65 * geoms[0].h
	if len(geoms) >= 2 {
		x := geoms[0].centres[n/2]
		spacing = (geoms[len(geoms)-1].baseY(x) - geoms[0].baseY(x)) / float64(len(geoms)-1)
	}
	missing := nl - len(geoms)
	above := 0
	if missing > 0 {
		bestOut := -1
		for a := 0; a <= missing; a++ {
			out := 0
			for j := 1; j <= a; j++ {
				if !lineInside(g, shifted(geoms[0], -spacing*float64(j))) {
					out++
				}
			}
			for j := 1; j <= missing-a; j++ {
				if !lineInside(g, shifted(geoms[len(geoms)-1], spacing*float64(j))) {
					out++
				}
			}
			if out > bestOut || (out == bestOut && a == 0) {
				bestOut, above = out, a
			}
		}
		var all []*lineGeom
		for j := above; j >= 1; j-- {
			all = append(all, refit(cs, ff, n, settle(bin, det.w, det.h, ff, shifted(geoms[0], -spacing*float64(j)))))
		}
		all = append(all, geoms...)
		for j := 1; j <= missing-above; j++ {
			all = append(all, refit(cs, ff, n, settle(bin, det.w, det.h, ff, shifted(geoms[len(geoms)-1], spacing*float64(j)))))
		}
		geoms = all
	}

	// Read every cell.
	res := Result{Format: format}
	text := make([][]byte, nl)
	alt := make([][]byte, nl)
	margin := make([][]float64, nl)
	res.Confidence = make([][]float64, nl)
	res.guess = make([][]byte, nl)
	outside := make([][]bool, nl)
	patch := make([]float32, pw*ph)
	cells := make([]cellResult, n)
	scores := make([][][nClass]float32, nl)
	// The lines found first: a line that was not is moved onto its glyphs
	// (placeAcross) only when they read as a zone's lines do, not on the
	// text-like clutter most candidate zones are.
	var order []int
	for _, found := range []bool{true, false} {
		for li, lg := range geoms {
			if lg.found == found {
				order = append(order, li)
			}
		}
	}
	foundConf, foundCells := 0.0, 0
	for _, li := range order {
		lg := geoms[li]
		scores[li] = make([][nClass]float32, n)
		text[li] = make([]byte, n)
		alt[li] = make([]byte, n)
		res.guess[li] = make([]byte, n)
		margin[li] = make([]float64, n)
		res.Confidence[li] = make([]float64, n)
		outside[li] = make([]bool, n)
		cls := classes[format][li]
		if !lg.found && foundCells > 0 && foundConf >= placeConfidence*float64(foundCells) {
			lg = placeAcross(g, ts, lg, cls, patch)
		}
		lg = renumber(g, ts, lg, cls, cells, patch)
		geoms[li] = lg
		var contrasts []float64
		for k := 0; k < n; k++ {
			if cr := &cells[k]; !cr.outside && !cr.empty {
				contrasts = append(contrasts, float64(cr.contrast))
			}
		}
		// A glyph much fainter than its neighbours (glare, wear) is less
		// certain even if it matches a template well.
		typical := median(contrasts)
		for k := 0; k < n; k++ {
			cr := &cells[k]
			outside[li][k] = cr.outside
			if cr.outside || cr.empty {
				text[li][k] = '?'
				if !cr.outside {
					res.guess[li][k] = '<'
				}
				continue
			}
			if li == 0 && k == 0 {
				res.code0, _, _, _ = top2(cr, cell.Alphabet)
			}
			c1, c2, s1, s2 := top2(cr, allowed(cls[k]))
			if s1 < Unreadable {
				text[li][k] = '?'
				res.guess[li][k] = c1
				continue
			}
			text[li][k], alt[li][k] = c1, c2
			scores[li][k] = cr.score
			margin[li][k] = float64(s1 - s2)
			res.Confidence[li][k] = confidence(s1, s2) * clamp01((float64(cr.contrast)/typical-0.15)/0.35)
		}
		if lg.found {
			for k := 0; k < n; k++ {
				if !outside[li][k] {
					foundConf += res.Confidence[li][k]
					foundCells++
				}
			}
		}
	}
	// Not a zone after all (text-like clutter, noise): most characters of
	// the lines found, where inside the image, are unreadable.
	readable, inside := 0, 0
	for li, lg := range geoms {
		if !lg.found {
			continue
		}
		for k := 0; k < n; k++ {
			if !outside[li][k] {
				inside++
				if res.Confidence[li][k] >= LowConfidence {
					readable++
				}
			}
		}
	}
	if readable*5 < inside*2 {
		return Result{}, errUnreadable
	}
	scored := make([][]bool, nl)
	for li := range text {
		scored[li] = make([]bool, n)
		for k, c := range text[li] {
			scored[li][k] = c != '?' && c != 0
		}
	}
	spelled := decodeNames(format, text, alt, scores, scored)
	res.Corrections = repair(format, text, alt, margin, res.Confidence, scores)
	res.Corrections = append(res.Corrections, decodeNumbers(format, text, alt, scores, res.Confidence)...)
	res.Corrections = append(res.Corrections, decodeStates(format, text, alt, scores, res.Confidence)...)
	res.Corrections = append(res.Corrections, spelled...)
	res.Corrections = append(res.Corrections, fillNames(format, text, alt, res.Confidence, res.guess)...)
	res.Corrections = append(res.Corrections, fillOptional(format, text, alt, res.Confidence)...)
	res.Alternatives = alt
	for _, t := range text {
		res.Lines = append(res.Lines, string(t))
	}
	res.Valid = true
	for _, t := range res.Lines {
		if strings.ContainsRune(t, '?') {
			res.Valid = false
		}
	}
	for _, c := range checks[format] {
		if !c.verify(text) {
			res.Valid = false
		}
	}

	// Flags.
	for li := range geoms {
		run := 0
		for k := 0; k <= n; k++ {
			low := k < n && !outside[li][k] && res.Confidence[li][k] < LowConfidence
			if k < n && outside[li][k] {
				res.CutOff = true
			}
			if low {
				run++
				continue
			}
			if run >= 3 {
				res.Uncertain = append(res.Uncertain, Span{li, k - run, k})
			}
			run = 0
		}
		if geoms[li].leftEnd == endBorder || geoms[li].rightEnd == endBorder {
			res.CutOff = true
		}
	}
	res.Covered = len(res.Uncertain) > 0
	if res.Valid && guessedOverUnread(format, res.Corrections, res.Uncertain) {
		res.Valid = false
	}
	anyOutside := false
	for _, o := range outside {
		for _, v := range o {
			anyOutside = anyOutside || v
		}
	}
	if res.Valid && !anyOutside {
		// Every character read, every check digit verifies, every cell
		// inside the image: a readable zone, whatever its ends touch or
		// however faint some glyphs are. Flagging it would turn a good
		// reading into partial evidence.
		res.CutOff, res.Covered = false, false
	}
	if res.CutOff {
		// Characters may be missing beyond the border (and the format
		// itself is then a guess): never valid.
		res.Valid = false
	}

	// Geometry for the caller.
	slope := 0.0
	for _, l := range band {
		slope += l.slope
	}
	res.Skew = math.Atan(slope/float64(len(band))) * 180 / math.Pi
	// Oblique: turned, or its lines further apart or closer together than
	// their pitch says (6 lines and 10 characters per inch): the document
	// is seen at an angle, which foreshortens and slants the glyphs in
	// ways the cells of this reading do not model (see Read).
	res.oblique = math.Abs(res.Skew) >= obliqueDeg
	if a, b := geoms[0], geoms[len(geoms)-1]; a != b && a.found && b.found {
		// The columns: cell k of the first and of the last line lie in
		// one column of the document. Their spacing across the lines
		// (in pitches) and their lean (along the line per unit across)
		// are those of a document seen square on only if the photo was.
		c := math.Sqrt(1 + a.slope*a.slope)
		ux, uy := 1/c, a.slope/c
		var spc, lean []float64
		for k := 0; k < n; k++ {
			dx, dy := b.centres[k]-a.centres[k], b.baseY(b.centres[k])-a.baseY(a.centres[k])
			along, across := dx*ux+dy*uy, -dx*uy+dy*ux
			if across <= 0 {
				continue
			}
			spc = append(spc, across/float64(len(geoms)-1)/(a.pitch[k]*c))
			lean = append(lean, along/across)
		}
		if len(spc) > 0 {
			res.spacing = median(spc)
			res.lean = median(lean)
			if math.Abs(res.spacing/nominalSpacing-1) > obliqueSpacing || math.Abs(median(lean)) > obliqueLean {
				res.oblique = true
			}
		}
	}
	first, last := geoms[0], geoms[len(geoms)-1]
	tl := cellCorner(first, 0, 0, true)
	tr := cellCorner(first, n-1, 1, true)
	br := cellCorner(last, n-1, 1, false)
	bl := cellCorner(last, 0, 0, false)
	res.Quad = [4]image.Point{tl, tr, br, bl}
	minX, minY := min(tl.X, bl.X), min(tl.Y, tr.Y)
	maxX, maxY := max(tr.X, br.X), max(bl.Y, br.Y)
	res.Band = image.Rect(minX, minY, maxX, maxY).Intersect(image.Rect(0, 0, g.w, g.h))
	return res, nil
}

// renumber matches the cells of line lg, and the cell one pitch beyond
// each end (first freely, then again where the line's glyphs sit, see
// rematchLine), and decides whether the line's cells are numbered one off: a
// speck in the margin taken for the first glyph, or a last glyph lost in
// noise, moves every cell of the line by one pitch, and the line then
// reads as its own text shifted by one position, which no check digit of
// a name line can catch. Each numbering (the found one and one pitch
// either way) is scored by the evidence it explains: the sum over the
// line's positions of the best correlation among the characters that
// position allows (an empty cell explains nothing). A real MRZ line has
// ink in every cell and its field classes (digits, letters, the document
// code) where its text is, so the right numbering explains one glyph
// more than either neighbour. Another numbering is taken only when it
// explains at least half a typical glyph more, and never when a cell
// involved lies outside the image (a cut line gains as much as it loses
// by sliding). The cells' match results (the n of the chosen numbering)
// are left in cells, and the line with the chosen numbering is returned.
func renumber(g *gray, ts *templateSet, lg *lineGeom, cls string, cells []cellResult, patch []float32) *lineGeom {
	n := len(lg.centres)
	ext := extendCells(lg, 1)
	all := make([]cellResult, n+2)
	anyOut := false
	for k := range all {
		cr := &all[k]
		if !samplePatch(g, ext, k, patch) {
			cr.outside = true
			anyOut = true
			continue
		}
		ts.match(patch, cr)
	}
	// The numbering is judged on the best evidence the line gives: every
	// cell matched again where the line's glyphs say it sits (cells at a
	// line's end misplaced by a bent page match poorly before that, and
	// would make a shift look cheap).
	extCls := cls[:1] + cls + cls[n-1:]
	rematchLine(g, ts, ext, all, extCls, patch)
	explained := func(h int) (sum float64, per []float64) {
		for k := 0; k < n; k++ {
			cr := &all[k+1+h]
			if cr.outside || cr.empty {
				continue
			}
			_, _, s1, _ := top2(cr, allowed(cls[k]))
			v := clamp01(float64(s1))
			sum += v
			per = append(per, v)
		}
		return sum, per
	}
	best := 0
	if !anyOut {
		s0, per := explained(0)
		need := 0.5 * median(per)
		top := s0
		for _, h := range []int{-1, 1} {
			if s, _ := explained(h); s > top && s > s0+need {
				best, top = h, s
			}
		}
	}
	copy(cells, all[1+best:1+best+n])
	if best == 0 {
		return lg
	}
	out := *lg
	out.centres = ext.centres[1+best : 1+best+n]
	out.pitch = ext.pitch[1+best : 1+best+n]
	return &out
}

// placeConfidence is the mean confidence of the found lines' characters
// above which a line not found is moved onto its glyphs (placeAcross).
const placeConfidence = 0.5

// placeAcross moves a line that was not found but placed by its
// neighbour (at the spacing the zone's glyph height suggests, then where
// the most ink is: settle) up or down to where its cells are best
// explained by the characters their positions allow. The spacing of a
// zone's lines varies with the printer (1.7 to 2 glyph heights), a glyph
// height measured on a soft photo is short, and the ink nearest a line
// can be the page's dark edge: a soft photo's second line, not found as a
// line, was placed half a glyph too high and read as W and J throughout
// (independently generated photos, docs/accuracy.md). Only a shift that
// explains clearly more (a tenth of a glyph per cell on average) is
// taken, and none is looked for when the line's cells are explained well
// already (0.85 a cell on average).
func placeAcross(g *gray, ts *templateSet, lg *lineGeom, cls string, patch []float32) *lineGeom {
	n := len(lg.centres)
	// Every other cell: half the cost, and as many glyphs as a line
	// needs to say where it lies.
	explained := func(l *lineGeom) float64 {
		sum := 0.0
		for k := 0; k < n; k += 2 {
			var cr cellResult
			if !samplePatch(g, l, k, patch) {
				continue
			}
			ts.match(patch, &cr)
			if cr.empty {
				continue
			}
			_, _, s1, _ := top2(&cr, allowed(cls[k]))
			sum += clamp01(float64(s1))
		}
		return sum
	}
	cells := float64((n + 1) / 2)
	best, top := lg, explained(lg)
	if top >= 0.85*cells {
		// On its glyphs already: no shift explains much more.
		return lg
	}
	need := top + 0.1*cells
	for _, d := range []float64{-0.5, -0.25, 0.25, 0.5, 0.75} {
		l := shifted(lg, d*lg.h)
		if s := explained(l); s > need && s > top {
			best, top = l, s
		}
	}
	return best
}

// extendCells returns lg with e more cells before its first and after its
// last, one local pitch apart.
func extendCells(lg *lineGeom, e int) *lineGeom {
	n := len(lg.centres)
	out := *lg
	out.centres = make([]float64, 0, n+2*e)
	out.pitch = make([]float64, 0, n+2*e)
	for j := e; j >= 1; j-- {
		out.centres = append(out.centres, lg.centres[0]-float64(j)*lg.pitch[0])
		out.pitch = append(out.pitch, lg.pitch[0])
	}
	out.centres = append(out.centres, lg.centres...)
	out.pitch = append(out.pitch, lg.pitch...)
	for j := 1; j <= e; j++ {
		out.centres = append(out.centres, lg.centres[n-1]+float64(j)*lg.pitch[n-1])
		out.pitch = append(out.pitch, lg.pitch[n-1])
	}
	return &out
}

// rematchLine matches the cells of a line a second time where the line's
// confidently read glyphs say the glyphs sit: the best template shifts of
// those glyphs are fitted along the line (shiftFit), cells whose glyph the
// fit puts beyond where they were searched are searched again there, each
// cell is resampled at the fitted shift, and its best classes (and the best allowed
// at its position) are scored again with the position fixed (see
// rematch).
func rematchLine(g *gray, ts *templateSet, lg *lineGeom, cells []cellResult, cls string, patch []float32) {
	// Where the glyphs sit in their cells drifts smoothly along the line
	// and is not a straight function of the cell number: a bent page or
	// lens distortion that the band's geometry did not quite remove
	// leaves a bow, largest at the line's ends, where a straight fit is
	// furthest off (a '<' read a tenth of a pitch too high or too far
	// left takes in its neighbour's arms and matches K). So each cell's
	// shift is a local straight fit through the confident glyphs near it.
	fit := func() (sx, sy []float64, nobs int) {
		var px, py [][2]float64
		for k := range cells {
			cr := &cells[k]
			if cr.outside || cr.empty {
				continue
			}
			if placesGlyph(cr) {
				kk := float64(k)
				x, y := cr.shift()
				px = append(px, [2]float64{kk, x})
				py = append(py, [2]float64{kk, y})
			}
		}
		if len(px) < 6 {
			return nil, nil, len(px)
		}
		return shiftFit(px, len(cells)), shiftFit(py, len(cells)), len(px)
	}
	sx, sy, nobs := fit()
	s0 := 1.0
	if sx == nil {
		if s0 = smallerGlyphs(g, ts, lg, cells, patch, nobs); s0 == 1 {
			return
		}
		if sx, sy, _ = fit(); sx == nil {
			return
		}
	}
	// A glyph further from its cell's centre than the free search reaches
	// (cell.Margin template pixels; a strong bow, a steep tilt read
	// without rectification) was never seen whole: such cells are
	// searched again around where the fit puts their glyph, and the fit
	// is repeated with what they show.
	moved := false
	for k := range cells {
		cr := &cells[k]
		if cr.outside || math.Max(math.Abs(sx[k]-cr.sx), math.Abs(sy[k]-cr.sy)) <= 1 {
			continue
		}
		var again cellResult
		if !samplePatchAt(g, lg, k, sx[k], sy[k], patch) {
			continue
		}
		ts.match(patch, &again)
		if again.empty {
			continue
		}
		_, _, s0, _ := top2(cr, cell.Alphabet)
		if _, _, s1, _ := top2(&again, cell.Alphabet); cr.empty || s1 > s0 {
			again.sx, again.sy = sx[k], sy[k]
			*cr = again
			moved = true
		}
	}
	if moved {
		if x, y, _ := fit(); x != nil {
			sx, sy = x, y
		}
	}
	// The glyphs' width and height relative to the font's (another
	// printer, another OCR-B, another size of it at the same pitch): the
	// scales at which the confident glyphs match their own class best.
	// Judging O against 0 or < against K takes glyphs of the templates'
	// proportions. Issuers print the zone's glyphs smaller than the
	// font's own advance implies at the 2.54 mm pitch — on independently
	// generated documents 0.8–0.9 of the height — and the rectified band
	// sets the height from the lines' spacing, which a document printed
	// at another line spacing gets wrong by up to a tenth: heights from
	// 0.8 to 1.1 of the font's are tried, then widths at the best height,
	// then the heights beside it again (coordinate descent: 15 scorings
	// instead of the grid's 42, each resampling a dozen glyphs).
	// The search starts from the size smallerGlyphs found, if any.
	sw, sh := s0, s0
	{
		type conf struct {
			k, c int
		}
		var cf []conf
		for k := range cells {
			cr := &cells[k]
			if cr.outside || cr.empty {
				continue
			}
			if c1, ok := scalesGlyph(cr); ok {
				cf = append(cf, conf{k, strings.IndexByte(cell.Alphabet, c1)})
			}
		}
		if len(cf) > 12 { // an even sample along the line is enough
			step := float64(len(cf)) / 12
			var sub []conf
			for i := 0.0; int(i) < len(cf); i += step {
				sub = append(sub, cf[int(i)])
			}
			cf = sub
		}
		if len(cf) >= 6 {
			var one cellResult
			score := func(w, h float64) float64 {
				sum := 0.0
				for _, c := range cf {
					if !samplePatchScaled(g, lg, c.k, sx[c.k], sy[c.k], w, h, patch) {
						continue
					}
					one.score[c.c] = -2
					ts.rematch(patch, []int{c.c}, &one)
					sum += float64(one.score[c.c])
				}
				return sum
			}
			best := score(sw, sh)
			try := func(w, h float64) {
				if w == sw && h == sh || w == s0 && h == s0 {
					return
				}
				if v := score(w, h); v > best {
					best, sw, sh = v, w, h
				}
			}
			for _, h := range []float64{0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1} {
				try(s0, h)
			}
			h0 := sh
			for _, w := range []float64{0.8, 0.87, 0.935, 1, 1.065, 1.13} {
				try(w, h0)
			}
			w0 := sw
			for _, h := range []float64{h0 - 0.05, h0 + 0.05} {
				try(w0, h)
			}
		}
	}
	// Where a glyph sits in its cell was fitted at the font's scale,
	// where a glyph a sixth smaller matches about as well a pixel higher
	// or lower; a bold 8 scored one pixel off loses to S and B (an
	// independently generated passport's 88WK53323 read BBWKS88Z5, its
	// checks verifying after two repairs). At another scale the confident
	// glyphs are searched again and the shifts fitted anew.
	if sw != 1 || sh != 1 {
		var px, py [][2]float64
		for k := range cells {
			cr := &cells[k]
			if cr.outside || cr.empty {
				continue
			}
			if _, ok := scalesGlyph(cr); !ok {
				continue
			}
			if !samplePatchScaled(g, lg, k, sx[k], sy[k], sw, sh, patch) {
				continue
			}
			var again cellResult
			ts.match(patch, &again)
			if again.empty {
				continue
			}
			if placesGlyph(&again) {
				kk := float64(k)
				px = append(px, [2]float64{kk, sx[k] + float64(again.dx)*sw})
				py = append(py, [2]float64{kk, sy[k] + float64(again.dy)*sh})
			}
		}
		if len(px) >= 6 {
			sx, sy = shiftFit(px, len(cells)), shiftFit(py, len(cells))
		}
	}
	order := make([]int, nClass)
	for k := range cells {
		cr := &cells[k]
		if cr.outside || cr.empty {
			continue
		}
		if !samplePatchScaled(g, lg, k, sx[k], sy[k], sw, sh, patch) {
			continue
		}
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(i, j int) bool { return cr.score[order[i]] > cr.score[order[j]] })
		cands := order[:10:10]
		set := allowed(cls[k])
		n := 0
		for _, c := range order[10:] {
			if n < 3 && strings.IndexByte(set, cell.Alphabet[c]) >= 0 {
				cands = append(cands, c)
				n++
			}
		}
		// The look-alikes of the leading classes are scored again too:
		// the check-digit repairs and the numbers prior weigh a glyph's
		// character against its look-alike (lookalike.go, numbers.go).
		for _, c := range order[:3] {
			if to, ok := lookAlike[cell.Alphabet[c]]; ok && strings.IndexByte(set, to) >= 0 {
				if i := strings.IndexByte(cell.Alphabet, to); !slices.Contains(cands, i) {
					cands = append(cands, i)
				}
			}
		}
		ts.rematch(patch, cands, cr)
		// Classes not scored again must not outrank those that were.
		for _, c := range order[10:] {
			if !slices.Contains(cands, c) {
				cr.score[c] = -1
			}
		}
	}
}

// smallerGlyphScales are the glyph sizes, relative to the font's at the
// line's pitch, that smallerGlyphs tries.
var smallerGlyphScales = []float64{0.9, 0.8}

// smallerGlyphs matches a line's cells again with glyphs smaller than the
// font's at the line's pitch (smallerGlyphScales, width and height alike)
// when too few of them (nobs) matched surely enough at the font's size to
// place the line's glyphs, and keeps the matches at the size at which at
// least six do, and more than nobs; it returns that size, or 1 (cells
// unchanged). rematchLine measures the glyphs' proportions from the
// glyphs that place the line; a zone printed small at the standard pitch
// in thin strokes gave none: an independently generated Belgian card's
// eroded, 0.85-high glyphs matched at 0.70–0.80 each, read B as D, E as F
// and 8 as S (docs/accuracy.md, twenty-second pass).
func smallerGlyphs(g *gray, ts *templateSet, lg *lineGeom, cells []cellResult, patch []float32, nobs int) float64 {
	best, bestN := 1.0, max(nobs, 5)
	var bestCells []cellResult
	try := make([]cellResult, len(cells))
	for _, s := range smallerGlyphScales {
		// Every third cell first: most lines that do not place at the
		// font's size are no zone's (text and patterns the line search
		// takes for one, read at every turn), and a size at which fewer
		// than two of a third of the cells place is not tried on the
		// rest (a zone read at its size places most of its glyphs; this
		// cut smallerGlyphs' cost on independent photos to a third and
		// changed no reading, docs/performance.md).
		n := 0
		for _, third := range []bool{true, false} {
			for k := range cells {
				if (k%3 == 0) != third {
					continue
				}
				cr := &try[k]
				*cr = cellResult{outside: cells[k].outside}
				if cr.outside {
					continue
				}
				if !samplePatchScaled(g, lg, k, 0, 0, s, s, patch) {
					cr.outside = true
					continue
				}
				ts.match(patch, cr)
				cr.scale = s
				if !cr.empty && placesGlyph(cr) {
					n++
				}
			}
			if third && n < 2 {
				break
			}
		}
		if n > bestN {
			best, bestN = s, n
			bestCells = append(bestCells[:0], try...)
		}
	}
	if best != 1 {
		copy(cells, bestCells)
	}
	return best
}

// placesGlyph reports a cell matched surely enough that where its glyph
// sits in it tells where the line's glyphs sit.
func placesGlyph(cr *cellResult) bool {
	c1, _, s1, s2 := top2(cr, cell.Alphabet)
	return s1 >= 0.8 && s1-s2 >= 0.05 && c1 != 0
}

// scalesGlyph reports a cell matched surely enough, a little less than
// placesGlyph asks, to measure the glyphs' scale by, and its class.
func scalesGlyph(cr *cellResult) (byte, bool) {
	c1, _, s1, s2 := top2(cr, cell.Alphabet)
	return c1, s1 >= 0.75 && s1-s2 >= 0.04 && c1 != 0
}

// shiftFit fits the shifts (k, v) of a line's glyphs in their cells and
// returns the fit at each of n cells: a straight fit along the line
// (dropping observations more than a template pixel off and fitting
// again) where it stays within a pixel of the local fit everywhere, the
// local fit where it does not. The straight fit averages the whole
// line, so it places cells more precisely (the digit 0 is told from the
// letter O by about a pixel of height); the local one follows a bow
// that the straight one would miss by more than that.
func shiftFit(pts [][2]float64, n int) []float64 {
	local := localFit(pts, n)
	xy := func(p [2]float64) (float64, float64) { return p[0], p[1] }
	a, b, _ := polyfit(pts, false, xy)
	var in [][2]float64
	for _, p := range pts {
		if math.Abs(p[1]-(a+b*p[0])) <= 1 {
			in = append(in, p)
		}
	}
	if len(in) >= 6 {
		a, b, _ = polyfit(in, false, xy)
	}
	straight := make([]float64, n)
	for k := range straight {
		straight[k] = a + b*float64(k)
		if math.Abs(straight[k]-local[k]) > 1 {
			return local
		}
	}
	return straight
}

// localFit smooths observations (k, v) of a quantity that varies
// smoothly along a line of n cells and returns its value at every cell:
// a weighted straight-line fit (tricube weights) through the
// observations near each cell, the neighbourhood reaching at least
// localCells cells and at least localMin observations either way in
// all, so that cells at the ends are extrapolated from the trend next
// to them rather than from the far end of the line. Observations more
// than a template pixel off their local fit (a glyph matched at the
// wrong shift) are dropped and the fit repeated.
func localFit(pts [][2]float64, n int) []float64 {
	out := make([]float64, n)
	use := make([]bool, len(pts))
	for i := range use {
		use[i] = true
	}
	for pass := 0; pass < 2; pass++ {
		for k := 0; k < n; k++ {
			out[k] = localAt(pts, use, float64(k))
		}
		if pass == 1 {
			break
		}
		kept := 0
		for i, p := range pts {
			use[i] = math.Abs(p[1]-localAt(pts, use, p[0])) <= 1
			if use[i] {
				kept++
			}
		}
		if kept < localMin {
			for i := range use {
				use[i] = true
			}
		}
	}
	return out
}

// The neighbourhood of localFit: wide enough to average the integer
// shifts of several glyphs, narrow enough to follow a bow over a line.
const (
	localCells = 6
	localMin   = 8
)

// localAt is the weighted straight-line fit of the points in use at k.
func localAt(pts [][2]float64, use []bool, k float64) float64 {
	var d []float64
	for i, p := range pts {
		if use[i] {
			d = append(d, math.Abs(p[0]-k))
		}
	}
	if len(d) == 0 {
		return 0
	}
	sort.Float64s(d)
	h := float64(localCells)
	if len(d) > localMin {
		h = math.Max(h, d[localMin-1])
	} else {
		h = math.Max(h, d[len(d)-1])
	}
	h++
	var sw, st, sv, stt, stv float64
	for i, p := range pts {
		if !use[i] {
			continue
		}
		u := math.Abs(p[0]-k) / h
		if u >= 1 {
			continue
		}
		w := 1 - u*u*u
		w = w * w * w
		t := p[0] - k
		sw += w
		st += w * t
		sv += w * p[1]
		stt += w * t * t
		stv += w * t * p[1]
	}
	if sw == 0 {
		return 0
	}
	den := sw*stt - st*st
	if den <= 1e-9*sw*sw {
		return sv / sw
	}
	// The value of the fit at t = 0, i.e. at k.
	b := (sw*stv - st*sv) / den
	return (sv - b*st) / sw
}

// chooseFormat picks the layout from the number of lines found and the
// number of characters on the complete ones (or the longest line).
func chooseFormat(lines int, complete []float64, maxInk float64) mrz.Format {
	if lines >= 3 {
		return mrz.TD1
	}
	est := maxInk
	if len(complete) > 0 {
		sort.Float64s(complete)
		est = complete[len(complete)/2]
	}
	best, bestD := mrz.TD3, math.Inf(1)
	for _, f := range []mrz.Format{mrz.TD1, mrz.TD2, mrz.TD3} {
		d := math.Abs(est - float64(f.Width()))
		if len(complete) == 0 && est > float64(f.Width())+1.5 {
			continue // a partial line cannot be longer than the format
		}
		if d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// project moves x on line (icpt0, slope0) along the lines' common normal
// onto line (icpt1, slope1) and returns the new x.
func project(x, icpt0, slope0, icpt1, slope1 float64) float64 {
	px, py := x, icpt0+slope0*x
	s := (slope0 + slope1) / 2
	nx, ny := -s, 1.0
	// Solve py + t*ny = icpt1 + slope1*(px + t*nx).
	t := (icpt1 + slope1*px - py) / (ny - slope1*nx)
	return px + t*nx
}

// shifted returns g moved by d pixels along its normal (down for d > 0).
func shifted(g *lineGeom, d float64) *lineGeom {
	c := math.Sqrt(1 + g.slope*g.slope)
	out := &lineGeom{icpt: g.icpt + d*c, slope: g.slope, h: g.h, leftEnd: g.leftEnd, rightEnd: g.rightEnd}
	dx := -d * g.slope / c
	for _, x := range g.centres {
		out.centres = append(out.centres, x+dx)
	}
	out.pitch = append(out.pitch, g.pitch...)
	return out
}

// settle moves an extrapolated line (full resolution) up or down by up to
// half a glyph height to where the most ink is: the glyphs of a
// line that was not found as a line (merged by blur, faded) are still
// there. bin is the detection-scale binary image, f the scale factor.
func settle(bin []uint8, w, h int, f float64, l *lineGeom) *lineGeom {
	gh := l.h / f // glyph height, detection pixels
	x0 := (l.centres[0] - 0.4*l.pitch[0]) / f
	x1 := (l.centres[len(l.centres)-1] + 0.4*l.pitch[len(l.pitch)-1]) / f
	count := func(off float64) int {
		n := 0
		for x := math.Max(x0, 0); x < math.Min(x1, float64(w)); x++ {
			yb := l.baseY(x*f)/f + off
			for y := int(yb - 0.85*gh); y <= int(yb-0.05*gh); y++ {
				if y >= 0 && y < h && bin[y*w+int(x)] != 0 {
					n++
				}
			}
		}
		return n
	}
	best, bestN := 0.0, count(0)
	for off := -0.5 * gh; off <= 0.5*gh; off += 0.5 {
		if n := count(off); n > bestN {
			best, bestN = off, n
		}
	}
	l.icpt += best * f
	return l
}

// refit places the cells of an extrapolated line (full resolution) on the
// glyph components lying on it, if there are enough: its ends stay
// where the neighbouring line puts them, the columns in between follow
// the glyphs (perspective makes the columns converge).
func refit(cs []comp, f float64, n int, g *lineGeom) *lineGeom {
	gh := g.h / f
	x0 := (g.centres[0] - 0.5*g.pitch[0]) / f
	x1 := (g.centres[n-1] + 0.5*g.pitch[n-1]) / f
	l := &textLine{}
	for i := range cs {
		c := &cs[i]
		h := float64(c.h())
		if c.cx() < x0 || c.cx() > x1 || h < 0.6*gh || h > 1.5*gh || float64(c.w()) > 1.3*h+1 {
			continue
		}
		if math.Abs(c.bottom()-g.baseY(c.cx()*f)/f) > 0.25*gh {
			continue
		}
		l.comps = append(l.comps, i)
	}
	if len(l.comps) < max(6, n/4) {
		return g
	}
	sort.Slice(l.comps, func(i, j int) bool { return cs[l.comps[i]].x0 < cs[l.comps[j]].x0 })
	l.icpt, l.slope, l.h = g.icpt/f, g.slope, gh
	l.p = median(g.pitch) / f
	out := placeCells(cs, l, f, anchors{left: true, right: true, lx: g.centres[0], rx: g.centres[n-1]}, n)
	if out == nil {
		return g
	}
	out.found = false
	return out
}

// lineInside reports whether the glyphs of the whole line lie in the image.
func lineInside(g *gray, l *lineGeom) bool {
	for _, k := range []int{0, len(l.centres) - 1} {
		x := l.centres[k]
		y := l.baseY(x)
		if x < 0 || x >= float64(g.w) || y-l.h < 0 || y >= float64(g.h) {
			return false
		}
	}
	return true
}

// cellFrame returns the origin (cell's left end of the baseline) and the
// unit vectors along and across (down) the line, and pixels per em.
func cellFrame(l *lineGeom, k int) (ox, oy, dx, dy, nx, ny, ppe float64) {
	c := math.Sqrt(1 + l.slope*l.slope)
	dx, dy = 1/c, l.slope/c
	nx, ny = -dy, dx
	p := l.pitch[k] * c // along the line
	ox = l.centres[k] - 0.5*l.pitch[k]
	oy = l.baseY(ox)
	return ox, oy, dx, dy, nx, ny, p / cell.Advance
}

func cellCorner(l *lineGeom, k int, side float64, top bool) image.Point {
	ox, oy, dx, dy, nx, ny, ppe := cellFrame(l, k)
	ex := side * cell.Advance
	ey := 0.05
	if top {
		ey = cell.Top
	}
	return image.Pt(int(math.Round(ox+ppe*(ex*dx+ey*nx))), int(math.Round(oy+ppe*(ex*dy+ey*ny))))
}

// samplePatch fills patch with the darkness (255 - grey) of cell k of l,
// sampled on the template grid plus margins. It reports false when a
// noticeable part of the cell lies outside the image.
func samplePatch(g *gray, l *lineGeom, k int, patch []float32) bool {
	return samplePatchAt(g, l, k, 0, 0, patch)
}

// samplePatchAt is samplePatch with the cell moved by (sx, sy) template
// pixels.
func samplePatchAt(g *gray, l *lineGeom, k int, sx, sy float64, patch []float32) bool {
	return samplePatchScaled(g, l, k, sx, sy, 1, 1, patch)
}

// glyphMiddle is half the height of the digits, the tallest glyphs (em
// above the baseline, negative: y points down).
const glyphMiddle = -0.773 / 2

// samplePatchScaled is samplePatchAt for glyphs printed sw times as wide
// and sh times as tall as the font, about the middle of the cell: the
// patch is resampled so that they match the templates. The middle, not
// the baseline, because the shifts (sx, sy) were found at the font's
// scale, which centres a smaller glyph in its cell.
func samplePatchScaled(g *gray, l *lineGeom, k int, sx, sy, sw, sh float64, patch []float32) bool {
	ox, oy, dx, dy, nx, ny, ppe := cellFrame(l, k)
	ox += ppe * cell.Scale * (sx*dx + sy*nx)
	oy += ppe * cell.Scale * (sx*dy + sy*ny)
	step := ppe * cell.Scale // image pixels per template pixel
	ss := 1
	if step > 1.3 {
		ss = min(int(math.Ceil(step)), 3)
	}
	// The sample points' offsets along and across the line, for each
	// column's and each row's subsamples: every sample's position is
	// the same sum of the same products as when each was computed in
	// place, so the reader's results do not change.
	var ax, ay [pw * 3]float64 // along: ex*dx, ex*dy
	var bx, by [ph * 3]float64 // across: ey*nx, ey*ny
	scaled := sw != 1 || sh != 1
	for i := 0; i < pw; i++ {
		for si := 0; si < ss; si++ {
			ex := (float64(i-cell.Margin) + (float64(si)+0.5)/float64(ss)) * cell.Scale
			if scaled {
				ex = cell.Advance/2 + (ex-cell.Advance/2)*sw
			}
			ax[i*ss+si], ay[i*ss+si] = ex*dx, ex*dy
		}
	}
	for j := 0; j < ph; j++ {
		for sj := 0; sj < ss; sj++ {
			ey := cell.Top + (float64(j-cell.Margin)+(float64(sj)+0.5)/float64(ss))*cell.Scale
			if scaled {
				ey = glyphMiddle + (ey-glyphMiddle)*sh
			}
			bx[j*ss+sj], by[j*ss+sj] = ey*nx, ey*ny
		}
	}
	// A patch whose samples all lie a pixel or more inside the image (a
	// position's extremes are its offsets' along and across) needs none
	// of bilinear's clamps: its samples are taken here, by bilinear's
	// arithmetic, without the call.
	n := ss * pw
	m := ss * ph
	xlo := ox + ppe*(min(slices.Min(ax[:n]), 0)+min(slices.Min(bx[:m]), 0)) - 1
	xhi := ox + ppe*(max(slices.Max(ax[:n]), 0)+max(slices.Max(bx[:m]), 0)) + 1
	ylo := oy + ppe*(min(slices.Min(ay[:n]), 0)+min(slices.Min(by[:m]), 0)) - 1
	yhi := oy + ppe*(max(slices.Max(ay[:n]), 0)+max(slices.Max(by[:m]), 0)) + 1
	inside := ppe >= 0 && xlo >= 1 && ylo >= 1 && xhi <= float64(g.w)-2 && yhi <= float64(g.h)-2
	out := 0
	inner := 0
	for j := 0; j < ph; j++ {
		for i := 0; i < pw; i++ {
			var acc float64
			okAll := true
			for sj := 0; sj < ss; sj++ {
				for si := 0; si < ss; si++ {
					x := ox + ppe*(ax[i*ss+si]+bx[j*ss+sj])
					y := oy + ppe*(ay[i*ss+si]+by[j*ss+sj])
					if inside {
						x, y = x-0.5, y-0.5
						x0, y0 := int(x), int(y)
						fx, fy := x-float64(x0), y-float64(y0)
						k := y0*g.w + x0
						a, b := float64(g.pix[k]), float64(g.pix[k+1])
						c, d := float64(g.pix[k+g.w]), float64(g.pix[k+g.w+1])
						acc += (a*(1-fx)+b*fx)*(1-fy) + (c*(1-fx)+d*fx)*fy
						continue
					}
					v, ok := g.bilinear(x, y)
					if !ok {
						okAll = false
						v = 255
					}
					acc += v
				}
			}
			inCell := i >= cell.Margin && i < cell.Margin+tw && j >= cell.Margin && j < cell.Margin+th
			if inCell {
				inner++
				if !okAll {
					out++
				}
			}
			patch[j*pw+i] = float32(255 - acc/float64(ss*ss))
		}
	}
	return out*5 < inner // less than 20 % outside
}

// top2 returns the best and second-best characters of the allowed set.
func top2(cr *cellResult, set string) (c1, c2 byte, s1, s2 float32) {
	s1, s2 = -2, -2
	for i := 0; i < len(set); i++ {
		ch := set[i]
		s := cr.score[strings.IndexByte(cell.Alphabet, ch)]
		switch {
		case s > s1:
			c2, s2 = c1, s1
			c1, s1 = ch, s
		case s > s2:
			c2, s2 = ch, s
		}
	}
	return c1, c2, s1, s2
}

// confidence maps the best correlation and its margin over the runner-up
// to [0, 1].
func confidence(s1, s2 float32) float64 {
	a := clamp01((float64(s1) - 0.45) / 0.35)
	m := clamp01((float64(s1-s2))/0.08 + 0.25)
	return a * m
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// nameSpans is where the name field (primary and secondary identifiers)
// of each format lies: line, start, end.
var nameSpans = map[mrz.Format]span{
	mrz.TD1: {2, 0, 30},
	mrz.TD2: {0, 5, 36},
	mrz.TD3: {0, 5, 44},
}

// fillNames enforces the one rule of the name field that a reading can
// break without any check digit noticing: ICAO 9303 separates name
// components by one filler and the primary from the secondary identifier
// by two, so three fillers in a row can only be the trailing filler, and
// everything after them is '<'. Names have no check digit, and the
// characters misread there are mostly fillers at a line's end (a '<'
// whose cell takes in its neighbour's arms reads as K or X), which would
// otherwise give a valid reading of a wrong name. A character after the
// trailing filler has begun becomes '<' when that is its runner-up (and
// is reported as a correction, at most half confident) and unreadable
// ('?', so the reading is not valid) when it is not: a letter there is
// either a misread filler or evidence that the run of fillers was itself
// misread.
func fillNames(format mrz.Format, text, alt [][]byte, conf [][]float64, guess [][]byte) []Correction {
	sp, ok := nameSpans[format]
	if !ok || sp.line >= len(text) {
		return nil
	}
	t := text[sp.line]
	from := strings.Index(string(t[sp.start:sp.end]), "<<<")
	if from < 0 {
		return nil
	}
	var out []Correction
	for k := sp.start + from + 3; k < sp.end; k++ {
		if t[k] == '<' || t[k] == '?' {
			continue
		}
		if alt[sp.line][k] == '<' {
			out = append(out, Correction{Line: sp.line, Pos: k, From: t[k], To: '<', Field: FieldNames})
			alt[sp.line][k] = t[k]
			t[k] = '<'
			conf[sp.line][k] = math.Min(conf[sp.line][k], 0.5)
			continue
		}
		t[k] = '?'
		conf[sp.line][k] = 0
		guess[sp.line][k] = '<'
	}
	return out
}

// optionalSpans are the fields an issuer fills at will (TD1's and TD2's
// optional data, TD3's personal number): left-justified and padded with
// fillers, so a field that begins with a filler holds nothing else.
var optionalSpans = map[mrz.Format][]span{
	mrz.TD1: {{0, 15, 30}, {1, 18, 29}},
	mrz.TD2: {{1, 28, 35}},
	mrz.TD3: {{1, 28, 42}},
}

// checkBlind are the characters whose value is a multiple of ten, as the
// filler's (0) is: a check digit cannot tell them from '<'.
const checkBlind = "0AKU"

// fillOptional restores the fillers of empty optional fields misread.
// A field that begins with a filler is empty by ICAO 9303's
// left-justification, so characters after that filler are misreads; a
// field with a character at its start is left as read (it may hold data
// misread there), and so is TD1's first optional field after a document
// number that overflows into it. Two kinds of misread are restored:
//
//   - K, A, U or 0, which no check digit notices (their values are
//     multiples of ten, as the filler's 0): a '<' whose cell takes in its
//     neighbour's arms reads as K (independently generated photos read
//     "<<<<<<<<<<<<<K" and "<K<K<K<<<<<" for empty fields, every check
//     verifying);
//   - at most two lone characters in a field (each between fillers, not a
//     run of data), when every check of the reading verifies with all
//     such characters of the zone made fillers: a low-light card read its
//     two empty fields' last fillers as Z (value 35, so that two of them
//     change any sum by a multiple of ten) with every check verifying.
//     Left-justification says they are not data and the check digits
//     count them as absent; data after a filler would verify without it
//     one time in ten, and is not written that way.
func fillOptional(format mrz.Format, text, alt [][]byte, conf [][]float64) []Correction {
	var out []Correction
	var lone [][2]int
	restore := func(p [2]int) {
		t := text[p[0]]
		out = append(out, Correction{Line: p[0], Pos: p[1], From: t[p[1]], To: '<', Field: FieldOptional})
		alt[p[0]][p[1]] = t[p[1]]
		t[p[1]] = '<'
		conf[p[0]][p[1]] = math.Min(conf[p[0]][p[1]], 0.5)
	}
	for _, sp := range optionalSpans[format] {
		if sp.line >= len(text) || len(text[sp.line]) < sp.end {
			continue
		}
		t := text[sp.line]
		if t[sp.start] != '<' || (format == mrz.TD1 && sp.line == 0 && t[14] == '<') {
			continue
		}
		field := string(t[sp.start:sp.end])
		if strings.Trim(field, "<") == "" {
			continue
		}
		if strings.Trim(field, "<"+checkBlind) == "" {
			for k := sp.start; k < sp.end; k++ {
				if t[k] != '<' {
					restore([2]int{sp.line, k})
				}
			}
			continue
		}
		var here [][2]int
		for k := sp.start; k < sp.end; k++ {
			if t[k] == '<' {
				continue
			}
			if k+1 < sp.end && t[k+1] != '<' || t[k] == '?' {
				here = nil // a run: data, or a field read unsurely
				break
			}
			here = append(here, [2]int{sp.line, k})
		}
		if len(here) > 0 && len(here) <= 2 {
			lone = append(lone, here...)
		}
	}
	if len(lone) == 0 {
		return out
	}
	was := make([]byte, len(lone))
	for i, p := range lone {
		was[i] = text[p[0]][p[1]]
		text[p[0]][p[1]] = '<'
	}
	ok := verifies(format, text)
	for i, p := range lone {
		text[p[0]][p[1]] = was[i]
	}
	if ok {
		for _, p := range lone {
			restore(p)
		}
	}
	return out
}

// correct applies check-digit corrections: when a field's check digit fails
// and exactly one of its ambiguous characters (small margin over the
// runner-up), replaced by its runner-up, makes the check verify, it is
// replaced. Failing that, two ambiguous characters may be replaced
// together if exactly one such pair makes both the field's and the
// composite check verify (O/0 twice in a document number). The composite
// check runs last and only touches characters not covered by a verified
// field check.
func correct(format mrz.Format, text, alt [][]byte, margin, conf [][]float64) []Correction {
	const ambiguous = 0.06
	var out []Correction
	cks := checks[format]
	composite := &cks[len(cks)-1]
	verified := map[[2]int]bool{}
	swap := func(p [2]int) { text[p[0]][p[1]], alt[p[0]][p[1]] = alt[p[0]][p[1]], text[p[0]][p[1]] }
	apply := func(p [2]int, field string) {
		out = append(out, Correction{Line: p[0], Pos: p[1], From: text[p[0]][p[1]], To: alt[p[0]][p[1]], Field: field})
		swap(p)
		conf[p[0]][p[1]] = math.Min(conf[p[0]][p[1]], 0.5)
	}
	for ci := range cks {
		c := &cks[ci]
		pos := c.positions()
		if !c.verify(text) {
			var cands [][2]int
			for _, p := range pos {
				if verified[p] || alt[p[0]][p[1]] == 0 || text[p[0]][p[1]] == '?' {
					continue
				}
				if margin[p[0]][p[1]] < ambiguous {
					cands = append(cands, p)
				}
			}
			var fixes [][2]int
			for _, p := range cands {
				swap(p)
				if c.verify(text) {
					fixes = append(fixes, p)
				}
				swap(p)
			}
			switch {
			case len(fixes) == 1:
				apply(fixes[0], c.name)
			case len(fixes) == 0 && len(cands) >= 2 && len(cands) <= 4 && c != composite:
				var pairs [][2][2]int
				for i := range cands {
					for j := i + 1; j < len(cands); j++ {
						swap(cands[i])
						swap(cands[j])
						if c.verify(text) && composite.verify(text) {
							pairs = append(pairs, [2][2]int{cands[i], cands[j]})
						}
						swap(cands[j])
						swap(cands[i])
					}
				}
				if len(pairs) == 1 {
					apply(pairs[0][0], c.name)
					apply(pairs[0][1], c.name)
				}
			}
		}
		if c.verify(text) && c != composite {
			for _, p := range pos {
				verified[p] = true
			}
		}
	}
	return out
}
