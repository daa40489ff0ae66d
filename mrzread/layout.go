package mrzread

import (
	"slices"
	"strings"

	"github.com/verifyd/verifyd/mrz"
)

// Character classes of MRZ positions (ICAO 9303 parts 4–6):
//
//	a  letters and '<' (codes, names, nationality)
//	n  digits (dates, check digits)
//	m  a month's tens digit (0 or 1) in a date
//	t  a day's tens digit (0 to 3) in a date
//	c  a digit or '<' (check digits that may be a filler)
//	x  letters, digits and '<' (document number, optional data)
//	s  sex: M, F, X or '<'
//	d  first character of an identity card's document code: A, C or I
//	p  first character of a passport's document code: P
//
// A date's tens of month and of day are classes of their own: a glyph
// that reads best as a digit no calendar has there is read as the best
// digit that fits. A genuine Spanish passport photographed tilted had its
// birth date 680305 read "686365" (the month's and the day's 0 as 6),
// which no check could repair, and was failed as partial_id
// (independently generated photos, seed 26).
var classes = map[mrz.Format][]string{
	// The document code's second character is the issuer's: a letter, a
	// filler or a digit (the United States' permanent resident card is
	// "C1").
	mrz.TD1: {
		"dxaaa" + strings.Repeat("x", 9) + "c" + strings.Repeat("x", 15),
		date + "n" + "s" + date + "n" + "aaa" + strings.Repeat("x", 11) + "n",
		strings.Repeat("a", 30),
	},
	mrz.TD2: {
		"dx" + strings.Repeat("a", 34),
		strings.Repeat("x", 9) + "caaa" + date + "ns" + date + "n" + strings.Repeat("x", 7) + "n",
	},
	mrz.TD3: {
		"p" + strings.Repeat("a", 43),
		strings.Repeat("x", 9) + "caaa" + date + "ns" + date + "n" + strings.Repeat("x", 14) + "cn",
	},
}

// date is the classes of a date, YYMMDD.
const date = "nnmntn"

func allowed(class byte) string {
	switch class {
	case 'm':
		return "01"
	case 't':
		return "0123"
	case 'a':
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
	case 'n':
		return "0123456789"
	case 'c':
		return "0123456789<"
	case 's':
		return "MFX<"
	case 'd':
		return "ACI"
	case 'p':
		return "P"
	}
	return "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
}

// span is a range of positions [start, end) of one line.
type span struct{ line, start, end int }

// check is a check-digit-protected field.
type check struct {
	name  string // an mrz.Field* name
	parts []span
	digit [2]int // line, position of the check digit
	// filler: '<' in the check position is acceptable (document number
	// overflow; empty personal number).
	filler bool
}

var checks = map[mrz.Format][]check{
	mrz.TD1: {
		{mrz.FieldDocumentNumber, []span{{0, 5, 14}}, [2]int{0, 14}, true},
		{mrz.FieldBirthDate, []span{{1, 0, 6}}, [2]int{1, 6}, false},
		{mrz.FieldExpiryDate, []span{{1, 8, 14}}, [2]int{1, 14}, false},
		{mrz.FieldComposite, []span{{0, 5, 30}, {1, 0, 7}, {1, 8, 15}, {1, 18, 29}}, [2]int{1, 29}, false},
	},
	mrz.TD2: {
		{mrz.FieldDocumentNumber, []span{{1, 0, 9}}, [2]int{1, 9}, true},
		{mrz.FieldBirthDate, []span{{1, 13, 19}}, [2]int{1, 19}, false},
		{mrz.FieldExpiryDate, []span{{1, 21, 27}}, [2]int{1, 27}, false},
		{mrz.FieldComposite, []span{{1, 0, 10}, {1, 13, 20}, {1, 21, 35}}, [2]int{1, 35}, false},
	},
	mrz.TD3: {
		{mrz.FieldDocumentNumber, []span{{1, 0, 9}}, [2]int{1, 9}, true},
		{mrz.FieldBirthDate, []span{{1, 13, 19}}, [2]int{1, 19}, false},
		{mrz.FieldExpiryDate, []span{{1, 21, 27}}, [2]int{1, 27}, false},
		{mrz.FieldPersonalNumber, []span{{1, 28, 42}}, [2]int{1, 42}, true},
		{mrz.FieldComposite, []span{{1, 0, 10}, {1, 13, 20}, {1, 21, 43}}, [2]int{1, 43}, false},
	},
}

