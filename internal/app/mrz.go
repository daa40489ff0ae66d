package app

import (
	"context"
	"errors"
	"image"
	"slices"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread"
	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/viz"
)

// mrzReader adapts the OCR-B reader to the engine's document check.
func mrzReader() engine.MRZReader { return ocrReader{} }

type ocrReader struct{}

func (ocrReader) ReadMRZ(ctx context.Context, img image.Image, hint mrz.Format) (engine.MRZRead, error) {
	if err := ctx.Err(); err != nil {
		return engine.MRZRead{}, err
	}
	r, err := readCropped(img, hint)
	if errors.Is(err, mrzread.ErrNoMRZ) {
		return engine.MRZRead{Evidence: map[string]any{"found": false}}, nil
	}
	if err != nil {
		return engine.MRZRead{}, err
	}
	// Characters guessed where none could be read (From '?') leave the
	// name or header doubtful, as low-confidence runs do.
	guessed := slices.ContainsFunc(r.Corrections, func(c mrzread.Correction) bool { return c.From == '?' })
	var corrected []string
	for _, c := range r.Corrections {
		if f := mrzread.FieldOf(r.Format, c.Line, c.Pos); !slices.Contains(corrected, f) {
			corrected = append(corrected, f)
		}
	}
	return engine.MRZRead{Lines: r.Lines, Confidence: r.MeanConfidence(), CutOff: r.CutOff, Covered: r.Covered, Corrections: len(r.Corrections),
		CorrectedFields: corrected, Doubtful: len(r.Uncertain) > 0 || guessed,
		Quad: r.Quad, Angle: r.Skew - float64(r.Rotation), Evidence: map[string]any{
			"found": true, "format": r.Format.String(), "band": r.Band.String(), "skew_degrees": r.Skew,
			"corrections": r.Corrections, "uncertain": r.Uncertain, "all_check_digits_valid": r.Valid,
			"unchecked_guessed": guessed,
		}}, nil
}

// readCropped reads the MRZ of the whole photo and, when that gives no
// valid reading, of the document's part of it: the document's outline
// (quality.FindDocument) or, failing that, where its text is
// (viz.TextRegion). A document filling a third of a photo of a patterned
// tablecloth left the reader to choose among rows of the pattern's
// repeats, at the pattern's scale; cropped, the zone stands out
// (independently generated photos, docs/accuracy.md). The crop is read
// only after a failure, so readable photos cost nothing more. Corners are
// reported in the photo's coordinates. When no reading is valid, the
// first whose only unreadable characters lie in the fields no check digit
// covers is completed by mrzread's guesses (Result.GuessUnchecked).
func readCropped(img image.Image, hint mrz.Format) (mrzread.Result, error) {
	r, err := mrzread.Read(img, hint)
	if err == nil && r.Valid {
		return r, nil
	}
	var guessable []mrzread.Result
	if err == nil {
		guessable = append(guessable, r)
	}
	if sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		b := img.Bounds()
		var crops []image.Rectangle
		if doc, found := quality.FindDocument(img); found {
			crops = append(crops, doc)
		}
		if text, _, found := viz.TextRegion(img); found {
			crops = append(crops, text)
		}
		for _, c := range crops {
			// Only a crop that leaves out much of the photo reads differently.
			if c.Dx()*c.Dy()*10 > b.Dx()*b.Dy()*7 {
				continue
			}
			// SubImage keeps the photo's coordinates: the corners need no
			// moving.
			cr, cerr := mrzread.Read(sub.SubImage(c), hint)
			if cerr != nil {
				continue
			}
			if cr.Valid {
				return cr, nil
			}
			guessable = append(guessable, cr)
		}
	}
	for _, g := range guessable {
		if gr, ok := g.GuessUnchecked(); ok {
			return gr, nil
		}
	}
	return r, err
}
