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

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/htmldoc"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mrz"
)

var (
	htmlEvalN    = flag.Int("html.n", 0, "TestDocumentDecisionsHTML: documents per case (default: the quick subset)")
	htmlEvalSeed = flag.Int("html.seed", 0, "TestDocumentDecisionsHTML: seed range (another range gives other documents and layouts per case)")
	htmlEvalDump = flag.Bool("html.dump", false, "TestDocumentDecisionsHTML: log what was read for every wrong or review decision")
	htmlEvalOnly = flag.String("html.case", "", "TestDocumentDecisionsHTML: run only the cases whose name contains this")
	htmlEvalSave = flag.String("html.save", "", "TestDocumentDecisionsHTML: log as -html.dump does and write the photos and HTML of every wrong or review decision into this directory")
)

// htmlCase is one kind of document of the HTML evaluation.
type htmlCase struct {
	name    string
	want    []verifyd.Reason
	forge   func(f *mrz.Fields, r *rand.Rand)
	fields  func(f *mrz.Fields)
	degrade func(r *rand.Rand) docgen.Degrade
	licence bool
	// quick marks the cases of the default run (one document each): the
	// ones that must never be approved, and one genuine document.
	quick bool
}

var htmlCases = []htmlCase{
	{name: "genuine, mild", want: approved, degrade: mild, quick: true},
	{name: "genuine, tilted 12–20°", want: approved, degrade: tilted20},
	{name: "genuine, phone processing", want: approved, degrade: phoneProcessing},
	{name: "genuine, low light", want: approved, degrade: lowLight},
	{name: "forged: printed minor birth date", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild, forge: forgeMinorBirth, quick: true},
	{name: "forged: another printed expiry date", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild, forge: forgeExpiry, quick: true},
	{name: "forged: another printed number", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild, forge: forgeNumber},
	{name: "forged: another printed surname", want: []verifyd.Reason{verifyd.ReasonPotentialFraud}, degrade: mild, forge: forgeSurname},
	{name: "minor", want: []verifyd.Reason{verifyd.ReasonMinor}, degrade: mild, quick: true, fields: func(f *mrz.Fields) {
		f.BirthDate = mrz.Date{Year: docNow.Year() - 16, Month: 3, Day: 9}
	}},
	{name: "expired", want: []verifyd.Reason{verifyd.ReasonExpiredID}, degrade: mild, quick: true, fields: func(f *mrz.Fields) {
		f.ExpiryDate = mrz.Date{Year: docNow.Year() - 1, Month: 2, Day: 11}
	}},
	{name: "driving licence, adult, current", want: []verifyd.Reason{"review"}, degrade: mild, licence: true},
	{name: "driving licence, minor", want: []verifyd.Reason{verifyd.ReasonMinor}, degrade: mild, licence: true, quick: true, fields: func(f *mrz.Fields) {
		f.BirthDate = mrz.Date{Year: docNow.Year() - 17, Month: 10, Day: 2}
	}},
	{name: "driving licence, expired", want: []verifyd.Reason{verifyd.ReasonExpiredID}, degrade: mild, licence: true, fields: func(f *mrz.Fields) {
		f.ExpiryDate = mrz.Date{Year: docNow.Year() - 2, Month: 7, Day: 19}
	}},
}

