package engine

import (
	"image"
	"image/color"
	"image/draw"
	"testing"
)

// TestPortraitRegion checks where the face check looks again for a
// portrait: the document's outline with a margin, and nowhere when that
// is nearly the whole photo (the detector would see the same face at
// nearly the same size).
func TestPortraitRegion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		width int // the card's, on a 1000 × 750 photo
		ok    bool
	}{
		{"a card filling half the photo's width", 500, true},
		{"seven tenths", 700, true},
		{"nearly all of it", 880, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			img := image.NewGray(image.Rect(0, 0, 1000, 750))
			draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{40}), image.Point{}, draw.Src)
			h := tt.width * 1000 / 1586
			card := image.Rect(500-tt.width/2, 375-h/2, 500+tt.width/2, 375+h/2)
			draw.Draw(img, card, image.NewUniform(color.Gray{220}), image.Point{}, draw.Src)
			in := &Input{Front: &Image{Image: img}, Facts: map[string]any{}}
			r, ok := portraitRegion(in)
			if ok != tt.ok {
				t.Fatalf("portraitRegion = %v, %v; want ok %v", r, ok, tt.ok)
			}
			if ok && !card.In(r) {
				t.Errorf("region %v does not hold the card %v", r, card)
			}
		})
	}
}
