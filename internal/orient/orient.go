// Package orient reads the EXIF Orientation tag of a JPEG and turns a
// decoded image upright by it.
//
// Phones store photos as the sensor saw them and record how to turn them
// in the Orientation tag (0x0112) of the Exif APP1 segment; image/jpeg
// ignores it, browsers apply it. The engine applies it so the checks see
// what a reviewer sees.
//
// The reader is hand-written rather than taken from an EXIF library: only
// one tag of IFD0 is needed, the input is untrusted, and the libraries
// available are either unmaintained since 2019 (rwcarlsen/goexif,
// disintegration/imaging) or parse every IFD, MakerNote and thumbnail with
// a heavy dependency tree (dsoprea/go-exif). This reader looks at the
// segments before the image data, parses at most one Exif segment's IFD0,
// never allocates and never reads outside the slice (FuzzJPEG checks it).
// It follows what browsers do: the first Exif APP1 segment decides, and
// the tag must be a SHORT of count 1 holding 1–8.
package orient

import (
	"encoding/binary"
	"image"
)

// The orientations, as EXIF numbers them: how the stored pixels must be
// transformed to be displayed upright.
const (
	Normal     = 1 // as stored
	FlipH      = 2 // mirrored left-right
	Rotate180  = 3
	FlipV      = 4 // mirrored top-bottom
	Transpose  = 5 // mirrored along the top-left–bottom-right diagonal
	Rotate90   = 6 // turn 90° clockwise to display
	Transverse = 7 // mirrored along the top-right–bottom-left diagonal
	Rotate270  = 8 // turn 90° counter-clockwise (270° clockwise) to display
)

// Swaps reports whether orientation o exchanges width and height.
func Swaps(o int) bool { return o >= Transpose && o <= Rotate270 }

// JPEG returns the EXIF orientation (1–8) of JPEG data: Normal when the
// data is not a JPEG, has no Exif segment before the image data, or the
// segment is malformed or holds no valid Orientation tag.
func JPEG(b []byte) int {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return Normal
	}
	// Every step moves on by at least 2 bytes, and every read is checked
	// against len(b): the loop ends on any input.
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return Normal // not a marker: corrupt
		}
		m := b[i+1]
		switch {
		case m == 0xFF: // fill byte before a marker
			i++
			continue
		case m == 0x01 || (m >= 0xD0 && m <= 0xD7): // standalone markers
			i += 2
			continue
		case m == 0xD9 || m == 0xDA: // end of image, start of scan: no Exif before the data
			return Normal
		}
		n := int(binary.BigEndian.Uint16(b[i+2:])) // length, including its 2 bytes
		if n < 2 || i+2+n > len(b) {
			return Normal
		}
		seg := b[i+4 : i+2+n]
		if m == 0xE1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			return tiff(seg[6:])
		}
		i += 2 + n
	}
	return Normal
}

// tiff reads the Orientation tag from IFD0 of a TIFF structure.
func tiff(t []byte) int {
	if len(t) < 8 {
		return Normal
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return Normal
	}
	if bo.Uint16(t[2:]) != 42 {
		return Normal
	}
	ifd := uint64(bo.Uint32(t[4:]))
	if ifd < 8 || ifd+2 > uint64(len(t)) {
		return Normal
	}
	count := int(bo.Uint16(t[ifd:]))
	entries := t[ifd+2:]
	for k := 0; k < count && 12*k+12 <= len(entries); k++ {
		e := entries[12*k : 12*k+12]
		if bo.Uint16(e) != 0x0112 {
			continue
		}
		// type SHORT (3), count 1: the value sits in the first 2 bytes
		// of the 4-byte value field.
		if bo.Uint16(e[2:]) != 3 || bo.Uint32(e[4:]) != 1 {
			return Normal
		}
		if o := int(bo.Uint16(e[8:])); o >= Normal && o <= Rotate270 {
			return o
		}
		return Normal
	}
	return Normal
}

// affine maps a pixel (x, y) of the upright image to the stored image's
// pixel (xx*x + xy*y + x0, yx*x + yy*y + y0), both relative to the
// images' top-left corners.
type affine struct{ xx, xy, x0, yx, yy, y0 int }

// mapping returns the affine map of orientation o for a stored image of
// w×h pixels.
func mapping(o, w, h int) affine {
	switch o {
	case FlipH:
		return affine{-1, 0, w - 1, 0, 1, 0}
	case Rotate180:
		return affine{-1, 0, w - 1, 0, -1, h - 1}
	case FlipV:
		return affine{1, 0, 0, 0, -1, h - 1}
	case Transpose:
		return affine{0, 1, 0, 1, 0, 0}
	case Rotate90:
		return affine{0, 1, 0, -1, 0, h - 1}
	case Transverse:
		return affine{0, -1, w - 1, -1, 0, h - 1}
	case Rotate270:
		return affine{0, -1, w - 1, 1, 0, 0}
	}
	return affine{1, 0, 0, 0, 1, 0}
}

