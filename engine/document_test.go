package engine_test

import (
	"context"
	"github.com/verifyd/verifyd/quality/qualitytest"
	"image"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/mrz"
)

// scripted is an MRZ reader that returns a prepared read: the decision
// logic is tested here, the reader itself in package mrzread.
type scripted struct{ read engine.MRZRead }

func (s scripted) ReadMRZ(context.Context, image.Image, mrz.Format) (engine.MRZRead, error) {
	return s.read, nil
}

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func lines(t *testing.T, f mrz.Fields) []string {
	t.Helper()
	l, err := mrz.Compose(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func passport(mod func(*mrz.Fields)) mrz.Fields {
	f := mrz.Fields{Format: mrz.TD3, DocumentCode: "P", IssuingState: "GBR", DocumentNumber: "123456789",
		Surname: "DOE", GivenNames: "JANE", Nationality: "GBR", BirthDate: mrz.Date{Year: 1990, Month: 5, Day: 17},
		Sex: "F", ExpiryDate: mrz.Date{Year: 2030, Month: 1, Day: 1}}
	if mod != nil {
		mod(&f)
	}
	return f
}

func TestDocumentCheckDecisions(t *testing.T) {
	t.Parallel()
	idCard := mrz.Fields{Format: mrz.TD1, DocumentCode: "ID", IssuingState: "D", DocumentNumber: "T220001293",
		Surname: "MUSTERMANN", GivenNames: "ERIKA", Nationality: "D", BirthDate: mrz.Date{Year: 1983, Month: 8, Day: 12},
		Sex: "F", ExpiryDate: mrz.Date{Year: 2031, Month: 10, Day: 31}}
	corrupt := func(l []string) []string {
		out := append([]string(nil), l...)
		b := []byte(out[1])
		b[9] = '0' + (b[9]-'0'+1)%10 // the document number's check digit
		out[1] = string(b)
		return out
	}
	tests := []struct {
		name    string
		docType verifyd.DocumentType
		country string
		read    engine.MRZRead
		outcome engine.Outcome
		reason  verifyd.Reason
	}{
		{"valid adult passport", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(nil))}, engine.Pass, ""},
		{"German ID card (D<<)", verifyd.DocIDCard, "deu", engine.MRZRead{Lines: lines(t, idCard)}, engine.Pass, ""},
		{"expires today is still valid", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(func(f *mrz.Fields) { f.ExpiryDate = mrz.Date{Year: 2026, Month: 11, Day: 21} }))}, engine.Pass, ""},
		{"expired yesterday", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(func(f *mrz.Fields) { f.ExpiryDate = mrz.Date{Year: 2026, Month: 11, Day: 20} }))}, engine.Fail, verifyd.ReasonExpiredID},
		{"turns 18 tomorrow", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(func(f *mrz.Fields) { f.BirthDate = mrz.Date{Year: 2008, Month: 11, Day: 22} }))}, engine.Fail, verifyd.ReasonMinor},
		{"18 today", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(func(f *mrz.Fields) { f.BirthDate = mrz.Date{Year: 2008, Month: 11, Day: 21} }))}, engine.Pass, ""},
		// A misread is not a forgery: a reading whose check digits fail
		// goes to a person, however confident.
		{"check digit fails, confident reading", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: corrupt(lines(t, passport(nil))), Confidence: 0.9}, engine.Review, ""},
		{"check digit fails, unsure reading", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: corrupt(lines(t, passport(nil))), Confidence: 0.6}, engine.Review, ""},
		{"check digit fails after corrections", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: corrupt(lines(t, passport(nil))), Confidence: 0.9, Corrections: 1}, engine.Review, ""},
		// A reading that needed corrections decides nothing alone.
		{"expired, read with corrections", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(func(f *mrz.Fields) { f.ExpiryDate = mrz.Date{Year: 2026, Month: 11, Day: 20} })), Corrections: 1}, engine.Review, ""},
		{"minor, read with corrections", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(func(f *mrz.Fields) { f.BirthDate = mrz.Date{Year: 2010, Month: 1, Day: 1} })), Corrections: 2}, engine.Review, ""},
		{"valid adult, read with corrections", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(nil)), Corrections: 1}, engine.Pass, ""},
		// A confident reading's corrections elsewhere say nothing about the
		// field a verdict rests on.
		{"expired, confident, corrected in the number", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(func(f *mrz.Fields) { f.ExpiryDate = mrz.Date{Year: 2026, Month: 11, Day: 20} })), Corrections: 1, Confidence: 0.9, CorrectedFields: []string{mrz.FieldDocumentNumber}}, engine.Fail, verifyd.ReasonExpiredID},
		{"expired, confident, corrected in the expiry date", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: lines(t, passport(func(f *mrz.Fields) { f.ExpiryDate = mrz.Date{Year: 2026, Month: 11, Day: 20} })), Corrections: 1, Confidence: 0.9, CorrectedFields: []string{mrz.FieldExpiryDate}}, engine.Review, ""},
		{"wrong country, confident, corrected in the number", verifyd.DocPassport, "fra", engine.MRZRead{Lines: lines(t, passport(nil)), Corrections: 2, Confidence: 0.9, CorrectedFields: []string{mrz.FieldDocumentNumber, ""}}, engine.Fail, verifyd.ReasonInvalidID},
		{"wrong country, unsure, corrected in the number", verifyd.DocPassport, "fra", engine.MRZRead{Lines: lines(t, passport(nil)), Corrections: 2, Confidence: 0.6, CorrectedFields: []string{mrz.FieldDocumentNumber}}, engine.Review, ""},
		{"declared ID card, is a passport", verifyd.DocIDCard, "gbr", engine.MRZRead{Lines: lines(t, passport(nil))}, engine.Fail, verifyd.ReasonInvalidID},
		{"declared passport, is an ID card", verifyd.DocPassport, "deu", engine.MRZRead{Lines: lines(t, idCard)}, engine.Fail, verifyd.ReasonInvalidID},
		{"declared residence permit, is an ID card", verifyd.DocResidencePermit, "deu", engine.MRZRead{Lines: lines(t, idCard)}, engine.Fail, verifyd.ReasonInvalidID},
		{"wrong issuing country", verifyd.DocPassport, "fra", engine.MRZRead{Lines: lines(t, passport(nil))}, engine.Fail, verifyd.ReasonInvalidID},
		// No check digit covers the code or the state: read unsurely,
		// they are a question, not another document.
		{"declared residence permit, code read unsurely", verifyd.DocResidencePermit, "deu", engine.MRZRead{Lines: lines(t, idCard), HeaderDoubtful: true}, engine.Review, ""},
		{"issuing state one letter off the declared, read unsurely", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: withState(lines(t, passport(nil)), "GBD"), HeaderDoubtful: true}, engine.Review, ""},
		// Three letters off, or a passport's layout declared a card: no
		// one misread character explains it.
		{"another issuing country read unsurely", verifyd.DocPassport, "fra", engine.MRZRead{Lines: lines(t, passport(nil)), HeaderDoubtful: true}, engine.Fail, verifyd.ReasonInvalidID},
		{"declared ID card, is a passport, code read unsurely", verifyd.DocIDCard, "gbr", engine.MRZRead{Lines: lines(t, passport(nil)), HeaderDoubtful: true}, engine.Fail, verifyd.ReasonInvalidID},
		// The issuing state carries no check digit: a code no state has
		// is a misread, one letter off the declared country that country.
		{"issuing state misread one letter off", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: withState(lines(t, passport(nil)), "GQR")}, engine.Pass, ""},
		{"issuing state misread further off", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: withState(lines(t, passport(nil)), "QBF")}, engine.Review, ""},
		{"no MRZ found", verifyd.DocPassport, "gbr", engine.MRZRead{}, engine.Fail, verifyd.ReasonIDScanError},
		{"garbage read", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: []string{"XXXX", "YYYY"}}, engine.Fail, verifyd.ReasonIDScanError},
		{"cut off", verifyd.DocPassport, "gbr", engine.MRZRead{CutOff: true}, engine.Fail, verifyd.ReasonPartialID},
		{"covered and failing check digits", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: corrupt(lines(t, passport(nil))), Covered: true}, engine.Fail, verifyd.ReasonPartialID},
		{"driver licence goes to review", verifyd.DocDriverLicense, "gbr", engine.MRZRead{}, engine.Review, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			img := &engine.Image{Kind: verifyd.ImageDocumentFront, Image: image.NewGray(image.Rect(0, 0, 10, 10))}
			in := &engine.Input{DocumentType: tt.docType, Country: tt.country, Front: img, Back: img, Now: now, Facts: map[string]any{}}
			r := engine.DocumentCheck{Reader: scripted{tt.read}}.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Reason != tt.reason {
				t.Fatalf("got %s %s (%s), want %s %s", r.Outcome, r.Reason, r.Detail, tt.outcome, tt.reason)
			}
			if r.Outcome == engine.Pass && in.Facts[engine.FactDocumentKey] == nil {
				t.Fatal("a read document sets the document key for the consistency check")
			}
		})
	}
	r := engine.DocumentCheck{}.Run(context.Background(), &engine.Input{DocumentType: verifyd.DocPassport, Facts: map[string]any{}})
	if r.Outcome != engine.Error || r.Evidence["unavailable"] != true {
		t.Fatalf("without a reader: %+v", r)
	}
}

