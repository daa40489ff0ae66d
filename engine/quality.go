package engine

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/quality"
)

// QualityCheck fails document photos that are too blurry, too dark or too
// bright, or covered by glare, to be read reliably: the customer is asked
// for a better photo (poor_id_scan_error) instead of the later checks
// guessing from a bad one.
//
// Each document image (front, and back when present) is measured with
// package quality on the document's region (quality.DocumentRegion: the
// document found against the background, else the central 80%). The
// thresholds are fields; NewQualityCheck sets defaults calibrated on
// generated photos of cards (package quality/qualitytest, and the
// realistic renderer internal/docgen): the numbers quoted below are the
// ranges measured there, for a card about 800–1000 px wide.
type QualityCheck struct {
	// MinSharpness is the lowest acceptable quality.Metrics.Sharpness
	// (variance of the Laplacian of the lightly denoised luminance).
	// Generated cards measure 62–80 sharp; after a Gaussian blur of σ 1 px
	// 29–38 (with noise up to σ 12 levels and JPEG q60); σ 1.5 px 15–18;
	// σ 2 px 7–12 and σ 3 px ≤ 5.4 even with that noise. docgen's
	// renderings measure 46–62 unblurred, 25–60 as "mild" phone photos and
	// 4–16 as "heavy" ones. 16 puts the boundary at a blur of σ ≈ 1.5 px,
	// with margins of ≥ 1.5× to the photos to accept (σ ≤ 1, mild) and
	// ≥ 3× to those to reject (σ ≥ 3).
	MinSharpness float64
	// MinMean and MaxMean bound the mean luminance (0–255). Correctly
	// exposed cards measure 165–225; a photo at a fifth of the exposure
	// 37–41, at a tenth ~15. Below 50 the print has fewer than ~40 levels
	// of contrast left, and JPEG quantisation and noise dominate. Above
	// 235 almost nothing but clipped white is left (a card's printing and
	// photo keep a correctly exposed region's mean well below it).
	MinMean, MaxMean float64
	// ExposedContrast is the spread of the luminance
	// (quality.Metrics.Contrast, 2nd to 98th percentile) of a correctly
	// exposed document photo: docgen's mild photos span 188–197 levels.
	// The Laplacian's variance falls with the square of the contrast, so
	// an under-exposed but sharp photo measures as blurred; a dim photo
	// (mean under 128) whose sharpness, scaled to this contrast, would
	// be at least twice MinSharpness is reported as too dark, not as
	// blurred, so that the person is asked for light rather than a
	// steadier hand.
	ExposedContrast float64
	// MaxDark and MaxBright bound the fractions of crushed-black
	// (≤ quality.NearBlack) and clipped-white (≥ quality.NearWhite)
	// pixels. Phone photos of light cards often clip the blank card
	// stock: docgen's mild photos reach 0.48 and photos at 1.1× exposure
	// 0.65–0.79, with all print legible. At 1.8× exposure 0.81–0.93 is
	// clipped and the security print and photo are washed out; 0.7
	// leaves room for the former (glare catches what exceeds it
	// locally). Dark pixels are rare in a readable photo (print is above
	// NearBlack): over 0.4 of the region, a shadow or a hand hides it.
	MaxDark, MaxBright float64
	// MaxGlareBlob is the largest acceptable quality.Metrics.LargestGlare,
	// the share of the region covered by the largest blob of saturated,
	// colourless pixels. 3% of a card is a patch ~17% of its width across,
	// enough to hide a name or several MRZ characters. Clipped card stock
	// between the print of overexposed but legible photos forms many
	// smaller blobs: the largest measured 0.017 in docgen's mild photos;
	// a glare spot of 14% of the card (core 7%) measures 0.05–0.09.
	MaxGlareBlob float64
	// MaxGlare bounds the total share of glare blobs
	// (quality.Metrics.Glare), for glare broken into several blobs: mild
	// photos reach 0.05.
	MaxGlare float64
}

// NewQualityCheck returns a QualityCheck with the default thresholds.
func NewQualityCheck() *QualityCheck {
	return &QualityCheck{
		MinSharpness:    16,
		MinMean:         50,
		ExposedContrast: 180,
		MaxMean:         235,
		MaxDark:         0.4,
		MaxBright:       0.7,
		MaxGlareBlob:    0.03,
		MaxGlare:        0.10,
	}
}

// Name implements Check.
func (*QualityCheck) Name() string { return "quality" }

