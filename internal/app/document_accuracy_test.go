package app_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mrz"
)

var (
	docEvalN    = flag.Int("docs.n", 0, "TestDocumentDecisions: documents per case (default: the quick subset)")
	docEvalDump = flag.Bool("docs.dump", false, "TestDocumentDecisions: log what was read for every wrong or review decision")
	docEvalOnly = flag.String("docs.case", "", "TestDocumentDecisions: run only the cases whose name contains this")
	docEvalSave = flag.String("docs.save", "", "TestDocumentDecisions: log as -docs.dump does and write the photos of every wrong or review decision into this directory")
)

// docNow is "today" of the document evaluation, fixed so the data set does
// not change with the date.
var docNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// docCase is one kind of document in the evaluation: what the holder's
// document says (fields, MRZ) and how it was photographed.
type docCase struct {
	name string
	// want is "approved", or the failure reasons that are right for it.
	want []verifyd.Reason
	// forge changes the printed data (spec.Fields) after the MRZ was
	// composed from the genuine fields.
	forge   func(f *mrz.Fields, r *rand.Rand)
	fields  func(f *mrz.Fields)
	degrade func(r *rand.Rand) docgen.Degrade
	// licence renders a driving licence (no MRZ).
	licence bool
	// apart submits the document as two photos taken apart (front and
	// back, each with its own tilt), the MRZ read from the back.
	apart bool
	// style is how the visual zone prints dates; labels their language.
	style  docgen.DateStyle
	labels string
}

var approved = []verifyd.Reason{"approved"}

var docCases = []docCase{
	{name: "genuine, mild", want: approved, degrade: mild},
	{name: "genuine, tilted 12–20°", want: approved, degrade: tilted20},
	{name: "genuine, phone processing", want: approved, degrade: phoneProcessing},
	{name: "genuine, low light", want: approved, degrade: lowLight},
	{name: "genuine, other MRZ printer", want: approved, degrade: func(r *rand.Rand) docgen.Degrade {
		d := docgen.Mild()
		d.Printer = true
		return d
	}},
	{name: "forged: printed birth date of a minor", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild,
		forge: forgeMinorBirth},
	{name: "forged: another printed expiry date", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild,
		forge: forgeExpiry},
	{name: "forged: another printed number", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild, forge: forgeNumber},
	{name: "forged: another printed surname", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild, forge: forgeSurname},
	{name: "genuine, dates printed 07.03.1990", want: approved, degrade: mild, style: docgen.DateDotted},
	{name: "genuine, dates printed 07 MARS/MAR 90", want: approved, degrade: mild, style: docgen.DateBilingual},
	{name: "genuine, German labels, dates 07.03.1990", want: approved, degrade: mild, labels: "de", style: docgen.DateDotted},
	{name: "genuine, French labels, dates 07/03/1990", want: approved, degrade: mild, labels: "fr", style: docgen.DateSlashed},
	{name: "genuine, Spanish labels", want: approved, degrade: mild, labels: "es"},
	{name: "forged: printed minor birth date, German labels", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild,
		labels: "de", style: docgen.DateDotted, forge: forgeMinorBirth},
	{name: "forged: another printed expiry date, Italian labels", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild,
		labels: "it", forge: forgeExpiry},
	{name: "genuine, ID card front and back photographed apart, tilted", want: approved, apart: true, degrade: func(r *rand.Rand) docgen.Degrade {
		d := docgen.Mild()
		d.Rotate = 20
		return d
	}},
	{name: "driving licence, adult, current", want: []verifyd.Reason{"review"}, degrade: mild, licence: true},
	{name: "driving licence, minor", want: []verifyd.Reason{verifyd.ReasonMinor}, degrade: mild, licence: true, fields: func(f *mrz.Fields) {
		f.BirthDate = mrz.Date{Year: docNow.Year() - 17, Month: 10, Day: 2}
	}},
	{name: "driving licence, expired", want: []verifyd.Reason{verifyd.ReasonExpiredID}, degrade: mild, licence: true, fields: func(f *mrz.Fields) {
		f.ExpiryDate = mrz.Date{Year: docNow.Year() - 2, Month: 7, Day: 19}
	}},
	{name: "minor", want: []verifyd.Reason{verifyd.ReasonMinor}, degrade: mild, fields: func(f *mrz.Fields) {
		f.BirthDate = mrz.Date{Year: docNow.Year() - 16, Month: 3, Day: 9}
	}},
	{name: "expired", want: []verifyd.Reason{verifyd.ReasonExpiredID}, degrade: mild, fields: func(f *mrz.Fields) {
		f.ExpiryDate = mrz.Date{Year: docNow.Year() - 1, Month: 2, Day: 11}
	}},
	// Added 2026-11-25 at the end, so that the cases above keep their
	// seeds (a case's documents come from its place in this list).
	{name: "genuine, held at an angle (camera pose ≤ 30°, other printer)", want: approved, degrade: func(r *rand.Rand) docgen.Degrade {
		d := docgen.Mild()
		d.Printer, d.Rotate, d.Tilt = true, 20, 30
		return d
	}},
	{name: "genuine, bent page, lens distortion, shadow", want: approved, degrade: func(r *rand.Rand) docgen.Degrade {
		d := docgen.Mild()
		d.Printer, d.Rotate, d.Bend, d.Barrel, d.Shadow = true, 10, 2, 0.08, true
		return d
	}},
	// Every degradation at once, as mrzread's "everything" set: the photos
	// the reader handles worst (docs/accuracy.md, "MRZ reading").
	{name: "genuine, everything at once", want: approved, degrade: func(r *rand.Rand) docgen.Degrade {
		d := docgen.Mild()
		d.Printer = true
		d.Denoise, d.Sharpen, d.JPEGQuality = 0.3+0.7*r.Float64(), 0.5+r.Float64(), 50+r.IntN(46)
		d.Rotate, d.Perspective, d.Bend, d.Barrel = 20, 0.08, 2, 0.08
		d.Blur, d.MotionBlur = 0.5+r.Float64(), 4
		d.Shadow, d.LowLight, d.Glare = r.IntN(2) == 0, r.IntN(3) == 0, r.IntN(4) == 0
		return d
	}},
	// Added 2026-12-01. A surname one unlike letter from the MRZ's is
	// another name, but one letter in five or six is too little to accuse
	// (misreads): review is right, approval is the wrong outcome.
	{name: "forged: a sibling surname, one letter changed", want: []verifyd.Reason{"review", verifyd.ReasonPotentialFraud},
		degrade: mild, forge: forgeSurnameLetter},
}