// TestDocumentCheckQualityAnswersReader: the photo's measured quality
// explains a failed reading, and never refuses one that worked.
func TestDocumentCheckQualityAnswersReader(t *testing.T) {
	t.Parallel()
	blurred := qualitytest.Blur(card(31, 0), 3)
	tests := []struct {
		name    string
		read    engine.MRZRead
		img     image.Image
		outcome engine.Outcome
		reason  verifyd.Reason
		detail  string
	}{
		{"read on a blurred photo is not refused", engine.MRZRead{Lines: lines(t, passport(nil))}, blurred, engine.Pass, "", ""},
		{"unread on a blurred photo: poor scan, blur named", engine.MRZRead{}, blurred, engine.Fail, verifyd.ReasonPoorIDScanError, "blurry"},
		{"unread and cut off on a blurred photo: the blur is the cause", engine.MRZRead{CutOff: true}, blurred, engine.Fail, verifyd.ReasonPoorIDScanError, "blurry"},
		{"unread, cut off on a sharp photo", engine.MRZRead{CutOff: true}, card(32, 0), engine.Fail, verifyd.ReasonPartialID, "cut off"},
		{"unread on a sharp photo", engine.MRZRead{}, card(33, 0), engine.Fail, verifyd.ReasonIDScanError, "no machine-readable zone"},
		{"confident bad check digits on a blurred photo", engine.MRZRead{Lines: func() []string {
			l := lines(t, passport(nil))
			b := []byte(l[1])
			b[9] = '0' + (b[9]-'0'+1)%10
			l[1] = string(b)
			return l
		}(), Confidence: 0.9}, blurred, engine.Fail, verifyd.ReasonPoorIDScanError, "check digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := front(tt.img)
			in.DocumentType, in.Country, in.Now, in.Facts = verifyd.DocPassport, "gbr", now, map[string]any{}
			r := engine.DocumentCheck{Reader: scripted{tt.read}, Quality: engine.NewQualityCheck()}.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Reason != tt.reason || !strings.Contains(r.Detail, tt.detail) {
				t.Fatalf("got %s %s (%s), want %s %s with %q", r.Outcome, r.Reason, r.Detail, tt.outcome, tt.reason, tt.detail)
			}
			// The hosted page's hint: what to fix, on which photo.
			if tt.reason == verifyd.ReasonPoorIDScanError && (r.Evidence["fix"] != "blur" || r.Evidence["image"] != "document_front") {
				t.Fatalf("hint: fix %v, image %v", r.Evidence["fix"], r.Evidence["image"])
			}
		})
	}
}

