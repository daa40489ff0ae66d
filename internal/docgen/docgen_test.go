package docgen

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mrz"
)

var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func requireFont(t testing.TB) *Font {
	t.Helper()
	f, err := OCRB()
	if err != nil {
		if errors.Is(err, ErrNoFont) {
			testdb.Skip(t, err.Error())
		}
		t.Fatal(err)
	}
	return f
}

func TestFont(t *testing.T) {
	f := requireFont(t)
	if a := f.Advance(); a < 0.7 || a > 0.75 {
		t.Errorf("advance %v em, want OCR-B's 0.723", a)
	}
	for _, r := range MRZAlphabet {
		if len(f.Outline(r)) == 0 {
			t.Errorf("no outline for %q", r)
		}
	}
	t.Logf("%s; from the Sharp cut: %q", f.Path, f.Fallback)
}

func TestMissingFont(t *testing.T) {
	t.Setenv("VERIFYD_OCRB_FONT", "")
	saved := FontDirs
	FontDirs = []string{t.TempDir()}
	defer func() { FontDirs = saved }()
	if _, err := loadOCRB(); !errors.Is(err, ErrNoFont) {
		t.Fatalf("loadOCRB without font: %v, want ErrNoFont", err)
	}
}

func TestGeneratorFieldsCompose(t *testing.T) {
	g := NewGenerator(42, now)
	minors, expired := 0, 0
	for i := 0; i < 600; i++ {
		format := []mrz.Format{mrz.TD1, mrz.TD2, mrz.TD3}[i%3]
		f := g.Fields(format)
		lines, err := mrz.Compose(f)
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		back, err := mrz.Parse(lines, mrz.WithNow(now))
		if err != nil {
			t.Fatalf("%q: %v", lines, err)
		}
		if back.BirthDate != f.BirthDate || back.ExpiryDate != f.ExpiryDate {
			t.Fatalf("dates %v %v read back as %v %v", f.BirthDate, f.ExpiryDate, back.BirthDate, back.ExpiryDate)
		}
		if mrz.Age(f.BirthDate, now) < 18 {
			minors++
		}
		if f.ExpiryDate.Time().Before(now) {
			expired++
		}
	}
	if minors < 50 || expired < 50 {
		t.Errorf("%d minors and %d expired documents in 600, want about 90 each", minors, expired)
	}
	// Same seed, same fields.
	a, b := NewGenerator(7, now).Fields(mrz.TD3), NewGenerator(7, now).Fields(mrz.TD3)
	if a != b {
		t.Errorf("generator is not deterministic: %+v vs %+v", a, b)
	}
}

func TestRender(t *testing.T) {
	requireFont(t)
	g := NewGenerator(1, now)
	for _, format := range []mrz.Format{mrz.TD1, mrz.TD2, mrz.TD3} {
		spec := g.Spec(format)
		doc, err := Render(spec)
		if err != nil {
			t.Fatal(err)
		}
		wmm, hmm := SizeMM(format)
		b := doc.Image.Bounds()
		if b.Dx() != int(wmm*DefaultPxPerMM+0.5) || b.Dy() != int(hmm*DefaultPxPerMM+0.5) {
			t.Errorf("%v: %v, want %.1f×%.1f mm at %d px/mm", format, b, wmm, hmm, DefaultPxPerMM)
		}
		want, _ := mrz.Compose(spec.Fields)
		if len(doc.Lines) != format.Lines() || doc.Lines[0] != want[0] {
			t.Errorf("%v: lines %q, want %q", format, doc.Lines, want)
		}
		// The MRZ box holds dark ink, at 2.54 mm pitch.
		if doc.Pitch != MRZPitchMM*DefaultPxPerMM {
			t.Errorf("pitch %v px", doc.Pitch)
		}
		dark := 0
		for y := doc.MRZ.Min.Y; y < doc.MRZ.Max.Y; y++ {
			for x := doc.MRZ.Min.X; x < doc.MRZ.Max.X; x++ {
				if doc.Image.RGBAAt(x, y).G < 80 {
					dark++
				}
			}
		}
		if frac := float64(dark) / float64(doc.MRZ.Dx()*doc.MRZ.Dy()); frac < 0.05 || frac > 0.4 {
			t.Errorf("%v: %.2f of the MRZ box is ink", format, frac)
		}
		// Corners are cut round.
		if doc.Image.RGBAAt(0, 0).A != 0 {
			t.Errorf("%v: corner pixel is opaque", format)
		}
	}
}

