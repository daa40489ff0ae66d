package tfjs

import (
	"fmt"
	"math"
	"sync"
)

// Pad is explicit zero padding of a feature map's height and width.
type Pad struct{ Top, Bottom, Left, Right int }

// Padding is TensorFlow's padding mode for convolution and pooling.
type Padding int

const (
	// Valid uses no padding: the window stays inside the input.
	Valid Padding = iota
	// Same pads so the output size is ceil(input/stride), putting the odd
	// pixel of the total at the bottom and right, as TensorFlow does.
	Same
)

// padFor returns the explicit padding of a mode, and the output size.
func padFor(mode Padding, inH, inW, kH, kW, stride int) (Pad, int, int) {
	if mode == Valid {
		return Pad{}, (inH-kH)/stride + 1, (inW-kW)/stride + 1
	}
	outH := (inH + stride - 1) / stride
	outW := (inW + stride - 1) / stride
	ph := max(0, (outH-1)*stride+kH-inH)
	pw := max(0, (outW-1)*stride+kW-inW)
	return Pad{Top: ph / 2, Bottom: ph - ph/2, Left: pw / 2, Right: pw - pw/2}, outH, outW
}

// Activation is applied after a convolution's bias and scale.
type Activation int

const (
	// Linear applies nothing.
	Linear Activation = iota
	// ReLU is max(x, 0).
	ReLU
	// Leaky is face-api's leaky ReLU with slope 0.1, computed as it does:
	// relu(x - 0.1x) + 0.1x.
	Leaky
)

// leakySlope is 0.1 rounded to float32, the constant face-api multiplies by.
const leakySlope float32 = 0.10000000149011612

// Conv2D is a convolution whose filter has been packed for the matrix
// kernel, with an optional epilogue applied to every output channel c:
// out = act((conv + Bias[c]) * Scale[c] + Offset[c]) (nil slices are
// skipped). Set the fields before the first Apply; after that a Conv2D is
// safe for concurrent use.
type Conv2D struct {
	KH, KW, Cin, Cout int
	Stride            int
	Bias              []float32
	Scale             []float32
	Offset            []float32
	Act               Activation

	filter   *Tensor
	packOnce sync.Once
	w        packedB
	winoOnce sync.Once
	wino     *winogradFilter
}

// UseWinograd selects Winograd F(4×4, 3×3) for 3×3 stride-1 convolutions
// with outputs of at least 3×3 (up to 4× fewer multiplications; 2.6× over
// the whole recognition net). It is on by default; turning it off (before
// running any network) gives the plain im2col path, for comparison.
var UseWinograd = true

// NewConv2D prepares a convolution with a [KH, KW, Cin, Cout] filter (the
// TensorFlow layout).
func NewConv2D(filter *Tensor, stride int) (*Conv2D, error) {
	if len(filter.Shape) != 4 {
		return nil, fmt.Errorf("tfjs: conv2d filter has shape %v, want [kh, kw, cin, cout]", filter.Shape)
	}
	if stride < 1 {
		return nil, fmt.Errorf("tfjs: conv2d stride %d", stride)
	}
	kh, kw, cin, cout := filter.Shape[0], filter.Shape[1], filter.Shape[2], filter.Shape[3]
	// The packed forms are made on first use: a layer normally always
	// takes the same path, and the Winograd form is 4× the filter's size.
	return &Conv2D{KH: kh, KW: kw, Cin: cin, Cout: cout, Stride: stride, filter: filter}, nil
}

