package liveness

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Pose is a head's orientation and size, fitted to one frame's landmarks.
type Pose struct {
	// Yaw in degrees: positive when the nose points towards the frame's
	// right edge (the person turned to their left).
	Yaw float64
	// Pitch in degrees: positive when the person looks up.
	Pitch float64
	// Scale is the frame's pixels per unit of the model (about the
	// distance between the eye centres of a frontal face).
	Scale float64
	// Residual is the landmarks' RMS distance from the fitted model, in
	// model units: how well a rigid generic head explains them.
	Residual float64
}

// meanFaceRigid is meanFace's rigid landmarks, centred.
var meanFaceRigid, meanFaceRigidPinv = func() (*mat.Dense, *mat.Dense) {
	x := mat.NewDense(len(rigid), 3, nil)
	var c [3]float64
	for _, i := range rigid {
		for k := range 3 {
			c[k] += meanFace[i][k] / float64(len(rigid))
		}
	}
	for r, i := range rigid {
		for k := range 3 {
			x.Set(r, k, meanFace[i][k]-c[k])
		}
	}
	// The least-squares solution of X·Aᵀ = P is (XᵀX)⁻¹Xᵀ·P; the first
	// factor depends on the model only.
	var xtx, inv, pinv mat.Dense
	xtx.Mul(x.T(), x)
	if err := inv.Inverse(&xtx); err != nil {
		panic("liveness: the mean face is degenerate: " + err.Error())
	}
	pinv.Mul(&inv, x.T())
	return x, &pinv
}()

// FitPose fits the generic head to 68 landmarks under scaled orthographic
// projection (a phone held at arm's length sees a face with little
// perspective): the best affine projection of the model in least
// squares, made a scaled rotation. Angles from it are relative to the
// generic head, so callers compare a frame's pose with the same person's
// neutral pose rather than with zero.
func FitPose(lm []Point) Pose {
	if len(lm) != 68 {
		return Pose{}
	}
	n := len(rigid)
	p := mat.NewDense(n, 2, nil)
	var cx, cy float64
	for _, i := range rigid {
		cx += lm[i].X / float64(n)
		cy += lm[i].Y / float64(n)
	}
	for r, i := range rigid {
		p.Set(r, 0, lm[i].X-cx)
		p.Set(r, 1, lm[i].Y-cy)
	}
	var at mat.Dense // 3×2: the affine camera's rows as columns
	at.Mul(meanFaceRigidPinv, p)
	r1 := [3]float64{at.At(0, 0), at.At(1, 0), at.At(2, 0)}
	r2 := [3]float64{at.At(0, 1), at.At(1, 1), at.At(2, 1)}
	n1, n2 := norm3(r1), norm3(r2)
	if n1 == 0 || n2 == 0 {
		return Pose{}
	}
	// The nearest pair of orthonormal rows, treating both rows alike:
	// rotate each by half of their deviation from perpendicular.
	u1, u2 := scale3(r1, 1/n1), scale3(r2, 1/n2)
	a, b := add3(u1, u2), sub3(u1, u2)
	a, b = scale3(a, 1/norm3(a)), scale3(b, 1/norm3(b))
	u1 = scale3(add3(a, b), 1/math.Sqrt2)
	u2 = scale3(sub3(a, b), 1/math.Sqrt2)
	// Residual with the best scale for the rotation.
	var num, den float64
	proj := make([][2]float64, n)
	for r := range n {
		x := [3]float64{meanFaceRigid.At(r, 0), meanFaceRigid.At(r, 1), meanFaceRigid.At(r, 2)}
		proj[r] = [2]float64{dot3(u1, x), dot3(u2, x)}
		num += proj[r][0]*p.At(r, 0) + proj[r][1]*p.At(r, 1)
		den += proj[r][0]*proj[r][0] + proj[r][1]*proj[r][1]
	}
	s := num / den
	var sq float64
	for r := range n {
		ex, ey := p.At(r, 0)-s*proj[r][0], p.At(r, 1)-s*proj[r][1]
		sq += ex*ex + ey*ey
	}
	return Pose{
		Yaw:      deg(math.Atan2(u1[2], u1[0])),
		Pitch:    deg(math.Atan2(-u2[2], u2[1])),
		Scale:    s,
		Residual: math.Sqrt(sq/float64(n)) / s,
	}
}

// EyeOpenness is the eyes' aspect ratio (lid-to-lid height over corner to
// corner width, both eyes averaged): about 0.25–0.35 open, under 0.15
// closed.
func EyeOpenness(lm []Point) float64 {
	if len(lm) != 68 {
		return 0
	}
	ear := func(o int) float64 {
		w := dist(lm[o], lm[o+3])
		if w == 0 {
			return 0
		}
		return (dist(lm[o+1], lm[o+5]) + dist(lm[o+2], lm[o+4])) / (2 * w)
	}
	return (ear(36) + ear(42)) / 2
}

// eyeDistance is the distance between the eye centres.
func eyeDistance(lm []Point) float64 {
	var l, r Point
	for i := range 6 {
		l.X += lm[36+i].X / 6
		l.Y += lm[36+i].Y / 6
		r.X += lm[42+i].X / 6
		r.Y += lm[42+i].Y / 6
	}
	return dist(l, r)
}

