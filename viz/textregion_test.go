package viz

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/verifyd/verifyd/internal/textimage"
)

// card draws lines of text (basicfont, 13 px, enlarged 3×) on a pale card
// of 420×260 px placed at at on a background, and returns the photo and
// the card's rectangle.
func card(bg func(x, y int) color.Gray, at image.Point, lines ...string) (image.Image, image.Rectangle) {
	small := image.NewGray(image.Rect(0, 0, 140, 87))
	draw.Draw(small, small.Bounds(), image.NewUniform(color.Gray{235}), image.Point{}, draw.Src)
	d := font.Drawer{Dst: small, Src: image.NewUniform(color.Gray{30}), Face: basicfont.Face7x13}
	for i, l := range lines {
		d.Dot = fixed.P(6, 16+i*16)
		d.DrawString(l)
	}
	photo := image.NewGray(image.Rect(0, 0, 1600, 1200))
	for y := 0; y < 1200; y++ {
		for x := 0; x < 1600; x++ {
			photo.SetGray(x, y, bg(x, y))
		}
	}
	r := image.Rect(at.X, at.Y, at.X+420, at.Y+261)
	xdraw.NearestNeighbor.Scale(photo, r, small, small.Bounds(), xdraw.Src, nil)
	return photo, r
}

func TestTextRegion(t *testing.T) {
	text := []string{"SURNAME", "ERIKSSON", "BORN 12 AUG 1974", "NO L898902C3", "EXP 11 JUN 2030"}
	for _, tc := range []struct {
		name string
		bg   func(x, y int) color.Gray
	}{
		{"plain table", func(x, y int) color.Gray { return color.Gray{120} }},
		// Polka dots a dot and a half apart: rows of round, solid blobs
		// that quality.FindDocument's border model does not explain.
		{"polka dots", func(x, y int) color.Gray {
			dx, dy := x%75-37, y%75-37
			if dx*dx+dy*dy < 15*15 {
				return color.Gray{60}
			}
			return color.Gray{210}
		}},
		// Wood-like grain: long dark streaks.
		{"grain", func(x, y int) color.Gray {
			if (y+x/40)%23 < 3 {
				return color.Gray{90}
			}
			return color.Gray{150}
		}},
		// A cloth of short marks: crosses under half the card's
		// capitals' height in threes, chained into rows of three glyphs
		// over the whole photo, many times the card's glyphs
		// (longLines).
		{"cloth of short marks", func(x, y int) color.Gray {
			gx, gy, lx := x%66, y%32, x%66%16
			if gy >= 12 || gx >= 3*16 || lx >= 12 {
				return color.Gray{200}
			}
			if lx >= 4 && lx < 8 || gy >= 4 && gy < 8 {
				return color.Gray{70}
			}
			return color.Gray{200}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			photo, cardRect := card(tc.bg, image.Pt(900, 700), text...)
			r, glyph, ok := TextRegion(photo)
			if !ok {
				t.Fatal("no text found")
			}
			// The text's lines lie inside the card; the region holds them
			// all and little of the table.
			inside := r.Intersect(cardRect.Inset(-100)) // a margin of three glyphs
			if inside != r {
				t.Errorf("region %v reaches beyond the card %v", r, cardRect)
			}
			if textBox := image.Rect(cardRect.Min.X+18, cardRect.Min.Y+18, cardRect.Min.X+18+16*21, cardRect.Min.Y+5*48); !textBox.In(r.Inset(-6)) {
				t.Errorf("region %v misses text of %v", r, textBox)
			}
			// Capitals of 13 px type are 9 px tall, ×3.
			if glyph < 20 || glyph > 40 {
				t.Errorf("glyph height %.1f, want about 27", glyph)
			}
		})
	}
	// Nothing printed: nothing found.
	blank := image.NewGray(image.Rect(0, 0, 800, 600))
	draw.Draw(blank, blank.Bounds(), image.NewUniform(color.Gray{128}), image.Point{}, draw.Src)
	if r, _, ok := TextRegion(blank); ok {
		t.Errorf("found text %v on a blank photo", r)
	}
}

