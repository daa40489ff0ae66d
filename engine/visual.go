package engine

import (
	"context"
	"fmt"
	"image"
	"math"
	"slices"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/viz"
)

// VisualZoneCheck compares the data printed on the document (its visual
// inspection zone) with its MRZ: the printed birth date, expiry date,
// document number and surname must be the MRZ's. A forger who changes
// the printed birth date, or who writes a valid MRZ for an adult under a
// minor's printed data, is caught here, not by the check digits.
//
// A printed date or number that contradicts the MRZ fails with
// potential_fraud. So does a surname, but only when the MRZ's surname was
// read surely (surnameSure): the name field carries no check digit, so a
// reading of it can be wrong and still verify (a genuine card's DUBOIS was
// read OMBCTB from a tilted photo, docs/accuracy.md); otherwise it goes to
// a person. A difference that one misread character explains, a
// low-confidence reading, or a field that could not be read also sends
// the verification to a person (never to approval). Only when every field is found as the MRZ
// says does the check pass.
type VisualZoneCheck struct {
	// OCR reads the printed text; nil sends every verification to review.
	OCR ocr.Engine
}

// Name implements Check.
func (VisualZoneCheck) Name() string { return "visual_zone" }

// Run implements Check.
func (c VisualZoneCheck) Run(ctx context.Context, in *Input) Result {
	fields, ok := in.Facts[FactMRZ].(mrz.Fields)
	if !ok {
		return Passed("no machine-readable zone to compare with", nil)
	}
	if c.OCR == nil {
		return NeedsReview("no OCR engine is installed: compare the printed data with the machine-readable zone", nil)
	}
	loc, _ := in.Facts[FactMRZRead].(Located)
	// The MRZ's fields with its number as printed where the printed
	// number resolves a misread of it (viz.Zone.ResolveNumber).
	alt := make([]byte, len(loc.Number))
	for i, c := range loc.Number {
		if c.Conf < MinNumberConfidence {
			alt[i] = c.Alt
		}
	}
	as := func(z viz.Zone) mrz.Fields {
		f := fields
		if n, ok := z.ResolveNumber(fields.DocumentNumber, alt); ok {
			f.DocumentNumber = n
		}
		return f
	}
	enough := func(z viz.Zone) bool { return viz.Compare(z, as(z)).AllMatch() }
	spots := func(side, all viz.Zone) []viz.Spot { return side.Spots(fields, viz.Compare(all, as(all))) }
	accused := func(z viz.Zone) bool {
		f := as(z)
		return len(settle(viz.Compare(z, f), loc, f, z).Mismatches()) > 0
	}
	z, err := readSides(ctx, c.OCR, in, loc, orderFor(in.Country), enough, accused, spots)
	if err != nil {
		return Errored(err, nil)
	}
	ev := map[string]any{"text": zoneText(z), "mrz_doubtful": loc.Doubtful}
	if f := as(z); f.DocumentNumber != fields.DocumentNumber {
		// The MRZ's reading of the number is corrected for the checks
		// that follow and for what the decision reports.
		ev["document_number_resolved"] = map[string]string{"mrz_read": fields.DocumentNumber, "printed": f.DocumentNumber}
		fields = f
		in.Facts[FactMRZ] = fields
		in.Facts[FactDocumentKey] = documentKey(in, fields)
	}
	cmp := settle(viz.Compare(z, fields), loc, fields, z)
	ev["printed"] = cmp
	if bad := cmp.Mismatches(); len(bad) > 0 {
		return Failed(verifyd.ReasonPotentialFraud, "the printed data contradicts the machine-readable zone: "+cmp.Describe(viz.Mismatch), ev)
	}
	if pending, ok := in.Facts[FactPending].(Result); ok {
		confirm := map[verifyd.Reason]string{verifyd.ReasonExpiredID: "expiry_date", verifyd.ReasonMinor: "birth_date"}[pending.Reason]
		for _, f := range cmp {
			if f.Name == confirm && f.Status == viz.Match {
				pending.Detail += "; the printed " + strings.ReplaceAll(confirm, "_", " ") + " confirms it"
				pending.Evidence["printed"] = cmp
				return pending
			}
		}
		return NeedsReview("the machine-readable zone, read with corrections, says "+pending.Detail+
			", and the printed data does not confirm it", ev)
	}
	if cmp.AllMatch() {
		return Passed("the printed birth date, expiry date, document number and surname match the machine-readable zone", ev)
	}
	var why []string
	if s := cmp.Describe(viz.Uncertain); s != "" {
		why = append(why, "uncertain: "+s)
	}
	if s := cmp.Describe(viz.Unread); s != "" {
		why = append(why, "not read: "+s)
	}
	return NeedsReview("the printed data could not be confirmed against the machine-readable zone ("+strings.Join(why, "; ")+
		"): compare them", ev)
}