// Apply runs the convolution on a [H, W, Cin] feature map.
func (c *Conv2D) Apply(x *Tensor, mode Padding) *Tensor {
	h, w, cin := x.HWC()
	if cin != c.Cin {
		panic(fmt.Sprintf("tfjs: conv2d with %d input channels applied to shape %v", c.Cin, x.Shape))
	}
	pad, oh, ow := padFor(mode, h, w, c.KH, c.KW, c.Stride)
	if oh <= 0 || ow <= 0 {
		panic(fmt.Sprintf("tfjs: conv2d %dx%d stride %d on %v leaves nothing", c.KH, c.KW, c.Stride, x.Shape))
	}
	if UseWinograd && c.KH == 3 && c.KW == 3 && c.Stride == 1 && oh >= 3 && ow >= 3 {
		c.winoOnce.Do(func() { c.wino = newWinogradFilter(c.filter) })
		var post func([]float32)
		if c.hasEpilogue() {
			post = c.post
		}
		return c.wino.apply(x, pad, oh, ow, post)
	}
	c.packOnce.Do(func() { c.w = packB(c.filter.Data, c.KH*c.KW*c.Cin, c.Cout) })
	var a packedA
	if c.KH == 1 && c.KW == 1 && c.Stride == 1 && pad == (Pad{}) {
		a = packA(x.Data, h*w, cin)
	} else {
		a = im2col(x, c.KH, c.KW, c.Stride, pad, oh, ow)
	}
	out := New(oh, ow, c.Cout)
	gemm(a, c.w, out.Data)
	c.epilogue(out.Data)
	return out
}

func (c *Conv2D) hasEpilogue() bool {
	return c.Bias != nil || c.Scale != nil || c.Offset != nil || c.Act != Linear
}

func (c *Conv2D) epilogue(data []float32) {
	if !c.hasEpilogue() {
		return
	}
	n := c.Cout
	parallelRows(len(data)/n, func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			c.post(data[r*n : (r+1)*n])
		}
	})
}

// post applies the epilogue to one output pixel's channels, in one pass.
func (c *Conv2D) post(row []float32) {
	n := len(row)
	switch {
	case c.Bias != nil && c.Scale != nil && c.Offset != nil:
		b, s, o := c.Bias[:n], c.Scale[:n], c.Offset[:n]
		for i, v := range row {
			row[i] = (v+b[i])*s[i] + o[i]
		}
	case c.Bias != nil && c.Scale == nil && c.Offset == nil:
		b := c.Bias[:n]
		for i, v := range row {
			row[i] = v + b[i]
		}
	default:
		if c.Bias != nil {
			b := c.Bias[:n]
			for i := range row {
				row[i] += b[i]
			}
		}
		if c.Scale != nil {
			s := c.Scale[:n]
			for i := range row {
				row[i] *= s[i]
			}
		}
		if c.Offset != nil {
			o := c.Offset[:n]
			for i := range row {
				row[i] += o[i]
			}
		}
	}
	activate(row, c.Act)
}

func activate(v []float32, act Activation) {
	switch act {
	case ReLU:
		for i, x := range v {
			v[i] = max(x, 0)
		}
	case Leaky:
		for i := leakyVec(v); i < len(v); i++ {
			x := v[i]
			m := x * leakySlope
			v[i] = max(x-m, 0) + m
		}
	}
}

// im2col packs the convolution patches of x: row p (output pixel) holds
// the KH×KW×Cin window in filter order, with zeros for the padding.
func im2col(x *Tensor, kh, kw, stride int, pad Pad, oh, ow int) packedA {
	h, w, cin := x.HWC()
	k := kh * kw * cin
	a := newPackedA(oh*ow, k)
	mr := a.mr
	parallelRows(oh, func(y0, y1 int) {
		for oy := y0; oy < y1; oy++ {
			for ox := 0; ox < ow; ox++ {
				p := oy*ow + ox
				dst := a.data[(p/mr)*k*mr:]
				lane := p % mr
				for ky := 0; ky < kh; ky++ {
					iy := oy*stride - pad.Top + ky
					for kx := 0; kx < kw; kx++ {
						ix := ox*stride - pad.Left + kx
						base := ((ky*kw + kx) * cin) * mr
						if iy < 0 || iy >= h || ix < 0 || ix >= w {
							continue // packed data starts zeroed
						}
						src := x.Data[(iy*w+ix)*cin : (iy*w+ix+1)*cin]
						d := dst[base : base+cin*mr]
						for ci, v := range src {
							d[ci*mr+lane] = v
						}
					}
				}
			}
		}
	})
	return a
}

// parallelRows calls f on contiguous ranges of [0, n) from several
// goroutines when n is large enough to be worth it.
func parallelRows(n int, f func(r0, r1 int)) {
	parallelRowsN(n, threads(), f)
}

