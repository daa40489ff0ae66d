package tfjs

import (
	"encoding/json"
	"math"
	"testing"
)

// moreGraph is gGraph through NewGraphMore.
func moreGraph(t *testing.T, consts map[string]*Tensor, nodes ...gNode) (*Graph, error) {
	t.Helper()
	w := Weights{}
	var all []gNode
	for name, v := range consts {
		all = append(all, gConst(name, v))
		w[name] = v
	}
	all = append(all, nodes...)
	raw, err := json.Marshal(map[string]any{"node": all, "library": map[string]any{}, "versions": map[string]any{"producer": 1}})
	if err != nil {
		t.Fatal(err)
	}
	return NewGraphMore(raw, w)
}

func TestMoreOpsChain(t *testing.T) {
	f := gType("DT_FLOAT")
	g, err := moreGraph(t, map[string]*Tensor{
		"pads": FromData([]float32{0, 0, 1, 0, 0, 1, 0, 0}, 4, 2),
		"two":  FromData([]float32{2}, 1),
		"axes": FromData([]float32{1, 2}, 2),
	},
		gPlaceholder("x", -1, 2, 2, 1),
		gNode{"name": "pad", "op": "Pad", "input": []string{"x", "pads"}, "attr": map[string]any{"T": f, "Tpaddings": gType("DT_INT32")}},
		gNode{"name": "sub", "op": "Sub", "input": []string{"pad", "two"}, "attr": map[string]any{"T": f}},
		gNode{"name": "abs", "op": "Abs", "input": []string{"sub"}, "attr": map[string]any{"T": f}},
		gNode{"name": "sq", "op": "Square", "input": []string{"abs"}, "attr": map[string]any{"T": f}},
		gNode{"name": "sum", "op": "Sum", "input": []string{"sq", "axes"}, "attr": map[string]any{"T": f, "Tidx": gType("DT_INT32"), "keep_dims": gBool(true)}},
		gNode{"name": "rsqrt", "op": "Rsqrt", "input": []string{"sum"}, "attr": map[string]any{"T": f}},
		gNode{"name": "squeeze", "op": "Squeeze", "input": []string{"rsqrt"}, "attr": map[string]any{"T": f, "squeeze_dims": gInts(1, 2)}},
		// x − |x| with two tensor inputs: 2·min(x, 0).
		gNode{"name": "prelu", "op": "Sub", "input": []string{"sub", "abs"}, "attr": map[string]any{"T": f}},
	)
	if err != nil {
		t.Fatal(err)
	}
	x := FromData(seq(4), 1, 2, 2, 1) // 1 2 / 3 4
	outs, err := g.ExecuteNodes(map[string]*Tensor{"x": x}, "pad", "sub", "abs", "sq", "sum", "squeeze", "prelu")
	if err != nil {
		t.Fatal(err)
	}
	wantTensor(t, "Pad", outs[0], []int{1, 3, 3, 1}, []float32{0, 0, 0, 1, 2, 0, 3, 4, 0}, 0)
	wantTensor(t, "Sub", outs[1], []int{1, 3, 3, 1}, []float32{-2, -2, -2, -1, 0, -2, 1, 2, -2}, 0)
	wantTensor(t, "Abs", outs[2], []int{1, 3, 3, 1}, []float32{2, 2, 2, 1, 0, 2, 1, 2, 2}, 0)
	wantTensor(t, "Square", outs[3], []int{1, 3, 3, 1}, []float32{4, 4, 4, 1, 0, 4, 1, 4, 4}, 0)
	wantTensor(t, "Sum", outs[4], []int{1, 1, 1, 1}, []float32{26}, 0)
	wantTensor(t, "Rsqrt+Squeeze", outs[5], []int{1, 1}, []float32{float32(1 / math.Sqrt(26))}, 1e-7)
	wantTensor(t, "Sub of tensors", outs[6], []int{1, 3, 3, 1}, []float32{-4, -4, -4, -2, 0, -4, 0, 0, -4}, 0)
}

func TestMoreOpsMatMulAndFusedDepthwise(t *testing.T) {
	f := gType("DT_FLOAT")
	g, err := moreGraph(t, map[string]*Tensor{"m": FromData(seq(6), 2, 3)},
		gPlaceholder("x", -1, 2),
		gNode{"name": "y", "op": "MatMul", "input": []string{"x", "m"}, "attr": map[string]any{"T": f, "transpose_a": gBool(false), "transpose_b": gBool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	// [1 2] · [1 2 3; 4 5 6]
	wantTensor(t, "MatMul", mustRun(t, g, FromData([]float32{1, 2}, 1, 2)), []int{1, 3}, []float32{9, 12, 15}, 0)

	ones := New(3, 3, 1, 1)
	for i := range ones.Data {
		ones.Data[i] = 1
	}
	g, err = moreGraph(t, map[string]*Tensor{"f": ones, "b": FromData([]float32{-40}, 1)},
		gPlaceholder("x", -1, 3, 3, 1),
		gNode{"name": "y", "op": "FusedDepthwiseConv2dNative", "input": []string{"x", "f", "b"}, "attr": map[string]any{
			"T": f, "strides": gInts(1, 1, 1, 1), "padding": gStr("SAME"), "data_format": gStr("NHWC"),
			"dilations": gInts(1, 1, 1, 1), "fused_ops": gStrs("BiasAdd", "Relu"), "num_args": gInt(1)}})
	if err != nil {
		t.Fatal(err)
	}
	// Neighbourhood sums of 1…9 (12 21 16 / 27 45 33 / 24 39 28) − 40, ReLU.
	wantTensor(t, "FusedDepthwise", mustRun(t, g, FromData(seq(9), 1, 3, 3, 1)), []int{1, 3, 3, 1}, []float32{0, 0, 0, 0, 5, 0, 0, 0, 0}, 0)
}

func TestMoreOpsRejects(t *testing.T) {
	f := gType("DT_FLOAT")
	// Padding the batch dimension is not supported.
	if _, err := moreGraph(t, map[string]*Tensor{"pads": FromData([]float32{1, 0, 0, 0, 0, 0, 0, 0}, 4, 2)},
		gPlaceholder("x", -1, 2, 2, 1),
		gNode{"name": "y", "op": "Pad", "input": []string{"x", "pads"}, "attr": map[string]any{"T": f}}); err == nil {
		t.Error("batch padding accepted")
	}
	// MatMul needs a constant right operand.
	if _, err := moreGraph(t, nil, gPlaceholder("x", -1, 2), gPlaceholder("z", 2, 2),
		gNode{"name": "y", "op": "MatMul", "input": []string{"x", "z"}, "attr": map[string]any{"T": f}}); err == nil {
		t.Error("MatMul of two tensors accepted")
	}
}