// settle makes uncertain each contradiction of cmp, z compared with the
// MRZ's fields, that the MRZ's reading cannot support.
//
// The MRZ's number is protected by a check digit, except in a
// reading already doubtful or one with a character of the number
// read unsurely (two misreads verify a check digit one time in
// ten: a genuine card's EAC552993<94327 was read EAC557993<94377,
// both checks verifying, and failed as potential_fraud on
// independently generated photos); a field the reader changed so
// that its check digit verifies is a guess made to fit that digit
// (a genuine passport's glared HD1813080 was read HD1S13OSO and
// corrected to HDISI3OSO, which verifies); the name never is, so
// its reading must be sure (surnameSure). Otherwise a difference
// there is only uncertain.
func settle(cmp viz.Comparison, loc Located, fields mrz.Fields, z viz.Zone) viz.Comparison {
	for i, f := range cmp {
		if f.Status == viz.Mismatch && ((f.Name == "surname" && !surnameSure(loc, fields, z, f.Printed)) ||
			(f.Name == "document_number" && (loc.Doubtful || loc.NumberConfidence < MinNumberConfidence && !surelyDiffers(f.Printed, fields.DocumentNumber, loc.Number))) ||
			slices.Contains(loc.CorrectedFields, f.Name)) {
			cmp[i].Status = viz.Uncertain
		}
	}
	return cmp
}

// surelyDiffers reports whether printed, a document number of the MRZ's
// number's length, differs from it in two positions or more whose MRZ
// characters were read with MinNumberConfidence (cells, the reader's
// confidence for each character of the MRZ's number). A reading's unsure
// characters explain a difference only where they are: a forged US
// passport's printed 992701434 against the MRZ's 052701474, both zeros
// of the MRZ read at 0.62 and 0.44 (O their runner-up) and every other
// character at 1.0, went to review as a possible misread of the MRZ
// (independently generated photos, docs/accuracy.md, twenty-fifth pass),
// where its 5 and 7 were read surely. Of 378 verified readings on four
// seeds, the 12 with a misread number each had a character at 0.50 or
// below; a difference in two characters read surely would take two
// confident misreads that still verify.
func surelyDiffers(printed, number string, cells []Cell) bool {
	p := []byte(strings.ToUpper(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, printed)))
	if len(p) != len(number) || len(cells) != len(number) {
		return false
	}
	sure := 0
	for i := range p {
		if p[i] != number[i] && cells[i].Conf >= MinNumberConfidence {
			sure++
		}
	}
	return sure >= 2
}

// MinSurnameConfidence is the lowest confidence of every character of the
// MRZ's surname (see MRZRead.SurnameConfidence) for a printed surname that
// differs to be a contradiction. On independently generated photos
// (docs/accuracy.md) nine of ten misread surnames (CROBER for GRUBER,
// TAMAMOTO, DLIINYK, …) had a character below 0.55; the tenth was one
// letter off, which the comparison tolerates.
const MinSurnameConfidence = 0.6

// MinNumberConfidence is the lowest confidence of every character of the
// MRZ's document number (MRZRead.NumberConfidence) for a printed number
// that differs to be a contradiction. Of 378 verified readings of four
// seeds of independently generated photos, the 12 with a misread number
// all had a character at 0.50 or below; 309 were above 0.5, none misread.
const MinNumberConfidence = 0.6