func (m affine) at(x, y int) (int, int) {
	return m.xx*x + m.xy*y + m.x0, m.yx*x + m.yy*y + m.y0
}

// Apply returns img turned upright by orientation o: img itself for
// Normal or an unknown value, otherwise a new image whose bounds start at
// (0, 0), w×h or h×w. *image.YCbCr, *image.Gray, *image.RGBA and
// *image.NRGBA keep their type (a subsampled YCbCr's chroma is taken from
// the nearest sample, as a lossless rotation does); other types become
// *image.RGBA.
func Apply(img image.Image, o int) image.Image {
	if o <= Normal || o > Rotate270 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dr := image.Rect(0, 0, w, h)
	if Swaps(o) {
		dr = image.Rect(0, 0, h, w)
	}
	m := mapping(o, w, h)
	switch src := img.(type) {
	case *image.Gray:
		dst := image.NewGray(dr)
		remap(dst.Pix, dst.Stride, dr.Dx(), dr.Dy(), src.Pix[src.PixOffset(b.Min.X, b.Min.Y):], src.Stride, 1, m)
		return dst
	case *image.RGBA:
		dst := image.NewRGBA(dr)
		remap(dst.Pix, dst.Stride, dr.Dx(), dr.Dy(), src.Pix[src.PixOffset(b.Min.X, b.Min.Y):], src.Stride, 4, m)
		return dst
	case *image.NRGBA:
		dst := image.NewNRGBA(dr)
		remap(dst.Pix, dst.Stride, dr.Dx(), dr.Dy(), src.Pix[src.PixOffset(b.Min.X, b.Min.Y):], src.Stride, 4, m)
		return dst
	case *image.YCbCr:
		return ycbcr(src, o, dr, m)
	}
	dst := image.NewRGBA(dr)
	for y := range dr.Dy() {
		for x := range dr.Dx() {
			sx, sy := m.at(x, y)
			dst.Set(x, y, img.At(b.Min.X+sx, b.Min.Y+sy))
		}
	}
	return dst
}

// remap fills a dw×dh plane of bpp bytes per pixel from the plane src
// (starting at the stored image's top-left pixel) through m. It works in
// tiles: a quarter turn reads the source down its columns, and a tile's
// columns stay in the cache.
func remap(dst []byte, dstStride, dw, dh int, src []byte, srcStride, bpp int, m affine) {
	const tile = 64
	for ty := 0; ty < dh; ty += tile {
		for tx := 0; tx < dw; tx += tile {
			for y := ty; y < min(ty+tile, dh); y++ {
				row := dst[y*dstStride+tx*bpp : y*dstStride+min(tx+tile, dw)*bpp]
				sx, sy := m.at(tx, y)
				o, step := sy*srcStride+sx*bpp, m.yx*srcStride+m.xx*bpp
				if bpp == 1 {
					for x := range row {
						row[x] = src[o]
						o += step
					}
					continue
				}
				for x := 0; x < len(row); x += bpp {
					copy(row[x:x+bpp], src[o:o+bpp])
					o += step
				}
			}
		}
	}
}

// ycbcr turns a YCbCr image: luma exactly, chroma from the stored sample
// covering the source pixel of each new sample's top-left pixel. 4:2:2
// becomes 4:4:0 and back when width and height swap; ratios with no
// transposed counterpart in package image (4:1:1, 4:1:0) become 4:4:4.
func ycbcr(src *image.YCbCr, o int, dr image.Rectangle, m affine) *image.YCbCr {
	ratio := src.SubsampleRatio
	if Swaps(o) {
		switch ratio {
		case image.YCbCrSubsampleRatio422:
			ratio = image.YCbCrSubsampleRatio440
		case image.YCbCrSubsampleRatio440:
			ratio = image.YCbCrSubsampleRatio422
		case image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410:
			ratio = image.YCbCrSubsampleRatio444
		}
	}
	b := src.Bounds()
	dst := image.NewYCbCr(dr, ratio)
	remap(dst.Y, dst.YStride, dr.Dx(), dr.Dy(), src.Y[src.YOffset(b.Min.X, b.Min.Y):], src.YStride, 1, m)
	// The chroma planes: one sample per sw×sh block of pixels.
	sw, sh := 1, 1
	switch ratio {
	case image.YCbCrSubsampleRatio422:
		sw = 2
	case image.YCbCrSubsampleRatio420:
		sw, sh = 2, 2
	case image.YCbCrSubsampleRatio440:
		sh = 2
	case image.YCbCrSubsampleRatio411:
		sw = 4
	case image.YCbCrSubsampleRatio410:
		sw, sh = 4, 2
	}
	for cy := 0; cy*sh < dr.Dy(); cy++ {
		for cx := 0; cx*sw < dr.Dx(); cx++ {
			sx, sy := m.at(cx*sw, cy*sh)
			so := src.COffset(b.Min.X+sx, b.Min.Y+sy)
			do := cy*dst.CStride + cx
			dst.Cb[do], dst.Cr[do] = src.Cb[so], src.Cr[so]
		}
	}
	return dst
}
