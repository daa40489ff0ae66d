package verifyd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"io"

	"github.com/verifyd/verifyd/internal/orient"
)

// MaxDecodeBytes bounds the memory one submitted photo may take to decode
// (DecodeCost). Photos are small on the wire and large in memory: a
// 587 KB progressive JPEG of 12000×4166 pixels decodes into 716 MiB, a
// 2 KB lossless WebP into 215 MiB. 256 MiB admits every phone photo up to
// 50 megapixels stored as baseline JPEG, and 12 megapixels in any format
// (progressive, CMYK, 16-bit PNG, lossless WebP) with room for the turn
// an EXIF orientation asks for.
const MaxDecodeBytes = 256 << 20

// ErrTruncated is DecodeCost's error for image data that ends before the
// image does (a header without pixels, an interrupted upload).
var ErrTruncated = errors.New("the image data is incomplete")

// DecodeCost estimates, from the header alone, the bytes the standard
// library's and golang.org/x/image's decoders allocate for raw (JPEG, PNG
// or WebP), plus a copy for an EXIF turn, so that callers can refuse or
// schedule the work before doing it. The estimate follows the decoders'
// own buffers:
//
//   - JPEG: one byte per sample of each component at its sampling (so
//     4:2:0 colour is 1.5 bytes per pixel); a progressive JPEG keeps every
//     coefficient as an int32 until the last scan (4 more bytes per
//     sample); four-component (CMYK) data is converted into a new 4-byte
//     image. An EXIF orientation other than 1 turns the image into a copy.
//   - PNG: the bytes per pixel of the colour model (up to 8 for 16-bit
//     RGBA), twice for interlaced images, whose passes are decoded apart.
//   - WebP: lossy 1.5 bytes per pixel (2.5 with alpha); lossless 12
//     (ARGB words, the image, and a transform's copy).
//
// It also checks that the data is complete: a JPEG's end-of-image marker
// after its first scan, a PNG's IEND chunk after its data, a WebP's RIFF
// length.
func DecodeCost(raw []byte) (int64, error) {
	_, cost, err := DecodeCostConfig(raw)
	return cost, err
}

// DecodeCostConfig is DecodeCost with the header it read.
func DecodeCostConfig(raw []byte) (image.Config, int64, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return cfg, 0, ErrTruncated
	}
	if err != nil {
		return cfg, 0, err
	}
	px := int64(cfg.Width) * int64(cfg.Height)
	var cost int64
	switch format {
	case "jpeg":
		cost, err = jpegCost(raw, px)
	case "png":
		cost, err = pngCost(raw, cfg, px)
	case "webp":
		cost, err = webpCost(raw, px)
	default:
		err = errors.New("unsupported format " + format)
	}
	return cfg, cost, err
}

func jpegCost(raw []byte, px int64) (int64, error) {
	h, err := readJPEGHeader(raw)
	if err != nil {
		return 0, err
	}
	var hmax, vmax int
	for _, c := range h.components {
		hmax, vmax = max(hmax, c.h), max(vmax, c.v)
	}
	if hmax == 0 || vmax == 0 {
		return 0, errors.New("jpeg: no sampling factors")
	}
	// Samples per pixel over all components.
	var samples float64
	for _, c := range h.components {
		samples += float64(c.h*c.v) / float64(hmax*vmax)
	}
	perPixel := samples
	if h.progressive {
		perPixel += 4 * samples
	}
	if len(h.components) == 4 {
		perPixel += 4 // converted to *image.CMYK or *image.RGBA
	}
	cost := int64(perPixel * float64(px))
	if o := exifTurns(raw); o {
		// The turned copy: same type for Gray and YCbCr, 4-byte RGBA for
		// anything else.
		if len(h.components) == 4 {
			cost += 4 * px
		} else {
			cost += int64(samples * float64(px))
		}
	}
	return cost, nil
}

// jpegHeader is what jpegCost needs of a JPEG's frame header.
type jpegHeader struct {
	progressive bool
	components  []struct{ h, v int }
}

// readJPEGHeader walks the markers to the frame header (SOFn) and checks
// that an end-of-image marker follows the first scan. Entropy-coded data
// cannot contain FF D9 (an FF in it is always followed by 00 or a restart
// marker), so the first FF D9 after the start of scan ends the image;
// data after it (a phone's motion-photo video, a maker's trailer) is
// allowed.
func readJPEGHeader(b []byte) (jpegHeader, error) {
	var h jpegHeader
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return h, errors.New("jpeg: no start of image")
	}
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return h, errors.New("jpeg: corrupt marker")
		}
		m := b[i+1]
		switch {
		case m == 0xFF:
			i++
			continue
		case m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			i += 2
			continue
		case m == 0xD9:
			return h, ErrTruncated // the image ended before any scan
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return h, ErrTruncated
		}
		seg := b[i+4 : i+2+n]
		switch {
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			if len(seg) < 6 {
				return h, errors.New("jpeg: short frame header")
			}
			h.progressive = m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE
			nc := int(seg[5])
			if len(seg) < 6+3*nc || nc == 0 {
				return h, errors.New("jpeg: short frame header")
			}
			for k := range nc {
				s := seg[6+3*k+1]
				h.components = append(h.components, struct{ h, v int }{int(s >> 4), int(s & 15)})
			}
		case m == 0xDA:
			if h.components == nil {
				return h, errors.New("jpeg: scan before the frame header")
			}
			if !bytes.Contains(b[i+2+n:], []byte{0xFF, 0xD9}) {
				return h, ErrTruncated
			}
			return h, nil
		}
		i += 2 + n
	}
	return h, ErrTruncated
}

func pngCost(raw []byte, cfg image.Config, px int64) (int64, error) {
	idat := bytes.LastIndex(raw, []byte("IDAT"))
	if idat < 0 || bytes.LastIndex(raw, []byte("IEND")) < idat {
		return 0, ErrTruncated
	}
	var bpp int64
	switch cfg.ColorModel {
	case color.GrayModel, color.AlphaModel:
		bpp = 1
	case color.Gray16Model, color.Alpha16Model:
		bpp = 2
	case color.RGBA64Model, color.NRGBA64Model:
		bpp = 8
	default:
		if _, ok := cfg.ColorModel.(color.Palette); ok {
			bpp = 1
		} else {
			bpp = 4
		}
	}
	cost := bpp * px
	// IHDR's interlace method is its data's 13th byte (offset 28 of the file).
	if len(raw) > 28 && raw[28] == 1 {
		cost *= 2
	}
	return cost, nil
}

func webpCost(raw []byte, px int64) (int64, error) {
	if len(raw) < 16 || string(raw[:4]) != "RIFF" || string(raw[8:12]) != "WEBP" {
		return 0, errors.New("webp: not a RIFF WEBP file")
	}
	if size := int64(binary.LittleEndian.Uint32(raw[4:8])); int64(len(raw)) < size+8 {
		return 0, ErrTruncated
	}
	switch {
	case bytes.Contains(raw[12:], []byte("VP8L")):
		return 12 * px, nil
	case bytes.Contains(raw[12:], []byte("ALPH")):
		return px * 5 / 2, nil
	}
	return px * 3 / 2, nil
}

// exifTurns reports whether a JPEG's EXIF orientation asks for a turned
// copy.
func exifTurns(raw []byte) bool {
	return orient.JPEG(raw) > orient.Normal
}