// docType is the type a holder of f declares.
func docType(f mrz.Fields) verifyd.DocumentType {
	switch {
	case f.Format == mrz.TD3:
		return verifyd.DocPassport
	case f.DocumentCode == "IR":
		return verifyd.DocResidencePermit
	}
	return verifyd.DocIDCard
}

// TestDocumentDecisions runs the document checks of the production
// pipeline (decode, MRZ, visual zone) on generated documents, genuine and
// forged, photographed in several ways, and checks the decisions: no
// wrong approval ever, and floors for genuine approvals. `go test -run
// TestDocumentDecisions -v ./internal/app -args -docs.n 10` prints the
// table of docs/accuracy.md.
func TestDocumentDecisions(t *testing.T) {
	if _, err := docgen.OCRB(); err != nil {
		if errors.Is(err, docgen.ErrNoFont) {
			testdb.Skip(t, err.Error())
		}
		t.Fatal(err)
	}
	tess := testserver.OCR(t)
	n := *docEvalN
	if n == 0 {
		n = 2
		if testing.Short() {
			n = 1
		}
	}
	checks := app.ProductionChecks(nil, nil, nil, engine.FaceThresholds{}, tess)[:3] // decode, document, visual zone
	p := engine.NewPipeline(checks...)
	p.Timeout = evalCheckTimeout
	formats := []mrz.Format{mrz.TD3, mrz.TD1, mrz.TD2}
	results := make([]decisionTally, len(docCases))
	ctx := context.Background()
	for ci, c := range docCases {
		if *docEvalOnly != "" && !strings.Contains(c.name, *docEvalOnly) {
			continue
		}
		g := docgen.NewGenerator(uint64(1000+ci), docNow)
		g.MinorRate, g.ExpiredRate = 0, 0
		r := rand.New(rand.NewPCG(uint64(ci), 7))
		tl := &results[ci]
		for i := range n {
			f := formats[(i+ci)%len(formats)]
			if c.apart {
				f = mrz.TD1
			}
			spec := g.Spec(f)
			if c.fields != nil {
				c.fields(&spec.Fields)
			}
			if c.forge != nil {
				lines, err := mrz.Compose(spec.Fields)
				if err != nil {
					t.Fatal(err)
				}
				spec.Lines = lines
				c.forge(&spec.Fields, r)
			}
			spec.Licence, spec.DateStyle, spec.Labels = c.licence, c.style, c.labels
			doc, err := docgen.Render(spec)
			if err != nil {
				t.Fatal(err)
			}
			ph, err := docgen.Photograph(doc, c.degrade(r), spec.Seed)
			if err != nil {
				t.Fatal(err)
			}
			b := ph.JPEG
			if b == nil {
				t.Fatal("the photo is not a JPEG")
			}
			fields := spec.Fields
			if c.forge != nil {
				fields, _ = mrz.Parse(spec.Lines)
			}
			declared := docType(fields)
			if c.licence {
				declared = verifyd.DocDriverLicense
			}
			in := &engine.Input{DocumentType: declared, Country: alpha3Lower(fields.IssuingState),
				Now: docNow, Environment: verifyd.EnvProduction, Facts: map[string]any{},
				Front: &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: b}}
			if c.apart {
				back, err := docgen.Photograph(doc, c.degrade(r), spec.Seed+1)
				if err != nil {
					t.Fatal(err)
				}
				in.Back = &engine.Image{Kind: verifyd.ImageDocumentBack, Bytes: back.JPEG}
			}
			d, err := p.Run(ctx, in)
			if err != nil {
				t.Fatalf("%s #%d: %v", c.name, i, err)
			}
			got := outcome(d)
			if (*docEvalDump || *docEvalSave != "") && (got == "review" || !slices.Contains(c.want, got)) {
				t.Logf("%s #%d (%s, MRZ %v): %s", c.name, i, got, spec.Lines, lastDetail(d))
				if *docEvalSave != "" {
					saveMiss(t, *docEvalSave, fmt.Sprintf("case%02d-%d", ci, i), in)
				}
				logReadings(t, d)
			}
			tl.add(c.want, got, ": "+lastDetail(d))
		}
	}
	names := make([]string, len(docCases))
	for ci, c := range docCases {
		names[ci] = c.name
	}
	logTable(t, names, results)
	var genuine, genuineRight, wrongApprovals, accused, forged, forgedCaught int
	for ci, c := range docCases {
		tl := results[ci]
		if c.want[0] == "approved" {
			genuine += tl.n
			genuineRight += tl.right
		}
		if c.forge != nil {
			forged += tl.n
			forgedCaught += tl.right
		}
		wrongApprovals += tl.approvedWrongly
		accused += tl.accused
	}
	if wrongApprovals > 0 {
		t.Errorf("%d forged, minor or expired documents were approved", wrongApprovals)
	}
	if accused > 0 {
		t.Errorf("%d genuine documents were failed as forged, a minor's, expired or invalid", accused)
	}
	// Floors below what was measured (docs/accuracy.md: 95 % of genuine
	// documents approved, 77 % of forged ones failed as potential_fraud,
	// the rest reviewed), so that a regression fails the build.
	if 10*genuineRight < 8*genuine {
		t.Errorf("genuine documents approved: %d of %d (< 80 %%)", genuineRight, genuine)
	}
	if 2*forgedCaught < forged {
		t.Errorf("forged documents failed as potential_fraud: %d of %d (< 50 %%)", forgedCaught, forged)
	}
}

// saveMiss writes the document photos of a submission into dir, as
// NAME-front.jpg and NAME-back.jpg.
func saveMiss(t *testing.T, dir, name string, in *engine.Input) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for side, im := range map[string]*engine.Image{"front": in.Front, "back": in.Back} {
		if im == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-"+side+".jpg"), im.Bytes, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lastDetail is the detail of the decision's last check, shortened.
func lastDetail(d engine.Decision) string {
	if len(d.Results) == 0 {
		return ""
	}
	last := d.Results[len(d.Results)-1]
	for _, r := range d.Results {
		if r.Outcome == engine.Review && d.Review {
			last = r
			break
		}
	}
	s := last.Check + ": " + last.Detail
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
