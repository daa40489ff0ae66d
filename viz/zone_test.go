package viz

import (
	"image"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/ocr"
)

// words lays out lines of text as OCR words: each word 20 px per
// character wide and 30 px tall, lines 50 px apart; " | " starts a column
// 400 px further right, which OCR reads as a line of its own (as
// Tesseract's sparse-text mode does with a document's fields).
func words(lines ...string) []ocr.Word {
	var out []ocr.Word
	for i, l := range lines {
		for col, seg := range strings.Split(l, " | ") {
			x := 10 + 400*col
			for _, w := range strings.Fields(seg) {
				out = append(out, ocr.Word{Text: w, Conf: 0.95, Box: image.Rect(x, 10+50*i, x+20*len(w), 40+50*i), Block: 1 + col, Line: i})
				x += 20*len(w) + 15
			}
		}
	}
	return out
}

func TestLicenceLabels(t *testing.T) {
	z := NewZone(words("DRIVING LICENCE", "1. YILMAZ", "2. NOAH", "3. 08.01.1976 UTRECHT", "4A. 14.02.2008 4C. DVLA", "4B. 14.02.2023", "5. Q0865805"), DMY)
	for _, d := range z.Dates {
		t.Logf("%+v", d)
	}
	b, ok := z.DateFor(RoleBirth)
	if !ok || b.Date.Year != 1976 {
		t.Errorf("birth: %+v %v", b, ok)
	}
	e, ok := z.DateFor(RoleExpiry)
	if !ok || e.Date.Year != 2023 {
		t.Errorf("expiry: %+v %v", e, ok)
	}
}

// row lays out one row of a card as OCR reads it in sparse-text mode:
// each segment a line of its own (its own block), starting at the given x,
// 30 px tall at y.
func row(y int, segs ...any) []ocr.Word {
	var out []ocr.Word
	for i := 0; i+1 < len(segs); i += 2 {
		x := segs[i].(int)
		for _, w := range strings.Fields(segs[i+1].(string)) {
			out = append(out, ocr.Word{Text: w, Conf: 0.95, Box: image.Rect(x, y, x+20*len(w), y+30), Block: 100*y + i, Line: 0})
			x += 20*len(w) + 15
		}
	}
	return out
}

// TestLabelLeftOfValue: labels printed before their values on the same
// row (EU and AAMVA licences, residence permits) that OCR reads as lines
// of their own, apart from the value, still name it; a label further left
// belongs to another field, and text before a date on its own line that
// names no field leaves it unlabelled.
func TestLabelLeftOfValue(t *testing.T) {
	var w []ocr.Word
	w = append(w, row(10, 10, "1.", 80, "OKAFOR")...)
	w = append(w, row(60, 10, "3.", 80, "02.10.2009 KOLN")...)
	w = append(w, row(110, 10, "4A.", 80, "16.03.2015", 400, "4C.", 470, "STADT KOLN")...)
	w = append(w, row(160, 10, "4B.", 80, "16.03.2030")...)
	z := NewZone(w, DMY)
	for _, d := range z.Dates {
		t.Logf("%+v", d)
	}
	if b, ok := z.DateFor(RoleBirth); !ok || b.Role != RoleBirth || b.Date.Year != 2009 {
		t.Errorf("birth: %+v %v", b, ok)
	}
	if e, ok := z.DateFor(RoleExpiry); !ok || e.Role != RoleExpiry || e.Date.Year != 2030 {
		t.Errorf("expiry: %+v %v", e, ok)
	}

	w = nil
	w = append(w, row(10, 10, "4B EXP", 150, "12/31/2034")...)
	w = append(w, row(60, 10, "3 DOB", 150, "10/02/2009")...)
	w = append(w, row(110, 10, "VALID FROM", 250, "01/02/2020")...)
	w = append(w, row(200, 10, "UNDER 18 UNTIL 10/02/2027")...)
	w = append(w, row(250, 10, "EXP", 600, "01/01/2001")...) // too far apart
	z = NewZone(w, MDY)
	want := map[string]Role{"20341231": RoleExpiry, "20091002": RoleBirth, "20200102": RoleIssue, "20271002": RoleNone, "20010101": RoleNone}
	for _, d := range z.Dates {
		if r, ok := want[d.Digits]; !ok || r != d.Role {
			t.Errorf("%s: role %q, want %q", d.Text, d.Role, r)
		}
	}
	if len(z.Dates) != len(want) {
		t.Errorf("%d dates, want %d", len(z.Dates), len(want))
	}
}

