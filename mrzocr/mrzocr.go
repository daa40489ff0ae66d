// Package mrzocr reads a machine-readable zone (MRZ) with a general OCR
// engine (Tesseract, package ocr): a second reader for the photos that
// package mrzread, a template matcher for one font, cannot read. The two
// fail differently: mrzread needs its cells where the zone's geometry
// puts them and glyphs shaped like its OCR-B templates; Tesseract's LSTM
// reads glyphs of any shape in lines it segments itself, but misreads
// the filler '<' (as K, X or nothing) and drops or repeats characters in
// runs of identical glyphs.
//
// Read levels and crops the zone (mrzread's located quad when it found
// one, else the lower part of the document), divides out uneven light,
// asks the engine for the text at two scales, lays each line onto the
// zone's grid of fixed-pitch cells (which restores fillers the engine
// dropped or repeated: a word's length must match the cells it spans),
// maps K and X back to '<' only where the MRZ's grammar requires a
// filler, and accepts a reading only when every check digit verifies,
// the composite included. No check-digit-protected character is ever
// changed: a reading either verifies as read or is not returned.
package mrzocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
	"strings"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/viz"
)

// Alphabet is the MRZ's 37 characters, the OCR engine's whitelist.
const Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"

// ErrNotRead means no reading whose check digits all verify was found.
var ErrNotRead = errors.New("mrzocr: no machine-readable zone whose check digits verify")

// Zone is where another reader located the MRZ, if it did.
type Zone struct {
	// Found reports that Quad and Format are meaningful.
	Found bool
	// Quad is the zone's corners in the photo (top-left, top-right,
	// bottom-right, bottom-left, as the zone reads).
	Quad [4]image.Point
	// Format is the layout the other reader took the zone for.
	Format mrz.Format
	// Lines is the other reader's reading, '?' where it could not read
	// a character (optional).
	Lines []string
}

// Result is a reading whose check digits all verify.
type Result struct {
	Format mrz.Format
	Lines  []string
	// Confidence is the engine's mean word confidence, in [0, 1].
	Confidence float64
	// Quad is where the lines were read, in the photo.
	Quad [4]image.Point
	// Filled counts the cells filled with '<' because the engine gave
	// no character there; Resized the words whose run of fillers was
	// lengthened or shortened to the cells the word spans; Mapped the K
	// and X read where the grammar requires a filler; Letters the 0 and
	// 1 read where it requires a letter.
	Filled, Resized, Mapped, Letters int
	// Agreed reports that two crops or scales gave this same reading.
	Agreed bool
	// Attempt says which crop and scale gave the reading.
	Attempt string
}

// Reader reads MRZs with an OCR engine.
type Reader struct {
	OCR ocr.Engine
}

// attempt is one crop of the photo: the quadrilateral q extended by mu
// along its lines and mv across them, sampled upright at size w×h.
type attempt struct {
	name   string
	q      [4][2]float64
	mu, mv float64
	w, h   int
	pitch  float64 // the expected pitch in the crop, pixels (0: unknown)
	// zone: q is the other reader's zone, so its cells are known.
	zone bool
}

// Pitches are the character pitches, in pixels, the zone is sampled at:
// Tesseract reads capitals best 20–40 pixels tall, and two scales fail
// differently (a thin stroke lost at one is kept at the other).
var pitches = []float64{24, 34}

