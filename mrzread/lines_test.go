package mrzread

import (
	"math"
	"testing"
)

// TestMRZLike: a long, strictly regular line of glyphs small for their
// pitch is a zone's line (a printer's smaller OCR-B); a short one, or an
// irregular one, of the same proportions is not.
func TestMRZLike(t *testing.T) {
	tests := []struct {
		name      string
		p, h, reg float64
		narrow    int
		want      bool
	}{
		{"nominal OCR-B", 26, 25, 1, 30, true},
		{"glyphs 0.7 of the pitch, 30 of them", 39.5, 28, 1, 30, true},
		{"glyphs 0.7 of the pitch, 8 of them", 39.5, 28, 1, 8, false},
		{"glyphs 0.7 of the pitch, irregular", 39.5, 28, 0.7, 30, false},
		{"spaced capitals: glyphs half the pitch", 40, 20, 1, 30, false},
		{"short nominal line", 26, 25, 0.6, 6, true},
	}
	for _, tt := range tests {
		if got := mrzLike(&textLine{p: tt.p, h: tt.h, reg: tt.reg, narrow: tt.narrow}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLineHeightOfLetters: a zone's line of more fillers than letters,
// its fillers four fifths of its letters' height (a TD1 card's first
// line, as seed 44 printed one, less regular than a flat card's), is
// measured at its letters' height, taken for a zone's line and joined to
// the zone's lines of letters below it; a line of letters alone keeps its
// height, and so does every line's median, by which cells are placed.
func TestLineHeightOfLetters(t *testing.T) {
	var cs []comp
	// line lays out letters then fillers at pitch 16 on baseline y (1.45 fillers' heights, 1.14 letters'); every
	// seventh glyph is 3 px off its place, so that the line is as irregular
	// as a card's at a steep angle (regularity about 0.7).
	line := func(letters, fillers, y int) *textLine {
		l := &textLine{}
		for i := 0; i < letters+fillers; i++ {
			x := 20 + 16*i
			if i%7 == 3 {
				x += 3
			}
			c := comp{x0: x, y0: y - 14, x1: x + 10, y1: y, area: 60}
			if i >= letters {
				// OCR-B's '<' stands a little above the baseline.
				c = comp{x0: x + 1, y0: y - 12, x1: x + 9, y1: y - 1, area: 30}
			}
			l.comps = append(l.comps, len(cs))
			cs = append(cs, c)
		}
		return l
	}
	tests := []struct {
		name             string
		letters, fillers int
		median           float64
	}{
		{"TD1 first line, 16 fillers of 30", 14, 16, 11},
		{"mostly fillers, 22 of 30", 8, 22, 11},
		{"letters only", 30, 0, 14},
	}
	for _, tt := range tests {
		l := line(tt.letters, tt.fillers, 100)
		fitLine(cs, l)
		if l.hl != 14 || l.h != tt.median {
			t.Errorf("%s: letters' height %v, median %v; want 14, %v", tt.name, l.hl, l.h, tt.median)
		}
		if !mrzLike(l) {
			t.Errorf("%s: not taken for a zone's line (pitch %v, height %v, regularity %v)", tt.name, l.p, l.h, l.reg)
		}
		if mrzProportions(l, l.h) != (tt.fillers == 0) {
			t.Errorf("%s: judged by its median alone, taken for a zone's line: %v", tt.name, mrzProportions(l, l.h))
		}
	}
	// A card's zone: the first line mostly fillers, the second letters,
	// the third a name with fillers.
	cs = cs[:0]
	zone := []*textLine{line(14, 16, 200), line(30, 0, 226), line(18, 12, 252)}
	for _, l := range zone {
		fitLine(cs, l)
	}
	if got := selectBand(zone, 0); len(got) != 3 || got[0] != zone[0] {
		t.Errorf("zone of three lines: %d lines selected", len(got))
	}
}

// TestPitchOfSquashedLine: a passport's first line of a short name (14
// letters 20 px tall, 30 fillers 16 px tall) on a page tilted away from
// the camera, squashed to three quarters of its height: the glyphs are 27
// px apart, 1.7 times the line's median height (its fillers'). Its pitch is measured from its steps (maxStep),
// so it is regular and a zone's line.
func TestPitchOfSquashedLine(t *testing.T) {
	var cs []comp
	l := &textLine{}
	for i := 0; i < 44; i++ {
		x := 20 + 27*i
		c := comp{x0: x, y0: 80, x1: x + 13, y1: 100, area: 120}
		if i >= 14 {
			c = comp{x0: x + 1, y0: 83, x1: x + 12, y1: 99, area: 50}
		}
		l.comps = append(l.comps, len(cs))
		cs = append(cs, c)
	}
	fitLine(cs, l)
	if math.Abs(l.p-27) > 0.5 || l.reg < 0.9 || !mrzLike(l) {
		t.Errorf("pitch %.1f (want 27), regularity %.2f, median height %.0f, letters' %.0f, zone's line %v", l.p, l.reg, l.h, l.hl, mrzLike(l))
	}
}
