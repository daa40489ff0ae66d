package facetest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSamplesOnePhotographer checks the EXIF facts SurelyDifferent rests
// on: sample1–sample4 name one camera model and lens, sample5 and sample6
// others (all six were re-saved by one editor, the package's author's
// resizing, which says nothing of who took them). Should the package's
// photographs change, the labelling of their pairs has to be looked at
// again.
func TestSamplesOnePhotographer(t *testing.T) {
	dir := SampleDir(t)
	for _, c := range []struct{ file, camera, lens string }{
		{"sample1.jpg", "ILCE-7M2", "FE 55mm F1.8 ZA"},
		{"sample2.jpg", "ILCE-7M2", "FE 55mm F1.8 ZA"},
		{"sample3.jpg", "ILCE-7M2", "FE 55mm F1.8 ZA"},
		{"sample4.jpg", "ILCE-7M2", "FE 55mm F1.8 ZA"},
		{"sample5.jpg", "ILCE-7", "FE 24-70mm F4 ZA OSS"},
		{"sample6.jpg", "SM-G955U", ""},
	} {
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		// The EXIF block is in the first APP1 segment, well within 4 KiB.
		head := b[:min(len(b), 4096)]
		for _, want := range []string{c.camera, c.lens, "paint.net 4.2.5"} {
			if want != "" && !bytes.Contains(head, []byte(want)) {
				t.Errorf("%s: EXIF has no %q", c.file, want)
			}
		}
	}
}

func TestSurelyDifferent(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"sample3#0", "sample3#2", true},
		{"sample1#1", "sample3#0", false},
		{"sample3#0", "sample3#0", false},
		{"sample5#3", "sample6#2", true},
		{"sample4#0", "sample6#2", true},
		{"sample5#0", "sample1#1", true},
	} {
		if got := SurelyDifferent(Person{Name: c.a}, Person{Name: c.b}); got != c.want {
			t.Errorf("SurelyDifferent(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