// surnameSure reports whether the MRZ's surname was read surely enough for
// printed, a surname that differs, to fail the document: the reading is
// not doubtful, no correction touched the name, every character of the
// surname was read with MinSurnameConfidence — or printed differs from it
// however its unsure characters are read, as they were or as their
// runner-ups (viz.SurnameDiffers) —, and the MRZ's given names
// are printed on the document (the last one possibly longer, where the
// names filled the MRZ's field and were cut there: mrz.Fields.NameFull;
// a forged Spanish card's DANIEL JAVIE, printed DANIEL JAVIER, sent its
// forged surname to review, independently generated photos, twenty-fourth
// pass). The name field carries no check digit, so
// its reading can be wrong and still verify (a genuine card's DUBOIS was
// read OMBCTB from a tilted photo); the given names, read from the same
// line and found printed, say that line was read as printed, and that
// the printed names were read where they are. What is left is the forger's
// way: a document whose printed surname is another person's.
func surnameSure(loc Located, fields mrz.Fields, z viz.Zone, printed string) bool {
	sure := loc.SurnameConfidence >= MinSurnameConfidence
	if !sure && len(loc.Surname) == len(fields.Surname) {
		// Where the reader was unsure, the MRZ's letter may be its
		// runner-up; where it allowed none, the letter is anyone's guess.
		alt := make([]byte, len(loc.Surname))
		for i, c := range loc.Surname {
			if c.Conf < MinSurnameConfidence {
				alt[i] = c.Alt
				if alt[i] == 0 {
					return false
				}
			}
		}
		sure = viz.SurnameDiffers(printed, fields.Surname, alt)
	}
	return !loc.Doubtful && !loc.SurnameCorrected && sure && z.NamePrinted(fields.GivenNames, fields.NameFull())
}

// orderFor is how numeric dates are written in a country's documents.
func orderFor(country string) viz.Order {
	if strings.EqualFold(country, "usa") {
		return viz.MDY
	}
	return viz.DMY
}

