package docgen

import (
	"image"
	"image/color"
	"math/rand/v2"
)

// drawFace draws a simple synthetic portrait (background, shoulders, neck,
// hair, face, eyes, brows, nose, mouth) into box.
func drawFace(img *image.RGBA, box image.Rectangle, rng *rand.Rand) {
	x0, y0 := float64(box.Min.X), float64(box.Min.Y)
	w, h := float64(box.Dx()), float64(box.Dy())
	bg := hsl(190+40*rng.Float64(), 0.15, 0.78+0.1*rng.Float64())
	fillRect(img, x0, y0, x0+w, y0+h, bg)

	skins := []color.RGBA{{241, 204, 177, 255}, {224, 172, 135, 255}, {198, 145, 104, 255}, {141, 95, 67, 255}, {92, 62, 44, 255}}
	skin := skins[rng.IntN(len(skins))]
	hairs := []color.RGBA{{30, 25, 20, 255}, {80, 50, 30, 255}, {160, 120, 60, 255}, {200, 180, 140, 255}, {120, 120, 120, 255}}
	hair := hairs[rng.IntN(len(hairs))]
	shirt := hsl(rng.Float64()*360, 0.3, 0.2+0.4*rng.Float64())

	cx := x0 + w*(0.5+0.04*rng.NormFloat64())
	cy := y0 + h*0.42
	fw, fh := w*(0.27+0.03*rng.Float64()), h*(0.25+0.03*rng.Float64())

	// Clip drawing to the box.
	sub := img.SubImage(box).(*image.RGBA)
	fillEllipse(sub, cx, y0+h*1.08, w*0.62, h*0.3, shirt)             // shoulders
	fillRect(sub, cx-fw*0.45, cy+fh*0.6, cx+fw*0.45, y0+h*0.85, skin) // neck
	fillEllipse(sub, cx, cy-fh*0.15, fw*1.12, fh*1.08, hair)          // hair
	fillEllipse(sub, cx, cy, fw, fh, skin)                            // face
	fillEllipse(sub, cx-fw*0.98, cy+fh*0.05, fw*0.12, fh*0.18, skin)  // ears
	fillEllipse(sub, cx+fw*0.98, cy+fh*0.05, fw*0.12, fh*0.18, skin)
	fillEllipse(sub, cx, cy-fh*0.75, fw*0.9, fh*0.32, hair) // fringe
	dark := mix(skin, color.RGBA{20, 10, 5, 255}, 0.75)
	for _, s := range []float64{-1, 1} {
		ex := cx + s*fw*0.38
		ey := cy - fh*0.08
		fillEllipse(sub, ex, ey, fw*0.17, fh*0.07, color.RGBA{245, 245, 240, 255})
		fillEllipse(sub, ex, ey, fw*0.075, fh*0.065, mix(hair, color.RGBA{40, 60, 80, 255}, 0.5))
		fillEllipse(sub, ex, ey-fh*0.2, fw*0.2, fh*0.035, mix(hair, dark, 0.3)) // brow
	}
	fillEllipse(sub, cx, cy+fh*0.22, fw*0.09, fh*0.05, mix(skin, dark, 0.35))                      // nose
	fillEllipse(sub, cx, cy+fh*0.5, fw*0.3, fh*0.06, mix(skin, color.RGBA{150, 40, 50, 255}, 0.5)) // mouth
}
