package viz

import (
	"context"
	"image"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
)

// Reading a field again where it should be.
//
// Read reads the whole page, where Tesseract's layout analysis decides
// what is text: on photos with glare, blur or a bent page it keeps a
// date's day and month and drops its year ("23 AUG"), or reads the label
// and loses the value under it. Independently generated genuine documents
// went to review for such fields far more often than for anything else
// (docs/accuracy.md). Spots names the places worth a second look — a
// piece of the MRZ's value, or a label that names the field — and Reread
// reads each alone, enlarged from the photo itself, as one block of text.
//
// What such a reading finds can confirm a field (the MRZ's own value, in
// full) but never contradict it: the crop is chosen because it resembles
// the value sought, and its words are kept apart (Line.Reread) from the
// labelled values that can make a Mismatch.

// Spot is a part of the page, in the coordinates of Read's first reading,
// to read again.
type Spot struct {
	Rect image.Rectangle
	// Glyph is the height of the text the spot was found by, which sets
	// the scale it is read at: a value's capitals, or a label's (printed
	// about half a value's height).
	Glyph int
	Label bool
}

// At most this many spots per field and in all: each costs two readings
// of a small image (read together, all of a pass's spots cost about as
// much as one page reading with Tesseract's CLI).
const (
	spotsPerField = 3
	maxSpots      = 8
)

// valueGlyphPx is the capital height a spot's value is enlarged to: in
// the 30–40 px band where Read's pages are read best (TargetSide).
const valueGlyphPx = 36

// Spots returns where on the page, read as z, the fields of f that done
// (their comparison so far) leaves unread or uncertain could be read
// again: first the lines that hold a piece of the MRZ's value (a date's
// year, or its day and month; four characters of its number or surname),
// then the labels that name the field.
func (z Zone) Spots(f mrz.Fields, done Comparison) []Spot {
	need := map[string]bool{}
	for _, fd := range done {
		need[fd.Name] = fd.Status == Unread || fd.Status == Uncertain
	}
	type field struct {
		name  string
		piece func(Line) bool
		label func(string) bool
	}
	dateField := func(name string, want mrz.Date, role Role) field {
		return field{name, func(l Line) bool { return dateHint(l.Text, want) },
			func(w string) bool { return len(w) >= 3 && roleOfText(w) == role }}
	}
	fields := []field{
		dateField("birth_date", f.BirthDate, RoleBirth),
		dateField("expiry_date", f.ExpiryDate, RoleExpiry),
		{"document_number", func(l Line) bool { return sharesRun(shape(l.Text), shape(f.DocumentNumber), 4) },
			func(w string) bool { return len(w) >= 2 && slices.Contains(numberLabels, w) && w != "N" }},
		{"surname", func(l Line) bool {
			for _, p := range strings.Fields(f.Surname) {
				if len(p) >= 5 && sharesRun(shape(l.Text), shape(p), 4) {
					return true
				}
			}
			return false
		}, func(w string) bool { return len(w) >= 3 && surnameLabelWord(w) }},
	}
	var out []Spot
	for _, fd := range fields {
		if !need[fd.name] {
			continue
		}
		var cands []Spot
		for _, l := range z.Lines {
			if l.MRZ || l.Reread || len(l.Words) == 0 {
				continue
			}
			if fd.piece(l) {
				h := glyphOf(l.Words)
				cands = append(cands, Spot{Rect: image.Rect(l.Box.Min.X-3*h, l.Box.Min.Y-h/2, l.Box.Max.X+6*h, l.Box.Max.Y+h/2), Glyph: h})
			}
		}
		for _, l := range z.Lines {
			if l.MRZ || l.Reread {
				continue
			}
			for _, w := range l.Words {
				t := strings.Trim(fold(w.Text), ".:,;/-")
				if !fd.label(t) {
					continue
				}
				h := max(w.Box.Dy(), 1)
				// The value lies below its label or after it on its row.
				cands = append(cands, Spot{Rect: image.Rect(w.Box.Min.X-2*h, w.Box.Min.Y-h/2, w.Box.Max.X+24*h, w.Box.Max.Y+5*h), Glyph: h, Label: true})
			}
		}
		n := 0
		for _, c := range cands {
			if n == spotsPerField || len(out) == maxSpots {
				break
			}
			if !c.Among(out) {
				out = append(out, c)
				n++
			}
		}
	}
	return out
}

