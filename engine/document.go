package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/mrz"
)

// Facts set by DocumentCheck.
const (
	// FactMRZ holds the mrz.Fields read from the document.
	FactMRZ = "mrz"
)

// MRZRead is what an MRZ reader found in a photo.
type MRZRead struct {
	// Lines are the recognised MRZ lines ("" when no MRZ band was found).
	Lines []string
	// Confidence is the mean per-character confidence in [0, 1].
	Confidence float64
	// CutOff means the band touches the photo's edge: part of it is outside.
	CutOff bool
	// Covered means a contiguous run of characters could not be read, as
	// when a finger or glare covers part of the band.
	Covered bool
	// Evidence is extra detail for operators (band position, skew, …).
	Evidence map[string]any
}

// MRZReader finds and reads the machine-readable zone of a document photo.
// format is a hint (0: detect).
type MRZReader interface {
	ReadMRZ(ctx context.Context, img image.Image, format mrz.Format) (MRZRead, error)
}

// DocumentCheck reads the document's MRZ and decides what it says:
// unreadable → id_scan_error; cut off or covered → partial_id; check digits
// that fail, or a document type or issuing country that disagrees with the
// declared one → invalid_id; expired → expired_id; under 18 → minor.
// Driver licences carry no MRZ: they go to review with what was checked.
type DocumentCheck struct {
	Reader MRZReader
}

// Name implements Check.
func (DocumentCheck) Name() string { return "document" }

// Run implements Check.
func (c DocumentCheck) Run(ctx context.Context, in *Input) Result {
	if in.DocumentType == verifyd.DocDriverLicense {
		return NeedsReview("driver licences have no machine-readable zone: a person must read the licence "+
			"(holder, date of birth, expiry) and compare it with the declared country", map[string]any{"document_type": in.DocumentType})
	}
	if c.Reader == nil {
		return Errored(fmt.Errorf("MRZ reader: %w", ErrUnavailable), nil)
	}
	// ID cards and residence permits (TD1) carry the MRZ on the back;
	// passports (TD3) at the bottom of the data page, the "front".
	sides := []*Image{in.Front, in.Back}
	hint := mrz.TD3
	if in.DocumentType != verifyd.DocPassport {
		sides, hint = []*Image{in.Back, in.Front}, 0
	}
	var read MRZRead
	var side *Image
	for _, s := range sides {
		if s == nil || s.Image == nil {
			continue
		}
		r, err := c.Reader.ReadMRZ(ctx, s.Image, hint)
		if err != nil {
			return Errored(err, nil)
		}
		if len(r.Lines) > 0 {
			read, side = r, s
			break
		}
		read = r
	}
	ev := map[string]any{"confidence": read.Confidence, "lines": read.Lines, "cut_off": read.CutOff, "covered": read.Covered}
	for k, v := range read.Evidence {
		ev[k] = v
	}
	if side != nil {
		ev["side"] = side.Kind
	}
	switch {
	case len(read.Lines) == 0 && (read.CutOff || read.Covered):
		return Failed(verifyd.ReasonPartialID, "the machine-readable zone is cut off or covered", ev)
	case len(read.Lines) == 0:
		return Failed(verifyd.ReasonIDScanError, "no machine-readable zone could be found or read", ev)
	}
	fields, err := mrz.Parse(read.Lines, mrz.WithNow(in.Now))
	var fe *mrz.FormatError
	var ce *mrz.CheckError
	switch {
	case errors.As(err, &fe) && (read.CutOff || read.Covered):
		return Failed(verifyd.ReasonPartialID, "the machine-readable zone is cut off or covered: "+fe.Problem, ev)
	case errors.As(err, &fe):
		return Failed(verifyd.ReasonIDScanError, "the machine-readable zone could not be read: "+fe.Problem, ev)
	case errors.As(err, &ce) && (read.CutOff || read.Covered):
		return Failed(verifyd.ReasonPartialID, "part of the machine-readable zone is hidden; check digits fail: "+strings.Join(ce.Failed, ", "), ev)
	case errors.As(err, &ce):
		ev["failed_check_digits"] = ce.Failed
		ev["mrz"] = fieldsEvidence(fields)
		return Failed(verifyd.ReasonInvalidID, "check digits do not match: "+strings.Join(ce.Failed, ", "), ev)
	case err != nil:
		return Errored(err, ev)
	}
	ev["mrz"] = fieldsEvidence(fields)
	in.Facts[FactMRZ] = fields
	in.Facts[FactDocumentKey] = string(in.DocumentType) + "|" + fields.IssuingState + "|" + fields.DocumentNumber
	if problem := typeMismatch(in.DocumentType, fields); problem != "" {
		return Failed(verifyd.ReasonInvalidID, problem, ev)
	}
	if got := alpha3(fields.IssuingState); got != strings.ToUpper(in.Country) {
		return Failed(verifyd.ReasonInvalidID, fmt.Sprintf("the document was issued by %s, not the declared %s", got, in.Country), ev)
	}
	if fields.ExpiryDate.Time().Before(dateOf(in)) {
		return Failed(verifyd.ReasonExpiredID, "the document expired on "+fields.ExpiryDate.String(), ev)
	}
	age := mrz.Age(fields.BirthDate, in.Now)
	ev["age"] = age
	if age < 18 {
		return Failed(verifyd.ReasonMinor, fmt.Sprintf("the holder is %d years old", age), ev)
	}
	return Passed("the machine-readable zone is valid, current and the holder is an adult", ev)
}

