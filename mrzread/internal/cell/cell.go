// Package cell fixes the geometry of the normalised glyph cell shared by
// the template generator and the reader.
//
// A cell is one character position of an MRZ line: horizontally the OCR-B
// advance box (one pitch), vertically from Top to Bottom em units around the
// baseline (y grows downwards, so Top is negative). It is sampled on a grid
// of W×H square pixels of Scale em each.
package cell

const (
	// W and H are the size of a template in pixels.
	W, H = 18, 24
	// Advance is the OCR-B character pitch in em units.
	Advance = 0.723
	// Scale is the size of a template pixel in em units.
	Scale = Advance / W
	// Top is the y of the cell's top edge relative to the baseline, in em
	// (the tallest MRZ glyphs, the digits, reach -0.773).
	Top = -0.86
	// Margin is how many pixels the reader samples around the cell to try
	// shifted positions.
	Margin = 3
)

// Alphabet is the MRZ character set in template order.
const Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"

// Blurs are the Gaussian standard deviations (template pixels) and Bold
// the stroke thickenings (em, each side) of the template variants; the
// variants are ordered blur-major: v = b*len(Bold) + w. A heavier
// weight, 0.03 em, read one more bold low-resolution print right on
// independently generated documents but made a soft photo's AUS and RUBY
// read AWX and AURY (a blurred glyph is a bold one too), and was left
// out (docs/accuracy.md, seventeenth pass).
var (
	Blurs = []float64{0.5, 1.0, 1.6, 2.4}
	Bold  = []float64{0, 0.012}
)

// Variants is the number of templates per character.
func Variants() int { return len(Blurs) * len(Bold) }
