package tfjs

import (
	"math"
	"strings"
	"testing"
)

// Tests of the operations a MobileNet-style graph model needs beyond the
// small classifiers (FaceRes of @vladmandic/human): plain Conv2D,
// DepthwiseConv2dNative, Minimum, Maximum and Mean, and ExecuteNodes.

func TestGraphConv2D(t *testing.T) {
	x := FromData(seq(9), 1, 3, 3, 1) // 1 2 3 / 4 5 6 / 7 8 9
	diag := FromData([]float32{1, 0, 0, 1}, 2, 2, 1, 1)
	node := func(padding string, stride int) gNode {
		return gNode{"name": "y", "op": "Conv2D", "input": []string{"x", "f"}, "attr": map[string]any{
			"T": gType("DT_FLOAT"), "strides": gInts(1, stride, stride, 1), "padding": gStr(padding),
			"data_format": gStr("NHWC"), "dilations": gInts(1, 1, 1, 1), "explicit_paddings": map[string]any{"list": map[string]any{}},
			"use_cudnn_on_gpu": gBool(true),
		}}
	}
	// x[i][j] + x[i+1][j+1], no bias.
	g := mustGraph(t, map[string]*Tensor{"f": diag}, gPlaceholder("x", -1, 3, 3, 1), node("VALID", 1))
	wantTensor(t, "valid diag", mustRun(t, g, x), []int{1, 2, 2, 1}, []float32{6, 8, 12, 14}, 0)
	// SAME with a 2×2 filter pads one row/column at the bottom/right:
	// the last row and column only see their own pixel.
	g = mustGraph(t, map[string]*Tensor{"f": diag}, gPlaceholder("x", -1, 3, 3, 1), node("SAME", 1))
	wantTensor(t, "same diag", mustRun(t, g, x), []int{1, 3, 3, 1}, []float32{6, 8, 3, 12, 14, 6, 7, 8, 9}, 0)
	// Stride 2, 1×1 filter with two outputs: picks the corners.
	f := FromData([]float32{1, -1}, 1, 1, 1, 2)
	g = mustGraph(t, map[string]*Tensor{"f": f}, gPlaceholder("x", -1, 3, 3, 1), node("SAME", 2))
	wantTensor(t, "stride 2", mustRun(t, g, x), []int{1, 2, 2, 2}, []float32{1, -1, 3, -3, 7, -7, 9, -9}, 0)
	// A bias input without fused_ops is not a plain Conv2D.
	if _, err := gGraph(t, map[string]*Tensor{"f": diag, "b": FromData([]float32{1}, 1)}, gPlaceholder("x", -1, 3, 3, 1),
		gNode{"name": "y", "op": "Conv2D", "input": []string{"x", "f", "b"}, "attr": map[string]any{"strides": gInts(1, 1, 1, 1), "padding": gStr("VALID")}}); err == nil {
		t.Error("Conv2D with three inputs accepted")
	}
}

