package app

import (
	"context"
	"errors"
	"image"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread"
)

// mrzReader adapts the OCR-B reader to the engine's document check.
func mrzReader() engine.MRZReader { return ocrReader{} }

type ocrReader struct{}

func (ocrReader) ReadMRZ(ctx context.Context, img image.Image, hint mrz.Format) (engine.MRZRead, error) {
	if err := ctx.Err(); err != nil {
		return engine.MRZRead{}, err
	}
	r, err := mrzread.Read(img, hint)
	if errors.Is(err, mrzread.ErrNoMRZ) {
		return engine.MRZRead{Evidence: map[string]any{"found": false}}, nil
	}
	if err != nil {
		return engine.MRZRead{}, err
	}
	return engine.MRZRead{Lines: r.Lines, Confidence: r.MeanConfidence(), CutOff: r.CutOff, Covered: r.Covered, Corrections: len(r.Corrections), Doubtful: len(r.Uncertain) > 0,
		Quad: r.Quad, Angle: r.Skew - float64(r.Rotation), Evidence: map[string]any{
			"found": true, "format": r.Format.String(), "band": r.Band.String(), "skew_degrees": r.Skew,
			"corrections": r.Corrections, "uncertain": r.Uncertain, "all_check_digits_valid": r.Valid,
		}}, nil
}
