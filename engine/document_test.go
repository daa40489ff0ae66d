package engine_test

import (
	"context"
	"image"
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
		{"check digit fails", verifyd.DocPassport, "gbr", engine.MRZRead{Lines: corrupt(lines(t, passport(nil)))}, engine.Fail, verifyd.ReasonInvalidID},
		{"declared ID card, is a passport", verifyd.DocIDCard, "gbr", engine.MRZRead{Lines: lines(t, passport(nil))}, engine.Fail, verifyd.ReasonInvalidID},
		{"declared passport, is an ID card", verifyd.DocPassport, "deu", engine.MRZRead{Lines: lines(t, idCard)}, engine.Fail, verifyd.ReasonInvalidID},
		{"declared residence permit, is an ID card", verifyd.DocResidencePermit, "deu", engine.MRZRead{Lines: lines(t, idCard)}, engine.Fail, verifyd.ReasonInvalidID},
		{"wrong issuing country", verifyd.DocPassport, "fra", engine.MRZRead{Lines: lines(t, passport(nil))}, engine.Fail, verifyd.ReasonInvalidID},
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