// readSides reads the visual zone: the document front first (an ID card's
// printed data; a passport's data page, whose MRZ is masked out), then the
// side with the MRZ when it is another photo and the front was not enough.
// Words of the second photo are placed below the first's, so that labels
// are only ever taken from the same photo. When a side's first readings
// are not enough, the places spots (nil: none) names on it, given what
// that side and all sides so far read, are read again (viz.Reread) before
// its other readings, and the places those name anew after them.
//
// When what the first readings and their spots found already settles the
// decision against the document (settled, nil: never: a contradiction of
// the MRZ that stands), the other readings are not made: they cost
// ~0.2–0.5 s each on one core, and all they could change is to find the
// MRZ's value elsewhere on the page and excuse the contradiction, which
// on a genuine page would mean the first readings read a forgery's
// difference, with confidence, where there is none. On eight seeds of
// independently generated photos (docs/accuracy.md, twelfth pass) no
// decision of a genuine document changed for the worse. Decided only after the first
// readings and their spots, never after one reading alone; after them,
// each later reading that settles it ends the readings (nineteenth pass:
// no genuine document's decision changed on three seeds, and a forgery
// whose contradiction the later readings had blurred into review failed).
func readSides(ctx context.Context, eng ocr.Engine, in *Input, loc Located, order viz.Order, enough, settled func(viz.Zone) bool,
	spots func(side, all viz.Zone) []viz.Spot) (viz.Zone, error) {
	var sides []*Image
	for _, s := range []*Image{in.Front, loc.Side} {
		if s != nil && s.Image != nil && (len(sides) == 0 || sides[0] != s) {
			sides = append(sides, s)
		}
	}
	var words, rereads []ocr.Word
	var z viz.Zone
	for si, s := range sides {
		r := documentRegion(s, loc)
		if s != loc.Side {
			// No MRZ on this photo to say how it lies (an ID card's front,
			// a licence): estimate it from its text lines.
			if a := viz.EstimateSkew(s.Image, r.Rect, 25); math.Abs(a) >= 3 {
				r.Angle = a
			}
		}
		dy := 0
		for _, w := range words {
			dy = max(dy, w.Box.Max.Y+10000)
		}
		// What this side's readings, with every side's before it and the
		// spots read so far, come to.
		with := func(side, again []ocr.Word) viz.Zone {
			return viz.NewZone(viz.Append(words, side, 1, dy), order).WithRereads(viz.Append(rereads, again, 1, dy), order)
		}
		var side []ocr.Word
		var read []viz.Spot
		pages := viz.Pages{}
		// The first page readings, the spots they leave unconfirmed, the
		// other page readings, and the spots those name anew: a field the
		// first readings found in pieces is read again before the page is,
		// four times, at other scales and thresholds (viz.FirstReadings).
		stages := [][2]int{{0, viz.FirstReadings}, {viz.FirstReadings, viz.Readings()}}
		if si > 0 {
			// A second side (a card's back, read after its whole front)
			// gets the first readings and their spots only. Issuers
			// print the four fields on the front; of 147 approvals on
			// three seeds of independently generated photos none was
			// completed on a back, and its other readings cost about a
			// second on every card that goes to review
			// (docs/performance.md).
			stages = stages[:1]
		}
		for _, stage := range stages {
			// After the first readings and their spots, a reading that
			// settles the decision ends the side's readings at once.
			stop := func(z viz.Zone) bool {
				return enough(z) || stage[0] > 0 && settled != nil && settled(z)
			}
			var err error
			side, err = viz.Read(ctx, eng, s.Image, r, side, stage[0], stage[1], pages, func(w []ocr.Word) bool {
				return stop(with(w, nil))
			})
			if err != nil {
				return viz.Zone{}, err
			}
			if z = with(side, nil); stop(z) {
				break
			}
			if spots == nil {
				continue
			}
			var fresh []viz.Spot
			for _, sp := range spots(viz.NewZone(side, order), z) {
				if !sp.Among(read) {
					fresh = append(fresh, sp)
				}
			}
			read = append(read, fresh...)
			again, err := viz.Reread(ctx, eng, s.Image, r, fresh, func(w []ocr.Word) bool {
				return enough(with(side, w))
			})
			if err != nil {
				return viz.Zone{}, err
			}
			rereads = viz.Append(rereads, again, 1, dy)
			if z = with(side, nil); enough(z) || settled != nil && settled(z) {
				break
			}
		}
		words = viz.Append(words, side, 1, dy)
		if enough(z) || settled != nil && settled(z) {
			break
		}
	}
	return z, nil
}

// documentRegion is where the document lies on side s's photo, as its
// printed data is read: on the photo with the MRZ (loc), the page the zone
// belongs to (pageOf), else the document's outline stretched to hold the
// zone, levelled by the zone's angle with the zone masked out; on another
// photo, sideRegion's choice (its angle is left to the caller).
func documentRegion(s *Image, loc Located) viz.Region {
	if s == loc.Side {
		r := viz.Region{Angle: loc.Angle, Mask: [][4]image.Point{loc.Quad}}
		if page, side, outline, ok := pageOf(loc, s.Image.Bounds()); ok {
			r.Rect, r.Side, r.Outline = page, side, outline
			return r
		}
		// The zone's band must lie inside the crop for its angle to
		// level the rest of the page.
		r.Rect, _ = quality.DocumentRegion(s.Image)
		for _, p := range loc.Quad {
			r.Rect = r.Rect.Union(image.Rectangle{p, p.Add(image.Pt(1, 1))})
		}
		return r
	}
	outline, found := quality.DocumentRegion(s.Image)
	text, glyph, ok := viz.TextRegion(s.Image)
	return sideRegion(s.Image.Bounds(), outline, found, text, glyph, ok)
}