func TestGraphDepthwiseConv2dNative(t *testing.T) {
	// Two channels: channel 0 is 1…9, channel 1 is 10 × that.
	x := New(1, 3, 3, 2)
	for i := 0; i < 9; i++ {
		x.Data[2*i], x.Data[2*i+1] = float32(i+1), float32(10*(i+1))
	}
	node := func(padding string, stride int, attrs ...string) gNode {
		attr := map[string]any{
			"T": gType("DT_FLOAT"), "strides": gInts(1, stride, stride, 1), "padding": gStr(padding),
			"data_format": gStr("NHWC"), "dilations": gInts(1, 1, 1, 1), "explicit_paddings": map[string]any{"list": map[string]any{}},
		}
		for i := 0; i+1 < len(attrs); i += 2 {
			attr[attrs[i]] = gStr(attrs[i+1])
		}
		return gNode{"name": "y", "op": "DepthwiseConv2dNative", "input": []string{"x", "f"}, "attr": attr}
	}
	// 3×3 filters: channel 0 sums its neighbourhood, channel 1 takes the
	// centre minus the pixel to the left.
	f := New(3, 3, 2, 1)
	for k := 0; k < 9; k++ {
		f.Data[2*k] = 1
	}
	f.Data[2*4+1], f.Data[2*3+1] = 1, -1
	g := mustGraph(t, map[string]*Tensor{"f": f}, gPlaceholder("x", -1, 3, 3, 2), node("SAME", 1))
	// Channel 0: the 3×3 neighbourhood sums of 1…9 (zero padding);
	// channel 1: 10·(x[i][j] − x[i][j−1]), the left column keeps 10·x.
	want := []float32{12, 10, 21, 10, 16, 10, 27, 40, 45, 10, 33, 10, 24, 70, 39, 10, 28, 10}
	wantTensor(t, "same 3x3", mustRun(t, g, x), []int{1, 3, 3, 2}, want, 1e-5)
	// Stride 2 SAME: windows centred on the corners.
	g = mustGraph(t, map[string]*Tensor{"f": f}, gPlaceholder("x", -1, 3, 3, 2), node("SAME", 2))
	wantTensor(t, "same stride 2", mustRun(t, g, x), []int{1, 2, 2, 2}, []float32{12, 10, 16, 10, 24, 70, 28, 10}, 1e-5)
	// VALID: the one full window.
	g = mustGraph(t, map[string]*Tensor{"f": f}, gPlaceholder("x", -1, 3, 3, 2), node("VALID", 1))
	wantTensor(t, "valid", mustRun(t, g, x), []int{1, 1, 1, 2}, []float32{45, 10}, 1e-5)
	// A channel multiplier other than 1, NCHW and a filter for other
	// channels are rejected.
	if _, err := gGraph(t, map[string]*Tensor{"f": New(3, 3, 1, 2)}, gPlaceholder("x", -1, 3, 3, 1), node("SAME", 1)); err == nil {
		t.Error("channel multiplier 2 accepted")
	}
	if _, err := gGraph(t, map[string]*Tensor{"f": f}, gPlaceholder("x", -1, 3, 3, 2), node("SAME", 1, "data_format", "NCHW")); err == nil {
		t.Error("NCHW accepted")
	}
	g = mustGraph(t, map[string]*Tensor{"f": f}, gPlaceholder("x", -1, 3, 3, 1), node("SAME", 1))
	if _, err := g.Run(New(1, 3, 3, 1)); err == nil || !strings.Contains(err.Error(), "channels") {
		t.Errorf("1-channel input for a 2-channel filter: %v", err)
	}
}

func TestGraphMinMax(t *testing.T) {
	bin := func(op string) gNode {
		return gNode{"name": "y", "op": op, "input": []string{"x", "c"}, "attr": map[string]any{"T": gType("DT_FLOAT")}}
	}
	x := FromData([]float32{-1, 0, 3, 6, 7, 100}, 1, 1, 3, 2)
	// Keras's ReLU6 as the converter writes it: min(x, 6), then max(·, 0).
	g := mustGraph(t, map[string]*Tensor{"c": FromData([]float32{6}, 1)}, gPlaceholder("x", -1, 1, 3, 2), bin("Minimum"))
	wantTensor(t, "minimum scalar", mustRun(t, g, x), []int{1, 1, 3, 2}, []float32{-1, 0, 3, 6, 6, 6}, 0)
	g = mustGraph(t, map[string]*Tensor{"c": FromData([]float32{0}, 1)}, gPlaceholder("x", -1, 1, 3, 2), bin("Maximum"))
	wantTensor(t, "maximum scalar", mustRun(t, g, x), []int{1, 1, 3, 2}, []float32{0, 0, 3, 6, 7, 100}, 0)
	// Per channel, broadcast.
	g = mustGraph(t, map[string]*Tensor{"c": FromData([]float32{1, 50}, 2)}, gPlaceholder("x", -1, 1, 3, 2), bin("Minimum"))
	wantTensor(t, "minimum per channel", mustRun(t, g, x), []int{1, 1, 3, 2}, []float32{-1, 0, 1, 6, 1, 50}, 0)
	g = mustGraph(t, map[string]*Tensor{"c": FromData([]float32{1, 50}, 2)}, gPlaceholder("x", -1, 1, 3, 2), bin("Maximum"))
	wantTensor(t, "maximum per channel", mustRun(t, g, x), []int{1, 1, 3, 2}, []float32{1, 50, 3, 50, 7, 100}, 0)
	// NaN propagates, as in TensorFlow.
	g = mustGraph(t, map[string]*Tensor{"c": FromData([]float32{0}, 1)}, gPlaceholder("x", -1, 2), bin("Maximum"))
	if y := mustRun(t, g, FromData([]float32{float32(math.NaN()), 1}, 1, 2)); !math.IsNaN(float64(y.Data[0])) || y.Data[1] != 1 {
		t.Errorf("max(NaN, 0), max(1, 0) = %v", y.Data)
	}
}

