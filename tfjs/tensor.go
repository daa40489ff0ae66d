// Package tfjs loads TensorFlow.js weight files and runs the operations of
// small convolutional networks in pure Go (no cgo, no assembly).
//
// It reads the weights manifest format TensorFlow.js writes (a JSON list of
// weight groups, each naming its binary shards and the name, shape, dtype and
// optional quantization of every weight), whether it stands alone (as in
// @vladmandic/face-api's *-weights_manifest.json files) or inside a
// model.json under "weightsManifest" (graph and layers models). Quantized
// weights (uint8 and uint16 affine, float16) are dequantized to float32
// exactly as tfjs-core's io.decodeWeights does, so the values are
// bit-identical to what the JavaScript reference computes with.
//
// The operations (Conv2D, DepthwiseConv2D, pooling, padding, elementwise
// arithmetic, MatMul, bilinear resizing) work on single images in NHWC
// layout with the batch dimension left out: a feature map is a Tensor of
// shape [height, width, channels]. Padding, rounding and resizing follow
// TensorFlow.js semantics (e.g. "same" padding puts the odd pixel at the
// bottom and right). The networks built from these operations live in
// package tfjs/faceapi.
package tfjs

import (
	"fmt"
	"math"
	"runtime"
)

// Tensor is a dense float32 tensor in row-major order.
type Tensor struct {
	Shape []int
	Data  []float32
}

// New returns a zero tensor of the given shape.
func New(shape ...int) *Tensor {
	return &Tensor{Shape: append([]int(nil), shape...), Data: make([]float32, size(shape))}
}

// FromData wraps data as a tensor of the given shape; it panics when the
// sizes disagree.
func FromData(data []float32, shape ...int) *Tensor {
	if len(data) != size(shape) {
		panic(fmt.Sprintf("tfjs: %d values for shape %v", len(data), shape))
	}
	return &Tensor{Shape: append([]int(nil), shape...), Data: data}
}

// Size is the number of elements.
func (t *Tensor) Size() int { return len(t.Data) }

// Clone returns a deep copy.
func (t *Tensor) Clone() *Tensor {
	return &Tensor{Shape: append([]int(nil), t.Shape...), Data: append([]float32(nil), t.Data...)}
}

// Reshape returns a tensor sharing t's data with a new shape.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	if size(shape) != len(t.Data) {
		panic(fmt.Sprintf("tfjs: cannot reshape %v to %v", t.Shape, shape))
	}
	return &Tensor{Shape: append([]int(nil), shape...), Data: t.Data}
}

// HWC returns the height, width and channels of a rank-3 feature map.
func (t *Tensor) HWC() (h, w, c int) {
	if len(t.Shape) != 3 {
		panic(fmt.Sprintf("tfjs: want a [height, width, channels] tensor, have shape %v", t.Shape))
	}
	return t.Shape[0], t.Shape[1], t.Shape[2]
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			panic(fmt.Sprintf("tfjs: negative dimension in %v", shape))
		}
		n *= d
	}
	return n
}

// Threads is how many goroutines one operation may use; 0 (the default)
// means runtime.GOMAXPROCS(0). Set it (once, before running networks) to 1
// when many images are processed concurrently, each on its own goroutine.
var Threads int

func threads() int {
	if Threads > 0 {
		return Threads
	}
	return runtime.GOMAXPROCS(0)
}

// WarpSimilarity returns a size×size crop of img (an [H, W, C] tensor):
// output pixel (x, y) samples img bilinearly at
// (a·x − b·y + tx, b·x + a·y + ty), pixel centres at whole coordinates,
// zero outside img. The face pipelines cut aligned face chips with it.
func WarpSimilarity(img *Tensor, a, b, tx, ty float64, size int) *Tensor {
	h, w, c := img.HWC()
	out := New(size, size, c)
	at := func(x, y, ch int) float64 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return float64(img.Data[(y*w+x)*c+ch])
	}
	for oy := 0; oy < size; oy++ {
		for ox := 0; ox < size; ox++ {
			px := a*float64(ox) - b*float64(oy) + tx
			py := b*float64(ox) + a*float64(oy) + ty
			x0, y0 := math.Floor(px), math.Floor(py)
			fx, fy := px-x0, py-y0
			ix, iy := int(x0), int(y0)
			for ch := 0; ch < c; ch++ {
				v := (1-fy)*((1-fx)*at(ix, iy, ch)+fx*at(ix+1, iy, ch)) +
					fy*((1-fx)*at(ix, iy+1, ch)+fx*at(ix+1, iy+1, ch))
				out.Data[(oy*size+ox)*c+ch] = float32(v)
			}
		}
	}
	return out
}