// Read looks for the MRZ in img and returns a reading whose check digits
// all verify, or ErrNotRead. hint is the expected format (0: any).
func (r Reader) Read(ctx context.Context, img image.Image, hint mrz.Format, z Zone) (Result, error) {
	if r.OCR == nil {
		return Result{}, ocr.ErrUnavailable
	}
	// A reading that needed a word's fillers resized may have absorbed
	// a character the engine added or dropped elsewhere in the word, and
	// one with a digit read for a letter may hold other misread letters,
	// in fields no check digit covers (a nationality read "UIT0" or
	// "UI0" for "UTO"): such a reading is taken only when another crop
	// or scale reads exactly the same.
	var resized []Result
	for _, a := range attempts(img, hint, z) {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		g := normalize(warp(img, a.q, a.mu, a.mv, a.w, a.h), a.pitch)
		words, err := r.OCR.Words(ctx, g, ocr.Options{PSM: 6, Whitelist: Alphabet})
		if err != nil {
			return Result{}, err
		}
		lines := textLines(words)
		res, ok := Result{}, false
		if a.zone {
			res, ok = fillHoles(z, lines, float64(a.w)*a.mu/(1+2*a.mu), float64(a.w)/(1+2*a.mu)/float64(z.Format.Width()))
		}
		if !ok {
			res, ok = assemble(lines, hint)
		}
		if !ok {
			continue
		}
		if res.Attempt == "holes" {
			res.Attempt = "holes in the zone@" + strings.TrimPrefix(a.name, "zone@")
			res.Quad = z.Quad
			return res, nil
		}
		res.Attempt = a.name
		m := newSquareToQuad(a.q)
		for i, p := range res.Quad {
			u := -a.mu + (1+2*a.mu)*float64(p.X)/float64(a.w)
			v := -a.mv + (1+2*a.mv)*float64(p.Y)/float64(a.h)
			x, y := m.apply(u, v)
			res.Quad[i] = image.Pt(int(math.Round(x)), int(math.Round(y)))
		}
		for _, o := range resized {
			if slices.Equal(o.Lines, res.Lines) {
				o.Agreed = true
				return o, nil
			}
		}
		if res.Resized == 0 && res.Letters == 0 {
			return res, nil
		}
		resized = append(resized, res)
	}
	return Result{}, ErrNotRead
}

