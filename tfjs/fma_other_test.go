//go:build !amd64.v3

package tfjs

// goFusesMulAdd: see fma_v3_test.go. (Elsewhere the vector loops are
// amd64-only, so both sides of a comparison run the same Go code.)
const goFusesMulAdd = false
