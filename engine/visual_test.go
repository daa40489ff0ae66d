package engine_test

import (
	"context"
	"image"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
)

// printed is an OCR engine that "reads" the given lines, one word per
// space-separated token, lines 60 px apart: the decision logic is tested
// here, Tesseract itself in package ocr and end to end in internal/app.
type printed []string

// Words lays the lines out on a page 1600 px wide and returns their boxes
// in the coordinates of g, as an OCR engine does: viz reads a page at
// several scales and merges the readings by their boxes.
func (p printed) Words(_ context.Context, g *image.Gray, _ ocr.Options) ([]ocr.Word, error) {
	k := 1.0
	if g != nil && g.Rect.Dx() > 0 {
		k = float64(g.Rect.Dx()) / 1600
	}
	at := func(x, y int) image.Point { return image.Pt(int(float64(x)*k), int(float64(y)*k)) }
	var out []ocr.Word
	for i, l := range p {
		x := 10
		for _, w := range strings.Fields(l) {
			out = append(out, ocr.Word{Text: w, Conf: 0.9, Box: image.Rectangle{at(x, 10+60*i), at(x+20*len(w), 40+60*i)}, Block: 1, Line: i})
			x += 20*len(w) + 15
		}
	}
	return out, nil
}

func licenceInput() *engine.Input {
	img := &engine.Image{Kind: verifyd.ImageDocumentFront, Image: image.NewGray(image.Rect(0, 0, 800, 500))}
	return &engine.Input{DocumentType: verifyd.DocDriverLicense, Country: "gbr", Front: img, Now: now, Facts: map[string]any{}}
}

func TestDriverLicence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		lines   printed
		outcome engine.Outcome
		reason  verifyd.Reason
	}{
		{"adult, current: review", printed{"DRIVING LICENCE", "1. DOE", "3. 17.05.1990 LEEDS", "4a. 01.01.2020 4c. DVLA", "4b. 31.12.2029", "5. DOE99905"}, engine.Review, ""},
		{"minor", printed{"DRIVING LICENCE", "1. DOE", "3. 17.05.2010 LEEDS", "4a. 01.01.2026 4c. DVLA", "4b. 31.12.2030"}, engine.Fail, verifyd.ReasonMinor},
		{"expired", printed{"DRIVING LICENCE", "1. DOE", "3. 17.05.1990 LEEDS", "4a. 01.01.2010 4c. DVLA", "4b. 31.12.2020"}, engine.Fail, verifyd.ReasonExpiredID},
		{"US order, labelled", printed{"DRIVER LICENSE", "DOB 05/17/1990", "EXP 12/31/2020"}, engine.Fail, verifyd.ReasonExpiredID},
		// Birth date unread: the issue date is the earliest, but its place
		// does not make it a birth date.
		{"birth date unread, unlabelled dates: review", printed{"DRIVING LICENCE", "1. DOE", "20.06.2020", "4b. 20.06.2035"}, engine.Review, ""},
		{"a birth date no licence holder has: review", printed{"DRIVING LICENCE", "1. DOE", "3. 17.05.2025 LEEDS", "4b. 31.12.2030"}, engine.Review, ""},
		{"dates unreadable: review", printed{"DRIVING LICENCE", "1. DOE", "3. 1?.05.19#0"}, engine.Review, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := licenceInput()
			if strings.HasPrefix(tt.name, "US") {
				in.Country = "usa"
			}
			r := engine.DocumentCheck{Licence: &engine.DriverLicence{OCR: tt.lines}}.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Reason != tt.reason {
				t.Fatalf("got %s %s (%s; %v), want %s %s", r.Outcome, r.Reason, r.Detail, r.Evidence, tt.outcome, tt.reason)
			}
		})
	}
}