// Run implements Check.
func (c *QualityCheck) Run(ctx context.Context, in *Input) Result {
	ev := map[string]any{"thresholds": c.thresholds()}
	if in.Front == nil {
		return Failed(verifyd.ReasonIDScanError, "the document front is missing", ev)
	}
	var problems []string
	for _, im := range []*Image{in.Front, in.Back} {
		if im == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Errored(err, ev)
		}
		img := im.Image
		if img == nil { // normally decoded by DecodeCheck
			var err error
			if img, _, _, err = DecodeImage(im.Bytes); err != nil {
				return Failed(verifyd.ReasonPoorIDScanError, fmt.Sprintf("%s cannot be decoded: %v", im.Kind, err), ev)
			}
		}
		region, found := quality.DocumentRegion(img)
		m := quality.Measure(img, region)
		ev[string(im.Kind)] = metricsEvidence(m, found)
		for _, p := range c.judge(m) {
			problems = append(problems, fmt.Sprintf("%s %s", im.Kind, p))
		}
	}
	if len(problems) > 0 {
		return Failed(verifyd.ReasonPoorIDScanError, "photo quality too poor to read the document: "+strings.Join(problems, "; "), ev)
	}
	return Passed("the document photos are sharp, well exposed and free of glare", ev)
}

// judge lists what is wrong with m, in words for an operator.
func (c *QualityCheck) judge(m quality.Metrics) []string {
	var p []string
	switch {
	case m.Mean < c.MinMean:
		p = append(p, fmt.Sprintf("too dark (mean luminance %.0f < %.0f)", m.Mean, c.MinMean))
	case m.Dark > c.MaxDark:
		p = append(p, fmt.Sprintf("too dark (%.0f%% crushed black > %.0f%%)", 100*m.Dark, 100*c.MaxDark))
	case m.Mean > c.MaxMean:
		p = append(p, fmt.Sprintf("overexposed (mean luminance %.0f > %.0f)", m.Mean, c.MaxMean))
	case m.Bright > c.MaxBright:
		p = append(p, fmt.Sprintf("overexposed (%.0f%% clipped white > %.0f%%)", 100*m.Bright, 100*c.MaxBright))
	}
	if m.Sharpness < c.MinSharpness {
		scaled := m.Sharpness
		if m.Contrast > 0 && m.Contrast < c.ExposedContrast {
			scaled *= (c.ExposedContrast / m.Contrast) * (c.ExposedContrast / m.Contrast)
		}
		// Blur lowers the spread a little too, so the scaled sharpness
		// also makes up for some blur: only a photo that would be
		// clearly sharp (twice the threshold) at a proper exposure is
		// called dark rather than blurred.
		switch {
		case m.Mean < 128 && scaled >= 2*c.MinSharpness:
			if len(p) == 0 {
				p = append(p, fmt.Sprintf("too dark (the document spans %.0f grey levels; sharpness %.1f, %.1f at %.0f levels)",
					m.Contrast, m.Sharpness, scaled, c.ExposedContrast))
			}
		default:
			p = append(p, fmt.Sprintf("too blurry (sharpness %.1f < %.1f)", m.Sharpness, c.MinSharpness))
		}
	}
	switch {
	case m.LargestGlare > c.MaxGlareBlob:
		p = append(p, fmt.Sprintf("glare (a blob covers %.1f%% of the document > %.1f%%)", 100*m.LargestGlare, 100*c.MaxGlareBlob))
	case m.Glare > c.MaxGlare:
		p = append(p, fmt.Sprintf("glare (%.1f%% of the document > %.1f%%)", 100*m.Glare, 100*c.MaxGlare))
	}
	return p
}

func (c *QualityCheck) thresholds() map[string]any {
	return map[string]any{
		"min_sharpness":    c.MinSharpness,
		"min_mean":         c.MinMean,
		"exposed_contrast": c.ExposedContrast,
		"max_mean":         c.MaxMean,
		"max_dark":         c.MaxDark,
		"max_bright":       c.MaxBright,
		"max_glare_blob":   c.MaxGlareBlob,
		"max_glare":        c.MaxGlare,
	}
}

func metricsEvidence(m quality.Metrics, found bool) map[string]any {
	r := func(v float64) float64 { return math.Round(v*10000) / 10000 }
	return map[string]any{
		"region": map[string]int{
			"x": m.Region.Min.X, "y": m.Region.Min.Y, "width": m.Region.Dx(), "height": m.Region.Dy(),
		},
		"document_found": found,
		"scale":          r(m.Scale),
		"sharpness":      r(m.Sharpness),
		"raw_sharpness":  r(m.RawSharpness),
		"mean":           r(m.Mean),
		"contrast":       r(m.Contrast),
		"stddev":         r(m.StdDev),
		"dark":           r(m.Dark),
		"bright":         r(m.Bright),
		"glare":          r(m.Glare),
		"largest_glare":  r(m.LargestGlare),
		"glare_blobs":    m.GlareBlobs,
	}
}
