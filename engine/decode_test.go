package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/orient/orienttest"
)

// The colours of the four quadrants of the upright test picture: every
// rotation and mirror puts a different colour in the top-left corner and
// a different one after it clockwise, so each orientation is told apart.
var quadrants = [4]color.RGBA{ // top-left, top-right, bottom-right, bottom-left
	{220, 30, 30, 255}, {30, 200, 30, 255}, {30, 30, 220, 255}, {230, 230, 40, 255},
}

// upright is a w×h picture of the four coloured quadrants.
func upright(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			q := 0
			switch {
			case x >= w/2 && y < h/2:
				q = 1
			case x >= w/2:
				q = 2
			case y >= h/2:
				q = 3
			}
			img.SetRGBA(x, y, quadrants[q])
		}
	}
	return img
}

// assertUpright checks that img is w×h with the quadrants where upright
// has them (sampled at each quadrant's centre, with JPEG's tolerance).
func assertUpright(t *testing.T, img image.Image, w, h int) {
	t.Helper()
	b := img.Bounds()
	if b.Dx() != w || b.Dy() != h {
		t.Fatalf("decoded %d×%d, want the upright %d×%d", b.Dx(), b.Dy(), w, h)
	}
	for q, p := range []image.Point{{w / 4, h / 4}, {3 * w / 4, h / 4}, {3 * w / 4, 3 * h / 4}, {w / 4, 3 * h / 4}} {
		got := color.RGBAModel.Convert(img.At(b.Min.X+p.X, b.Min.Y+p.Y)).(color.RGBA)
		want := quadrants[q]
		if diff(got.R, want.R) > 40 || diff(got.G, want.G) > 40 || diff(got.B, want.B) > 40 {
			t.Errorf("at %v: %v, want %v (quadrant %d)", p, got, want, q)
		}
	}
}

func diff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// decode runs DecodeCheck on a front image (and a small selfie) and
// returns the result and the decoded front.
func decode(t *testing.T, front []byte) (engine.Result, *engine.Input) {
	t.Helper()
	in := &engine.Input{
		Front:  &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: front},
		Selfie: &engine.Image{Kind: verifyd.ImageSelfie, Bytes: orienttest.Encode(t, upright(240, 320))},
		Facts:  map[string]any{},
	}
	return engine.DecodeCheck{}.Run(context.Background(), in), in
}

func evidence(t *testing.T, r engine.Result, kind verifyd.ImageKind) map[string]any {
	t.Helper()
	ev, ok := r.Evidence[string(kind)].(map[string]any)
	if !ok {
		t.Fatalf("no evidence for %s: %v", kind, r.Evidence)
	}
	return ev
}

// TestDecodeCheckOrientation stores the upright 640×480 picture as a phone
// would for each EXIF orientation, in both TIFF byte orders, and checks
// that the checks get the picture upright.
func TestDecodeCheckOrientation(t *testing.T) {
	const w, h = 640, 480
	up := upright(w, h)
	for o := 1; o <= 8; o++ {
		for _, bigEndian := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/big-endian=%v", o, bigEndian), func(t *testing.T) {
				stored := orienttest.Stored(up, o)
				if sb := stored.Bounds(); o >= 5 && (sb.Dx() != h || sb.Dy() != w) {
					t.Fatalf("stored %v: the test's rotation is wrong", sb)
				}
				r, in := decode(t, orienttest.WithOrientation(t, stored, bigEndian, uint16(o)))
				if r.Outcome != engine.Pass {
					t.Fatalf("%s: %s", r.Outcome, r.Detail)
				}
				assertUpright(t, in.Front.Image, w, h)
				ev := evidence(t, r, verifyd.ImageDocumentFront)
				if ev["orientation"] != o || ev["width"] != w || ev["height"] != h || ev["format"] != "jpeg" {
					t.Errorf("evidence %v, want orientation %d and the upright %d×%d", ev, o, w, h)
				}
			})
		}
	}
}

// TestDecodeCheckIgnoresBadExif: a JPEG without a usable orientation is
// decoded as stored.
func TestDecodeCheckIgnoresBadExif(t *testing.T) {
	const w, h = 640, 480
	jpg := orienttest.Encode(t, upright(w, h))
	valid := orienttest.Exif(false, 6)
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"no Exif", jpg},
		{"orientation 0", orienttest.Insert(jpg, orienttest.Segment(0xE1, orienttest.Exif(true, 0)))},
		{"orientation 9", orienttest.Insert(jpg, orienttest.Segment(0xE1, orienttest.Exif(false, 9)))},
		{"TIFF header cut", orienttest.Insert(jpg, orienttest.Segment(0xE1, valid[:10]))},
		{"IFD cut before the tag", orienttest.Insert(jpg, orienttest.Segment(0xE1, valid[:30]))},
		{"not TIFF", orienttest.Insert(jpg, orienttest.Segment(0xE1, []byte("Exif\x00\x00XXXXXXXXXXXXXXXXXXXXXXXXX")))},
		{"XMP, not Exif", orienttest.Insert(jpg, orienttest.Segment(0xE1, []byte("http://ns.adobe.com/xap/1.0/\x00<x/>")))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, in := decode(t, tt.data)
			if r.Outcome != engine.Pass {
				t.Fatalf("%s: %s", r.Outcome, r.Detail)
			}
			assertUpright(t, in.Front.Image, w, h)
			if ev := evidence(t, r, verifyd.ImageDocumentFront); ev["orientation"] != 1 {
				t.Errorf("evidence %v, want orientation 1", ev)
			}
		})
	}
}

