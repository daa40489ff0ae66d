package tfjs

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Graph is a TensorFlow.js graph model (a model.json with "format":
// "graph-model" and a modelTopology of TensorFlow NodeDefs) prepared for
// execution. Only a small set of operations is supported — those of small
// image classifiers and MobileNets as the TensorFlow.js converter writes
// them: Placeholder, Const, Identity, Conv2D, _FusedConv2D,
// DepthwiseConv2dNative, _FusedMatMul, MaxPool, Mean, Relu, Reshape,
// Sigmoid, Softmax, Add, AddV2, Mul, Minimum and Maximum. NewGraph rejects any other
// operation, and any attribute it does not understand or whose value it
// does not implement (e.g. dilations other than 1, NCHW layout, explicit
// padding), rather than computing something else.
//
// Tensors keep TensorFlow's full shapes, batch dimension included; image
// operations run on a batch of exactly one ([1, height, width, channels]).
// A Graph is immutable once built and safe for concurrent use.
type Graph struct {
	nodes   []*graphNode // in execution order: every node after its inputs
	inputs  []*graphNode // Placeholder nodes, in file order
	outputs []*graphNode // nodes no other node consumes, in file order
}

// GraphInput describes one input (Placeholder) of a graph: its name and
// shape, -1 where a dimension is free (usually the batch).
type GraphInput struct {
	Name  string
	Shape []int
}

type graphNode struct {
	name   string
	op     string
	inputs []*graphNode
	slot   int     // index of the node's value during execution
	value  *Tensor // Const nodes
	shape  []int   // Placeholder nodes
	run    func(in []*Tensor) (*Tensor, error)
}

// graphNodeDef is a TensorFlow NodeDef in the JSON form TensorFlow.js's
// converter writes.
type graphNodeDef struct {
	Name   string                    `json:"name"`
	Op     string                    `json:"op"`
	Input  []string                  `json:"input"`
	Device string                    `json:"device"`
	Attr   map[string]graphAttrValue `json:"attr"`
}

// graphAttrValue is a TensorFlow AttrValue in JSON form: exactly one field
// is set. Protobuf's JSON mapping writes int64 values as strings and bytes
// (the "s" field) as base64.
type graphAttrValue struct {
	S      *string          `json:"s"`
	I      *graphInt        `json:"i"`
	F      *float64         `json:"f"`
	B      *bool            `json:"b"`
	Type   *string          `json:"type"`
	Shape  *graphShape      `json:"shape"`
	Tensor *graphTensorDesc `json:"tensor"`
	List   *graphAttrList   `json:"list"`
	Func   json.RawMessage  `json:"func"`
}

type graphAttrList struct {
	S    []string        `json:"s"`
	I    []graphInt      `json:"i"`
	F    []float64       `json:"f"`
	B    []bool          `json:"b"`
	Type []string        `json:"type"`
	Shp  []graphShape    `json:"shape"`
	Func json.RawMessage `json:"func"`
}

type graphShape struct {
	Dim []struct {
		Size graphInt `json:"size"`
	} `json:"dim"`
	UnknownRank bool `json:"unknownRank"`
}

type graphTensorDesc struct {
	DType       string     `json:"dtype"`
	TensorShape graphShape `json:"tensorShape"`
}

// graphInt is an int64 written either as a JSON string or a number.
type graphInt int64

func (g *graphInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("integer attribute %s: %w", b, err)
	}
	*g = graphInt(v)
	return nil
}

func (s graphShape) dims() []int {
	out := make([]int, len(s.Dim))
	for i, d := range s.Dim {
		out[i] = int(d.Size)
	}
	return out
}

type graphTopology struct {
	Node    []graphNodeDef `json:"node"`
	Library struct {
		Function []json.RawMessage `json:"function"`
	} `json:"library"`
}

// LoadGraphModel reads a TensorFlow.js graph model: the model.json at path
// and the weight shards it lists (relative to its directory).
func LoadGraphModel(path string) (*Graph, error) {
	w, model, err := LoadManifestFile(path)
	if err != nil {
		return nil, err
	}
	if model == nil {
		return nil, fmt.Errorf("tfjs: %s is a weights manifest, not a graph model", path)
	}
	if model.Format != "" && model.Format != "graph-model" {
		return nil, fmt.Errorf("tfjs: %s has format %q, want graph-model", path, model.Format)
	}
	g, err := NewGraph(model.ModelTopology, w)
	if err != nil {
		return nil, fmt.Errorf("tfjs: %s: %w", path, err)
	}
	return g, nil
}

