package app

import (
	"encoding/json"
	"image"
	_ "image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/verifyd/verifyd/internal/indepdocs"
	"github.com/verifyd/verifyd/mrz"
)

// TestReadCroppedIndependentPhotos: two passport photos of the independent
// generator (seed 1; scripts/indepdocs/gen.py) whose whole frames the
// reader took the wrong lines of. Case 65: the page fills a third of a
// 3 MP photo on wavy wood grain, its MRZ glyphs 11 px tall; found (a
// document of 9 % of the frame) and enlarged, it reads. Case 57: the
// text's crop leaves out only the photo's lower quarter, and is read.
// Each reading must be the document's zone, with its corners inside the
// page.
func TestReadCroppedIndependentPhotos(t *testing.T) {
	dir := indepdocs.Generate(t, 1, 120, 57, 65)
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		ID    string   `json:"id"`
		Front string   `json:"front"`
		MRZ   []string `json:"mrz"`
		Photo struct {
			Front struct {
				Quad [][2]float64 `json:"doc_quad_px"`
			} `json:"front"`
		} `json:"photo"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases generated, want 2", len(cases))
	}
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, c.Front))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, _, err := image.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			r, err := readCropped(img, mrz.TD3)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Valid || !slices.Equal(r.Lines, c.MRZ) {
				t.Fatalf("read %q (valid %v), want %q", r.Lines, r.Valid, c.MRZ)
			}
			var page image.Rectangle
			for i, q := range c.Photo.Front.Quad {
				p := image.Rect(int(q[0]), int(q[1]), int(q[0])+1, int(q[1])+1)
				if i == 0 {
					page = p
				}
				page = page.Union(p)
			}
			for _, p := range r.Quad {
				if !p.In(page) {
					t.Errorf("zone corner %v outside the page %v", p, page)
				}
			}
		})
	}
}
