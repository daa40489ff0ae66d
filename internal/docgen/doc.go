// Package docgen makes synthetic identity-document images for tests and
// benchmarks; nothing is downloaded, everything is generated.
//
// Generator makes random, valid MRZ fields (names, document numbers, dates
// including minors and expired documents) reproducibly from a seed. Render
// draws a flat document ("a scan"): ID-1 (TD1, 85.6×54 mm), ID-2 (TD2,
// 105×74 mm) or ID-3 passport data page (TD3, 125×88 mm) with a light
// tinted background and guilloche, a photo box (a synthetic face or a given
// image), printed fields in the Go fonts and the MRZ in OCR-B at the ICAO
// pitch of 2.54 mm. Photograph puts it on a table and degrades it like a
// phone photo: position and scale, rotation, perspective, blur, noise,
// brightness, contrast and uneven light, JPEG; optionally glare, a finger
// over the MRZ (CoverMRZ) or the MRZ cut by the frame (CutMRZ). Photo
// reports where the document and its MRZ ended up.
//
// The MRZ font is OCR-B from Debian's fonts-ocr-b (public domain, see
// font.go); when it is not installed Render returns an error wrapping
// ErrNoFont, which tests turn into a skip (a failure under
// VERIFYD_TEST_REQUIRE_ALL=1).
//
// A Generator is not safe for concurrent use; Render and Photograph are.
package docgen
