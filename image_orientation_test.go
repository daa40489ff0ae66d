package verifyd_test

import (
	"fmt"
	"image"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/orient/orienttest"
)

// TestDecodeImageBytesOrientation: the size recorded at submission (shown
// to reviewers, whose browsers display the photo turned) is the upright
// one.
func TestDecodeImageBytesOrientation(t *testing.T) {
	t.Parallel()
	stored := image.NewGray(image.Rect(0, 0, 100, 70))
	jpg := orienttest.Encode(t, stored)
	for _, tt := range []struct {
		o    int
		w, h int
	}{{0, 100, 70}, {1, 100, 70}, {2, 100, 70}, {3, 100, 70}, {4, 100, 70}, {5, 70, 100}, {6, 70, 100}, {7, 70, 100}, {8, 70, 100}} {
		t.Run(fmt.Sprint(tt.o), func(t *testing.T) {
			data := jpg
			if tt.o > 0 {
				data = orienttest.Insert(jpg, orienttest.Segment(0xE1, orienttest.Exif(tt.o%2 == 0, uint16(tt.o))))
			}
			img, problem := verifyd.DecodeImageBytes(data)
			if problem != "" {
				t.Fatal(problem)
			}
			if img.Width != tt.w || img.Height != tt.h {
				t.Errorf("%d×%d, want %d×%d", img.Width, img.Height, tt.w, tt.h)
			}
		})
	}
}
