package mrzread

import (
	"errors"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

func photo(t testing.TB, f mrz.Format, seed uint64, d docgen.Degrade) (*docgen.Document, *docgen.Photo) {
	t.Helper()
	requireFont(t)
	doc, err := docgen.Render(docgen.NewGenerator(seed, accuracyNow).Spec(f))
	if err != nil {
		t.Fatal(err)
	}
	ph, err := docgen.Photograph(doc, d, seed)
	if err != nil {
		t.Fatal(err)
	}
	return doc, ph
}

func TestTemplates(t *testing.T) {
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.t) != nClass*cell.Variants() {
		t.Fatalf("%d templates", len(ts.t))
	}
	// Every template matches itself best among the classes.
	for c := 0; c < nClass; c++ {
		patch := make([]float32, pw*ph)
		raw := templatesBin[6+4+(c*ts.nv+ts.coarse)*tw*th:]
		for y := 0; y < th; y++ {
			for x := 0; x < tw; x++ {
				patch[(y+cell.Margin)*pw+x+cell.Margin] = float32(raw[y*tw+x])
			}
		}
		var cr cellResult
		ts.match(patch, &cr)
		c1, _, s1, _ := top2(&cr, cell.Alphabet)
		if c1 != cell.Alphabet[c] || s1 < 0.99 {
			t.Errorf("template %q matches %q (%.3f)", cell.Alphabet[c], c1, s1)
		}
	}
}

func TestRead(t *testing.T) {
	for _, f := range []mrz.Format{mrz.TD1, mrz.TD2, mrz.TD3} {
		doc, ph := photo(t, f, 11, docgen.Mild())
		for _, hint := range []mrz.Format{0, f} {
			res, err := Read(ph.Image, hint)
			if err != nil {
				t.Fatalf("%v: %v", f, err)
			}
			if res.Format != f || strings.Join(res.Lines, "\n") != strings.Join(doc.Lines, "\n") {
				t.Errorf("%v hint %v: read %v %q, want %q", f, hint, res.Format, res.Lines, doc.Lines)
			}
			if !res.Valid || res.CutOff || res.Covered || len(res.Uncertain) > 0 {
				t.Errorf("%v: valid=%v cut=%v covered=%v uncertain=%v", f, res.Valid, res.CutOff, res.Covered, res.Uncertain)
			}
			fields, err := res.Parse(mrz.WithNow(accuracyNow))
			if err != nil || fields.Format != f {
				t.Errorf("%v: Parse: %+v, %v", f, fields, err)
			}
			// The zone's corners are within a few pixels of the truth.
			for i, p := range res.Quad {
				q := ph.MRZ[i]
				if math.Hypot(float64(p.X)-q.X, float64(p.Y)-q.Y) > 0.5*doc.Pitch*ph.Scale {
					t.Errorf("%v: corner %d at %v, want near (%.0f, %.0f)", f, i, p, q.X, q.Y)
				}
			}
			truth := math.Atan2(ph.MRZ[1].Y-ph.MRZ[0].Y, ph.MRZ[1].X-ph.MRZ[0].X) * 180 / math.Pi
			if math.Abs(res.Skew-truth) > 1 {
				t.Errorf("%v: skew %.2f°, want %.2f°", f, res.Skew, truth)
			}
			for li, l := range res.Confidence {
				for k, c := range l {
					if c < LowConfidence {
						t.Errorf("%v: line %d position %d confidence %.2f", f, li, k, c)
					}
				}
			}
		}
	}
}