// sideRegion chooses where to read a photo that holds no MRZ (an ID
// card's front, a licence): the outline quality.DocumentRegion found
// (found), else the text viz.TextRegion found (text, its glyphs' height
// glyph, textOK), else outline (the photo's centre).
func sideRegion(bounds, outline image.Rectangle, found bool, text image.Rectangle, glyph float64, textOK bool) viz.Region {
	switch {
	case found && !cardShaped(outline):
		// What stood out from the table is not the card (its
		// portrait's frame, on an independently generated Swiss
		// card lying on paper of its own colour): look for its text.
		found = false
	case found && textOK && 5*area(text.Intersect(outline)) < 4*area(text) &&
		5*area(text.Intersect(outline)) >= 4*area(outline) && area(text) <= 4*area(outline) && viz.EdgesNear(text, bounds, 100) <= 1:
		// The text lies around the outline and beyond it, on a region
		// a card could fill: what stood out is part of the card (a
		// glare that washed out a Belgian permit's portrait side left a
		// card-shaped bright patch, independently generated, and the
		// birth date beside it was never read). Text that does not
		// hold the outline, spreads over much more than a card would,
		// or reaches two or more of the photo's edges is a textured
		// table's (Ukrainian and Belgian licences' photos: read there, a
		// noisy 2,400-pixel page kept Tesseract busy for minutes).
		found = false
	case found && textOK && 5*area(text.Intersect(outline)) < 4*area(text) && text.Overlaps(outline) &&
		viz.EdgesNear(text, bounds, 100) <= 1 && viz.CardText(text, glyph):
		// A fifth of the text or more lies outside the outline, and
		// the text, reaching at most one of the photo's edges, spans no
		// more glyph heights than a card's: the outline is a part of the card, or
		// the card with a shadow or a marble's vein joined to it, not
		// the whole card. Independently generated cards (twenty-ninth
		// pass) were read in such outlines and their fields lost: a US
		// permit's portrait side in low light (354 × 628 px of a card
		// whose text is 1,057 × 852) and a Mexican card's lower left
		// with the vein below it (the number and surname outside).
		found = false
	}
	if found || !textOK {
		return viz.Region{Rect: outline}
	}
	// No outline found (textured tables defeat it): read where the text
	// is, at a scale set by its glyphs.
	side := int(math.Round(float64(max(text.Dx(), text.Dy())) * textGlyphPx / glyph))
	return viz.Region{Rect: text, Side: min(max(side, viz.TargetSide*3/4), viz.TargetSide*3/2)}
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// cardShaped reports whether an outline found on a photo without an MRZ
// could be the card's: ID-1 (85.6 × 54 mm, 1.59:1) and TD2 (105 × 74 mm,
// 1.42:1) documents, either way up, seen at up to ~35° off square, which
// stretches or shortens one side by up to a fifth. The outline is its
// bounding box: a card turned by more than ~25° in the frame has a
// squarer one and is then read where its text is, as where no outline is
// found at all.
func cardShaped(r image.Rectangle) bool {
	if r.Empty() {
		return false
	}
	long, short := float64(max(r.Dx(), r.Dy())), float64(min(r.Dx(), r.Dy()))
	return long >= 1.15*short && long <= 2*short
}

// textGlyphPx is the median glyph height (labels and values together)
// a page found by its text is scaled to: values' capitals come to about
// 30–40 px, labels' to 15–20.
const textGlyphPx = 22

// pageMM is where each MRZ layout's page lies around its zone, in mm
// (ICAO 9303 parts 4–6): left of and right of the zone's first and last
// character, above its first line's top and below its last line's bottom.
// The sizes are the documents' (TD3 125 × 88 mm, TD2 105 × 74, TD1
// 85.6 × 54) with a few millimetres to spare, so that a zone printed a
// little off its nominal place keeps the whole page in the crop.
var pageMM = map[mrz.Format]struct{ left, right, above, below float64 }{
	mrz.TD3: {10, 10, 76, 7},
	mrz.TD2: {9, 9, 62, 7},
	mrz.TD1: {8, 8, 42, 6},
}

// vizPxPerMM is the scale the page is read at: the capitals of printed
// values (2–3 mm) are then 26–39 px tall, where Tesseract reads well, and
// the small labels (1.2–1.8 mm) stay legible. Cropping the page the MRZ
// belongs to and scaling it by the MRZ's own pitch, rather than scaling
// whatever the photo shows to a fixed size, keeps an open passport
// booklet's data page (half the photo) from being read at half scale. 13
// and 16 px/mm confirmed the same 56 independently generated genuine
// documents; 16 cost a passport page 1.5 times the pixels and Tesseract
// time (docs/performance.md).
const vizPxPerMM = 13

// pageOf returns the rectangle of the photo that holds the page the MRZ
// lies on, the long side to scale it to for vizPxPerMM, and the page's
// corners, from the zone's corners and its format's pitch (2.54 mm, ICAO
// 9303 part 3).
func pageOf(loc Located, bounds image.Rectangle) (rect image.Rectangle, side int, outline [4]image.Point, ok bool) {
	m, ok := pageMM[loc.Format]
	if !ok {
		return image.Rectangle{}, 0, outline, false
	}
	q := loc.Quad
	pt := func(p image.Point) [2]float64 { return [2]float64{float64(p.X), float64(p.Y)} }
	tl, tr, bl := pt(q[0]), pt(q[1]), pt(q[3])
	along := [2]float64{tr[0] - tl[0], tr[1] - tl[1]}
	across := [2]float64{bl[0] - tl[0], bl[1] - tl[1]}
	width, height := math.Hypot(along[0], along[1]), math.Hypot(across[0], across[1])
	if width < 1 || height < 1 {
		return image.Rectangle{}, 0, outline, false
	}
	pxPerMM := width / (float64(loc.Format.Width()) * 2.54)
	u := [2]float64{along[0] / width, along[1] / width}
	v := [2]float64{across[0] / height, across[1] / height}
	x0, x1 := -m.left*pxPerMM, width+m.right*pxPerMM
	y0, y1 := -m.above*pxPerMM, height+m.below*pxPerMM
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, c := range [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}} {
		x := tl[0] + u[0]*c[0] + v[0]*c[1]
		y := tl[1] + u[1]*c[0] + v[1]*c[1]
		outline[i] = image.Pt(int(math.Round(x)), int(math.Round(y)))
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		minY, maxY = math.Min(minY, y), math.Max(maxY, y)
	}
	rect = image.Rect(int(minX), int(minY), int(math.Ceil(maxX)), int(math.Ceil(maxY))).Intersect(bounds)
	if rect.Empty() {
		return image.Rectangle{}, 0, outline, false
	}
	side = int(math.Round(float64(max(rect.Dx(), rect.Dy())) * vizPxPerMM / pxPerMM))
	return rect, side, outline, true
}