// wideWebP is a 640×480 lossless WebP of one colour (the 64×64 file of
// verifyd_test.go with another size: one-symbol prefix codes take no bits
// per pixel, so any size is the same few bytes).
var wideWebP = []byte{
	0x52, 0x49, 0x46, 0x46, 0x18, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50,
	0x56, 0x50, 0x38, 0x4c, 0x0c, 0x00, 0x00, 0x00, 0x2f, 0x7f, 0xc2, 0x77,
	0x00, 0x28, 0x60, 0x81, 0x0a, 0xd2, 0xff, 0x00,
}

// TestDecodeCheckOtherFormats: PNG and WebP carry no EXIF orientation the
// engine applies; they are decoded as stored, with none in the evidence.
func TestDecodeCheckOtherFormats(t *testing.T) {
	var pngBytes bytes.Buffer
	if err := png.Encode(&pngBytes, upright(640, 480)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		format string
		data   []byte
	}{{"png", pngBytes.Bytes()}, {"webp", wideWebP}} {
		t.Run(tt.format, func(t *testing.T) {
			r, in := decode(t, tt.data)
			if r.Outcome != engine.Pass {
				t.Fatalf("%s: %s", r.Outcome, r.Detail)
			}
			if b := in.Front.Image.Bounds(); b.Dx() != 640 || b.Dy() != 480 {
				t.Fatalf("decoded %v, want 640×480", b)
			}
			if tt.format == "png" {
				assertUpright(t, in.Front.Image, 640, 480)
			}
			ev := evidence(t, r, verifyd.ImageDocumentFront)
			if _, ok := ev["orientation"]; ok || ev["format"] != tt.format {
				t.Errorf("evidence %v: want format %s and no orientation", ev, tt.format)
			}
		})
	}
}

// TestDecodeCheckOrientsEveryImage: selfie, back and burst frames are
// turned too, and the size limits apply to the upright picture.
func TestDecodeCheckOrientsEveryImage(t *testing.T) {
	doc, face := upright(640, 480), upright(240, 320)
	in := &engine.Input{
		Front:  &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: orienttest.WithOrientation(t, orienttest.Stored(doc, 8), true, 8)},
		Back:   &engine.Image{Kind: verifyd.ImageDocumentBack, Bytes: orienttest.WithOrientation(t, orienttest.Stored(doc, 3), false, 3)},
		Selfie: &engine.Image{Kind: verifyd.ImageSelfie, Bytes: orienttest.WithOrientation(t, orienttest.Stored(face, 6), false, 6)},
		Frames: []*engine.Image{
			{Kind: verifyd.SelfieFrame(1), Bytes: orienttest.WithOrientation(t, orienttest.Stored(face, 5), true, 5)},
			{Kind: verifyd.SelfieFrame(2), Bytes: orienttest.WithOrientation(t, orienttest.Stored(face, 7), false, 7)},
		},
		Facts: map[string]any{},
	}
	r := engine.DecodeCheck{}.Run(context.Background(), in)
	if r.Outcome != engine.Pass {
		t.Fatalf("%s: %s", r.Outcome, r.Detail)
	}
	for _, c := range []struct {
		im   *engine.Image
		o    int
		w, h int
	}{{in.Front, 8, 640, 480}, {in.Back, 3, 640, 480}, {in.Selfie, 6, 240, 320}, {in.Frames[0], 5, 240, 320}, {in.Frames[1], 7, 240, 320}} {
		t.Run(string(c.im.Kind), func(t *testing.T) {
			assertUpright(t, c.im.Image, c.w, c.h)
			if ev := evidence(t, r, c.im.Kind); ev["orientation"] != c.o || ev["width"] != c.w || ev["height"] != c.h {
				t.Errorf("evidence %v", ev)
			}
		})
	}
}

// TestDecodeImageOrientation: DecodeImage, which QualityCheck uses when
// DecodeCheck did not run, turns JPEGs upright too.
func TestDecodeImageOrientation(t *testing.T) {
	img, format, o, err := engine.DecodeImage(orienttest.WithOrientation(t, orienttest.Stored(upright(640, 480), 6), false, 6))
	if err != nil || format != "jpeg" || o != 6 {
		t.Fatalf("DecodeImage: %v %q %d", err, format, o)
	}
	assertUpright(t, img, 640, 480)
	if _, _, _, err := engine.DecodeImage([]byte("not an image")); err == nil {
		t.Error("DecodeImage accepted garbage")
	}
}
