// Package mrzread finds and reads the machine-readable zone (MRZ) of a
// photographed or scanned identity document, in pure Go.
//
// Read takes an image and returns the recognised lines with per-character
// confidences, where the zone is (Band, Quad), how it is tilted (Skew), and
// two flags for incomplete evidence: CutOff (the zone runs off the image)
// and Covered (a run of unreadable characters inside the image: a finger,
// glare). mrz.Parse turns the lines into fields.
//
// It is a reader for one font, not a general OCR engine:
//
//  1. Grey levels; for detection, images larger than ~1700 pixels are
//     shrunk by an integer factor.
//  2. Adaptive threshold (dark against the mean of a window about 1/25 of
//     the image by 15 % of it, or by 1.5 local standard deviations when
//     connected to such a pixel; at least a floor set by the image's
//     range and noise, a noisy image smoothed first), connected
//     components (union-find over runs).
//  3. Text lines: every glyph-sized component is linked to its nearest
//     right neighbour of similar height on the same row; chains are
//     extended over gaps by collinear pieces a whole number of pitches
//     away (the parts of a line on either side of a finger), and by
//     nearby pieces whose own baseline meets the line's at the break
//     (a bowed line broken in two).
//  4. The zone: 1–3 parallel lines, 1.2–2.4 glyph heights apart, of many
//     glyphs at a regular pitch close to their height (0.7–1.35 heights;
//     up to 1.6 for 20 or more glyphs at a strictly regular pitch, as a
//     printer's smaller OCR-B gives), preferring lines of 30, 36 or 44
//     characters. The ends of each line are followed over
//     faint ink to the last glyph; an end is clean, blocked (something
//     crosses the line) or at the image border.
//  5. The format follows from the number of lines and characters (or the
//     hint). Each line's baseline is fitted through its glyph bottoms
//     (which gives the skew); its glyphs are numbered by the fixed pitch and
//     a 1-D projective map x(k) = (a + b k)/(1 + c k) — perspective along a
//     straight line — is fitted through their centres, anchored at the
//     line's ends or at those of a neighbouring line. Connected components
//     merge and split, so cells come from the pitch, not from components.
//     Lines not found are extrapolated from their neighbours.
//  6. Each cell is resampled (deskewed, scaled to the template grid) and
//     matched by normalised cross-correlation against OCR-B templates of the
//     37 MRZ characters at 4 blurs × 2 stroke weights, with small shifts;
//     then matched again with the position fixed where the line's confident
//     glyphs sit, so that size and position within the cell count (the
//     digit 0 is taller than the letter O). Where the glyphs sit is a
//     straight fit along the line, or a local fit where the line bows by
//     more than a template pixel (bent page, lens); cells whose glyph the
//     fit puts beyond the free search are searched again around it. The
//     cell one pitch beyond either end is matched too, and the line's
//     cells are renumbered one pitch either way when that explains
//     clearly more glyph evidence (a speck taken for the first glyph).
//  7. Each position takes the best character its field allows (digits in
//     dates and check digits, letters in names and codes: O→0, I→1, B→8…
//     or the reverse). A failing check digit is repaired when exactly one
//     ambiguous character's runner-up makes it verify (reported in
//     Corrections); when checks still fail, letters and digits that OCR-B
//     prints alike (O/0, I/1, S/5, B/8, Z/2, G/6) are swapped in the
//     fields that admit both, up to four, taking the cheapest combination
//     that makes every check verify and best explains both the glyphs
//     and how such fields are written (runs of digits and of letters),
//     when it is clearly the best (lookalike.go, numbers.go); the zone's
//     own dates say how much its printer's digits look like their
//     look-alike letters (digitBias), and that much is given back to a
//     letter that may be the same digit elsewhere. A state
//     code (issuing state, nationality) that is no state's is replaced
//     by the one ISO 3166 or ICAO code one close glyph away, when no
//     other comes close (states.go). In the name field, a letter after three fillers in a
//     row (which only the trailing filler can be) becomes '<' when that
//     is its runner-up and unreadable otherwise. A two-line zone that does
//     not verify is also read as the other two-line layout (TD2 ↔ TD3),
//     taken only if it verifies without corrections and its first glyph
//     is that layout's document code.
//     A hinted reading (the declared document type) that does not verify
//     is read again in the format its lines show, taken if it verifies
//     and parses: people photograph a card as a "passport".
//  8. If the result does not verify (or verifies with more than two
//     low-confidence characters), or the zone is seen at an angle (turned
//     by 8° or more, its lines' spacing more than 12 % off the nominal 6
//     lines per inch at 10 characters per inch, or its columns leaning by
//     more than 0.09), the zone is read again from a rectified band: the
//     text direction (±45°) is the mode of the directions between
//     neighbouring glyph-sized components, the detection image is turned
//     level, each line of the zone gets a baseline with a quadratic term
//     (bent page, lens distortion), the direction of the columns at either
//     end of the zone is where the ink projects most sharply across the
//     lines (deslanting; perspective leans the columns, differently along
//     the line), the height across the lines is set from their spacing
//     (perspective foreshortens the glyphs across the line), and the zone
//     is resampled onto a straight, upright band at 24 px pitch that
//     steps 2–7 read. The better reading wins; of two valid readings of a
//     zone seen at an angle, the rectified one unless it is clearly less
//     sure. Each line also estimates its glyphs' width and height
//     relative to the templates (another printer, another OCR-B) and
//     matches its cells at that scale.
//  9. If the result still does not verify, the image is also read turned
//     by 180°, 90° and 270°.
//
// A zone whose characters were all read, whose check digits verify and
// whose cells all lie inside the image is never flagged CutOff or
// Covered.
//
// The templates are rendered from the OCR-B font of Debian's fonts-ocr-b by
// go generate (internal/gentemplates) and embedded, so no font is needed at
// run time. Accuracy and speed are measured in TestAccuracy; see
// docs/accuracy.md.
package mrzread
