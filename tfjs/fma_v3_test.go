//go:build amd64.v3

package tfjs

// goFusesMulAdd: built with GOAMD64=v3, Go compiles a*b + c to one fused
// multiply-add, so Go loops round differently from the vector loops.
const goFusesMulAdd = true
