package ocr_test

import (
	"context"
	"image"
	"image/draw"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/textimage"
	"github.com/verifyd/verifyd/ocr"
)

// page is a white w × h image whose origin is at, with lines of text at
// size px, a line every 2 × size, and a little noise (when seed is not
// 0) so that Tesseract's thresholds have something to decide.
func page(t *testing.T, at image.Point, w, h int, size float64, seed uint64, lines ...string) *image.Gray {
	t.Helper()
	img := image.NewGray(image.Rectangle{at, at.Add(image.Pt(w, h))})
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for i, l := range lines {
		if err := textimage.Write(img, size, at.X+int(size/2), at.Y+int(2*size)*(i+1), l); err != nil {
			t.Fatal(err)
		}
	}
	if seed == 0 {
		return img
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range img.Pix {
		img.Pix[i] = uint8(max(0, int(img.Pix[i])-rng.IntN(24)))
	}
	return img
}

// TestTesseractPages: several images read in one run of the program
// (a multi-page TIFF) come back as each would alone, word for word, with
// their confidences and boxes in each image's own coordinates — pages of
// odd sizes, one with no text, one whose bounds do not start at 0.
func TestTesseractPages(t *testing.T) {
	tess := &ocr.Tesseract{}
	if _, err := tess.Available(context.Background()); err != nil {
		testdb.Skip(t, err.Error())
	}
	full := page(t, image.Point{}, 900, 300, 40, 3, "DATE OF BIRTH", "23 AUG 1974")
	imgs := []*image.Gray{
		page(t, image.Point{}, 601, 151, 48, 1, "MULLER"),
		page(t, image.Point{}, 333, 97, 30, 0),
		full.SubImage(image.Rect(0, 100, 700, 300)).(*image.Gray),
		page(t, image.Pt(40, 25), 777, 201, 36, 4, "C01X00T47", "12.03.2031"),
	}
	ctx := context.Background()
	for _, opt := range []ocr.Options{{PSM: 6, Threshold: 2, DPI: 300}, {PSM: 11, DPI: 300}} {
		got, err := tess.WordsOfPages(ctx, imgs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(imgs) {
			t.Fatalf("%+v: %d pages of words, want %d", opt, len(got), len(imgs))
		}
		for i, img := range imgs {
			alone, err := tess.Words(ctx, img, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[i], alone) {
				t.Errorf("%+v: page %d read with the others: %+v; alone: %+v", opt, i, got[i], alone)
			}
		}
		if len(got[1]) != 0 || len(got[0]) == 0 || len(got[3]) == 0 {
			t.Errorf("%+v: words per page %d %d %d %d: want none on the blank page only", opt, len(got[0]), len(got[1]), len(got[2]), len(got[3]))
		}
		if len(got[2]) > 0 && got[2][0].Box.Min.Y < 100 {
			t.Errorf("%+v: a word of the sub-image at %v, above its bounds %v", opt, got[2][0].Box, imgs[2].Bounds())
		}
	}
}

// TestWordsOfPagesOneByOne: an engine that cannot read pages together is
// called once per image, in order.
func TestWordsOfPagesOneByOne(t *testing.T) {
	var e countingEngine
	imgs := []*image.Gray{image.NewGray(image.Rect(0, 0, 1, 1)), image.NewGray(image.Rect(0, 0, 2, 2)), image.NewGray(image.Rect(0, 0, 3, 3))}
	got, err := ocr.WordsOfPages(context.Background(), &e, imgs, ocr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range got {
		if len(w) != 1 || w[0].Box != imgs[i].Bounds() {
			t.Errorf("page %d: %+v", i, w)
		}
	}
	if e.calls != 3 {
		t.Errorf("%d calls, want 3", e.calls)
	}
}

// countingEngine returns one word the size of each image it is given.
type countingEngine struct{ calls int }

func (e *countingEngine) Words(_ context.Context, img *image.Gray, _ ocr.Options) ([]ocr.Word, error) {
	e.calls++
	return []ocr.Word{{Text: "x", Box: img.Bounds()}}, nil
}