// NewGraph builds a graph from a model.json's modelTopology and the
// weights its Const nodes name.
func NewGraph(topology json.RawMessage, w Weights) (*Graph, error) {
	if len(topology) == 0 {
		return nil, errors.New("graph model without modelTopology")
	}
	var top graphTopology
	if err := json.Unmarshal(topology, &top); err != nil {
		return nil, fmt.Errorf("modelTopology: %w", err)
	}
	if len(top.Library.Function) > 0 {
		// Functions carry control flow (If, While …), which this executor
		// does not implement.
		return nil, fmt.Errorf("modelTopology defines %d functions: unsupported", len(top.Library.Function))
	}
	if len(top.Node) == 0 {
		return nil, errors.New("modelTopology has no nodes")
	}
	defs := map[string]*graphNodeDef{}
	for i := range top.Node {
		d := &top.Node[i]
		if d.Name == "" {
			return nil, fmt.Errorf("node %d has no name", i)
		}
		if _, dup := defs[d.Name]; dup {
			return nil, fmt.Errorf("node %q defined twice", d.Name)
		}
		defs[d.Name] = d
	}

	g := &Graph{}
	built := map[string]*graphNode{}
	visiting := map[string]bool{}
	var build func(name string) (*graphNode, error)
	build = func(name string) (*graphNode, error) {
		if n, ok := built[name]; ok {
			return n, nil
		}
		d, ok := defs[name]
		if !ok {
			return nil, fmt.Errorf("input %q names no node", name)
		}
		if visiting[name] {
			return nil, fmt.Errorf("node %q is part of a cycle", name)
		}
		visiting[name] = true
		var ins []*graphNode
		for _, in := range d.Input {
			if strings.HasPrefix(in, "^") {
				// A control dependency orders side effects; the supported
				// operations have none, but the node must still exist.
				if _, err := build(in[1:]); err != nil {
					return nil, err
				}
				continue
			}
			src, port, hasPort := strings.Cut(in, ":")
			if hasPort && port != "0" {
				return nil, fmt.Errorf("node %q (%s): input %q is output %s of a node; only single-output operations are supported", d.Name, d.Op, in, port)
			}
			n, err := build(src)
			if err != nil {
				return nil, err
			}
			ins = append(ins, n)
		}
		n := &graphNode{name: d.Name, op: d.Op, inputs: ins}
		if err := n.prepare(d, w); err != nil {
			return nil, fmt.Errorf("node %q (%s): %w", d.Name, d.Op, err)
		}
		n.slot = len(g.nodes)
		g.nodes = append(g.nodes, n)
		built[name] = n
		return n, nil
	}
	for i := range top.Node {
		if _, err := build(top.Node[i].Name); err != nil {
			return nil, err
		}
	}
	consumed := map[*graphNode]bool{}
	for _, n := range g.nodes {
		for _, in := range n.inputs {
			consumed[in] = true
		}
	}
	for i := range top.Node {
		n := built[top.Node[i].Name]
		if n.op == "Placeholder" {
			g.inputs = append(g.inputs, n)
		}
		if !consumed[n] && n.op != "Const" && n.op != "Placeholder" {
			g.outputs = append(g.outputs, n)
		}
	}
	if len(g.inputs) == 0 || len(g.outputs) == 0 {
		return nil, fmt.Errorf("graph has %d inputs and %d outputs", len(g.inputs), len(g.outputs))
	}
	return g, nil
}

// Inputs lists the graph's inputs (its Placeholder nodes).
func (g *Graph) Inputs() []GraphInput {
	out := make([]GraphInput, len(g.inputs))
	for i, n := range g.inputs {
		out[i] = GraphInput{Name: n.name, Shape: append([]int(nil), n.shape...)}
	}
	return out
}

// Outputs lists the names of the graph's outputs: the nodes whose value no
// other node uses (for converted Keras models, one "Identity" node).
func (g *Graph) Outputs() []string {
	out := make([]string, len(g.outputs))
	for i, n := range g.outputs {
		out[i] = n.name
	}
	return out
}

// Execute runs the graph on the given inputs (by Placeholder name; every
// input must be given) and returns the value of every output, in the order
// of Outputs. The input tensors are not modified.
func (g *Graph) Execute(inputs map[string]*Tensor) (outs []*Tensor, err error) {
	return g.execute(inputs, g.outputs)
}

// ExecuteNodes is Execute returning the values of the named nodes instead
// of the outputs — any node, e.g. an intermediate layer a model's
// signature lists as an output although other nodes consume it (FaceRes's
// "global_pooling/Mean"). Only the nodes they depend on are run.
func (g *Graph) ExecuteNodes(inputs map[string]*Tensor, names ...string) ([]*Tensor, error) {
	want := make([]*graphNode, len(names))
	for i, name := range names {
		for _, n := range g.nodes {
			if n.name == name {
				want[i] = n
				break
			}
		}
		if want[i] == nil {
			return nil, fmt.Errorf("tfjs: graph has no node %q", name)
		}
	}
	return g.execute(inputs, want)
}

