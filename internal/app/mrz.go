package app

import (
	"context"
	"errors"
	"image"
	"math"
	"slices"

	xdraw "golang.org/x/image/draw"

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
	s := newSearch(img, hint)
	read, err := toMRZRead(s.first, s.err)
	if err != nil || s.sure {
		return read, err
	}
	read.More = func(ctx context.Context) (engine.MRZRead, error) {
		if err := ctx.Err(); err != nil {
			return engine.MRZRead{}, err
		}
		return toMRZRead(s.more())
	}
	return read, nil
}

// toMRZRead is what the engine needs of a reading r (err: of none).
func toMRZRead(r mrzread.Result, err error) (engine.MRZRead, error) {
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
	surname := r.SurnameConfidence()
	return engine.MRZRead{Lines: r.Lines, Confidence: r.MeanConfidence(), CutOff: r.CutOff, Covered: r.Covered, Corrections: len(r.Corrections),
		CorrectedFields: corrected, Doubtful: len(r.Uncertain) > 0 || guessed, SurnameConfidence: surname, SurnameCorrected: r.SurnameCorrected(),
		NumberConfidence: r.FieldConfidence(mrz.FieldDocumentNumber), Number: numberCells(r), Surname: surnameCells(r), HeaderDoubtful: r.FieldConfidence(mrzread.FieldHeader) < engine.MinNumberConfidence,
		Quad: r.Quad, Angle: r.Skew - float64(r.Rotation),
		Evidence: map[string]any{
			"found": true, "format": r.Format.String(), "band": r.Band.String(), "skew_degrees": r.Skew,
			"corrections": r.Corrections, "uncertain": r.Uncertain, "all_check_digits_valid": r.Valid,
			"unchecked_guessed": guessed, "surname_confidence": surname,
		}}, nil
}

// surnameCells returns the reader's runner-up and confidence for each
// character of the reading's surname (engine.MRZRead.Surname), or nil.
func surnameCells(r mrzread.Result) []engine.Cell {
	conf, alt := r.SurnameCells()
	var cells []engine.Cell
	for i, c := range conf {
		cells = append(cells, engine.Cell{Alt: alt[i], Conf: c})
	}
	return cells
}

// numberCells returns the reader's runner-up and confidence for each of
// the nine characters of the reading's document number field, in order
// (engine.MRZRead.Number), or nil.
func numberCells(r mrzread.Result) []engine.Cell {
	var cells []engine.Cell
	for li, line := range r.Confidence {
		for k, c := range line {
			if len(cells) < 9 && mrzread.FieldOf(r.Format, li, k) == mrz.FieldDocumentNumber && li < len(r.Alternatives) && k < len(r.Alternatives[li]) {
				cells = append(cells, engine.Cell{Alt: r.Alternatives[li][k], Conf: c})
			}
		}
	}
	if len(cells) < 9 {
		return nil
	}
	return cells
}

// readCropped reads the MRZ of the whole photo and, when that gives no
// valid reading, of the document's part of it: the document's outline
// (quality.FindDocument) or, failing that, where its text is
// (viz.TextBlock). A document filling a third of a photo of a patterned
// tablecloth left the reader to choose among rows of the pattern's
// repeats, at the pattern's scale; cropped, the zone stands out
// (independently generated photos, docs/accuracy.md); a crop of the
// text that left out only the lower quarter of a photo changed which
// lines the reader took for the zone's, so any crop that leaves out a
// tenth is read. A crop, or a photo, too small for the reader's cells is
// read again enlarged (readEnlarged). The crops are read only after a
// failure, so readable photos cost nothing more. Last, the document is
// warped upright from its outline's corners and read (readRectified).
// Corners are reported in the photo's coordinates. When no reading is
// valid, the first whose only
// unreadable characters lie in the fields no check digit covers is
// completed by mrzread's guesses (Result.GuessUnchecked).
func readCropped(img image.Image, hint mrz.Format) (mrzread.Result, error) {
	s := newSearch(img, hint)
	if s.sure {
		return s.first, nil
	}
	return s.more()
}

// search is readCropped in two steps: the whole photo's reading
// (newSearch), sure or not, then the crops' and the warped outline's
// (more), which the engine makes only when no side of the document read
// whole gave a sure reading (engine.MRZRead.More).
type search struct {
	img  image.Image
	hint mrz.Format
	// first is the whole photo's reading (err: of none); sure when it
	// ends the search.
	first mrzread.Result
	err   error
	sure  bool
	// held is the first usable reading that is not sure enough to end
	// the search: one of a crop that needed check-digit corrections (see
	// repairedChecks), or any whose issuing state or nationality is no
	// state's code (Result.StatesKnown; a soft photo's AUS read AWX, where
	// the same zone enlarged read it right). It is taken only when no
	// later reading is sure. guessable are the readings to complete
	// (Result.GuessUnchecked) when none is usable.
	held      *mrzread.Result
	guessable []mrzread.Result
}

func newSearch(img image.Image, hint mrz.Format) *search {
	s := &search{img: img, hint: hint}
	s.first, s.err = mrzread.Read(img, hint)
	if s.err == nil && usable(s.first) {
		if s.first.StatesKnown() {
			s.sure = true
			return s
		}
		s.held = &s.first
	}
	if s.err == nil && s.held == nil {
		s.guessable = append(s.guessable, s.first)
	}
	return s
}

// done reports a reading that ends the search and keeps the others for
// later.
func (s *search) done(c mrzread.Result) bool {
	if !usable(c) {
		s.guessable = append(s.guessable, c)
		return false
	}
	if !repairedChecks(c) && c.StatesKnown() {
		return true
	}
	if s.held == nil {
		s.held = &c
	}
	return false
}

