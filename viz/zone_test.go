package viz

import (
	"image"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/ocr"
)

// words lays out lines of text as OCR words: each word 20 px per
// character wide and 30 px tall, lines 50 px apart; " | " starts a column
// 400 px further right, which OCR reads as a line of its own (as
// Tesseract's sparse-text mode does with a document's fields).
func words(lines ...string) []ocr.Word {
	var out []ocr.Word
	for i, l := range lines {
		for col, seg := range strings.Split(l, " | ") {
			x := 10 + 400*col
			for _, w := range strings.Fields(seg) {
				out = append(out, ocr.Word{Text: w, Conf: 0.95, Box: image.Rect(x, 10+50*i, x+20*len(w), 40+50*i), Block: 1 + col, Line: i})
				x += 20*len(w) + 15
			}
		}
	}
	return out
}

func TestLicenceLabels(t *testing.T) {
	z := NewZone(words("DRIVING LICENCE", "1. YILMAZ", "2. NOAH", "3. 08.01.1976 UTRECHT", "4A. 14.02.2008 4C. DVLA", "4B. 14.02.2023", "5. Q0865805"), DMY)
	for _, d := range z.Dates {
		t.Logf("%+v", d)
	}
	b, ok := z.DateFor(RoleBirth)
	if !ok || b.Date.Year != 1976 {
		t.Errorf("birth: %+v %v", b, ok)
	}
	e, ok := z.DateFor(RoleExpiry)
	if !ok || e.Date.Year != 2023 {
		t.Errorf("expiry: %+v %v", e, ok)
	}
}
