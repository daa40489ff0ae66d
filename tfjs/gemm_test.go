package tfjs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// kernelCases lists the micro-kernels this machine can run, with the
// useAsm value that selects each.
func kernelCases(t testing.TB) []struct {
	asm  bool
	kern *microKernel
} {
	cases := []struct {
		asm  bool
		kern *microKernel
	}{{false, goKernel}}
	if k := asmKernel(); k != nil {
		cases = append(cases, struct {
			asm  bool
			kern *microKernel
		}{true, k})
	} else {
		t.Logf("no assembly kernel on %s/%s (or this CPU); testing the Go kernel only", runtime.GOOS, runtime.GOARCH)
	}
	return cases
}

// setAsm sets useAsm for the rest of the test.
func setAsm(t testing.TB, on bool) {
	old := useAsm
	useAsm = on
	t.Cleanup(func() { useAsm = old })
}

func TestKernelSelection(t *testing.T) {
	t.Logf("active kernel: %s (%d×%d)", activeKernel().name, activeKernel().mr, activeKernel().nr)
	if runtime.GOARCH == "amd64" && asmKernel() == nil {
		t.Logf("amd64 without the AVX2/FMA kernel (CPU or OS lacks AVX2/FMA, or purego)")
	}
	if k := asmKernel(); k != nil && activeKernel() != k {
		t.Errorf("assembly kernel available but %s is active", activeKernel().name)
	}
	setAsm(t, false)
	if activeKernel() != goKernel {
		t.Errorf("useAsm = false: %s is active, want the Go kernel", activeKernel().name)
	}
	if a, b := newPackedA(5, 3), packB(make([]float32, 6), 3, 2); a.kern != goKernel || b.kern != goKernel || a.mr != goMR {
		t.Errorf("useAsm = false packs for %s/%s", a.kern.name, b.kern.name)
	}
}

// TestGemmKernels multiplies random matrices of many shapes, including
// partial tiles in M and N, k = 1 and tiny sizes, with every kernel this
// machine has, against a float64 reference; every element of C must be
// written and nothing past it.
func TestGemmKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ms := []int{1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 66, 101}
	ns := []int{1, 2, 3, 7, 8, 15, 16, 17, 25, 32, 33, 50}
	ks := []int{1, 2, 3, 4, 5, 7, 8, 9, 64, 147, 300}
	for _, kc := range kernelCases(t) {
		t.Run(kc.kern.name, func(t *testing.T) {
			setAsm(t, kc.asm)
			fails := 0
			for _, m := range ms {
				for _, n := range ns {
					for _, k := range ks {
						if m*n*k > 1<<20 && (m+n+k)%3 != 0 {
							continue // a sample of the largest shapes
						}
						if err := checkGemm(r, kc.kern, m, n, k, 1+(m+n+k)%2); err != nil {
							t.Errorf("m=%d n=%d k=%d: %v", m, n, k, err)
							if fails++; fails > 10 {
								t.FailNow()
							}
						}
					}
				}
			}
		})
	}
}

func checkGemm(r *rand.Rand, kern *microKernel, m, n, k, workers int) error {
	a := make([]float32, m*k)
	b := make([]float32, k*n)
	for i := range a {
		a[i] = float32(r.NormFloat64())
	}
	for i := range b {
		b[i] = float32(r.NormFloat64())
	}
	const guard = 40
	c := make([]float32, m*n+guard)
	for i := range c {
		c[i] = float32(math.NaN())
	}
	pa, pb := packA(a, m, k), packB(b, k, n)
	if pa.kern != kern || pb.kern != kern {
		return fmt.Errorf("packed for %s/%s, want %s", pa.kern.name, pb.kern.name, kern.name)
	}
	gemmBatchN([]gemmJob{{pa, pb, c[:m*n]}}, workers)
	for i := m * n; i < len(c); i++ {
		if !math.IsNaN(float64(c[i])) {
			return fmt.Errorf("wrote past C at %d", i-m*n)
		}
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var want, mag float64
			for kk := 0; kk < k; kk++ {
				p := float64(a[i*k+kk]) * float64(b[kk*n+j])
				want += p
				mag += math.Abs(p)
			}
			got := float64(c[i*n+j])
			// float32 summation error is bounded by ~k·ε·Σ|aᵢbᵢ|; in
			// practice far below.
			if d := math.Abs(got - want); !(d <= 1e-6*mag*float64(k)+1e-30) {
				return fmt.Errorf("C[%d,%d] = %g, want %g (Σ|ab| %g)", i, j, got, want, mag)
			}
		}
	}
	return nil
}

