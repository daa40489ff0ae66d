package engine

import (
	"image"
	"math"
	"testing"

	"github.com/verifyd/verifyd/mrz"
)

// TestPageOf: the page an MRZ lies on, from the zone's corners and ICAO
// 9303's geometry, and the scale that reads it at vizPxPerMM.
func TestPageOf(t *testing.T) {
	const ppm = 10.0 // the photo's pixels per mm
	bounds := image.Rect(0, 0, 3000, 2000)
	for _, tc := range []struct {
		name   string
		format mrz.Format
		deg    float64 // the zone turned clockwise by this much
	}{
		{"passport, level", mrz.TD3, 0},
		{"passport, turned 15°", mrz.TD3, 15},
		{"card back, turned -10°", mrz.TD1, -10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := float64(tc.format.Width()) * 2.54 * ppm
			h := 12 * ppm
			a := tc.deg * math.Pi / 180
			at := func(x, y float64) image.Point { // around (1500, 1500)
				return image.Pt(int(math.Round(1500+x*math.Cos(a)-y*math.Sin(a))), int(math.Round(1500+x*math.Sin(a)+y*math.Cos(a))))
			}
			loc := Located{Format: tc.format, Quad: [4]image.Point{at(-w/2, 0), at(w/2, 0), at(w/2, h), at(-w/2, h)}}
			rect, side, outline, ok := pageOf(loc, bounds)
			if !ok {
				t.Fatal("no page")
			}
			m := pageMM[tc.format]
			// Every corner of the page (the zone extended by the page's
			// margins) lies inside the crop, and the crop is no larger
			// than the page turned.
			for _, c := range [][2]float64{{-w/2 - m.left*ppm, -m.above * ppm}, {w/2 + m.right*ppm, -m.above * ppm},
				{w/2 + m.right*ppm, h + m.below*ppm}, {-w/2 - m.left*ppm, h + m.below*ppm}} {
				if p := at(c[0], c[1]); !p.In(rect.Inset(-2)) && p.In(bounds) {
					t.Errorf("page corner %v outside the crop %v", p, rect)
				}
			}
			// The outline is the page's corners, in order from the top left.
			for i, c := range [][2]float64{{-w/2 - m.left*ppm, -m.above * ppm}, {w/2 + m.right*ppm, -m.above * ppm},
				{w/2 + m.right*ppm, h + m.below*ppm}, {-w/2 - m.left*ppm, h + m.below*ppm}} {
				if d := outline[i].Sub(at(c[0], c[1])); d.X*d.X+d.Y*d.Y > 8 {
					t.Errorf("outline corner %d at %v, want %v", i, outline[i], at(c[0], c[1]))
				}
			}
			// The scale: the crop's long side at vizPxPerMM instead of ppm.
			if want := float64(max(rect.Dx(), rect.Dy())) * vizPxPerMM / ppm; math.Abs(float64(side)-want) > 0.01*want {
				t.Errorf("side %d, want %.0f", side, want)
			}
		})
	}
	if _, _, _, ok := pageOf(Located{Format: mrz.TD3}, bounds); ok {
		t.Error("a zone without corners gives a page")
	}
}

// TestCardShaped: an outline found on a photo without an MRZ is taken for
// the card only when its sides are in an ID-1 or TD2 card's proportion,
// allowing for perspective; a portrait's frame is not.
func TestCardShaped(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    image.Rectangle
		want bool
	}{
		{"ID-1 card", image.Rect(0, 0, 856, 540), true},
		{"ID-1 card on its side", image.Rect(100, 100, 640, 956), true},
		{"TD2 card", image.Rect(0, 0, 1050, 740), true},
		{"a card seen at an angle, shortened", image.Rect(0, 0, 856, 700), true},
		{"a card seen at an angle, stretched", image.Rect(0, 0, 1000, 540), true},
		{"a portrait's frame (Swiss card)", image.Rect(875, 706, 1291, 1675), false},
		{"a square", image.Rect(0, 0, 500, 500), false},
		// Its bounding box, 1.13:1: read where its text is instead.
		{"an ID-1 card turned by 30°", image.Rect(0, 0, 1011, 896), false},
		{"a strip", image.Rect(0, 0, 1500, 400), false},
		{"nothing", image.Rectangle{}, false},
	} {
		if got := cardShaped(tc.r); got != tc.want {
			t.Errorf("%s %v: cardShaped = %v, want %v", tc.name, tc.r, got, tc.want)
		}
	}
}

