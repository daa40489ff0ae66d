package viz

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"
)

// TestTransformGrayExact: transformGray draws what x/image/draw's
// BiLinear.Transform draws into RGBA, pixel for pixel — turned, shrunk
// (where the kernel widens), enlarged, from a sub-image, onto a window —
// so that the pages Tesseract reads did not change when it replaced it.
func TestTransformGrayExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	full := image.NewGray(image.Rect(0, 0, 640, 480))
	for i := range full.Pix {
		// Text-like: mostly light, dark strokes, some noise.
		full.Pix[i] = uint8(200 + rng.IntN(56))
		if (i/7)%5 == 0 && (i/full.Stride)%9 < 4 {
			full.Pix[i] = uint8(rng.IntN(60))
		}
	}
	for _, tt := range []struct {
		name       string
		sr         image.Rectangle
		angle, s   float64
		w, h, offX int
	}{
		{"level, enlarged", image.Rect(0, 0, 640, 480), 0, 1.7, 900, 700, 0},
		{"turned 7°, shrunk to 0.8", image.Rect(0, 0, 640, 480), 7, 0.8, 600, 450, 0},
		{"turned -13°, shrunk to 0.45", image.Rect(0, 0, 640, 480), -13, 0.45, 320, 260, 0},
		{"sub-image, turned 2.5°, 1:1", image.Rect(111, 57, 503, 401), 2.5, 1, 450, 420, 0},
		{"sub-image, a window of the page", image.Rect(40, 30, 600, 470), -4, 1.3, 300, 200, 150},
		{"turned 90°", image.Rect(0, 0, 640, 480), 90, 0.9, 440, 590, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := full.SubImage(tt.sr).(*image.Gray)
			a := tt.angle * math.Pi / 180
			cos, sin := math.Cos(a), math.Sin(a)
			cx, cy := float64(tt.sr.Min.X+tt.sr.Max.X)/2, float64(tt.sr.Min.Y+tt.sr.Max.Y)/2
			m := f64.Aff3{tt.s * cos, -tt.s * sin, 0, tt.s * sin, tt.s * cos, 0}
			m[2] = float64(tt.w)/2 - float64(tt.offX) - (m[0]*cx + m[1]*cy)
			m[5] = float64(tt.h)/2 - (m[3]*cx + m[4]*cy)
			want := image.NewRGBA(image.Rect(0, 0, tt.w, tt.h))
			for i := range want.Pix {
				want.Pix[i] = 0xff
			}
			xdraw.BiLinear.Transform(want, m, src, tt.sr, xdraw.Src, nil)
			got := image.NewGray(image.Rect(0, 0, tt.w, tt.h))
			for i := range got.Pix {
				got.Pix[i] = 0xff
			}
			transformGray(got, m, src, tt.sr)
			diff, dark := 0, 0
			for i, v := range got.Pix {
				if v != want.Pix[4*i] {
					diff++
				}
				if v < 100 {
					dark++
				}
			}
			if diff > 0 || dark == 0 {
				t.Errorf("%d of %d pixels differ from x/image/draw's (%d dark drawn)", diff, len(got.Pix), dark)
			}
		})
	}
}

// BenchmarkPrepareKernel draws a page through the tent kernel (a page
// shrunk by less than three quarters, or enlarged: most pages of
// documents that fill less of a photo): a 2000 × 1400 crop of a 12
// MP-like photo turned by 4° to 1600 px, and a 1000 × 700 crop to 1600.
func BenchmarkPrepareKernel(b *testing.B) {
	img := photoLike(4000, 3000, 2)
	for _, tt := range []struct {
		name string
		rect image.Rectangle
	}{{"shrunk to 0.8", image.Rect(1000, 800, 3000, 2200)}, {"enlarged 1.6", image.Rect(1500, 1000, 2500, 1700)}} {
		b.Run(tt.name, func(b *testing.B) {
			r := Region{Rect: tt.rect, Angle: 4}
			for b.Loop() {
				Prepare(img, r)
			}
		})
	}
}

// TestFloorCeil: the call-free floor and ceil agree with math's on
// whole, fractional, negative and tiny values.
func TestFloorCeil(t *testing.T) {
	for _, x := range []float64{0, -0.0, 0.5, -0.5, 1, -1, 2.999999, -2.999999, 1e-12, -1e-12, 4095.5, -4095.5, 123456.75} {
		if got, want := floor(x), int(math.Floor(x)); got != want {
			t.Errorf("floor(%v) = %d, want %d", x, got, want)
		}
		if got, want := ceil(x), int(math.Ceil(x)); got != want {
			t.Errorf("ceil(%v) = %d, want %d", x, got, want)
		}
	}
}
