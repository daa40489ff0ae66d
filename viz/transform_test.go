package viz

import (
	"image"
	"math"
	"math/rand/v2"
	"slices"
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

// TestScaleGrayExact: scaleGray draws what x/image/draw's ApproxBiLinear
// draws into a Gray, pixel for pixel, from JPEG-like photos of every
// chroma subsampling, shrunk and enlarged, from a part of the photo away
// from its origin and from a sub-image; other sources go to the library.
func TestScaleGrayExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio444} {
		img := image.NewYCbCr(image.Rect(0, 0, 400, 300), ratio)
		for i := range img.Y {
			img.Y[i] = uint8(rng.IntN(256))
		}
		for i := range img.Cb {
			img.Cb[i], img.Cr[i] = uint8(64+rng.IntN(128)), uint8(64+rng.IntN(128))
		}
		sub := img.SubImage(image.Rect(30, 20, 390, 290))
		for _, tc := range []struct {
			src    image.Image
			sr     image.Rectangle
			w, h   int
			useLib bool
		}{
			{img, img.Bounds(), 130, 97, false},                  // shrunk
			{img, image.Rect(57, 31, 301, 233), 500, 410, false}, // enlarged, off the origin
			{sub, image.Rect(41, 25, 389, 281), 200, 150, false}, // a sub-image
			{img, image.Rect(10, 10, 110, 60), 100, 50, true},    // same size: the library copies
			{img, image.Rect(-5, 0, 100, 60), 40, 30, true},      // outside the photo: the library
		} {
			want := image.NewGray(image.Rect(0, 0, tc.w, tc.h))
			xdraw.ApproxBiLinear.Scale(want, want.Bounds(), tc.src, tc.sr, xdraw.Src, nil)
			got := image.NewGray(image.Rect(0, 0, tc.w, tc.h))
			scaleGray(got, tc.src, tc.sr)
			diff := 0
			for i := range got.Pix {
				if got.Pix[i] != want.Pix[i] {
					diff++
				}
			}
			if diff > 0 {
				t.Errorf("%v, %v to %d×%d: %d of %d pixels differ from x/image/draw's", ratio, tc.sr, tc.w, tc.h, diff, len(got.Pix))
			}
		}
	}
	// Any other source is drawn by the library itself.
	rgba := image.NewRGBA(image.Rect(0, 0, 50, 40))
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(rng.IntN(256))
	}
	want, got := image.NewGray(image.Rect(0, 0, 20, 15)), image.NewGray(image.Rect(0, 0, 20, 15))
	xdraw.ApproxBiLinear.Scale(want, want.Bounds(), rgba, rgba.Bounds(), xdraw.Src, nil)
	scaleGray(got, rgba, rgba.Bounds())
	if !slices.Equal(got.Pix, want.Pix) {
		t.Error("an RGBA source was drawn differently from x/image/draw's")
	}
}

// BenchmarkScaleGray draws TextRegion's 1000 × 750 picture of a 12 MP
// JPEG-like photo by x/image/draw's generic path and by scaleGray.
func BenchmarkScaleGray(b *testing.B) {
	img := photoLike(4000, 3000, 2)
	g := image.NewGray(image.Rect(0, 0, 1000, 750))
	b.Run("x-image-draw", func(b *testing.B) {
		for b.Loop() {
			xdraw.ApproxBiLinear.Scale(g, g.Bounds(), img, img.Bounds(), xdraw.Src, nil)
		}
	})
	b.Run("scaleGray", func(b *testing.B) {
		for b.Loop() {
			scaleGray(g, img, img.Bounds())
		}
	})
}