// TestSideRegion: a photo without an MRZ is read within the outline found
// when it is card-shaped and holds the text; otherwise where the text is,
// at the scale its glyphs set.
func TestSideRegion(t *testing.T) {
	card := image.Rect(274, 687, 2378, 2108)
	for _, tc := range []struct {
		name       string
		bounds     image.Rectangle
		outline    image.Rectangle
		found      bool
		text       image.Rectangle
		textOK     bool
		want       image.Rectangle
		wantScaled bool
	}{
		{"the card, its text inside", image.Rect(0, 0, 3082, 2312), card, true, image.Rect(600, 700, 2300, 2000), true, card, false},
		{"the card, no text found", image.Rect(0, 0, 3082, 2312), card, true, image.Rectangle{}, false, card, false},
		// An independently generated Belgian permit's front: glare washed
		// out its portrait's side into a card-shaped bright patch, and the
		// text beside it, with the birth date, lies outside.
		{"a bright patch beside the text", image.Rect(0, 0, 3082, 2312), image.Rect(565, 873, 1503, 1953), true, image.Rect(634, 702, 2303, 1973), true, image.Rect(634, 702, 2303, 1973), true},
		// Independently generated Ukrainian licence photos on a dark
		// textured table: the text found is the table's, beside the
		// card (from the photo's corner) or all over the photo.
		{"the table's texture beside the card", image.Rect(0, 0, 2110, 1582), image.Rect(791, 87, 2023, 879), true, image.Rect(0, 0, 1465, 1568), true, image.Rect(791, 87, 2023, 879), false},
		{"the table's texture all over", image.Rect(0, 0, 2102, 3736), image.Rect(171, 2412, 1028, 2974), true, image.Rect(0, 0, 2102, 3736), true, image.Rect(171, 2412, 1028, 2974), false},
		// A Belgian licence's: the text found is the whole photo, under
		// four times the card's area.
		{"the table's texture all over a large card", image.Rect(0, 0, 2158, 3838), image.Rect(207, 1903, 2079, 3167), true, image.Rect(0, 0, 2158, 3838), true, image.Rect(207, 1903, 2079, 3167), false},
		{"a portrait's frame", image.Rect(0, 0, 3082, 2312), image.Rect(875, 706, 1291, 1675), true, image.Rect(600, 700, 2300, 2000), true, image.Rect(600, 700, 2300, 2000), true},
		// Independently generated cards (twenty-ninth pass): a US
		// permit's portrait side in low light stood out alone, and a
		// Mexican card's lower left joined to a marble's vein below it;
		// the text, a card's size in glyphs, lies mostly outside.
		{"a card's portrait side", image.Rect(0, 0, 2352, 1764), image.Rect(548, 725, 902, 1353), true, image.Rect(743, 343, 1800, 1195), true, image.Rect(743, 343, 1800, 1195), true},
		{"part of the card and a vein below it", image.Rect(0, 0, 2410, 3214), image.Rect(642, 535, 1580, 1219), true, image.Rect(674, 157, 2157, 1048), true, image.Rect(674, 157, 2157, 1048), true},
		// Text beyond the outline spanning more than a card's text
		// (here 100 × 80 glyphs) is not the card's.
		{"text too large for a card around the card", image.Rect(0, 0, 4000, 3000), image.Rect(1000, 1000, 2000, 1630), true, image.Rect(500, 300, 3500, 2700), true, image.Rect(1000, 1000, 2000, 1630), false},
		{"no outline", image.Rect(0, 0, 3082, 2312), image.Rect(300, 200, 2700, 2100), false, image.Rect(600, 700, 2300, 2000), true, image.Rect(600, 700, 2300, 2000), true},
		{"nothing found", image.Rect(0, 0, 3082, 2312), image.Rect(300, 200, 2700, 2100), false, image.Rectangle{}, false, image.Rect(300, 200, 2700, 2100), false},
	} {
		r := sideRegion(tc.bounds, tc.outline, tc.found, tc.text, 30, tc.textOK)
		if r.Rect != tc.want || (r.Side != 0) != tc.wantScaled {
			t.Errorf("%s: region %v side %d, want %v (scaled by its glyphs: %v)", tc.name, r.Rect, r.Side, tc.want, tc.wantScaled)
		}
	}
}