// verify reports whether the check digit of c holds in lines.
func (c *check) verify(lines [][]byte) bool {
	var b strings.Builder
	for _, s := range c.parts {
		b.Write(lines[s.line][s.start:s.end])
	}
	field := b.String()
	if strings.ContainsRune(field, '?') {
		return false
	}
	d := lines[c.digit[0]][c.digit[1]]
	if d == '<' && c.filler {
		if c.name == mrz.FieldPersonalNumber {
			return strings.Trim(field, "<") == ""
		}
		return true // document number overflow: checked in the optional data
	}
	return d >= '0' && d <= '9' && int(d-'0') == mrz.CheckDigit(field)
}

// positions lists every (line, position) a check covers, its digit last.
func (c *check) positions() [][2]int {
	var out [][2]int
	for _, s := range c.parts {
		for p := s.start; p < s.end; p++ {
			out = append(out, [2]int{s.line, p})
		}
	}
	return append(out, c.digit)
}

// FieldOf names the field of the MRZ that position pos of line (both
// 0-based) belongs to: one of mrz's check-digit fields (FieldDocumentNumber,
// FieldBirthDate, FieldExpiryDate, FieldPersonalNumber), its check digit
// included; FieldNames for the name; FieldHeader for the document code
// and issuing state; "" for the rest (nationality, sex, optional data,
// the composite check digit). The engine uses it to tell a verdict that
// rests on a corrected character from one that does not.
func FieldOf(format mrz.Format, line, pos int) string {
	if line == 0 && pos < 5 {
		return FieldHeader
	}
	if sp, ok := nameSpans[format]; ok && line == sp.line && pos >= sp.start && pos < sp.end {
		return FieldNames
	}
	if sps := stateSpans[format]; len(sps) == 2 && line == sps[1].line && pos >= sps[1].start && pos < sps[1].end {
		return FieldNationality
	}
	for _, c := range checks[format] {
		if c.name == mrz.FieldComposite {
			continue
		}
		for _, p := range c.positions() {
			if p == [2]int{line, pos} {
				return c.name
			}
		}
	}
	return ""
}

// guessedOverUnread reports whether a check digit of the reading verifies
// only because of corrections while it covers characters that could not
// be read (a run of unc) and that no other check, verifying untouched,
// vouches for. Such a check says nothing: the corrections try hundreds
// of look-alike swaps (lookAlikes), and one in ten strings of garbage
// under a finger verifies a digit. On independently generated photos a
// finger over a Ukrainian card's optional data and composite digit was
// read HMMNL and LL7779, one O swapped for 0 made the composite verify,
// and the covered zone was approved (docs/accuracy.md, twenty-fifth
// pass). A check whose unread characters another, narrower check vouches
// for — verifying with no correction in it — is not affected.
func guessedOverUnread(format mrz.Format, corr []Correction, unc []Span) bool {
	if len(unc) == 0 || len(corr) == 0 {
		return false
	}
	unread := func(p [2]int) bool {
		return slices.ContainsFunc(unc, func(s Span) bool { return s.Line == p[0] && p[1] >= s.Start && p[1] < s.End })
	}
	touched := func(c check) bool {
		ps := c.positions()
		return slices.ContainsFunc(corr, func(k Correction) bool { return slices.Contains(ps, [2]int{k.Line, k.Pos}) })
	}
	all := checks[format]
	for _, c := range all {
		if !touched(c) {
			continue
		}
		for _, p := range c.positions() {
			if !unread(p) {
				continue
			}
			// Vouched for by a narrower check that verifies untouched.
			vouched := slices.ContainsFunc(all, func(o check) bool {
				return o.name != c.name && o.name != mrz.FieldComposite && !touched(o) && slices.Contains(o.positions(), p)
			})
			if !vouched {
				return true
			}
		}
	}
	return false
}

// FieldHeader is FieldOf's name for the document code and issuing state.
const FieldHeader = "header"

// FieldNationality is FieldOf's name for the holder's nationality.
const FieldNationality = "nationality"

// GuessUnchecked returns the reading with every unreadable character ('?')
// of the fields no check digit covers — the name, the document code and
// the issuing state — replaced by the reader's best guess, each reported
// as a correction of its field, and whether that made a valid reading. It
// is false when there is nothing to guess, when a position of another
// field is unreadable, when a guess is missing (a cell outside the photo)
// or when a check digit fails.
//
// One glyph lost to glare or to a fold in the name would otherwise leave
// every checked field unused: in independently generated photos four of
// seven genuine documents refused for an unread zone had their only '?'
// in the name (docs/accuracy.md). The guess settles nothing by itself —
// the name has no check digit, and the engine confirms the name, dates
// and number against the printed data before it approves, and decides
// nothing on a corrected header alone.
func (r *Result) GuessUnchecked() (Result, bool) {
	if r.Valid || r.CutOff || len(r.guess) != len(r.Lines) {
		return Result{}, false
	}
	lines := make([][]byte, len(r.Lines))
	var made []Correction
	for li, l := range r.Lines {
		lines[li] = []byte(l)
		for k := range lines[li] {
			if lines[li][k] != '?' {
				continue
			}
			f := FieldOf(r.Format, li, k)
			if f != FieldNames && f != FieldHeader || r.guess[li][k] == 0 {
				return Result{}, false
			}
			lines[li][k] = r.guess[li][k]
			made = append(made, Correction{Line: li, Pos: k, From: '?', To: r.guess[li][k], Field: f})
		}
	}
	if len(made) == 0 {
		return Result{}, false
	}
	for _, c := range checks[r.Format] {
		if !c.verify(lines) {
			return Result{}, false
		}
	}
	if guessedOverUnread(r.Format, slices.Concat(r.Corrections, made), r.Uncertain) {
		return Result{}, false
	}
	out := *r
	out.Lines = make([]string, len(lines))
	for i, l := range lines {
		out.Lines[i] = string(l)
	}
	out.Corrections = append(slices.Clone(r.Corrections), made...)
	out.Valid = true
	return out, true
}