// TestPlaceOnly: a label that names the place of birth and not its date
// gives a date under it no birth role; one naming both does.
func TestPlaceOnly(t *testing.T) {
	for label, want := range map[string]bool{"PLACE OF BIRTH": true, "LIEU DE NAISSANCE": true, "GEBURTSORT": true,
		"GEBURTSORT / PLACE OF BIRTH": true, "FODELSEORT": true, "DOGUM YERI": true, "LUGAR DE NACIMIENTO": true,
		"GEBOORTEPLAATS": true, "DATE OF BIRTH": false, "DATE AND PLACE OF BIRTH": false, "LUOGO E DATA DI NASCITA": false,
		"GEBURTSDATUM": false, "GEBURTSTAG UND -ORT": false, "DOGUM TARIHI": false, "FECHA DE NACIMIENTO": false, "DATE DE NAISSANCE": false} {
		if got := placeOnly(label); got != want {
			t.Errorf("placeOnly(%q) = %v, want %v", label, got, want)
		}
		if want && labelRole(label) != RoleNone {
			t.Errorf("labelRole(%q) = %q, want none", label, labelRole(label))
		}
	}
}

func TestRealLabelWords(t *testing.T) {
	for s, want := range map[string]Role{"VALIDEZ": RoleExpiry, "VALID FROM": RoleIssue, "VALID UNTIL": RoleExpiry,
		"EMISSIONE / ISSUING": RoleIssue, "SCADENZA / EXPIRY": RoleExpiry,
		// A licence's field numbers name a role only where no word does.
		"3.": RoleBirth, "4B.": RoleExpiry, "4A": RoleIssue, "3 EO DATE OF ISSUE": RoleIssue, "4A. DATE OF EXPIRY": RoleExpiry,
		// A US licence's field number read glued to its abbreviation.
		"3DOB": RoleBirth, "4BEXP": RoleExpiry, "4AISS": RoleIssue, "4DDLN": RoleNone, "15SEX": RoleNone} {
		if got := roleOfText(s); got != want {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
	if d := parseDates(fold("10 MAA/MAR 1965"), DMY); len(d) != 1 || d[0].Digits != "19650310" {
		t.Errorf("10 MAA/MAR 1965: %+v", d)
	}
	// A US licence whose labels were all read glued: each date has its
	// label's role, which a licence is decided by (engine.DriverLicence);
	// by their place alone a minor's birth date went to review.
	z := NewZone(words("4DDLN U25492189", "4BEXP 01/30/2031", "1LN JACKSON", "3DOB 11/29/2009", "4AISS 01/31/2026"), MDY)
	for role, want := range map[Role]string{RoleBirth: "20091129", RoleExpiry: "20310130", RoleIssue: "20260131"} {
		if d, ok := z.DateFor(role); !ok || d.Role != role || d.Digits != want {
			t.Errorf("%s: %+v (found %v), want %s labelled", role, d, ok, want)
		}
	}
	// A review of that change: two fields of one row, the first date with a
	// letter for a digit. The issue date was labelled by the whole row,
	// expiry first, and a current licence failed as expired.
	for _, row := range []string{"4BEXP 01/30/2O31 4AISS 01/31/2023", "4B EXP 01/30/2O31 4A ISS 01/31/2023", "4BEXP 0l/30/2031 4AISS 01/31/2023"} {
		z := NewZone(words("DRIVER LICENSE", "3DOB 11/29/1990", row), MDY)
		if d, ok := z.DateFor(RoleExpiry); ok && d.Digits == "20230131" {
			t.Errorf("%q: the issue date taken for the expiry: %+v", row, d)
		}
		if d, ok := z.DateFor(RoleIssue); !ok || d.Role != RoleIssue || d.Digits != "20230131" {
			t.Errorf("%q: issue %+v (found %v), want 2023-01-31 labelled", row, d, ok)
		}
	}
}

// TestMaskTurnedClockwise: on a photo turned clockwise the MRZ's top-left
// corner is its topmost point; the mask must cover the zone there too.
func TestMaskTurnedClockwise(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = 0
	}
	quad := [4]image.Point{{50, 100}, {350, 140}, {345, 180}, {45, 140}} // TL topmost
	out := grayOf(img, img.Bounds(), [][4]image.Point{quad})
	for _, p := range []image.Point{{60, 110}, {200, 130}, {340, 165}, {55, 135}} {
		if r, _, _, _ := out.At(p.X, p.Y).RGBA(); r != 0xffff {
			t.Errorf("(%d,%d) inside the zone is not masked", p.X, p.Y)
		}
	}
	if r, _, _, _ := out.At(200, 60).RGBA(); r != 0 {
		t.Error("a point above the zone was masked")
	}
}

func TestNumberNotFromTheMRZ(t *testing.T) {
	z := NewZone(words("DOCUMENT NO.", "K8730641", "IDESPK8737911<"), DMY)
	if f := z.compareNumber("K8737911"); f.Status == Match {
		t.Errorf("a piece of the MRZ confirmed the number: %+v", f)
	}
}

// TestValueRightOfLabel: a number printed right of its label, read as a
// line of its own, is the labelled value; so is a surname.
func TestValueRightOfLabel(t *testing.T) {
	var w []ocr.Word
	w = append(w, row(10, 10, "DOCUMENT NO.:", 300, "Y1842956")...)
	w = append(w, row(60, 10, "SURNAME:", 300, "KARLSSON")...) // a column of values
	w = append(w, row(110, 10, "GIVEN NAMES:", 300, "ANNA")...)
	z := NewZone(w, DMY)
	if f := z.compareNumber("Y1849411"); f.Status != Mismatch || f.Printed != "Y1842956" {
		t.Errorf("number: %+v", f)
	}
	if f := z.compareSurname("ROSSI"); f.Status != Mismatch || f.Printed != "KARLSSON" {
		t.Errorf("surname: %+v", f)
	}
}

// TestFieldNumberIsNotAValue: "Surname/Nom (1)" read as two lines leaves
// "(1)" right of the label; the value is the line below.
func TestFieldNumberIsNotAValue(t *testing.T) {
	var w []ocr.Word
	w = append(w, row(10, 10, "SURNAME/NOM", 260, "(1)")...)
	w = append(w, row(50, 10, "WINTERBOTTOM")...)
	z := NewZone(w, DMY)
	if f := z.compareSurname("KIM"); f.Printed != "WINTERBOTTOM" {
		t.Errorf("surname: %+v", f)
	}
}

// TestReviewedRowRules: the row rules must not move a value's label or
// value to a neighbour. A date right of another labelled date keeps no
// role (it would make a genuine licence's birth date its expiry); "valid
// from … until …" on one line names the second date the expiry; an
// address with a month-like word is no date; a date or a piece of the MRZ
// is never the printed number that contradicts the MRZ.
func TestReviewedRowRules(t *testing.T) {
	for _, w := range [][]ocr.Word{
		row(10, 10, "EXP 12/31/2024", 330, "10/02/2009"), // read as two lines
		words("EXP 12/31/2024 10/02/2009"),               // read as one
	} {
		for _, d := range NewZone(w, MDY).Dates {
			if d.Digits == "20091002" && d.Role != RoleNone {
				t.Errorf("the date right of a labelled date took the role %v", d.Role)
			}
		}
	}

	z := NewZone(words("VALID FROM 01/02/2020 UNTIL 01/02/2030"), MDY)
	roles := map[string]Role{}
	for _, d := range z.Dates {
		roles[d.Digits] = d.Role
	}
	if roles["20200102"] != RoleIssue || roles["20300102"] != RoleExpiry {
		t.Errorf("valid from … until …: %v", roles)
	}

	for _, s := range []string{"12 MAY CLOSE 22", "3 MAR GARDENS 14"} {
		if d := parseDates(s, DMY); len(d) != 0 {
			t.Errorf("%q parsed as %+v", s, d)
		}
	}
	if d := parseDates("25 AUG IAOUT 24", DMY); len(d) != 1 || d[0].Digits != "__240825" {
		t.Errorf("25 AUG IAOUT 24: %+v", d)
	}

	for _, lines := range [][]string{
		{"CARD NO.", "12 JAN 2030"},
		{"DOCUMENT NO.", "IDESPK8737911<"},
		{"DOCUMENT NO. | IDESPK8737911<"},
		{"DOCUMENT NO.", "IDESPK8737911«"},
	} {
		if f := NewZone(words(lines...), DMY).compareNumber("K8730641"); f.Status == Mismatch {
			t.Errorf("%q: a contradiction from %q", lines, f.Printed)
		}
	}
	if f := NewZone(words("DOCUMENT NO.", "IDESPK8737911«"), DMY).compareNumber("K8737911"); f.Status == Match {
		t.Errorf("the MRZ's « confirmed its own number: %+v", f)
	}
}

// TestResolveNumber: a printed number resolves the MRZ's reading of it
// only when it differs where the reader was unsure, as the reader's own
// runner-up (by shape), verifies the same check digit, and was read
// surely or twice — never a number that differs where the reader was
// sure, as a forger's would.
func TestResolveNumber(t *testing.T) {
	// A genuine passport's 18CX82875 read 1R<X8R875 (independently
	// generated photos, tilted): unsure at 1, 2 and 5, the printed
	// characters the runner-ups there.
	read := "1R<X8R875"
	alt := []byte{0, '8', 'C', 0, 0, '2', 0, 0, 0}
	page := func(number string) []string {
		return []string{"PASSEPORT", "NUMERO DU PASSEPORT", number, "NOM", "GIRARD"}
	}
	lowConf := func(ws []ocr.Word) []ocr.Word {
		for i := range ws {
			ws[i].Conf = 0.3
		}
		return ws
	}
	for _, tc := range []struct {
		name  string
		words []ocr.Word
		alt   []byte
		want  string
	}{
		{"the reader's runner-ups, printed", words(page("18CX82875")...), alt, "18CX82875"},
		// The runner-up B has the printed 8's shape; the printed 8 is taken.
		{"a runner-up of the printed character's shape", words(page("18CX82875")...), []byte{0, 'B', 'C', 0, 0, '2', 0, 0, 0}, "18CX82875"},
		{"read twice unsurely", lowConf(append(words(page("18CX82875")...), words("", "", "", "", "", "18CX82875")...)), alt, "18CX82875"},
		{"read once unsurely", lowConf(words(page("18CX82875")...)), alt, ""},
		// The forger's way: a character the reader was sure of differs.
		{"a difference where the reader was sure", words(page("18CX82675")...), alt, ""},
		{"not the runner-up", words(page("18CX8Z875")...), []byte{0, '8', 'C', 0, 0, '7', 0, 0, 0}, ""},
		// 18CX82875 with the 5 read 6 where the reader doubted it: 6 is
		// the runner-up but the check digit no longer verifies.
		{"another check digit", words(page("18CX82876")...), []byte{0, '8', 'C', 0, 0, '2', 0, 0, '6'}, ""},
		{"as read", words(page(read)...), alt, ""},
		{"no doubts", words(page("18CX82875")...), make([]byte, 9), ""},
	} {
		got, ok := NewZone(tc.words, DMY).ResolveNumber(read, tc.alt)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: %q %v, want %q", tc.name, got, ok, tc.want)
		}
	}
	// Two printed numbers that each resolve 123456789, unsure at 5, 7
	// and 8: neither is taken.
	alt2 := []byte{0, 0, 0, 0, 0, '3', 0, '9', '6'}
	z := NewZone(words("123456796", "123453799"), DMY)
	for _, one := range []string{"123456796", "123453799"} {
		if got, ok := NewZone(words(one), DMY).ResolveNumber("123456789", alt2); !ok || got != one {
			t.Errorf("%s alone: %q %v", one, got, ok)
		}
	}
	if got, ok := z.ResolveNumber("123456789", alt2); ok {
		t.Errorf("two printed candidates: %q taken", got)
	}
}

