package faceeval_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/jpeg"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	verifyd "github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/faceeval"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
)

var (
	e2eAll     = flag.Bool("faces.e2e", false, "TestEndToEndDecisions: every pair (default: a few, for CI)")
	e2ePerSelf = flag.Int("faces.e2e.per", 14, "TestEndToEndDecisions with -faces.e2e: most ordered photo pairs per person")
	e2eMatch   = flag.Float64("faces.e2e.match", 0, "TestEndToEndDecisions: another match distance than the default, for comparison")
)

// portraitSource reports whether a photograph is large enough to be the
// source of a document's printed portrait. Issuers print from portraits
// with at least 90 px between the eyes (ISO/IEC 19794-5, which ICAO 9303
// refers to); the screenshot cells of human's face-match demo, 106×110 px
// with ~25 px between the eyes, are not, and printing them and
// photographing the print again measures the print, not the person (one
// such pair measured 0.812, past the mismatch distance). They stay in
// the evaluation as selfies.
func portraitSource(p faceeval.Photo) bool {
	b := p.Image.Bounds()
	return min(b.Dx(), b.Dy()) >= 200
}

// sittings groups photos by person, one photograph per session, in the
// order of photos: videos are one sitting, and group pictures are
// impostors only.
func sittings(photos []faceeval.Photo) (persons []string, byPerson map[string][]faceeval.Photo) {
	byPerson = map[string][]faceeval.Photo{}
	seen := map[string]bool{}
	for _, ph := range photos {
		if ph.Group || strings.Contains(ph.Name, ".webm@") || strings.HasPrefix(ph.Name, "franck_") || seen[ph.Session] {
			continue
		}
		seen[ph.Session] = true
		if byPerson[ph.Person] == nil {
			persons = append(persons, ph.Person)
		}
		byPerson[ph.Person] = append(byPerson[ph.Person], ph)
	}
	return persons, byPerson
}

// general drops the measured values from a check's detail, "(distance
// 0.52 between 0.49 and 0.78)", so that alike reasons are counted together.
func general(why string) string {
	return strings.TrimSpace(parenthesised.ReplaceAllString(why, ""))
}

var parenthesised = regexp.MustCompile(` \([^)]*\)`)