// dateOf is the reference day (expiry dates are whole days: a document is
// valid through its expiry date).
func dateOf(in *Input) time.Time {
	y, m, d := in.Now.Date()
	return mrz.Date{Year: y, Month: m, Day: d}.Time()
}

func fieldsEvidence(f mrz.Fields) map[string]any {
	return map[string]any{
		"format": f.Format.String(), "document_code": f.DocumentCode, "issuing_state": f.IssuingState,
		"document_number": f.DocumentNumber, "surname": f.Surname, "given_names": f.GivenNames,
		"nationality": f.Nationality, "birth_date": f.BirthDate.String(), "sex": f.Sex,
		"expiry_date": f.ExpiryDate.String(), "optional_data": strings.TrimSpace(f.OptionalData1 + " " + f.OptionalData2),
	}
}

// residenceCodes are the TD1/TD2 document codes residence permits use
// (UK "IR", Germany "AR", "RP" and others).
var residenceCodes = map[string]bool{"IR": true, "AR": true, "CR": true, "RP": true, "RT": true}

// typeMismatch compares the declared document type with the MRZ's format
// and document code.
func typeMismatch(t verifyd.DocumentType, f mrz.Fields) string {
	code := f.DocumentCode
	switch t {
	case verifyd.DocPassport:
		if f.Format != mrz.TD3 || !strings.HasPrefix(code, "P") {
			return fmt.Sprintf("declared a passport, but the MRZ is a %s document with code %q", f.Format, code)
		}
	case verifyd.DocIDCard:
		if f.Format == mrz.TD3 || residenceCodes[code] || code == "" || !strings.ContainsAny(code[:1], "IAC") {
			return fmt.Sprintf("declared an identity card, but the MRZ is a %s document with code %q", f.Format, code)
		}
	case verifyd.DocResidencePermit:
		if f.Format == mrz.TD3 || !residenceCodes[code] {
			return fmt.Sprintf("declared a residence permit, but the MRZ is a %s document with code %q", f.Format, code)
		}
	}
	return ""
}

// alpha3 maps an MRZ state code to the ISO 3166 alpha-3 code SPEC uses:
// Germany is "D" in MRZs.
func alpha3(state string) string {
	if state == "D" {
		return "DEU"
	}
	return state
}
