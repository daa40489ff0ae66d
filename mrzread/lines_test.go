package mrzread

import "testing"

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
