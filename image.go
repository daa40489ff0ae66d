package verifyd

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // registers the JPEG decoder
	_ "image/png"  // registers the PNG decoder
	"strings"

	_ "golang.org/x/image/webp" // registers the WebP decoder

	"github.com/verifyd/verifyd/internal/orient"
)

// Image limits for submitted photos. A modern phone photo is 2–6 MB as JPEG;
// the limits leave room for that while bounding memory per request.
const (
	MaxImageBytes  = 10 << 20
	MaxImagePixels = 50_000_000
	MaxImageSide   = 12_000
	MinImageSide   = 64
)

// Image is a decoded-header view of a submitted photo: the bytes plus what
// could be read from the header. The pixels are decoded later, by the checks
// that need them. Width and Height are those of the upright photo: a JPEG's
// EXIF orientation is applied, as browsers and the engine do.
type Image struct {
	Bytes  []byte
	Format string
	Width  int
	Height int
}

// SHA256 returns the digest of the image bytes.
func (i Image) SHA256() []byte {
	s := sha256.Sum256(i.Bytes)
	return s[:]
}

// DecodeImage decodes a base64 image field. It accepts standard and URL-safe
// alphabets, with or without padding, and an optional data-URL prefix
// ("data:image/jpeg;base64,"), because integrators' clients produce all of
// these. It returns a problem description instead of an error so callers can
// report every bad field at once.
func DecodeImage(s string) (Image, string) {
	if s == "" {
		return Image{}, "is required"
	}
	if strings.HasPrefix(s, "data:") {
		i := strings.Index(s, ",")
		if i < 0 || !strings.HasSuffix(s[:i], ";base64") {
			return Image{}, "must be base64"
		}
		s = s[i+1:]
	}
	s = strings.TrimRight(s, "=")
	if base64.RawStdEncoding.DecodedLen(len(s)) > MaxImageBytes {
		return Image{}, "is larger than 10 MiB"
	}
	var raw []byte
	var err error
	if strings.ContainsAny(s, "-_") {
		raw, err = base64.RawURLEncoding.DecodeString(s)
	} else {
		raw, err = base64.RawStdEncoding.DecodeString(s)
	}
	if err != nil {
		return Image{}, "must be base64"
	}
	return DecodeImageBytes(raw)
}

// DecodeImageBytes checks raw image bytes (an uploaded file) by the same
// rules as DecodeImage: at most 10 MiB, JPEG, PNG or WebP, between 64 and
// 12,000 pixels on a side, at most 50 megapixels, complete, and at most
// MaxDecodeBytes to decode (DecodeCost).
func DecodeImageBytes(raw []byte) (Image, string) {
	switch {
	case len(raw) == 0:
		return Image{}, "is required"
	case len(raw) > MaxImageBytes:
		return Image{}, "is larger than 10 MiB"
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	// Check the format too: image.DecodeConfig accepts any format whose
	// decoder some package in the binary registered (GIF, BMP, ...).
	if err != nil || (format != "jpeg" && format != "png" && format != "webp") {
		return Image{}, "must be a JPEG, PNG or WebP image"
	}
	switch {
	case cfg.Width < MinImageSide || cfg.Height < MinImageSide:
		return Image{}, "is smaller than 64 pixels on a side"
	case cfg.Width > MaxImageSide || cfg.Height > MaxImageSide || cfg.Width*cfg.Height > MaxImagePixels:
		return Image{}, "has too many pixels"
	}
	// The pixels are decoded later, by the engine: what they will cost is
	// judged now, from the header, and so is whether the data is whole.
	cost, err := DecodeCost(raw)
	switch {
	case errors.Is(err, ErrTruncated):
		return Image{}, "is incomplete: the image data ends early"
	case err != nil:
		return Image{}, "must be a JPEG, PNG or WebP image"
	case cost > MaxDecodeBytes:
		return Image{}, fmt.Sprintf("is too large to process: decoding it would take %d MiB, at most %d MiB are allowed (send an 8-bit baseline JPEG)", cost>>20, MaxDecodeBytes>>20)
	}
	w, h := cfg.Width, cfg.Height
	// Report the size as displayed (and as the engine decodes it): a phone
	// JPEG stored sideways with an EXIF orientation of 5–8 is upright h×w.
	// The limits above do not depend on which side is which.
	if format == "jpeg" && orient.Swaps(orient.JPEG(raw)) {
		w, h = h, w
	}
	return Image{Bytes: raw, Format: format, Width: w, Height: h}, ""
}
