package hosted

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	qrcode "github.com/yeqown/go-qrcode/v2"
)

// TestQRPNG: the PNG holds the library's matrix module for module, black
// on white, inside a quiet zone of four modules.
func TestQRPNG(t *testing.T) {
	const text = "https://verify.example.com/identity/verify/abcdefghijklmnopqrstuvwxyz0123456789?lang=de"
	b, err := qrPNG(text)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	var bw bitmapWriter
	if err := q.Save(&bw); err != nil {
		t.Fatal(err)
	}
	n := len(bw.bits)
	if img.Bounds() != image.Rect(0, 0, (n+8)*qrModule, (n+8)*qrModule) {
		t.Fatalf("size %v for %d modules", img.Bounds(), n)
	}
	dark := func(mx, my int) bool {
		r, _, _, _ := img.At(mx*qrModule+qrModule/2, my*qrModule+qrModule/2).RGBA()
		return r < 0x8000
	}
	for my := range n + 8 {
		for mx := range n + 8 {
			want := mx >= 4 && my >= 4 && mx < n+4 && my < n+4 && bw.bits[my-4][mx-4]
			if dark(mx, my) != want {
				t.Fatalf("module (%d,%d) dark=%v, want %v", mx, my, !want, want)
			}
		}
	}
}
