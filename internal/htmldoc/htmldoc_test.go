package htmldoc_test

import (
	"errors"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/htmldoc"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mrz"
)

var out = flag.String("htmldoc.out", "", "write every layout's sides as PNG files (and its HTML) into this directory")

// TestRender renders every layout and checks what docgen.Photograph needs:
// a document of the right size and, on the side with the MRZ, a zone at
// the ICAO pitch inside the card.
func TestRender(t *testing.T) {
	r, err := htmldoc.Start()
	if errors.Is(err, htmldoc.ErrNoBrowser) {
		testdb.Skip(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	g := docgen.NewGenerator(1, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	for _, name := range append(append([]string{}, htmldoc.Layouts...), htmldoc.LicenceLayouts...) {
		f := htmldoc.Format(name)
		if f == 0 {
			f = mrz.TD1
		}
		fields, err := htmldoc.Normalize(name, g.Fields(f))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := r.Render(htmldoc.Spec{Layout: name, Fields: fields, Seed: g.Uint64()})
		if err != nil {
			t.Fatal(err)
		}
		withMRZ := doc.Front
		if doc.Back != nil {
			withMRZ = doc.Back
		}
		w, _ := docgen.SizeMM(fields.Format)
		if htmldoc.IsLicence(name) {
			w = 85.6
		}
		if got := float64(doc.Front.Image.Rect.Dx()) / htmldoc.DefaultPxPerMM; got < w-1 || got > w+1 {
			t.Errorf("%s: %.1f mm wide, want %.1f", name, got, w)
		}
		if !htmldoc.IsLicence(name) {
			if withMRZ.MRZ.Empty() || !withMRZ.MRZ.In(withMRZ.Image.Rect) {
				t.Errorf("%s: MRZ %v outside the card %v", name, withMRZ.MRZ, withMRZ.Image.Rect)
			}
			want := float64(fields.Format.Width()) * docgen.MRZPitchMM * withMRZ.PxPerMM
			if d := float64(withMRZ.MRZ.Dx()) - want; d < -3 || d > 3 {
				t.Errorf("%s: MRZ %d px wide, want %.0f", name, withMRZ.MRZ.Dx(), want)
			}
		}
		if name == htmldoc.Layouts[0] {
			// What the evaluation does with every document, once here.
			if _, err := docgen.Photograph(withMRZ, docgen.Mild(), 1); err != nil {
				t.Fatal(err)
			}
		}
		if *out != "" {
			os.MkdirAll(*out, 0o755)
			os.WriteFile(filepath.Join(*out, name+".html"), []byte(doc.HTML), 0o644)
			for side, d := range map[string]*docgen.Document{"front": doc.Front, "back": doc.Back} {
				if d == nil {
					continue
				}
				fh, err := os.Create(filepath.Join(*out, name+"-"+side+".png"))
				if err != nil {
					t.Fatal(err)
				}
				png.Encode(fh, d.Image)
				fh.Close()
			}
		}
	}
}