// Deformation compares the rigid landmarks of two frames of one face:
// Similarity is their RMS distance after the best similarity transform
// (shift, rotation in the image plane, scale) of a onto b, and Homography
// after the best homography, both in units of b's eye distance. A picture
// (print or screen) moved in front of the camera deforms by a homography:
// its Homography residual stays at the landmark network's noise however
// large Similarity grows. A head turning or nodding does not: its nose
// moves against its outline, and Homography grows with Similarity.
func Deformation(a, b []Point) (similarity, homography float64) {
	if len(a) != 68 || len(b) != 68 {
		return 0, 0
	}
	unit := eyeDistance(b)
	if unit == 0 {
		return 0, 0
	}
	src := make([]Point, len(rigid))
	dst := make([]Point, len(rigid))
	for k, i := range rigid {
		src[k], dst[k] = a[i], b[i]
	}
	return similarityResidual(src, dst) / unit, homographyResidual(src, dst) / unit
}

// similarityResidual is the RMS error of the least-squares similarity
// transform from src to dst (closed form: Umeyama's method in 2D).
func similarityResidual(src, dst []Point) float64 {
	n := float64(len(src))
	var sc, dc Point
	for i := range src {
		sc.X += src[i].X / n
		sc.Y += src[i].Y / n
		dc.X += dst[i].X / n
		dc.Y += dst[i].Y / n
	}
	// With complex numbers z = x + iy, the best map is w = c·z with
	// c = Σ conj(z)·w / Σ |z|².
	var re, im, zz float64
	for i := range src {
		zx, zy := src[i].X-sc.X, src[i].Y-sc.Y
		wx, wy := dst[i].X-dc.X, dst[i].Y-dc.Y
		re += zx*wx + zy*wy
		im += zx*wy - zy*wx
		zz += zx*zx + zy*zy
	}
	if zz == 0 {
		return 0
	}
	cr, ci := re/zz, im/zz
	var sq float64
	for i := range src {
		zx, zy := src[i].X-sc.X, src[i].Y-sc.Y
		ex := dst[i].X - dc.X - (cr*zx - ci*zy)
		ey := dst[i].Y - dc.Y - (cr*zy + ci*zx)
		sq += ex*ex + ey*ey
	}
	return math.Sqrt(sq / n)
}

// homographyResidual is the RMS transfer error of the homography from src
// to dst estimated by the normalised direct linear transform (Hartley and
// Zisserman, algorithm 4.2). The DLT minimises an algebraic error, not
// the transfer error, but with forty well-spread points and no outliers
// the two agree closely, and an iterative refinement would only lower
// the residual of a real head further below a picture's.
func homographyResidual(src, dst []Point) float64 {
	_, ns := normalising(src)
	td, nd := normalising(dst)
	n := len(src)
	a := mat.NewDense(2*n, 9, nil)
	for i := range n {
		x, y := ns[i].X, ns[i].Y
		u, v := nd[i].X, nd[i].Y
		a.SetRow(2*i, []float64{-x, -y, -1, 0, 0, 0, u * x, u * y, u})
		a.SetRow(2*i+1, []float64{0, 0, 0, -x, -y, -1, v * x, v * y, v})
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThinV) {
		return math.Inf(1)
	}
	var v mat.Dense
	svd.VTo(&v)
	h := v.ColView(8)
	var sq float64
	for i := range n {
		x, y := ns[i].X, ns[i].Y
		w := h.AtVec(6)*x + h.AtVec(7)*y + h.AtVec(8)
		if w == 0 {
			return math.Inf(1)
		}
		px := (h.AtVec(0)*x + h.AtVec(1)*y + h.AtVec(2)) / w
		py := (h.AtVec(3)*x + h.AtVec(4)*y + h.AtVec(5)) / w
		// Back to dst's pixels: undo dst's normalisation.
		ex := (px - nd[i].X) / td
		ey := (py - nd[i].Y) / td
		sq += ex*ex + ey*ey
	}
	return math.Sqrt(sq / float64(n))
}

// normalising moves points to their centroid and scales them to a mean
// distance of √2 from it, returning the scale and the moved points.
func normalising(pts []Point) (float64, []Point) {
	n := float64(len(pts))
	var c Point
	for _, p := range pts {
		c.X += p.X / n
		c.Y += p.Y / n
	}
	var d float64
	for _, p := range pts {
		d += math.Hypot(p.X-c.X, p.Y-c.Y) / n
	}
	s := 1.0
	if d > 0 {
		s = math.Sqrt2 / d
	}
	out := make([]Point, len(pts))
	for i, p := range pts {
		out[i] = Point{(p.X - c.X) * s, (p.Y - c.Y) * s}
	}
	return s, out
}

func dist(a, b Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

func deg(r float64) float64 { return r * 180 / math.Pi }

func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func norm3(a [3]float64) float64 { return math.Sqrt(dot3(a, a)) }

func scale3(a [3]float64, s float64) [3]float64 { return [3]float64{a[0] * s, a[1] * s, a[2] * s} }

func add3(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