// TestReadAgainstTheHint: a hint is what the person declared, and a card
// photographed as a passport (or a passport as a card) is read as what
// its zone is, so that the engine can say the type is not the declared
// one instead of taking a garbled zone for a covered one.
func TestReadAgainstTheHint(t *testing.T) {
	for _, tc := range []struct{ f, hint mrz.Format }{
		{mrz.TD1, mrz.TD3}, {mrz.TD2, mrz.TD1}, {mrz.TD3, mrz.TD1},
	} {
		doc, ph := photo(t, tc.f, 12, docgen.Mild())
		res, err := Read(ph.Image, tc.hint)
		if err != nil {
			t.Fatalf("%v hinted %v: %v", tc.f, tc.hint, err)
		}
		if res.Format != tc.f || !res.Valid || strings.Join(res.Lines, "\n") != strings.Join(doc.Lines, "\n") {
			t.Errorf("%v hinted %v: read %v %q (valid %v), want %q", tc.f, tc.hint, res.Format, res.Lines, res.Valid, doc.Lines)
		}
	}
}

// rotated returns img turned clockwise by deg (90, 180, 270).
func rotated(img image.Image, deg int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var out *image.RGBA
	if deg == 180 {
		out = image.NewRGBA(image.Rect(0, 0, w, h))
	} else {
		out = image.NewRGBA(image.Rect(0, 0, h, w))
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := img.At(b.Min.X+x, b.Min.Y+y)
			switch deg {
			case 90:
				out.Set(h-1-y, x, c)
			case 180:
				out.Set(w-1-x, h-1-y, c)
			default:
				out.Set(y, w-1-x, c)
			}
		}
	}
	return out
}

func TestReadRotated(t *testing.T) {
	doc, ph := photo(t, mrz.TD3, 12, docgen.Mild())
	straight, err := Read(ph.Image, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, deg := range []int{90, 180, 270} {
		res, err := Read(rotated(ph.Image, deg), 0)
		if err != nil {
			t.Fatalf("%d°: %v", deg, err)
		}
		if strings.Join(res.Lines, "") != strings.Join(doc.Lines, "") || !res.Valid {
			t.Errorf("%d°: read %q", deg, res.Lines)
		}
		// Turning the image by deg is undone by reading it turned by
		// 360-deg.
		if res.Rotation != (360-deg)%360 {
			t.Errorf("%d°: Rotation %d", deg, res.Rotation)
		}
		if deg == 180 {
			// The band maps back onto the rotated image: the same size.
			if d := res.Band.Size().Sub(straight.Band.Size()); d.X*d.X+d.Y*d.Y > 100 {
				t.Errorf("180°: band %v vs %v upright", res.Band, straight.Band)
			}
		}
	}
}

func TestReadNoZone(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = uint8(200 + i%7)
	}
	if _, err := Read(img, 0); !errors.Is(err, ErrNoMRZ) {
		t.Errorf("blank image: %v, want ErrNoMRZ", err)
	}
	noise := image.NewGray(image.Rect(0, 0, 500, 400))
	for i := range noise.Pix {
		noise.Pix[i] = uint8(i * 7919 % 251)
	}
	if _, err := Read(noise, 0); !errors.Is(err, ErrNoMRZ) {
		t.Errorf("noise: %v, want ErrNoMRZ", err)
	}
	if _, err := Read(image.NewGray(image.Rect(0, 0, 10, 10)), 0); !errors.Is(err, ErrNoMRZ) {
		t.Errorf("tiny image: %v", err)
	}
	// Non-zero image origin and a paletted image.
	pal := image.NewPaletted(image.Rect(5, 5, 205, 105), color.Palette{color.White, color.Black})
	if _, err := Read(pal, 0); !errors.Is(err, ErrNoMRZ) {
		t.Errorf("paletted blank image: %v", err)
	}
}

func TestReadFlags(t *testing.T) {
	d := docgen.Mild()
	d.CutMRZ = true
	for seed := uint64(20); seed < 23; seed++ {
		_, ph := photo(t, mrz.TD1, seed, d)
		res, err := Read(ph.Image, 0)
		if err == nil && !res.CutOff && !res.Covered {
			t.Errorf("cut photo %d read as complete: %q", seed, res.Lines)
		}
		if err == nil && res.Valid {
			t.Errorf("cut photo %d read as valid: %q", seed, res.Lines)
		}
	}
	d = docgen.Mild()
	d.CoverMRZ = true
	for seed := uint64(30); seed < 33; seed++ {
		_, ph := photo(t, mrz.TD3, seed, d)
		res, err := Read(ph.Image, 0)
		if err != nil {
			t.Fatalf("covered photo %d: %v", seed, err)
		}
		if !res.Covered || len(res.Uncertain) == 0 || res.Valid {
			t.Errorf("covered photo %d: covered=%v uncertain=%v valid=%v %q", seed, res.Covered, res.Uncertain, res.Valid, res.Lines)
		}
	}
}

