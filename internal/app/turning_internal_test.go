package app

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// TestTurning checks that a point marked on a photo is drawn where
// turning.to says, and that from undoes to, for a whole photo and for a
// square about a point of it, on a photo whose bounds do not start at 0
// (a sub-image, as the closer look at a document passes).
func TestTurning(t *testing.T) {
	full := image.NewRGBA(image.Rect(0, 0, 900, 700))
	photo := full.SubImage(image.Rect(100, 50, 900, 650)).(*image.RGBA) // 800 × 600, Min (100, 50)
	mark := image.Point{X: 520, Y: 230}                                 // in full's pixels
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			full.Set(mark.X+dx, mark.Y+dy, color.RGBA{255, 255, 255, 255})
		}
	}
	p := faceapi.Point{X: float64(mark.X - 100), Y: float64(mark.Y - 50)} // photo's pixels, Min at 0
	for _, tc := range []struct {
		name string
		tr   turning
	}{
		{"whole, 20°", whole(photo, 20)},
		{"whole, −35°", whole(photo, -35)},
		{"square about the mark, 30°", turning{c: faceapi.Point{X: p.X - 10, Y: p.Y + 5}, w: 120, h: 120, deg: 30}},
		{"square about the mark, −25°, at 0.4", turning{c: faceapi.Point{X: p.X + 20, Y: p.Y - 15}, w: 80, h: 80, deg: -25, zoom: 0.4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.tr.to(p)
			if back := tc.tr.from(q); math.Hypot(back.X-p.X, back.Y-p.Y) > 1e-9 {
				t.Errorf("from(to(%v)) = %v", p, back)
			}
			canvas := tc.tr.draw(photo)
			var sx, sy, n float64
			for y := range canvas.Rect.Dy() {
				for x := range canvas.Rect.Dx() {
					if canvas.RGBAAt(x, y).R > 200 {
						sx, sy, n = sx+float64(x)+0.5, sy+float64(y)+0.5, n+1
					}
				}
			}
			if n == 0 {
				t.Fatalf("the mark is not on the canvas (want it at %v)", q)
			}
			// Pixel centres: the mark's centre is at mark + 0.5.
			want := tc.tr.to(faceapi.Point{X: p.X + 0.5, Y: p.Y + 0.5})
			if d := math.Hypot(sx/n-want.X, sy/n-want.Y); d > 1 {
				t.Errorf("mark drawn at (%.1f, %.1f), to() says (%.1f, %.1f)", sx/n, sy/n, want.X, want.Y)
			}
		})
	}
}

// to maps a point of the photo to the canvas: the inverse of from,
// written out on its own for the test to check from and draw against.
func (t turning) to(p faceapi.Point) faceapi.Point {
	s, c, _ := t.rot()
	x, y := p.X-t.c.X, p.Y-t.c.Y
	return faceapi.Point{X: float64(t.w)/2 + c*x - s*y, Y: float64(t.h)/2 + s*x + c*y}
}
