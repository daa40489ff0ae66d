//go:build amd64 && !purego

// Element-wise loops over channels in AVX, 8 floats per step, for the
// operations that dominate the tiny face detector once its matrix
// products run in gemm_amd64.s: 2×2 max-pooling, leaky ReLU and the 3×3
// depthwise convolution. Hand-written for the same reason as the GEMM
// kernel (Go's compiler does not vectorise). Each does the same float32
// operations in the same order as the Go loop it replaces (no fused
// multiply-add), so results are identical to a default build's. n is a
// multiple of 8; the Go wrappers in vec_amd64.go check the lengths.

#include "textflag.h"

// func max4Asm(d, a, b, e, f *float32, n int)
TEXT ·max4Asm(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ e+24(FP), R9
	MOVQ f+32(FP), R10
	MOVQ n+40(FP), CX
	XORQ AX, AX
	SHRQ $3, CX
	JZ   max4done

max4loop:
	// m = a; then m = x > m ? x : m for x = b, e, f (maxPool2's order).
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS (R8)(AX*4), Y1
	VMAXPS  Y0, Y1, Y0
	VMOVUPS (R9)(AX*4), Y1
	VMAXPS  Y0, Y1, Y0
	VMOVUPS (R10)(AX*4), Y1
	VMAXPS  Y0, Y1, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	DECQ    CX
	JNZ     max4loop

max4done:
	VZEROUPPER
	RET

// func leakyAsm(v *float32, n int)
TEXT ·leakyAsm(SB), NOSPLIT, $0-16
	MOVQ v+0(FP), DI
	MOVQ n+8(FP), CX
	SHRQ $3, CX
	JZ   leakydone
	MOVL $0x3dcccccd, AX // leakySlope, float32(0.1)
	VMOVD AX, X1
	VBROADCASTSS X1, Y1
	VXORPS Y2, Y2, Y2

leakyloop:
	// m = x*slope; x = max(x-m, 0) + m. VMAXPS's "0 > t ? 0 : t" keeps a
	// NaN t, as Go's max does (t = x-m is never -0).
	VMOVUPS (DI), Y0
	VMULPS  Y1, Y0, Y3
	VSUBPS  Y3, Y0, Y0
	VMAXPS  Y0, Y2, Y0
	VADDPS  Y3, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JNZ     leakyloop

leakydone:
	VZEROUPPER
	RET

// func dw3Asm(d, s0, s1, s2, f0, f1, f2 *float32, n int)
TEXT ·dw3Asm(SB), NOSPLIT, $0-64
	MOVQ d+0(FP), DI
	MOVQ s0+8(FP), SI
	MOVQ s1+16(FP), R8
	MOVQ s2+24(FP), R9
	MOVQ f0+32(FP), R10
	MOVQ f1+40(FP), R11
	MOVQ f2+48(FP), R12
	MOVQ n+56(FP), CX
	XORQ AX, AX
	SHRQ $3, CX
	JZ   dw3done

dw3loop:
	// d += ((s0*f0 + s1*f1) + s2*f2)
	VMOVUPS (SI)(AX*4), Y0
	VMULPS  (R10)(AX*4), Y0, Y0
	VMOVUPS (R8)(AX*4), Y1
	VMULPS  (R11)(AX*4), Y1, Y1
	VADDPS  Y1, Y0, Y0
	VMOVUPS (R9)(AX*4), Y1
	VMULPS  (R12)(AX*4), Y1, Y1
	VADDPS  Y1, Y0, Y0
	VADDPS  (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	DECQ    CX
	JNZ     dw3loop

dw3done:
	VZEROUPPER
	RET