// TestTextRegionNoise: sensor noise on a dim table, as glyph-sized
// specks everywhere in rows as long as the card's, 35 grey levels darker
// than the table, and the card's text 200 darker than its paper: the
// region is the card's (inked), not the whole photo.
func TestTextRegionNoise(t *testing.T) {
	t.Parallel()
	hash := func(a, b, k int) int {
		h := uint32(a*73856093 ^ b*19349663 ^ k*83492791)
		h ^= h >> 13
		h *= 0x5bd1e995
		h ^= h >> 15
		return int(h % 1000)
	}
	// In each 16 px cell, nine in ten times, a speck: a "C" 6–10 px wide
	// and 8–12 px tall, its stroke 2 px, at a random place in the cell.
	bg := func(x, y int) color.Gray {
		cx, cy := x/16, y/16
		if hash(cx, cy, 0)%10 == 0 {
			return color.Gray{120}
		}
		w, h := 6+hash(cx, cy, 1)%5, 8+hash(cx, cy, 2)%5
		ox, oy := hash(cx, cy, 3)%(16-w), hash(cx, cy, 4)%(16-h)
		lx, ly := x%16-ox, y%16-oy
		if lx < 0 || ly < 0 || lx >= w || ly >= h {
			return color.Gray{120}
		}
		if lx < 2 || ly < 2 || ly >= h-2 {
			return color.Gray{85}
		}
		return color.Gray{120}
	}
	photo, cardRect := card(bg, image.Pt(900, 700), "SURNAME", "ERIKSSON", "BORN 12 AUG 1974", "NO L898902C3", "EXP 11 JUN 2030")
	r, glyph, ok := TextRegion(photo)
	if !ok {
		t.Fatal("no text found")
	}
	// Specks beside the bright card are dark against it and join its
	// text: the region is the card and a margin, not the photo.
	if textBox := image.Rect(cardRect.Min.X+18, cardRect.Min.Y+18, cardRect.Min.X+18+16*21, cardRect.Min.Y+5*48); !textBox.In(r) {
		t.Errorf("region %v misses text of %v", r, textBox)
	}
	if 4*r.Dx()*r.Dy() > photo.Bounds().Dx()*photo.Bounds().Dy() {
		t.Errorf("region %v is over a quarter of the photo %v", r, photo.Bounds())
	}
	if glyph < 20 || glyph > 40 {
		t.Errorf("glyph height %.1f, want about 27", glyph)
	}
}

// TestTextRegionSmallCard: a card filling a small part of a large photo,
// its values (capitals ~14 px) between labels half their size. At the
// photo's search scale the labels are too small to be glyphs, the value
// lines stand apart and each is a cluster of its own; searched again
// around the first one found, the labels join them, and the region holds
// every value (an independently generated card's front lost its dates
// and number to the first search alone).
func TestTextRegionSmallCard(t *testing.T) {
	photo := image.NewGray(image.Rect(0, 0, 3000, 2000))
	draw.Draw(photo, photo.Bounds(), image.NewUniform(color.Gray{150}), image.Point{}, draw.Src)
	cardRect := image.Rect(1500, 1100, 2120, 1700)
	draw.Draw(photo, cardRect, image.NewUniform(color.Gray{235}), image.Point{}, draw.Src)
	rows := [][2]string{{"1. SURNAME / NOM", "ERIKSSON"}, {"2. NUMBER", "L898902C3"},
		{"3. GIVEN NAMES / PRENOMS", "ANNA MARIA LOUISE"}, {"4. DATE OF BIRTH", "12 08 1974"}, {"5. DATE OF EXPIRY", "11 06 2030"}}
	var values []image.Rectangle
	for i, r := range rows {
		y := cardRect.Min.Y + 50 + 100*i
		if err := textimage.Write(photo, 9, cardRect.Min.X+30, y, r[0]); err != nil {
			t.Fatal(err)
		}
		if err := textimage.Write(photo, 24, cardRect.Min.X+30, y+40, r[1]); err != nil {
			t.Fatal(err)
		}
		values = append(values, image.Rect(cardRect.Min.X+30, y+40-17, cardRect.Min.X+30+12*len(r[1]), y+40))
	}
	r, _, ok := TextRegion(photo)
	if !ok {
		t.Fatal("no text found")
	}
	for i, v := range values {
		if !v.In(r) {
			t.Errorf("region %v misses the value %q at %v", r, rows[i][1], v)
		}
	}
	if !r.In(cardRect.Inset(-60)) {
		t.Errorf("region %v reaches beyond the card %v", r, cardRect)
	}
}

