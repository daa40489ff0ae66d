package app

import (
	"context"
	"errors"
	"image"
	"math"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzocr"
	"github.com/verifyd/verifyd/mrzread"
	"github.com/verifyd/verifyd/ocr"
)

// MRZReader is the document check's MRZ reader: mrzread, the OCR-B
// template matcher, and, when text is not nil, a second reader
// (mrzocr, Tesseract) for the zones mrzread cannot read.
//
// mrzread's reading is kept whenever its check digits all verify (with
// or without corrections); only otherwise does the second reader run,
// on mrzread's located zone when it found one (first filling the
// characters mrzread could not read, then reading the whole zone), and
// its reading, which it returns only when every check digit verifies, is
// marked Secondary: it decides nothing alone (engine.DocumentCheck). A
// zone neither reads is reported as mrzread saw it (cut off, covered,
// found or not).
func MRZReader(text ocr.Engine) engine.MRZReader {
	r := combinedReader{}
	if text != nil {
		r.second = &mrzocr.Reader{OCR: text}
	}
	return r
}

type combinedReader struct {
	second *mrzocr.Reader
}

func (c combinedReader) ReadMRZ(ctx context.Context, img image.Image, hint mrz.Format) (engine.MRZRead, error) {
	if err := ctx.Err(); err != nil {
		return engine.MRZRead{}, err
	}
	r, err := mrzread.Read(img, hint)
	var first engine.MRZRead
	switch {
	case errors.Is(err, mrzread.ErrNoMRZ):
		first = engine.MRZRead{Evidence: map[string]any{"found": false, "reader": "mrzread"}}
	case err != nil:
		return engine.MRZRead{}, err
	default:
		first = engine.MRZRead{Lines: r.Lines, Confidence: r.MeanConfidence(), CutOff: r.CutOff, Covered: r.Covered, Corrections: len(r.Corrections), Doubtful: len(r.Uncertain) > 0,
			Quad: r.Quad, Angle: r.Skew - float64(r.Rotation), Evidence: map[string]any{
				"found": true, "format": r.Format.String(), "band": r.Band.String(), "skew_degrees": r.Skew,
				"corrections": r.Corrections, "uncertain": r.Uncertain, "all_check_digits_valid": r.Valid,
				"reader": "mrzread",
			}}
	}
	if c.second == nil || err == nil && verifies(r.Lines) {
		return first, nil
	}
	zone := mrzocr.Zone{}
	if err == nil {
		zone = mrzocr.Zone{Found: true, Quad: r.Quad, Format: r.Format, Lines: r.Lines}
	}
	s, serr := c.second.Read(ctx, img, hint, zone)
	switch {
	case serr == nil:
	case ctx.Err() != nil:
		return engine.MRZRead{}, ctx.Err()
	default:
		// The second reader not reading (or not running) leaves the
		// first reader's verdict: it was only a chance of one more.
		first.Evidence["second_reader"] = serr.Error()
		return first, nil
	}
	ev := map[string]any{"reader": "tesseract", "format": s.Format.String(), "attempt": s.Attempt,
		"filled_fillers": s.Filled, "mapped_fillers": s.Mapped, "first_reader": first.Evidence}
	q := s.Quad
	angle := first.Angle
	if !zone.Found {
		angle = math.Atan2(float64(q[1].Y-q[0].Y), float64(q[1].X-q[0].X)) * 180 / math.Pi
	}
	return engine.MRZRead{Lines: s.Lines, Confidence: s.Confidence, Secondary: true,
		Doubtful: s.Filled > 0 || s.Mapped > 0, Quad: q, Angle: angle, Evidence: ev}, nil
}

// verifies reports whether lines parse with every check digit verifying.
func verifies(lines []string) bool {
	if len(lines) == 0 {
		return false
	}
	_, err := mrz.Parse(lines)
	return err == nil
}
