package verifyd_test

import (
	"bytes"
	"image"
	"testing"

	"github.com/verifyd/verifyd"
)

// FuzzDecodeImageBytes: any bytes are refused or accepted without a panic,
// and what is accepted has a header that decodes, within the limits, with
// a decode cost within the budget.
func FuzzDecodeImageBytes(f *testing.F) {
	f.Add(pngHeader(100, 100, 8, 6))
	f.Add(pngHeader(7071, 7071, 16, 6))
	f.Add([]byte("\xff\xd8\xff\xc2\x00\x11\x08\x10\x00\x10\x00\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01\xff\xda"))
	f.Add([]byte("RIFF\x20\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		im, problem := verifyd.DecodeImageBytes(raw)
		if problem != "" {
			return
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("accepted, but the header does not decode: %v", err)
		}
		if cfg.Width*cfg.Height > verifyd.MaxImagePixels || im.Width < verifyd.MinImageSide || im.Height < verifyd.MinImageSide {
			t.Fatalf("accepted %d×%d", cfg.Width, cfg.Height)
		}
		if cost, err := verifyd.DecodeCost(raw); err != nil || cost > verifyd.MaxDecodeBytes {
			t.Fatalf("accepted with cost %d, %v", cost, err)
		}
	})
}
