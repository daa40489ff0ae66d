package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/mrz"
)

// Facts set by DocumentCheck.
const (
	// FactMRZ holds the mrz.Fields read from the document.
	FactMRZ = "mrz"
	// FactMRZRead holds the Located zone.
	FactMRZRead = "mrz_read"
	// FactPending holds a failing Result that a corrected MRZ reading
	// suggests (expired, minor, another type or country) but cannot decide
	// alone: VisualZoneCheck fails with it when the printed data confirms
	// it, and sends the verification to review otherwise.
	FactPending = "pending"
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
	// Corrections counts the characters the reader changed to their
	// runner-up so that a check digit verifies: such a reading is never
	// enough on its own to approve (see VisualZoneCheck), nor to fail on
	// a field it changed.
	Corrections int
	// CorrectedFields names the fields the corrections changed (mrzread's
	// FieldOf: "document_number", "birth_date", "expiry_date",
	// "personal_number", "names", "header" — the document code and
	// issuing state —, or "" for the rest).
	CorrectedFields []string
	// Doubtful reports low-confidence characters in a reading whose check
	// digits verify: names and filler carry no check digit, so its name
	// (and a number with compensating O/0 swaps) may be misread.
	Doubtful bool
	// SurnameConfidence is the lowest confidence of the surname's
	// characters in the zone (0 to 1; 0 when unknown): the name carries no
	// check digit, so this is how far the surname read can be trusted.
	SurnameConfidence float64
	// SurnameCorrected reports that the reader changed a character of the
	// surname (or the "<<" ending it); corrections of the given names do
	// not count.
	SurnameCorrected bool
	// NumberConfidence is the lowest confidence of the document number's
	// characters, its check digit included (0 to 1; 0 when unknown): two
	// misreads verify a check digit one time in ten.
	NumberConfidence float64
	// Number holds the reader's evidence for each character of the
	// document number's nine-character field as read (its check digit
	// and a TD1 number's extension left out): the runner-up character
	// and the confidence, for VisualZoneCheck to tell a misread number
	// from the printed one (viz.Zone.ResolveNumber). Nil when unknown.
	Number []Cell
	// Surname holds the reader's evidence for each character of the
	// MRZ's surname as read ('<' separators included), for
	// VisualZoneCheck to tell a misread surname from another one. Nil
	// when unknown.
	Surname []Cell
	// HeaderDoubtful reports a character of the document code or issuing
	// state read below MinNumberConfidence: neither has a check digit.
	HeaderDoubtful bool
	// Quad is the zone's corners (top-left, top-right, bottom-right,
	// bottom-left) in the photo; Angle the document's rotation in degrees,
	// clockwise as displayed, as the zone's lines show it.
	Quad  [4]image.Point
	Angle float64
	// Evidence is extra detail for operators (band position, skew, …).
	Evidence map[string]any
	// More, when not nil, says this reading, of the whole photo, is not
	// the reader's last word: More searches the photo harder (its
	// document's crops, enlarged, warped upright) and returns the reading
	// to use. DocumentCheck reads every side whole before it searches
	// any, up to the first whose reading shows a run of the zone's
	// fillers: the search costs seconds on a photo with no zone, and a
	// card's back is read first though some cards carry their zone on the
	// front.
	More func(ctx context.Context) (MRZRead, error)
}

// Cell is what an MRZ reader saw in one character's place: the runner-up
// character it allowed there (0: none) and its confidence in the
// character it read (0 to 1).
type Cell struct {
	Alt  byte
	Conf float64
}

// Located is where DocumentCheck found the MRZ (fact FactMRZRead), for the
// checks that read the rest of the document.
type Located struct {
	Side        *Image
	Quad        [4]image.Point
	Angle       float64
	Corrections int
	// CorrectedFields are MRZRead's: fields the reader changed so that
	// their check digits verify.
	CorrectedFields []string
	Doubtful        bool
	// SurnameConfidence, SurnameCorrected and NumberConfidence are
	// MRZRead's.
	SurnameConfidence, NumberConfidence float64
	SurnameCorrected                    bool
	// Number and Surname are MRZRead's.
	Number, Surname []Cell
	// Format is the zone's layout, which with Quad gives the document's
	// scale and extent on the photo (ICAO 9303 fixes the character pitch
	// and where the zone lies on the page).
	Format mrz.Format
}

// MRZReader finds and reads the machine-readable zone of a document photo.
// format is a hint (0: detect).
type MRZReader interface {
	ReadMRZ(ctx context.Context, img image.Image, format mrz.Format) (MRZRead, error)
}

// fillerRun reports lines of which one holds a run of five fillers ('<'):
// an MRZ's, however little of it could be read (every layout pads its
// name, number or optional data fields with fillers), and rarely a
// reading of other printed text.
func fillerRun(lines []string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "<<<<<") })
}