// Among reports whether three fifths of s, or of one of spots, lies in
// the other: the same place, already read or about to be.
func (s Spot) Among(spots []Spot) bool {
	for _, o := range spots {
		if 5*area(o.Rect.Intersect(s.Rect)) >= 3*min(area(o.Rect), area(s.Rect)) {
			return true
		}
	}
	return false
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// glyphOf is the median height of words' boxes.
func glyphOf(ws []ocr.Word) int {
	hs := make([]int, len(ws))
	for i, w := range ws {
		hs[i] = w.Box.Dy()
	}
	slices.Sort(hs)
	return max(hs[len(hs)/2], 1)
}

// dateHint reports whether a line holds a piece of the date want: its
// four-digit year, or its day next to its month (as a number or a name),
// in either order.
func dateHint(text string, want mrz.Date) bool {
	t := fixDigitRuns(text)
	if strings.Contains(t, strconv.Itoa(want.Year)) {
		return true
	}
	tokens := strings.FieldsFunc(t, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') })
	val := func(s string) int {
		if m, ok := month(s); ok && len(s) >= 3 {
			return int(m)
		}
		if n, err := strconv.Atoi(s); err == nil && len(s) <= 2 {
			return n
		}
		return -1
	}
	for i := 0; i+1 < len(tokens); i++ {
		a, b := val(tokens[i]), val(tokens[i+1])
		if a == want.Day && b == int(want.Month) || a == int(want.Month) && b == want.Day {
			return true
		}
	}
	return false
}

// sharesRun reports whether a and b share a run of at least n characters.
func sharesRun(a, b string, n int) bool {
	if len(b) < n {
		return false
	}
	for i := 0; i+n <= len(b); i++ {
		if strings.Contains(a, b[i:i+n]) {
			return true
		}
	}
	return false
}

// rereadPasses are the readings of each spot, in order, until enough is
// read: one block of text (a label and its value are two lines of it),
// with Tesseract's local threshold, then its global one.
var rereadPasses = []ocr.Options{
	{PSM: 6, Threshold: 2, DPI: readDPI},
	{PSM: 6, Threshold: 0, DPI: readDPI},
}

// Reread reads the spots of the page that Read read from img and r,
// each enlarged from the photo so that its value's capitals are about
// valueGlyphPx tall (1.5 to 3 times the page's scale), until enough
// (nil: never) is satisfied by the words read so far. The words are
// returned in the page's coordinates, each spot's reading as lines of
// their own, for Zone.WithRereads.
func Reread(ctx context.Context, eng ocr.Engine, img image.Image, r Region, spots []Spot, enough func([]ocr.Word) bool) ([]ocr.Word, error) {
	if len(spots) == 0 {
		return nil, nil
	}
	src := grayOf(img, img.Bounds(), r.Mask)
	g := geometryOf(img.Bounds(), r)
	// A spot may reach past the page's crop, by a tenth of its size: an
	// outline found a little inside the document cut the last digits of
	// a number printed at a card's edge, in every reading. It is drawn
	// from the whole photo.
	page := image.Rect(0, 0, g.w, g.h)
	reach := page.Inset(-max(g.w, g.h) / 10)
	type crop struct {
		win image.Rectangle
		k   float64
	}
	var crops []crop
	var imgs []*image.Gray
	for _, s := range spots {
		win := s.Rect.Intersect(reach)
		if win.Empty() {
			continue
		}
		want := float64(valueGlyphPx)
		if s.Label {
			want /= 2
		}
		// At least half as large again as Read's page: a new scale
		// binarises and segments the glyphs anew.
		k := min(max(want/float64(s.Glyph), 1.5), 3)
		crops = append(crops, crop{win, k})
		imgs = append(imgs, g.draw(src, src.Bounds(), win, k, false))
	}
	var words []ocr.Word
	for _, opt := range rereadPasses {
		// All the spots in one call: the engine's start (a process and
		// its trained data, ~0.1 s with Tesseract's CLI) is paid once a
		// pass instead of once a spot.
		read, err := ocr.WordsOfPages(ctx, eng, imgs, opt)
		if err != nil {
			return nil, err
		}
		for i, got := range read {
			c := crops[i]
			blocks := 0
			for _, w := range words {
				blocks = max(blocks, w.Block+1)
			}
			for _, w := range got {
				w.Block += blocks
				w.Box = image.Rect(
					c.win.Min.X+int(math.Floor(float64(w.Box.Min.X)/c.k)), c.win.Min.Y+int(math.Floor(float64(w.Box.Min.Y)/c.k)),
					c.win.Min.X+int(math.Ceil(float64(w.Box.Max.X)/c.k)), c.win.Min.Y+int(math.Ceil(float64(w.Box.Max.Y)/c.k)))
				words = append(words, w)
			}
		}
		if enough != nil && enough(words) {
			break
		}
	}
	return words, nil
}

// WithRereads returns z with the lines of words (Reread's) added as
// re-read lines: their dates, numbers and names can confirm the MRZ's,
// but no label is taken from them and no value of theirs can contradict
// it (Compare).
func (z Zone) WithRereads(words []ocr.Word, order Order) Zone {
	if len(words) == 0 {
		return z
	}
	r := NewZone(words, order)
	out := Zone{Lines: slices.Clone(z.Lines), Dates: slices.Clone(z.Dates)}
	n := len(out.Lines)
	for _, l := range r.Lines {
		l.Reread = true
		out.Lines = append(out.Lines, l)
	}
	for _, d := range r.Dates {
		d.Line += n
		d.Role, d.Reread = RoleNone, true
		out.Dates = append(out.Dates, d)
	}
	return out
}
