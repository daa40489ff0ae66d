package mrzocr

import (
	"image"
	"math"
	"slices"
	"strings"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
)

// textLine is one line of words as the OCR engine segmented it.
type textLine struct {
	words []ocr.Word
	box   image.Rectangle
	text  string // the words' text, joined without spaces
}

// textLines groups words into lines (the engine's block, paragraph and
// line numbers), top to bottom, each line's words left to right; words
// are upper-cased and stripped of anything outside the MRZ alphabet
// (the whitelist keeps most of it out, not all).
func textLines(words []ocr.Word) []textLine {
	idx := map[[3]int]int{}
	var out []textLine
	for _, w := range words {
		w.Text = clean(w.Text)
		if w.Text == "" {
			continue
		}
		k := [3]int{w.Block, w.Par, w.Line}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, textLine{box: w.Box})
		}
		out[i].words = append(out[i].words, w)
		out[i].box = out[i].box.Union(w.Box)
	}
	for i := range out {
		slices.SortFunc(out[i].words, func(a, b ocr.Word) int { return a.Box.Min.X - b.Box.Min.X })
		var b strings.Builder
		for _, w := range out[i].words {
			b.WriteString(w.Text)
		}
		out[i].text = b.String()
	}
	slices.SortStableFunc(out, func(a, b textLine) int { return (a.box.Min.Y + a.box.Max.Y) - (b.box.Min.Y + b.box.Max.Y) })
	return out
}

func clean(s string) string {
	s = strings.ToUpper(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '<':
			b.WriteRune(r)
		case r == '«':
			// Tesseract's usual reading of two fillers when the
			// whitelist does not hold.
			b.WriteString("<<")
		}
	}
	return b.String()
}

// placed is one line laid onto the zone's grid of character cells.
type placed struct {
	chars []byte
	// filled marks cells the engine gave no character for, filled with
	// '<' because the line's geometry says a character is there.
	filled []bool
	// guessed marks the filled cells and those of words whose run of
	// fillers was resized: the engine did not read them as they are.
	guessed []bool
	conf    float64
	// resized counts the words whose run of fillers was resized to
	// their span; junk those left unread.
	resized, junk int
}

// place lays line l onto a grid of width cells starting at x0 with the
// given pitch: each word starts at the cell its left edge falls in. A
// word spanning more or fewer cells than it has characters had a run of
// fillers read too short or too long (identical glyphs in a row are
// where an LSTM engine drops or repeats characters): its longest run of
// '<' takes up the difference. Cells no word covers are filled with '<'
// and marked (what the engine saw as a gap between words is, in an MRZ,
// which has no spaces, glyphs it did not recognise: most often fillers).
// ok is false when words overlap or run beyond the grid by more than a
// cell, or when a word's length cannot be reconciled with its span.
func place(l textLine, x0, pitch float64, width int) (placed, bool) {
	return placeOn(l, x0, pitch, width, true)
}

// placeOn is place; anchored says that x0 is the line's own first
// character, so its first word must start there (else x0 is the zone's
// left edge, known from elsewhere, and the line may start further right).
func placeOn(l textLine, x0, pitch float64, width int, anchored bool) (placed, bool) {
	p := placed{chars: make([]byte, width), filled: make([]bool, width), guessed: make([]bool, width)}
	for i := range p.chars {
		p.chars[i] = 0
	}
	next := 0
	sum, n := 0.0, 0
	for wi, w := range l.words {
		start := int(math.Round((float64(w.Box.Min.X) - x0) / pitch))
		cells := int(math.Round(float64(w.Box.Dx()) / pitch))
		text := w.Text
		if wi == 0 && start < 0 || anchored && wi == 0 && start != 0 {
			if start < -1 || start > 1 {
				return p, false
			}
			start = 0
		}
		if start < next {
			if start < next-1 {
				return p, false
			}
			start = next
		}
		if start >= width {
			return p, false
		}
		if d := cells - len(text); d != 0 {
			if adj, ok := adjustFiller(text, d); ok {
				text = adj
				p.resized++
				for i := start; i < min(start+len(text), width); i++ {
					p.guessed[i] = true
				}
			} else if abs(d) > 3 && start > 0 {
				// Characters spaced far wider or narrower than the
				// pitch are not a reading of the cells they span (a
				// run of fillers read as a few letters): they are left
				// unread, and only a filler the grammar allows there
				// can take their place (fit).
				p.junk++
				next = max(next, start+cells)
				continue
			} else if abs(d) > 1 {
				return p, false
			}
		}
		if start+len(text) > width {
			// Trailing fillers beyond the line: read too long.
			over := start + len(text) - width
			if over > 2 || over > len(text) || strings.Trim(text[len(text)-over:], "<") != "" {
				return p, false
			}
			text = text[:len(text)-over]
		}
		copy(p.chars[start:], text)
		next = start + len(text)
		sum += w.Conf * float64(len(text))
		n += len(text)
	}
	for i, c := range p.chars {
		if c == 0 {
			p.chars[i], p.filled[i], p.guessed[i] = '<', true, true
		}
	}
	if n > 0 {
		p.conf = sum / float64(n)
	}
	return p, true
}

