package tfjs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// This file adds operations that NewGraph does not implement, for
// evaluating models (human-models' MobileFace and MobileFaceNet) without
// touching graph.go: LoadGraphModelMore / NewGraphMore replace each node of
// such an operation by a stand-in that graph.go accepts (Identity for one
// tensor input, AddV2 for two), build the graph with NewGraph, and then
// give the stand-in the real operation's run function. Constant operands
// (paddings, axes, weights) are read from the weights at load time.
//
// Operations: Sub, Abs, Square, Rsqrt, Squeeze, Sum, Pad (constant
// paddings, zeros), MatMul (constant right operand) and
// FusedDepthwiseConv2dNative (fused_ops [BiasAdd] or [BiasAdd, Relu]).

// MoreOps lists the operations LoadGraphModelMore adds to NewGraph's.
var MoreOps = []string{"Sub", "Abs", "Square", "Rsqrt", "Squeeze", "Sum", "Pad", "MatMul", "FusedDepthwiseConv2dNative"}

// LoadGraphModelMore is LoadGraphModel with the operations of MoreOps.
func LoadGraphModelMore(path string) (*Graph, error) {
	w, model, err := LoadManifestFile(path)
	if err != nil {
		return nil, err
	}
	if model == nil {
		return nil, fmt.Errorf("tfjs: %s is a weights manifest, not a graph model", path)
	}
	g, err := NewGraphMore(model.ModelTopology, w)
	if err != nil {
		return nil, fmt.Errorf("tfjs: %s: %w", path, err)
	}
	return g, nil
}