// TestTextRegionWindowTexture: a card on a cloth whose weave is too fine
// to show at the photo's search scale and shows at the larger scale of the
// window searched again around the card (its marks 15 px tall: under 4 px,
// a glyph's least, at the photo's scale, and about 7 at the window's). What
// the window's search finds then runs to its sides, and is the cloth, not
// the card's labels come back: the region stays the card's. Before, it
// was the whole window (a Portuguese card on gingham, independently
// generated, docs/accuracy.md, twenty-ninth pass).
func TestTextRegionWindowTexture(t *testing.T) {
	photo := image.NewGray(image.Rect(0, 0, 4000, 3000))
	for y := 0; y < 3000; y++ {
		for x := 0; x < 4000; x++ {
			v := uint8(200)
			// Crosses 12 × 15 px, 26 px apart along rows 40 px apart,
			// as dark as ink.
			if mx, my := x%26, y%40; mx < 12 && my < 15 && (mx >= 4 && mx < 8 || my >= 5 && my < 10) {
				v = 40
			}
			photo.SetGray(x, y, color.Gray{v})
		}
	}
	cardRect := image.Rect(1500, 1200, 2500, 1830)
	draw.Draw(photo, cardRect, image.NewUniform(color.Gray{235}), image.Point{}, draw.Src)
	rows := []string{"SURNAME ERIKSSON", "GIVEN NAMES ANNA MARIA", "BORN 12 08 1974", "NO L898902C3", "EXPIRES 11 06 2030"}
	for i, r := range rows {
		if err := textimage.Write(photo, 40, cardRect.Min.X+40, cardRect.Min.Y+90+110*i, r); err != nil {
			t.Fatal(err)
		}
	}
	r, _, ok := TextRegion(photo)
	if !ok {
		t.Fatal("no text found")
	}
	if !r.In(cardRect.Inset(-150)) {
		t.Errorf("region %v reaches beyond the card %v", r, cardRect)
	}
}

// TestTextRegionRow: fields of one row stand further apart than rows do;
// a card's number printed at the top right, six glyph heights beyond its
// header, belongs to the text (an independently generated card's number
// was left out of the region, and never read), also when it stands a
// little lower than the header (Swiss and Dutch cards, whose numbers
// overlapped the header's height by a third).
func TestTextRegionRow(t *testing.T) {
	for _, baseline := range []int{150, 160} {
		photo := image.NewGray(image.Rect(0, 0, 1000, 700))
		draw.Draw(photo, photo.Bounds(), image.NewUniform(color.Gray{235}), image.Point{}, draw.Src)
		for _, l := range []struct {
			x, y int
			text string
		}{{100, 150, "REPUBLIC OF UTOPIA"}, {100, 200, "ERIKSSON"}, {100, 240, "ANNA MARIA"}, {100, 280, "12 08 1974"}} {
			if err := textimage.Write(photo, 20, l.x, l.y, l.text); err != nil {
				t.Fatal(err)
			}
		}
		number := image.Rect(440, baseline-14, 440+9*12, baseline)
		if err := textimage.Write(photo, 20, number.Min.X, baseline, "L898902C3"); err != nil {
			t.Fatal(err)
		}
		r, _, ok := TextRegion(photo)
		if !ok {
			t.Fatal("no text found")
		}
		if !number.In(r) {
			t.Errorf("number's baseline at %d: region %v misses the number at %v", baseline, r, number)
		}
	}
}

