package viz_test

import (
	"context"
	"image"
	_ "image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/verifyd/verifyd/internal/indepdocs"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/viz"
)

// TestReadLargeValues reads a card whose values are printed large: the
// independent generator's seed 22, case 89, a bent French card photographed
// at 4.7 MP, its birth date 10.09.1973 about 45 px tall on the page.
// Tesseract garbles it at every scale from the page's down to three
// quarters ("LOS G9: F975"); the half-scale reading (the last of viz's
// passes) reads it, and the birth date is confirmed.
func TestReadLargeValues(t *testing.T) {
	tess := tesseract(t)
	dir := indepdocs.Generate(t, 22, 120, 89)
	f, err := os.Open(filepath.Join(dir, "s22-0089-front.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	rect, found := quality.DocumentRegion(img)
	if !found {
		t.Fatal("the card's outline was not found")
	}
	fields := mrz.Fields{Surname: "FRANCOIS", GivenNames: "FRANCOIS", DocumentNumber: "DCMN2GMPR",
		BirthDate: mrz.Date{Year: 1973, Month: 9, Day: 10}, ExpiryDate: mrz.Date{Year: 2035, Month: 5, Day: 22}}
	words, err := viz.Read(context.Background(), tess, img, viz.Region{Rect: rect}, nil, 0, viz.Readings(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range viz.Compare(viz.NewZone(words, viz.DMY), fields) {
		if fd.Name == "birth_date" && fd.Status != viz.Match {
			t.Errorf("birth date with every reading: %+v, want a match", fd)
		}
	}
}