// adjustFiller lengthens (d > 0) or shortens (d < 0) the longest run of
// '<' in s by d characters, keeping at least one; ok is false when s has
// no run of '<' that can take the difference.
func adjustFiller(s string, d int) (string, bool) {
	best, bestLen := -1, 0
	for i := 0; i < len(s); {
		if s[i] != '<' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '<' {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	// A run of three or more is read short or long by up to its own
	// length (identical glyphs in a row); a shorter one (a separator) by
	// one at most.
	if best < 0 || bestLen+d < 1 || bestLen < 3 && abs(d) > 1 || abs(d) > max(bestLen, 3) {
		return s, false
	}
	return s[:best] + strings.Repeat("<", bestLen+d) + s[best+bestLen:], true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// field is a span [start, end) of a line.
type field struct{ line, start, end int }

// nameField is where each format keeps the holder's name.
var nameField = map[mrz.Format]field{
	mrz.TD1: {2, 0, 30},
	mrz.TD2: {0, 5, 36},
	mrz.TD3: {0, 5, 44},
}

// optionalFields are the issuer's optional data (TD3: the personal
// number), left-aligned and padded with fillers.
var optionalFields = map[mrz.Format][]field{
	mrz.TD1: {{0, 15, 30}, {1, 18, 29}},
	mrz.TD2: {{1, 28, 35}},
	mrz.TD3: {{1, 28, 42}},
}

// textFields are the fields that may hold fillers at all: the document
// code's second letter, the issuing state and nationality (Germany's
// "D<<"), the document number, the names and the optional data. Any
// other position holding a filler is a misread.
func fillerAllowed(f mrz.Format, line, pos int) bool {
	in := func(fl field) bool { return fl.line == line && pos >= fl.start && pos < fl.end }
	if in(nameField[f]) {
		return true
	}
	for _, o := range optionalFields[f] {
		if in(o) {
			return true
		}
	}
	switch f {
	case mrz.TD1:
		return line == 0 && pos >= 1 && pos < 15 || line == 1 && (pos == 7 || pos >= 15 && pos < 18)
	case mrz.TD2, mrz.TD3:
		return line == 0 && pos >= 1 && pos < 5 || line == 1 && (pos < 9 || pos >= 10 && pos < 13 || pos == 20 || pos == 42 && f == mrz.TD3)
	}
	return false
}

// fillerTail reports whether positions [pos, end) of field fl hold only
// fillers in the line: where ICAO 9303 allows a filler inside a field
// other than the name, it pads the field's content on the right, so a
// filler with content after it in the same field is a misread.
func fillerTail(line []byte, fl field, pos int) bool {
	for i := pos; i < fl.end; i++ {
		if line[i] != '<' {
			return false
		}
	}
	return true
}

// enclosing is the field a position of a line belongs to for the
// purpose of fillerTail: the fields that may be padded with fillers.
func enclosing(f mrz.Format, line, pos int) (field, bool) {
	var fs []field
	switch f {
	case mrz.TD1:
		fs = []field{{0, 0, 2}, {0, 2, 5}, {0, 5, 14}, {1, 15, 18}}
	case mrz.TD2, mrz.TD3:
		fs = []field{{0, 0, 2}, {0, 2, 5}, {1, 0, 9}, {1, 10, 13}}
	}
	fs = append(fs, optionalFields[f]...)
	for _, fl := range fs {
		if fl.line == line && pos >= fl.start && pos < fl.end {
			return fl, true
		}
	}
	return field{}, false
}
