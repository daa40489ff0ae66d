package app_test

import (
	"context"
	"slices"
	"testing"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestPortraitOnDocumentFarAway checks that the face check finds the
// portrait of a passport that fills little of a 12 MP photo: the
// detector, which sees the whole photo at a fixed size, misses a face of
// one or two of its cells, and the check looks again where the MRZ's page
// lies (engine.FaceMatchCheck, portraitRegion). On independently
// generated documents with real portraits this sent 9 of 54 genuine
// submissions to review as "no face found on the document"
// (docs/accuracy.md, twenty-first pass).
func TestPortraitOnDocumentFarAway(t *testing.T) {
	models := facetest.Models(t)
	ctx := context.Background()
	ph, selfie, spec := cagePassport(t, models, 7, 3, 0.3, 0.3)
	// The premise: on the whole photo the detector finds no usable face.
	whole, err := models.Faces(ctx, ph.Image)
	if err != nil {
		t.Fatal(err)
	}
	if got := engine.DefaultFaceThresholds.Usable(whole); len(got) > 0 {
		t.Fatalf("the detector found the portrait on the whole photo (%v): the test needs a smaller document", got[0].Box)
	}
	p := app.ProductionPipeline(nil, nil, models, engine.FaceThresholds{}, testserver.OCR(t))
	dec, err := p.Run(ctx, passportInput(spec, ph.JPEG, selfie))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(dec.Results, func(r engine.Result) bool { return r.Check == "face" })
	if i < 0 {
		t.Fatalf("no face check ran: %s", dec.Summary())
	}
	r := dec.Results[i]
	t.Logf("%s: %s %s", dec.Summary(), r.Outcome, r.Detail)
	if _, ok := r.Evidence["document_region"]; !ok {
		t.Errorf("the face check did not look again where the document lies: %s", r.Detail)
	}
	if dist, ok := r.Evidence["distance"].(float64); !ok || dist >= engine.DefaultFaceThresholds.MismatchDistance {
		t.Errorf("the portrait was not found and compared (distance %v): %s", r.Evidence["distance"], r.Detail)
	}
}