func TestGraphMean(t *testing.T) {
	node := func(keep bool) gNode {
		return gNode{"name": "y", "op": "Mean", "input": []string{"x", "axes"}, "attr": map[string]any{
			"T": gType("DT_FLOAT"), "Tidx": gType("DT_INT32"), "keep_dims": gBool(keep)}}
	}
	// [1, 2, 2, 2]: channel 0 is 1 3 5 7, channel 1 is 2 4 6 8.
	x := FromData(seq(8), 1, 2, 2, 2)
	axes := func(v ...float32) map[string]*Tensor { return map[string]*Tensor{"axes": FromData(v, len(v))} }
	// Global average pooling as Keras writes it: axes [1, 2].
	g := mustGraph(t, axes(1, 2), gPlaceholder("x", -1, 2, 2, 2), node(false))
	wantTensor(t, "mean HW", mustRun(t, g, x), []int{1, 2}, []float32{4, 5}, 0)
	g = mustGraph(t, axes(2, 1), gPlaceholder("x", -1, 2, 2, 2), node(true))
	wantTensor(t, "mean HW keep dims", mustRun(t, g, x), []int{1, 1, 1, 2}, []float32{4, 5}, 0)
	// Over rows only: (1+5)/2, (2+6)/2, (3+7)/2, (4+8)/2.
	g = mustGraph(t, axes(1), gPlaceholder("x", -1, 2, 2, 2), node(false))
	wantTensor(t, "mean rows", mustRun(t, g, x), []int{1, 2, 2}, []float32{3, 4, 5, 6}, 0)
	// Over the last axis, given as −1.
	g = mustGraph(t, axes(-1), gPlaceholder("x", -1, 2, 2, 2), node(false))
	wantTensor(t, "mean channels", mustRun(t, g, x), []int{1, 2, 2}, []float32{1.5, 3.5, 5.5, 7.5}, 0)
	// Everything.
	g = mustGraph(t, axes(0, 1, 2, 3), gPlaceholder("x", -1, 2, 2, 2), node(false))
	wantTensor(t, "mean all", mustRun(t, g, x), []int{}, []float32{4.5}, 0)
	g = mustGraph(t, axes(4), gPlaceholder("x", -1, 2, 2, 2), node(false))
	if _, err := g.Run(x); err == nil || !strings.Contains(err.Error(), "axis") {
		t.Errorf("mean over axis 4 of a rank-4 tensor: %v", err)
	}
}

// TestGraphExecuteNodes reads an intermediate node (one other nodes
// consume, so not an output) and checks that only what it depends on is
// computed.
func TestGraphExecuteNodes(t *testing.T) {
	consts := map[string]*Tensor{"six": FromData([]float32{6}, 1), "two": FromData([]float32{2}, 1)}
	bin := func(name, op, a, b string) gNode {
		return gNode{"name": name, "op": op, "input": []string{a, b}, "attr": map[string]any{"T": gType("DT_FLOAT")}}
	}
	g := mustGraph(t, consts, gPlaceholder("x", -1, 3),
		bin("clip", "Minimum", "x", "six"),
		bin("double", "Mul", "clip", "two"),
		gNode{"name": "bad", "op": "Reshape", "input": []string{"clip", "two"}}) // [2] cannot hold 3 values
	x := FromData([]float32{1, 7, -3}, 1, 3)
	outs, err := g.ExecuteNodes(map[string]*Tensor{"x": x}, "clip", "double")
	if err != nil {
		t.Fatal(err) // running "bad" would fail
	}
	wantTensor(t, "clip", outs[0], []int{1, 3}, []float32{1, 6, -3}, 0)
	wantTensor(t, "double", outs[1], []int{1, 3}, []float32{2, 12, -6}, 0)
	if _, err := g.Execute(map[string]*Tensor{"x": x}); err == nil {
		t.Error("Execute ran without the failing output")
	}
	if _, err := g.ExecuteNodes(map[string]*Tensor{"x": x}, "nope"); err == nil {
		t.Error("unknown node accepted")
	}
}
