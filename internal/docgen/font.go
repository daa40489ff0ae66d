package docgen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// ErrNoFont is returned (wrapped) when the OCR-B font is not installed. On
// Debian and Ubuntu it comes with the package fonts-ocr-b; tests turn this
// error into a skip (a failure under VERIFYD_TEST_REQUIRE_ALL=1).
var ErrNoFont = errors.New("docgen: OCR-B font not found (install the Debian package fonts-ocr-b, or set VERIFYD_OCRB_FONT to OCRB.otf)")

// MRZAlphabet is the character set of machine-readable zones.
const MRZAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"

// FontDirs are the directories searched for OCRB.otf (Debian's fonts-ocr-b
// installs it in the first).
var FontDirs = []string{
	"/usr/share/fonts/opentype/ocr-b",
	"/usr/share/fonts/OTF",
	"/usr/local/share/fonts",
}

// Segment is one piece of a glyph outline in em units (1 = the em square),
// origin on the baseline at the left of the advance box, y growing downwards.
// Op is 'M' (move to P[0]), 'L' (line to P[0]), 'Q' (quadratic to P[1] via
// P[0]) or 'C' (cubic to P[2] via P[0], P[1]).
type Segment struct {
	Op byte
	P  [3][2]float64
}

// Font is the OCR-B font (Matthew Skala's METAFONT rendition of OCR-B, as
// packaged by Debian in fonts-ocr-b) reduced to the MRZ alphabet. Per
// /usr/share/doc/fonts-ocr-b/copyright the package is released to the
// public domain by its author; the OCR-B METAFONT sources it builds on
// (Norbert Schwarz) carry a permissive licence ("You may freely use,
// modify and/or distribute this file, without limitation").
//
// golang.org/x/image/font/sfnt does not implement the CFF "flex1" operator,
// which OCRB.otf uses for '8' and '<'. Those glyphs come from the "Sharp"
// cut of the same font (OCRBS.otf), whose outlines differ from the regular
// cut only in square instead of rounded stroke ends.
type Font struct {
	// Path is the file the regular cut was read from.
	Path    string
	advance float64 // em units; OCR-B is monospaced
	glyphs  map[rune][]Segment
	// Fallback lists the runes taken from the Sharp cut.
	Fallback []rune
}

var (
	fontOnce sync.Once
	fontVal  *Font
	fontErr  error
)

// OCRB loads the OCR-B font once. The error wraps ErrNoFont when the font
// files are not installed.
func OCRB() (*Font, error) {
	fontOnce.Do(func() { fontVal, fontErr = loadOCRB() })
	return fontVal, fontErr
}

func findFont(name string) string {
	if p := os.Getenv("VERIFYD_OCRB_FONT"); p != "" {
		p = filepath.Join(filepath.Dir(p), name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	for _, d := range FontDirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func loadOCRB() (*Font, error) {
	regular := findFont("OCRB.otf")
	if regular == "" {
		return nil, ErrNoFont
	}
	f := &Font{Path: regular, glyphs: map[rune][]Segment{}}
	main, err := parseFont(regular)
	if err != nil {
		return nil, err
	}
	var sharp *sfnt.Font
	if p := findFont("OCRBS.otf"); p != "" {
		if sharp, err = parseFont(p); err != nil {
			return nil, err
		}
	}
	var buf sfnt.Buffer
	upem := float64(main.UnitsPerEm())
	ppem := fixed.Int26_6(main.UnitsPerEm()) << 6
	gi, err := main.GlyphIndex(&buf, 'A')
	if err != nil {
		return nil, fmt.Errorf("docgen: %s: %w", regular, err)
	}
	adv, err := main.GlyphAdvance(&buf, gi, ppem, 0)
	if err != nil {
		return nil, fmt.Errorf("docgen: %s: %w", regular, err)
	}
	f.advance = float64(adv) / 64 / upem
	for _, r := range MRZAlphabet {
		segs, err := outline(main, &buf, r)
		if err != nil && sharp != nil {
			segs, err = outline(sharp, &buf, r)
			f.Fallback = append(f.Fallback, r)
		}
		if err != nil {
			return nil, fmt.Errorf("docgen: OCR-B glyph %q: %w", r, err)
		}
		f.glyphs[r] = segs
	}
	return f, nil
}

func parseFont(path string) (*sfnt.Font, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoFont, err)
	}
	f, err := sfnt.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("docgen: %s: %w", path, err)
	}
	return f, nil
}

func outline(f *sfnt.Font, buf *sfnt.Buffer, r rune) ([]Segment, error) {
	gi, err := f.GlyphIndex(buf, r)
	if err != nil {
		return nil, err
	}
	if gi == 0 {
		return nil, fmt.Errorf("no glyph")
	}
	upem := float64(f.UnitsPerEm())
	segs, err := f.LoadGlyph(buf, gi, fixed.Int26_6(f.UnitsPerEm())<<6, nil)
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("empty glyph")
	}
	out := make([]Segment, len(segs))
	for i, s := range segs {
		var o Segment
		n := 1
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			o.Op = 'M'
		case sfnt.SegmentOpLineTo:
			o.Op = 'L'
		case sfnt.SegmentOpQuadTo:
			o.Op, n = 'Q', 2
		case sfnt.SegmentOpCubeTo:
			o.Op, n = 'C', 3
		}
		for j := 0; j < n; j++ {
			o.P[j] = [2]float64{float64(s.Args[j].X) / 64 / upem, float64(s.Args[j].Y) / 64 / upem}
		}
		out[i] = o
	}
	return out, nil
}

// Advance is the character pitch in em units (0.723 for OCR-B).
func (f *Font) Advance() float64 { return f.advance }

// Outline returns the outline of r (one of MRZAlphabet), or nil.
func (f *Font) Outline(r rune) []Segment { return f.glyphs[r] }

// AddGlyph adds the outline of r to z, mapping each em-unit point (x, y) of
// the outline through tf to rasterizer coordinates.
func (f *Font) AddGlyph(z *vector.Rasterizer, r rune, tf func(x, y float64) (float64, float64)) {
	pt := func(p [2]float64) (float32, float32) {
		x, y := tf(p[0], p[1])
		return float32(x), float32(y)
	}
	open := false
	for _, s := range f.glyphs[r] {
		switch s.Op {
		case 'M':
			if open {
				z.ClosePath()
			}
			z.MoveTo(pt(s.P[0]))
			open = true
		case 'L':
			z.LineTo(pt(s.P[0]))
		case 'Q':
			ax, ay := pt(s.P[0])
			bx, by := pt(s.P[1])
			z.QuadTo(ax, ay, bx, by)
		case 'C':
			ax, ay := pt(s.P[0])
			bx, by := pt(s.P[1])
			cx, cy := pt(s.P[2])
			z.CubeTo(ax, ay, bx, by, cx, cy)
		}
	}
	if open {
		z.ClosePath()
	}
}
