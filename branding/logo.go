package branding

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"strconv"

	"github.com/verifyd/verifyd"
)

// Logo limits. A logo is shown at most 64 pixels high on the hosted pages;
// 1024 pixels leave room for sharp rendering on dense screens, and 256 KiB
// is plenty for that as PNG or JPEG.
const (
	MaxLogoBytes = 256 << 10
	MaxLogoSide  = 1024
	MinLogoSide  = 16
	// MaxLogoDecodeBytes bounds the memory decoding one logo may take
	// (verifyd.DecodeCost): a 16-bit interlaced RGBA PNG of 1024×1024
	// pixels needs 16 MiB, the worst case of an acceptable logo.
	MaxLogoDecodeBytes = 16 << 20
	// MaxStoredLogoBytes bounds the re-encoded logo: re-encoding a JPEG
	// photograph as it came can grow it, noise in a PNG too.
	MaxStoredLogoBytes = 1 << 20
)

// CheckLogo validates an uploaded logo and re-encodes it, so that what is
// stored and served is pixels verifyd wrote, never the uploaded bytes (no
// metadata, no trailing data, no polyglot file). It accepts PNG and JPEG
// only, at most MaxLogoBytes, MinLogoSide to MaxLogoSide pixels on a side,
// complete, and cheap to decode; the header is judged with the service's
// bounded decoder before any pixel is decoded. A PNG stays PNG (it may be
// transparent), a JPEG stays JPEG at quality 90. It returns the problem
// for the person who uploaded it instead of an error.
func CheckLogo(raw []byte) (verifyd.Logo, Problem) {
	switch {
	case len(raw) == 0:
		return verifyd.Logo{}, Problem{Code: "logo_empty", Text: "is empty"}
	case len(raw) > MaxLogoBytes:
		return verifyd.Logo{}, Problem{Code: "logo_bytes", Arg: strconv.Itoa(MaxLogoBytes >> 10), Text: fmt.Sprintf("is larger than %d KiB", MaxLogoBytes>>10)}
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	// Formats other packages registered (WebP, GIF, …) are refused too.
	if err != nil || (format != "png" && format != "jpeg") {
		return verifyd.Logo{}, Problem{Code: "logo_format", Text: "must be a PNG or JPEG image"}
	}
	switch {
	case cfg.Width < MinLogoSide || cfg.Height < MinLogoSide:
		return verifyd.Logo{}, Problem{Code: "logo_small", Arg: strconv.Itoa(MinLogoSide), Text: fmt.Sprintf("is smaller than %d pixels on a side", MinLogoSide)}
	case cfg.Width > MaxLogoSide || cfg.Height > MaxLogoSide:
		return verifyd.Logo{}, Problem{Code: "logo_large", Arg: fmt.Sprintf("%d×%d", MaxLogoSide, MaxLogoSide), Text: fmt.Sprintf("is larger than %d×%d pixels", MaxLogoSide, MaxLogoSide)}
	}
	cost, err := verifyd.DecodeCost(raw)
	switch {
	case errors.Is(err, verifyd.ErrTruncated):
		return verifyd.Logo{}, Problem{Code: "logo_incomplete", Text: "is incomplete: the image data ends early"}
	case err != nil:
		return verifyd.Logo{}, Problem{Code: "logo_format", Text: "must be a PNG or JPEG image"}
	case cost > MaxLogoDecodeBytes:
		return verifyd.Logo{}, Problem{Code: "logo_costly", Text: "is too costly to decode (save it as an 8-bit PNG or a baseline JPEG)"}
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		// DecodeCost checks structure, not every byte of compressed data.
		return verifyd.Logo{}, Problem{Code: "logo_damaged", Text: "could not be decoded: the image data is damaged"}
	}
	var out bytes.Buffer
	switch format {
	case "png":
		err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, img)
	default:
		err = jpeg.Encode(&out, img, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		return verifyd.Logo{}, Problem{Code: "logo_reencode", Text: "could not be re-encoded"}
	}
	if out.Len() > MaxStoredLogoBytes {
		return verifyd.Logo{}, Problem{Code: "logo_detailed", Arg: strconv.Itoa(MaxStoredLogoBytes >> 10), Text: fmt.Sprintf("is too detailed: re-encoded it takes more than %d KiB", MaxStoredLogoBytes>>10)}
	}
	sum := sha256.Sum256(out.Bytes())
	b := img.Bounds()
	return verifyd.Logo{Format: format, Width: b.Dx(), Height: b.Dy(), SHA256: sum[:], Bytes: out.Bytes()}, Problem{}
}