func TestVisualZoneCheck(t *testing.T) {
	t.Parallel()
	f := passport(nil) // DOE, born 1990-05-17, expires 2030-01-01, number 123456789
	page := func(birth, expiry, number, surname string) printed {
		return printed{"PASSPORT", "PASSPORT NO.", number, "SURNAME", surname, "GIVEN NAMES", "JANE",
			"DATE OF BIRTH", birth, "DATE OF EXPIRY", expiry}
	}
	cutPage := printed{"PASSPORT", "PASSPORT NO.", "123456789", "SURNAME", "WINTERBOTTOM", "GIVEN NAMES", "DANIEL JAVIER ALEJANDRO",
		"DATE OF BIRTH", "17 MAY 1990", "DATE OF EXPIRY", "01 JAN 2030"}
	tests := []struct {
		name    string
		page    printed
		pending *engine.Result
		outcome engine.Outcome
		reason  verifyd.Reason
	}{
		{"all fields match", page("17 MAY 1990", "01 JAN 2030", "123456789", "DOE"), nil, engine.Pass, ""},
		{"printed minor birth date", page("17 MAY 2011", "01 JAN 2030", "123456789", "DOE"), nil, engine.Fail, verifyd.ReasonPotentialFraud},
		{"printed expiry differs", page("17 MAY 1990", "01 JAN 2021", "123456789", "DOE"), nil, engine.Fail, verifyd.ReasonPotentialFraud},
		{"one digit off: review, not fraud", page("17 MAY 1991", "01 JAN 2030", "123456789", "DOE"), nil, engine.Review, ""},
		{"nothing legible: review", printed{"PASSPORT"}, nil, engine.Review, ""},
		// The MRZ's name has no check digit: only a surname read surely,
		// from a line whose given names are printed as read, contradicts.
		{"another surname, surname read surely: fraud", page("17 MAY 1990", "01 JAN 2030", "123456789", "WINTERBOTTOM"), nil, engine.Fail, verifyd.ReasonPotentialFraud},
		{"another surname, surname read surely, doubtful MRZ: review", page("17 MAY 1990", "01 JAN 2030", "123456789", "WINTERBOTTOM"), nil, engine.Review, ""},
		{"another surname, surname read surely, surname corrected: review", page("17 MAY 1990", "01 JAN 2030", "123456789", "WINTERBOTTOM"), nil, engine.Review, ""},
		{"another surname, surname read surely, given names corrected: fraud", page("17 MAY 1990", "01 JAN 2030", "123456789", "WINTERBOTTOM"), nil, engine.Fail, verifyd.ReasonPotentialFraud},
		{"another surname, surname read unsurely: review", page("17 MAY 1990", "01 JAN 2030", "123456789", "WINTERBOTTOM"), nil, engine.Review, ""},
		// Where the reader was unsure, the MRZ's letter may be its
		// runner-up (viz.SurnameDiffers): DOE read with D and E unsure,
		// B their runner-up.
		{"another surname, surname's doubts explain nothing: fraud", page("17 MAY 1990", "01 JAN 2030", "123456789", "WINTERBOTTOM"), nil, engine.Fail, verifyd.ReasonPotentialFraud},
		{"another surname, surname's doubts explain it: review", page("17 MAY 1990", "01 JAN 2030", "123456789", "BOB"), nil, engine.Review, ""},
		{"another surname and given names, surname read surely: review",
			printed{"PASSPORT", "PASSPORT NO.", "123456789", "SURNAME", "WINTERBOTTOM", "GIVEN NAMES", "MARGARET",
				"DATE OF BIRTH", "17 MAY 1990", "DATE OF EXPIRY", "01 JAN 2030"}, nil, engine.Review, ""},
		// A name too long for the MRZ's field is cut at its end there
		// (mrz.Fields.NameFull): ALEJAND is ALEJANDRO printed.
		{"another surname, surname read surely, last given name cut in a full field: fraud", cutPage, nil, engine.Fail, verifyd.ReasonPotentialFraud},
		{"another surname, surname read surely, last given name shorter in a field not full: review", cutPage, nil, engine.Review, ""},
		{"another number, confident MRZ: fraud", page("17 MAY 1990", "01 JAN 2030", "987654321", "DOE"), nil, engine.Fail, verifyd.ReasonPotentialFraud},
		{"another number, doubtful MRZ: review", page("17 MAY 1990", "01 JAN 2030", "987654321", "DOE"), nil, engine.Review, ""},
		// Two misreads verify a check digit one time in ten.
		{"another number, number read unsurely: review", page("17 MAY 1990", "01 JAN 2030", "987654321", "DOE"), nil, engine.Review, ""},
		// The MRZ's 123456789 unsure at its last two characters, the
		// printed 9 and 6 its runner-ups there, the check digit the same:
		// the MRZ misread the number, the printed one is the document's.
		{"the number misread where unsure, printed as the runner-ups: pass", page("17 MAY 1990", "01 JAN 2030", "123456796", "DOE"), nil, engine.Pass, ""},
		{"another number where the reader was sure, number read unsurely with runner-ups: review", page("17 MAY 1990", "01 JAN 2030", "923456796", "DOE"), nil, engine.Review, ""},
		// Unsure characters explain a difference only where they are: two
		// or more where the reader was sure are the forger's.
		{"another number in characters the reader was sure of, number read unsurely with runner-ups: fraud", page("17 MAY 1990", "01 JAN 2030", "983456796", "DOE"), nil, engine.Fail, verifyd.ReasonPotentialFraud},
		// A field the reader changed so that its check digit verifies is
		// a guess: a genuine passport's glared HD1813080 was read HD1S13OSO
		// and "corrected" to HDISI3OSO (independently generated photos).
		{"another number, MRZ document number corrected: review", page("17 MAY 1990", "01 JAN 2030", "987654321", "DOE"), nil, engine.Review, ""},
		{"another birth date, MRZ birth date corrected: review", page("17 MAY 2011", "01 JAN 2030", "123456789", "DOE"), nil, engine.Review, ""},
		{"another birth date, MRZ document number corrected: fraud", page("17 MAY 2011", "01 JAN 2030", "123456789", "DOE"), nil, engine.Fail, verifyd.ReasonPotentialFraud},
		{"corrected MRZ says expired, printed expiry confirms", page("17 MAY 1990", "01 JAN 2030", "123456789", "DOE"),
			&engine.Result{Outcome: engine.Fail, Reason: verifyd.ReasonExpiredID, Detail: "expired", Evidence: map[string]any{}}, engine.Fail, verifyd.ReasonExpiredID},
		{"corrected MRZ says expired, printed expiry unread", page("17 MAY 1990", "0? J#N 20?0", "123456789", "DOE"),
			&engine.Result{Outcome: engine.Fail, Reason: verifyd.ReasonExpiredID, Detail: "expired", Evidence: map[string]any{}}, engine.Review, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			img := &engine.Image{Kind: verifyd.ImageDocumentFront, Image: image.NewGray(image.Rect(0, 0, 800, 500))}
			loc := engine.Located{Side: img, Doubtful: strings.Contains(tt.name, "doubtful"), SurnameConfidence: 0.4, NumberConfidence: 0.9}
			if strings.Contains(tt.name, "number read unsurely") {
				loc.NumberConfidence = 0.3
			}
			if strings.Contains(tt.name, "runner-ups") {
				loc.NumberConfidence = 0.2
				loc.Number = make([]engine.Cell, 9)
				for i := range loc.Number {
					loc.Number[i] = engine.Cell{Conf: 0.9}
				}
				loc.Number[7], loc.Number[8] = engine.Cell{Alt: '9', Conf: 0.2}, engine.Cell{Alt: '6', Conf: 0.3}
			}
			if strings.Contains(tt.name, "surname's doubts") {
				loc.Surname = []engine.Cell{{Alt: 'B', Conf: 0.3}, {Conf: 0.9}, {Alt: 'B', Conf: 0.3}}
			}
			if strings.Contains(tt.name, "surname read surely") {
				loc.SurnameConfidence = 0.9
			}
			if strings.Contains(tt.name, "names corrected") || strings.Contains(tt.name, "surname corrected") {
				loc.Corrections++
				loc.CorrectedFields = append(loc.CorrectedFields, "names")
				loc.SurnameCorrected = strings.Contains(tt.name, "surname corrected")
			}
			for _, c := range []string{mrz.FieldDocumentNumber, mrz.FieldBirthDate} {
				if strings.Contains(tt.name, strings.ReplaceAll(c, "_", " ")+" corrected") {
					loc.Corrections++
					loc.CorrectedFields = append(loc.CorrectedFields, c)
				}
			}
			fields := f
			if strings.Contains(tt.name, "last given name") {
				fields.GivenNames = "DANIEL JAVIER ALEJAND"
				if strings.Contains(tt.name, "full field") {
					fields.Surname = "MORENO HERNANDEZ" // 16 + 2 + 21: the 39 positions of TD3's field
				}
			}
			in := &engine.Input{DocumentType: verifyd.DocPassport, Country: "gbr", Front: img, Now: now,
				Facts: map[string]any{engine.FactMRZ: fields, engine.FactMRZRead: loc}}
			if tt.pending != nil {
				in.Facts[engine.FactPending] = *tt.pending
			}
			r := engine.VisualZoneCheck{OCR: tt.page}.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Reason != tt.reason {
				t.Fatalf("got %s %s (%s), want %s %s", r.Outcome, r.Reason, r.Detail, tt.outcome, tt.reason)
			}
			want := "123456789"
			if tt.outcome == engine.Pass && strings.Contains(tt.name, "runner-ups") {
				want = "123456796"
			}
			if got := in.Facts[engine.FactMRZ].(mrz.Fields).DocumentNumber; got != want {
				t.Errorf("the MRZ's number after the check: %s, want %s", got, want)
			}
		})
	}
	r := engine.VisualZoneCheck{}.Run(context.Background(), &engine.Input{Facts: map[string]any{engine.FactMRZ: f}})
	if r.Outcome != engine.Review {
		t.Fatalf("without OCR: %s", r.Outcome)
	}
	_ = mrz.TD3
}