// DocumentCheck reads the document's MRZ and decides what it says.
//
// The reader answers first and the photo's quality only explains a failure:
// a zone read with every check digit verifying is never refused as poor,
// however blurred, dark or glaring the photo measures. When reading fails,
// the measured cause decides the reason: a quality problem (Quality) →
// poor_id_scan_error with what to fix; else a zone cut off or covered →
// partial_id; else id_scan_error. Check digits that do not verify never
// fail a document as invalid_id: an unsure reading is treated as unread,
// and a confident reading of a good photo goes to a person (a misread is
// not a forgery). A read zone whose document type
// or issuing country disagrees with the declared one → invalid_id;
// expired → expired_id; under 18 → minor; when the reading needed
// corrections in the field the verdict rests on, or needed some and is not
// confident, those verdicts wait for the visual zone (FactPending).
//
// Driver licences carry no MRZ: their dates are read from the visual zone
// (see DriverLicence).
type DocumentCheck struct {
	Reader MRZReader
	// Quality explains reading failures; nil leaves them unexplained.
	Quality *QualityCheck
	// Licence reads driver licences; nil sends them to review.
	Licence *DriverLicence
}

// confidentMRZ is the mean character confidence above which a reading
// whose check digits fail is taken as what the document prints.
const confidentMRZ = 0.75

// Name implements Check.
func (DocumentCheck) Name() string { return "document" }