func (g *Graph) execute(inputs map[string]*Tensor, want []*graphNode) (outs []*Tensor, err error) {
	if len(inputs) != len(g.inputs) {
		return nil, fmt.Errorf("tfjs: graph has %d inputs, %d given", len(g.inputs), len(inputs))
	}
	// needed marks the nodes the wanted ones depend on; g.nodes is in
	// execution order, so walking it backwards visits consumers first.
	needed := make([]bool, len(g.nodes))
	for _, n := range want {
		needed[n.slot] = true
	}
	for i := len(g.nodes) - 1; i >= 0; i-- {
		if needed[i] {
			for _, in := range g.nodes[i].inputs {
				needed[in.slot] = true
			}
		}
	}
	vals := make([]*Tensor, len(g.nodes))
	// The operations called here panic on shapes they cannot handle
	// (after the checks below, only on inconsistent weights); report that
	// as an error naming the node rather than crashing the caller.
	var cur *graphNode
	defer func() {
		if r := recover(); r != nil {
			outs, err = nil, fmt.Errorf("tfjs: node %q (%s): %v", cur.name, cur.op, r)
		}
	}()
	args := make([]*Tensor, 0, 4)
	for _, n := range g.nodes {
		if !needed[n.slot] && n.op != "Placeholder" {
			continue
		}
		cur = n
		switch n.op {
		case "Const":
			vals[n.slot] = n.value
			continue
		case "Placeholder":
			x, ok := inputs[n.name]
			if !ok {
				return nil, fmt.Errorf("tfjs: graph input %q not given", n.name)
			}
			if err := checkShape(x.Shape, n.shape); err != nil {
				return nil, fmt.Errorf("tfjs: graph input %q: %w", n.name, err)
			}
			vals[n.slot] = x
			continue
		}
		args = args[:0]
		for _, in := range n.inputs {
			args = append(args, vals[in.slot])
		}
		v, err := n.run(args)
		if err != nil {
			return nil, fmt.Errorf("tfjs: node %q (%s): %w", n.name, n.op, err)
		}
		vals[n.slot] = v
	}
	outs = make([]*Tensor, len(want))
	for i, n := range want {
		outs[i] = vals[n.slot]
	}
	return outs, nil
}

// Run executes a graph with one input and one output.
func (g *Graph) Run(x *Tensor) (*Tensor, error) {
	if len(g.inputs) != 1 || len(g.outputs) != 1 {
		return nil, fmt.Errorf("tfjs: Run needs a graph with one input and one output, this one has %d and %d", len(g.inputs), len(g.outputs))
	}
	outs, err := g.Execute(map[string]*Tensor{g.inputs[0].name: x})
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

func checkShape(have, want []int) error {
	if len(have) != len(want) {
		return fmt.Errorf("shape %v, want %v", have, want)
	}
	for i, d := range want {
		if d >= 0 && have[i] != d {
			return fmt.Errorf("shape %v, want %v", have, want)
		}
	}
	return nil
}

// graphAttrs reads and checks a node's attributes. Each accessor rejects
// a value of the wrong kind; only rejects attributes an operation does
// not list, so an attribute this executor would ignore cannot change the
// result unnoticed.
type graphAttrs struct {
	d *graphNodeDef
}

func (a graphAttrs) only(allowed ...string) error {
	for k := range a.d.Attr {
		ok := false
		for _, al := range allowed {
			ok = ok || k == al
		}
		if !ok {
			return fmt.Errorf("unsupported attribute %q", k)
		}
	}
	return nil
}

func (a graphAttrs) str(key string) (string, bool, error) {
	v, ok := a.d.Attr[key]
	if !ok {
		return "", false, nil
	}
	if v.S == nil {
		return "", true, fmt.Errorf("attribute %q is not a string", key)
	}
	b, err := base64.StdEncoding.DecodeString(*v.S)
	if err != nil {
		return "", true, fmt.Errorf("attribute %q: %w", key, err)
	}
	return string(b), true, nil
}

// oneOf reads a string attribute (def when absent) and requires it to be
// one of the accepted values.
func (a graphAttrs) oneOf(key, def string, accepted ...string) (string, error) {
	s, ok, err := a.str(key)
	if err != nil {
		return "", err
	}
	if !ok {
		s = def
	}
	for _, v := range accepted {
		if s == v {
			return s, nil
		}
	}
	return "", fmt.Errorf("attribute %s=%q unsupported (supported: %s)", key, s, strings.Join(accepted, ", "))
}

func (a graphAttrs) boolean(key string) (bool, error) {
	v, ok := a.d.Attr[key]
	if !ok {
		return false, nil
	}
	if v.B == nil {
		return false, fmt.Errorf("attribute %q is not a bool", key)
	}
	return *v.B, nil
}

func (a graphAttrs) dtype(key string, accepted ...string) error {
	v, ok := a.d.Attr[key]
	if !ok {
		return nil
	}
	if v.Type == nil {
		return fmt.Errorf("attribute %q is not a type", key)
	}
	for _, t := range accepted {
		if *v.Type == t {
			return nil
		}
	}
	return fmt.Errorf("attribute %s=%s unsupported (supported: %s)", key, *v.Type, strings.Join(accepted, ", "))
}

func (a graphAttrs) ints(key string) ([]int, bool, error) {
	v, ok := a.d.Attr[key]
	if !ok {
		return nil, false, nil
	}
	if v.List == nil {
		return nil, true, fmt.Errorf("attribute %q is not a list", key)
	}
	out := make([]int, len(v.List.I))
	for i, x := range v.List.I {
		out[i] = int(x)
	}
	return out, true, nil
}

func (a graphAttrs) strs(key string) ([]string, error) {
	v, ok := a.d.Attr[key]
	if !ok {
		return nil, nil
	}
	if v.List == nil {
		return nil, fmt.Errorf("attribute %q is not a list", key)
	}
	out := make([]string, len(v.List.S))
	for i, s := range v.List.S {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", key, err)
		}
		out[i] = string(b)
	}
	return out, nil
}