func TestCorrect(t *testing.T) {
	// ICAO 9303 part 4 example, with the document number's '8' read as
	// 'B' (runner-up '8') and an unambiguous error elsewhere left alone.
	lines := []string{
		"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
		"L898902C36UTO7408122F1204159ZE184226B<<<<<10",
	}
	text := [][]byte{[]byte(lines[0]), []byte(lines[1])}
	text[1][1] = 'B'
	alt := [][]byte{make([]byte, 44), make([]byte, 44)}
	margin := [][]float64{make([]float64, 44), make([]float64, 44)}
	conf := [][]float64{make([]float64, 44), make([]float64, 44)}
	for i := range margin[1] {
		margin[1][i] = 0.3
	}
	alt[1][1], margin[1][1] = '8', 0.01
	got := correct(mrz.TD3, text, alt, margin, conf)
	if len(got) != 1 || got[0] != (Correction{Line: 1, Pos: 1, From: 'B', To: '8', Field: mrz.FieldDocumentNumber}) {
		t.Fatalf("corrections %+v", got)
	}
	if string(text[1]) != lines[1] {
		t.Errorf("corrected to %s", text[1])
	}
	// Two ambiguous characters, either of which could fix the check:
	// nothing is changed.
	text[1][1], alt[1][1] = 'B', '8'
	alt[1][4], margin[1][4] = '3', 0.01 // a true '9' with runner-up '3'
	if got := correct(mrz.TD3, text, alt, margin, conf); len(got) != 1 || got[0].Pos != 1 {
		t.Errorf("corrections %+v, want only position 1", got)
	}
	// The check digit itself misread, and a character that could fix the
	// field with its runner-up: the single consistent substitution wins.
	text = [][]byte{[]byte(lines[0]), []byte(lines[1])}
	text[1][19] = '3' // birth date check digit, really '2'
	alt[1][19], margin[1][19] = '2', 0.02
	got = correct(mrz.TD3, text, alt, margin, conf)
	if len(got) != 1 || got[0].Field != mrz.FieldBirthDate || string(text[1]) != lines[1] {
		t.Errorf("corrections %+v, line %s", got, text[1])
	}
}

