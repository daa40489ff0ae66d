package app_test

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"os/exec"
	"slices"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
)

// monoZone draws MRZ lines in Go Mono, a monospaced font that is not
// OCR-B (an issuer's other MRZ font), dark on light paper.
func monoZone(t *testing.T, lines []string, size float64) *image.Gray {
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
	lh := int(size * 1.5)
	img := image.NewGray(image.Rect(0, 0, adv.Ceil()*len(lines[0])+int(4*size), lh*len(lines)+int(3*size)))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{Y: 225}), image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.NewUniform(color.Gray{Y: 40}), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(int(2*size), int(1.5*size)+lh*(i+1)-lh/3)
		d.DrawString(l)
	}
	return img
}

func needTesseract(t *testing.T) *ocr.Tesseract {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract is not installed")
	}
	return &ocr.Tesseract{}
}

// TestSecondReaderDecidesNothingAlone: a minor's passport whose MRZ is
// printed in a font mrzread does not read is read by the Tesseract
// fallback, marked Secondary, and its minor verdict waits for the
// printed data (FactPending) instead of failing the verification.
func TestSecondReaderDecidesNothingAlone(t *testing.T) {
	tess := needTesseract(t)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	lines, err := mrz.Compose(mrz.Fields{Format: mrz.TD3, DocumentCode: "P", IssuingState: "FRA", DocumentNumber: "12AB34567",
		Surname: "DUBOIS", GivenNames: "MARIE CLAIRE", Nationality: "FRA", Sex: "F",
		BirthDate: mrz.Date{Year: 2009, Month: time.March, Day: 7}, ExpiryDate: mrz.Date{Year: 2031, Month: time.June, Day: 1}})
	if err != nil {
		t.Fatal(err)
	}
	img := monoZone(t, lines, 36)
	ctx := context.Background()
	first, err := app.MRZReader(nil).ReadMRZ(ctx, img, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, perr := mrz.Parse(first.Lines); perr == nil {
		t.Fatalf("mrzread read the Go Mono zone (%q): the test needs one it cannot read", first.Lines)
	}
	both, err := app.MRZReader(tess).ReadMRZ(ctx, img, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !both.Secondary || !slices.Equal(both.Lines, lines) {
		t.Fatalf("combined reader: secondary %v, lines %q; want the second reader's %q", both.Secondary, both.Lines, lines)
	}
	if both.Evidence["reader"] != "tesseract" {
		t.Errorf("evidence names reader %v, want tesseract", both.Evidence["reader"])
	}

	in := &engine.Input{DocumentType: verifyd.DocPassport, Country: "fra", Now: now, Facts: map[string]any{},
		Front: &engine.Image{Kind: verifyd.ImageDocumentFront, Image: img}}
	res := engine.DocumentCheck{Reader: app.MRZReader(tess)}.Run(ctx, in)
	if res.Outcome != engine.Review {
		t.Fatalf("document check: %v %s (%s); want review with the minor verdict pending", res.Outcome, res.Reason, res.Detail)
	}
	pending, ok := in.Facts[engine.FactPending].(engine.Result)
	if !ok || pending.Reason != verifyd.ReasonMinor {
		t.Fatalf("pending %+v, want minor", in.Facts[engine.FactPending])
	}
	if loc, _ := in.Facts[engine.FactMRZRead].(engine.Located); !loc.Secondary {
		t.Error("Located.Secondary not set")
	}
}

// TestSecondReaderLeavesCutZones: photos whose frame cuts through the
// MRZ are still partial (or unread) with the fallback: it must not turn
// the part it sees into a valid reading.
func TestSecondReaderLeavesCutZones(t *testing.T) {
	tess := needTesseract(t)
	if _, err := docgen.OCRB(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	g := docgen.NewGenerator(77, now)
	g.MinorRate, g.ExpiredRate = 0, 0
	for i := range 3 {
		spec := g.Spec([]mrz.Format{mrz.TD3, mrz.TD1, mrz.TD2}[i])
		doc, err := docgen.Render(spec)
		if err != nil {
			t.Fatal(err)
		}
		d := docgen.Mild()
		d.CutMRZ = true
		ph, err := docgen.Photograph(doc, d, spec.Seed)
		if err != nil {
			t.Fatal(err)
		}
		dt := verifyd.DocIDCard
		if spec.Format == mrz.TD3 {
			dt = verifyd.DocPassport
		} else if spec.Fields.DocumentCode == "IR" {
			dt = verifyd.DocResidencePermit
		}
		run := func(r engine.MRZReader) (engine.Result, *engine.Input) {
			in := &engine.Input{DocumentType: dt, Country: alpha3Lower(spec.Fields.IssuingState), Now: now, Facts: map[string]any{}}
			side := &engine.Image{Image: ph.Image}
			if dt == verifyd.DocPassport {
				in.Front = side
			} else {
				in.Back = side
			}
			return engine.DocumentCheck{Reader: r, Quality: engine.NewQualityCheck()}.Run(ctx, in), in
		}
		alone, _ := run(app.MRZReader(nil))
		res, in := run(app.MRZReader(tess))
		read, _ := in.Facts[engine.FactMRZ].(mrz.Fields)
		t.Logf("cut photo %d (%v): mrzread alone %v %s; with the fallback %v %s", i, spec.Format, alone.Outcome, alone.Reason, res.Outcome, res.Reason)
		if read.DocumentNumber != "" && (read.DocumentNumber != spec.Fields.DocumentNumber || read.BirthDate != spec.Fields.BirthDate) {
			t.Errorf("cut photo %d (%v) read wrongly: %+v", i, spec.Format, read)
		}
		if read.DocumentNumber == "" && (res.Outcome != alone.Outcome || res.Reason != alone.Reason) {
			t.Errorf("cut photo %d (%v): %v %s with the fallback, %v %s without", i, spec.Format, res.Outcome, res.Reason, alone.Outcome, alone.Reason)
		}
	}
}
