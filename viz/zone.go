package viz

import (
	"image"
	"math"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/verifyd/verifyd/ocr"
)

// Line is one line of recognised text.
type Line struct {
	// Text is the line's words, folded (capitals without diacritics) and
	// joined by single spaces.
	Text  string
	Words []ocr.Word
	Box   image.Rectangle
	// Conf is the mean confidence of its words.
	Conf float64
	// MRZ marks a line that belongs to a machine-readable zone: it is
	// ignored when the visual zone is compared with the MRZ.
	MRZ bool
	// Reread marks a line of a spot read again (Reread): it can confirm
	// a field, but is never taken for a label or a contradicting value.
	Reread bool
}

// Zone is what was read of a document's visual inspection zone.
type Zone struct {
	Lines []Line
	Dates []Date
}

// fold makes text comparable across fonts and languages: capitals, no
// diacritics (É → E, Ü → U, ß → SS), Æ/Ø/Œ spelled out as the ICAO
// transliteration of MRZ names does.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case r >= 0x300 && r <= 0x36f: // combining marks
		case r == 'ß':
			b.WriteString("SS")
		case r == 'Æ' || r == 'æ':
			b.WriteString("AE")
		case r == 'Ø' || r == 'ø':
			b.WriteString("OE")
		case r == 'Œ' || r == 'œ':
			b.WriteString("OE")
		case r == '«' || r == '‹':
			b.WriteByte('<')
		default:
			b.WriteString(strings.ToUpper(string(r)))
		}
	}
	return b.String()
}