// TestAsmKernelMatchesGo compares the two kernels with each other on the
// same products (they round differently: FMA rounds once per term).
func TestAsmKernelMatchesGo(t *testing.T) {
	if asmKernel() == nil {
		t.Skip("no assembly kernel on this machine")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, s := range []struct{ m, n, k int }{
		{1, 1, 1}, {6, 16, 1}, {7, 17, 3}, {66, 64, 32}, {66, 256, 256}, {36, 25, 1024}, {4, 128, 256}, {225, 16, 27},
	} {
		a := make([]float32, s.m*s.k)
		b := make([]float32, s.k*s.n)
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		var outs [2][]float32
		for i, asm := range []bool{false, true} {
			useAsm = asm
			outs[i] = make([]float32, s.m*s.n)
			gemm(packA(a, s.m, s.k), packB(b, s.k, s.n), outs[i])
		}
		useAsm = true
		var d, mx float64
		for i := range outs[0] {
			d = max(d, math.Abs(float64(outs[0][i]-outs[1][i])))
			mx = max(mx, math.Abs(float64(outs[0][i])))
		}
		if d > 1e-5*mx {
			t.Errorf("%+v: max difference %.3g, largest value %.3g", s, d, mx)
		}
	}
}

func TestGemmMixedKernelsPanics(t *testing.T) {
	if asmKernel() == nil {
		t.Skip("no assembly kernel on this machine")
	}
	setAsm(t, true)
	b := packB(make([]float32, 4), 2, 2)
	useAsm = false
	a := packA(make([]float32, 4), 2, 2)
	defer func() {
		if recover() == nil {
			t.Error("no panic for operands packed for different kernels")
		}
	}()
	gemm(a, b, make([]float32, 4))
}

// TestConvolutionsGoKernel runs the convolution tests with the Go kernel
// forced, so both kernels are tested on machines that have the assembly
// one (the other tests use the default, the assembly kernel there).
func TestConvolutionsGoKernel(t *testing.T) {
	if asmKernel() == nil {
		t.Skip("the Go kernel is the default here; the other tests cover it")
	}
	setAsm(t, false)
	t.Run("MatchesNaive", TestConv2DMatchesNaive)
	t.Run("EpilogueBothPaths", TestConv2DEpilogueBothPaths)
	t.Run("Epilogue", TestConv2DEpilogue)
}

// BenchmarkGemm times the products typical of the face networks with
// each kernel, in G multiply-adds per second on one goroutine.
func BenchmarkGemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, kc := range kernelCases(b) {
		for _, s := range []struct{ m, n, k int }{{66, 128, 128}, {66, 256, 256}, {1225, 64, 32}, {4, 256, 256}} {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", kc.kern.name, s.m, s.n, s.k), func(b *testing.B) {
				setAsm(b, kc.asm)
				a := make([]float32, s.m*s.k)
				w := make([]float32, s.k*s.n)
				for i := range a {
					a[i] = float32(r.NormFloat64())
				}
				for i := range w {
					w[i] = float32(r.NormFloat64())
				}
				pa, pb := packA(a, s.m, s.k), packB(w, s.k, s.n)
				c := make([]float32, s.m*s.n)
				for b.Loop() {
					gemmBatchN([]gemmJob{{pa, pb, c}}, 1)
				}
				b.ReportMetric(float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
			})
		}
	}
}
