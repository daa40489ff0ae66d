package tfjs

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The graph tests build tiny topologies in the JSON form the TensorFlow.js
// converter writes and check each operation against values worked out by
// hand.

type gNode = map[string]any

func gStr(s string) map[string]any {
	return map[string]any{"s": base64.StdEncoding.EncodeToString([]byte(s))}
}
func gType(t string) map[string]any { return map[string]any{"type": t} }
func gBool(b bool) map[string]any   { return map[string]any{"b": b} }
func gInt(i int) map[string]any     { return map[string]any{"i": strings.TrimSpace(jsonString(i))} }
func gInts(v ...int) map[string]any {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = jsonString(x)
	}
	return map[string]any{"list": map[string]any{"i": s}}
}
func gStrs(v ...string) map[string]any {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = base64.StdEncoding.EncodeToString([]byte(x))
	}
	return map[string]any{"list": map[string]any{"s": s}}
}
func gShape(dims ...int) map[string]any {
	d := make([]map[string]any, len(dims))
	for i, x := range dims {
		d[i] = map[string]any{"size": jsonString(x)}
	}
	return map[string]any{"shape": map[string]any{"dim": d}}
}

func jsonString(i int) string { b, _ := json.Marshal(i); return string(b) }

func gPlaceholder(name string, dims ...int) gNode {
	return gNode{"name": name, "op": "Placeholder", "attr": map[string]any{"dtype": gType("DT_FLOAT"), "shape": gShape(dims...)}}
}

func gConst(name string, t *Tensor) gNode {
	d := make([]map[string]any, len(t.Shape))
	for i, x := range t.Shape {
		d[i] = map[string]any{"size": jsonString(x)}
	}
	return gNode{"name": name, "op": "Const", "attr": map[string]any{
		"dtype": gType("DT_FLOAT"),
		"value": map[string]any{"tensor": map[string]any{"dtype": "DT_FLOAT", "tensorShape": map[string]any{"dim": d}}},
	}}
}

// gGraph builds a graph of the nodes; consts are added as Const nodes
// with their weights.
func gGraph(t *testing.T, consts map[string]*Tensor, nodes ...gNode) (*Graph, error) {
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
	return NewGraph(raw, w)
}

