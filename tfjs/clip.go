package tfjs

import "fmt"

// ChannelAffineClip computes, in place on a feature map whose last
// dimension has C channels, v = min(max(v*scale[c] + offset[c], lo), hi)
// for every value v of channel c, and returns t. A nil scale multiplies by
// one (v + offset[c]: a bias), a nil offset adds nothing. With lo = 0 and
// hi = 6 it is TensorFlow's clipByValue(…, 0, 6) (ReLU6) after a bias or
// a batch normalisation folded into a per-channel scale and offset, as
// MobileNet uses them.
func ChannelAffineClip(t *Tensor, scale, offset []float32, lo, hi float32) *Tensor {
	if len(t.Shape) == 0 {
		panic("tfjs: affine clip of a scalar")
	}
	c := t.Shape[len(t.Shape)-1]
	if (scale != nil && len(scale) != c) || (offset != nil && len(offset) != c) {
		panic(fmt.Sprintf("tfjs: affine clip of shape %v with %d scales and %d offsets", t.Shape, len(scale), len(offset)))
	}
	if c == 0 {
		return t
	}
	parallelRows(len(t.Data)/c, func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			row := t.Data[r*c : (r+1)*c : (r+1)*c]
			switch {
			case scale != nil && offset != nil:
				s, o := scale[:len(row)], offset[:len(row)]
				for i, v := range row {
					row[i] = clamp(v*s[i]+o[i], lo, hi)
				}
			case offset != nil:
				o := offset[:len(row)]
				for i, v := range row {
					row[i] = clamp(v+o[i], lo, hi)
				}
			case scale != nil:
				s := scale[:len(row)]
				for i, v := range row {
					row[i] = clamp(v*s[i], lo, hi)
				}
			default:
				for i, v := range row {
					row[i] = clamp(v, lo, hi)
				}
			}
		}
	})
	return t
}

// clamp is min(max(v, lo), hi). The lower bound (ReLU's, about half the
// values) uses the max built-in, which compiles without a branch; the
// upper bound (6 for ReLU6) is rarely reached, so a predictable branch is
// cheaper than the built-in's NaN and signed-zero handling.
func clamp(v, lo, hi float32) float32 {
	v = max(v, lo)
	if v > hi {
		v = hi
	}
	return v
}