// Run implements Check.
func (c DocumentCheck) Run(ctx context.Context, in *Input) Result {
	if in.DocumentType == verifyd.DocDriverLicense {
		if c.Licence == nil {
			return NeedsReview("driver licences have no machine-readable zone: a person must read the licence "+
				"(holder, date of birth, expiry) and compare it with the declared country", map[string]any{"document_type": in.DocumentType})
		}
		return c.Licence.Run(ctx, in)
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
	// The first side whose zone parses is the document's; else the
	// surest reading of any. A card's back can hold lines the reader
	// takes for a zone (an address block, a barcode's caption) while the
	// zone is on its front (TD2 cards): the front must be read too, and
	// is read whole before the back is searched (MRZRead.More), unless
	// the back's reading shows the zone's fillers, which such lines do
	// not.
	var read MRZRead
	var side *Image
	var fields mrz.Fields
	var err error // the chosen reading's parse error
	// take weighs one side's reading against the others so far, and
	// reports one that ends the reading: final (no More) and parsed.
	take := func(s *Image, r MRZRead) bool {
		if len(r.Lines) == 0 {
			if side == nil {
				read = r
			}
			return false
		}
		f, perr := mrz.Parse(r.Lines, mrz.WithNow(in.Now))
		if side == nil || perr == nil || r.Confidence > read.Confidence {
			read, side, fields, err = r, s, f, perr
		}
		return perr == nil && r.More == nil
	}
	more := make([]func(context.Context) (MRZRead, error), len(sides))
	zone := make([]bool, len(sides))
	done := false
	for i, s := range sides {
		if s == nil || s.Image == nil {
			continue
		}
		r, rerr := c.Reader.ReadMRZ(ctx, s.Image, hint)
		if rerr != nil {
			return Errored(rerr, nil)
		}
		more[i], zone[i] = r.More, fillerRun(r.Lines)
		// A side whose reading shows the zone's fillers holds the zone:
		// the other side is not read (a card's front, whose printed text
		// the reader takes for lines, costs 0.3–0.8 s to read whole on
		// independently generated photos, docs/performance.md).
		if done = take(s, r); done || zone[i] {
			break
		}
	}
	// A side whose whole reading shows no zone is not searched when
	// another's shows one it could not read (a covered or cut zone on
	// a card's back): the zone is there, and the search of a card's
	// front, whose printed text the reader takes for lines, costs 2–2.5
	// s on independently generated photos (docs/performance.md).
	seen := slices.Contains(zone, true)
	for i, s := range sides {
		if done || more[i] == nil || seen && !zone[i] {
			continue
		}
		r, rerr := more[i](ctx)
		if rerr != nil {
			return Errored(rerr, nil)
		}
		r.More = nil
		done = take(s, r)
	}
	read.More = nil
	ev := map[string]any{"confidence": read.Confidence, "lines": read.Lines, "cut_off": read.CutOff, "covered": read.Covered}
	for k, v := range read.Evidence {
		ev[k] = v
	}
	if side != nil {
		ev["side"] = side.Kind
	}
	if len(read.Lines) == 0 {
		return c.unread(ctx, in, read, "no machine-readable zone could be found or read", ev)
	}
	var fe *mrz.FormatError
	var ce *mrz.CheckError
	switch {
	case errors.As(err, &fe):
		return c.unread(ctx, in, read, "the machine-readable zone could not be read: "+fe.Problem, ev)
	case errors.As(err, &ce):
		ev["failed_check_digits"] = ce.Failed
		ev["mrz"] = fieldsEvidence(fields)
		detail := "check digits do not match: " + strings.Join(ce.Failed, ", ")
		if read.CutOff || read.Covered || read.Corrections > 0 || read.Confidence < confidentMRZ {
			return c.unread(ctx, in, read, detail, ev)
		}
		if r, poor := c.poor(ctx, in, detail, ev); poor {
			return r
		}
		// Even a confident reading of a good photo: on independently
		// rendered documents a motion-blurred digit was read confidently
		// wrong, and a forgery verdict for a misread accuses a genuine
		// holder. A person compares the zone with the photo.
		return NeedsReview(detail+": the photo measures fine and the reading is confident, but a misread digit "+
			"and a forged zone look alike here: compare the zone with the photo", ev)
	case err != nil:
		return Errored(err, ev)
	}
	ev["mrz"] = fieldsEvidence(fields)
	in.Facts[FactMRZ] = fields
	in.Facts[FactMRZRead] = Located{Side: side, Quad: read.Quad, Angle: read.Angle, Corrections: read.Corrections,
		CorrectedFields: read.CorrectedFields, Doubtful: read.Doubtful, SurnameConfidence: read.SurnameConfidence,
		SurnameCorrected: read.SurnameCorrected, NumberConfidence: read.NumberConfidence, Number: read.Number, Surname: read.Surname, Format: fields.Format}
	in.Facts[FactDocumentKey] = documentKey(in, fields)
	// doubtfulHeader answers a verdict that rests on one character of the
	// document code or the issuing state read unsurely. A genuine Swedish
	// permit's IR read IA (glare; R the runner-up at 0.20) was failed as
	// an identity card declared a permit (independently generated
	// photos): no check digit covers the code or the state, so such a
	// character is a question for a person, not another document. A
	// passport's layout declared a card, or a state three letters off the
	// declared one, does not rest on one character and stays a verdict.
	doubtfulHeader := func(detail string) Result {
		return NeedsReview(detail+", but the document code and issuing state were read unsurely: compare them with the photo", ev)
	}
	// verdict fails the document on what field says, unless the reading
	// needed corrections there, or needed some and is not confident: a
	// look-alike swapped in the document number says nothing about the
	// expiry date or the issuing state, but a garbage line made to verify
	// by corrections says nothing reliable anywhere.
	verdict := func(reason verifyd.Reason, detail, field string) Result {
		if read.Corrections == 0 || read.Confidence >= confidentMRZ && !slices.Contains(read.CorrectedFields, field) {
			return Failed(reason, detail, ev)
		}
		// A reading that needed corrections decides nothing alone.
		in.Facts[FactPending] = Failed(reason, detail, ev)
		return NeedsReview(detail+"; the reading needed corrections, so the printed data must confirm it", ev)
	}
	if problem, byLayout := typeMismatch(in.DocumentType, fields); problem != "" {
		if read.HeaderDoubtful && !byLayout {
			return doubtfulHeader(problem)
		}
		return verdict(verifyd.ReasonInvalidID, problem, "header")
	}
	if got := alpha3(fields.IssuingState); got != strings.ToUpper(in.Country) {
		// The issuing state has no check digit. A code that is no state's
		// is a misread, not another country ("PQL" for POL, "IFL" for
		// IRL in independently generated photos): one character off the
		// declared country is that country; further off, a person looks.
		if !knownState(got) {
			if differsInOne(got, strings.ToUpper(in.Country)) {
				ev["issuing_state_read"] = got
			} else {
				return NeedsReview(fmt.Sprintf("the issuing state was read as %q, which is no state's code: compare it with the declared %s", got, in.Country), ev)
			}
		} else {
			detail := fmt.Sprintf("the document was issued by %s, not the declared %s", got, in.Country)
			if read.HeaderDoubtful && differsInOne(got, strings.ToUpper(in.Country)) {
				return doubtfulHeader(detail)
			}
			return verdict(verifyd.ReasonInvalidID, detail, "header")
		}
	}
	if fields.ExpiryDate.Time().Before(dateOf(in)) {
		return verdict(verifyd.ReasonExpiredID, "the document expired on "+fields.ExpiryDate.String(), mrz.FieldExpiryDate)
	}
	age := mrz.Age(fields.BirthDate, in.Now)
	ev["age"] = age
	if age < 18 {
		return verdict(verifyd.ReasonMinor, fmt.Sprintf("the holder is %d years old", age), mrz.FieldBirthDate)
	}
	return Passed("the machine-readable zone is valid, current and the holder is an adult", ev)
}

// unread decides a zone that could not be read: by the photo's measured
// quality first, then by whether the zone is cut off or covered.
func (c DocumentCheck) unread(ctx context.Context, in *Input, read MRZRead, detail string, ev map[string]any) Result {
	if r, poor := c.poor(ctx, in, detail, ev); poor {
		return r
	}
	if read.CutOff || read.Covered {
		what := "covered"
		if read.CutOff {
			what = "cut off by the photo's edge"
		}
		ev["fix"] = "cutoff"
		return Failed(verifyd.ReasonPartialID, "the machine-readable zone is "+what+": "+detail, ev)
	}
	if _, ok := ev["failed_check_digits"]; ok {
		return NeedsReview(detail+": the photo measures fine, so a person must compare the zone with the document", ev)
	}
	ev["fix"] = "unreadable"
	return Failed(verifyd.ReasonIDScanError, detail, ev)
}

// poor measures the photos' quality and, when it explains the failure,
// returns poor_id_scan_error with the cause as the hint.
func (c DocumentCheck) poor(ctx context.Context, in *Input, detail string, ev map[string]any) (Result, bool) {
	if c.Quality == nil {
		return Result{}, false
	}
	q := c.Quality.Run(ctx, in)
	ev["quality"] = q.Evidence
	if q.Outcome != Fail {
		return Result{}, false
	}
	// What the person is asked to fix: the first problem measured, on
	// the photo it was measured on (the hosted page's hint).
	first := strings.TrimPrefix(q.Detail, "photo quality too poor to read the document: ")
	first, _, _ = strings.Cut(first, ";")
	for _, k := range []verifyd.ImageKind{verifyd.ImageDocumentFront, verifyd.ImageDocumentBack} {
		if strings.HasPrefix(first, string(k)) {
			ev["image"] = string(k)
		}
	}
	for _, p := range [][2]string{{"blurry", "blur"}, {"glare", "glare"}, {"dark", "light"}, {"overexposed", "light"}} {
		if strings.Contains(first, p[0]) {
			ev["fix"] = p[1]
			break
		}
	}
	return Failed(q.Reason, detail+"; "+q.Detail, ev), true
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
// (UK "IR", Germany "AR", "RP" and others, the United States' permanent
// resident card "C1").
var residenceCodes = map[string]bool{"IR": true, "AR": true, "CR": true, "RP": true, "RT": true, "C1": true}

// typeMismatch compares the declared document type with the MRZ's format
// and document code; byLayout reports a mismatch the format alone shows
// (a passport's two 44-character lines declared a card), which no
// misread character of the code explains.
func typeMismatch(t verifyd.DocumentType, f mrz.Fields) (problem string, byLayout bool) {
	code := f.DocumentCode
	switch t {
	case verifyd.DocPassport:
		if f.Format != mrz.TD3 || !strings.HasPrefix(code, "P") {
			return fmt.Sprintf("declared a passport, but the MRZ is a %s document with code %q", f.Format, code), f.Format != mrz.TD3
		}
	case verifyd.DocIDCard:
		if f.Format == mrz.TD3 || residenceCodes[code] || code == "" || !strings.ContainsAny(code[:1], "IAC") {
			return fmt.Sprintf("declared an identity card, but the MRZ is a %s document with code %q", f.Format, code), f.Format == mrz.TD3
		}
	case verifyd.DocResidencePermit:
		if f.Format == mrz.TD3 || !residenceCodes[code] {
			return fmt.Sprintf("declared a residence permit, but the MRZ is a %s document with code %q", f.Format, code), f.Format == mrz.TD3
		}
	}
	return "", false
}

// documentKey identifies a document for the duplicate-document check
// (fact FactDocumentKey): its type, issuing state and number.
func documentKey(in *Input, f mrz.Fields) string {
	return string(in.DocumentType) + "|" + f.IssuingState + "|" + f.DocumentNumber
}

// knownState reports whether an MRZ issuing state (after alpha3) is a
// state's or organisation's code: SPEC's countries, and the codes ICAO
// 9303 part 3 adds (British nationals' GBD/GBN/GBO/GBP/GBS, the United
// Nations' UNO/UNA/UNK, the EU's EUE, stateless and refugee XX*, and the
// other X codes of organisations).
func knownState(code string) bool {
	switch {
	case verifyd.ValidDocumentCountry(strings.ToLower(code)):
		return true
	case len(code) == 3 && (strings.HasPrefix(code, "GB") || strings.HasPrefix(code, "UN") || code[0] == 'X' || code == "EUE"):
		return true
	}
	return false
}

// differsInOne reports whether a and b have one length and differ in
// exactly one character.
func differsInOne(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n == 1
}

// alpha3 maps an MRZ state code to the ISO 3166 alpha-3 code SPEC uses:
// Germany is "D" in MRZs.
func alpha3(state string) string {
	if state == "D" {
		return "DEU"
	}
	return state
}