// spotted is an OCR engine that reads page on a page-sized image (one of
// viz.Read's readings) and spot on a smaller one (a spot read again,
// viz.Reread), and records which it was asked for, in order: P or S.
type spotted struct {
	page, spot printed
	// later, when not nil, is what the third and later page readings
	// read.
	later printed
	mu    sync.Mutex
	calls []byte
}

func (s *spotted) Words(ctx context.Context, g *image.Gray, o ocr.Options) ([]ocr.Word, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The 800 × 500 photo is read as a page of its proportions, 400 to
	// 1000 px tall; a label's spot is a few of its lines.
	if r := float64(g.Rect.Dx()) / float64(max(g.Rect.Dy(), 1)); g.Rect.Dy() >= 400 && math.Abs(r-1.6) < 0.05 {
		s.calls = append(s.calls, 'P')
		if s.later != nil && strings.Count(string(s.calls), "P") > 2 {
			return s.later.Words(ctx, g, o)
		}
		return s.page.Words(ctx, g, o)
	}
	s.calls = append(s.calls, 'S')
	return s.spot.Words(ctx, g, o)
}

// TestSpotsBeforeMorePageReadings: a field the first page readings leave
// unread is read again at its label's spot before the page is read four
// more times, and a spot already read is not read again after them. A
// page whose first readings and spots already contradict the MRZ is not
// read the four more times, and a later reading that contradicts it is
// the last. A card's back, read after its front, is read only the first
// two times and at its spots.
func TestSpotsBeforeMorePageReadings(t *testing.T) {
	t.Parallel()
	page := func(birth string) printed {
		return printed{"PASSPORT", "PASSPORT NO.", "123456789", "SURNAME", "", "GIVEN NAMES", "JANE",
			"DATE OF BIRTH", birth, "DATE OF EXPIRY", "01 JAN 2030"}
	}
	tests := []struct {
		name        string
		page, later printed
		spot        printed
		card        bool
		outcome     engine.Outcome
		calls       string // as a regular expression
	}{
		{"the spot confirms the surname", page("17 MAY 1990"), nil, printed{"DOE"}, false, engine.Pass, "^PPS+$"},
		{"the spot does not", page("17 MAY 1990"), nil, printed{"D0E?"}, false, engine.Review, "^PPS+PPPP$"},
		{"a forged birth date", page("17 MAY 2012"), nil, printed{"DOE"}, false, engine.Fail, "^PPS*$"},
		{"a forged birth date read by the third reading", page(""), page("17 MAY 2012"), printed{"D0E?"}, false, engine.Fail, "^PPS+P$"},
		{"a card's back after its front", page("17 MAY 1990"), nil, printed{"D0E?"}, true, engine.Review, "^PPS+PPPPPPS*$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ocrEngine := &spotted{page: tt.page, later: tt.later, spot: tt.spot}
			img := &engine.Image{Kind: verifyd.ImageDocumentFront, Image: image.NewGray(image.Rect(0, 0, 800, 500))}
			side, typ := img, verifyd.DocPassport
			if tt.card {
				side = &engine.Image{Kind: verifyd.ImageDocumentBack, Image: image.NewGray(image.Rect(0, 0, 800, 500))}
				typ = verifyd.DocIDCard
			}
			in := &engine.Input{DocumentType: typ, Country: "gbr", Front: img, Now: now,
				Facts: map[string]any{engine.FactMRZ: passport(nil), engine.FactMRZRead: engine.Located{Side: side, NumberConfidence: 0.9}}}
			r := engine.VisualZoneCheck{OCR: ocrEngine}.Run(context.Background(), in)
			if r.Outcome != tt.outcome {
				t.Fatalf("got %s (%s), want %s", r.Outcome, r.Detail, tt.outcome)
			}
			if calls := string(ocrEngine.calls); !regexp.MustCompile(tt.calls).MatchString(calls) {
				t.Errorf("readings %s, want %s (P: the page, S: a spot)", calls, tt.calls)
			}
		})
	}
}