func (a graphAttrs) integer(key string) (int, bool, error) {
	v, ok := a.d.Attr[key]
	if !ok {
		return 0, false, nil
	}
	if v.I == nil {
		return 0, true, fmt.Errorf("attribute %q is not an integer", key)
	}
	return int(*v.I), true, nil
}

// emptyList requires a list attribute, when present, to be empty.
func (a graphAttrs) emptyList(key string) error {
	v, ok := a.d.Attr[key]
	if !ok {
		return nil
	}
	if v.List == nil || len(v.List.I) > 0 || len(v.List.S) > 0 || len(v.List.F) > 0 {
		return fmt.Errorf("attribute %q must be empty", key)
	}
	return nil
}

// nhwc reads the 4-element strides/ksize/dilations style attribute of an
// NHWC operation and requires batch and channel entries of 1 and equal
// height and width entries, which is what the operations here implement.
func (a graphAttrs) nhwc(key string, def int) (int, error) {
	v, ok, err := a.ints(key)
	if err != nil {
		return 0, err
	}
	if !ok {
		return def, nil
	}
	if len(v) != 4 || v[0] != 1 || v[3] != 1 || v[1] != v[2] || v[1] < 1 {
		return 0, fmt.Errorf("attribute %s=%v unsupported (want [1, n, n, 1])", key, v)
	}
	return v[1], nil
}

func (a graphAttrs) padding() (Padding, error) {
	s, err := a.oneOf("padding", "", "SAME", "VALID")
	if err != nil {
		return 0, err
	}
	if s == "SAME" {
		return Same, nil
	}
	return Valid, nil
}

func (n *graphNode) wantInputs(k int) error {
	if len(n.inputs) != k {
		return fmt.Errorf("%d inputs, want %d", len(n.inputs), k)
	}
	return nil
}

// constInput returns input i's value when it is a Const node.
func (n *graphNode) constInput(i int, what string) (*Tensor, error) {
	in := n.inputs[i]
	if in.op != "Const" {
		return nil, fmt.Errorf("the %s (input %q, %s) must be a constant", what, in.name, in.op)
	}
	return in.value, nil
}

// fusedInputs checks the fused_ops and the inputs of a fused operation
// (_FusedConv2D, _FusedMatMul): the data, a constant weight (what names it
// in errors) and, when fused_ops starts with BiasAdd, a constant bias. It
// returns the weight, the bias (nil without BiasAdd) and the activation.
func (n *graphNode) fusedInputs(a graphAttrs, what string) (weight, bias *Tensor, act Activation, err error) {
	hasBias, act, err := a.fusedOps()
	if err != nil {
		return nil, nil, 0, err
	}
	want := 2
	if hasBias {
		want = 3
	}
	if err := n.wantInputs(want); err != nil {
		return nil, nil, 0, err
	}
	if weight, err = n.constInput(1, what); err != nil {
		return nil, nil, 0, err
	}
	if hasBias {
		if bias, err = n.constInput(2, "bias"); err != nil {
			return nil, nil, 0, err
		}
	}
	return weight, bias, act, nil
}

