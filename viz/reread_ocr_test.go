package viz_test

import (
	"context"
	"image"
	"image/draw"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/textimage"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/viz"
)

// TestRereadWithTesseract reads a spot again with the tesseract program
// from a photo twice the page's scale: the words come back in the page's
// coordinates, where the value lies, and confirm the MRZ's birth date.
func TestRereadWithTesseract(t *testing.T) {
	tess := tesseract(t)
	// A 2400 × 1600 photo read as a 1200-pixel page: the page's
	// coordinates are the photo's halved.
	photo := blank(2400, 1600)
	write(t, photo, 36, 400, 700, "DATE OF BIRTH")
	write(t, photo, 72, 400, 800, "23 AUG 1974")
	write(t, photo, 72, 400, 1200, "MULLER")
	r := viz.Region{Side: 1200}
	// The value's capitals, 72 px in the photo, are about 26 px on the page.
	spot := viz.Spot{Rect: image.Rect(150, 320, 700, 420), Glyph: 26}
	words, err := viz.Reread(context.Background(), tess, photo, r, []viz.Spot{spot}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var year *ocr.Word
	for i, w := range words {
		t.Logf("%q %v", w.Text, w.Box)
		if w.Text == "1974" {
			year = &words[i]
		}
	}
	if year == nil {
		t.Fatalf("1974 not read: %+v", words)
	}
	// "1974" ends about 400 + 11 characters of 72 px Go Regular in the
	// photo, its capitals from y 748 to 800: on the page, x near 200 + 200
	// and y 374 to 400.
	if b := year.Box; b.Min.Y < 365 || b.Max.Y > 410 || b.Min.X < 250 || b.Max.X > 480 || b.Dy() < 20 {
		t.Errorf("1974's box %v is not where the page holds it", b)
	}
	f := mrz.Fields{Surname: "MULLER", DocumentNumber: "C01X00T47", BirthDate: mrz.Date{Year: 1974, Month: 8, Day: 23},
		ExpiryDate: mrz.Date{Year: 2031, Month: 1, Day: 1}}
	for _, fd := range viz.Compare(viz.Zone{}.WithRereads(words, viz.DMY), f) {
		if fd.Name == "birth_date" && fd.Status != viz.Match {
			t.Errorf("birth date after reading again: %+v", fd)
		}
		if fd.Name == "surname" && fd.Status != viz.Unread {
			t.Errorf("the surname, outside the spot, was read: %+v", fd)
		}
	}

	// Once enough is read, the spot's second reading is not made.
	once, err := viz.Reread(context.Background(), tess, photo, r, []viz.Spot{spot}, func(w []ocr.Word) bool { return len(w) > 0 })
	if err != nil || len(once) == 0 || 2*len(once) != len(words) {
		t.Errorf("reading until enough: %d words (%v), want half of %d", len(once), err, len(words))
	}
}

// TestRereadPastTheCrop: a number at the document's edge that the page's
// crop cuts (an outline found a little inside the card) is read whole by
// a spot that reaches past the crop, drawn from the photo.
func TestRereadPastTheCrop(t *testing.T) {
	tess := tesseract(t)
	photo := blank(1600, 1000)
	write(t, photo, 40, 1100, 200, "1107250401")
	// The crop ends at x 1250, inside the number (1100 to about 1330);
	// read at its own scale, the page is the photo's crop.
	r := viz.Region{Rect: image.Rect(0, 0, 1250, 1000), Side: 1250}
	page := viz.Prepare(photo, r)
	if page.Bounds().Dx() != 1250 {
		t.Fatalf("page %v, want the crop at its own scale", page.Bounds())
	}
	spot := viz.Spot{Rect: image.Rect(1060, 160, 1250+100, 215), Glyph: 30}
	words, err := viz.Reread(context.Background(), tess, photo, r, []viz.Spot{spot}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range words {
		if w.Text == "1107250401" {
			return
		}
	}
	t.Errorf("the whole number not read: %+v", words)
}

// tesseract returns the tesseract program, or skips the test (fails it
// under VERIFYD_TEST_REQUIRE_ALL=1) when it is not installed.
func tesseract(t testing.TB) *ocr.Tesseract {
	t.Helper()
	tess := &ocr.Tesseract{}
	if _, err := tess.Available(context.Background()); err != nil {
		testdb.Skip(t, err.Error())
	}
	return tess
}

// blank is a white w × h photo.
func blank(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	return img
}

// write draws text in Go Regular at size px with its baseline at (x, y).
func write(t testing.TB, img draw.Image, size float64, x, y int, text string) {
	t.Helper()
	if err := textimage.Write(img, size, x, y, text); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkReread times four spots read again both ways (two readings
// each of a crop of about 825 × 150 pixels of a 12 MP-class photo), what
// the spots add to a page the first readings did not confirm.
func BenchmarkReread(b *testing.B) {
	tess := tesseract(b)
	photo := blank(4000, 3000)
	var spots []viz.Spot
	for i, l := range [][2]string{{"DATE OF BIRTH", "23 AUG 1974"}, {"DATE OF EXPIRY", "04 FEB 2031"}, {"SURNAME", "ERIKSSON"}, {"PASSPORT NO", "C01X00T47"}} {
		y := 700 + 400*i
		write(b, photo, 36, 800, y, l[0])
		write(b, photo, 72, 800, y+100, l[1])
		// The photo at 1600 px is the page at 0.4 × the photo's scale.
		spots = append(spots, viz.Spot{Rect: image.Rect(280, (y-80)*2/5, 830, (y+120)*2/5), Glyph: 26})
	}
	r := viz.Region{Side: 1600}
	for b.Loop() {
		if _, err := viz.Reread(context.Background(), tess, photo, r, spots, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadInStages: the page read in two stages, as readSides does
// with spots read between them, is the page read at once: the later
// readings' words land in the first reading's coordinates either way,
// and the pages the first stage drew and the second takes (viz.Pages),
// one for each of the three scales, read as the pages drawn anew.
func TestReadInStages(t *testing.T) {
	tess := tesseract(t)
	photo := blank(1800, 1200)
	write(t, photo, 36, 200, 300, "DATE OF BIRTH")
	write(t, photo, 64, 200, 400, "23 AUG 1974")
	write(t, photo, 64, 200, 700, "ERIKSSON")
	r := viz.Region{Rect: image.Rect(100, 100, 1700, 1100), Angle: 4}
	ctx := context.Background()
	whole, err := viz.Read(ctx, tess, photo, r, nil, 0, viz.Readings(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pages := viz.Pages{}
	first, err := viz.Read(ctx, tess, photo, r, nil, 0, viz.FirstReadings, pages, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 {
		t.Errorf("%d pages drawn for the first readings, want 1", len(pages))
	}
	staged, err := viz.Read(ctx, tess, photo, r, first, viz.FirstReadings, viz.Readings(), pages, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 {
		t.Errorf("%d pages drawn for the six readings, want 3", len(pages))
	}
	if len(first) == 0 || len(first) >= len(whole) {
		t.Fatalf("%d words in the first readings, %d in all", len(first), len(whole))
	}
	if len(staged) != len(whole) {
		t.Fatalf("%d words in stages, %d at once", len(staged), len(whole))
	}
	for i := range whole {
		if staged[i] != whole[i] {
			t.Errorf("word %d: %+v in stages, %+v at once", i, staged[i], whole[i])
		}
	}
	// The readings at other scales are placed where the first found the
	// same words.
	var boxes []image.Rectangle
	for _, w := range whole {
		if w.Text == "ERIKSSON" {
			boxes = append(boxes, w.Box)
		}
	}
	if len(boxes) < 3 {
		t.Fatalf("ERIKSSON read %d times in %d readings", len(boxes), viz.Readings())
	}
	for _, b := range boxes[1:] {
		if d := b.Min.Sub(boxes[0].Min); d.X*d.X+d.Y*d.Y > 100 {
			t.Errorf("ERIKSSON at %v in one reading, %v in the first", b, boxes[0])
		}
	}
}