// withState writes state into the issuing state of an MRZ's first line
// (no check digit covers it).
func withState(l []string, state string) []string {
	l[0] = l[0][:2] + state + l[0][5:]
	return l
}

// bySide is an MRZ reader that returns a prepared read per photo.
type bySide map[image.Image]engine.MRZRead

func (s bySide) ReadMRZ(_ context.Context, img image.Image, _ mrz.Format) (engine.MRZRead, error) {
	return s[img], nil
}

// spanishCard is a TD2 ID card, whose zone is on its front.
var spanishCard = mrz.Fields{Format: mrz.TD2, DocumentCode: "ID", IssuingState: "ESP", DocumentNumber: "CBK547469",
	Surname: "GARCIA", GivenNames: "ISABEL", Nationality: "ESP", BirthDate: mrz.Date{Year: 1953, Month: 6, Day: 25},
	Sex: "F", ExpiryDate: mrz.Date{Year: 2034, Month: 12, Day: 11}}

// TestDocumentCheckReadsBothSides: an ID card's back is read first, but
// lines there that the reader took for a zone and that do not parse (an
// address block; the zone of a TD2 card is on its front) must not hide the
// front's valid zone; with neither valid, the surer reading decides.
func TestDocumentCheckReadsBothSides(t *testing.T) {
	t.Parallel()
	good := lines(t, spanishCard)
	corrupt := append([]string(nil), good...)
	b := []byte(corrupt[1])
	b[9] = '0' + (b[9]-'0'+1)%10
	corrupt[1] = string(b)
	garbage := engine.MRZRead{Lines: []string{"AVLA?0LLACKNST?1RJJNSO????????", "?600?14???????????????????????", "F?????????????????????????????"}, Confidence: 0.14}
	front := &engine.Image{Kind: verifyd.ImageDocumentFront, Image: image.NewGray(image.Rect(0, 0, 10, 10))}
	back := &engine.Image{Kind: verifyd.ImageDocumentBack, Image: image.NewGray(image.Rect(0, 0, 11, 11))}
	for _, tt := range []struct {
		name        string
		front, back engine.MRZRead
		outcome     engine.Outcome
		side        verifyd.ImageKind
	}{
		{"garbage on the back, the zone on the front", engine.MRZRead{Lines: good, Confidence: 0.9}, garbage, engine.Pass, verifyd.ImageDocumentFront},
		{"the zone on the back", engine.MRZRead{}, engine.MRZRead{Lines: good, Confidence: 0.9}, engine.Pass, verifyd.ImageDocumentBack},
		{"neither valid: the surer reading", engine.MRZRead{Lines: corrupt, Confidence: 0.9}, garbage, engine.Review, verifyd.ImageDocumentFront},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := &engine.Input{DocumentType: verifyd.DocIDCard, Country: "esp", Front: front, Back: back, Now: now, Facts: map[string]any{}}
			r := engine.DocumentCheck{Reader: bySide{front.Image: tt.front, back.Image: tt.back}}.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Evidence["side"] != tt.side {
				t.Fatalf("got %s on %v (%s), want %s on %s", r.Outcome, r.Evidence["side"], r.Detail, tt.outcome, tt.side)
			}
		})
	}
}

