package quality_test

import (
	"image"
	"testing"
	"time"

	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/quality/qualitytest"
)

// benchPhoto is a 1600×1200 JPEG-decoded photo (an *image.YCbCr, as
// uploads reach the engine) of a card 75% of its width.
func benchPhoto(b *testing.B) image.Image {
	b.Helper()
	photo, _ := qualitytest.Photo(qualitytest.Scene{Width: 1600, Height: 1200, DocWidth: 0.75, Angle: 3, Seed: 1})
	img, _ := qualitytest.JPEG(photo, 85)
	return img
}

func BenchmarkMeasure(b *testing.B) {
	img := benchPhoto(b)
	r, _ := quality.FindDocument(img)
	b.ResetTimer()
	c0 := cpuTime()
	for b.Loop() {
		quality.Measure(img, r)
	}
	reportCPU(b, c0)
}

func BenchmarkMeasureWholePhoto(b *testing.B) {
	img := benchPhoto(b)
	b.ResetTimer()
	c0 := cpuTime()
	for b.Loop() {
		quality.Measure(img, img.Bounds())
	}
	reportCPU(b, c0)
}

func BenchmarkFindDocument(b *testing.B) {
	img := benchPhoto(b)
	b.ResetTimer()
	c0 := cpuTime()
	for b.Loop() {
		quality.FindDocument(img)
	}
	reportCPU(b, c0)
}

// reportCPU adds the CPU milliseconds per operation (GC included), which
// a loaded shared machine does not inflate as it does wall time.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}
