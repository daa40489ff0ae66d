package engine_test

import (
	"context"
	"encoding/json"
	"image"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/quality/qualitytest"
)

// card is a generated 1000×750 photo of a card 800 px wide.
func card(seed uint64, angle float64) image.Image {
	img, _ := qualitytest.Photo(qualitytest.Scene{Seed: seed, Angle: angle})
	return img
}

func jpeg(img image.Image, q int) image.Image {
	out, _ := qualitytest.JPEG(img, q)
	return out
}

func front(img image.Image) *engine.Input {
	return &engine.Input{Front: &engine.Image{Kind: verifyd.ImageDocumentFront, Image: img}}
}

func TestQualityCheckAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		img  func() image.Image
	}{
		{"sharp", func() image.Image { return card(1, 0) }},
		{"JPEG q60, rotated 5°", func() image.Image { return jpeg(card(2, 5), 60) }},
		{"noise 4, JPEG q60, rotated −5°", func() image.Image { return jpeg(qualitytest.Noise(card(3, -5), 4, 1), 60) }},
		{"blur σ 0.5", func() image.Image { return qualitytest.Blur(card(4, 2), 0.5) }},
		{"blur σ 1, noise 4, JPEG q60", func() image.Image {
			return jpeg(qualitytest.Noise(qualitytest.Blur(card(5, 3), 1), 4, 2), 60)
		}},
		{"blur σ 1, rotated −5°", func() image.Image { return qualitytest.Blur(card(6, -5), 1) }},
		{"dimmer (0.6×)", func() image.Image { return qualitytest.Expose(card(7, 0), 0.6) }},
		{"small glare", func() image.Image { return qualitytest.Glare(card(8, 0), 600, 300, 37, 25) }},
	}
	check := engine.NewQualityCheck()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := check.Run(context.Background(), front(tt.img()))
			if r.Outcome != engine.Pass {
				t.Fatalf("%s %s: %s\nevidence %v", r.Outcome, r.Reason, r.Detail, r.Evidence)
			}
		})
	}
}

func TestQualityCheckRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, problem string
		img           func() image.Image
	}{
		{"blur σ 3", "blurry", func() image.Image { return qualitytest.Blur(card(11, 0), 3) }},
		{"blur σ 3, noise 8, JPEG q60", "blurry", func() image.Image {
			return jpeg(qualitytest.Noise(qualitytest.Blur(card(12, 4), 3), 8, 3), 60)
		}},
		{"blur σ 4, rotated 5°", "blurry", func() image.Image { return qualitytest.Blur(card(13, 5), 4) }},
		{"near black (0.1×)", "too dark", func() image.Image { return qualitytest.Expose(card(14, 0), 0.1) }},
		{"blown out (1.8×)", "overexposed", func() image.Image { return qualitytest.Expose(card(15, -3), 1.8) }},
		{"large glare", "glare", func() image.Image { return qualitytest.Glare(card(16, 0), 600, 350, 165, 110) }},
		{"large glare, JPEG q60", "glare", func() image.Image { return jpeg(qualitytest.Glare(card(17, 2), 400, 300, 225, 150), 60) }},
	}
	check := engine.NewQualityCheck()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := check.Run(context.Background(), front(tt.img()))
			if r.Outcome != engine.Fail || r.Reason != verifyd.ReasonPoorIDScanError || !strings.Contains(r.Detail, tt.problem) {
				t.Fatalf("%s %s: %s (want %q)\nevidence %v", r.Outcome, r.Reason, r.Detail, tt.problem, r.Evidence)
			}
		})
	}
}

