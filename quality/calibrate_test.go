package quality_test

import (
	"fmt"
	"image"
	"os"
	"testing"

	"github.com/verifyd/verifyd/quality"
	"github.com/verifyd/verifyd/quality/qualitytest"
)

// TestCalibrate prints the metrics of degraded generated photos
// (QUALITY_CALIBRATE=1), to recalibrate engine.QualityCheck's defaults;
// qualitytest's TestCalibrateDocgen does the same with internal/docgen.
func TestCalibrate(t *testing.T) {
	if os.Getenv("QUALITY_CALIBRATE") == "" {
		t.Skip("set QUALITY_CALIBRATE=1 to print the calibration table")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		photo, truth := qualitytest.Photo(qualitytest.Scene{Seed: seed, Angle: (float64(seed) - 2) * 4})
		type variant struct {
			name string
			img  image.Image
		}
		cases := []variant{{"sharp", photo}}
		for _, s := range []float64{0.5, 1, 1.5, 2, 3, 4} {
			cases = append(cases, variant{fmt.Sprintf("blur%.1f", s), qualitytest.Blur(photo, s)})
		}
		j, _ := qualitytest.JPEG(photo, 60)
		cases = append(cases, variant{"jpeg60", j})
		for _, n := range []float64{4, 8, 12} {
			for _, b := range []float64{0, 1, 2, 2.5, 3} {
				j, _ := qualitytest.JPEG(qualitytest.Noise(qualitytest.Blur(photo, b), n, seed), 60)
				cases = append(cases, variant{fmt.Sprintf("b%.1f+n%.0f+j60", b, n), j})
			}
		}
		for _, g := range []float64{0.1, 0.2, 0.35, 0.6, 1.1, 1.2, 1.4, 1.8} {
			cases = append(cases, variant{fmt.Sprintf("gain%.2f", g), qualitytest.Expose(photo, g)})
		}
		for _, r := range []float64{20, 40, 70, 110} {
			cases = append(cases, variant{fmt.Sprintf("glare%.0f", r), qualitytest.Glare(photo, 600, 350, r*1.5, r)})
		}
		for _, c := range cases {
			r, found := quality.FindDocument(c.img)
			m := quality.Measure(c.img, r)
			t.Logf("seed %d %-13s found %-5v IoU %.3f sharpness %5.1f (raw %7.1f) mean %5.1f sd %4.1f dark %.3f bright %.3f glare %.4f largest %.4f blobs %d",
				seed, c.name, found, qualitytest.IoU(r, truth), m.Sharpness, m.RawSharpness, m.Mean, m.StdDev, m.Dark, m.Bright, m.Glare, m.LargestGlare, m.GlareBlobs)
		}
	}
}