// NewGraphMore is NewGraph with the operations of MoreOps.
func NewGraphMore(topology json.RawMessage, w Weights) (*Graph, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(topology, &top); err != nil {
		return nil, fmt.Errorf("modelTopology: %w", err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(top["node"], &raw); err != nil {
		return nil, fmt.Errorf("modelTopology nodes: %w", err)
	}
	runs := map[string]func([]*Tensor) (*Tensor, error){}
	for i, rn := range raw {
		op, _ := rn["op"].(string)
		if !isMoreOp(op) {
			continue
		}
		b, err := json.Marshal(rn)
		if err != nil {
			return nil, err
		}
		var d graphNodeDef
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("node %d: %w", i, err)
		}
		run, binary, err := prepareMore(&d, w)
		if err != nil {
			return nil, fmt.Errorf("node %q (%s): %w", d.Name, d.Op, err)
		}
		runs[d.Name] = run
		var ins []any
		for _, in := range d.Input {
			if !strings.HasPrefix(in, "^") {
				ins = append(ins, in)
			}
		}
		stand := map[string]any{"name": d.Name, "attr": map[string]any{"T": map[string]any{"type": "DT_FLOAT"}}}
		if binary {
			stand["op"], stand["input"] = "AddV2", ins[:2]
		} else {
			stand["op"], stand["input"] = "Identity", ins[:1]
		}
		raw[i] = stand
	}
	nodes, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	top["node"] = nodes
	t2, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	g, err := NewGraph(t2, w)
	if err != nil {
		return nil, err
	}
	for _, n := range g.nodes {
		if run, ok := runs[n.name]; ok {
			n.run = run
			n.op = "more:" + n.op
		}
	}
	return g, nil
}

func isMoreOp(op string) bool {
	for _, o := range MoreOps {
		if o == op {
			return true
		}
	}
	return false
}

// moreConst returns the constant (a weight) a node's i-th input names.
func moreConst(d *graphNodeDef, w Weights, i int, what string) (*Tensor, error) {
	if i >= len(d.Input) {
		return nil, fmt.Errorf("%s operand missing", what)
	}
	name, _, _ := strings.Cut(d.Input[i], ":")
	t, ok := w[name]
	if !ok {
		return nil, fmt.Errorf("%s operand %q is not a constant", what, name)
	}
	return t, nil
}

// prepareMore returns a node's run function and whether it takes two
// tensor inputs (else one; constant operands are bound here).
func prepareMore(d *graphNodeDef, w Weights) (run func([]*Tensor) (*Tensor, error), binary bool, err error) {
	a := graphAttrs{d}
	if err := a.dtype("T", "DT_FLOAT"); err != nil {
		return nil, false, err
	}
	unary := func(f func(float32) float32) (func([]*Tensor) (*Tensor, error), bool, error) {
		if len(d.Input) != 1 {
			return nil, false, fmt.Errorf("%d inputs, want 1", len(d.Input))
		}
		return func(in []*Tensor) (*Tensor, error) { return graphMap(in[0], f), nil }, false, nil
	}
	switch d.Op {
	case "Abs":
		return unary(func(v float32) float32 { return float32(math.Abs(float64(v))) })
	case "Square":
		return unary(func(v float32) float32 { return v * v })
	case "Rsqrt":
		return unary(func(v float32) float32 { return float32(1 / math.Sqrt(float64(v))) })

	case "Sub":
		if len(d.Input) != 2 {
			return nil, false, fmt.Errorf("%d inputs, want 2", len(d.Input))
		}
		return func(in []*Tensor) (*Tensor, error) {
			return graphBinary(in[0], graphMap(in[1], func(v float32) float32 { return -v }), opAdd)
		}, true, nil

	case "Squeeze":
		dims, _, err := a.ints("squeeze_dims")
		if err != nil {
			return nil, false, err
		}
		return func(in []*Tensor) (*Tensor, error) {
			s := in[0].Shape
			drop := map[int]bool{}
			for _, k := range dims {
				if k < 0 {
					k += len(s)
				}
				if k < 0 || k >= len(s) || s[k] != 1 {
					return nil, fmt.Errorf("squeeze dimension %d of shape %v", k, s)
				}
				drop[k] = true
			}
			var out []int
			for i, v := range s {
				if (len(dims) == 0 && v == 1) || drop[i] {
					continue
				}
				out = append(out, v)
			}
			return in[0].Reshape(out...), nil
		}, false, nil

	case "Sum":
		axes, err := moreConst(d, w, 1, "axes")
		if err != nil {
			return nil, false, err
		}
		keep, err := a.boolean("keep_dims")
		if err != nil {
			return nil, false, err
		}
		ax := make([]int, len(axes.Data))
		for i, v := range axes.Data {
			ax[i] = int(v)
		}
		return func(in []*Tensor) (*Tensor, error) {
			m, err := graphMean(in[0], ax, keep)
			if err != nil {
				return nil, err
			}
			if m.Size() == 0 {
				return m, nil
			}
			k := float32(in[0].Size() / m.Size())
			return graphMap(m, func(v float32) float32 { return v * k }), nil
		}, false, nil

	case "Pad":
		p, err := moreConst(d, w, 1, "paddings")
		if err != nil {
			return nil, false, err
		}
		if fmt.Sprint(p.Shape) != "[4 2]" || p.Data[0] != 0 || p.Data[1] != 0 || p.Data[6] != 0 || p.Data[7] != 0 {
			return nil, false, fmt.Errorf("paddings %v of shape %v: only height and width padding of a [1, h, w, c] tensor is supported", p.Data, p.Shape)
		}
		pad := Pad{Top: int(p.Data[2]), Bottom: int(p.Data[3]), Left: int(p.Data[4]), Right: int(p.Data[5])}
		if pad.Top < 0 || pad.Bottom < 0 || pad.Left < 0 || pad.Right < 0 {
			return nil, false, fmt.Errorf("negative paddings %v", p.Data)
		}
		return func(in []*Tensor) (*Tensor, error) {
			x, err := graphImage(in[0])
			if err != nil {
				return nil, err
			}
			return graphBatch(PadHWC(x, pad, 0)), nil
		}, false, nil

	case "MatMul":
		if ta, err := a.boolean("transpose_a"); err != nil || ta {
			if err == nil {
				err = errors.New("transpose_a unsupported")
			}
			return nil, false, err
		}
		tb, err := a.boolean("transpose_b")
		if err != nil {
			return nil, false, err
		}
		m, err := moreConst(d, w, 1, "weight matrix")
		if err != nil {
			return nil, false, err
		}
		if len(m.Shape) != 2 {
			return nil, false, fmt.Errorf("weight matrix of shape %v", m.Shape)
		}
		if tb {
			m = graphTranspose(m)
		}
		k, cols := m.Shape[0], m.Shape[1]
		return func(in []*Tensor) (*Tensor, error) {
			x := in[0]
			if len(x.Shape) != 2 || x.Shape[1] != k {
				return nil, fmt.Errorf("input %v times a [%d, %d] matrix", x.Shape, k, cols)
			}
			out := New(x.Shape[0], cols)
			for r := 0; r < x.Shape[0]; r++ {
				copy(out.Data[r*cols:(r+1)*cols], VecMat(FromData(x.Data[r*k:(r+1)*k], k), m).Data)
			}
			return out, nil
		}, false, nil

	case "FusedDepthwiseConv2dNative":
		if dil, err := a.nhwc("dilations", 1); err != nil || dil != 1 {
			if err == nil {
				err = fmt.Errorf("dilation %d unsupported", dil)
			}
			return nil, false, err
		}
		if _, err := a.oneOf("data_format", "NHWC", "NHWC"); err != nil {
			return nil, false, err
		}
		stride, err := a.nhwc("strides", 0)
		if err != nil {
			return nil, false, err
		}
		if stride == 0 {
			return nil, false, errors.New("strides are required")
		}
		mode, err := a.padding()
		if err != nil {
			return nil, false, err
		}
		hasBias, act, err := a.fusedOps()
		if err != nil {
			return nil, false, err
		}
		filter, err := moreConst(d, w, 1, "filter")
		if err != nil {
			return nil, false, err
		}
		if len(filter.Shape) != 4 || filter.Shape[3] != 1 {
			return nil, false, fmt.Errorf("depthwise filter of shape %v, want [kh, kw, channels, 1]", filter.Shape)
		}
		c := filter.Shape[2]
		var bias *Tensor
		if hasBias {
			if bias, err = moreConst(d, w, 2, "bias"); err != nil {
				return nil, false, err
			}
			if bias.Size() != c {
				return nil, false, fmt.Errorf("bias of shape %v for %d channels", bias.Shape, c)
			}
		}
		return func(in []*Tensor) (*Tensor, error) {
			x, err := graphImage(in[0])
			if err != nil {
				return nil, err
			}
			if _, _, xc := x.HWC(); xc != c {
				return nil, fmt.Errorf("input %v for a depthwise filter of %d channels", in[0].Shape, c)
			}
			y := DepthwiseConv2D(x, filter, stride, mode)
			if bias != nil {
				for i := range y.Data {
					y.Data[i] += bias.Data[i%c]
				}
			}
			if act == ReLU {
				for i, v := range y.Data {
					y.Data[i] = max(v, 0)
				}
			}
			return graphBatch(y), nil
		}, false, nil
	}
	return nil, false, fmt.Errorf("unsupported operation %q", d.Op)
}