// e2eNow is "today" of the end-to-end evaluation, fixed so the generated
// documents are the same on every run.
var e2eNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// TestEndToEndDecisions runs the whole production pipeline (decode, MRZ,
// visual zone by Tesseract, face match, liveness, the active challenge's
// pass-through for direct submissions) on submissions built from real
// photographs of one person taken at different times: the document's
// portrait is cut from one photograph and printed on a generated passport
// or ID card of an adult, photographed as docgen.Mild; the selfie is
// another photograph of the same person (genuine, should be approved) or
// of someone else (impostor, must never be approved). It asserts that no
// impostor is approved and that genuine submissions are not failed; with
// -faces.e2e it prints the table of docs/accuracy.md ("End to end").
//
//	go test -count=1 -run TestEndToEndDecisions -v ./internal/faceeval -args -faces.e2e
func TestEndToEndDecisions(t *testing.T) {
	tess := &ocr.Tesseract{Resident: 4} // as serve and inspect run it
	if _, err := tess.Available(context.Background()); err != nil {
		if errors.Is(err, ocr.ErrUnavailable) {
			testdb.Skip(t, err.Error())
		}
		t.Fatal(err)
	}
	defer tess.Close()
	if _, err := docgen.OCRB(); err != nil {
		if errors.Is(err, docgen.ErrNoFont) {
			testdb.Skip(t, err.Error())
		}
		t.Fatal(err)
	}
	m := facetest.Models(t)
	ctx := context.Background()
	th := engine.DefaultFaceThresholds
	if *e2eMatch > 0 {
		th.MatchDistance = *e2eMatch
	}
	p := engine.NewPipeline(app.ProductionChecks(nil, nil, m, th, tess)...)

	persons, byPerson := sittings(namedPhotos(t))

	type sub struct{ doc, selfie faceeval.Photo }
	var genuine, impostor []sub
	per := *e2ePerSelf
	if !*e2eAll {
		per = 1
	}
	for _, person := range persons {
		ps := byPerson[person]
		if len(ps) < 2 {
			continue
		}
		// Spread the pairs over the person's photographs: every photograph
		// once as the document against its next, then its next but one…
		k := 0
		for off := 1; off < len(ps) && k < per; off++ {
			for i := 0; i < len(ps) && k < per; i++ {
				if !portraitSource(ps[i]) {
					continue
				}
				genuine = append(genuine, sub{doc: ps[i], selfie: ps[(i+off)%len(ps)]})
				k++
			}
		}
	}
	// The impostors: every genuine submission's document with a selfie of
	// someone else, spread over everyone photographed (people with one
	// photograph too).
	var pool []faceeval.Photo
	for _, person := range persons {
		pool = append(pool, byPerson[person]...)
	}
	for gi, s := range genuine {
		for k := 0; k < len(pool); k++ {
			if o := pool[(gi*7+3+k)%len(pool)]; o.Person != s.doc.Person {
				impostor = append(impostor, sub{doc: s.doc, selfie: o})
				break
			}
		}
	}
	if !*e2eAll {
		genuine, impostor = genuine[:min(4, len(genuine))], impostor[:min(4, len(impostor))]
	}

	g := docgen.NewGenerator(2026, e2eNow)
	g.MinorRate, g.ExpiredRate = 0, 0
	formats := []mrz.Format{mrz.TD3, mrz.TD1, mrz.TD2}
	n := 0
	run := func(s sub) (string, string) {
		n++
		docImg := faceeval.Frame(s.doc.Image, 2, 400)
		faces, err := m.Faces(ctx, docImg)
		if err != nil {
			t.Fatal(err)
		}
		faces = engine.DefaultFaceThresholds.Usable(faces)
		if len(faces) == 0 {
			return "", ""
		}
		b := docImg.Bounds()
		centre := func(f engine.Face) float64 {
			return math.Hypot(float64(f.Box.Min.X+f.Box.Max.X-b.Min.X-b.Max.X), float64(f.Box.Min.Y+f.Box.Max.Y-b.Min.Y-b.Max.Y))
		}
		face := slices.MinFunc(faces, func(a, b engine.Face) int { return cmp.Compare(centre(a), centre(b)) })
		spec := g.Spec(formats[n%len(formats)])
		spec.Face = facetest.Person{Name: s.doc.Name, Box: face.Box, Photo: docImg}.Portrait()
		doc, err := docgen.Render(spec)
		if err != nil {
			t.Fatal(err)
		}
		ph, err := docgen.Photograph(doc, docgen.Mild(), spec.Seed)
		if err != nil {
			t.Fatal(err)
		}
		var selfie bytes.Buffer
		if err := jpeg.Encode(&selfie, faceeval.Frame(s.selfie.Image, 2, 400), &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		declared := verifyd.DocIDCard
		switch {
		case spec.Fields.Format == mrz.TD3:
			declared = verifyd.DocPassport
		case spec.Fields.DocumentCode == "IR":
			declared = verifyd.DocResidencePermit
		}
		country := strings.ToLower(spec.Fields.IssuingState)
		if country == "d" {
			country = "deu"
		}
		in := &engine.Input{DocumentType: declared, Country: country, Now: e2eNow,
			Environment: verifyd.EnvProduction, Facts: map[string]any{},
			Front:  &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: ph.JPEG},
			Selfie: &engine.Image{Kind: verifyd.ImageSelfie, Bytes: selfie.Bytes()}}
		d, err := p.Run(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		// Why: the checks that did not pass, in order.
		var whys []string
		for _, r := range d.Results {
			if r.Outcome != engine.Pass {
				whys = append(whys, r.Check+": "+r.Detail)
			}
		}
		why := strings.Join(whys, "; ")
		switch {
		case d.Review:
			return "review", why
		case d.Status == verifyd.StatusFailed:
			return string(d.Reason), why
		}
		return "approved", ""
	}

	type tally struct {
		n, approved, review, failed int
		why                         map[string]int
	}
	count := func(kind string, subs []sub) tally {
		tl := tally{why: map[string]int{}}
		for _, s := range subs {
			got, why := run(s)
			if got == "" {
				t.Logf("%s: no face on %s to print on the document", kind, s.doc.Name)
				continue
			}
			tl.n++
			switch got {
			case "approved":
				tl.approved++
			case "review":
				tl.review++
				tl.why["review — "+general(why)]++
			default:
				tl.failed++
				tl.why[got+" — "+general(why)]++
			}
			if testing.Verbose() && (got != "approved") == (kind == "genuine") {
				t.Logf("%s: document %s, selfie %s: %s %s", kind, s.doc.Name, s.selfie.Name, got, why)
			}
			if kind == "impostor" && got == "approved" {
				t.Errorf("impostor approved: document of %s, selfie of %s", s.doc.Name, s.selfie.Name)
			}
			if kind == "genuine" && got != "approved" && got != "review" {
				t.Errorf("genuine submission failed (%s): document of %s, selfie of %s: %s", got, s.doc.Name, s.selfie.Name, why)
			}
		}
		return tl
	}
	start := time.Now()
	var tb strings.Builder
	fmt.Fprintln(&tb, "| submissions | n | approved | review | failed |")
	fmt.Fprintln(&tb, "|---|---:|---:|---:|---:|")
	for _, k := range []struct {
		kind string
		subs []sub
	}{{"genuine", genuine}, {"impostor", impostor}} {
		tl := count(k.kind, k.subs)
		fmt.Fprintf(&tb, "| %s | %d | %d | %d | %d |\n", k.kind, tl.n, tl.approved, tl.review, tl.failed)
		// A floor below the 18 of 22 measured (docs/accuracy.md), so that
		// a change that sends genuine submissions back to review fails;
		// with the default match distance only.
		if k.kind == "genuine" && *e2eAll && *e2eMatch == 0 && 10*tl.approved < 7*tl.n {
			t.Errorf("genuine submissions approved: %d of %d (< 70 %%)", tl.approved, tl.n)
		}
		keys := make([]string, 0, len(tl.why))
		for w := range tl.why {
			keys = append(keys, w)
		}
		sort.Strings(keys)
		for _, w := range keys {
			fmt.Fprintf(&tb, "    %d× %s\n", tl.why[w], w)
		}
	}
	t.Logf("%d submissions built (those without a face to print are not counted in the table) in %s\n%s", n, time.Since(start).Round(time.Second), tb.String())
}
