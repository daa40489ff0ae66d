// Package quality measures how usable a photo of a document is: sharpness,
// exposure and glare, on a bounded-size grayscale copy of the document
// region, and finds that region in a photo.
//
// The measures are deliberately simple and explainable to an operator:
//
//   - Sharpness is the variance of the 3×3 Laplacian, after a light
//     Gaussian so that pixel noise does not pass for detail (DenoiseSigma).
//     Focus and motion blur remove high frequencies, and the Laplacian is a
//     high-pass filter, so its variance falls steeply with blur (for an
//     edge of a given contrast roughly with the cube of the blur radius).
//   - Exposure is the mean luminance and the fractions of near-black and
//     near-white (clipped) pixels.
//   - Glare is the share of the region covered by connected blobs of
//     near-white, colourless pixels large enough to hide a character.
//
// All levels are on the 0–255 scale of 8-bit luminance (BT.601 luma, the Y
// of JPEG).
package quality

import (
	"image"
	"math"
)

// MaxSide is the long side, in pixels, of the working copy Measure analyses:
// larger regions are downscaled (by area averaging) to it, so the cost is
// bounded whatever the camera. 1000 px across an ID-1 card (85.6 mm) is
// ~12 px/mm: MRZ characters are ~29 px tall, printed text ~20 px, well
// above the point where blur on the working copy decides legibility.
// Smaller regions are measured at their own resolution (never upscaled:
// interpolation would itself look like blur).
const MaxSide = 1000

// Levels used by Measure.
const (
	// NearBlack is the luminance at or below which a pixel counts as
	// crushed black: JPEG ringing leaves clipped blacks a few levels above
	// 0, and printed black ink in a well exposed photo is 25–60.
	NearBlack = 16
	// NearWhite is the luminance at or above which a pixel counts as
	// clipped white. Clipped highlights decode at 250–255 after JPEG
	// (ringing), averaging by the downscale pulls blob edges a little
	// lower; paper and card stock in a correctly exposed photo is
	// 180–235, so 245 separates the two with a margin.
	NearWhite = 245
	// GlareLevel is the level the smallest of R, G and B must reach for a
	// pixel to count as glare: a specular reflection of a light source is
	// both bright and colourless (all three channels saturate), while a
	// light but tinted card background (security print, pastel colours)
	// keeps at least one channel well below it. min(R,G,B) ≥ 245 implies
	// luminance ≥ 245 and chroma (max−min) ≤ 10.
	GlareLevel = 245
	// MinGlareBlob is the smallest glare blob counted, as a share of the
	// region: 0.1% of an ID-1 card is a square ~3% of the card's width on
	// a side, about one MRZ character (2.54 mm pitch of 85.6 mm). Smaller
	// highlights (dust, a sparkle of the hologram, a clipped white pixel
	// here and there) cannot hide information and are ignored.
	MinGlareBlob = 0.001
	// DenoiseSigma is the standard deviation, in working-copy pixels, of
	// the Gaussian applied before the Laplacian (together a Laplacian of
	// Gaussian). The bare 3×3 Laplacian responds to pixel noise as much as
	// to detail (white noise of σ levels adds 20σ² to its variance): on
	// generated cards a blur of σ 3 px with noise of σ 8 levels measured
	// as sharp as a blur of σ 1 px without noise. The Gaussian divides the
	// noise's contribution by ~150 but keeps the edges of printed text,
	// which are what legibility depends on: a blur of σ b px then acts
	// as √(b²+1.4²), and sharp, σ 1 and σ 3 measure ≈ 70, 32 and 2.4 on
	// a generated card 800 px wide (≤ 5.4 for σ 3 with noise of σ 12).
	DenoiseSigma = 1.4
)