// isMRZText reports text that belongs to a machine-readable zone: filler
// characters, or a long run of capitals and digits with no space.
func isMRZText(s string) bool {
	if strings.Count(s, "<") >= 2 {
		return true
	}
	run := 0
	for _, r := range s {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			run++
			if run >= 24 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// NewZone groups OCR words into lines and finds the dates and their labels.
// order says how numeric dates are written.
func NewZone(words []ocr.Word, order Order) Zone {
	type key struct{ b, p, l int }
	idx := map[key]int{}
	var z Zone
	for _, w := range words {
		k := key{w.Block, w.Par, w.Line}
		i, ok := idx[k]
		if !ok {
			i = len(z.Lines)
			idx[k] = i
			z.Lines = append(z.Lines, Line{Box: w.Box})
		}
		l := &z.Lines[i]
		l.Words = append(l.Words, w)
		l.Box = l.Box.Union(w.Box)
	}
	for i := range z.Lines {
		l := &z.Lines[i]
		texts := make([]string, len(l.Words))
		sum := 0.0
		for j, w := range l.Words {
			texts[j] = fold(w.Text)
			sum += w.Conf
		}
		l.Text = strings.Join(texts, " ")
		l.Conf = sum / float64(len(l.Words))
		l.MRZ = isMRZText(strings.ReplaceAll(l.Text, " ", "")) && strings.Count(l.Text, " ") <= 3
	}
	// Reading order: top to bottom, then left to right.
	slices.SortStableFunc(z.Lines, func(a, b Line) int {
		if a.Box.Min.Y != b.Box.Min.Y {
			return a.Box.Min.Y - b.Box.Min.Y
		}
		return a.Box.Min.X - b.Box.Min.X
	})
	for i, l := range z.Lines {
		if l.MRZ {
			continue
		}
		for _, d := range parseDates(l.Text, order) {
			d.Line = i
			d.Conf = l.minConf(d.Text)
			d.Role = z.labelOf(i, d.Text)
			z.Dates = append(z.Dates, d)
		}
	}
	for i := range z.Dates {
		for _, o := range z.Dates {
			if o.Digits == z.Dates[i].Digits {
				z.Dates[i].Reads++
			}
		}
	}
	return z
}

// minConf is the lowest confidence of the line's words that make up text
// (of all its words when they cannot be told apart).
func (l Line) minConf(text string) float64 {
	lo, found := 1.0, false
	for _, w := range l.Words {
		if f := fold(w.Text); f != "" && strings.Contains(fixDigitRuns(text), fixDigitRuns(f)) {
			lo, found = min(lo, w.Conf), true
		}
	}
	if !found {
		return l.Conf
	}
	return lo
}

// labels are the words (folded) that name a field on documents of the
// countries SPEC serves, in their languages; the EU driving licence numbers
// its fields (3: birth, 4a: issue, 4b: expiry, 5: number, 1: surname).
var labels = []struct {
	role  Role
	words []string
}{
	{RoleBirth, []string{"BIRTH", "NAISSANCE", "GEBURT", "GEBOREN", "NACIMIENTO", "NASCITA", "GEBOORTE", "URODZENIA",
		"FODELSE", "NASCIMENTO", "SYNTYMA", "FODSEL", "FODSELS", "FOEDSEL", "DOB", "NAROZENI", "GIMIMO", "SZULETESI", "NAISS",
		"DOGUM", "NASTERII", "BREITHE", "NAC", "NASC", "GEB", "3"}},
	{RoleExpiry, []string{"EXPIRY", "EXPIRATION", "EXPIRES", "EXP", "GULTIG", "VALABLE", "VALID", "VALIDITE", "CADUCIDAD",
		"SCADENZA", "GELDIG", "VALIDADE", "WAZNOSCI", "GILTIG", "VOIMASSA", "UTLOPER", "EXPIR", "PLATNOST", "ERVENYES",
		"VALABIL", "GECERLILIK", "UDLOB", "UDLOEB", "EAGA", "CAD", "VALIDEZ", "4B", "4B."}},
	{RoleIssue, []string{"ISSUE", "ISSUED", "DELIVRANCE", "DELIVRE", "AUSSTELLUNG", "AUSSTELLUNGSDATUM", "EXPEDICION",
		"RILASCIO", "EMISSIONE", "EISIUNA", "ISSUING", "AFGIFTE", "EMISSAO", "EMISION", "WYDANIA", "UTFARDANDE", "DELIV", "ISS", "4A", "4A."}},
}

// roleOfText returns the role a label text names (RoleNone if none): the
// first of birth, expiry and issue, in that order, that one of its words
// names.
func roleOfText(s string) Role {
	tokens := strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.') })
	// "Valid from" is the first day of validity, the date of issue's
	// role, although "valid" alone names the expiry ("valid until"); in
	// "valid from … until …" read as one line the last of the two words
	// names what follows it.
	for k := len(tokens) - 1; k >= 0; k-- {
		if tokens[k] == "FROM" {
			return RoleIssue
		}
		if tokens[k] == "UNTIL" || tokens[k] == "TO" {
			break
		}
	}
	// Words first, then the licence's field numbers: a number is also
	// what OCR makes of a speck or an edge beside a label, and "3 EO DATE
	// OF ISSUE", read across a tilted Japanese licence, gave its issue
	// date the birth role and failed an adult as a minor (independently
	// generated photos, docs/accuracy.md, fourteenth pass).
	for _, numbered := range []bool{false, true} {
		for _, want := range labels {
			for _, tok := range tokens {
				tok = strings.TrimSuffix(tok, ".")
				ts := []string{tok}
				if !numbered {
					ts = append(ts, unnumbered(tok)...)
				}
				for _, t := range ts {
					for _, w := range want.words {
						w = strings.TrimSuffix(w, ".")
						if startsWithDigit(w) == numbered && (t == w || len(w) >= 5 && strings.HasPrefix(t, w)) {
							return want.role
						}
					}
				}
			}
		}
	}
	return RoleNone
}

// unnumbered returns what follows a licence's field number glued to a
// word ("3DOB", "4BEXP", "4AISS"): AAMVA licences print the number small,
// just before the abbreviation, and OCR reads the two as one word. Both
// readings of a letter A–D after the digits are returned, as part of the
// number (4b) and as the word's first letter.
func unnumbered(t string) []string {
	i := 0
	for i < len(t) && i < 2 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i == len(t) {
		return nil
	}
	out := []string{t[i:]}
	if c := t[i]; c >= 'A' && c <= 'D' && i+1 < len(t) {
		out = append(out, t[i+1:])
	}
	return out
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// labelBefore is the part of the text before a value on its line that can
// be its label: what follows the last date in it, since the words before
// that date are that date's label ("EXP 12/31/2024 10/02/2009" does not
// make the second date an expiry) — unless what follows reads "until" or
// "to", which carries the label over ("valid from D1 until D2").
//
// A date's text is the text with the letters OCR makes of digits repaired
// (fixDigitRuns), so the dates are looked for there: an expiry read
// "01/30/2O31" was not found in the text as read, the whole row "4BEXP
// 01/30/2O31 4AISS" became the issue date's label, and its first role
// word, the expiry's, made a current licence's issue date its expiry. The
// label itself is returned as read ("4B" is no "48"): fixDigitRuns keeps
// the words one for one and each word's length.
func labelBefore(prefix string) string {
	fixed := fixDigitRuns(prefix)
	cut := -1
	for _, d := range append(parseDates(fixed, DMY), parseDates(fixed, MDY)...) {
		if k := strings.LastIndex(fixed, d.Text); k >= 0 {
			cut = max(cut, k+len(d.Text))
		}
	}
	if cut < 0 {
		return prefix
	}
	var rest string
	words := strings.Fields(prefix)
	for i, pos := 0, 0; i < len(words); i++ {
		if end := pos + len(words[i]); end > cut {
			rest = strings.Join(append([]string{words[i][max(cut-pos, 0):]}, words[i+1:]...), " ")
			break
		} else {
			pos = end + 1
		}
	}
	if words := strings.Fields(rest); slices.Contains(words, "UNTIL") || slices.Contains(words, "TO") {
		return prefix
	}
	return rest
}

// labelOf finds the label of the value text on line i: the text before it
// on the same line, else the nearest line above that overlaps it
// horizontally and lies within two of its heights.
func (z *Zone) labelOf(i int, value string) Role {
	l := z.Lines[i]
	if pos := strings.Index(l.Text, value); pos > 0 {
		if r := labelRole(labelBefore(l.Text[:pos])); r != RoleNone {
			return r
		}
	}
	// The value's own box, for lines that hold several fields side by side.
	box, found := image.Rectangle{}, false
	var vws []image.Rectangle
	for _, w := range l.Words {
		if f := fixDigitRuns(fold(w.Text)); f != "" && strings.Contains(fixDigitRuns(value), f) {
			box, found = box.Union(w.Box), true
			vws = append(vws, w.Box)
		}
	}
	if !found {
		box = l.Box
	}
	// Left: a label printed before its value on the same row (the EU
	// licence's "3.", the AAMVA licence's "4b EXP", a residence permit's
	// "Valid until") that Tesseract read as a line of its own because of
	// the gap between them. Only the nearest words to the value's left on
	// its row count, and only when they end within four of its heights of
	// it: anything further is another field of the row.
	h := max(box.Dy(), 1)
	if r, ok := z.labelLeft(i, box, h, vws); ok {
		return r
	}
	// Above: the nearest line whose words overlap the value horizontally
	// is its label line; only its words over the value count (a label
	// line holds several fields' labels side by side). When that line
	// names no field (a label OCR garbled, or another value), the value
	// has no label: a label further up belongs to another row.
	nearest, nearestDy := -1, 1<<30
	for j, a := range z.Lines {
		if j == i || a.MRZ || a.Reread {
			continue
		}
		dy := box.Min.Y - a.Box.Max.Y
		if dy < -h/2 || dy > 2*h || dy >= nearestDy {
			continue
		}
		for _, w := range a.Words {
			if w.Box.Max.X >= box.Min.X-h && w.Box.Min.X <= box.Max.X+h/2 {
				nearest, nearestDy = j, dy
				break
			}
		}
	}
	if nearest < 0 {
		return RoleNone
	}
	words := z.Lines[nearest].Words
	for k, w := range words {
		if w.Box.Max.X < box.Min.X-h || w.Box.Min.X > box.Max.X+h/2 {
			continue
		}
		r := roleOfText(fold(w.Text))
		// A word may be part of a longer label: "BIRTH" of "PLACE OF BIRTH".
		if r == RoleBirth && placeOnly(phrase(words, k, h)) {
			continue
		}
		if r != RoleNone {
			return r
		}
	}
	return RoleNone
}

// phrase is word k of words with the words before it on its line that
// follow each other closely (gaps of at most 2h), folded: the label a
// word of it belongs to ("PLACE OF BIRTH" for "BIRTH").
func phrase(words []ocr.Word, k, h int) string {
	from := k
	for from > 0 && k-from < 5 && words[from].Box.Min.X-words[from-1].Box.Max.X <= 2*h {
		from--
	}
	var parts []string
	for _, w := range words[from : k+1] {
		parts = append(parts, fold(w.Text))
	}
	return strings.Join(parts, " ")
}

// placeOnly reports a birth label that names the place of birth and not
// its date ("PLACE OF BIRTH", "LIEU DE NAISSANCE", "GEBURTSORT"): the
// value under it is a town, and a date found there is another field's (a
// genuine Austrian card's glared expiry date, under GEBURTSORT, was taken
// for a birth date that contradicted the MRZ; independently generated
// photos). "DATE AND PLACE OF BIRTH" names both and stays a birth label.
func placeOnly(label string) bool {
	place, date := false, false
	for _, t := range strings.FieldsFunc(label, func(r rune) bool { return !(r >= 'A' && r <= 'Z') }) {
		switch {
		case strings.Contains(t, "DAT") || t == "FECHA" || strings.HasSuffix(t, "TARIHI") || t == "DOB" || strings.HasSuffix(t, "AIKA") ||
			strings.HasSuffix(t, "TAG"):
			date = true
		case slices.Contains(placeWords, t) || slices.ContainsFunc(placeSuffixes, func(s string) bool {
			return len(t) > len(s)+2 && strings.HasSuffix(t, s) && roleOfText(strings.TrimSuffix(t, s)) == RoleBirth
		}):
			place = true
		}
	}
	return place && !date
}

// placeWords name a place on its own; placeSuffixes one after a birth
// word in a compound (GEBURTSORT, FODELSEORT, GEBOORTEPLAATS,
// SYNTYMAPAIKKA).
var (
	placeWords    = []string{"PLACE", "LIEU", "LUGAR", "LUOGO", "MIEJSCE", "LOCAL", "YERI", "AIT", "ORT", "PLAATS", "STED", "LOC"}
	placeSuffixes = []string{"SORT", "ORT", "PLAATS", "STED", "PAIKKA"}
)

// labelLeft returns the role named by the label nearest to the left of
// box on its row, outside line i: the word ending nearest before the
// value, within four of its heights, together with the words before it on
// its line that follow each other closely ("4B EXP", "VALID UNTIL").
// found is false when no such word exists or it names no field.
func (z *Zone) labelLeft(i int, box image.Rectangle, h int, vws []image.Rectangle) (role Role, found bool) {
	rowAt := valueRow(vws)
	bestLine, bestWord, bestX := -1, -1, -1<<30
	for j, a := range z.Lines {
		if j == i || a.MRZ || a.Reread {
			continue
		}
		for k, w := range a.Words {
			// On the row: the word overlaps at least half the value's
			// height, or it lies on the value's row carried on to it
			// (valueRow). Issuers print labels smaller than values, and
			// a small label beside its value on a photo turned a few
			// degrees (the rest of a roll that skew estimation left)
			// overlaps it by less than half: a Brazilian and an Indian
			// licence photographed turned 13–14° had their dates'
			// labels refused so and went to review instead of failing as
			// expired (independently generated photos, fresh seeds 66
			// and 67).
			overlap := min(w.Box.Max.Y, box.Max.Y) - max(w.Box.Min.Y, box.Min.Y)
			onRow := 2*overlap >= h || rowAt != nil && rowAt(w)
			if !onRow || w.Box.Max.X > box.Min.X+h/4 || box.Min.X-w.Box.Max.X > 4*h {
				continue
			}
			if w.Box.Max.X > bestX {
				bestLine, bestWord, bestX = j, k, w.Box.Max.X
			}
		}
	}
	if bestLine < 0 {
		return RoleNone, false
	}
	words := z.Lines[bestLine].Words
	from := bestWord
	for from > 0 && words[from].Box.Min.X-words[from-1].Box.Max.X <= 2*h {
		from--
	}
	var parts []string
	for _, w := range words[from : bestWord+1] {
		parts = append(parts, fold(w.Text))
	}
	label := strings.Join(parts, " ")
	// A date between the label and this value is the label's own value:
	// "EXP 12/31/2024   10/02/2009" does not make the second an expiry.
	if len(parseDates(label, DMY)) > 0 || len(parseDates(label, MDY)) > 0 {
		return RoleNone, false
	}
	if r := labelRole(label); r != RoleNone {
		return r, true
	}
	return RoleNone, false
}

// valueRow returns, for a value read as two or more words (their boxes),
// whether a word no taller than its shortest word lies on the value's row
// carried on to the word's place: its middle within half that height of
// the line through the middles of the leftmost and the rightmost word.
// The box of the whole value grows with the photo's turn and would take
// in the label of the next row as well (a review of the rule that first
// used it). It returns nil when the words span less than two of their
// heights, or slope by more than 20°: too little to draw the row by, or
// no row of a photo that skew estimation turned upright.
func valueRow(vws []image.Rectangle) func(w ocr.Word) bool {
	if len(vws) < 2 {
		return nil
	}
	hw := vws[0].Dy()
	for _, b := range vws {
		hw = min(hw, b.Dy())
	}
	mid := func(b image.Rectangle) (float64, float64) {
		return float64(b.Min.X+b.Max.X) / 2, float64(b.Min.Y+b.Max.Y) / 2
	}
	first, last := vws[0], vws[0]
	for _, b := range vws {
		if b.Min.X < first.Min.X {
			first = b
		}
		if b.Max.X > last.Max.X {
			last = b
		}
	}
	x0, y0 := mid(first)
	x1, y1 := mid(last)
	if hw <= 0 || x1-x0 < float64(2*hw) {
		return nil
	}
	slope := (y1 - y0) / (x1 - x0)
	if math.Abs(slope) > math.Tan(20*math.Pi/180) {
		return nil
	}
	return func(w ocr.Word) bool {
		x, y := mid(w.Box)
		return w.Box.Dy() <= hw && math.Abs(y-(y0+slope*(x-x0))) <= float64(hw)/2
	}
}

// labelRole is the role the label text names for the value beside or
// under it: roleOfText's, but none for a label that names the place of
// birth alone (placeOnly).
func labelRole(label string) Role {
	r := roleOfText(label)
	if r == RoleBirth && placeOnly(label) {
		return RoleNone
	}
	return r
}
