package faceeval

import (
	"math"
	"testing"

	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

func TestFitSimilarity(t *testing.T) {
	want := Similarity{A: 0.8 * math.Cos(0.3), B: 0.8 * math.Sin(0.3), TX: 12, TY: -7}
	src := ArcFaceTemplate[:]
	dst := make([]faceapi.Point, len(src))
	for i, p := range src {
		dst[i] = want.Apply(p)
	}
	got := FitSimilarity(src, dst)
	for _, d := range []float64{got.A - want.A, got.B - want.B, got.TX - want.TX, got.TY - want.TY} {
		if math.Abs(d) > 1e-9 {
			t.Fatalf("FitSimilarity = %+v, want %+v", got, want)
		}
	}
	back := got.Inverse().Apply(got.Apply(faceapi.Point{X: 3, Y: 5}))
	if math.Abs(back.X-3) > 1e-9 || math.Abs(back.Y-5) > 1e-9 {
		t.Fatalf("Inverse round trip gives %+v", back)
	}
}

func TestAlignFaceIdentity(t *testing.T) {
	// A picture whose landmarks already sit on the template is copied.
	img := tfjs.New(112, 112, 3)
	for i := range img.Data {
		img.Data[i] = float32(i % 251)
	}
	pts := make([]faceapi.Point, 68)
	for i, k := range []int{30, 48, 54} {
		pts[k] = ArcFaceTemplate[2+i]
	}
	for k := 36; k < 48; k++ {
		pts[k] = ArcFaceTemplate[(k-36)/6]
	}
	out := AlignFace(img, pts, 112)
	for i, v := range out.Data {
		if math.Abs(float64(v-img.Data[i])) > 1e-3 {
			t.Fatalf("pixel %d: %v, want %v", i, v, img.Data[i])
		}
	}
}
