package tfjs

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorLoopsMatchGo checks that max-pooling, leaky ReLU and the 3×3
// depthwise convolution give bit-identical results with and without the
// vector loops (vec_amd64.s), for channel counts around the vector width
// (NaNs must be NaNs; their payloads may differ). In a GOAMD64=v3 build
// the Go loops use fused multiply-adds, so there they only agree closely.
func TestVectorLoopsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100} {
		x := randTensor(r, 7, 6, c)
		// Some exact ties, zeros of both signs and an infinity.
		x.Data[0], x.Data[len(x.Data)-1] = 0, float32(math.Copysign(0, -1))
		x.Data[len(x.Data)/2] = float32(math.Inf(-1))
		copy(x.Data[c:2*c], x.Data[:c])
		f := randTensor(r, 3, 3, c, 1)
		run := func(asm bool) []*Tensor {
			old := useAsm
			useAsm = asm
			defer func() { useAsm = old }()
			return []*Tensor{
				MaxPool(x, 2, 2, Same),
				MaxPool(x, 2, 1, Same),
				Activate(x.Clone(), Leaky),
				DepthwiseConv2D(x, f, 1, Same),
			}
		}
		want, got := run(false), run(true)
		for i := range want {
			for j := range want[i].Data {
				g, w := got[i].Data[j], want[i].Data[j]
				if goFusesMulAdd && i >= 2 && math.Abs(float64(g-w)) <= 1e-6*max(1, math.Abs(float64(w))) {
					continue // the Go loop fused its multiply-adds
				}
				if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) { // any NaN matches
					t.Errorf("channels %d, op %d: element %d is %g, want %g", c, i, j, got[i].Data[j], want[i].Data[j])
					break
				}
			}
		}
	}
}
