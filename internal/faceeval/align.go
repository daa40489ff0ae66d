package faceeval

import (
	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// ArcFaceTemplate is the standard five-point template of a 112×112 face
// (InsightFace / ArcFace): the left eye, the right eye (as seen in the
// picture), the nose tip and the left and right mouth corners. The
// human-models embedders (MobileFace, MobileFaceNet) were trained on
// faces warped onto it.
var ArcFaceTemplate = [5]faceapi.Point{
	{X: 38.2946, Y: 51.6963},
	{X: 73.5318, Y: 51.5014},
	{X: 56.0252, Y: 71.7366},
	{X: 41.5493, Y: 92.3655},
	{X: 70.7299, Y: 92.2041},
}

// FivePoints picks the template's five points from face-api's 68
// landmarks (iBUG 68): the centres of the eyes (36–41, 42–47), the nose
// tip (30) and the mouth corners (48, 54).
func FivePoints(pts []faceapi.Point) [5]faceapi.Point {
	centre := func(ps []faceapi.Point) faceapi.Point {
		var c faceapi.Point
		for _, p := range ps {
			c.X += p.X / float64(len(ps))
			c.Y += p.Y / float64(len(ps))
		}
		return c
	}
	return [5]faceapi.Point{centre(pts[36:42]), centre(pts[42:48]), pts[30], pts[48], pts[54]}
}

// Similarity is the map (x, y) → (A·x − B·y + TX, B·x + A·y + TY): a
// rotation, a uniform scale and a translation.
type Similarity struct{ A, B, TX, TY float64 }

// Apply maps p.
func (s Similarity) Apply(p faceapi.Point) faceapi.Point {
	return faceapi.Point{X: s.A*p.X - s.B*p.Y + s.TX, Y: s.B*p.X + s.A*p.Y + s.TY}
}

// Inverse is the inverse map (s must not be degenerate).
func (s Similarity) Inverse() Similarity {
	d := s.A*s.A + s.B*s.B
	a, b := s.A/d, -s.B/d
	return Similarity{A: a, B: b, TX: -(a*s.TX - b*s.TY), TY: -(b*s.TX + a*s.TY)}
}

// FitSimilarity is the least-squares similarity mapping src onto dst
// (Umeyama without reflection, as skimage's SimilarityTransform that
// InsightFace's norm_crop uses).
func FitSimilarity(src, dst []faceapi.Point) Similarity {
	n := float64(len(src))
	var sm, dm faceapi.Point
	for i := range src {
		sm.X += src[i].X / n
		sm.Y += src[i].Y / n
		dm.X += dst[i].X / n
		dm.Y += dst[i].Y / n
	}
	var num, cross, den float64
	for i := range src {
		x, y := src[i].X-sm.X, src[i].Y-sm.Y
		u, v := dst[i].X-dm.X, dst[i].Y-dm.Y
		num += x*u + y*v
		cross += x*v - y*u
		den += x*x + y*y
	}
	if den == 0 {
		return Similarity{A: 1, TX: dm.X - sm.X, TY: dm.Y - sm.Y}
	}
	a, b := num/den, cross/den
	return Similarity{A: a, B: b, TX: dm.X - (a*sm.X - b*sm.Y), TY: dm.Y - (b*sm.X + a*sm.Y)}
}

// AlignFace warps the face whose 68 landmarks are pts (img's pixels) onto
// ArcFaceTemplate: a size×size [H, W, 3] tensor sampled bilinearly from
// img ([H, W, 3], 0..255) with pixel centres at whole coordinates and
// black outside img, as OpenCV's warpAffine does in norm_crop. The
// template is scaled by size/112.
func AlignFace(img *tfjs.Tensor, pts []faceapi.Point, size int) *tfjs.Tensor {
	five := FivePoints(pts)
	k := float64(size) / 112
	var dst [5]faceapi.Point
	for i, p := range ArcFaceTemplate {
		dst[i] = faceapi.Point{X: p.X * k, Y: p.Y * k}
	}
	return Warp(img, FitSimilarity(five[:], dst[:]).Inverse(), size)
}

// Warp samples img at inv(x, y) for each pixel (x, y) of a size×size
// output, bilinearly, with zeros outside img.
func Warp(img *tfjs.Tensor, inv Similarity, size int) *tfjs.Tensor {
	return tfjs.WarpSimilarity(img, inv.A, inv.B, inv.TX, inv.TY, size)
}
