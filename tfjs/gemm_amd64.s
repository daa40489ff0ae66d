//go:build amd64 && !purego

// The GEMM micro-kernel for amd64 CPUs with AVX2 and FMA (x86-64-v3:
// Intel Haswell, AMD Zen and later), selected at run time in
// gemm_amd64.go; gemm.go's Go kernel is the reference and runs everywhere
// else.
//
// Why hand-written assembly: Go's compiler does not vectorise loops, and
// in a default (GOAMD64=v1) build it does not fuse multiply-adds either,
// so the Go kernel runs one scalar SSE multiply and one add per term
// (~2 G multiply-adds/s per core here). Release binaries are default
// builds. This kernel does 8 multiply-adds per instruction, 96 per step
// of k, and is what makes the face networks at least as fast as
// TensorFlow.js's WASM SIMD backend on one core (docs/faces.md, "Speed").
// There is no well-kept pure-Go SIMD GEMM library for float32 with FMA to
// use instead (gonum's float32 BLAS is scalar Go), and cgo is not an
// option for this project.
//
// Layout (see packA and packB): the A panel holds 6 rows interleaved
// along k (a[kk*6+i]), the B panel 16 columns interleaved along k
// (b[kk*16+j]). The 6×16 block of C lives in Y4–Y15 (row i in Y(4+2i),
// Y(5+2i)); each step of k loads the 16 B values into Y0, Y1 and
// broadcasts the 6 A values, two at a time, into Y2, Y3.

#include "textflag.h"

// STEP does one step of k, reading A at ao(SI) and B at bo(DI).
#define STEP(ao, bo) \
	VMOVUPS      bo(DI), Y0;    \
	VMOVUPS      bo+32(DI), Y1; \
	VBROADCASTSS ao(SI), Y2;    \
	VBROADCASTSS ao+4(SI), Y3;  \
	VFMADD231PS  Y0, Y2, Y4;    \
	VFMADD231PS  Y1, Y2, Y5;    \
	VFMADD231PS  Y0, Y3, Y6;    \
	VFMADD231PS  Y1, Y3, Y7;    \
	VBROADCASTSS ao+8(SI), Y2;  \
	VBROADCASTSS ao+12(SI), Y3; \
	VFMADD231PS  Y0, Y2, Y8;    \
	VFMADD231PS  Y1, Y2, Y9;    \
	VFMADD231PS  Y0, Y3, Y10;   \
	VFMADD231PS  Y1, Y3, Y11;   \
	VBROADCASTSS ao+16(SI), Y2; \
	VBROADCASTSS ao+20(SI), Y3; \
	VFMADD231PS  Y0, Y2, Y12;   \
	VFMADD231PS  Y1, Y2, Y13;   \
	VFMADD231PS  Y0, Y3, Y14;   \
	VFMADD231PS  Y1, Y3, Y15

// func gemmKernel6x16(k int, a, b, c *float32, ldc int)
TEXT ·gemmKernel6x16(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8 // row stride in bytes

	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15

	// Four steps of k per iteration, then the remaining k mod 4.
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   tail

loop4:
	STEP(0, 0)
	STEP(24, 64)
	STEP(48, 128)
	STEP(72, 192)
	ADDQ $96, SI
	ADDQ $256, DI
	DECQ BX
	JNZ  loop4

tail:
	ANDQ $3, CX
	JZ   store

loop1:
	STEP(0, 0)
	ADDQ $24, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop1

store:
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y10, (DX)
	VMOVUPS Y11, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y12, (DX)
	VMOVUPS Y13, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y14, (DX)
	VMOVUPS Y15, 32(DX)
	VZEROUPPER
	RET