// TestTextRegionOutOfFocus: out of focus, each word's letters run into
// one shape too wide for a glyph and the search by glyphs finds no text
// (a soft-focus photo of an independently generated permit); taken for
// runs of letters, the words are found, the whole card's text with them.
//
// On a polka-dot cloth (short of the photo's edges), the dots blurred
// are as word-shaped as the words and more numerous; they are one shape
// at one pitch (untiled), and the card's words are still the text (an
// independently generated Belgian permit on such a cloth was read whole,
// docs/accuracy.md, twenty-fifth pass).
func TestTextRegionOutOfFocus(t *testing.T) {
	for _, tc := range []struct {
		name string
		bg   func(x, y int) color.Gray
	}{
		{"plain table", func(x, y int) color.Gray { return color.Gray{200} }},
		{"polka dots", func(x, y int) color.Gray {
			if x < 40 || y < 40 || x >= 1560 || y >= 1160 {
				return color.Gray{200}
			}
			if dx, dy := x%70-35, y%70-35; dx*dx+dy*dy < 20*20 {
				return color.Gray{110}
			}
			return color.Gray{200}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			photo, cardRect := card(tc.bg, image.Pt(900, 700), "REPUBLIC", "", "ERIKSSON", "", "12 AUG 1974")
			soft := boxBlur(boxBlur(photo.(*image.Gray), 5), 5)
			if _, _, ok := textRegionIn(soft, soft.Bounds(), false, true); ok {
				t.Fatal("the search by glyphs found text: the photo is not blurred enough to test the fallback")
			}
			r, glyph, ok := TextRegion(soft)
			if !ok {
				t.Fatal("no text found")
			}
			if textBox := image.Rect(cardRect.Min.X+18, cardRect.Min.Y+18, cardRect.Min.X+18+11*21, cardRect.Min.Y+5*48); !textBox.In(r.Inset(-6)) {
				t.Errorf("region %v misses text of %v", r, textBox)
			}
			if inside := r.Intersect(cardRect.Inset(-100)); inside != r {
				t.Errorf("region %v reaches beyond the card %v", r, cardRect)
			}
			if glyph < 20 || glyph > 50 {
				t.Errorf("glyph height %.1f, want about 27 and the blur", glyph)
			}
		})
	}
}

// boxBlur averages each pixel of g with its neighbours up to r away.
func boxBlur(g *image.Gray, r int) *image.Gray {
	b := g.Bounds()
	out := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			sum, n := 0, 0
			for yy := max(y-r, b.Min.Y); yy <= min(y+r, b.Max.Y-1); yy++ {
				for xx := max(x-r, b.Min.X); xx <= min(x+r, b.Max.X-1); xx++ {
					sum += int(g.GrayAt(xx, yy).Y)
					n++
				}
			}
			out.SetGray(x, y, color.Gray{uint8(sum / n)})
		}
	}
	return out
}