func BenchmarkRead(b *testing.B) {
	for _, f := range []mrz.Format{mrz.TD1, mrz.TD3} {
		_, ph := photo(b, f, 3, docgen.Mild())
		b.Run(f.String(), func(b *testing.B) {
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				res, err := Read(ph.Image, 0)
				if err != nil || !res.Valid {
					b.Fatal(err, res.Lines)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkRead12MP reads 12 MP photos (4000×3000, the document filling
// 60 % of the width, MRZ re-printed): level, tilted by up to 20°, which
// goes through the rectified band, and held at an angle (turned by up to
// 20° and out of the image plane by up to 30°, docgen.Degrade.Tilt). Run it on one core:
//
//	taskset -c 0 go test ./mrzread -run XXX -bench Read12MP -benchtime 10x -cpu 1
func BenchmarkRead12MP(b *testing.B) {
	for _, c := range []struct {
		name         string
		rotate, tilt float64
	}{{"level", 3, 0}, {"tilted", 20, 0}, {"camera-tilt", 20, 30}} {
		d := docgen.Mild()
		d.Width, d.Height = 4000, 3000
		d.MinScale, d.MaxScale = 0.6, 0.6
		d.Blur, d.Printer, d.Rotate, d.Tilt = 1.5, true, c.rotate, c.tilt
		var phs []*docgen.Photo
		for seed := uint64(1); len(phs) < 4 && seed < 40; seed++ {
			_, ph := photo(b, mrz.TD3, seed, d)
			if math.Abs(ph.Angle) > c.rotate/2 || c.rotate < 5 {
				phs = append(phs, ph)
			}
		}
		b.Run(c.name, func(b *testing.B) {
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := Read(phs[i%len(phs)].Image, 0); err != nil {
					b.Fatal(err)
				}
			}
			// Process CPU per Read: what one core spends, whatever else
			// shares the machine (wall time is not).
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// warpAffine draws doc onto a grey 1600×1200 canvas: its columns leaned
// by lean (x moves lean·y), its height scaled by squash (a document
// foreshortened across its lines, as when held at an angle), then turned
// by deg degrees and scaled to 70 % of the canvas width.
func warpAffine(doc *docgen.Document, lean, squash, deg float64) image.Image {
	const W, H = 1600, 1200
	src := doc.Image
	dw, dh := float64(src.Bounds().Dx()), float64(src.Bounds().Dy())
	s := 0.7 * W / dw
	a := deg * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	// Forward: (u, v) centred → (u + lean v, squash v) → rotate → scale.
	m00, m01 := s*(cos*1-sin*0), s*(cos*lean-sin*squash)
	m10, m11 := s*(sin*1+cos*0), s*(sin*lean+cos*squash)
	det := m00*m11 - m01*m10
	out := image.NewGray(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			px, py := float64(x)+0.5-W/2, float64(y)+0.5-H/2
			u := (m11*px-m01*py)/det + dw/2
			v := (-m10*px+m00*py)/det + dh/2
			iu, iv := int(math.Floor(u)), int(math.Floor(v))
			if iu < 0 || iv < 0 || iu >= int(dw)-1 || iv >= int(dh)-1 {
				out.Pix[y*W+x] = 90
				continue
			}
			fu, fv := u-float64(iu), v-float64(iv)
			lum := func(i, j int) float64 {
				c := src.RGBAAt(i, j)
				return 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B)
			}
			l := (1-fv)*((1-fu)*lum(iu, iv)+fu*lum(iu+1, iv)) + fv*((1-fu)*lum(iu, iv+1)+fu*lum(iu+1, iv+1))
			out.Pix[y*W+x] = uint8(l + 0.5)
		}
	}
	return out
}

// warpQuad draws doc onto a grey 1600×1200 canvas with its corners
// (top-left, top-right, bottom-right, bottom-left) at q.
func warpQuad(doc *docgen.Document, q [4]docgen.Point) image.Image {
	const W, H = 1600, 1200
	src := doc.Image
	dw, dh := float64(src.Bounds().Dx()), float64(src.Bounds().Dy())
	inv := docgen.Homography(q, [4]docgen.Point{{X: 0, Y: 0}, {X: dw, Y: 0}, {X: dw, Y: dh}, {X: 0, Y: dh}})
	out := image.NewGray(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			w := inv[6]*px + inv[7]*py + inv[8]
			u := (inv[0]*px + inv[1]*py + inv[2]) / w
			v := (inv[3]*px + inv[4]*py + inv[5]) / w
			iu, iv := int(math.Floor(u)), int(math.Floor(v))
			if iu < 0 || iv < 0 || iu >= int(dw)-1 || iv >= int(dh)-1 {
				out.Pix[y*W+x] = 90
				continue
			}
			c := src.RGBAAt(iu, iv)
			out.Pix[y*W+x] = uint8(0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B) + 0.5)
		}
	}
	return out
}

// TestReadOblique reads documents whose glyphs are leaned and
// foreshortened across their lines, as perspective leaves them when a
// document is held at an angle: the rectified band must stand the
// columns upright (slantProfile), restore the glyphs' height from the
// lines' spacing and their width from the pitch's trend along the lines
// (a card turned about a vertical axis), and a valid direct reading of
// such a zone must not be taken without it.
func TestReadOblique(t *testing.T) {
	for _, c := range []struct {
		name              string
		f                 mrz.Format
		lean, squash, deg float64
		keystone          float64
	}{
		{"TD3 leaned right", mrz.TD3, 0.25, 1, 0, 0},
		{"TD3 leaned left, turned", mrz.TD3, -0.25, 1, 12, 0},
		{"TD1 squashed", mrz.TD1, 0, 0.75, 0, 0},
		{"TD2 squashed, leaned, turned", mrz.TD2, 0.15, 0.8, -15, 0},
		{"TD1 stretched, leaned", mrz.TD1, -0.15, 1.2, 5, 0},
		{"TD1 keystone", mrz.TD1, 0, 1, 0, 0.6},
		{"TD3 keystone", mrz.TD3, 0, 1, 0, 0.6},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireFont(t)
			doc, err := docgen.Render(docgen.NewGenerator(21, accuracyNow).Spec(c.f))
			if err != nil {
				t.Fatal(err)
			}
			img := warpAffine(doc, c.lean, c.squash, c.deg)
			if c.keystone > 0 {
				// Turned about a vertical axis: the left edge is keystone
				// times as tall as the right one, and the glyphs shrink
				// towards it.
				k := c.keystone
				b := doc.Image.Bounds()
				h := 1250 * float64(b.Dy()) / float64(b.Dx()) // the right edge, at the document's aspect
				y0, y1 := 600-h/2, 600+h/2
				img = warpQuad(doc, [4]docgen.Point{{X: 200, Y: y0 + h*(1-k)/2}, {X: 1450, Y: y0}, {X: 1450, Y: y1}, {X: 200, Y: y1 - h*(1-k)/2}})
			}
			res, err := Read(img, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Valid || strings.Join(res.Lines, "\n") != strings.Join(doc.Lines, "\n") {
				t.Errorf("read %q (valid %v), want %q", res.Lines, res.Valid, doc.Lines)
			}
		})
	}
}

// TestReadSmallZone: a passport a third of a tall 8.6 MP photo's width
// has glyphs of ~14 px, under the 7 px lines are looked for at on the
// photo shrunk to detectSide; they are looked for again at full size.
func TestReadSmallZone(t *testing.T) {
	d := docgen.Mild()
	d.Width, d.Height = 2400, 3600
	d.MinScale, d.MaxScale = 0.33, 0.33
	doc, ph := photo(t, mrz.TD3, 5, d)
	g := toGray(ph.Image)
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	// The premise: the first search finds nothing.
	if _, err := readTurns(g, ts, 0, detectSide, 0, []int{0, 180, 90, 270}); !errors.Is(err, ErrNoMRZ) {
		t.Fatalf("the zone was found on the shrunk photo (err %v): the photo does not test the full-size search", err)
	}
	res, err := Read(ph.Image, 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Lines, "\n") != strings.Join(doc.Lines, "\n") || !res.Valid {
		t.Errorf("read %q (valid %v), want %q", res.Lines, res.Valid, doc.Lines)
	}
}

// squashedZonePhoto is docgen's passport of seed 5 squashed to 0.65 of
// its height, leaned by 0.15 and laid at (2000, 1500) on a 4800 × 3600
// grey photo (TestReadSmallSquashedZone).
func squashedZonePhoto(tb testing.TB) (*docgen.Document, *image.Gray) {
	tb.Helper()
	requireFont(tb)
	doc, err := docgen.Render(docgen.NewGenerator(5, accuracyNow).Spec(mrz.TD3))
	if err != nil {
		tb.Fatal(err)
	}
	warped := warpAffine(doc, 0.15, 0.65, 0).(*image.Gray)
	img := image.NewGray(image.Rect(0, 0, 4800, 3600))
	for i := range img.Pix {
		img.Pix[i] = 90
	}
	draw.Draw(img, warped.Bounds().Add(image.Pt(2000, 1500)), warped, image.Point{}, draw.Src)
	return doc, img
}

// TestReadSmallSquashedZone: a passport page held tilted away from the
// camera, small in a 17 MP photo: its glyphs are squashed to 0.65 of
// their height and leaned (a line of fillers is then 1.9 of their height
// apart) and stand 5 px tall at the first search's scale. The search at
// full size finds the zone, and the zone is read where it was found,
// levelled and rectified as any zone (readAround).
func TestReadSmallSquashedZone(t *testing.T) {
	doc, img := squashedZonePhoto(t)
	g := toGray(img)
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	// The premises: the first search finds nothing, the search at full
	// size reads no valid zone.
	if _, err := readTurns(g, ts, 0, detectSide, 0, []int{0, 180, 90, 270}); !errors.Is(err, ErrNoMRZ) {
		t.Fatalf("the zone was found on the shrunk photo (err %v): the photo does not test the full-size search", err)
	}
	if r, err := readTurns(g, ts, 0, 0, 8*shrinkFactor(g, detectSide), []int{0, 180}); err == nil && r.Valid {
		t.Fatalf("the full-size search read the zone (%q): the photo does not test reading it again", r.Lines)
	}
	res, err := Read(img, 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Lines, "\n") != strings.Join(doc.Lines, "\n") || !res.Valid {
		t.Errorf("read %q (valid %v), want %q", res.Lines, res.Valid, doc.Lines)
	}
	if !res.Band.Overlaps(image.Rect(2000, 1500, 3600, 2700)) {
		t.Errorf("band %v is not where the page is", res.Band)
	}

	// Three rows of blocks the size of printed text above the page, which
	// the first search takes for a zone and cannot read: the zone the
	// photo shows too small for it is read (smallZone).
	for row := 0; row < 3; row++ {
		for i := 0; i < 30; i++ {
			r := image.Rect(2000+39*i, 600+60*row, 2000+39*i+21, 600+60*row+33)
			draw.Draw(img, r, image.NewUniform(color.Gray{20}), image.Point{}, draw.Src)
			// Rings and an L here and there, so that no reading of them
			// verifies.
			hole := r.Inset(5)
			if (i*7+row)%3 == 0 {
				hole.Max.Y = r.Max.Y
			}
			draw.Draw(img, hole, image.NewUniform(color.Gray{90}), image.Point{}, draw.Src)
		}
	}
	g = toGray(img)
	if r, err := readTurns(g, ts, 0, detectSide, 0, []int{0, 180, 90, 270}); err != nil || r.Valid {
		t.Fatalf("the first search found no zone or read one (%q, %v): the photo does not test smallZone", r.Lines, err)
	}
	if res, err = Read(img, 0); err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Lines, "\n") != strings.Join(doc.Lines, "\n") || !res.Valid {
		t.Errorf("with text above: read %q (valid %v), want %q", res.Lines, res.Valid, doc.Lines)
	}
}

// TestReadSmallBoldGlyphs reads zones printed the way issuers print them
// rather than the way the font's own advance implies: glyphs a sixth
// smaller than the 2.54 mm pitch suggests, standing on the baseline, with
// the ink spread 0.03 em on each side. Read at the font's scale and
// weight, their 8s took the shapes of B and S and their 3s of S.
func TestReadSmallBoldGlyphs(t *testing.T) {
	requireFont(t)
	for _, c := range []struct {
		f    mrz.Format
		seed uint64
	}{{mrz.TD3, 5}, {mrz.TD3, 8}, {mrz.TD1, 6}, {mrz.TD2, 7}} {
		readsReprinted(t, c.f, c.seed, docgen.Printer{Width: 0.84, Height: 0.84, Spread: 0.03, Soft: 0.6,
			Ink: color.RGBA{15, 15, 18, 255}, Density: 1}, docgen.Mild())
	}
}

// readsReprinted renders docgen's document of format f and seed, prints
// its zone again with p, photographs it with d, and checks that Read
// reads every line exactly.
func readsReprinted(t *testing.T, f mrz.Format, seed uint64, p docgen.Printer, d docgen.Degrade) {
	t.Helper()
	doc, err := docgen.Render(docgen.NewGenerator(seed, accuracyNow).Spec(f))
	if err != nil {
		t.Fatal(err)
	}
	doc, err = docgen.Reprint(doc, p, seed)
	if err != nil {
		t.Fatal(err)
	}
	ph, err := docgen.Photograph(doc, d, seed)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(ph.Image, 0)
	if err != nil {
		t.Fatalf("%v seed %d: %v", f, seed, err)
	}
	if strings.Join(res.Lines, "\n") != strings.Join(doc.Lines, "\n") {
		t.Errorf("%v seed %d: read %q, want %q", f, seed, res.Lines, doc.Lines)
	}
}

// TestReadSmallThinGlyphs reads zones printed in thin strokes a fifth
// smaller than the 2.54 mm pitch suggests, photographed large (glyphs
// ~60 px tall): sharp, thin glyphs in cells sized for the font match
// every template poorly, so too few placed the line for its glyphs'
// proportions to be measured, and B, E, 8 and 0 were read as D, F, S and
// O (smallerGlyphs; an independently generated Belgian card read so).
func TestReadSmallThinGlyphs(t *testing.T) {
	requireFont(t)
	for _, c := range []struct {
		f    mrz.Format
		seed uint64
	}{{mrz.TD1, 2}, {mrz.TD3, 2}} {
		d := docgen.Mild()
		d.Width, d.Height = 3200, 2400
		d.MinScale, d.MaxScale = 0.85, 0.9
		readsReprinted(t, c.f, c.seed, docgen.Printer{Width: 0.78, Height: 0.85, Spread: -0.02, Soft: 0.4,
			Ink: color.RGBA{15, 15, 18, 255}, Density: 1}, d)
	}
}

// TestUpright: a zone read the right way up shows a run of sure fillers,
// also when part of it is hidden; the same zone upside down, read as it
// is, shows none (its fillers are '>'), so only an upright reading ends
// readTurns' search of the other orientations early.
func TestUpright(t *testing.T) {
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range []mrz.Format{mrz.TD1, mrz.TD2, mrz.TD3} {
		for j, d := range []docgen.Degrade{docgen.Mild(), docgen.Heavy()} {
			_, ph := photo(t, f, uint64(10+3*i+j), d)
			for _, deg := range []int{0, 180} {
				img := ph.Image
				if deg != 0 {
					img = rotated(img, deg)
				}
				res, err := readTurns(toGray(img), ts, 0, detectSide, 0, []int{0})
				if err != nil {
					t.Fatalf("%v %d, turned %d°: %v", f, j, deg, err)
				}
				if got := res.upright(); got != (deg == 0) {
					t.Errorf("%v %d, turned %d°: upright %v (%q)", f, j, deg, got, res.Lines)
				}
			}
		}
	}
	// Half of every line hidden (a finger, glare): what is left of the
	// fillers still says which way up the zone is.
	r := Result{Lines: []string{"P<GBRDOE<<JANE<<<<<<<<???????????????????????", "1234567897GBR9005171F300101???????????????????"},
		Confidence: [][]float64{make([]float64, 44), make([]float64, 44)}}
	for k := range 22 {
		r.Confidence[0][k], r.Confidence[1][k] = 0.8, 0.8
	}
	if !r.upright() {
		t.Error("a half-hidden zone with five sure fillers is not upright")
	}
	r.Confidence[0][17] = 0.2 // the run broken by unsure fillers: runs of 3, 1 and 2
	r.Confidence[0][19] = 0.2
	if r.upright() {
		t.Error("runs of fillers below uprightRun make the zone upright")
	}
}

// BenchmarkSmallZone measures smallZone, the test made after a first
// search that read no valid zone, on a 17 MP photo whose shrunk
// detection the first search made (docs/performance.md, twenty-sixth
// pass).
func BenchmarkSmallZone(b *testing.B) {
	_, img := squashedZonePhoto(b)
	d := detectS(toGray(img), 0, detectSide)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := smallZone(d); !ok {
			b.Fatal("no zone")
		}
	}
}
