package mrzread

import (
	"flag"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var smallerPhotos = flag.String("smaller.photos", "", "TestSmallerGlyphsOnPhotos: a glob of photos to read with and without smallerGlyphs")

// TestSmallerGlyphsOnPhotos reads every photo the -smaller.photos glob
// names twice in one process, without smallerGlyphs' second matching at
// smaller sizes and with it, one photo after the other so that both see
// the machine alike, and logs the time each took and how many readings
// changed (docs/performance.md, twenty-second pass). It fails if fewer
// photos are read with every check digit verifying with it than
// without. Without the flag it is skipped.
func TestSmallerGlyphsOnPhotos(t *testing.T) {
	if *smallerPhotos == "" {
		t.Skip("-smaller.photos GLOB names the photos")
	}
	files, err := filepath.Glob(*smallerPhotos)
	if err != nil || len(files) == 0 {
		t.Fatalf("no photos match %q (%v)", *smallerPhotos, err)
	}
	scales := smallerGlyphScales
	defer func() { smallerGlyphScales = scales }()
	read := func(img image.Image, s []float64) (Result, time.Duration) {
		smallerGlyphScales = s
		t0 := time.Now()
		r, _ := Read(img, 0)
		return r, time.Since(t0)
	}
	var without, with []time.Duration
	validWithout, validWith, changed := 0, 0, 0
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			t.Logf("%s: %v", p, err)
			continue
		}
		r0, d0 := read(img, nil)
		r1, d1 := read(img, scales)
		without, with = append(without, d0), append(with, d1)
		if r0.Valid {
			validWithout++
		}
		if r1.Valid {
			validWith++
		}
		if !slices.Equal(r0.Lines, r1.Lines) {
			changed++
			t.Logf("%s: %q → %q", filepath.Base(p), r0.Lines, r1.Lines)
		}
	}
	stats := func(d []time.Duration) (sum, p50, p95 time.Duration) {
		s := slices.Clone(d)
		slices.Sort(s)
		for _, x := range s {
			sum += x
		}
		return sum, s[len(s)/2], s[len(s)*95/100]
	}
	s0, a0, b0 := stats(without)
	s1, a1, b1 := stats(with)
	t.Logf("%d photos, readings changed %d, valid %d → %d; without: sum %v, p50 %v, p95 %v; with: sum %v, p50 %v, p95 %v",
		len(with), changed, validWithout, validWith, s0.Round(time.Millisecond), a0.Round(time.Millisecond), b0.Round(time.Millisecond),
		s1.Round(time.Millisecond), a1.Round(time.Millisecond), b1.Round(time.Millisecond))
	if validWith < validWithout {
		t.Errorf("%d photos read valid with smallerGlyphs, %d without", validWith, validWithout)
	}
}
