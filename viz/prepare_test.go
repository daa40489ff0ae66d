package viz

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"testing"

	xdraw "golang.org/x/image/draw"
)

// photoLike returns a w × h JPEG-like photo (YCbCr 4:2:0) of dark strokes
// on a light, unevenly lit background: what the page drawing has to carry
// over without changing it.
func photoLike(w, h int, seed uint64) *image.YCbCr {
	rng := rand.New(rand.NewPCG(seed, 1))
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			img.Y[img.YOffset(x, y)] = uint8(170 + 60*x/w + rng.IntN(20))
		}
	}
	for range w * h / 400 {
		x, y, l := rng.IntN(w), rng.IntN(h), 3+rng.IntN(20)
		for i := range l {
			if x+i < w {
				img.Y[img.YOffset(x+i, y)] = uint8(20 + rng.IntN(40))
			}
		}
	}
	for i := range img.Cb {
		img.Cb[i], img.Cr[i] = uint8(120+rng.IntN(16)), uint8(124+rng.IntN(16))
	}
	return img
}

// The page Prepare draws does not depend on how the photo's pixels are
// held (a JPEG's planes, decoded PNG colours, grey), and equals, within a
// grey level of rounding, the page x/image/draw's generic path draws from
// the photo into grey directly — which was how it was drawn before
// pages were drawn through RGBA for speed (BenchmarkPrepare).
func TestPrepareAnyPixelType(t *testing.T) {
	ycc := photoLike(900, 640, 3)
	b := ycc.Bounds()
	rgba := image.NewRGBA(b)
	draw.Draw(rgba, b, ycc, b.Min, draw.Src)
	nrgba := image.NewNRGBA(b)
	draw.Draw(nrgba, b, ycc, b.Min, draw.Src)
	grey := image.NewGray(b)
	draw.Draw(grey, b, ycc, b.Min, draw.Src)
	quad := [4]image.Point{{100, 500}, {800, 520}, {798, 600}, {98, 580}}
	for _, r := range []Region{
		{Rect: image.Rect(60, 40, 860, 620), Angle: 6, Mask: [][4]image.Point{quad}},
		{Rect: image.Rect(60, 40, 860, 620), Side: 400}, // shrunk: ApproxBiLinear
		{Rect: image.Rect(0, 0, 300, 200), Side: 900},   // enlarged
	} {
		// The generic path, as Prepare drew before.
		g := geometryOf(b, r)
		src := grayOf(ycc, b, r.Mask)
		want := image.NewGray(image.Rect(0, 0, g.w, g.h))
		draw.Draw(want, want.Bounds(), image.White, image.Point{}, draw.Src)
		interp := xdraw.Interpolator(xdraw.BiLinear)
		if g.s < 0.75 {
			interp = xdraw.ApproxBiLinear
		}
		interp.Transform(want, g.m, image.Image(src), g.rect, xdraw.Over, nil)
		dark := 0
		for _, p := range want.Pix {
			if p < 100 {
				dark++
			}
		}
		if dark < 100 {
			t.Fatalf("%+v: the reference page has %d dark pixels: nothing to compare", r, dark)
		}
		for name, img := range map[string]image.Image{"ycbcr": ycc, "rgba": rgba, "nrgba": nrgba, "gray": grey} {
			got := Prepare(img, r)
			if got.Rect != want.Rect {
				t.Fatalf("%+v %s: page %v, want %v", r, name, got.Rect, want.Rect)
			}
			worst := 0
			for i := range got.Pix {
				worst = max(worst, abs(int(got.Pix[i])-int(want.Pix[i])))
			}
			// A grey level of rounding in the drawing, and one more where
			// the photo's colours were rounded from its planes.
			tol := 2
			if name == "ycbcr" {
				tol = 1
			}
			if worst > tol {
				t.Errorf("%+v %s: pixels differ by up to %d grey levels from the generic path's (at most %d)", r, name, worst, tol)
			}
		}
		// The mask is painted on the copy, never on the photo.
		if len(r.Mask) > 0 && ycc.Y[ycc.YOffset(400, 550)] == 0xff {
			t.Errorf("the mask was painted on the photo itself")
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// A JPEG's luma plane is shared, not copied, when nothing is masked.
func TestGrayOfSharesLuma(t *testing.T) {
	ycc := photoLike(200, 100, 1)
	g := grayOf(ycc, image.Rect(10, 10, 50, 50), nil)
	ycc.Y[ycc.YOffset(20, 30)] = 7
	if g.GrayAt(20, 30) != (color.Gray{Y: 7}) {
		t.Errorf("grayOf copied the luma plane: %v", g.GrayAt(20, 30))
	}
}

// BenchmarkPrepare draws a page of TargetSide from a 12 MP JPEG-like photo
// (4000×3000, the document in 3000×2000 of it, turned by 4°, an MRZ
// masked), as each visual-zone reading does.
func BenchmarkPrepare(b *testing.B) {
	img := photoLike(4000, 3000, 2)
	r := Region{Rect: image.Rect(500, 500, 3500, 2500), Angle: 4,
		Mask: [][4]image.Point{{{600, 2000}, {3400, 2050}, {3400, 2400}, {600, 2350}}}}
	b.ReportAllocs()
	for b.Loop() {
		Prepare(img, r)
	}
}

// A document turned on the photo is drawn, levelled, cut to its outline
// (Region.Outline): the same pixels as the page drawn whole, where they
// overlap, on a page of about the document's own size instead of the
// turned crop's bounding box turned again; a level document's page does
// not change.
func TestPrepareOutline(t *testing.T) {
	photo := photoLike(1800, 1400, 5)
	b := photo.Bounds()
	for _, tc := range []struct {
		deg       float64
		cut       bool
		maxPixels float64 // the page's pixels over the document's at the page's scale
	}{
		{15, true, 1.1},
		{-9, true, 1.1},
		{0, false, 1.01},
	} {
		// A 1000 × 700 px document turned by deg about (900, 700).
		s, c := math.Sincos(tc.deg * math.Pi / 180)
		var outline [4]image.Point
		rect := image.Rectangle{}
		for i, p := range [4][2]float64{{-500, -350}, {500, -350}, {500, 350}, {-500, 350}} {
			outline[i] = image.Pt(int(math.Round(900+p[0]*c-p[1]*s)), int(math.Round(700+p[0]*s+p[1]*c)))
			rect = rect.Union(image.Rectangle{outline[i], outline[i].Add(image.Pt(1, 1))})
		}
		whole := Region{Rect: rect, Angle: tc.deg, Side: 1200}
		cut := whole
		cut.Outline = outline
		gw, gc := geometryOf(b, whole), geometryOf(b, cut)
		full, page := Prepare(photo, whole), Prepare(photo, cut)
		if page.Rect.Dx() != gc.w || page.Rect.Dy() != gc.h {
			t.Fatalf("%v°: page %v, geometry %d × %d", tc.deg, page.Rect, gc.w, gc.h)
		}
		docPixels := 1000 * 700 * gc.s * gc.s
		if got := float64(gc.w*gc.h) / docPixels; got > tc.maxPixels {
			t.Errorf("%v°: the page holds %.2f times the document's pixels, want at most %.2f (whole: %.2f)", tc.deg, got, tc.maxPixels, float64(gw.w*gw.h)/docPixels)
		}
		if cutDone := gc.w != gw.w || gc.h != gw.h; cutDone != tc.cut {
			t.Errorf("%v°: cut %v, want %v", tc.deg, cutDone, tc.cut)
		}
		// The cut page is a window of the whole page: where it lies
		// follows from the two maps' translations.
		dx, dy := int(math.Round(gw.m[2]-gc.m[2])), int(math.Round(gw.m[5]-gc.m[5]))
		diff := 0
		for y := 0; y < gc.h; y++ {
			for x := 0; x < gc.w; x++ {
				a, b := int(page.GrayAt(x, y).Y), int(full.GrayAt(x+dx, y+dy).Y)
				if a-b > 1 || b-a > 1 {
					diff++
				}
			}
		}
		if diff > 0 {
			t.Errorf("%v°: %d pixels differ from the whole page's by more than a grey level", tc.deg, diff)
		}
	}
}