// prepare checks a node's attributes and inputs and sets up its run
// function (or value, for constants).
func (n *graphNode) prepare(d *graphNodeDef, w Weights) error {
	a := graphAttrs{d}
	switch d.Op {
	case "Placeholder":
		if err := a.only("dtype", "shape"); err != nil {
			return err
		}
		if err := a.dtype("dtype", "DT_FLOAT"); err != nil {
			return err
		}
		s, ok := d.Attr["shape"]
		if !ok || s.Shape == nil || s.Shape.UnknownRank {
			return errors.New("placeholder without a known shape")
		}
		n.shape = s.Shape.dims()
		return n.wantInputs(0)

	case "Const":
		if err := a.only("dtype", "value"); err != nil {
			return err
		}
		if err := a.dtype("dtype", "DT_FLOAT", "DT_INT32"); err != nil {
			return err
		}
		t, ok := w[d.Name]
		if !ok {
			return errors.New("no weight of that name in the weights manifest")
		}
		if v, ok := d.Attr["value"]; ok && v.Tensor != nil {
			if want := v.Tensor.TensorShape.dims(); fmt.Sprint(want) != fmt.Sprint(t.Shape) {
				return fmt.Errorf("weight has shape %v, the node declares %v", t.Shape, want)
			}
		}
		n.value = t
		return n.wantInputs(0)

	case "Identity":
		if err := a.only("T"); err != nil {
			return err
		}
		if err := a.dtype("T", "DT_FLOAT"); err != nil {
			return err
		}
		n.run = func(in []*Tensor) (*Tensor, error) { return in[0], nil }
		return n.wantInputs(1)

	case "Relu", "Sigmoid", "Softmax":
		if err := a.only("T"); err != nil {
			return err
		}
		if err := a.dtype("T", "DT_FLOAT"); err != nil {
			return err
		}
		switch d.Op {
		case "Relu":
			n.run = func(in []*Tensor) (*Tensor, error) { return graphMap(in[0], graphRelu), nil }
		case "Sigmoid":
			n.run = func(in []*Tensor) (*Tensor, error) { return graphMap(in[0], graphSigmoid), nil }
		default:
			n.run = func(in []*Tensor) (*Tensor, error) { return graphSoftmax(in[0]) }
		}
		return n.wantInputs(1)

	case "Add", "AddV2", "Mul", "Minimum", "Maximum":
		if err := a.only("T"); err != nil {
			return err
		}
		if err := a.dtype("T", "DT_FLOAT"); err != nil {
			return err
		}
		op := map[string]binaryOp{"Add": opAdd, "AddV2": opAdd, "Mul": opMul, "Minimum": opMin, "Maximum": opMax}[d.Op]
		n.run = func(in []*Tensor) (*Tensor, error) { return graphBinary(in[0], in[1], op) }
		return n.wantInputs(2)

	case "Mean":
		return n.prepareMean(a)

	case "DepthwiseConv2dNative":
		return n.prepareDepthwise(a)

	case "Reshape":
		if err := a.only("T", "Tshape"); err != nil {
			return err
		}
		if err := a.dtype("T", "DT_FLOAT"); err != nil {
			return err
		}
		if err := a.dtype("Tshape", "DT_INT32"); err != nil {
			return err
		}
		if err := n.wantInputs(2); err != nil {
			return err
		}
		shape, err := n.constInput(1, "shape")
		if err != nil {
			return err
		}
		if len(shape.Shape) != 1 {
			return fmt.Errorf("shape operand has shape %v, want a vector", shape.Shape)
		}
		dims := make([]int, len(shape.Data))
		for i, v := range shape.Data {
			dims[i] = int(v)
		}
		n.run = func(in []*Tensor) (*Tensor, error) { return graphReshape(in[0], dims) }
		return nil

	case "MaxPool":
		if err := a.only("T", "ksize", "strides", "padding", "data_format", "explicit_paddings"); err != nil {
			return err
		}
		if err := a.dtype("T", "DT_FLOAT"); err != nil {
			return err
		}
		if _, err := a.oneOf("data_format", "NHWC", "NHWC"); err != nil {
			return err
		}
		if err := a.emptyList("explicit_paddings"); err != nil {
			return err
		}
		k, err := a.nhwc("ksize", 0)
		if err != nil {
			return err
		}
		stride, err := a.nhwc("strides", 0)
		if err != nil {
			return err
		}
		if k == 0 || stride == 0 {
			return errors.New("ksize and strides are required")
		}
		mode, err := a.padding()
		if err != nil {
			return err
		}
		n.run = func(in []*Tensor) (*Tensor, error) {
			x, err := graphImage(in[0])
			if err != nil {
				return nil, err
			}
			h, w, _ := x.HWC()
			if mode == Valid && (h < k || w < k) {
				return nil, fmt.Errorf("%dx%d pooling window on input %v", k, k, in[0].Shape)
			}
			return graphBatch(MaxPool(x, k, stride, mode)), nil
		}
		return n.wantInputs(1)

	case "_FusedConv2D", "Conv2D":
		// A plain Conv2D has no fused_ops and two inputs, which
		// prepareConv reads as a convolution without bias or activation.
		return n.prepareConv(a)

	case "_FusedMatMul":
		return n.prepareMatMul(a)
	}
	return fmt.Errorf("unsupported operation %q", d.Op)
}

// fusedOps reads the fused_ops of _FusedConv2D and _FusedMatMul: BiasAdd
// (with num_args 1) optionally followed by Relu, the forms the converter
// writes for Keras Conv2D/Dense layers with and without a ReLU.
func (a graphAttrs) fusedOps() (bias bool, act Activation, err error) {
	ops, err := a.strs("fused_ops")
	if err != nil {
		return false, 0, err
	}
	numArgs, _, err := a.integer("num_args")
	if err != nil {
		return false, 0, err
	}
	rest := ops
	if len(rest) > 0 && rest[0] == "BiasAdd" {
		bias, rest = true, rest[1:]
	}
	if len(rest) > 0 && rest[0] == "Relu" {
		act, rest = ReLU, rest[1:]
	}
	if len(rest) > 0 || (!bias && act != Linear) {
		return false, 0, fmt.Errorf("fused_ops %q unsupported (supported: [BiasAdd], [BiasAdd, Relu])", ops)
	}
	wantArgs := 0
	if bias {
		wantArgs = 1
	}
	if numArgs != wantArgs {
		return false, 0, fmt.Errorf("num_args %d with fused_ops %q", numArgs, ops)
	}
	// epsilon only matters for FusedBatchNorm, which is not supported;
	// leakyrelu_alpha would not be listed without LeakyRelu.
	return bias, act, nil
}

