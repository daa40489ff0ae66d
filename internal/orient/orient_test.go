package orient_test

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/verifyd/verifyd/internal/orient"
	"github.com/verifyd/verifyd/internal/orient/orienttest"
)

// tiny is a minimal JPEG stand-in: the reader stops at SOS, so the scan
// data need not be valid.
var tiny = []byte{0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x04, 0x01, 0x02, 0xFF, 0xDA, 0x00, 0x02, 0x00, 0xFF, 0xD9}

func exifWith(bigEndian bool, edit func(t []byte, bo binary.ByteOrder)) []byte {
	p := orienttest.Exif(bigEndian, 6)
	var bo binary.ByteOrder = binary.LittleEndian
	if bigEndian {
		bo = binary.BigEndian
	}
	edit(p[6:], bo)
	return p
}

// cases are inputs and the orientation JPEG must read from them; they also
// seed FuzzJPEG.
func cases() []struct {
	name string
	data []byte
	want int
} {
	app1 := func(p []byte) []byte { return orienttest.Segment(0xE1, p) }
	xmp := app1([]byte("http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta/>"))
	jfif := orienttest.Segment(0xE0, []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"))
	full := orienttest.Insert(tiny, app1(orienttest.Exif(true, 6)))
	type tc = struct {
		name string
		data []byte
		want int
	}
	cs := []tc{
		{"empty", nil, 1},
		{"not a JPEG", []byte("\x89PNG\r\n\x1a\n...."), 1},
		{"no Exif", tiny, 1},
		{"JFIF and XMP, no Exif", orienttest.Insert(tiny, jfif, xmp), 1},
		{"after JFIF and XMP", orienttest.Insert(tiny, jfif, xmp, app1(orienttest.Exif(false, 8))), 8},
		{"fill bytes before the marker", orienttest.Insert(tiny, []byte{0xFF, 0xFF}, app1(orienttest.Exif(false, 3))), 3},
		{"first Exif segment decides", orienttest.Insert(tiny, app1(orienttest.Exif(false, 5)), app1(orienttest.Exif(false, 7))), 5},
		{"Exif after the scan is ignored", append(tiny[:len(tiny)-2:len(tiny)-2], app1(orienttest.Exif(false, 6))...), 1},
		{"value 0", orienttest.Insert(tiny, app1(orienttest.Exif(false, 0))), 1},
		{"value 9", orienttest.Insert(tiny, app1(orienttest.Exif(true, 9))), 1},
		{"type LONG", orienttest.Insert(tiny, app1(exifWith(false, func(t []byte, bo binary.ByteOrder) { bo.PutUint16(t[24:], 4) }))), 1},
		{"count 2", orienttest.Insert(tiny, app1(exifWith(true, func(t []byte, bo binary.ByteOrder) { bo.PutUint32(t[26:], 2) }))), 1},
		{"bad byte order", orienttest.Insert(tiny, app1(exifWith(false, func(t []byte, bo binary.ByteOrder) { copy(t, "IM") }))), 1},
		{"bad magic", orienttest.Insert(tiny, app1(exifWith(false, func(t []byte, bo binary.ByteOrder) { bo.PutUint16(t[2:], 43) }))), 1},
		{"IFD offset past the end", orienttest.Insert(tiny, app1(exifWith(true, func(t []byte, bo binary.ByteOrder) { bo.PutUint32(t[4:], 0xFFFFFFF0) }))), 1},
		{"IFD offset inside the header", orienttest.Insert(tiny, app1(exifWith(true, func(t []byte, bo binary.ByteOrder) { bo.PutUint32(t[4:], 2) }))), 1},
		{"entry count past the end", orienttest.Insert(tiny, app1(exifWith(false, func(t []byte, bo binary.ByteOrder) { bo.PutUint16(t[8:], 0xFFFF) }))), 6},
		{"entry count 1 hides the tag", orienttest.Insert(tiny, app1(exifWith(false, func(t []byte, bo binary.ByteOrder) { bo.PutUint16(t[8:], 1) }))), 1},
		{"segment length past the end", full[:30], 1},
		{"segment length below 2", orienttest.Insert(tiny, []byte{0xFF, 0xE1, 0x00, 0x01}), 1},
		{"garbage between segments", orienttest.Insert(tiny, []byte{0x00}, app1(orienttest.Exif(false, 6))), 1},
		{"Exif header only", orienttest.Insert(tiny, app1([]byte("Exif\x00\x00"))), 1},
		{"standalone marker before", orienttest.Insert(tiny, []byte{0xFF, 0xD0}, app1(orienttest.Exif(true, 2))), 2},
	}
	for o := 1; o <= 8; o++ {
		for _, be := range []bool{false, true} {
			cs = append(cs, tc{fmt.Sprintf("orientation %d big-endian=%v", o, be), orienttest.Insert(tiny, app1(orienttest.Exif(be, uint16(o)))), o})
		}
	}
	// Every truncation of a valid file reads as 1 once the Exif segment
	// is cut (its length then points past the end).
	for n := range 4 + len(orienttest.Exif(true, 6)) {
		cs = append(cs, tc{fmt.Sprintf("truncated to %d", n), full[:n], 1})
	}
	return cs
}

func TestJPEG(t *testing.T) {
	for _, tt := range cases() {
		t.Run(tt.name, func(t *testing.T) {
			if got := orient.JPEG(tt.data); got != tt.want {
				t.Errorf("JPEG = %d, want %d", got, tt.want)
			}
		})
	}
}

// FuzzJPEG checks that the reader of untrusted uploads never panics and
// only returns valid orientations.
func FuzzJPEG(f *testing.F) {
	for _, c := range cases() {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := orient.JPEG(data); o < 1 || o > 8 {
			t.Fatalf("JPEG = %d", o)
		}
	})
}