// TestTextRegionApart: a card's header and its number printed alone at
// the top right stand further from its fields than lines of one block
// do (ten glyph heights here), and belong to the text (an independently
// generated Irish permit's number was left out so, and never read);
// text-like lines beyond a card's size from the fields (a patterned
// table, a letter beside the card) do not.
func TestTextRegionApart(t *testing.T) {
	photo := image.NewGray(image.Rect(0, 0, 1600, 1200))
	draw.Draw(photo, photo.Bounds(), image.NewUniform(color.Gray{235}), image.Point{}, draw.Src)
	write := func(x, y int, text string) image.Rectangle {
		if err := textimage.Write(photo, 20, x, y, text); err != nil {
			t.Fatal(err)
		}
		return image.Rect(x, y-14, x+12*len(text), y)
	}
	header := write(100, 230, "REPUBLIC OF UTOPIA")
	number := write(700, 170, "L898902C3")
	for i, l := range []string{"SURNAME ERIKSSON", "GIVEN NAMES ANNA MARIA", "BORN 12 08 1974", "EXPIRY 11 06 2030", "PLACE OF BIRTH ZENITH CITY"} {
		write(100, 400+40*i, l)
	}
	far := write(1250, 1150, "PATTERN PATTERN")
	r, _, ok := TextRegion(photo)
	if !ok {
		t.Fatal("no text found")
	}
	for _, want := range []image.Rectangle{header, number} {
		if !want.In(r) {
			t.Errorf("region %v misses the text at %v", r, want)
		}
	}
	if far.Overlaps(r) {
		t.Errorf("region %v takes in the line at %v, beyond a card's size from the fields", r, far)
	}
	// TextBlock is the fields' block alone.
	if b, _, ok := TextBlock(photo); !ok || b.Overlaps(number) || b.Overlaps(header) || !b.In(r.Inset(-10)) {
		t.Errorf("TextBlock %v (found %v): want the fields alone, inside %v", b, ok, r)
	}
}

// BenchmarkTextRegion times the search on a card lying on a polka-dot
// cloth, where a pattern's repeats are set aside (untiled) and the
// texture rules run (docs/performance.md).
func BenchmarkTextRegion(b *testing.B) {
	photo, _ := card(func(x, y int) color.Gray {
		if dx, dy := x%70-35, y%70-35; dx*dx+dy*dy < 20*20 {
			return color.Gray{110}
		}
		return color.Gray{200}
	}, image.Pt(900, 700), "REPUBLIC", "", "ERIKSSON", "", "12 AUG 1974")
	b.ResetTimer()
	for range b.N {
		if _, _, ok := TextRegion(photo); !ok {
			b.Fatal("no text found")
		}
	}
}

// TestRepeatsPatternAmongGlyphs: a cloth's checks among a card's glyphs,
// as the search finds them on gingham (independently generated,
// docs/accuracy.md, twenty-ninth pass): 48 checks in rows at one pitch,
// 10 more each ending a row of glyphs (cut by the card, or beside it),
// their outlines' areas spread by the light over 820–980 px, and 50
// glyphs of a smaller box and area. The pattern is the checks' shape —
// its area theirs, not pulled down by the glyphs' — and counts every
// check; no glyph is taken for it.
func TestRepeatsPatternAmongGlyphs(t *testing.T) {
	var comps []component
	var lines [][]int
	check := func(x, y, k int) int {
		comps = append(comps, component{box: image.Rect(x, y, x+38, y+38), area: 820 + (k*37)%160, glyphs: 1})
		return len(comps) - 1
	}
	k := 0
	for row := 0; row < 6; row++ {
		var l []int
		for i := 0; i < 8; i++ {
			l = append(l, check(77*i, 80*row, k))
			k++
		}
		lines = append(lines, l)
	}
	glyph := map[int]bool{}
	for row := 0; row < 10; row++ {
		var l []int
		for i := 0; i < 5; i++ {
			comps = append(comps, component{box: image.Rect(25*i, 600+40*row, 25*i+20, 630+40*row), area: 200, glyphs: 1})
			glyph[len(comps)-1] = true
			l = append(l, len(comps)-1)
		}
		l = append(l, check(200, 596+40*row, k))
		k++
		lines = append(lines, l)
	}
	tile, shaped := repeats(lines, comps, tilesMin, 0.5)
	if tile == nil {
		t.Fatal("no pattern found")
	}
	for ci := range comps {
		if glyph[ci] && (tile[ci] || shaped(ci)) {
			t.Errorf("glyph %d taken for the pattern", ci)
		}
		if !glyph[ci] && !shaped(ci) {
			t.Errorf("check %d (area %d) not of the pattern's shape", ci, comps[ci].area)
		}
	}
}