func mustGraph(t *testing.T, consts map[string]*Tensor, nodes ...gNode) *Graph {
	t.Helper()
	g, err := gGraph(t, consts, nodes...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustRun(t *testing.T, g *Graph, x *Tensor) *Tensor {
	t.Helper()
	y, err := g.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

func wantTensor(t *testing.T, what string, got *Tensor, shape []int, data []float32, tol float64) {
	t.Helper()
	if !equalShape(got.Shape, shape) {
		t.Errorf("%s: shape %v, want %v", what, got.Shape, shape)
		return
	}
	for i, v := range data {
		if math.Abs(float64(got.Data[i]-v)) > tol {
			t.Errorf("%s: got %v, want %v", what, got.Data, data)
			return
		}
	}
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// seq returns 1, 2, …, n.
func seq(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i + 1)
	}
	return v
}

func convNode(padding string, stride int, fused []string, inputs ...string) gNode {
	attr := map[string]any{
		"T": gType("DT_FLOAT"), "strides": gInts(1, stride, stride, 1), "padding": gStr(padding),
		"data_format": gStr("NHWC"), "dilations": gInts(1, 1, 1, 1), "explicit_paddings": map[string]any{"list": map[string]any{}},
		"use_cudnn_on_gpu": gBool(true), "fused_ops": gStrs(fused...), "num_args": gInt(len(inputs) - 2),
		"epsilon": map[string]any{"f": 0},
	}
	return gNode{"name": "y", "op": "_FusedConv2D", "input": inputs, "attr": attr}
}

func TestGraphFusedConv2D(t *testing.T) {
	x := FromData(seq(9), 1, 3, 3, 1) // 1 2 3 / 4 5 6 / 7 8 9
	diag := FromData([]float32{1, 0, 0, 1}, 2, 2, 1, 1)
	ones := FromData([]float32{1, 1, 1, 1, 1, 1, 1, 1, 1}, 3, 3, 1, 1)
	cases := []struct {
		name    string
		padding string
		stride  int
		filter  *Tensor
		bias    float32
		fused   []string
		shape   []int
		want    []float32
	}{
		// x[i][j] + x[i+1][j+1], plus the bias.
		{"valid diag bias", "VALID", 1, diag, 0.5, []string{"BiasAdd"}, []int{1, 2, 2, 1}, []float32{6.5, 8.5, 12.5, 14.5}},
		{"valid diag relu", "VALID", 1, diag, -10, []string{"BiasAdd", "Relu"}, []int{1, 2, 2, 1}, []float32{0, 0, 2, 4}},
		// 3×3 neighbourhood sums with zero padding.
		{"same ones", "SAME", 1, ones, 0, []string{"BiasAdd"}, []int{1, 3, 3, 1}, []float32{12, 21, 16, 27, 45, 33, 24, 39, 28}},
		// Stride 2: one row/column of padding on each side, windows
		// centred on the corners.
		{"same stride 2", "SAME", 2, ones, 0, []string{"BiasAdd"}, []int{1, 2, 2, 1}, []float32{12, 16, 24, 28}},
	}
	for _, c := range cases {
		g := mustGraph(t, map[string]*Tensor{"f": c.filter, "b": FromData([]float32{c.bias}, 1)},
			gPlaceholder("x", -1, 3, 3, 1), convNode(c.padding, c.stride, c.fused, "x", "f", "b"))
		// 3×3 stride-1 convolutions take the Winograd path, exact only
		// to rounding.
		wantTensor(t, c.name, mustRun(t, g, x), c.shape, c.want, 1e-4)
	}
	// Two output channels, three input channels: out[k] = Σ_c x[c]·f[c][k].
	f := FromData([]float32{1, 0, 0, 1, 1, 1}, 1, 1, 3, 2)
	g := mustGraph(t, map[string]*Tensor{"f": f, "b": FromData([]float32{0, 100}, 2)},
		gPlaceholder("x", -1, 1, 2, 3), convNode("VALID", 1, []string{"BiasAdd"}, "x", "f", "b"))
	wantTensor(t, "1x1 channels", mustRun(t, g, FromData([]float32{1, 2, 3, 4, 5, 6}, 1, 1, 2, 3)), []int{1, 1, 2, 2}, []float32{4, 105, 10, 111}, 0)
}

func matMulNode(transposeB bool, fused []string, inputs ...string) gNode {
	return gNode{"name": "y", "op": "_FusedMatMul", "input": inputs, "attr": map[string]any{
		"T": gType("DT_FLOAT"), "transpose_a": gBool(false), "transpose_b": gBool(transposeB),
		"fused_ops": gStrs(fused...), "num_args": gInt(len(inputs) - 2), "epsilon": map[string]any{"f": 0},
	}}
}

func TestGraphFusedMatMul(t *testing.T) {
	x := FromData([]float32{1, 2, 3}, 1, 3)
	m := FromData([]float32{1, 0, 0, 1, 1, 1}, 3, 2) // [[1 0] [0 1] [1 1]]
	mT := FromData([]float32{1, 0, 1, 0, 1, 1}, 2, 3)
	b := FromData([]float32{1, -10}, 2)
	// x·m = [4, 5]; + b = [5, -5]; relu = [5, 0].
	g := mustGraph(t, map[string]*Tensor{"m": m, "b": b}, gPlaceholder("x", -1, 3), matMulNode(false, []string{"BiasAdd"}, "x", "m", "b"))
	wantTensor(t, "bias", mustRun(t, g, x), []int{1, 2}, []float32{5, -5}, 0)
	g = mustGraph(t, map[string]*Tensor{"m": m, "b": b}, gPlaceholder("x", -1, 3), matMulNode(false, []string{"BiasAdd", "Relu"}, "x", "m", "b"))
	wantTensor(t, "bias relu", mustRun(t, g, x), []int{1, 2}, []float32{5, 0}, 0)
	g = mustGraph(t, map[string]*Tensor{"m": mT, "b": b}, gPlaceholder("x", -1, 3), matMulNode(true, []string{"BiasAdd"}, "x", "m", "b"))
	wantTensor(t, "transpose_b", mustRun(t, g, x), []int{1, 2}, []float32{5, -5}, 0)
	// Two rows at once.
	g = mustGraph(t, map[string]*Tensor{"m": m, "b": b}, gPlaceholder("x", -1, 3), matMulNode(false, []string{"BiasAdd"}, "x", "m", "b"))
	wantTensor(t, "batch 2", mustRun(t, g, FromData([]float32{1, 2, 3, 0, 0, 1}, 2, 3)), []int{2, 2}, []float32{5, -5, 2, -9}, 0)
}

func TestGraphMaxPool(t *testing.T) {
	pool := func(padding string) gNode {
		return gNode{"name": "y", "op": "MaxPool", "input": []string{"x"}, "attr": map[string]any{
			"T": gType("DT_FLOAT"), "ksize": gInts(1, 2, 2, 1), "strides": gInts(1, 2, 2, 1), "padding": gStr(padding),
			"data_format": gStr("NHWC"), "explicit_paddings": map[string]any{"list": map[string]any{}},
		}}
	}
	g := mustGraph(t, nil, gPlaceholder("x", -1, 4, 4, 1), pool("VALID"))
	wantTensor(t, "valid 4x4", mustRun(t, g, FromData(seq(16), 1, 4, 4, 1)), []int{1, 2, 2, 1}, []float32{6, 8, 14, 16}, 0)
	// 3×3 with SAME: the last row/column are windows of their own.
	g = mustGraph(t, nil, gPlaceholder("x", -1, 3, 3, 1), pool("SAME"))
	wantTensor(t, "same 3x3", mustRun(t, g, FromData(seq(9), 1, 3, 3, 1)), []int{1, 2, 2, 1}, []float32{5, 6, 8, 9}, 0)
	// VALID drops the odd row/column.
	g = mustGraph(t, nil, gPlaceholder("x", -1, 3, 3, 1), pool("VALID"))
	wantTensor(t, "valid 3x3", mustRun(t, g, FromData(seq(9), 1, 3, 3, 1)), []int{1, 1, 1, 1}, []float32{5}, 0)
}

func unary(op string) gNode {
	return gNode{"name": "y", "op": op, "input": []string{"x"}, "attr": map[string]any{"T": gType("DT_FLOAT")}}
}

func TestGraphUnary(t *testing.T) {
	x := FromData([]float32{-2, 0, float32(math.Log(3))}, 1, 3)
	g := mustGraph(t, nil, gPlaceholder("x", -1, 3), unary("Relu"))
	wantTensor(t, "relu", mustRun(t, g, x), []int{1, 3}, []float32{0, 0, float32(math.Log(3))}, 0)
	// sigmoid(-2) = 1/(1+e²); sigmoid(0) = 0.5; sigmoid(ln 3) = 0.75.
	g = mustGraph(t, nil, gPlaceholder("x", -1, 3), unary("Sigmoid"))
	wantTensor(t, "sigmoid", mustRun(t, g, x), []int{1, 3}, []float32{float32(1 / (1 + math.E*math.E)), 0.5, 0.75}, 1e-7)
	// softmax([0, ln 3]) = [1/4, 3/4], per row; a large offset must not
	// overflow.
	g = mustGraph(t, nil, gPlaceholder("x", -1, 2), unary("Softmax"))
	l3 := float32(math.Log(3))
	wantTensor(t, "softmax", mustRun(t, g, FromData([]float32{0, l3, 1000, 1000 + l3}, 2, 2)), []int{2, 2}, []float32{0.25, 0.75, 0.25, 0.75}, 1e-4)
	g = mustGraph(t, nil, gPlaceholder("x", -1, 3), unary("Identity"))
	y := mustRun(t, g, x)
	wantTensor(t, "identity", y, []int{1, 3}, x.Data, 0)
	// No operation writes to its input.
	if x.Data[0] != -2 {
		t.Errorf("input modified: %v", x.Data)
	}
}

func TestGraphReshape(t *testing.T) {
	shape := func(v ...float32) *Tensor { return FromData(v, len(v)) }
	node := gNode{"name": "y", "op": "Reshape", "input": []string{"x", "s"}, "attr": map[string]any{"T": gType("DT_FLOAT"), "Tshape": gType("DT_INT32")}}
	g := mustGraph(t, map[string]*Tensor{"s": shape(-1, 4)}, gPlaceholder("x", -1, 2, 2, 1), node)
	wantTensor(t, "flatten", mustRun(t, g, FromData(seq(4), 1, 2, 2, 1)), []int{1, 4}, seq(4), 0)
	g = mustGraph(t, map[string]*Tensor{"s": shape(3, -1)}, gPlaceholder("x", -1, 2, 2, 1), node)
	if _, err := g.Run(FromData(seq(4), 1, 2, 2, 1)); err == nil || !strings.Contains(err.Error(), "reshape") {
		t.Errorf("reshape of 4 values to [3, -1]: %v", err)
	}
}

func TestGraphBinary(t *testing.T) {
	bin := func(op string) gNode {
		return gNode{"name": "y", "op": op, "input": []string{"x", "c"}, "attr": map[string]any{"T": gType("DT_FLOAT")}}
	}
	x := FromData(seq(8), 1, 2, 2, 2) // channels (1,2) (3,4) (5,6) (7,8)
	// Per-channel scale and offset, as a folded batch normalisation.
	g := mustGraph(t, map[string]*Tensor{"c": FromData([]float32{10, -1}, 2)}, gPlaceholder("x", -1, 2, 2, 2), bin("Mul"))
	wantTensor(t, "mul per channel", mustRun(t, g, x), []int{1, 2, 2, 2}, []float32{10, -2, 30, -4, 50, -6, 70, -8}, 0)
	g = mustGraph(t, map[string]*Tensor{"c": FromData([]float32{0.5, 100}, 2)}, gPlaceholder("x", -1, 2, 2, 2), bin("Add"))
	wantTensor(t, "add per channel", mustRun(t, g, x), []int{1, 2, 2, 2}, []float32{1.5, 102, 3.5, 104, 5.5, 106, 7.5, 108}, 0)
	// Broadcasting along a middle dimension: [1, 2, 1, 1] + x.
	g = mustGraph(t, map[string]*Tensor{"c": FromData([]float32{0, 100}, 1, 2, 1, 1)}, gPlaceholder("x", -1, 2, 2, 2), bin("AddV2"))
	wantTensor(t, "add rows", mustRun(t, g, x), []int{1, 2, 2, 2}, []float32{1, 2, 3, 4, 105, 106, 107, 108}, 0)
	// Same shapes; a scalar.
	g = mustGraph(t, map[string]*Tensor{"c": FromData(seq(8), 1, 2, 2, 2)}, gPlaceholder("x", -1, 2, 2, 2), bin("Mul"))
	wantTensor(t, "mul same shape", mustRun(t, g, x), []int{1, 2, 2, 2}, []float32{1, 4, 9, 16, 25, 36, 49, 64}, 0)
	g = mustGraph(t, map[string]*Tensor{"c": FromData([]float32{2}, 1)}, gPlaceholder("x", -1, 2, 2, 2), bin("Mul"))
	wantTensor(t, "mul scalar", mustRun(t, g, x), []int{1, 2, 2, 2}, []float32{2, 4, 6, 8, 10, 12, 14, 16}, 0)
	// Shapes that do not broadcast.
	g = mustGraph(t, map[string]*Tensor{"c": FromData([]float32{1, 2, 3}, 3)}, gPlaceholder("x", -1, 2, 2, 2), bin("Add"))
	if _, err := g.Run(x); err == nil || !strings.Contains(err.Error(), "broadcast") {
		t.Errorf("add [3] to [1 2 2 2]: %v", err)
	}
}

// TestGraphChain runs a small classifier end to end: conv, pool, flatten,
// dense, softmax, identity, and checks the order of execution does not
// depend on the order of the nodes in the file.
func TestGraphChain(t *testing.T) {
	consts := map[string]*Tensor{
		"f":    FromData([]float32{1}, 1, 1, 1, 1),
		"fb":   FromData([]float32{0}, 1),
		"flat": FromData([]float32{-1, 1}, 2),
		"m":    FromData([]float32{0, 1}, 1, 2),
		"mb":   FromData([]float32{0, 0}, 2),
	}
	nodes := []gNode{
		{"name": "out", "op": "Identity", "input": []string{"sm"}},
		{"name": "sm", "op": "Softmax", "input": []string{"fc"}},
		matMulNode(false, []string{"BiasAdd"}, "r", "m", "mb"),
		{"name": "r", "op": "Reshape", "input": []string{"p", "flat"}},
		{"name": "p", "op": "MaxPool", "input": []string{"c"}, "attr": map[string]any{"ksize": gInts(1, 2, 2, 1), "strides": gInts(1, 2, 2, 1), "padding": gStr("VALID")}},
		convNode("VALID", 1, []string{"BiasAdd", "Relu"}, "x", "f", "fb"),
		gPlaceholder("x", -1, 2, 2, 1),
	}
	nodes[2]["name"] = "fc"
	nodes[5]["name"] = "c"
	g := mustGraph(t, consts, nodes...)
	if in := g.Inputs(); len(in) != 1 || in[0].Name != "x" || !equalShape(in[0].Shape, []int{-1, 2, 2, 1}) {
		t.Errorf("inputs %v", in)
	}
	if out := g.Outputs(); len(out) != 1 || out[0] != "out" {
		t.Errorf("outputs %v", out)
	}
	// max(relu([1 -2 3 0])) = 3 → logits [0, 3] → softmax.
	e3 := math.Exp(3)
	wantTensor(t, "chain", mustRun(t, g, FromData([]float32{1, -2, 3, 0}, 1, 2, 2, 1)), []int{1, 2}, []float32{float32(1 / (1 + e3)), float32(e3 / (1 + e3))}, 1e-6)
	if _, err := g.Run(FromData(seq(9), 1, 3, 3, 1)); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("input of the wrong shape: %v", err)
	}
	if _, err := g.Execute(map[string]*Tensor{"z": FromData(seq(4), 1, 2, 2, 1)}); err == nil {
		t.Error("input under the wrong name accepted")
	}
}

// TestGraphRejects checks that operations and attributes the executor
// does not implement are errors when the graph is built.
func TestGraphRejects(t *testing.T) {
	f := FromData([]float32{1}, 1, 1, 1, 1)
	b := FromData([]float32{0}, 1)
	consts := map[string]*Tensor{"f": f, "b": b}
	withAttr := func(n gNode, k string, v any) gNode {
		attr := map[string]any{}
		for kk, vv := range n["attr"].(map[string]any) {
			attr[kk] = vv
		}
		attr[k] = v
		out := gNode{}
		for kk, vv := range n {
			out[kk] = vv
		}
		out["attr"] = attr
		return out
	}
	conv := convNode("VALID", 1, []string{"BiasAdd"}, "x", "f", "b")
	cases := []struct {
		name string
		node gNode
		want string
	}{
		{"unknown op", gNode{"name": "y", "op": "Conv3D", "input": []string{"x"}}, `unsupported operation "Conv3D"`},
		{"unknown attribute", withAttr(conv, "leakyrelu_alpha", map[string]any{"f": 0.2}), `unsupported attribute "leakyrelu_alpha"`},
		{"dilation", withAttr(conv, "dilations", gInts(1, 2, 2, 1)), "dilation 2"},
		{"NCHW", withAttr(conv, "data_format", gStr("NCHW")), "data_format"},
		{"explicit padding", withAttr(conv, "padding", gStr("EXPLICIT")), "padding"},
		{"unequal strides", withAttr(conv, "strides", gInts(1, 1, 2, 1)), "strides"},
		{"batch norm", withAttr(conv, "fused_ops", gStrs("FusedBatchNorm")), "fused_ops"},
		{"prelu", withAttr(conv, "fused_ops", gStrs("BiasAdd", "Prelu")), "fused_ops"},
		{"float16 T", withAttr(unary("Relu"), "T", gType("DT_HALF")), "DT_HALF"},
		{"second output", gNode{"name": "y", "op": "Relu", "input": []string{"x:1"}}, "output 1"},
		{"missing input", gNode{"name": "y", "op": "Relu", "input": []string{"nope"}}, `"nope" names no node`},
		{"transpose_a", withAttr(matMulNode(false, []string{"BiasAdd"}, "x", "f", "b"), "transpose_a", gBool(true)), "transpose_a"},
		{"non-constant filter", convNode("VALID", 1, []string{"BiasAdd"}, "x", "x", "b"), "must be a constant"},
	}
	for _, c := range cases {
		_, err := gGraph(t, consts, gPlaceholder("x", -1, 1, 1, 1), c.node)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	// A Const whose weight is absent.
	raw, _ := json.Marshal(map[string]any{"node": []gNode{gConst("w", b), gPlaceholder("x", 1), {"name": "y", "op": "Add", "input": []string{"x", "w"}}}})
	if _, err := NewGraph(raw, Weights{}); err == nil || !strings.Contains(err.Error(), "no weight") {
		t.Errorf("missing weight: %v", err)
	}
	// A cycle.
	raw, _ = json.Marshal(map[string]any{"node": []gNode{gPlaceholder("x", 1), {"name": "a", "op": "Add", "input": []string{"x", "b"}}, {"name": "b", "op": "Relu", "input": []string{"a"}}}})
	if _, err := NewGraph(raw, Weights{}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
}

// TestLoadGraphModel writes a model.json with float16 weights and loads it
// through the weights loader.
func TestLoadGraphModel(t *testing.T) {
	dir := t.TempDir()
	topology := map[string]any{"node": []gNode{
		gPlaceholder("x", -1, 2),
		gConst("m", New(2, 1)),
		gConst("b", New(1)),
		matMulNode(false, []string{"BiasAdd"}, "x", "m", "b"),
		{"name": "Identity", "op": "Identity", "input": []string{"y"}},
	}}
	f16 := map[string]any{"dtype": "float16", "original_dtype": "float32"}
	model := map[string]any{
		"format": "graph-model", "generatedBy": "test", "convertedBy": "test", "modelTopology": topology,
		"weightsManifest": []any{map[string]any{"paths": []string{"m.bin"}, "weights": []any{
			map[string]any{"name": "m", "shape": []int{2, 1}, "dtype": "float32", "quantization": f16},
			map[string]any{"name": "b", "shape": []int{1}, "dtype": "float32", "quantization": f16},
		}}},
	}
	raw, _ := json.Marshal(model)
	if err := os.WriteFile(filepath.Join(dir, "model.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	// float16: 1.0 = 0x3c00, 0.5 = 0x3800, -2 = 0xc000.
	bin := make([]byte, 6)
	binary.LittleEndian.PutUint16(bin[0:], 0x3c00)
	binary.LittleEndian.PutUint16(bin[2:], 0x3800)
	binary.LittleEndian.PutUint16(bin[4:], 0xc000)
	if err := os.WriteFile(filepath.Join(dir, "m.bin"), bin, 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := LoadGraphModel(filepath.Join(dir, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	// [4, 2]·[1, 0.5] - 2 = 3.
	wantTensor(t, "float16 model", mustRun(t, g, FromData([]float32{4, 2}, 1, 2)), []int{1, 1}, []float32{3}, 0)

	// A weights manifest is not a graph model.
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`[{"paths":["m.bin"],"weights":[{"name":"m","shape":[3],"dtype":"float32","quantization":{"dtype":"float16"}}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadGraphModel(filepath.Join(dir, "manifest.json")); err == nil || !strings.Contains(err.Error(), "not a graph model") {
		t.Errorf("weights manifest: %v", err)
	}
}
