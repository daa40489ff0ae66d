package engine

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // decoders for submitted photos
	_ "image/png"

	_ "golang.org/x/image/webp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/orient"
)

// Minimum sizes for the checks to be meaningful: the MRZ of an ID card is
// about 30 characters across 80 mm; below ~600 px of document width its
// characters are too small to read.
const (
	MinDocumentSide = 600
	MinSelfieSide   = 240
)

// DecodeImage decodes a submitted photo (JPEG, PNG or WebP) and turns a
// JPEG upright by its EXIF Orientation tag, as browsers display it: phones
// store photos as the sensor saw them and record the turn in the tag, so
// without it a portrait selfie reaches the checks lying on its side. It
// returns the orientation applied (1 for no turn, always 1 for PNG and
// WebP).
func DecodeImage(b []byte) (img image.Image, format string, orientation int, err error) {
	img, format, err = image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, format, 0, err
	}
	orientation = orient.Normal
	if format == "jpeg" {
		orientation = orient.JPEG(b)
		img = orient.Apply(img, orientation)
	}
	return img, format, orientation, nil
}

// DecodeCheck decodes every submitted image fully (DecodeImage: JPEGs are
// turned upright by their EXIF orientation) and checks that the document
// photos are large enough to read. It estimates each photo's memory from
// its header first (verifyd.DecodeCost), refuses what exceeds
// verifyd.MaxDecodeBytes, decodes within Budget (nil: unbounded, for
// tests and tools), and keeps photos larger than WorkingPixels scaled down.
type DecodeCheck struct {
	Budget *DecodeBudget
}

// Name implements Check.
func (DecodeCheck) Name() string { return "decode" }