// convGeometry checks what convolutions share (float, NHWC, no explicit
// paddings, no dilation) and returns their equal strides and padding.
func (a graphAttrs) convGeometry() (stride int, mode Padding, err error) {
	if err := a.dtype("T", "DT_FLOAT"); err != nil {
		return 0, mode, err
	}
	if _, err := a.oneOf("data_format", "NHWC", "NHWC"); err != nil {
		return 0, mode, err
	}
	if err := a.emptyList("explicit_paddings"); err != nil {
		return 0, mode, err
	}
	if dil, err := a.nhwc("dilations", 1); err != nil || dil != 1 {
		if err == nil {
			err = fmt.Errorf("dilation %d unsupported", dil)
		}
		return 0, mode, err
	}
	if stride, err = a.nhwc("strides", 0); err != nil {
		return 0, mode, err
	}
	if stride == 0 {
		return 0, mode, errors.New("strides are required")
	}
	mode, err = a.padding()
	return stride, mode, err
}

func (n *graphNode) prepareConv(a graphAttrs) error {
	if err := a.only("T", "strides", "padding", "data_format", "dilations", "explicit_paddings",
		"use_cudnn_on_gpu", "fused_ops", "num_args", "epsilon"); err != nil {
		return err
	}
	stride, mode, err := a.convGeometry()
	if err != nil {
		return err
	}
	filter, bias, act, err := n.fusedInputs(a, "filter")
	if err != nil {
		return err
	}
	conv, err := NewConv2D(filter, stride)
	if err != nil {
		return err
	}
	if bias != nil {
		if len(bias.Shape) != 1 || bias.Shape[0] != conv.Cout {
			return fmt.Errorf("bias of shape %v for %d output channels", bias.Shape, conv.Cout)
		}
		conv.Bias = bias.Data
	}
	conv.Act = act
	n.run = func(in []*Tensor) (*Tensor, error) {
		x, err := graphImage(in[0])
		if err != nil {
			return nil, err
		}
		h, w, c := x.HWC()
		if c != conv.Cin {
			return nil, fmt.Errorf("input %v for a filter with %d input channels", in[0].Shape, conv.Cin)
		}
		if mode == Valid && (h < conv.KH || w < conv.KW) {
			return nil, fmt.Errorf("%dx%d filter on input %v", conv.KH, conv.KW, in[0].Shape)
		}
		return graphBatch(conv.Apply(x, mode)), nil
	}
	return nil
}

func (n *graphNode) prepareMatMul(a graphAttrs) error {
	if err := a.only("T", "transpose_a", "transpose_b", "fused_ops", "num_args", "epsilon"); err != nil {
		return err
	}
	if err := a.dtype("T", "DT_FLOAT"); err != nil {
		return err
	}
	if ta, err := a.boolean("transpose_a"); err != nil || ta {
		if err == nil {
			err = errors.New("transpose_a unsupported")
		}
		return err
	}
	tb, err := a.boolean("transpose_b")
	if err != nil {
		return err
	}
	m, bias, act, err := n.fusedInputs(a, "weight matrix")
	if err != nil {
		return err
	}
	if len(m.Shape) != 2 {
		return fmt.Errorf("weight matrix of shape %v", m.Shape)
	}
	if tb {
		m = graphTranspose(m)
	}
	k, cols := m.Shape[0], m.Shape[1]
	var b []float32
	if bias != nil {
		if len(bias.Shape) != 1 || bias.Shape[0] != cols {
			return fmt.Errorf("bias of shape %v for %d columns", bias.Shape, cols)
		}
		b = bias.Data
	}
	n.run = func(in []*Tensor) (*Tensor, error) {
		x := in[0]
		if len(x.Shape) != 2 || x.Shape[1] != k {
			return nil, fmt.Errorf("input %v times a [%d, %d] matrix", x.Shape, k, cols)
		}
		rows := x.Shape[0]
		out := New(rows, cols)
		for r := 0; r < rows; r++ {
			y := VecMat(FromData(x.Data[r*k:(r+1)*k], k), m)
			dst := out.Data[r*cols : (r+1)*cols]
			copy(dst, y.Data)
			for j := range b {
				dst[j] += b[j]
			}
			if act == ReLU {
				for j, v := range dst {
					dst[j] = max(v, 0)
				}
			}
		}
		return out, nil
	}
	return nil
}

// graphImage drops the batch dimension of a [1, H, W, C] tensor.
func graphImage(t *Tensor) (*Tensor, error) {
	if len(t.Shape) != 4 || t.Shape[0] != 1 {
		return nil, fmt.Errorf("input of shape %v, want [1, height, width, channels] (batch 1)", t.Shape)
	}
	return t.Reshape(t.Shape[1:]...), nil
}