func TestRenderLinesAndFace(t *testing.T) {
	requireFont(t)
	face := image.NewRGBA(image.Rect(0, 0, 30, 40))
	for i := range face.Pix {
		face.Pix[i] = 200
	}
	lines := []string{
		"I<UTOD231458907<<<<<<<<<<<<<<<",
		"7408122F1204159UTO<<<<<<<<<<<6",
		"ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
	}
	doc, err := Render(Spec{Lines: lines, Face: face, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != mrz.TD1 {
		t.Errorf("format %v", doc.Format)
	}
	if _, err := Render(Spec{Lines: []string{"P<UTO", "X"}}); err == nil {
		t.Error("short lines accepted")
	}
	if _, err := Render(Spec{Format: mrz.TD1, Lines: []string{lines[0], lines[1], "erikss0n<<anna<<<<<<<<<<<<<<<"}}); err == nil {
		t.Error("lower-case MRZ accepted")
	}
}

func TestPhotograph(t *testing.T) {
	requireFont(t)
	doc, err := Render(NewGenerator(5, now).Spec(mrz.TD3))
	if err != nil {
		t.Fatal(err)
	}
	d := Mild()
	d.Width, d.Height = 800, 600
	a, err := Photograph(doc, d, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Photograph(doc, d, 9)
	if !bytes.Equal(a.JPEG, b.JPEG) || len(a.JPEG) == 0 {
		t.Error("same seed, different photos")
	}
	if a.Image.Bounds() != image.Rect(0, 0, 800, 600) {
		t.Errorf("bounds %v", a.Image.Bounds())
	}
	if a.Cut || a.Covered {
		t.Errorf("mild photo reports cut=%v covered=%v", a.Cut, a.Covered)
	}
	for _, p := range a.Corners {
		if p.X < 0 || p.Y < 0 || p.X > 800 || p.Y > 600 {
			t.Errorf("corner %v outside the photo", p)
		}
	}
	if a.Angle < -5 || a.Angle > 5 {
		t.Errorf("angle %v", a.Angle)
	}
	for seed := uint64(0); seed < 6; seed++ {
		d := Mild()
		d.Width, d.Height = 800, 600
		d.CutMRZ = true
		p, err := Photograph(doc, d, seed)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Cut {
			t.Errorf("seed %d: CutMRZ photo does not cut the MRZ: %v", seed, p.MRZ)
		}
	}
	d = Heavy()
	d.Width, d.Height = 800, 600
	d.CoverMRZ, d.Glare = true, true
	p, err := Photograph(doc, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Covered {
		t.Error("CoverMRZ photo not covered")
	}
}

// TestPhoneEffects checks that every phone-photo option runs, is
// reproducible, changes the photo, and keeps the ground truth sensible.
// DOCGEN_DUMP=dir writes the photos there.
func TestPhoneEffects(t *testing.T) {
	requireFont(t)
	doc, err := Render(NewGenerator(5, now).Spec(mrz.TD3))
	if err != nil {
		t.Fatal(err)
	}
	base := Mild()
	base.Width, base.Height = 800, 600
	plain, err := Photograph(doc, base, 3)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*Degrade){
		"rotate20":    func(d *Degrade) { d.Rotate = 20 },
		"perspective": func(d *Degrade) { d.Perspective = 0.12 },
		"bend":        func(d *Degrade) { d.Bend = 3 },
		"barrel":      func(d *Degrade) { d.Barrel = 0.15 },
		"motion":      func(d *Degrade) { d.MotionBlur = 6 },
		"shadow":      func(d *Degrade) { d.Shadow = true },
		"lowlight":    func(d *Degrade) { d.LowLight = true; d.Noise = 6 },
		"phone":       func(d *Degrade) { d.Denoise = 0.8; d.Sharpen = 1.2; d.JPEGQuality = 50 },
		"printer":     func(d *Degrade) { d.Printer = true },
		"small":       func(d *Degrade) { d.MinScale, d.MaxScale = 0.3, 0.35 },
	} {
		d := base
		f(&d)
		a, err := Photograph(doc, d, 3)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := Photograph(doc, d, 3)
		if !bytes.Equal(a.JPEG, b.JPEG) {
			t.Errorf("%s: same seed, different photos", name)
		}
		if bytes.Equal(a.JPEG, plain.JPEG) {
			t.Errorf("%s: no effect", name)
		}
		if a.Image.Bounds() != image.Rect(0, 0, 800, 600) || a.Cut || a.Covered {
			t.Errorf("%s: bounds %v cut %v covered %v", name, a.Image.Bounds(), a.Cut, a.Covered)
		}
		if dir := os.Getenv("DOCGEN_DUMP"); dir != "" {
			f, _ := os.Create(filepath.Join(dir, name+".png"))
			png.Encode(f, a.Image)
			f.Close()
		}
	}
}

// TestReprint checks that the re-printed MRZ differs from Render's but is
// in the same place: the erased glyphs leave no ink outside the new ones.
func TestReprint(t *testing.T) {
	requireFont(t)
	doc, err := Render(NewGenerator(8, now).Spec(mrz.TD1))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 4; i++ {
		p := RandomPrinter(rng)
		re, err := Reprint(doc, p, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		diff, inkOld, inkNew := 0, 0, 0
		for y := doc.MRZ.Min.Y; y < doc.MRZ.Max.Y; y++ {
			for x := doc.MRZ.Min.X; x < doc.MRZ.Max.X; x++ {
				o := doc.Image.PixOffset(x, y)
				if doc.Image.Pix[o] != re.Image.Pix[o] {
					diff++
				}
				if doc.Image.Pix[o] < 100 {
					inkOld++
				}
				if re.Image.Pix[o] < 110 {
					inkNew++
				}
			}
		}
		if diff == 0 || inkNew < inkOld/2 || inkNew > inkOld*2 {
			t.Errorf("printer %+v: %d pixels changed, ink %d → %d", p, diff, inkOld, inkNew)
		}
		if dir := os.Getenv("DOCGEN_DUMP"); dir != "" {
			f, _ := os.Create(filepath.Join(dir, fmt.Sprintf("reprint-%d.png", i)))
			png.Encode(f, re.Image.SubImage(doc.MRZ.Inset(-10)))
			f.Close()
		}
	}
	if f := ocrbSharp(); f == nil {
		t.Error("OCRBS.otf not loaded")
	} else {
		t.Logf("sharp cut %s; from the regular cut: %q", f.Path, f.Fallback)
	}
}

func TestHomography(t *testing.T) {
	from := [4]Point{{0, 0}, {100, 0}, {100, 50}, {0, 50}}
	to := [4]Point{{10, 20}, {120, 15}, {118, 80}, {5, 70}}
	h := homography(from, to)
	for i := range from {
		p := h.apply(from[i])
		if d := (p.X-to[i].X)*(p.X-to[i].X) + (p.Y-to[i].Y)*(p.Y-to[i].Y); d > 1e-12 {
			t.Errorf("corner %d: %v, want %v", i, p, to[i])
		}
	}
}

func BenchmarkRenderAndPhotograph(b *testing.B) {
	requireFont(b)
	g := NewGenerator(1, now)
	for i := 0; i < b.N; i++ {
		doc, err := Render(g.Spec(mrz.TD3))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Photograph(doc, Mild(), uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPhotographCentred: a centred document's corners are symmetric about
// the photo's centre whatever the seed (rotation only: no perspective), and
// the same seed without Centred places it elsewhere.
func TestPhotographCentred(t *testing.T) {
	requireFont(t)
	doc, err := Render(NewGenerator(5, now).Spec(mrz.TD1))
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(0); seed < 4; seed++ {
		d := Degrade{Width: 800, Height: 500, MinScale: 0.5, MaxScale: 0.6, Rotate: 8, Centred: true}
		p, err := Photograph(doc, d, seed)
		if err != nil {
			t.Fatal(err)
		}
		cx := (p.Corners[0].X + p.Corners[1].X + p.Corners[2].X + p.Corners[3].X) / 4
		cy := (p.Corners[0].Y + p.Corners[1].Y + p.Corners[2].Y + p.Corners[3].Y) / 4
		if math.Abs(cx-400) > 0.5 || math.Abs(cy-250) > 0.5 {
			t.Errorf("seed %d: centre (%.1f, %.1f), want (400, 250)", seed, cx, cy)
		}
		d.Centred = false
		q, err := Photograph(doc, d, seed)
		if err != nil {
			t.Fatal(err)
		}
		qx := (q.Corners[0].X + q.Corners[1].X + q.Corners[2].X + q.Corners[3].X) / 4
		if seed == 0 && math.Abs(qx-400) < 1 {
			t.Errorf("seed %d: the uncentred document is centred too (x %.1f)", seed, qx)
		}
	}
}