// parallelRowsN is parallelRows with at most workers goroutines.
func parallelRowsN(n, workers int, f func(r0, r1 int)) {
	workers = min(workers, n)
	if workers <= 1 || n < 8 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		r0, r1 := n*i/workers, n*(i+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(r0, r1)
		}()
	}
	wg.Wait()
}

// DepthwiseConv2D convolves each channel of x [H, W, C] with its own
// KH×KW filter; filter has shape [KH, KW, C, 1] (channel multiplier 1).
func DepthwiseConv2D(x, filter *Tensor, stride int, mode Padding) *Tensor {
	h, w, c := x.HWC()
	if len(filter.Shape) != 4 || filter.Shape[2] != c || filter.Shape[3] != 1 {
		panic(fmt.Sprintf("tfjs: depthwise filter %v for input %v (want [kh, kw, %d, 1])", filter.Shape, x.Shape, c))
	}
	kh, kw := filter.Shape[0], filter.Shape[1]
	pad, oh, ow := padFor(mode, h, w, kh, kw, stride)
	out := New(oh, ow, c)
	if kh == 3 && kw == 3 && stride == 1 && pad.Left == 1 && ow == w {
		depthwise3x3(x, filter, pad.Top, out)
		return out
	}
	parallelRows(oh, func(y0, y1 int) {
		for oy := y0; oy < y1; oy++ {
			for ox := 0; ox < ow; ox++ {
				dst := out.Data[(oy*ow+ox)*c : (oy*ow+ox+1)*c : (oy*ow+ox+1)*c]
				for ky := 0; ky < kh; ky++ {
					iy := oy*stride - pad.Top + ky
					if iy < 0 || iy >= h {
						continue
					}
					for kx := 0; kx < kw; kx++ {
						ix := ox*stride - pad.Left + kx
						if ix < 0 || ix >= w {
							continue
						}
						src := x.Data[(iy*w+ix)*c : (iy*w+ix+1)*c : (iy*w+ix+1)*c]
						f := filter.Data[(ky*kw+kx)*c : (ky*kw+kx+1)*c : (ky*kw+kx+1)*c]
						for i := range dst {
							dst[i] += src[i] * f[i]
						}
					}
				}
			}
		}
	})
	return out
}

// depthwise3x3 is DepthwiseConv2D for 3×3 filters, stride 1 and one
// column of padding on each side: the three taps of a filter row are
// applied in one pass over the channels.
func depthwise3x3(x, filter *Tensor, padTop int, out *Tensor) {
	h, w, c := x.HWC()
	oh := out.Shape[0]
	zero := make([]float32, c)
	parallelRows(oh, func(y0, y1 int) {
		for oy := y0; oy < y1; oy++ {
			dst := out.Data[oy*w*c : (oy+1)*w*c]
			for ky := 0; ky < 3; ky++ {
				iy := oy - padTop + ky
				if iy < 0 || iy >= h {
					continue
				}
				src := x.Data[iy*w*c : (iy+1)*w*c]
				f0 := filter.Data[(ky*3)*c : (ky*3+1)*c]
				f1 := filter.Data[(ky*3+1)*c : (ky*3+2)*c]
				f2 := filter.Data[(ky*3+2)*c : (ky*3+3)*c]
				for ox := 0; ox < w; ox++ {
					d := dst[ox*c : (ox+1)*c]
					s1 := src[ox*c : (ox+1)*c]
					s0, s2 := zero, zero
					if ox > 0 {
						s0 = src[(ox-1)*c : ox*c]
					}
					if ox < w-1 {
						s2 = src[(ox+1)*c : (ox+2)*c]
					}
					s0, s1, s2 = s0[:len(d)], s1[:len(d)], s2[:len(d)]
					f0, f1, f2 := f0[:len(d)], f1[:len(d)], f2[:len(d)]
					for i := dw3Vec(d, s0, s1, s2, f0, f1, f2); i < len(d); i++ {
						d[i] += s0[i]*f0[i] + s1[i]*f1[i] + s2[i]*f2[i]
					}
				}
			}
		}
	})
}

// MaxPool takes the maximum over k×k windows; padded positions are
// ignored, as in TensorFlow.
func MaxPool(x *Tensor, k, stride int, mode Padding) *Tensor {
	return pool(x, k, stride, mode, true)
}

