//go:build !amd64 || purego

package tfjs

// asmKernel returns nil: no assembly kernel for this platform (or the
// purego build tag is set), so every product runs the Go kernel.
func asmKernel() *microKernel { return nil }