// more searches the crops and the warped outline, and returns the
// search's reading.
func (s *search) more() (mrzread.Result, error) {
	img, hint := s.img, s.hint
	if sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		b := img.Bounds()
		var crops []image.Rectangle
		if doc, found := quality.FindDocument(img); found {
			crops = append(crops, doc)
		}
		if text, _, found := viz.TextBlock(img); found {
			crops = append(crops, text)
		}
		// A small photo is read enlarged as a whole, after its crops.
		crops = append(crops, b)
		for i, c := range crops {
			// A crop that lies within an earlier one and covers half of
			// it or more is not read: read so, at nearly the same
			// scale, no such text block read a zone its document's
			// crop had not on three seeds of independently generated
			// photos, while it cost cut and covered zones two readings
			// (docs/performance.md); a text block apart from the
			// document's crop did read one.
			if slices.ContainsFunc(crops[:i], func(p image.Rectangle) bool { return nested(c, p) }) {
				continue
			}
			// Only a crop that leaves out some of the photo reads
			// differently at its own scale.
			if i < len(crops)-1 && c.Dx()*c.Dy()*10 <= b.Dx()*b.Dy()*9 {
				// SubImage keeps the photo's coordinates: the corners
				// need no moving.
				cr, cerr := mrzread.Read(sub.SubImage(c), hint)
				if cerr == nil && s.done(cr) {
					return cr, nil
				}
			}
			if ur, ok := readEnlarged(img, c, hint); ok {
				if s.done(ur) {
					return ur, nil
				}
			}
		}
	}
	if rr, ok := readRectified(img, hint); ok {
		if s.done(rr) {
			return rr, nil
		}
	}
	if s.held != nil {
		return *s.held, nil
	}
	for _, g := range s.guessable {
		if gr, ok := g.GuessUnchecked(); ok {
			return gr, nil
		}
	}
	return s.first, s.err
}

// nested reports a crop c nine tenths inside p and at least half as
// large.
func nested(c, p image.Rectangle) bool {
	in := c.Intersect(p)
	return 10*in.Dx()*in.Dy() >= 9*c.Dx()*c.Dy() && 2*c.Dx()*c.Dy() >= p.Dx()*p.Dy()
}

// repairedChecks reports a reading whose check digits verify only after
// the reader changed characters to fit them (look-alike swaps, runner-ups;
// not the name field's spelling, nor a state code completed from the list
// of codes, which no check digit covers): one chance in ten per check that a
// misread verifies, against none for a reading that verifies as read.
// When the whole photo does not read, such a reading of one crop is kept
// while the other crops and the warped outline are tried: the text crop
// of a passport page seen in perspective verified as FHO9992ZI6 (2→Z and
// 1→I swapped to fit the check), where the warped outline read
// FH09992216 with no correction (independently generated photos,
// docs/accuracy.md). The whole photo's first reading is not held back
// so: that would read every corrected photo several times.
func repairedChecks(r mrzread.Result) bool {
	return slices.ContainsFunc(r.Corrections, func(c mrzread.Correction) bool {
		return c.Field != mrzread.FieldNames && c.Field != mrzread.FieldHeader && c.Field != mrzread.FieldNationality &&
			c.Field != mrzread.FieldOptional && c.From != '?'
	})
}

// usable reports a reading that ends the search: valid (every check
// verifies) and parsed into fields. Corrections can make a garbage
// reading verify — a TD1 card seen in keystone perspective, read
// "1164864<4488484<<<…" with five digits changed to fit their checks, was
// taken over the valid reading its warped outline gave (independently
// generated photos, docs/accuracy.md) — but rarely make it parse: such
// lines hold no nationality, no name.
func usable(r mrzread.Result) bool {
	if !r.Valid {
		return false
	}
	_, err := mrz.Parse(r.Lines)
	return err == nil
}

// enlargedSide is the long side a small document crop is enlarged to for
// a second reading. mrzread's cells hold glyphs of 11 px poorly (a
// passport page filling a third of a 3 MP photo, independently
// generated: three digits of its number misread as look-alikes): the same
// crop enlarged twice, by Catmull-Rom interpolation, read right. Only
// crops and small photos are enlarged, so never more than 1400 px a side.
const enlargedSide = 1400

// readEnlarged reads the MRZ of crop c of img enlarged to enlargedSide
// (at most 3 times), when c is smaller than that, with the zone's corners
// mapped back to the photo.
func readEnlarged(img image.Image, c image.Rectangle, hint mrz.Format) (mrzread.Result, bool) {
	long := max(c.Dx(), c.Dy())
	if long == 0 || long*4 > enlargedSide*3 {
		return mrzread.Result{}, false
	}
	k := min(3, float64(enlargedSide)/float64(long))
	dst := image.NewGray(image.Rect(0, 0, int(float64(c.Dx())*k), int(float64(c.Dy())*k)))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, c, xdraw.Src, nil)
	r, err := mrzread.Read(dst, hint)
	if err != nil {
		return mrzread.Result{}, false
	}
	back := func(p image.Point) image.Point {
		return image.Pt(c.Min.X+int(math.Round(float64(p.X)/k)), c.Min.Y+int(math.Round(float64(p.Y)/k)))
	}
	for i, p := range r.Quad {
		r.Quad[i] = back(p)
	}
	r.Band = image.Rectangle{back(r.Band.Min), back(r.Band.Max)}
	return r, true
}
