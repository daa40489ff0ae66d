package viz_test

import (
	"math"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/viz"
)

// TestEstimateSkew photographs generated documents turned by known angles
// and checks the estimate within 3° (Tesseract levels the rest itself).
func TestEstimateSkew(t *testing.T) {
	if _, err := docgen.OCRB(); err != nil {
		t.Skip(err) // the font is checked where documents are read (mrzread)
	}
	g := docgen.NewGenerator(3, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for i, f := range []mrz.Format{mrz.TD1, mrz.TD3, mrz.TD2, mrz.TD1, mrz.TD3, mrz.TD1} {
		spec := g.Spec(f)
		spec.Licence = i == 5
		doc, err := docgen.Render(spec)
		if err != nil {
			t.Fatal(err)
		}
		d := docgen.Mild()
		d.Rotate = 20
		ph, err := docgen.Photograph(doc, d, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		rect, _ := quality.DocumentRegion(ph.Image)
		got := viz.EstimateSkew(ph.Image, rect, 25)
		if math.Abs(got-ph.Angle) > 3 {
			t.Errorf("#%d %v: estimated %.1f°, photographed at %.1f°", i, f, got, ph.Angle)
		}
	}
}
