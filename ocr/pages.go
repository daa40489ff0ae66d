package ocr

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"io"
)

// Pages is implemented by engines for which reading several images in
// one call costs less than a call for each. The tesseract program, when
// none is kept running (Tesseract.Resident), starts a process and loads
// its trained data for every call, about 0.2 s of one core: most of the
// time it takes to read a crop of a few hundred pixels, such as the spots
// of a page read again (package viz).
type Pages interface {
	// WordsOfPages reads each image with opt and returns each one's
	// words, in its own coordinates, in the images' order.
	WordsOfPages(ctx context.Context, imgs []*image.Gray, opt Options) ([][]Word, error)
}

// WordsOfPages reads each of imgs with opt, in one call when eng reads
// pages together (Pages), one call per image otherwise. Each image is
// read as it would be alone: its words are those Words would return.
func WordsOfPages(ctx context.Context, eng Engine, imgs []*image.Gray, opt Options) ([][]Word, error) {
	if p, ok := eng.(Pages); ok && len(imgs) > 1 {
		return p.WordsOfPages(ctx, imgs, opt)
	}
	out := make([][]Word, len(imgs))
	for i, img := range imgs {
		w, err := eng.Words(ctx, img, opt)
		if err != nil {
			return nil, err
		}
		out[i] = w
	}
	return out, nil
}

// writeTIFF writes imgs as one uncompressed, 8-bit greyscale TIFF file of
// as many pages (TIFF 6.0, baseline: one strip per page), which the
// tesseract program reads from its standard input page by page.
// golang.org/x/image/tiff writes a single page only, and a multi-page
// file is nothing more than a chain of the single-page structures, so it
// is written here.
func writeTIFF(w io.Writer, imgs []*image.Gray) error {
	const (
		header  = 8
		entries = 9
		ifdSize = 2 + entries*12 + 4
		short   = 3
		long    = 4
	)
	le := binary.LittleEndian
	var buf []byte
	buf = append(buf, 'I', 'I', 42, 0)
	buf = le.AppendUint32(buf, header)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	off := uint64(header)
	for i, img := range imgs {
		b := img.Bounds()
		size := uint64(b.Dx()) * uint64(b.Dy())
		data := off + ifdSize
		// Each directory starts on a word boundary: a page of an odd
		// number of pixels is followed by a byte of padding.
		end := data + size + size%2
		next := uint64(0)
		if i+1 < len(imgs) {
			next = end
		}
		if end+ifdSize > 1<<32-1 || size == 0 {
			return fmt.Errorf("ocr: cannot write a %v page as TIFF", b)
		}
		buf = le.AppendUint16(buf[:0], entries)
		// Tags in ascending order, as TIFF requires; a SHORT value sits
		// in the first two bytes of its four.
		for _, e := range [entries]struct {
			tag, typ uint16
			val      uint32
		}{
			{256, long, uint32(b.Dx())}, // ImageWidth
			{257, long, uint32(b.Dy())}, // ImageLength
			{258, short, 8},             // BitsPerSample
			{259, short, 1},             // Compression: none
			{262, short, 1},             // PhotometricInterpretation: black is zero
			{273, long, uint32(data)},   // StripOffsets: the pixels follow the directory
			{277, short, 1},             // SamplesPerPixel
			{278, long, uint32(b.Dy())}, // RowsPerStrip
			{279, long, uint32(size)},   // StripByteCounts
		} {
			buf = le.AppendUint16(buf, e.tag)
			buf = le.AppendUint16(buf, e.typ)
			buf = le.AppendUint32(buf, 1)
			if e.typ == short {
				buf = le.AppendUint16(buf, uint16(e.val))
				buf = le.AppendUint16(buf, 0)
			} else {
				buf = le.AppendUint32(buf, e.val)
			}
		}
		buf = le.AppendUint32(buf, uint32(next))
		if _, err := w.Write(buf); err != nil {
			return err
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			o := img.PixOffset(b.Min.X, y)
			if _, err := w.Write(img.Pix[o : o+b.Dx()]); err != nil {
				return err
			}
		}
		if size%2 == 1 {
			if _, err := w.Write([]byte{0}); err != nil {
				return err
			}
		}
		off = end
	}
	return nil
}
