package app_test

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/mrz"
)

// The photo sets are mrzread's (mrzread/accuracy_test.go): the same
// degradations and the same seeds, so that a photo here is the photo
// mrzread's evaluation reads at the same index.
var mrzEvalNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

type mrzVariant struct {
	name    string
	degrade func(r *rand.Rand) docgen.Degrade
}

// mrzReprints change a set's documents before they are photographed.
var mrzReprints = map[string]func(t testing.TB, doc *docgen.Document){"monofont": monoReprint}

func mrzMild(r *rand.Rand) docgen.Degrade {
	d := docgen.Mild()
	d.Blur = 0.3 + 0.7*r.Float64()
	d.Noise = 2 + 4*r.Float64()
	d.JPEGQuality = 60 + r.IntN(31)
	return d
}

func mrzPrinted(r *rand.Rand) docgen.Degrade {
	d := mrzMild(r)
	d.Printer = true
	return d
}

func mrzPhone(r *rand.Rand, d docgen.Degrade) docgen.Degrade {
	d.Denoise = 0.3 + 0.7*r.Float64()
	d.Sharpen = 0.5 + r.Float64()
	d.JPEGQuality = 50 + r.IntN(46)
	return d
}

var mrzVariants = []mrzVariant{
	{"everything", func(r *rand.Rand) docgen.Degrade {
		d := mrzPhone(r, mrzPrinted(r))
		d.Rotate, d.Perspective = 20, 0.08
		d.Bend, d.Barrel = 2, 0.08
		d.Blur = 0.5 + 1.0*r.Float64()
		d.MotionBlur = 4
		d.Shadow = r.IntN(2) == 0
		d.LowLight = r.IntN(3) == 0
		d.Glare = r.IntN(4) == 0
		return d
	}},
	{"tilted", func(r *rand.Rand) docgen.Degrade {
		d := mrzPrinted(r)
		d.Rotate, d.Perspective = 20, 0.10
		return d
	}},
	{"lowlight", func(r *rand.Rand) docgen.Degrade {
		d := mrzPrinted(r)
		d.LowLight, d.Noise = true, 4+6*r.Float64()
		return d
	}},
	{"soft", func(r *rand.Rand) docgen.Degrade { d := mrzPrinted(r); d.Blur = 1.5 + 1.0*r.Float64(); return d }},
	{"bent", func(r *rand.Rand) docgen.Degrade { d := mrzPrinted(r); d.Bend = 3; d.Rotate = 10; return d }},
	{"lens", func(r *rand.Rand) docgen.Degrade { d := mrzPrinted(r); d.Barrel = 0.15; d.Rotate = 10; return d }},
	{"cut", func(r *rand.Rand) docgen.Degrade { d := mrzMild(r); d.CutMRZ = true; return d }},
	{"covered", func(r *rand.Rand) docgen.Degrade { d := mrzMild(r); d.CoverMRZ = true; return d }},
	// Not one of mrzread's sets: the MRZ printed in Go Mono, a
	// monospaced font that is not OCR-B (an issuer's other MRZ font,
	// which issue 14's photos "legible to Tesseract" may be), photographed
	// as the mild set.
	{"monofont", mrzMild},
}

// monoReprint paints the document's MRZ over with the paper's colour
// and prints the same lines in Go Mono at the same pitch and baselines.
func monoReprint(t testing.TB, doc *docgen.Document) {
	f, err := opentype.Parse(gomono.TTF)
	if err != nil {
		t.Fatal(err)
	}
	// Go Mono's capitals are 0.73 em tall, OCR-B's about 0.95 of the
	// pitch.
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: doc.Pitch * 0.95 / 0.73, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	r := doc.MRZ.Inset(-int(doc.Pitch / 3))
	paper := doc.Image.RGBAAt(r.Min.X, r.Min.Y-int(doc.Pitch/2))
	draw.Draw(doc.Image, r, image.NewUniform(paper), image.Point{}, draw.Src)
	d := &font.Drawer{Dst: doc.Image, Src: image.NewUniform(color.RGBA{30, 30, 35, 255}), Face: face}
	adv, _ := face.GlyphAdvance('A')
	for i, l := range doc.Lines {
		for k := 0; k < len(l); k++ {
			x := doc.MRZLeft + (float64(k)+0.5)*doc.Pitch - float64(adv)/128
			d.Dot = fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(doc.Baselines[i] * 64)}
			d.DrawString(l[k : k+1])
		}
	}
}

// mrzPhoto renders and photographs document i of v exactly as mrzread's
// evaluation does.
func mrzPhoto(t testing.TB, v mrzVariant, i int) (*docgen.Photo, *docgen.Document, mrz.Format) {
	seed := uint64(i)*7919 + uint64(len(v.name))*104729
	r := rand.New(rand.NewPCG(seed, 1))
	g := docgen.NewGenerator(seed, mrzEvalNow)
	format := []mrz.Format{mrz.TD1, mrz.TD3, mrz.TD1, mrz.TD3, mrz.TD2}[i%5]
	doc, err := docgen.Render(g.Spec(format))
	if err != nil {
		t.Fatal(err)
	}
	if re := mrzReprints[v.name]; re != nil {
		re(t, doc)
	}
	ph, err := docgen.Photograph(doc, v.degrade(r), r.Uint64())
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("MRZ_DUMP"); dir != "" && ph.JPEG != nil {
		if err := os.WriteFile(fmt.Sprintf("%s/%s-%d.jpg", dir, v.name, i), ph.JPEG, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ph, doc, format
}
