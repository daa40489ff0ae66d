package mrzocr

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// renderMono draws lines in Go Mono, a monospaced font that is not
// OCR-B, dark grey on light paper, size px per em, with a margin.
func renderMono(t testing.TB, lines []string, size float64) *image.Gray {
	t.Helper()
	f, err := opentype.Parse(gomono.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	adv, _ := face.GlyphAdvance('A')
	w := int(float64(adv.Ceil()*len(lines[0])) + 4*size)
	lh := int(size * 1.5)
	h := lh*len(lines) + int(3*size)
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{Y: 225}), image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.NewUniform(color.Gray{Y: 40}), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(int(2*size), int(1.5*size)+lh*(i+1)-lh/3)
		d.DrawString(l)
	}
	return img
}
