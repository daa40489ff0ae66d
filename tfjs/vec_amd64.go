//go:build amd64 && !purego

package tfjs

// Vector loops over channels in AVX (vec_amd64.s), used by the element-wise
// operations where the detector spends its time once the matrix products
// are fast. Each computes exactly what the Go loop it replaces computes
// (the same operations in the same order, no fused multiply-add), on the
// first n&^7 elements; the caller does the rest in Go.

// vecAsm reports whether the vector loops may be used.
func vecAsm() bool { return useAsm && haveAVX2FMA }

// max4Asm sets d[i] to the maximum of a[i], b[i], e[i], f[i] (in that
// order, as maxPool2 compares), for i < n&^7.
//
//go:noescape
func max4Asm(d, a, b, e, f *float32, n int)

// leakyAsm applies face-api's leaky ReLU to v[i], i < n&^7.
//
//go:noescape
func leakyAsm(v *float32, n int)

// dw3Asm does d[i] += s0[i]*f0[i] + s1[i]*f1[i] + s2[i]*f2[i], i < n&^7.
//
//go:noescape
func dw3Asm(d, s0, s1, s2, f0, f1, f2 *float32, n int)

// The wrappers check the lengths and return how many elements they did.

func max4Vec(d, a, b, e, f []float32) int {
	n := len(d) &^ 7
	if n == 0 || !vecAsm() {
		return 0
	}
	_, _, _, _ = a[n-1], b[n-1], e[n-1], f[n-1]
	max4Asm(&d[0], &a[0], &b[0], &e[0], &f[0], n)
	return n
}

func leakyVec(v []float32) int {
	n := len(v) &^ 7
	if n == 0 || !vecAsm() {
		return 0
	}
	leakyAsm(&v[0], n)
	return n
}

func dw3Vec(d, s0, s1, s2, f0, f1, f2 []float32) int {
	n := len(d) &^ 7
	if n == 0 || !vecAsm() {
		return 0
	}
	_, _, _, _, _, _ = s0[n-1], s1[n-1], s2[n-1], f0[n-1], f1[n-1], f2[n-1]
	dw3Asm(&d[0], &s0[0], &s1[0], &s2[0], &f0[0], &f1[0], &f2[0], n)
	return n
}
