//go:build amd64 && !purego

package tfjs

import "golang.org/x/sys/cpu"

// The AVX2 + FMA micro-kernel of gemm_amd64.s: 6 rows × 16 columns, the
// 12 accumulators in Y4–Y15.
const (
	avx2MR = 6
	avx2NR = 16
)

var avx2Kernel = &microKernel{name: "avx2", mr: avx2MR, nr: avx2NR, full: avx2Full, rows: avx2Rows}

// haveAVX2FMA is whether the CPU has AVX2 and FMA and the operating
// system saves the YMM registers (x/sys/cpu reports HasAVX2 only then).
var haveAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// asmKernel returns the assembly kernel if this machine can run it.
func asmKernel() *microKernel {
	if haveAVX2FMA {
		return avx2Kernel
	}
	return nil
}

// gemmKernel6x16 sets the 6×16 block at c (row stride ldc floats) to the
// product of the 6-row A panel a and the 16-column B panel b, both k long
// (k ≥ 1).
//
//go:noescape
func gemmKernel6x16(k int, a, b, c *float32, ldc int)

func avx2Full(k int, a, b, c []float32, ldc int) {
	// Bounds checks for everything the assembly reads and writes.
	_ = a[k*avx2MR-1]
	_ = b[k*avx2NR-1]
	_ = c[(avx2MR-1)*ldc+avx2NR-1]
	gemmKernel6x16(k, &a[0], &b[0], &c[0], ldc)
}

func avx2Rows(rows, k int, a, b, c []float32, ldc int) {
	var t [avx2MR * avx2NR]float32
	avx2Full(k, a, b, t[:], avx2NR)
	for i := 0; i < rows; i++ {
		copy(c[i*ldc:i*ldc+avx2NR], t[i*avx2NR:(i+1)*avx2NR])
	}
}
