package app_test

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/ocr/tesswasm"
)

// BenchmarkDecision times the whole automated decision of one submission
// as the production pipeline makes it (decode, MRZ, quality when reading
// fails, visual zone by Tesseract, faces, liveness; no database checks):
// a passport data page composed around a sample person's portrait,
// photographed at 12 MP (4000×3000, docgen.Mild, JPEG), and a 720×960
// selfie of the same person; OCR by the tesseract program and by its
// WebAssembly build in process. Reported: ms/op and the p50/p95 of the
// runs. For one core:
//
//	taskset -c 1 go test ./internal/app -run '^$' -bench Decision -cpu 1 -benchtime 20x
func BenchmarkDecision(b *testing.B) {
	b.Run("tesseract", func(b *testing.B) { benchDecision(b, testserver.OCR(b)) })
	b.Run("wasm", func(b *testing.B) {
		eng, err := tesswasm.Load(context.Background(), filepath.Join(testdb.RepoRoot(b), "models", "tesseract"), 1)
		if errors.Is(err, ocr.ErrUnavailable) {
			testdb.Skip(b, err.Error())
		}
		if err != nil {
			b.Fatal(err)
		}
		defer eng.Close(context.Background())
		benchDecision(b, eng)
	})
}

func benchDecision(b *testing.B, text ocr.Engine) {
	person := facetest.People(b)[2]
	models := facetest.Models(b)
	g := docgen.NewGenerator(99, docNow)
	g.MinorRate, g.ExpiredRate = 0, 0
	spec := g.Spec(mrz.TD3)
	spec.Face = person.Portrait()
	doc, err := docgen.Render(spec)
	if err != nil {
		b.Fatal(err)
	}
	d := docgen.Mild()
	d.Width, d.Height, d.MinScale, d.MaxScale = 4000, 3000, 0.6, 0.8
	ph, err := docgen.Photograph(doc, d, 5)
	if err != nil {
		b.Fatal(err)
	}
	var selfie bytes.Buffer
	if err := jpeg.Encode(&selfie, person.Selfie(), &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	p := app.ProductionPipeline(nil, nil, models, engine.FaceThresholds{}, text)
	ctx := context.Background()
	var times []time.Duration
	var last engine.Decision
	b.ResetTimer()
	for range b.N {
		in := &engine.Input{DocumentType: verifyd.DocPassport, Country: alpha3Lower(spec.Fields.IssuingState), Now: docNow,
			Environment: verifyd.EnvProduction, Facts: map[string]any{},
			Front:  &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: ph.JPEG},
			Selfie: &engine.Image{Kind: verifyd.ImageSelfie, Bytes: selfie.Bytes()}}
		start := time.Now()
		last, err = p.Run(ctx, in)
		times = append(times, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if last.Review || last.Status != verifyd.StatusApproved {
		for _, r := range last.Results {
			b.Logf("%s %s %s", r.Check, r.Outcome, r.Detail)
		}
		b.Fatalf("the genuine submission was not approved: %s", last.Summary())
	}
	for _, r := range last.Results {
		b.ReportMetric(float64(r.Millis), r.Check+"-ms")
	}
	b.ReportMetric(float64(percentile(times, 50).Milliseconds()), "p50-ms")
	b.ReportMetric(float64(percentile(times, 95).Milliseconds()), "p95-ms")
}

func percentile(ts []time.Duration, p int) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// alpha3Lower is the country a holder of a document issued by state
// declares (SPEC's lowercase alpha-3; Germany is "D" in MRZs).
func alpha3Lower(state string) string {
	if state == "D" {
		return "deu"
	}
	return strings.ToLower(state)
}