// TestDocumentCheckSearchesAfterReadingWhole: every side is read whole
// before any is searched (MRZRead.More): a card's back whose whole
// reading found no zone is not searched when the front's whole reading
// is valid; a reading with More is searched before it counts, even one
// that parses; with no valid whole reading, the sides are searched in
// order until one's search is valid — but not a side whose whole reading
// shows no filler run when another's does (the zone is there), and a side
// after one whose reading shows such a run is not read at all.
func TestDocumentCheckSearchesAfterReadingWhole(t *testing.T) {
	t.Parallel()
	good := lines(t, spanishCard)
	// A card's back whose zone a finger covers, and a front whose
	// printed text the reader took for lines (as read on independently
	// generated photos).
	covered := engine.MRZRead{Lines: []string{"AK?????????????<<<<<<<<<<<<<<<", "1??????????????MEX<<<<<<<<<<<4", "K?????????????VERONICA<<<<<<<<"},
		Confidence: 0.3, Covered: true}
	text := engine.MRZRead{Lines: []string{"POCUMENTOJUUJONALBEJOENTHUUIZIJ?NT?Y??GRU???", "Z1??VA7J?2L???4?2????4??3?5??????<O??DH224<5"}, Confidence: 0.2}
	front := &engine.Image{Kind: verifyd.ImageDocumentFront, Image: image.NewGray(image.Rect(0, 0, 10, 10))}
	back := &engine.Image{Kind: verifyd.ImageDocumentBack, Image: image.NewGray(image.Rect(0, 0, 11, 11))}
	for _, tt := range []struct {
		name                string
		front, back         engine.MRZRead
		frontMore, backMore *engine.MRZRead // what each side's search finds (nil: no search)
		outcome             engine.Outcome
		side                verifyd.ImageKind
		searched            []verifyd.ImageKind
		confidence          float64
	}{
		{"valid front read whole: the back is not searched", engine.MRZRead{Lines: good, Confidence: 0.9}, engine.MRZRead{},
			nil, &engine.MRZRead{Lines: good, Confidence: 0.95}, engine.Pass, verifyd.ImageDocumentFront, nil, 0.9},
		{"nothing read whole: the back's search", engine.MRZRead{}, engine.MRZRead{},
			&engine.MRZRead{}, &engine.MRZRead{Lines: good, Confidence: 0.8}, engine.Pass, verifyd.ImageDocumentBack,
			[]verifyd.ImageKind{verifyd.ImageDocumentBack}, 0.8},
		{"the back's search fails: the front's", engine.MRZRead{}, engine.MRZRead{},
			&engine.MRZRead{Lines: good, Confidence: 0.7}, &engine.MRZRead{}, engine.Pass, verifyd.ImageDocumentFront,
			[]verifyd.ImageKind{verifyd.ImageDocumentBack, verifyd.ImageDocumentFront}, 0.7},
		{"a parsed reading that is not the last word is searched", engine.MRZRead{}, engine.MRZRead{Lines: good, Confidence: 0.6},
			nil, &engine.MRZRead{Lines: good, Confidence: 0.85}, engine.Pass, verifyd.ImageDocumentBack,
			[]verifyd.ImageKind{verifyd.ImageDocumentBack}, 0.85},
		{"a covered zone on the back: the front, text read as lines, is not searched", text, covered,
			&engine.MRZRead{Lines: good, Confidence: 0.9}, &covered, engine.Fail, verifyd.ImageDocumentBack,
			[]verifyd.ImageKind{verifyd.ImageDocumentBack}, 0.3},
		{"fillers on the back: the front, which would read valid, is not read", engine.MRZRead{Lines: good, Confidence: 0.9}, covered,
			nil, &covered, engine.Fail, verifyd.ImageDocumentBack,
			[]verifyd.ImageKind{verifyd.ImageDocumentBack}, 0.3},
		{"fillers on the front only: the back is not searched", covered, text,
			&engine.MRZRead{Lines: good, Confidence: 0.9}, &text, engine.Pass, verifyd.ImageDocumentFront,
			[]verifyd.ImageKind{verifyd.ImageDocumentFront}, 0.9},
		{"no fillers anywhere: both searched", text, text,
			&engine.MRZRead{Lines: good, Confidence: 0.9}, &text, engine.Pass, verifyd.ImageDocumentFront,
			[]verifyd.ImageKind{verifyd.ImageDocumentBack, verifyd.ImageDocumentFront}, 0.9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var searched []verifyd.ImageKind
			with := func(r engine.MRZRead, more *engine.MRZRead, kind verifyd.ImageKind) engine.MRZRead {
				if more != nil {
					r.More = func(context.Context) (engine.MRZRead, error) {
						searched = append(searched, kind)
						return *more, nil
					}
				}
				return r
			}
			reader := bySide{front.Image: with(tt.front, tt.frontMore, verifyd.ImageDocumentFront),
				back.Image: with(tt.back, tt.backMore, verifyd.ImageDocumentBack)}
			in := &engine.Input{DocumentType: verifyd.DocIDCard, Country: "esp", Front: front, Back: back, Now: now, Facts: map[string]any{}}
			r := engine.DocumentCheck{Reader: reader}.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Evidence["side"] != tt.side || r.Evidence["confidence"] != tt.confidence {
				t.Fatalf("got %s on %v at %v (%s), want %s on %s at %v", r.Outcome, r.Evidence["side"], r.Evidence["confidence"], r.Detail, tt.outcome, tt.side, tt.confidence)
			}
			if !slices.Equal(searched, tt.searched) {
				t.Errorf("searched %v, want %v", searched, tt.searched)
			}
		})
	}
}
