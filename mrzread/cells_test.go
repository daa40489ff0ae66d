package mrzread

import (
	"math"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// templateLine draws text with the embedded templates (one image pixel
// per template pixel, so a pitch of cell.W pixels) on a white image,
// margin pitches of paper either side, and returns the image and the
// line's true geometry.
func templateLine(t *testing.T, text string, margin int) (*gray, *lineGeom) {
	t.Helper()
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	pitch := float64(tw)
	ppe := pitch / cell.Advance
	w := (len(text) + 2*margin) * tw
	h := 3 * th
	g := &gray{w: w, h: h, pix: make([]uint8, w*h)}
	for i := range g.pix {
		g.pix[i] = 255
	}
	top := th                               // image row of the templates' top row
	baseline := float64(top) - ppe*cell.Top // so that the cell's top edge falls on that row
	l := &lineGeom{icpt: baseline, h: 0.7 * ppe, found: true}
	for k := 0; k < len(text); k++ {
		c := strings.IndexByte(cell.Alphabet, text[k])
		raw := templatesBin[6+4+(c*ts.nv+ts.coarse)*tw*th:]
		x0 := (margin + k) * tw
		for y := 0; y < th; y++ {
			for x := 0; x < tw; x++ {
				g.pix[(top+y)*w+x0+x] = 255 - raw[y*tw+x]
			}
		}
		l.centres = append(l.centres, float64(x0)+pitch/2)
		l.pitch = append(l.pitch, pitch)
	}
	return g, l
}

// readCells returns the best allowed character of each cell.
func readCells(cells []cellResult, cls string) string {
	var b strings.Builder
	for k := range cells {
		c, _, _, _ := top2(&cells[k], allowed(cls[k]))
		if cells[k].empty || cells[k].outside {
			c = '?'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// TestRenumber: a line whose cells were numbered one pitch off (a speck
// in the margin taken for its first glyph, or its first glyph lost) is
// numbered again so that it reads its own text, and a line numbered
// right is left alone.
func TestRenumber(t *testing.T) {
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	text := "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
	cls := classes[mrz.TD3][0]
	g, truth := templateLine(t, text, 3)
	patch := make([]float32, pw*ph)
	for _, off := range []float64{-1, 0, 1} {
		lg := *truth
		lg.centres = nil
		for _, x := range truth.centres {
			lg.centres = append(lg.centres, x+off*float64(tw))
		}
		cells := make([]cellResult, len(text))
		got := renumber(g, ts, &lg, cls, cells, patch)
		if d := got.centres[0] - truth.centres[0]; math.Abs(d) > 0.01 {
			t.Errorf("line numbered %+.0f pitch off: first cell at %+.1f px from its glyph after renumbering", off, d)
		}
		if s := readCells(cells, cls); s != text {
			t.Errorf("line numbered %+.0f pitch off reads %s", off, s)
		}
	}
}

// TestLocalFit: glyph shifts that bow along a line (a bent page) are
// followed to the line's ends, where a straight fit through them is
// more than a template pixel off, and a glyph matched at a wrong shift
// does not pull the fit.
func TestLocalFit(t *testing.T) {
	const n = 44
	bow := func(k float64) float64 { return -2.5 + 6*math.Pow((k-21.5)/21.5, 2) }
	var pts [][2]float64
	for k := 0; k < n; k++ {
		v := math.Round(bow(float64(k))) // shifts are whole template pixels
		if k == 30 {
			v += 4 // a glyph matched at the wrong shift
		}
		pts = append(pts, [2]float64{float64(k), v})
	}
	got := localFit(pts, n)
	a, b, _ := polyfit(pts, false, func(p [2]float64) (float64, float64) { return p[0], p[1] })
	for _, k := range []int{0, 1, 21, 42, 43} {
		want := bow(float64(k))
		if math.Abs(got[k]-want) > 0.6 {
			t.Errorf("cell %d: local fit %.2f, want %.2f", k, got[k], want)
		}
	}
	// The straight fit this replaces is off by more than a pixel at the
	// ends (what made a '<' at the end of a bent line read as K).
	if straight := a + b*0; math.Abs(straight-bow(0)) < 1 {
		t.Errorf("the test bow is too weak: a straight fit is %.2f at cell 0, the bow %.2f", straight, bow(0))
	}
	if got := localFit(pts[:3], n); len(got) != n {
		t.Errorf("few points: %d values", len(got))
	}
}

// TestFillNames: after three fillers in a row the name field holds only
// fillers (ICAO 9303); a letter read there becomes '<' when that is its
// runner-up and unreadable otherwise, and the name itself is untouched.
func TestFillNames(t *testing.T) {
	cases := []struct {
		name      string
		line      string
		alt       map[int]byte
		want      string
		corrected int
	}{
		{"filler misread as K, runner-up <", "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<K", map[int]byte{43: '<'},
			"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", 1},
		{"filler misread as X, runner-up K", "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<X", map[int]byte{43: 'K'},
			"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<?", 0},
		{"name with one and two fillers", "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", nil,
			"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", 0},
		{"name filling the field", "P<UTOVANDERBERGHEHEHEHEHEN<<ANNA<MARIAHELENAK", map[int]byte{43: '<'},
			"P<UTOVANDERBERGHEHEHEHEHEN<<ANNA<MARIAHELENAK", 0},
		{"fillers in the issuing state do not count", "P<<<<ERIKSSON<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<", nil,
			"P<<<<ERIKSSON<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<", 0},
	}
	for _, c := range cases {
		text := [][]byte{[]byte(c.line), []byte(strings.Repeat("<", 44))}
		alt := [][]byte{make([]byte, 44), make([]byte, 44)}
		conf := [][]float64{make([]float64, 44), make([]float64, 44)}
		for k, a := range c.alt {
			alt[0][k] = a
			conf[0][k] = 0.9
		}
		guess := [][]byte{make([]byte, 44), make([]byte, 44)}
		got := fillNames(mrz.TD3, text, alt, conf, guess)
		if string(text[0]) != c.want || len(got) != c.corrected {
			t.Errorf("%s: %s with %d corrections, want %s with %d", c.name, text[0], len(got), c.want, c.corrected)
		}
		for k := range c.want {
			if c.want[k] == '?' && guess[0][k] != '<' {
				t.Errorf("%s: position %d unreadable, guessed %q, want '<'", c.name, k, guess[0][k])
			}
		}
		for _, cr := range got {
			if cr.Field != FieldNames || conf[cr.Line][cr.Pos] > 0.5 {
				t.Errorf("%s: correction %+v, confidence %.2f", c.name, cr, conf[cr.Line][cr.Pos])
			}
		}
	}
}

// TestRematchBeyondSearch: when the line's geometry puts every glyph
// further from its cell's centre than the free search reaches (a
// baseline estimated a quarter of a glyph too low), the cells are searched
// again around where the fit through the glyphs puts them, and the line
// reads its own text.
func TestRematchBeyondSearch(t *testing.T) {
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	text := "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
	cls := classes[mrz.TD3][1]
	g, truth := templateLine(t, text, 3)
	patch := make([]float32, pw*ph)
	lg := *truth
	lg.icpt += 5 // template pixels (one image pixel each): beyond cell.Margin
	cells := make([]cellResult, len(text))
	got := renumber(g, ts, &lg, cls, cells, patch)
	if s := readCells(cells, cls); s != text {
		t.Errorf("reads %s", s)
	}
	if got.centres[0] != truth.centres[0] {
		t.Errorf("renumbered: first cell at %.1f, want %.1f", got.centres[0], truth.centres[0])
	}
}

// TestReadOtherLayout: a TD2 zone whose lines noise in low light made
// look long enough for a TD3 is read as the TD2 it is (the TD3 reading
// leaves cells unread, the TD2 one verifies with no correction), and a
// TD3 passport whose empty personal number would verify as a TD2 once
// its middle fillers are dropped is never read as one (its first glyph
// is a P). The photos are the low-light set's (TestAccuracy) documents
// 50004 and 1.
func TestReadOtherLayout(t *testing.T) {
	requireFont(t)
	var lowlight variant
	for _, v := range photoVariants {
		if v.name == "lowlight" {
			lowlight = v
		}
	}
	o := evaluate(t, lowlight, 50004)
	if o.format != mrz.TD2 {
		t.Fatalf("document 50004 is a %v; the generator changed, pick another", o.format)
	}
	if o.err != nil || o.res.Format != mrz.TD2 || !o.res.Valid || strings.Join(o.res.Lines, "\n") != strings.Join(o.truth, "\n") {
		t.Errorf("TD2 in low light: read %v %q (valid %v, %v), want %q", o.res.Format, o.res.Lines, o.res.Valid, o.err, o.truth)
	}
	o = evaluate(t, lowlight, 1)
	if o.format != mrz.TD3 {
		t.Fatalf("document 1 is a %v; the generator changed, pick another", o.format)
	}
	if o.err == nil && o.res.Format == mrz.TD2 {
		t.Errorf("TD3 in low light read as TD2: %q (valid %v)", o.res.Lines, o.res.Valid)
	}
}

// TestShiftFit: a line whose glyph shifts are straight within a pixel is
// fitted straight (the whole line's average places cells most
// precisely), one that bows by more follows the bow.
func TestShiftFit(t *testing.T) {
	const n = 30
	var flat, bowed [][2]float64
	for k := 0; k < n; k++ {
		u := (float64(k) - 14.5) / 14.5
		// Integer observations of a shift with a slight curve (under half
		// a pixel) and alternating rounding noise.
		flat = append(flat, [2]float64{float64(k), math.Round(1 + 0.4*u*u + 0.3*float64(k%2))})
		bowed = append(bowed, [2]float64{float64(k), math.Round(-2 + 5*u*u)})
	}
	got := shiftFit(flat, n)
	for k := 1; k < n; k++ {
		d2 := got[k] - 2*got[k-1]
		if k >= 2 {
			d2 += got[k-2]
		}
		if k >= 2 && math.Abs(d2) > 1e-9 {
			t.Fatalf("slightly curved shifts: fit not straight at cell %d (%v)", k, got)
		}
	}
	got = shiftFit(bowed, n)
	if math.Abs(got[0]-3) > 0.7 || math.Abs(got[n/2]+2) > 0.7 {
		t.Errorf("bowed shifts: fit %.2f at the end, %.2f in the middle; want about 3 and -2", got[0], got[n/2])
	}
}

// TestDateClasses: a glyph no calendar has at a date's tens of month or
// of day (a 0 blurred into a 6 on a tilted passport, seed 26 of the
// independently generated photos) is read as the best digit that fits
// there; elsewhere in the date, and read as a plain digit, it stays a 6.
func TestDateClasses(t *testing.T) {
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	// The birth date 740812 printed 746862: month tens and day tens 6.
	text := "L898902C36UTO7468622F1204159ZE184226B<<<<<10"
	cls := classes[mrz.TD3][1]
	if cls[15] != 'm' || cls[17] != 't' || cls[23] != 'm' || cls[25] != 't' {
		t.Fatalf("TD3 line 2 classes %s: want the dates' month and day tens at 15, 17, 23, 25", cls)
	}
	g, lg := templateLine(t, text, 3)
	cells := make([]cellResult, len(text))
	renumber(g, ts, lg, cls, cells, make([]float32, pw*ph))
	got := readCells(cells, cls)
	if !strings.ContainsRune("01", rune(got[15])) || !strings.ContainsRune("0123", rune(got[17])) {
		t.Errorf("month tens %q, day tens %q: want 0/1 and 0–3", got[15], got[17])
	}
	if got[:15]+got[16:17]+got[18:] != text[:15]+text[16:17]+text[18:] {
		t.Errorf("reads %s, want %s but for the month and day tens", got, text)
	}
	plain := strings.Repeat("n", len(cls))
	if p := readCells(cells, plain); p[15] != '6' || p[17] != '6' {
		t.Errorf("as plain digits reads %s: want the 6s as printed", p)
	}
}

// TestPlaceAcross: a line placed by its neighbour half a glyph off (the
// spacing of a zone's lines varies with the printer; a soft photo's
// glyph height is measured short) is moved back onto its glyphs, also
// with the page's dark edge just below them; a line on its glyphs stays.
func TestPlaceAcross(t *testing.T) {
	ts, err := loadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	text := "Z3817889<1AUS6306209F3411126<<<<<<<<<<<<<<<0"
	cls := classes[mrz.TD3][1]
	patch := make([]float32, pw*ph)
	for _, tc := range []struct {
		name  string
		off   float64 // glyph heights, down
		edge  bool
		moved bool
	}{
		{"on its glyphs", 0, false, false},
		{"half a glyph high", -0.5, false, true},
		{"half a glyph low", 0.5, false, true},
		{"half a glyph high, the page's edge below", -0.5, true, true},
	} {
		g, lg := templateLine(t, text, 3)
		if tc.edge {
			// Dark from just under the glyphs' cells to the bottom.
			for y := 2*th + 2; y < g.h; y++ {
				for x := 0; x < g.w; x++ {
					g.pix[y*g.w+x] = 30
				}
			}
		}
		off := shifted(lg, tc.off*lg.h)
		got := placeAcross(g, ts, off, cls, patch)
		if d := math.Abs(got.icpt - lg.icpt); d > 0.15*lg.h {
			t.Errorf("%s: placed %.1f px from its glyphs (glyph %.1f px)", tc.name, got.icpt-lg.icpt, lg.h)
		}
		if (got != off) != tc.moved {
			t.Errorf("%s: moved %v, want %v", tc.name, got != off, tc.moved)
		}
		cells := make([]cellResult, len(text))
		renumber(g, ts, got, cls, cells, patch)
		if r := readCells(cells, cls); r != text {
			t.Errorf("%s: reads %s, want %s", tc.name, r, text)
		}
	}
}
