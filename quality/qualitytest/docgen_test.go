package qualitytest_test

import (
	"context"
	"errors"
	"image"
	"os"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/quality/qualitytest"
)

// render renders a document of format f, skipping the test when the OCR-B
// font is not installed (failing under VERIFYD_TEST_REQUIRE_ALL=1).
func render(t *testing.T, g *docgen.Generator, f mrz.Format) *docgen.Document {
	t.Helper()
	doc, err := docgen.Render(g.Spec(f))
	if errors.Is(err, docgen.ErrNoFont) && os.Getenv("VERIFYD_TEST_REQUIRE_ALL") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// truth is the bounding box of the photographed document's corners.
func truth(ph *docgen.Photo) image.Rectangle {
	var r image.Rectangle
	for n, c := range ph.Corners {
		p := image.Rect(int(c.X), int(c.Y), int(c.X)+1, int(c.Y)+1)
		if n == 0 {
			r = p
		}
		r = r.Union(p)
	}
	return r.Intersect(ph.Image.Bounds())
}

func logMetrics(t *testing.T, label string, ph *docgen.Photo) {
	t.Helper()
	r, found := quality.DocumentRegion(ph.Image)
	m := quality.Measure(ph.Image, r)
	t.Logf("%-16s found %-5v IoU %.3f sharpness %5.1f (raw %6.1f) mean %5.1f dark %.3f bright %.3f glare %.4f largest %.4f blobs %d",
		label, found, qualitytest.IoU(r, truth(ph)), m.Sharpness, m.RawSharpness, m.Mean, m.Dark, m.Bright, m.Glare, m.LargestGlare, m.GlareBlobs)
}

// TestQualityCheckOnDocgen runs the default quality check over realistic
// renderings: clean and mild phone photos pass, heavy ones fail.
func TestQualityCheckOnDocgen(t *testing.T) {
	t.Parallel()
	g := docgen.NewGenerator(11, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	check := engine.NewQualityCheck()
	for i, f := range []mrz.Format{mrz.TD1, mrz.TD3, mrz.TD2} {
		doc := render(t, g, f)
		for _, tc := range []struct {
			name string
			d    docgen.Degrade
			pass bool
		}{{"none", docgen.Degrade{}, true}, {"mild", docgen.Mild(), true}, {"heavy", docgen.Heavy(), false}} {
			if tc.name == "none" && i > 0 {
				continue
			}
			ph, err := docgen.Photograph(doc, tc.d, uint64(100+i))
			if err != nil {
				t.Fatal(err)
			}
			logMetrics(t, f.String()+" "+tc.name, ph)
			r := check.Run(context.Background(), &engine.Input{Front: &engine.Image{Kind: verifyd.ImageDocumentFront, Image: ph.Image}})
			if pass := r.Outcome == engine.Pass; pass != tc.pass || (!pass && r.Reason != verifyd.ReasonPoorIDScanError) {
				t.Errorf("%s %s: %s %s: %s", f, tc.name, r.Outcome, r.Reason, r.Detail)
			}
		}
	}
}

// TestCalibrateDocgen prints the metrics of many docgen photos
// (QUALITY_CALIBRATE=1), to recalibrate engine.QualityCheck's defaults.
func TestCalibrateDocgen(t *testing.T) {
	if os.Getenv("QUALITY_CALIBRATE") == "" {
		t.Skip("set QUALITY_CALIBRATE=1 to print the calibration table")
	}
	g := docgen.NewGenerator(7, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	mildGlare := docgen.Mild()
	mildGlare.Glare = true
	for i, f := range []mrz.Format{mrz.TD1, mrz.TD3, mrz.TD2, mrz.TD1, mrz.TD3, mrz.TD1, mrz.TD2, mrz.TD1, mrz.TD3, mrz.TD1} {
		doc := render(t, g, f)
		for _, name := range []string{"none", "mild", "heavy", "glare", "mildglare"} {
			d := map[string]docgen.Degrade{"none": {}, "mild": docgen.Mild(), "heavy": docgen.Heavy(), "glare": {Glare: true}, "mildglare": mildGlare}[name]
			ph, err := docgen.Photograph(doc, d, uint64(i))
			if err != nil {
				t.Fatal(err)
			}
			logMetrics(t, f.String()+" "+name, ph)
		}
	}
}
