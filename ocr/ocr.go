// Package ocr recognises printed text in document photos with Tesseract, a
// general, well-kept OCR engine: the visual inspection zone of a document
// (names, dates and numbers printed in whatever font its issuer chose) is
// beyond a reader built for one font, such as package mrzread.
//
// Engine is the interface the checks use; this package's CLI runs the
// tesseract program of Debian's tesseract-ocr package (see docs/engine.md
// for why, and for the WebAssembly alternative).
package ocr

import (
	"context"
	"errors"
	"image"
)

// ErrUnavailable means no OCR engine is installed or it cannot run.
var ErrUnavailable = errors.New("ocr: no OCR engine available")

// Word is one recognised word.
type Word struct {
	// Text is the word as recognised (UTF-8).
	Text string
	// Conf is the engine's confidence in the word, from 0 to 1.
	Conf float64
	// Box bounds the word in the image passed to Words.
	Box image.Rectangle
	// Block, Par and Line identify the word's text line: words with equal
	// (Block, Par, Line) are on one line, in reading order.
	Block, Par, Line int
}

// Options tunes one recognition.
type Options struct {
	// PSM is Tesseract's page segmentation mode (0: the engine's default,
	// automatic layout analysis; 6: one uniform block of text; 7: a single
	// line; 11: sparse text).
	PSM int
	// Whitelist, when not empty, restricts the characters recognised.
	Whitelist string
	// Threshold is Tesseract's thresholding_method: 0 global Otsu (its
	// default), 1 adaptive Otsu, 2 Sauvola (local: reads values printed
	// over guilloche and uneven light better, loses faint small labels).
	Threshold int
	// DPI is the resolution the image is declared to have (0: none, and
	// Tesseract assumes 70 dpi). Tesseract's layout analysis judges what
	// is text by its size in inches: at the 70 dpi it assumes for an
	// image without one, the 40–50 px capitals of a document's printed
	// values look like 15 mm shapes and are dropped as non-text.
	DPI int
}

// DoInvert is the tessedit_do_invert both engines set: "0", never read a
// line again inverted. Tesseract 5 reads every line it is unsure of a
// second time as light text on dark; a document's fields are dark on
// light, and on photographed pages the second readings only added
// fragments of the background as words while taking a third of the time
// (four pages of independently generated photos, one core: 6.4 s with
// it, 4.4 s without; docs/performance.md).
const DoInvert = "0"

// Engine recognises the words in a greyscale image.
type Engine interface {
	Words(ctx context.Context, img *image.Gray, opt Options) ([]Word, error)
}