// AvgPool averages over k×k windows; padded positions are not counted, as
// in TensorFlow.
func AvgPool(x *Tensor, k, stride int, mode Padding) *Tensor {
	return pool(x, k, stride, mode, false)
}

func pool(x *Tensor, k, stride int, mode Padding, isMax bool) *Tensor {
	h, w, c := x.HWC()
	pad, oh, ow := padFor(mode, h, w, k, k, stride)
	out := New(oh, ow, c)
	if isMax && k == 2 && pad.Top == 0 && pad.Left == 0 {
		maxPool2(x, stride, out)
		return out
	}
	parallelRows(oh, func(y0, y1 int) {
		for oy := y0; oy < y1; oy++ {
			for ox := 0; ox < ow; ox++ {
				dst := out.Data[(oy*ow+ox)*c : (oy*ow+ox+1)*c : (oy*ow+ox+1)*c]
				n := 0
				for ky := 0; ky < k; ky++ {
					iy := oy*stride - pad.Top + ky
					if iy < 0 || iy >= h {
						continue
					}
					for kx := 0; kx < k; kx++ {
						ix := ox*stride - pad.Left + kx
						if ix < 0 || ix >= w {
							continue
						}
						src := x.Data[(iy*w+ix)*c : (iy*w+ix+1)*c : (iy*w+ix+1)*c]
						switch {
						case n == 0:
							copy(dst, src)
						case isMax:
							for i, v := range src {
								if v > dst[i] {
									dst[i] = v
								}
							}
						default:
							for i, v := range src {
								dst[i] += v
							}
						}
						n++
					}
				}
				if !isMax && n > 1 {
					inv := 1 / float32(n)
					for i := range dst {
						dst[i] *= inv
					}
				}
			}
		}
	})
	return out
}

// maxPool2 is MaxPool with a 2×2 window and no padding before the first
// row and column (padding after the last is ignored).
func maxPool2(x *Tensor, stride int, out *Tensor) {
	h, w, c := x.HWC()
	oh, ow, _ := out.HWC()
	parallelRows(oh, func(y0, y1 int) {
		for oy := y0; oy < y1; oy++ {
			iy0 := oy * stride
			iy1 := min(iy0+1, h-1)
			r0 := x.Data[iy0*w*c : (iy0+1)*w*c]
			r1 := x.Data[iy1*w*c : (iy1+1)*w*c]
			for ox := 0; ox < ow; ox++ {
				ix0 := ox * stride
				ix1 := min(ix0+1, w-1)
				d := out.Data[(oy*ow+ox)*c : (oy*ow+ox+1)*c]
				a, b := r0[ix0*c:(ix0+1)*c], r0[ix1*c:(ix1+1)*c]
				e, f := r1[ix0*c:(ix0+1)*c], r1[ix1*c:(ix1+1)*c]
				a, b, e, f = a[:len(d)], b[:len(d)], e[:len(d)], f[:len(d)]
				for i := max4Vec(d, a, b, e, f); i < len(d); i++ {
					m := a[i]
					if b[i] > m {
						m = b[i]
					}
					if e[i] > m {
						m = e[i]
					}
					if f[i] > m {
						m = f[i]
					}
					d[i] = m
				}
			}
		}
	})
}

// PadHWC pads a feature map with zeros: rows at the top and bottom,
// columns at the left and right, and channels at the end.
func PadHWC(x *Tensor, p Pad, extraChannels int) *Tensor {
	h, w, c := x.HWC()
	oh, ow, oc := h+p.Top+p.Bottom, w+p.Left+p.Right, c+extraChannels
	out := New(oh, ow, oc)
	for y := 0; y < h; y++ {
		for xx := 0; xx < w; xx++ {
			copy(out.Data[((y+p.Top)*ow+xx+p.Left)*oc:], x.Data[(y*w+xx)*c:(y*w+xx+1)*c])
		}
	}
	return out
}