// graphBatch adds the batch dimension back.
func graphBatch(t *Tensor) *Tensor {
	return t.Reshape(append([]int{1}, t.Shape...)...)
}

func graphReshape(t *Tensor, dims []int) (*Tensor, error) {
	shape := append([]int(nil), dims...)
	free, known := -1, 1
	for i, d := range shape {
		switch {
		case d == -1 && free < 0:
			free = i
		case d < 0:
			return nil, fmt.Errorf("reshape to %v", dims)
		default:
			known *= d
		}
	}
	if free >= 0 {
		if known == 0 || t.Size()%known != 0 {
			return nil, fmt.Errorf("cannot reshape %v to %v", t.Shape, dims)
		}
		shape[free] = t.Size() / known
	}
	if size(shape) != t.Size() {
		return nil, fmt.Errorf("cannot reshape %v to %v", t.Shape, dims)
	}
	// Sharing the data is safe: no operation here writes to its inputs.
	return t.Reshape(shape...), nil
}

func graphTranspose(m *Tensor) *Tensor {
	r, c := m.Shape[0], m.Shape[1]
	out := New(c, r)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out.Data[j*r+i] = m.Data[i*c+j]
		}
	}
	return out
}

func graphRelu(v float32) float32 { return max(v, 0) }

// graphSigmoid is 1/(1+e^-x), computed in float64 and rounded once.
func graphSigmoid(v float32) float32 {
	return float32(1 / (1 + math.Exp(-float64(v))))
}

// graphMap applies f to every element, into a new tensor.
func graphMap(t *Tensor, f func(float32) float32) *Tensor {
	out := &Tensor{Shape: append([]int(nil), t.Shape...), Data: make([]float32, len(t.Data))}
	for i, v := range t.Data {
		out.Data[i] = f(v)
	}
	return out
}

// graphSoftmax normalises over the last dimension: exp(x - max) / sum.
func graphSoftmax(t *Tensor) (*Tensor, error) {
	if len(t.Shape) == 0 || t.Shape[len(t.Shape)-1] == 0 {
		return nil, fmt.Errorf("softmax of shape %v", t.Shape)
	}
	n := t.Shape[len(t.Shape)-1]
	out := &Tensor{Shape: append([]int(nil), t.Shape...), Data: make([]float32, len(t.Data))}
	e := make([]float64, n)
	for r := 0; r < len(t.Data)/n; r++ {
		row := t.Data[r*n : (r+1)*n]
		m := row[0]
		for _, v := range row {
			m = max(m, v)
		}
		var sum float64
		for i, v := range row {
			e[i] = math.Exp(float64(v - m))
			sum += e[i]
		}
		for i := range row {
			out.Data[r*n+i] = float32(e[i] / sum)
		}
	}
	return out, nil
}

// binaryOp is an elementwise operation of two tensors.
type binaryOp int

const (
	opAdd binaryOp = iota
	opMul
	opMin
	opMax
)

// graphBinary is elementwise a+b, a*b, min(a, b) or max(a, b) with NumPy
// broadcasting. Minimum and Maximum of a NaN are NaN, as in TensorFlow.
func graphBinary(a, b *Tensor, op binaryOp) (*Tensor, error) {
	rank := max(len(a.Shape), len(b.Shape))
	shape := make([]int, rank)
	as, bs := make([]int, rank), make([]int, rank) // element strides, 0 where broadcast
	sa, sb := 1, 1
	for i := rank - 1; i >= 0; i-- {
		da, db := 1, 1
		if j := i - (rank - len(a.Shape)); j >= 0 {
			da = a.Shape[j]
		}
		if j := i - (rank - len(b.Shape)); j >= 0 {
			db = b.Shape[j]
		}
		switch {
		case da == db:
			shape[i] = da
		case da == 1:
			shape[i] = db
		case db == 1:
			shape[i] = da
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", a.Shape, b.Shape)
		}
		if da != 1 {
			as[i] = sa
		}
		if db != 1 {
			bs[i] = sb
		}
		sa *= da
		sb *= db
	}
	out := New(shape...)
	if len(out.Data) == 0 {
		return out, nil
	}
	// Walk the output in order with a multi-index; the innermost
	// dimension is a tight loop.
	inner := shape[rank-1]
	ai, bi := as[rank-1], bs[rank-1]
	idx := make([]int, rank)
	pa, pb := 0, 0
	for o := 0; o < len(out.Data); o += inner {
		dst := out.Data[o : o+inner]
		switch op {
		case opAdd:
			for j := range dst {
				dst[j] = a.Data[pa+j*ai] + b.Data[pb+j*bi]
			}
		case opMul:
			for j := range dst {
				dst[j] = a.Data[pa+j*ai] * b.Data[pb+j*bi]
			}
		case opMin:
			for j := range dst {
				dst[j] = float32(math.Min(float64(a.Data[pa+j*ai]), float64(b.Data[pb+j*bi])))
			}
		case opMax:
			for j := range dst {
				dst[j] = float32(math.Max(float64(a.Data[pa+j*ai]), float64(b.Data[pb+j*bi])))
			}
		}
		// Advance the multi-index over the outer dimensions.
		for d := rank - 2; d >= 0; d-- {
			idx[d]++
			pa += as[d]
			pb += bs[d]
			if idx[d] < shape[d] {
				break
			}
			pa -= as[d] * shape[d]
			pb -= bs[d] * shape[d]
			idx[d] = 0
		}
	}
	return out, nil
}

