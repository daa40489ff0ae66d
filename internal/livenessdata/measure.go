package livenessdata

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/jpeg"
	"slices"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/liveness"
)

// Digest is the identity of an uploaded frame's bytes: hex SHA-256.
func Digest(jpegBytes []byte) string {
	h := sha256.Sum256(jpegBytes)
	return hex.EncodeToString(h[:])
}

// Digests returns the digests of frames.
func Digests(frames []EncodedFrame) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = Digest(f.JPEG)
	}
	return out
}

// Measure turns uploaded frames into what liveness.Analyze reads, as the
// server does with an upload: each JPEG decoded, the face models run on
// it, the faces the thresholds deem usable counted, and the landmarks
// and descriptor of the face kept when there is exactly one.
func Measure(ctx context.Context, fa engine.FaceAnalyzer, th engine.FaceThresholds, frames []EncodedFrame) ([]liveness.Frame, error) {
	out := make([]liveness.Frame, len(frames))
	for i, f := range frames {
		img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
		if err != nil {
			return nil, fmt.Errorf("livenessdata: frame %d: %w", i, err)
		}
		faces, err := fa.Faces(ctx, img)
		if err != nil {
			return nil, fmt.Errorf("livenessdata: frame %d: %w", i, err)
		}
		faces = th.Usable(faces)
		lf := liveness.Frame{At: f.At, Faces: len(faces), Digest: Digest(f.JPEG)}
		if len(faces) == 1 {
			lf.Landmarks = make([]liveness.Point, len(faces[0].Landmarks))
			for j, p := range faces[0].Landmarks {
				lf.Landmarks[j] = liveness.Point{X: p.X, Y: p.Y}
			}
			lf.Descriptor = slices.Clone(faces[0].Descriptor)
		}
		out[i] = lf
	}
	return out, nil
}