// inverse is the orientation that undoes o.
func inverse(o int) int {
	switch o {
	case 6:
		return 8
	case 8:
		return 6
	}
	return o
}

// images returns random w×h images of every type Apply handles.
func images(r *rand.Rand, w, h int) map[string]image.Image {
	rect := image.Rect(0, 0, w, h)
	fill := func(p []byte) {
		for i := range p {
			p[i] = byte(r.IntN(256))
		}
	}
	out := map[string]image.Image{}
	g := image.NewGray(rect)
	fill(g.Pix)
	out["Gray"] = g
	rgba := image.NewRGBA(rect)
	for i := range rgba.Pix { // premultiplied: alpha 255
		rgba.Pix[i] = byte(r.IntN(256)) | byte(255*btoi(i%4 == 3))
	}
	out["RGBA"] = rgba
	big := image.NewRGBA(image.Rect(-3, -5, w+4, h+2))
	fill(big.Pix)
	for i := 3; i < len(big.Pix); i += 4 {
		big.Pix[i] = 255
	}
	out["RGBA sub-image"] = big.SubImage(image.Rect(-1, 1, w-1, h+1))
	n := image.NewNRGBA(rect)
	fill(n.Pix)
	out["NRGBA"] = n
	c := image.NewCMYK(rect)
	fill(c.Pix)
	out["CMYK (fallback)"] = c
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410} {
		y := image.NewYCbCr(rect, ratio)
		fill(y.Y)
		fill(y.Cb)
		fill(y.Cr)
		out["YCbCr "+ratio.String()] = y
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestApply compares Apply with the orientation's definition (rotations
// and mirrors written pixel by pixel in orienttest) on every image type,
// comparing 8-bit RGBA as the reference stores it.
// Width and height are multiples of the chroma blocks, where turning a
// subsampled image is exact.
func TestApply(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, img := range images(r, 12, 8) {
		for o := 1; o <= 8; o++ {
			t.Run(fmt.Sprintf("%s/%d", name, o), func(t *testing.T) {
				got := orient.Apply(img, o)
				want := orienttest.Stored(img, inverse(o))
				if got.Bounds().Size() != want.Bounds().Size() {
					t.Fatalf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
				}
				if _, ok := img.(*image.CMYK); !ok && fmt.Sprintf("%T", got) != fmt.Sprintf("%T", img) {
					t.Errorf("type %T, want %T", got, img)
				}
				gb, wb := got.Bounds(), want.Bounds()
				for y := range wb.Dy() {
					for x := range wb.Dx() {
						g := color.RGBAModel.Convert(got.At(gb.Min.X+x, gb.Min.Y+y))
						w := color.RGBAModel.Convert(want.At(wb.Min.X+x, wb.Min.Y+y))
						if g != w {
							t.Fatalf("(%d,%d) = %v, want %v", x, y, g, w)
						}
					}
				}
			})
		}
	}
}

// TestApplyOddSizes turns odd-sized images, where subsampled chroma
// blocks do not line up: the luma must still be exact and nothing may
// read or write out of bounds.
func TestApplyOddSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, size := range []image.Point{{1, 1}, {7, 5}, {5, 7}, {13, 3}} {
		for name, img := range images(r, size.X, size.Y) {
			ycc, ok := img.(*image.YCbCr)
			if !ok {
				continue
			}
			for o := 1; o <= 8; o++ {
				got := orient.Apply(ycc, o).(*image.YCbCr)
				want := orienttest.Stored(&image.Gray{Pix: ycc.Y, Stride: ycc.YStride, Rect: ycc.Rect}, inverse(o))
				for y := range want.Bounds().Dy() {
					for x := range want.Bounds().Dx() {
						if g, w := got.Y[got.YOffset(x, y)], color.GrayModel.Convert(want.At(x, y)).(color.Gray).Y; g != w {
							t.Fatalf("%v %s orientation %d: Y(%d,%d) = %d, want %d", size, name, o, x, y, g, w)
						}
					}
				}
			}
		}
	}
}

func TestApplyNormalKeepsTheImage(t *testing.T) {
	img := image.NewGray(image.Rect(2, 3, 10, 9))
	for _, o := range []int{0, 1, 9, -1} {
		if got := orient.Apply(img, o); got != image.Image(img) {
			t.Errorf("Apply(%d) made a new image", o)
		}
	}
}

// FuzzApply turns random small images of every type and ratio: no panic,
// the right size.
func FuzzApply(f *testing.F) {
	f.Add(uint8(7), uint8(5), uint8(6), uint64(1))
	f.Add(uint8(1), uint8(1), uint8(5), uint64(2))
	f.Fuzz(func(t *testing.T, w, h, o uint8, seed uint64) {
		if w == 0 || h == 0 || w > 40 || h > 40 {
			return
		}
		for _, img := range images(rand.New(rand.NewPCG(seed, 0)), int(w), int(h)) {
			got := orient.Apply(img, int(o)).Bounds().Size()
			want := img.Bounds().Size()
			if orient.Swaps(int(o)) {
				want = image.Pt(want.Y, want.X)
			}
			if got != want {
				t.Fatalf("size %v, want %v", got, want)
			}
		}
	})
}

// BenchmarkApply turns a 12-megapixel phone photo as image/jpeg decodes it
// (YCbCr 4:2:0) a quarter turn.
func BenchmarkApply(b *testing.B) {
	img := image.NewYCbCr(image.Rect(0, 0, 4000, 3000), image.YCbCrSubsampleRatio420)
	for b.Loop() {
		orient.Apply(img, orient.Rotate90)
	}
}