// prepareDepthwise sets up DepthwiseConv2dNative: a depthwise convolution
// with a constant [KH, KW, C, 1] filter (channel multiplier 1), NHWC,
// equal strides, no dilation.
func (n *graphNode) prepareDepthwise(a graphAttrs) error {
	if err := a.only("T", "strides", "padding", "data_format", "dilations", "explicit_paddings"); err != nil {
		return err
	}
	stride, mode, err := a.convGeometry()
	if err != nil {
		return err
	}
	if err := n.wantInputs(2); err != nil {
		return err
	}
	filter, err := n.constInput(1, "filter")
	if err != nil {
		return err
	}
	if len(filter.Shape) != 4 || filter.Shape[3] != 1 || filter.Shape[0] < 1 || filter.Shape[1] < 1 {
		return fmt.Errorf("depthwise filter of shape %v, want [kh, kw, channels, 1] (channel multiplier 1)", filter.Shape)
	}
	kh, kw, c := filter.Shape[0], filter.Shape[1], filter.Shape[2]
	n.run = func(in []*Tensor) (*Tensor, error) {
		x, err := graphImage(in[0])
		if err != nil {
			return nil, err
		}
		h, w, xc := x.HWC()
		if xc != c {
			return nil, fmt.Errorf("input %v for a depthwise filter of %d channels", in[0].Shape, c)
		}
		if mode == Valid && (h < kh || w < kw) {
			return nil, fmt.Errorf("%dx%d filter on input %v", kh, kw, in[0].Shape)
		}
		return graphBatch(DepthwiseConv2D(x, filter, stride, mode)), nil
	}
	return nil
}

// prepareMean sets up Mean: the average over the constant axes of its
// second input (negative axes count from the end; an empty list is the
// identity), keeping the reduced dimensions as 1 with keep_dims.
func (n *graphNode) prepareMean(a graphAttrs) error {
	if err := a.only("T", "Tidx", "keep_dims"); err != nil {
		return err
	}
	if err := a.dtype("T", "DT_FLOAT"); err != nil {
		return err
	}
	if err := a.dtype("Tidx", "DT_INT32"); err != nil {
		return err
	}
	keep, err := a.boolean("keep_dims")
	if err != nil {
		return err
	}
	if err := n.wantInputs(2); err != nil {
		return err
	}
	axesT, err := n.constInput(1, "reduction_indices")
	if err != nil {
		return err
	}
	if len(axesT.Shape) > 1 {
		return fmt.Errorf("reduction_indices of shape %v, want a scalar or a vector", axesT.Shape)
	}
	axes := make([]int, len(axesT.Data))
	for i, v := range axesT.Data {
		axes[i] = int(v)
	}
	n.run = func(in []*Tensor) (*Tensor, error) { return graphMean(in[0], axes, keep) }
	return nil
}

// graphMean averages t over axes, summing in float64 and rounding once.
func graphMean(t *Tensor, axes []int, keep bool) (*Tensor, error) {
	rank := len(t.Shape)
	reduced := make([]bool, rank)
	for _, ax := range axes {
		if ax < 0 {
			ax += rank
		}
		if ax < 0 || ax >= rank {
			return nil, fmt.Errorf("mean over axis %v of a tensor of shape %v", axes, t.Shape)
		}
		reduced[ax] = true
	}
	var shape []int
	count := 1
	for i, d := range t.Shape {
		switch {
		case !reduced[i]:
			shape = append(shape, d)
		case keep:
			shape = append(shape, 1)
			count *= d
		default:
			count *= d
		}
	}
	out := New(shape...)
	if count == 0 || len(t.Data) == 0 {
		if len(out.Data) > 0 {
			// The mean of nothing is NaN, as in TensorFlow.
			for i := range out.Data {
				out.Data[i] = float32(math.NaN())
			}
		}
		return out, nil
	}
	// Output strides over the input's dimensions: 0 for reduced ones.
	ostride := make([]int, rank)
	s := 1
	for i := rank - 1; i >= 0; i-- {
		if !reduced[i] {
			ostride[i] = s
			s *= t.Shape[i]
		}
	}
	sum := make([]float64, len(out.Data))
	idx := make([]int, rank)
	o := 0
	for _, v := range t.Data {
		sum[o] += float64(v)
		for d := rank - 1; d >= 0; d-- {
			idx[d]++
			o += ostride[d]
			if idx[d] < t.Shape[d] {
				break
			}
			o -= ostride[d] * t.Shape[d]
			idx[d] = 0
		}
	}
	for i, v := range sum {
		out.Data[i] = float32(v / float64(count))
	}
	return out, nil
}