// TestSurnameDiffers: a printed surname contradicts the MRZ's even where
// the reader was unsure only when neither its reading nor its runner-up
// there explains the difference.
func TestSurnameDiffers(t *testing.T) {
	alt := func(n int, at map[int]byte) []byte {
		a := make([]byte, n)
		for i, c := range at {
			a[i] = c
		}
		return a
	}
	for _, tc := range []struct {
		name, printed, mrz string
		alt                []byte
		want               bool
	}{
		{"another name, O unsure with Q", "PERSSON", "OLSSON", alt(6, map[int]byte{0: 'Q'}), true},
		{"the runner-ups are the printed name", "GRUBER", "CROBER", alt(6, map[int]byte{0: 'G', 2: 'U'}), false},
		{"the same name", "OLSSON", "OLSSON", alt(6, map[int]byte{0: 'Q'}), false},
		{"one letter off", "OLSEN", "OLSSON", alt(6, nil), false},
		{"two parts, spaces in the MRZ's", "GARCIA SANCHEZ", "MORENO HERNANDEZ", alt(16, map[int]byte{3: 'F'}), true},
		{"a fragment", "SU", "OLSSON", alt(6, nil), false},
		{"flags not one per character", "PERSSON", "OLSSON", alt(5, nil), false},
	} {
		if got := SurnameDiffers(tc.printed, tc.mrz, tc.alt); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