// SurnameConfidence is the lowest confidence of the characters of the
// name field's primary identifier (the surname) and of the "<<" that ends
// it, or 0 when the reading has no surname. The name field carries no
// check digit, so this is all that says how far its reading can be
// trusted: a printed surname that differs from a surname read this surely
// is a contradiction, not a misread (engine.VisualZoneCheck).
func (r Result) SurnameConfidence() float64 {
	li, start, end, ok := r.surnameSpan()
	if !ok || li >= len(r.Confidence) {
		return 0
	}
	line, conf := r.Lines[li], r.Confidence[li]
	lo, letters := 1.0, 0
	for k := start; k < min(end, len(conf)); k++ {
		lo = min(lo, conf[k])
		if line[k] != '<' {
			letters++
		}
	}
	if letters == 0 {
		return 0
	}
	return lo
}

// SurnameCorrected reports whether the reader changed a character of the
// name field's primary identifier (the surname) or of the "<<" that ends
// it (Result.Corrections): the name prior's changes keep their
// confidence, so SurnameConfidence does not say so. A correction of the
// given names leaves the surname as read: a forged card's printed SMITH
// against its MRZ's DOYLE went to review, not to potential_fraud, because
// the given name EOIN read EDIN had been changed (independently generated
// photos, docs/accuracy.md).
func (r Result) SurnameCorrected() bool {
	li, start, end, ok := r.surnameSpan()
	return ok && slices.ContainsFunc(r.Corrections, func(c Correction) bool {
		return c.Line == li && c.Pos >= start && c.Pos < end
	})
}

// surnameSpan is where a reading's surname lies: its line, and the
// positions from its first character to just after the "<<" that ends it
// (or to the name field's end).
func (r Result) surnameSpan() (line, start, end int, ok bool) {
	sp, ok := nameSpans[r.Format]
	if !ok || sp.line >= len(r.Lines) {
		return 0, 0, 0, false
	}
	l := r.Lines[sp.line]
	end = min(sp.end, len(l))
	if k := strings.Index(l[min(sp.start, end):end], "<<"); k >= 0 {
		end = sp.start + k + 2
	}
	return sp.line, sp.start, end, true
}

// SurnameCells returns the confidence of each character of the name
// field's primary identifier (the surname) as read, its '<' separators
// included and the "<<" that ends it left out, with the runner-up the
// reader allowed there; nil when the reading has no surname.
func (r Result) SurnameCells() (conf []float64, alt []byte) {
	li, start, end, ok := r.surnameSpan()
	if !ok || li >= len(r.Confidence) {
		return nil, nil
	}
	line := r.Lines[li]
	end = min(end, len(line), len(r.Confidence[li]))
	for end > start && line[end-1] == '<' {
		end--
	}
	for k := start; k < end; k++ {
		conf = append(conf, r.Confidence[li][k])
		var a byte
		if li < len(r.Alternatives) && k < len(r.Alternatives[li]) {
			a = r.Alternatives[li][k]
		}
		alt = append(alt, a)
	}
	return conf, alt
}

// FieldConfidence is the lowest confidence of the characters of field (a
// FieldOf name: mrz.FieldDocumentNumber, its check digit included, …), or
// 0 when the reading has none of them. Two misreads in one field verify
// its check digit one time in ten, so a field read with a character
// nearly unreadable can be wrong however its check digit says: a genuine
// card's EAC552993 was read EAC557993 with its extension 94327 read 94377,
// and both checks verified (independently generated photos).
func (r Result) FieldConfidence(field string) float64 {
	lo, found := 1.0, false
	for li, line := range r.Confidence {
		for k, c := range line {
			if FieldOf(r.Format, li, k) == field {
				lo, found = min(lo, c), true
			}
		}
	}
	if !found {
		return 0
	}
	return lo
}