// zoneText is the text read, line by line, for operators.
func zoneText(z viz.Zone) []string {
	var out []string
	for _, l := range z.Lines {
		if !l.MRZ {
			out = append(out, l.Text)
		}
	}
	return out
}

// DriverLicence decides driver licences, which carry no MRZ, from the
// dates printed on them: a holder under 18 fails with minor and a licence
// past its expiry date with expired_id, when the date is read with
// confidence and its label (or its place among the dates) says what it is.
// An adult's current licence goes to review: without an MRZ nothing on
// the photo can be checked for consistency, so a person judges its
// authenticity (docs/engine.md).
type DriverLicence struct {
	OCR ocr.Engine
}

// trusted reports whether a licence's date is read well enough to fail it
// alone: with confidence, or the same in both of viz.Read's passes
// (Tesseract rates dotted numeric dates low, 0.2–0.7 on clean generated
// licences). Its label (or its place among three dates) must also say
// what the date is.
func trusted(d viz.Date) bool { return d.Conf >= viz.MinConf || d.Reads >= 2 }

// Run decides a driver licence.
func (d *DriverLicence) Run(ctx context.Context, in *Input) Result {
	if d.OCR == nil {
		return NeedsReview("driver licences have no machine-readable zone and no OCR engine is installed: "+
			"a person must read the licence (holder, date of birth, expiry)", nil)
	}
	order := orderFor(in.Country)
	var z viz.Zone
	var err error
	enough := func(z viz.Zone) bool {
		b, okB := z.DateFor(viz.RoleBirth)
		e, okE := z.DateFor(viz.RoleExpiry)
		return okB && okE && trusted(b) && trusted(e) && b.Role == viz.RoleBirth && e.Role == viz.RoleExpiry
	}
	z, err = readSides(ctx, d.OCR, in, Located{}, order, enough, nil, nil)
	if err != nil {
		return Errored(err, nil)
	}
	ev := map[string]any{"text": zoneText(z), "document_type": in.DocumentType}
	birth, okB := z.DateFor(viz.RoleBirth)
	expiry, okE := z.DateFor(viz.RoleExpiry)
	if okB {
		ev["birth_date"] = map[string]any{"printed": birth.Text, "date": birthDate(birth, in).String(), "confidence": birth.Conf}
	}
	if okE {
		ev["expiry_date"] = map[string]any{"printed": expiry.Text, "date": expiry.Date.String(), "confidence": expiry.Conf}
	}
	// A licence fails alone only on dates whose labels say what they are:
	// licences are valid 10–15 years, so an unread birth date leaves an
	// issue date that looks like a minor's birth date by its place.
	if okB && trusted(birth) && birth.Role == viz.RoleBirth {
		age := mrz.Age(birthDate(birth, in), in.Now)
		ev["age"] = age
		if age >= 0 && age < MinLicenceAge {
			return NeedsReview(fmt.Sprintf("driver licence: the date read as the birth date (%s) would make the holder %d years old, "+
				"younger than any licence is issued to: a person must read the licence", birth.Text, age), ev)
		}
		if age >= 0 && age < 18 {
			return Failed(verifyd.ReasonMinor, fmt.Sprintf("the licence's printed birth date %s makes the holder %d years old", birth.Text, age), ev)
		}
	}
	if okE && trusted(expiry) && expiry.Role == viz.RoleExpiry && expiry.Date.Time().Before(dateOf(in)) {
		return Failed(verifyd.ReasonExpiredID, "the licence expired on "+expiry.Date.String(), ev)
	}
	var missing []string
	if !okB {
		missing = append(missing, "birth date")
	}
	if !okE {
		missing = append(missing, "expiry date")
	}
	if len(missing) > 0 {
		return NeedsReview("driver licence: the "+strings.Join(missing, " and ")+" could not be read: a person must read the licence", ev)
	}
	// A date found only by its place among the dates, or read once with
	// low confidence, decided nothing above: say so rather than call the
	// holder an adult and the licence current.
	var unsure []string
	if !trusted(birth) || birth.Role != viz.RoleBirth {
		unsure = append(unsure, "birth date ("+birth.Text+")")
	}
	if !trusted(expiry) || expiry.Role != viz.RoleExpiry {
		unsure = append(unsure, "expiry date ("+expiry.Text+")")
	}
	if len(unsure) > 0 {
		return NeedsReview("driver licence: the "+strings.Join(unsure, " and ")+" was read but neither its label nor a second "+
			"reading confirms what it is: a person must read the licence", ev)
	}
	return NeedsReview(fmt.Sprintf("driver licence of an adult (born %s), current (expires %s): it has no machine-readable zone "+
		"to check it against, so a person must judge its authenticity", birth.Text, expiry.Text), ev)
}

// MinLicenceAge is the youngest age any licence (learner's permits
// included) is issued at. A birth date that makes the holder younger is
// another field's date taken for it (an issue date, read across a tilted
// licence as "3 … DATE OF ISSUE", failed an adult as a one-year-old on
// independently generated photos), not a minor's licence.
const MinLicenceAge = 14

// birthDate resolves a two-digit printed birth year: the latest century
// that does not put the birth in the future.
func birthDate(d viz.Date, in *Input) mrz.Date {
	b := d.Date
	if strings.HasPrefix(d.Digits, "__") && b.Time().After(in.Now) {
		b.Year -= 100
	}
	return b
}
