//go:build !amd64 || purego

package tfjs

// No vector loops on this platform: the callers do everything in Go.

func max4Vec(d, a, b, e, f []float32) int            { return 0 }
func leakyVec(v []float32) int                       { return 0 }
func dw3Vec(d, s0, s1, s2, f0, f1, f2 []float32) int { return 0 }
