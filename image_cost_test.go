package verifyd_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
)

// noisy returns an image of random pixels, so that encoders cannot
// compress it to nothing.
func noisy(w, h int, model color.Model) image.Image {
	rnd := rand.New(rand.NewPCG(1, 2))
	r := image.Rect(0, 0, w, h)
	var img interface {
		image.Image
		Set(x, y int, c color.Color)
	}
	switch model {
	case color.NRGBA64Model:
		img = image.NewNRGBA64(r)
	case color.GrayModel:
		img = image.NewGray(r)
	default:
		img = image.NewRGBA(r)
	}
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(rnd.IntN(256)), uint8(x), uint8(y), 255})
		}
	}
	return img
}

func jpegOf(t *testing.T, img image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngOf(t *testing.T, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// allocated is what decoding raw allocates.
func allocated(t *testing.T, raw []byte) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, _, err := image.Decode(bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// The estimate follows what the decoders really allocate.
func TestDecodeCostMatchesTheDecoders(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  []byte
	}{
		{"baseline JPEG 4:2:0", jpegOf(t, noisy(1600, 1200, color.RGBAModel))},
		{"grey JPEG", jpegOf(t, noisy(1600, 1200, color.GrayModel))},
		{"8-bit RGBA PNG", pngOf(t, noisy(1000, 800, color.RGBAModel))},
		{"16-bit RGBA PNG", pngOf(t, noisy(1000, 800, color.NRGBA64Model))},
	} {
		t.Run(c.name, func(t *testing.T) {
			est, err := verifyd.DecodeCost(c.raw)
			if err != nil {
				t.Fatal(err)
			}
			got := allocated(t, c.raw)
			t.Logf("estimated %d KiB, allocated %d KiB", est>>10, got>>10)
			if float64(est) < 0.6*float64(got) || float64(est) > 1.5*float64(got) {
				t.Errorf("estimated %d bytes, the decoder allocated %d", est, got)
			}
		})
	}
}

// pngHeader is a PNG claiming w×h pixels of the given bit depth and colour
// type, with an empty data chunk: what a decompression bomb's header says.
func pngHeader(w, h uint32, depth, colourType byte, interlace ...byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(name string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(name)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(name), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, colourType
	if len(interlace) > 0 {
		ihdr[12] = interlace[0]
	}
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

func TestDecodeCost(t *testing.T) {
	baseline := jpegOf(t, noisy(800, 600, color.RGBAModel))
	// The same header marked progressive (SOF2): DecodeConfig and the
	// estimate read only the header.
	progressive := bytes.Replace(baseline, []byte{0xFF, 0xC0}, []byte{0xFF, 0xC2}, 1)
	eoi := bytes.LastIndex(baseline, []byte{0xFF, 0xD9})
	sos := bytes.Index(baseline, []byte{0xFF, 0xDA})
	px := int64(800 * 600)
	for _, c := range []struct {
		name    string
		raw     []byte
		want    int64 // 0: an error
		wantErr error
	}{
		{"baseline 4:2:0", baseline, px * 3 / 2, nil},
		{"progressive keeps the coefficients", progressive, px*3/2 + 4*px*3/2, nil},
		{"a 16-bit 7071² PNG bomb", pngHeader(7071, 7071, 16, 6), 7071 * 7071 * 8, nil},
		{"an interlaced PNG is decoded twice", pngHeader(1000, 1000, 8, 6, 1), 2 * 1000 * 1000 * 4, nil},
		{"a JPEG cut in its scan", baseline[:eoi-100], 0, verifyd.ErrTruncated},
		{"a JPEG header without a scan", baseline[:sos], 0, verifyd.ErrTruncated},
		{"a trailer after the end is fine (motion photos)", append(append([]byte(nil), baseline...), "ftypmp42....."...), px * 3 / 2, nil},
		{"a PNG without IEND", func() []byte { b := pngHeader(100, 100, 8, 6); return b[:len(b)-12] }(), 0, verifyd.ErrTruncated},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := verifyd.DecodeCost(c.raw)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("got %d, %v; want %v", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %d, %v; want %d", got, err, c.want)
			}
		})
	}
}

// Submissions are refused from the header: bombs as too large, cut files
// as incomplete.
func TestDecodeImageBytesRefusesBombsAndCutFiles(t *testing.T) {
	baseline := jpegOf(t, noisy(800, 600, color.RGBAModel))
	for _, c := range []struct {
		name, raw, want string
	}{
		{"16-bit PNG bomb", string(pngHeader(7071, 7071, 16, 6)), "too large to process"},
		{"cut JPEG", string(baseline[:len(baseline)/2]), "incomplete"},
	} {
		if _, problem := verifyd.DecodeImageBytes([]byte(c.raw)); !strings.Contains(problem, c.want) {
			t.Errorf("%s: %q, want %q", c.name, problem, c.want)
		}
	}
	if _, problem := verifyd.DecodeImageBytes(baseline); problem != "" {
		t.Errorf("a whole photo: %q", problem)
	}
}
