package viz_test

import (
	"context"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/ocr"
)

// TestNoInvertedReading: the engine reads no line again inverted
// (ocr.DoInvert): a document's fields, dark on light, are read; a word
// printed light on a dark band is not, as the cost of a third less time
// a page (docs/performance.md). With tessedit_do_invert=1, Tesseract's
// default, the band's word is read.
func TestNoInvertedReading(t *testing.T) {
	tess := tesseract(t)
	page := blank(1200, 500)
	write(t, page, 48, 100, 120, "23 AUG 1974")
	band := blank(1000, 140)
	write(t, band, 64, 60, 100, "PASSPORT")
	for i, p := range band.Pix {
		band.Pix[i] = 255 - p
	}
	for y := range 140 {
		copy(page.Pix[page.PixOffset(100, 250+y):], band.Pix[band.PixOffset(0, y):band.PixOffset(1000, y)])
	}
	words, err := tess.Words(context.Background(), page, ocr.Options{PSM: 6, DPI: 300})
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, w := range words {
		text = append(text, w.Text)
	}
	got := strings.Join(text, " ")
	t.Logf("read: %q", got)
	if !strings.Contains(got, "1974") {
		t.Errorf("the dark-on-light date was not read: %q", got)
	}
	if strings.Contains(got, "PASSPORT") {
		t.Errorf("the light-on-dark word was read: lines are read again inverted (%q)", got)
	}
}
