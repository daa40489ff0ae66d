// Package orienttest builds JPEGs carrying an EXIF Orientation tag, as
// phones write them, for tests.
package orienttest

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"testing"
)

// Exif returns the payload of an Exif APP1 segment ("Exif\0\0" and a TIFF
// structure) whose IFD0 holds the Orientation tag (0x0112, SHORT, count
// 1) with value o, after a Make tag as cameras write it, in big-endian
// ("MM") or little-endian ("II") byte order.
func Exif(bigEndian bool, o uint16) []byte {
	var bo interface {
		binary.ByteOrder
		binary.AppendByteOrder
	} = binary.LittleEndian
	t := []byte("II")
	if bigEndian {
		bo, t = binary.BigEndian, []byte("MM")
	}
	t = bo.AppendUint16(t, 42)
	t = bo.AppendUint32(t, 8) // IFD0 right after the header
	t = bo.AppendUint16(t, 2) // entries
	// Make (0x010F), ASCII, 6 bytes at offset 38: "Phone\0".
	t = bo.AppendUint16(t, 0x010F)
	t = bo.AppendUint16(t, 2)
	t = bo.AppendUint32(t, 6)
	t = bo.AppendUint32(t, 38)
	// Orientation, SHORT, count 1, the value left-justified.
	t = bo.AppendUint16(t, 0x0112)
	t = bo.AppendUint16(t, 3)
	t = bo.AppendUint32(t, 1)
	t = bo.AppendUint16(t, o)
	t = append(t, 0, 0)
	t = bo.AppendUint32(t, 0) // no next IFD
	t = append(t, "Phone\x00"...)
	return append([]byte("Exif\x00\x00"), t...)
}

// Segment wraps a payload in a JPEG marker segment (0xFF, marker, length).
func Segment(marker byte, payload []byte) []byte {
	s := []byte{0xFF, marker}
	s = binary.BigEndian.AppendUint16(s, uint16(len(payload)+2))
	return append(s, payload...)
}

// Insert puts segments right after a JPEG's SOI marker, where phones put
// their APP1.
func Insert(jpg []byte, segments ...[]byte) []byte {
	out := append([]byte(nil), jpg[:2]...)
	for _, s := range segments {
		out = append(out, s...)
	}
	return append(out, jpg[2:]...)
}

// Encode JPEG-encodes img at quality 95.
func Encode(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// WithOrientation JPEG-encodes img and tags it with orientation o.
func WithOrientation(t testing.TB, img image.Image, bigEndian bool, o uint16) []byte {
	t.Helper()
	return Insert(Encode(t, img), Segment(0xE1, Exif(bigEndian, o)))
}

// Stored returns what a camera stores for an upright picture so that
// applying orientation o displays upright: the inverse of o's transform.
// It is written independently of package orient, from the EXIF
// definitions: 2 mirrors left-right, 3 turns 180°, 4 mirrors top-bottom,
// 5 mirrors left-right then turns 270° clockwise, 6 turns 90° clockwise,
// 7 mirrors left-right then turns 90° clockwise, 8 turns 270° clockwise.
func Stored(upright image.Image, o int) image.Image {
	switch o {
	case 2:
		return flipH(upright)
	case 3:
		return rotCW(rotCW(upright))
	case 4:
		return rotCW(rotCW(flipH(upright)))
	case 5: // the display transform is its own inverse
		return rotCW(rotCW(rotCW(flipH(upright))))
	case 6: // inverse of 90° clockwise
		return rotCW(rotCW(rotCW(upright)))
	case 7:
		return rotCW(flipH(upright))
	case 8:
		return rotCW(upright)
	}
	return upright
}

// flipH mirrors img left-right.
func flipH(img image.Image) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			dst.Set(x, y, img.At(b.Max.X-1-x, b.Min.Y+y))
		}
	}
	return dst
}

// rotCW turns img 90° clockwise.
func rotCW(img image.Image) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dy(), b.Dx()))
	for y := range b.Dx() {
		for x := range b.Dy() {
			// The left column, read bottom to top, becomes the top row.
			dst.Set(x, y, img.At(b.Min.X+y, b.Max.Y-1-x))
		}
	}
	return dst
}