// TestDocumentDecisionsHTML runs the document checks of the production
// pipeline, as TestDocumentDecisions does, on documents of another
// renderer (internal/htmldoc: layouts after real designs, drawn by
// Chromium), which nothing in the readers was fitted to. By default one
// document of the cases that must never be approved, and one genuine;
// `go test -count=1 -run TestDocumentDecisionsHTML -v ./internal/app -args
// -html.n 10` prints the table of docs/accuracy.md ("Documents from
// another renderer"), and -html.seed 1 the same on other documents.
func TestDocumentDecisionsHTML(t *testing.T) {
	tess := testserver.OCR(t)
	rd, err := htmldoc.Start()
	if errors.Is(err, htmldoc.ErrNoBrowser) {
		testdb.Skip(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	n, quick := *htmlEvalN, false
	if n == 0 {
		n, quick = 1, true
	}
	seed := *htmlEvalSeed
	checks := app.ProductionChecks(nil, nil, nil, engine.FaceThresholds{}, tess)[:3] // decode, document, visual zone
	p := engine.NewPipeline(checks...)
	p.Timeout = evalCheckTimeout
	results := make([]decisionTally, len(htmlCases))
	ctx := context.Background()
	for ci, c := range htmlCases {
		if quick && !c.quick || *htmlEvalOnly != "" && !strings.Contains(c.name, *htmlEvalOnly) {
			continue
		}
		g := docgen.NewGenerator(uint64(7000+100*seed+ci), docNow)
		g.MinorRate, g.ExpiredRate = 0, 0
		r := rand.New(rand.NewPCG(uint64(ci), uint64(11+seed)))
		tl := &results[ci]
		names := htmldoc.Layouts
		if c.licence {
			names = htmldoc.LicenceLayouts
		}
		for i := range n {
			layout := names[(i+3*ci+7*seed)%len(names)]
			format := htmldoc.Format(layout)
			if format == 0 {
				format = mrz.TD1
			}
			fields, err := htmldoc.Normalize(layout, g.Fields(format))
			if err != nil {
				t.Fatal(err)
			}
			if c.fields != nil {
				c.fields(&fields)
			}
			spec := htmldoc.Spec{Layout: layout, Fields: fields, Seed: g.Uint64()}
			genuine := fields
			if c.forge != nil {
				if spec.Lines, err = mrz.Compose(fields); err != nil {
					t.Fatal(err)
				}
				c.forge(&spec.Fields, r)
			}
			doc, err := rd.Render(spec)
			if err != nil {
				t.Fatal(err)
			}
			d := c.degrade(r)
			front, err := docgen.Photograph(doc.Front, d, spec.Seed)
			if err != nil {
				t.Fatal(err)
			}
			declared := docType(genuine)
			if c.licence {
				declared = verifyd.DocDriverLicense
			}
			in := &engine.Input{DocumentType: declared, Country: alpha3Lower(genuine.IssuingState),
				Now: docNow, Environment: verifyd.EnvProduction, Facts: map[string]any{},
				Front: &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: front.JPEG}}
			if doc.Back != nil {
				back, err := docgen.Photograph(doc.Back, d, spec.Seed+1)
				if err != nil {
					t.Fatal(err)
				}
				in.Back = &engine.Image{Kind: verifyd.ImageDocumentBack, Bytes: back.JPEG}
			}
			dec, err := p.Run(ctx, in)
			if err != nil {
				t.Fatalf("%s #%d: %v", c.name, i, err)
			}
			got := outcome(dec)
			miss := !slices.Contains(c.want, got)
			if (*htmlEvalDump || *htmlEvalSave != "") && miss {
				t.Logf("%s #%d [%s] (%s): %s", c.name, i, layout, got, lastDetail(dec))
				if *htmlEvalSave != "" {
					name := fmt.Sprintf("html%d-case%02d-%d-%s", seed, ci, i, layout)
					saveMiss(t, *htmlEvalSave, name, in)
					if err := os.WriteFile(filepath.Join(*htmlEvalSave, name+".html"), []byte(doc.HTML), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				logReadings(t, dec)
			}
			tl.add(c.want, got, " ["+layout+"]: "+lastDetail(dec))
		}
	}
	names := make([]string, len(htmlCases))
	var wrongApprovals, accused int
	for ci, c := range htmlCases {
		names[ci] = c.name
		wrongApprovals += results[ci].approvedWrongly
		accused += results[ci].accused
	}
	logTable(t, names, results)
	// The one floor: whatever the layout, a document whose printed or
	// encoded data says minor, expired or altered is never approved.
	if wrongApprovals > 0 {
		t.Errorf("%d forged, minor or expired documents were approved", wrongApprovals)
	}
	if accused > 0 {
		t.Errorf("%d genuine documents were failed as forged, a minor's, expired or invalid", accused)
	}
}