// Metrics is what Measure found.
type Metrics struct {
	// Region is the measured region, in the image's coordinates.
	Region image.Rectangle `json:"region"`
	// Scale is working-copy pixels per image pixel (≤ 1); Width and Height
	// the size of the working copy.
	Scale  float64 `json:"scale"`
	Width  int     `json:"width"`
	Height int     `json:"height"`

	// Sharpness is the variance of the 3×3 Laplacian (4-neighbour kernel)
	// of the working copy's luminance after a Gaussian of DenoiseSigma,
	// over the region's interior. RawSharpness is the same without the
	// Gaussian: reported, but noise inflates it (see DenoiseSigma).
	Sharpness    float64 `json:"sharpness"`
	RawSharpness float64 `json:"raw_sharpness"`

	// Mean and StdDev of the luminance (0–255).
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
	// Contrast is the spread of the luminance between its 2nd and 98th
	// percentiles (grey levels): from the print to the paper, whatever
	// the exposure. An under-exposed photo keeps its sharp edges but
	// loses this spread, and the Laplacian's variance, which grows with
	// the square of the contrast, then reads it as blurred.
	Contrast float64 `json:"contrast"`
	// Dark and Bright are the fractions of pixels at or below NearBlack
	// and at or above NearWhite.
	Dark   float64 `json:"dark"`
	Bright float64 `json:"bright"`

	// Glare is the fraction of the region covered by glare blobs of at
	// least MinGlareBlob of the region; LargestGlare the share of the
	// largest one; GlareBlobs their number.
	Glare        float64 `json:"glare"`
	LargestGlare float64 `json:"largest_glare"`
	GlareBlobs   int     `json:"glare_blobs"`
}

// Measure computes the metrics of img over region (in img's coordinates;
// the whole image when region does not overlap it).
func Measure(img image.Image, region image.Rectangle) Metrics {
	region = region.Intersect(img.Bounds())
	if region.Empty() {
		region = img.Bounds()
	}
	m := Metrics{Region: region}
	if region.Empty() {
		return m
	}
	lum, white := workingCopy(img, region, MaxSide)
	m.Scale = float64(lum.w) / float64(region.Dx())
	m.Width, m.Height = lum.w, lum.h
	m.RawSharpness = laplacianVariance(lum)
	m.Sharpness = laplacianVariance(gaussian(lum, DenoiseSigma))
	m.exposure(lum)
	m.glare(white)
	return m
}

// laplacianVariance returns the variance of the 4-neighbour Laplacian
// (0 1 0 / 1 −4 1 / 0 1 0) over the interior of p.
func laplacianVariance(p plane) float64 {
	if p.w < 3 || p.h < 3 {
		return 0
	}
	var sum, sum2 float64
	w := p.w
	for y := 1; y < p.h-1; y++ {
		row := p.pix[y*w : (y+1)*w]
		up := p.pix[(y-1)*w : y*w]
		down := p.pix[(y+1)*w : (y+2)*w]
		var s, s2 float32 // per row in float32, accumulated in float64
		for x := 1; x < w-1; x++ {
			l := up[x] + down[x] + row[x-1] + row[x+1] - 4*row[x]
			s += l
			s2 += l * l
		}
		sum += float64(s)
		sum2 += float64(s2)
	}
	n := float64((w - 2) * (p.h - 2))
	mean := sum / n
	return math.Max(0, sum2/n-mean*mean)
}

func (m *Metrics) exposure(p plane) {
	var sum, sum2 float64
	var dark, bright int
	for _, v := range p.pix {
		sum += float64(v)
		sum2 += float64(v) * float64(v)
		if v <= NearBlack {
			dark++
		} else if v >= NearWhite {
			bright++
		}
	}
	n := float64(len(p.pix))
	m.Mean = sum / n
	m.StdDev = math.Sqrt(math.Max(0, sum2/n-m.Mean*m.Mean))
	m.Dark = float64(dark) / n
	m.Bright = float64(bright) / n
	var hist [256]int
	for _, v := range p.pix {
		hist[int(math.Max(0, math.Min(255, float64(v))))]++
	}
	lo, hi, c := -1, -1, 0
	for k, h := range hist {
		c += h
		if lo < 0 && float64(c) >= 0.02*n {
			lo = k
		}
		if hi < 0 && float64(c) >= 0.98*n {
			hi = k
		}
	}
	m.Contrast = float64(hi - lo)
}

// glare labels the 8-connected blobs of pixels whose min(R,G,B) reaches
// GlareLevel and sums those of at least MinGlareBlob of the region.
func (m *Metrics) glare(white plane) {
	n := len(white.pix)
	mask := make([]bool, n)
	found := false
	for i, v := range white.pix {
		if v >= GlareLevel {
			mask[i], found = true, true
		}
	}
	if !found {
		return
	}
	minBlob := max(1, int(math.Ceil(MinGlareBlob*float64(n))))
	total := 0
	_, comps := label(mask, white.w, white.h)
	for _, c := range comps {
		size := c.area
		if size < minBlob {
			continue
		}
		total += size
		m.GlareBlobs++
		m.LargestGlare = math.Max(m.LargestGlare, float64(size)/float64(n))
	}
	m.Glare = float64(total) / float64(n)
}