// attempts lists the crops to read, in order: the located zone at each
// scale, then the lower half of the document, levelled by its text
// lines' angle, scaled for each line width.
func attempts(img image.Image, hint mrz.Format, z Zone) []attempt {
	var out []attempt
	if z.Found && z.Format != 0 {
		var q [4][2]float64
		for i, p := range z.Quad {
			q[i] = [2]float64{float64(p.X), float64(p.Y)}
		}
		length := (math.Hypot(q[1][0]-q[0][0], q[1][1]-q[0][1]) + math.Hypot(q[2][0]-q[3][0], q[2][1]-q[3][1])) / 2
		height := (math.Hypot(q[3][0]-q[0][0], q[3][1]-q[0][1]) + math.Hypot(q[2][0]-q[1][0], q[2][1]-q[1][1])) / 2
		if length > 0 && height > 0 {
			for _, p := range pitches {
				// The zone's own proportions are kept: a zone foreshortened
				// across its lines by the quad's errors stays readable.
				s := p * float64(z.Format.Width()) / length
				const mu, mv = 0.06, 0.45
				out = append(out, attempt{name: fmt.Sprintf("zone@%g", p), q: q, mu: mu, mv: mv, zone: true,
					w: int(length * s * (1 + 2*mu)), h: int(height * s * (1 + 2*mv)), pitch: p})
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	// Without a zone: the lower half of the document (where every MRZ
	// is), or the whole photo when no document stands out from a
	// background, turned level about its centre.
	lower := img.Bounds()
	rect, found := quality.FindDocument(img)
	if found && !rect.Empty() {
		lower = image.Rect(rect.Min.X, rect.Min.Y+rect.Dy()/2, rect.Max.X, rect.Max.Y)
	}
	angle := viz.EstimateSkew(img, lower, 25)
	cx, cy := float64(lower.Min.X+lower.Max.X)/2, float64(lower.Min.Y+lower.Max.Y)/2
	a := angle * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	hw, hh := float64(lower.Dx())/2, float64(lower.Dy())/2
	var q [4][2]float64
	for i, c := range [4][2]float64{{-hw, -hh}, {hw, -hh}, {hw, hh}, {-hw, hh}} {
		q[i] = [2]float64{cx + c[0]*cos - c[1]*sin, cy + c[0]*sin + c[1]*cos}
	}
	widths := []int{44, 30}
	if hint != 0 {
		widths = []int{hint.Width()}
	}
	for _, wc := range widths {
		// An MRZ spans about 0.89 of its document's width in every
		// format (ICAO 9303: 30 × 2.54 mm on an 85.6 mm card, 44 on a
		// 125 mm passport page).
		p := pitches[0]
		s := p * float64(wc) / (0.89 * float64(lower.Dx()))
		const mu, mv = 0.03, 0.1
		out = append(out, attempt{name: fmt.Sprintf("document@%d", wc), q: q, mu: mu, mv: mv,
			w: int(float64(lower.Dx()) * s * (1 + 2*mu)), h: int(float64(lower.Dy()) * s * (1 + 2*mv)), pitch: p})
	}
	return out
}

// assemble finds the MRZ among the engine's lines: f.Lines() consecutive
// lines that lay onto one grid of f.Width() cells and verify.
func assemble(lines []textLine, hint mrz.Format) (Result, bool) {
	formats := []mrz.Format{mrz.TD1, mrz.TD3, mrz.TD2}
	if hint != 0 {
		formats = []mrz.Format{hint}
	}
	for _, f := range formats {
		n, w := f.Lines(), f.Width()
		for i := 0; i+n <= len(lines); i++ {
			win := lines[i : i+n]
			// The pitch from the lines read to their last character:
			// every MRZ line is as long as the others, and a line whose
			// trailing fillers were not seen would give too short a one.
			// (Lines with gaps, where the engine saw no glyph, hold fewer
			// characters than cells; none can hold many more.)
			pitch := 0.0
			for _, l := range win {
				if len(l.text) > w+2 || 2*len(l.text) < w {
					pitch = 0
					break
				}
				pitch = math.Max(pitch, float64(l.box.Dx())/float64(w))
			}
			if pitch == 0 {
				continue
			}
			res, ok := fit(f, win, pitch)
			if ok {
				return res, true
			}
		}
	}
	return Result{}, false
}

// fit lays win onto the grid, restores the fillers the grammar requires
// and parses; ok only when every check digit verifies.
func fit(f mrz.Format, win []textLine, pitch float64) (Result, bool) {
	res := Result{Format: f}
	grid := make([][]byte, len(win))
	filled := make([][]bool, len(win))
	box := image.Rectangle{}
	conf := 0.0
	for li, l := range win {
		p, ok := place(l, float64(l.box.Min.X), pitch, f.Width())
		if !ok {
			return Result{}, false
		}
		grid[li], filled[li] = p.chars, p.filled
		// Only the name, which no check digit covers and the printed
		// data confirms, may hold cells the engine did not read as they
		// are: elsewhere a blank (a finger, glare) filled with fillers
		// passes a check digit one time in ten ('<' counts as '0').
		nf := nameField[f]
		for pos, g := range p.guessed {
			if g && !(nf.line == li && pos >= nf.start && pos < nf.end) {
				return Result{}, false
			}
		}
		res.Resized += p.resized + p.junk
		box = box.Union(l.box)
		conf += p.conf
	}
	res.Mapped, res.Letters = grammarFillers(f, grid)
	for li := range grid {
		for pos, fl := range filled[li] {
			if !fl {
				continue
			}
			res.Filled++
			if !fillerAllowed(f, li, pos) {
				return Result{}, false
			}
			if nf := nameField[f]; nf.line == li && pos >= nf.start && pos < nf.end &&
				!strings.Contains(string(grid[li][nf.start:pos]), "<<") {
				// A filler the engine did not read may stand for a
				// letter: in the name, only after the surname has
				// ended (the names have no check digit, and the
				// surname is what the printed data is compared with).
				return Result{}, false
			}
			if e, ok := enclosing(f, li, pos); ok && !fillerTail(grid[li], e, pos) {
				return Result{}, false
			}
		}
	}
	for _, l := range grid {
		res.Lines = append(res.Lines, string(l))
	}
	if _, err := mrz.Parse(res.Lines); err != nil {
		return Result{}, false
	}
	res.Confidence = conf / float64(len(win))
	res.Quad = [4]image.Point{box.Min, {box.Max.X, box.Min.Y}, box.Max, {box.Min.X, box.Max.Y}}
	return res, true
}

// grammarFillers turns into '<' the K and X read where the MRZ's grammar
// allows nothing but a filler, and into O and I the 0 and 1 read where it
// allows only letters, and returns how many of each it changed:
//
//   - in the name field, after the names' end: the second "<<" (the
//     first separates surname and given names, which are separated from
//     each other by single fillers) or the first run of three; there
//     every character, whatever it was read as, is a filler;
//   - in an optional data field (TD3: the personal number), after a
//     filler beyond which the field holds only K, X and fillers: the
//     issuer's data is left-aligned and padded on the right.
//
// Nothing else is changed: K and '<' have the same check-digit value
// modulo 10, so no check digit could confirm such a change, and the
// grammar is what justifies it.
func grammarFillers(f mrz.Format, grid [][]byte) (fillers, letters int) {
	n := 0
	isKX := func(c byte) bool { return c == 'K' || c == 'X' || c == '<' }
	nf := nameField[f]
	line := grid[nf.line][nf.start:nf.end]
	end := -1
	seps := 0
	for i := 0; i+1 < len(line); i++ {
		if i+2 < len(line) && line[i] == '<' && line[i+1] == '<' && line[i+2] == '<' {
			end = i
			break
		}
		if line[i] == '<' && line[i+1] == '<' {
			seps++
			if seps == 2 {
				end = i
				break
			}
			i++
		}
	}
	if end >= 0 {
		for i := end; i < len(line); i++ {
			if line[i] != '<' {
				line[i] = '<'
				n++
			}
		}
	}
	// The document code, issuing state and nationality hold letters
	// only; Tesseract reads OCR-B's O as 0 (and I as 1) where nothing
	// tells it that a digit cannot be there. No check digit covers
	// these fields: the visual zone or a person confirms them.
	for _, c := range letterFields[f] {
		fl := grid[c.line][c.start:c.end]
		for i, ch := range fl {
			if l, ok := digitLetter[ch]; ok {
				fl[i] = l
				letters++
			}
		}
	}
	for _, o := range optionalFields[f] {
		fl := grid[o.line][o.start:o.end]
		start := len(fl)
		for i := len(fl) - 1; i >= 0 && isKX(fl[i]); i-- {
			if fl[i] == '<' {
				start = i
			}
		}
		for i := start; i < len(fl); i++ {
			if fl[i] != '<' {
				fl[i] = '<'
				n++
			}
		}
	}
	return n, letters
}

// letterFields are the document code, issuing state and nationality.
var letterFields = map[mrz.Format][]field{
	mrz.TD1: {{0, 0, 5}, {1, 15, 18}},
	mrz.TD2: {{0, 0, 5}, {1, 10, 13}},
	mrz.TD3: {{0, 0, 5}, {1, 10, 13}},
}

// digitLetter maps the digits Tesseract reads for letters of OCR-B.
var digitLetter = map[byte]byte{'0': 'O', '1': 'I'}

// fillHoles completes the other reader's reading where it could not read
// a character ('?'): each line with such holes takes the characters the
// engine read there from the engine's line that lies on the same cells
// (the zone's grid in the crop: x0 and pitch) and agrees with the other
// reader everywhere else but for at most two cells. Only the holes are
// filled, with what the engine read in them (never a filler it did not
// read); the result must then verify like any other reading.
func fillHoles(z Zone, lines []textLine, x0, pitch float64) (Result, bool) {
	f := z.Format
	if len(z.Lines) != f.Lines() || pitch <= 0 {
		return Result{}, false
	}
	out := slices.Clone(z.Lines)
	holes := 0
	for li, l := range z.Lines {
		if len(l) != f.Width() || !strings.Contains(l, "?") {
			continue
		}
		done := false
		for _, tl := range lines {
			p, ok := placeOn(tl, x0, pitch, f.Width(), false)
			if !ok {
				continue
			}
			diff, fill := 0, []byte(l)
			for i := range fill {
				switch {
				case l[i] == '?' && p.filled[i]:
					diff = 99 // nothing read there
				case l[i] == '?':
					fill[i] = p.chars[i]
				case p.chars[i] != l[i] && !p.filled[i]:
					diff++
				}
			}
			if diff <= 2 {
				out[li] = string(fill)
				holes += strings.Count(l, "?")
				done = true
				break
			}
		}
		if !done {
			return Result{}, false
		}
	}
	if holes == 0 {
		return Result{}, false
	}
	if _, err := mrz.Parse(out); err != nil {
		return Result{}, false
	}
	return Result{Format: f, Lines: out, Filled: holes, Attempt: "holes"}, true
}