// Add returns a + b for tensors of equal shape.
func Add(a, b *Tensor) *Tensor {
	if len(a.Data) != len(b.Data) {
		panic(fmt.Sprintf("tfjs: add %v and %v", a.Shape, b.Shape))
	}
	out := &Tensor{Shape: append([]int(nil), a.Shape...), Data: make([]float32, len(a.Data))}
	bd := b.Data[:len(a.Data)]
	for i, v := range a.Data {
		out.Data[i] = v + bd[i]
	}
	return out
}

// Activate applies act to t in place and returns t.
func Activate(t *Tensor, act Activation) *Tensor {
	activate(t.Data, act)
	return t
}

// MeanHW averages a feature map over height and width: [H, W, C] → [C].
func MeanHW(x *Tensor) *Tensor {
	h, w, c := x.HWC()
	sum := make([]float64, c)
	for p := 0; p < h*w; p++ {
		for i, v := range x.Data[p*c : (p+1)*c] {
			sum[i] += float64(v)
		}
	}
	out := New(c)
	for i, s := range sum {
		out.Data[i] = float32(s / float64(h*w))
	}
	return out
}

// VecMat multiplies the vector v [K] by the matrix m [K, N].
func VecMat(v, m *Tensor) *Tensor {
	if len(m.Shape) != 2 || m.Shape[0] != len(v.Data) {
		panic(fmt.Sprintf("tfjs: matmul %v by %v", v.Shape, m.Shape))
	}
	k, n := m.Shape[0], m.Shape[1]
	out := New(n)
	for i := 0; i < k; i++ {
		a := v.Data[i]
		row := m.Data[i*n : (i+1)*n]
		for j, b := range row {
			out.Data[j] += a * b
		}
	}
	return out
}

// ResizeBilinear resizes a [H, W, C] image to [outH, outW, C] the way
// TensorFlow.js's resizeBilinear does with alignCorners and
// halfPixelCenters false (XNNPACK's TensorFlow legacy mode): source
// coordinate = destination coordinate × (in/out), no half-pixel offset.
func ResizeBilinear(x *Tensor, outH, outW int) *Tensor {
	return ResizePaddedBilinear(x, Pad{}, outH, outW)
}

// ResizePaddedBilinear is ResizeBilinear of x padded with zeros by p,
// without building the padded image.
func ResizePaddedBilinear(x *Tensor, p Pad, outH, outW int) *Tensor {
	h, w, c := x.HWC()
	ph, pw := h+p.Top+p.Bottom, w+p.Left+p.Right
	out := New(outH, outW, c)
	type tap struct {
		i0, i1 int // source rows/columns in x, -1 in the padding
		a      float32
	}
	taps := func(n, in, before, inner int) []tap {
		s := float32(in) / float32(n)
		t := make([]tap, n)
		for o := range t {
			f := float32(o) * s
			i0 := int(float32(math.Floor(float64(f))))
			i1 := min(i0+1, in-1)
			t[o] = tap{i0 - before, i1 - before, f - float32(i0)}
			if t[o].i0 < 0 || t[o].i0 >= inner {
				t[o].i0 = -1
			}
			if t[o].i1 < 0 || t[o].i1 >= inner {
				t[o].i1 = -1
			}
		}
		return t
	}
	ty, tx := taps(outH, ph, p.Top, h), taps(outW, pw, p.Left, w)
	zero := make([]float32, c)
	px := func(y, xx int) []float32 {
		if y < 0 || xx < 0 {
			return zero
		}
		return x.Data[(y*w+xx)*c : (y*w+xx+1)*c]
	}
	parallelRows(outH, func(y0, y1 int) {
		for oy := y0; oy < y1; oy++ {
			y := ty[oy]
			for ox, xx := range tx {
				dst := out.Data[(oy*outW+ox)*c : (oy*outW+ox+1)*c]
				tl, tr := px(y.i0, xx.i0)[:len(dst)], px(y.i0, xx.i1)[:len(dst)]
				bl, br := px(y.i1, xx.i0)[:len(dst)], px(y.i1, xx.i1)[:len(dst)]
				for i := range dst {
					t := tl[i] + (tr[i]-tl[i])*xx.a
					b := bl[i] + (br[i]-bl[i])*xx.a
					dst[i] = t + (b-t)*y.a
				}
			}
		}
	})
	return out
}
