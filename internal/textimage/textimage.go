// Package textimage draws text in Go Regular (golang.org/x/image's
// gofont) onto images: printed text of known content and place for the
// tests of the OCR engines and of what reads their output.
package textimage

import (
	"image"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Write draws text in black, size pixels to the em, with its baseline
// starting at (x, y).
func Write(dst draw.Image, size float64, x, y int, text string) error {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return err
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return err
	}
	defer face.Close()
	d := font.Drawer{Dst: dst, Src: image.Black, Face: face, Dot: fixed.P(x, y)}
	d.DrawString(text)
	return nil
}