// Run implements Check.
func (c DecodeCheck) Run(ctx context.Context, in *Input) Result {
	ev := map[string]any{}
	if in.hold == nil {
		in.hold = &holdings{}
	}
	// Every photo's cost is judged from its header first, and the run's
	// whole share of the budget is taken at once: runs that each held part
	// and waited for more would wait for each other.
	var images []*Image
	var shares []int64
	var total int64
	for _, im := range append([]*Image{in.Selfie, in.Front, in.Back}, in.Frames...) {
		if im == nil {
			continue
		}
		// Submissions were checked when they arrived; photos stored before
		// those checks existed, and tools, meet them here.
		cfg, cost, err := verifyd.DecodeCostConfig(im.Bytes)
		if err != nil {
			return Failed(verifyd.ReasonPoorIDScanError, fmt.Sprintf("%s cannot be decoded: %v", im.Kind, err), ev)
		}
		if cost > verifyd.MaxDecodeBytes {
			return Failed(verifyd.ReasonPoorIDScanError, fmt.Sprintf("%s would take %d MiB to decode, more than the %d MiB allowed", im.Kind, cost>>20, verifyd.MaxDecodeBytes>>20), ev)
		}
		images = append(images, im)
		shares = append(shares, cost+workingCopyBytes(cfg))
		total += shares[len(shares)-1]
	}
	reserved, err := c.Budget.acquire(ctx, total)
	if err != nil {
		return Errored(fmt.Errorf("waiting for decode memory: %w", err), ev)
	}
	if reserved < total && total > 0 {
		// A run larger than the whole budget has all of it: scale the
		// shares down alike.
		for i := range shares {
			shares[i] = shares[i] * reserved / total
		}
		shares[len(shares)-1] += reserved - sum(shares)
	}
	for i, im := range images {
		img, format, orientation, held, err := c.Budget.decode(im.Bytes, shares[i])
		budget := c.Budget
		in.hold.add(func() { budget.release(held) })
		if err != nil {
			for _, s := range shares[i+1:] {
				c.Budget.release(s)
			}
			return Failed(verifyd.ReasonPoorIDScanError, fmt.Sprintf("%s cannot be decoded: %v", im.Kind, err), ev)
		}
		im.Image, im.Format = img, format
		b := img.Bounds() // upright
		e := map[string]any{"format": format, "width": b.Dx(), "height": b.Dy()}
		if format == "jpeg" {
			e["orientation"] = orientation // EXIF; 1: as stored
		}
		ev[string(im.Kind)] = e
		min := MinDocumentSide
		if im.Kind == verifyd.ImageSelfie || im.Kind.SelfieFrameIndex() > 0 {
			min = MinSelfieSide
		}
		if long := max(b.Dx(), b.Dy()); long < min {
			return Failed(verifyd.ReasonPoorIDScanError, fmt.Sprintf("%s is %d px on its long side; at least %d are needed", im.Kind, long, min), ev)
		}
	}
	// Submissions always carry a selfie (B2 and the hosted page require
	// one); the face checks judge it. Only the document front is needed here.
	if in.Front == nil {
		return Failed(verifyd.ReasonIDScanError, "the document front is missing", ev)
	}
	return Passed("all images decoded", ev)
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

// Lookup is what ConsistencyCheck asks the store.
type Lookup interface {
	DocumentApprovedForOtherCustomer(ctx context.Context, businessID, customerID string, documentHash []byte) (bool, error)
	SelfieOfOtherCustomer(ctx context.Context, businessID, customerID string, sha256 []byte) (bool, error)
}

// ConsistencyCheck looks for reuse that suggests fraud: the selfie is the
// document photo itself (byte-identical) or another customer's selfie, or
// the document was already approved for another customer of the business.
type ConsistencyCheck struct {
	Lookup Lookup
	// DocumentHash turns the fact FactDocumentKey into the stored hash.
	DocumentHash func(businessID, key string) []byte
}

// Name implements Check.
func (ConsistencyCheck) Name() string { return "consistency" }

// Run implements Check.
func (c ConsistencyCheck) Run(ctx context.Context, in *Input) Result {
	if in.Selfie == nil {
		return Passed("no selfie to compare", nil)
	}
	selfie := sha(in.Selfie.Bytes)
	for _, doc := range []*Image{in.Front, in.Back} {
		if doc != nil && bytes.Equal(sha(doc.Bytes), selfie) {
			return Failed(verifyd.ReasonPotentialFraud, fmt.Sprintf("the selfie is byte-identical to the %s", doc.Kind), nil)
		}
	}
	reused, err := c.Lookup.SelfieOfOtherCustomer(ctx, in.BusinessID, in.CustomerID, selfie)
	if err != nil {
		return Errored(err, nil)
	}
	if reused {
		return Failed(verifyd.ReasonPotentialFraud, "another customer of this business submitted the same selfie", nil)
	}
	if key, ok := in.Facts[FactDocumentKey].(string); ok && key != "" && c.DocumentHash != nil {
		used, err := c.Lookup.DocumentApprovedForOtherCustomer(ctx, in.BusinessID, in.CustomerID, c.DocumentHash(in.BusinessID, key))
		if err != nil {
			return Errored(err, nil)
		}
		if used {
			return Failed(verifyd.ReasonPotentialFraud, "this document was already approved for another customer of this business", nil)
		}
	}
	return Passed("no reuse of the selfie or the document found", nil)
}

// FaceUnavailableCheck stands where selfie-to-document face matching and
// liveness will run. Until they exist nobody has compared the selfie with
// the document's photo, so a person must: the verification goes to review,
// never to a silent approval.
type FaceUnavailableCheck struct{}

// Name implements Check.
func (FaceUnavailableCheck) Name() string { return "face" }

// Run implements Check.
func (FaceUnavailableCheck) Run(context.Context, *Input) Result {
	return NeedsReview("automatic face matching is not available: compare the selfie with the document photo", nil)
}

// LivenessUnavailableCheck stands where the liveness check runs when its
// models are missing: nobody has judged whether the selfie shows a live
// person, so a person must.
type LivenessUnavailableCheck struct{}

// Name implements Check.
func (LivenessUnavailableCheck) Name() string { return "liveness" }

// Run implements Check.
func (LivenessUnavailableCheck) Run(context.Context, *Input) Result {
	return NeedsReview("automatic liveness checks are not available: check that the selfie shows a live person", nil)
}
