package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
)

func (e *env) inspect(ctx context.Context, args []string) error {
	fs := e.flags("inspect", "inspect --type T --country C --front FILE [--back FILE] [--selfie FILE]",
		lines("Runs the production verification pipeline on image files and prints JSON with the decision,",
			"the reason and every check's evidence (the MRZ fields read included). It is how operators debug",
			"a decision. The consistency check, which compares with other customers' submissions in the",
			"database, is not run. Without --selfie the selfie-dependent checks see no selfie. The face and",
			"liveness checks run when the models are in --models-dir (verifyd models fetch); otherwise they",
			"say review."))
	docType := fs.String("type", "Passport", "document type: IdCard, DriverLicense, Passport or ResidencePermit")
	country := fs.String("country", "", `the declared issuing country, lowercase 3 letters such as "gbr" (required)`)
	front := fs.String("front", "", "photo of the document's front (required)")
	back := fs.String("back", "", "photo of the document's back")
	selfie := fs.String("selfie", "", "photo of the holder's face")
	modelsDir := e.modelsDirFlag(fs, "models-dir")
	ocrMode := e.ocrFlag(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *front == "" || *country == "" || !verifyd.DocumentType(*docType).Valid() {
		fmt.Fprintln(e.stderr, "verifyd inspect: --front, --country and a valid --type are required")
		return ErrUsage
	}
	// What runs is said on stderr, as serve logs it; stdout stays JSON.
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	faces, err := loadFaceModels(logger, *modelsDir)
	if err != nil {
		return err
	}
	in := &engine.Input{DocumentType: verifyd.DocumentType(*docType), Country: *country, Now: e.now().UTC(),
		Environment: verifyd.EnvProduction, Facts: map[string]any{}}
	for _, f := range []struct {
		path string
		kind verifyd.ImageKind
		dst  **engine.Image
	}{{*front, verifyd.ImageDocumentFront, &in.Front}, {*back, verifyd.ImageDocumentBack, &in.Back}, {*selfie, verifyd.ImageSelfie, &in.Selfie}} {
		if f.path == "" {
			continue
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			return err
		}
		*f.dst = &engine.Image{Kind: f.kind, Bytes: b}
	}
	start := time.Now()
	text, err := loadOCR(ctx, logger, *ocrMode, *modelsDir)
	if err != nil {
		return err
	}
	if c, ok := text.(io.Closer); ok {
		defer c.Close() // the programs kept running (ocr.Tesseract.Resident)
	}
	d, err := app.ProductionPipeline(nil, nil, faces, engine.FaceThresholds{}, text).Run(ctx, in)
	out := struct {
		Decision string         `json:"decision"`
		Reason   verifyd.Reason `json:"reason"`
		// Why is the deciding check's explanation: the failure, or every
		// reason for review.
		Why   []string `json:"why,omitempty"`
		Error string   `json:"error,omitempty"`
		// MRZ and Printed are what was read from the two zones (also in
		// the results' evidence).
		MRZ     any             `json:"mrz,omitempty"`
		Printed any             `json:"printed,omitempty"`
		Millis  int64           `json:"ms"`
		Results []engine.Result `json:"results"`
	}{Decision: string(d.Status), Reason: d.Reason, Millis: time.Since(start).Milliseconds(), Results: d.Results}
	for _, r := range d.Results {
		switch {
		case r.Outcome == engine.Fail, r.Outcome == engine.Review, r.Outcome == engine.Error:
			out.Why = append(out.Why, r.Check+": "+r.Detail)
		}
		if v, ok := r.Evidence["mrz"]; ok && r.Check == "document" {
			out.MRZ = v
		}
		if v, ok := r.Evidence["printed"]; ok {
			out.Printed = v
		}
	}
	switch {
	case err != nil:
		out.Decision, out.Error = "error", err.Error()
	case d.Review:
		out.Decision = "review"
	}
	return e.printJSON(out)
}