// TestQualityCheckDimIsNotBlur checks that an under-exposed but sharp
// photo is reported as too dark, not as blurred (its Laplacian's variance
// falls with the square of its contrast), and that a dim photo that is
// also blurred is still reported as blurred.
func TestQualityCheckDimIsNotBlur(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, want, not string
		img             func() image.Image
	}{
		{"sharp, 0.3× exposure", "too dark", "blurry", func() image.Image { return qualitytest.Expose(card(31, 0), 0.3) }},
		{"sharp, 0.3× exposure, noise 2, JPEG q80", "too dark", "blurry", func() image.Image {
			return jpeg(qualitytest.Noise(qualitytest.Expose(card(32, 3), 0.3), 2, 4), 80)
		}},
		{"blur σ 3, 0.3× exposure", "blurry", "", func() image.Image { return qualitytest.Expose(qualitytest.Blur(card(33, 0), 3), 0.3) }},
		// Near the blur threshold (σ 2 measures 9.3 exposed), dimming
		// must not turn blur into darkness.
		{"blur σ 2, 0.6× exposure", "blurry", "too dark", func() image.Image { return qualitytest.Expose(qualitytest.Blur(card(34, 0), 2), 0.6) }},
		{"blur σ 2, 0.45× exposure", "blurry", "too dark", func() image.Image { return qualitytest.Expose(qualitytest.Blur(card(35, 0), 2), 0.45) }},
	}
	check := engine.NewQualityCheck()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := check.Run(context.Background(), front(tt.img()))
			if r.Outcome != engine.Fail || !strings.Contains(r.Detail, tt.want) || tt.not != "" && strings.Contains(r.Detail, tt.not) {
				t.Fatalf("%s: %s (want %q, not %q)\nevidence %v", r.Outcome, r.Detail, tt.want, tt.not, r.Evidence)
			}
		})
	}
}

func TestQualityCheckBackAndEvidence(t *testing.T) {
	t.Parallel()
	good, bad := card(21, 1), qualitytest.Blur(card(22, 0), 3)
	in := front(good)
	in.Back = &engine.Image{Kind: verifyd.ImageDocumentBack, Image: bad}
	r := engine.NewQualityCheck().Run(context.Background(), in)
	if r.Outcome != engine.Fail || !strings.Contains(r.Detail, "document_back too blurry") || strings.Contains(r.Detail, "document_front") {
		t.Fatalf("%s: %s", r.Outcome, r.Detail)
	}
	b, err := json.Marshal(r.Evidence)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]map[string]any
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"document_front", "document_back"} {
		for _, k := range []string{"region", "document_found", "sharpness", "raw_sharpness", "mean", "contrast", "dark", "bright", "glare", "largest_glare", "glare_blobs"} {
			if _, ok := ev[side][k]; !ok {
				t.Errorf("evidence %s lacks %s: %s", side, k, b)
			}
		}
		if ev[side]["document_found"] != true {
			t.Errorf("%s: document not found: %s", side, b)
		}
	}
	if ev["thresholds"]["min_sharpness"] != 16.0 || len(ev["thresholds"]) != 8 {
		t.Errorf("thresholds %v", ev["thresholds"])
	}

	// The thresholds are the fields.
	strict := engine.NewQualityCheck()
	strict.MinSharpness = 1e9
	if r := strict.Run(context.Background(), front(good)); r.Outcome != engine.Fail || !strings.Contains(r.Detail, "blurry") {
		t.Errorf("strict: %s: %s", r.Outcome, r.Detail)
	}
}

func TestQualityCheckInputs(t *testing.T) {
	t.Parallel()
	check := engine.NewQualityCheck()
	if r := check.Run(context.Background(), &engine.Input{}); r.Outcome != engine.Fail || r.Reason != verifyd.ReasonIDScanError {
		t.Errorf("no front: %s %s", r.Outcome, r.Reason)
	}
	// Not yet decoded: the check decodes the bytes itself.
	_, data := qualitytest.JPEG(card(31, 0), 80)
	in := &engine.Input{Front: &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: data}}
	if r := check.Run(context.Background(), in); r.Outcome != engine.Pass {
		t.Errorf("undecoded JPEG: %s: %s", r.Outcome, r.Detail)
	}
	in = &engine.Input{Front: &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: []byte("not an image")}}
	if r := check.Run(context.Background(), in); r.Outcome != engine.Fail || r.Reason != verifyd.ReasonPoorIDScanError {
		t.Errorf("garbage: %s %s", r.Outcome, r.Reason)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := check.Run(ctx, front(card(32, 0))); r.Outcome != engine.Error {
		t.Errorf("cancelled: %s", r.Outcome)
	}
	if got := check.Name(); got != "quality" {
		t.Errorf("Name() = %q", got)
	}
}
