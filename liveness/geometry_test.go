package liveness

import (
	"math"
	"math/rand/v2"
	"testing"
)

// project renders meanFace turned by yaw and pitch (degrees), scaled and
// shifted, with Gaussian noise of sd pixels: a synthetic head.
func project(yaw, pitch, scale, sd float64, rnd *rand.Rand) []Point {
	y, p := yaw*math.Pi/180, pitch*math.Pi/180
	out := make([]Point, 68)
	for i, m := range meanFace {
		// Yaw about the vertical axis (nose towards +x for yaw > 0), then
		// pitch about the horizontal axis (nose towards −y, up, for pitch > 0).
		x := m[0]*math.Cos(y) + m[2]*math.Sin(y)
		z := -m[0]*math.Sin(y) + m[2]*math.Cos(y)
		yy := m[1]*math.Cos(p) - z*math.Sin(p)
		out[i] = Point{320 + scale*x + rnd.NormFloat64()*sd, 240 + scale*yy + rnd.NormFloat64()*sd}
	}
	return out
}

// warp maps points by the homography h (row-major 3×3).
func warp(pts []Point, h [9]float64) []Point {
	out := make([]Point, len(pts))
	for i, p := range pts {
		w := h[6]*p.X + h[7]*p.Y + h[8]
		out[i] = Point{(h[0]*p.X + h[1]*p.Y + h[2]) / w, (h[3]*p.X + h[4]*p.Y + h[5]) / w}
	}
	return out
}

func TestFitPoseRecoversAngles(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ yaw, pitch float64 }{{0, 0}, {25, 0}, {-25, 0}, {0, 15}, {0, -15}, {20, 10}} {
		p := FitPose(project(c.yaw, c.pitch, 80, 0.3, rnd))
		if math.Abs(p.Yaw-c.yaw) > 3 || math.Abs(p.Pitch-c.pitch) > 3 {
			t.Errorf("yaw %g pitch %g: fitted yaw %.1f pitch %.1f", c.yaw, c.pitch, p.Yaw, p.Pitch)
		}
		if math.Abs(p.Scale-80) > 4 {
			t.Errorf("yaw %g pitch %g: scale %.1f, want 80", c.yaw, c.pitch, p.Scale)
		}
	}
}

// A picture tilted in front of the camera deforms by a homography, a head
// turning does not: the two residuals separate them even when the
// picture's deformation is as large as the head's.
func TestDeformationSeparatesPlaneFromHead(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	front := project(0, 0, 80, 0.5, rnd)
	// A print rotated ~30° about its vertical axis under perspective:
	// foreshortened horizontally, the near side larger.
	picture := warp(front, [9]float64{0.85, 0, 40, 0.02, 1, -10, 0.0006, 0, 1})
	for i := range picture {
		picture[i].X += rnd.NormFloat64() * 0.5
		picture[i].Y += rnd.NormFloat64() * 0.5
	}
	head := project(25, 0, 80, 0.5, rnd)
	ps, ph := Deformation(front, picture)
	hs, hh := Deformation(front, head)
	t.Logf("picture: similarity %.3f homography %.3f; head: similarity %.3f homography %.3f", ps, ph, hs, hh)
	if ps < 0.05 {
		t.Fatalf("the picture's deformation %.3f is too small to test anything", ps)
	}
	if ph > 0.02 {
		t.Errorf("picture: homography residual %.3f, want the noise level (< 0.02)", ph)
	}
	if hh < 2*ph || hh < 0.04 {
		t.Errorf("head: homography residual %.3f, want well above the picture's %.3f", hh, ph)
	}
	if p := FitPose(picture); math.Abs(p.Yaw) > 8 {
		t.Errorf("picture: fitted yaw %.1f°, want near 0: a tilted picture must not read as a turned head", p.Yaw)
	}
}

func TestEyeOpenness(t *testing.T) {
	open := project(0, 0, 100, 0, rand.New(rand.NewPCG(5, 6)))
	closed := append([]Point(nil), open...)
	for _, pair := range [][2]int{{37, 41}, {38, 40}, {43, 47}, {44, 46}} {
		mid := (closed[pair[0]].Y + closed[pair[1]].Y) / 2
		closed[pair[0]].Y, closed[pair[1]].Y = mid-1, mid+1
	}
	if o, c := EyeOpenness(open), EyeOpenness(closed); !(o > 0.2 && c < 0.1) {
		t.Errorf("openness open %.3f closed %.3f", o, c)
	}
}
