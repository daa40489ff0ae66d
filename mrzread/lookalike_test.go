package mrzread

import (
	"slices"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// reading builds the inputs of repair for lines as read: every character
// scored 0.9 and its look-alike (if any) 0.7, except the characters at
// misread, whose look-alike scores 0.88 (as measured: a misread O/0 or
// S/5 costs 0.00–0.15 against 0.09–0.25 for characters read right), and
// no runner-up close enough for correct's rule.
func reading(lines []string, misread ...[3]int) (text, alt [][]byte, margin, conf [][]float64, scores [][][nClass]float32) {
	for li, l := range lines {
		text = append(text, []byte(l))
		alt = append(alt, make([]byte, len(l)))
		m := make([]float64, len(l))
		for i := range m {
			m[i] = 0.3
		}
		margin = append(margin, m)
		conf = append(conf, make([]float64, len(l)))
		sc := make([][nClass]float32, len(l))
		for k := range l {
			sc[k][strings.IndexByte(cell.Alphabet, l[k])] = 0.9
			if to, ok := lookAlike[l[k]]; ok {
				sc[k][strings.IndexByte(cell.Alphabet, to)] = 0.7
				for _, m := range misread {
					if m[0] == li && m[1] == k {
						sc[k][strings.IndexByte(cell.Alphabet, to)] = 0.88
					}
				}
			}
		}
		scores = append(scores, sc)
	}
	return
}

func TestRepairLookAlikes(t *testing.T) {
	// TD1 with a document number and optional data holding zeros.
	td1 := []string{
		"I<SWE07567084<7<<<<<<<<<<<<<<<",
		"8005159M3412020SWE8005159655<0",
		"LINDBERG<<ANDERS<<<<<<<<<<<<<<",
	}
	if _, err := mrz.Parse(td1); err != nil {
		t.Fatalf("test data: %v", err)
	}
	td3 := []string{
		"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
		"L898902C36UTO7408122F1204159ZE184226B<<<<<10",
	}
	for _, tc := range []struct {
		name   string
		format mrz.Format
		want   []string
		// misread replaces characters of want: line, position, as read
		// (the same character: right, but as likely its look-alike).
		misread [][3]int
		// repaired: whether repair must give want back; otherwise it
		// must leave the reading as read (no guess).
		repaired bool
	}{
		{"document number 8 read as B", mrz.TD3, td3, [][3]int{{1, 3, 'B'}}, true},
		{"document number 0 read as O", mrz.TD3, td3, [][3]int{{1, 5, 'O'}}, true},
		{"four zeros read as O in number and optional data", mrz.TD1, td1,
			[][3]int{{0, 5, 'O'}, {0, 10, 'O'}, {1, 19, 'O'}, {1, 20, 'O'}}, true},
		// 24 × 3 ≡ −24 × 7 (mod 10): the last 0 of the personal number
		// read as O, and the 0 seven places before it as likely an O by
		// its glyph; a number written in digits decides (an independently
		// generated, motion-blurred passport).
		{"an O among digits at weight 3, its rival at weight 7", mrz.TD3, []string{td3[0], "HV29555769POL8810285F280402888102830240<<<62"},
			[][3]int{{1, 38, 'O'}, {1, 31, '0'}}, true},
		{"a date is digits only: not a look-alike field", mrz.TD1, td1, [][3]int{{1, 0, '6'}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := append([]string(nil), tc.want...)
			for _, m := range tc.misread {
				b := []byte(lines[m[0]])
				b[m[1]] = byte(m[2])
				lines[m[0]] = string(b)
			}
			text, alt, margin, conf, scores := reading(lines, tc.misread...)
			got := repair(tc.format, text, alt, margin, conf, scores)
			var out []string
			for _, l := range text {
				out = append(out, string(l))
			}
			switch {
			case tc.repaired && strings.Join(out, "\n") != strings.Join(tc.want, "\n"):
				t.Fatalf("repaired to\n%s\nwant\n%s\n(corrections %+v)", strings.Join(out, "\n"), strings.Join(tc.want, "\n"), got)
			case tc.repaired && len(got) != changed(tc.want, tc.misread):
				t.Fatalf("corrections %+v, want %d", got, changed(tc.want, tc.misread))
			case !tc.repaired && strings.Join(out, "\n") != strings.Join(lines, "\n"):
				t.Fatalf("changed to\n%s\nfrom\n%s (corrections %+v)", strings.Join(out, "\n"), strings.Join(lines, "\n"), got)
			}
			for _, c := range got {
				if conf[c.Line][c.Pos] > 0.5 {
					t.Errorf("corrected character %+v keeps confidence %.2f", c, conf[c.Line][c.Pos])
				}
			}
		})
	}
}

// changed counts the misread characters that differ from want's (a
// misread may only make a right character unsure).
func changed(want []string, misread [][3]int) int {
	n := 0
	for _, m := range misread {
		if want[m[0]][m[1]] != byte(m[2]) {
			n++
		}
	}
	return n
}

// TestRepairLookAlikesAmbiguous: when two combinations of swaps verify
// every check at nearly the same cost, repair guesses neither.
func TestRepairLookAlikesAmbiguous(t *testing.T) {
	// A number of O and 0 only, two of them read as the other, and every
	// one as likely as its look-alike: several combinations of up to
	// four swaps verify the checks (the check digit is mod 10), none
	// clearly cheaper than the next.
	fields := mrz.Fields{Format: mrz.TD3, DocumentCode: "P", IssuingState: "UTO", Surname: "ERIKSSON", GivenNames: "ANNA",
		DocumentNumber: "O0O0O0O0O", Nationality: "UTO", BirthDate: mrz.Date{Year: 1974, Month: 8, Day: 12}, Sex: "F",
		ExpiryDate: mrz.Date{Year: 2032, Month: 4, Day: 15}}
	lines, err := mrz.Compose(fields)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(lines[1])
	b[2], b[5] = 'O', '0'
	var uncertain [][3]int
	for i := 0; i < 9; i++ {
		uncertain = append(uncertain, [3]int{1, i, int(b[i])})
	}
	text, alt, margin, conf, scores := reading([]string{lines[0], string(b)}, uncertain...)
	before := string(text[1])
	if got := repair(mrz.TD3, text, alt, margin, conf, scores); len(got) != 0 || string(text[1]) != before {
		t.Fatalf("guessed %+v: %s", got, text[1])
	}
	// The same reading where only the two misread characters are unsure
	// is repaired.
	text, alt, margin, conf, scores = reading([]string{lines[0], string(b)}, [3]int{1, 2, 'O'}, [3]int{1, 5, '0'})
	if got := repair(mrz.TD3, text, alt, margin, conf, scores); string(text[1]) != lines[1] {
		t.Fatalf("repaired to %s (%+v), want %s", text[1], got, lines[1])
	}
}

func TestFieldOf(t *testing.T) {
	for _, tc := range []struct {
		format    mrz.Format
		line, pos int
		want      string
	}{
		{mrz.TD3, 0, 0, FieldHeader},
		{mrz.TD3, 0, 4, FieldHeader},
		{mrz.TD3, 0, 5, FieldNames},
		{mrz.TD3, 1, 0, mrz.FieldDocumentNumber},
		{mrz.TD3, 1, 9, mrz.FieldDocumentNumber}, // its check digit
		{mrz.TD3, 1, 10, FieldNationality},
		{mrz.TD3, 1, 13, mrz.FieldBirthDate},
		{mrz.TD3, 1, 21, mrz.FieldExpiryDate},
		{mrz.TD3, 1, 30, mrz.FieldPersonalNumber},
		{mrz.TD3, 1, 43, ""}, // the composite check digit
		{mrz.TD1, 0, 7, mrz.FieldDocumentNumber},
		{mrz.TD1, 0, 20, ""}, // optional data
		{mrz.TD1, 1, 17, FieldNationality},
		{mrz.TD1, 1, 3, mrz.FieldBirthDate},
		{mrz.TD1, 1, 10, mrz.FieldExpiryDate},
		{mrz.TD1, 2, 3, FieldNames},
	} {
		if got := FieldOf(tc.format, tc.line, tc.pos); got != tc.want {
			t.Errorf("%v line %d pos %d: %q, want %q", tc.format, tc.line, tc.pos, got, tc.want)
		}
	}
}

// TestGuessUnchecked: unreadable characters of the name and header are
// replaced by the reader's guesses and reported as corrections of their
// field, but only when that leaves every check digit verifying and no
// checked field unreadable.
func TestGuessUnchecked(t *testing.T) {
	td3 := []string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"}
	with := func(line, pos int, c byte) []string {
		out := slices.Clone(td3)
		b := []byte(out[line])
		b[pos] = c
		out[line] = string(b)
		return out
	}
	cases := []struct {
		name   string
		lines  []string
		guess  map[[2]int]byte
		cutOff bool
		want   []string // nil: no guess made
		fields []string
	}{
		{"a letter of the surname", with(0, 7, '?'), map[[2]int]byte{{0, 7}: 'I'}, false, td3, []string{FieldNames}},
		{"a wrong guess is still a guess", with(0, 7, '?'), map[[2]int]byte{{0, 7}: 'L'}, false, with(0, 7, 'L'), []string{FieldNames}},
		{"the issuing state", with(0, 3, '?'), map[[2]int]byte{{0, 3}: 'T'}, false, td3, []string{FieldHeader}},
		{"a filler past the name", with(0, 40, '?'), map[[2]int]byte{{0, 40}: '<'}, false, td3, []string{FieldNames}},
		{"a digit of the document number", with(1, 2, '?'), map[[2]int]byte{{1, 2}: '8'}, false, nil, nil},
		{"a cell outside the photo", with(0, 7, '?'), nil, false, nil, nil},
		{"cut off", with(0, 7, '?'), map[[2]int]byte{{0, 7}: 'I'}, true, nil, nil},
		{"a check digit failing elsewhere", func() []string { l := with(0, 7, '?'); b := []byte(l[1]); b[9] = '7'; l[1] = string(b); return l }(),
			map[[2]int]byte{{0, 7}: 'I'}, false, nil, nil},
		{"nothing to guess", td3, nil, false, nil, nil},
	}
	for _, c := range cases {
		r := Result{Format: mrz.TD3, Lines: c.lines, CutOff: c.cutOff, guess: [][]byte{make([]byte, 44), make([]byte, 44)}}
		for p, g := range c.guess {
			r.guess[p[0]][p[1]] = g
		}
		for _, ck := range checks[mrz.TD3] {
			lines := [][]byte{[]byte(c.lines[0]), []byte(c.lines[1])}
			r.Valid = ck.verify(lines)
			if !r.Valid {
				break
			}
		}
		r.Valid = r.Valid && !strings.Contains(strings.Join(c.lines, ""), "?")
		got, ok := r.GuessUnchecked()
		if ok != (c.want != nil) {
			t.Errorf("%s: guessed %v, want %v", c.name, ok, c.want != nil)
			continue
		}
		if !ok {
			continue
		}
		if !slices.Equal(got.Lines, c.want) || !got.Valid {
			t.Errorf("%s: %q (valid %v), want %q", c.name, got.Lines, got.Valid, c.want)
		}
		var fields []string
		for _, cr := range got.Corrections {
			if cr.From != '?' {
				t.Errorf("%s: correction %+v not from '?'", c.name, cr)
			}
			fields = append(fields, cr.Field)
		}
		if !slices.Equal(fields, c.fields) {
			t.Errorf("%s: corrected %v, want %v", c.name, fields, c.fields)
		}
	}
}

// TestGuessedOverUnread checks that a check digit made to verify by
// corrections says nothing of characters it covers that could not be
// read, unless a narrower check verifying untouched vouches for them.
func TestGuessedOverUnread(t *testing.T) {
	// TD1: line 0 holds the number (5–14) and optional data (15–29, under
	// the composite only); line 1 the birth date (0–6) and the composite
	// digit (29); line 2 the name (no check).
	fix := func(line, pos int) Correction { return Correction{Line: line, Pos: pos} }
	cases := []struct {
		name string
		corr []Correction
		unc  []Span
		want bool
	}{
		{"finger over the optional data, a look-alike in the composite", []Correction{fix(0, 19)}, []Span{{0, 25, 29}, {1, 22, 30}}, true},
		{"the same finger, nothing corrected", nil, []Span{{0, 25, 29}, {1, 22, 30}}, false},
		{"nothing unread", []Correction{fix(0, 19)}, nil, false},
		{"unread number, corrected there", []Correction{fix(0, 7)}, []Span{{0, 6, 9}}, true},
		{"unread number vouched for by its own digit, a birth date corrected", []Correction{fix(1, 2)}, []Span{{0, 6, 9}}, false},
		{"unread name, the composite corrected", []Correction{fix(0, 19)}, []Span{{2, 3, 8}}, false},
		{"unread composite digit, the birth date corrected", []Correction{fix(1, 2)}, []Span{{1, 27, 30}}, true},
	}
	for _, c := range cases {
		if got := guessedOverUnread(mrz.TD1, c.corr, c.unc); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// GuessUnchecked completes a name only when the checks it relies on
	// were not made to verify over unread characters.
	lines := []string{"I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<?"}
	for _, finger := range []bool{false, true} {
		r := Result{Format: mrz.TD1, Lines: lines, guess: [][]byte{make([]byte, 30), make([]byte, 30), make([]byte, 30)},
			Corrections: []Correction{{Line: 0, Pos: 20, From: 'O', To: '<', Field: mrz.FieldComposite}}}
		r.guess[2][29] = '<'
		if finger {
			r.Uncertain = []Span{{0, 24, 28}}
		}
		if _, ok := r.GuessUnchecked(); ok == finger {
			t.Errorf("finger %v: guessed %v", finger, ok)
		}
	}
}

// TestSurnameCells checks that the surname's cells are those of its
// characters as read, separators included and the "<<" that ends it left
// out.
func TestSurnameCells(t *testing.T) {
	lines := []string{"I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "VAN<DER<BERG<<ANNA<<<<<<<<<<<<"}
	r := Result{Format: mrz.TD1, Lines: lines}
	for _, l := range lines {
		conf, alt := make([]float64, len(l)), make([]byte, len(l))
		for k := range conf {
			conf[k], alt[k] = 0.9, 'X'
		}
		r.Confidence, r.Alternatives = append(r.Confidence, conf), append(r.Alternatives, alt)
	}
	r.Confidence[2][4], r.Alternatives[2][4] = 0.3, 'O'
	conf, alt := r.SurnameCells()
	// VAN<DER<BERG: twelve cells.
	if len(conf) != 12 || len(alt) != 12 {
		t.Fatalf("%d confidences, %d runner-ups, want 12", len(conf), len(alt))
	}
	if conf[4] != 0.3 || alt[4] != 'O' || conf[0] != 0.9 {
		t.Errorf("D's cell %.1f %c, V's %.1f", conf[4], alt[4], conf[0])
	}
	if c, _ := (Result{Format: mrz.TD1}).SurnameCells(); c != nil {
		t.Errorf("a reading with no lines has surname cells %v", c)
	}
}
