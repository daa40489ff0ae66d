package tfjs

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFloat16(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125}, {0x7bff, 65504},
		{0x0400, 6.103515625e-05}, {0x0001, 5.960464477539063e-08}, {0x83ff, -6.097555160522461e-05},
		{0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	} {
		if got := Float16(c.h); got != c.want {
			t.Errorf("Float16(%#04x) = %v, want %v", c.h, got, c.want)
		}
	}
	if got := Float16(0x7e00); !math.IsNaN(float64(got)) {
		t.Errorf("Float16(0x7e00) = %v, want NaN", got)
	}
	if got := Float16(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("Float16(0x8000) = %v, want -0", got)
	}
}

func f64(v float64) *float64 { return &v }

func TestDecodeWeight(t *testing.T) {
	// uint8 affine: q*scale + min computed in float64, stored as float32.
	spec := WeightSpec{Name: "w", Shape: []int{2, 2}, DType: "float32",
		Quantization: &Quantization{DType: "uint8", Scale: f64(0.1), Min: f64(-1)}}
	w, n, err := DecodeWeight(spec, []byte{0, 10, 255, 3, 99})
	if err != nil || n != 4 {
		t.Fatalf("uint8: n=%d err=%v", n, err)
	}
	for i, q := range []float64{0, 10, 255, 3} {
		if want := float32(q*0.1 - 1); w.Data[i] != want {
			t.Errorf("uint8 value %d = %v, want %v", i, w.Data[i], want)
		}
	}
	// uint16, int32 dtype: rounded like Math.round (half up).
	spec = WeightSpec{Name: "i", Shape: []int{3}, DType: "int32",
		Quantization: &Quantization{DType: "uint16", Scale: f64(0.5), Min: f64(-1)}}
	b := make([]byte, 6)
	binary.LittleEndian.PutUint16(b[0:], 1)   // -0.5 → -0
	binary.LittleEndian.PutUint16(b[2:], 5)   // 1.5 → 2
	binary.LittleEndian.PutUint16(b[4:], 600) // 299
	w, n, err = DecodeWeight(spec, b)
	if err != nil || n != 6 {
		t.Fatalf("uint16: n=%d err=%v", n, err)
	}
	if got := w.Data; got[0] != 0 || got[1] != 2 || got[2] != 299 {
		t.Errorf("uint16 int32 values %v, want [0 2 299]", got)
	}
	// float16.
	spec = WeightSpec{Name: "h", Shape: []int{2}, DType: "float32", Quantization: &Quantization{DType: "float16"}}
	w, n, err = DecodeWeight(spec, []byte{0x00, 0x3c, 0x00, 0xc0})
	if err != nil || n != 4 || w.Data[0] != 1 || w.Data[1] != -2 {
		t.Errorf("float16: %v n=%d err=%v", w, n, err)
	}
	// Plain float32 and int32.
	b = make([]byte, 8)
	binary.LittleEndian.PutUint32(b, math.Float32bits(1.25))
	binary.LittleEndian.PutUint32(b[4:], uint32(0xffffffff))
	if w, _, err = DecodeWeight(WeightSpec{Name: "f", Shape: []int{1}, DType: "float32"}, b); err != nil || w.Data[0] != 1.25 {
		t.Errorf("float32: %v %v", w, err)
	}
	if w, _, err = DecodeWeight(WeightSpec{Name: "n", Shape: []int{1}, DType: "int32"}, b[4:]); err != nil || w.Data[0] != -1 {
		t.Errorf("int32: %v %v", w, err)
	}
	// Errors.
	for _, bad := range []WeightSpec{
		{Name: "short", Shape: []int{9}, DType: "float32"},
		{Name: "nomin", Shape: []int{1}, DType: "float32", Quantization: &Quantization{DType: "uint8", Scale: f64(1)}},
		{Name: "q", Shape: []int{1}, DType: "float32", Quantization: &Quantization{DType: "int4"}},
		{Name: "s", Shape: []int{1}, DType: "string"},
	} {
		if _, _, err := DecodeWeight(bad, make([]byte, 8)); err == nil {
			t.Errorf("%s: no error", bad.Name)
		}
	}
}

func TestLoadManifestFile(t *testing.T) {
	dir := t.TempDir()
	// Two weights in a group split across two shards, one in a second group.
	data := make([]byte, 0, 16)
	for _, v := range []float32{1, 2, 3} {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
	}
	data = append(data, 7, 9) // uint8-quantized [2]
	os.WriteFile(filepath.Join(dir, "a.bin"), data[:5], 0o600)
	os.WriteFile(filepath.Join(dir, "b.bin"), data[5:], 0o600)
	binary.LittleEndian.AppendUint32(nil, 0)
	os.WriteFile(filepath.Join(dir, "c.bin"), binary.LittleEndian.AppendUint32(nil, math.Float32bits(-4)), 0o600)
	groups := []WeightGroup{
		{Paths: []string{"a.bin", "b.bin"}, Weights: []WeightSpec{
			{Name: "x", Shape: []int{3}, DType: "float32"},
			{Name: "y", Shape: []int{2}, DType: "float32", Quantization: &Quantization{DType: "uint8", Scale: f64(2), Min: f64(1)}},
		}},
		{Paths: []string{"c.bin"}, Weights: []WeightSpec{{Name: "z", Shape: []int{}, DType: "float32"}}},
	}
	manifest, _ := json.Marshal(groups)
	modelJSON, _ := json.Marshal(map[string]any{"format": "graph-model", "modelTopology": map[string]any{"node": []any{}}, "weightsManifest": groups})
	for name, raw := range map[string][]byte{"m-weights_manifest.json": manifest, "model.json": modelJSON} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, raw, 0o600)
		w, m, err := LoadManifestFile(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if (m != nil) != (name == "model.json") || (m != nil && m.Format != "graph-model") {
			t.Errorf("%s: model %+v", name, m)
		}
		x, err := w.Get("x", 3)
		if err != nil || x.Data[2] != 3 {
			t.Errorf("%s: x = %v, %v", name, x, err)
		}
		if y, err := w.Get("y", 2); err != nil || y.Data[0] != 15 || y.Data[1] != 19 {
			t.Errorf("%s: y = %v, %v", name, y, err)
		}
		if z, err := w.Get("z"); err != nil || z.Data[0] != -4 {
			t.Errorf("%s: z = %v, %v", name, z, err)
		}
		if _, err := w.Get("x", 4); err == nil {
			t.Errorf("%s: wrong shape accepted", name)
		}
	}
	// A shard longer than its weights is an error, as is a path leaving
	// the directory.
	os.WriteFile(filepath.Join(dir, "c.bin"), make([]byte, 8), 0o600)
	if _, _, err := LoadManifestFile(filepath.Join(dir, "model.json")); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("oversized shard: %v", err)
	}
	groups[1].Paths = []string{"../c.bin"}
	manifest, _ = json.Marshal(groups)
	os.WriteFile(filepath.Join(dir, "evil.json"), manifest, 0o600)
	if _, _, err := LoadManifestFile(filepath.Join(dir, "evil.json")); err == nil {
		t.Error("shard path outside the directory accepted")
	}
}

func randTensor(r *rand.Rand, shape ...int) *Tensor {
	t := New(shape...)
	for i := range t.Data {
		t.Data[i] = float32(r.NormFloat64())
	}
	return t
}

// naiveConv is the textbook convolution with explicit padding.
func naiveConv(x, f *Tensor, stride int, p Pad, oh, ow int) *Tensor {
	h, w, cin := x.HWC()
	kh, kw, cout := f.Shape[0], f.Shape[1], f.Shape[3]
	out := New(oh, ow, cout)
	for oy := 0; oy < oh; oy++ {
		for ox := 0; ox < ow; ox++ {
			for co := 0; co < cout; co++ {
				var s float64
				for ky := 0; ky < kh; ky++ {
					for kx := 0; kx < kw; kx++ {
						iy, ix := oy*stride-p.Top+ky, ox*stride-p.Left+kx
						if iy < 0 || iy >= h || ix < 0 || ix >= w {
							continue
						}
						for ci := 0; ci < cin; ci++ {
							s += float64(x.Data[(iy*w+ix)*cin+ci]) * float64(f.Data[((ky*kw+kx)*cin+ci)*cout+co])
						}
					}
				}
				out.Data[(oy*ow+ox)*cout+co] = float32(s)
			}
		}
	}
	return out
}

func maxDiff(t *testing.T, got, want *Tensor) float64 {
	t.Helper()
	if len(got.Shape) != len(want.Shape) {
		t.Fatalf("shape %v, want %v", got.Shape, want.Shape)
	}
	for i := range got.Shape {
		if got.Shape[i] != want.Shape[i] {
			t.Fatalf("shape %v, want %v", got.Shape, want.Shape)
		}
	}
	var d float64
	for i := range got.Data {
		d = max(d, math.Abs(float64(got.Data[i]-want.Data[i])))
	}
	return d
}

func maxAbs(t *Tensor) float64 {
	var m float64
	for _, v := range t.Data {
		m = max(m, math.Abs(float64(v)))
	}
	return m
}

func TestPadFor(t *testing.T) {
	for _, c := range []struct {
		mode                  Padding
		in, k, stride, outLen int
		before, after         int
	}{
		{Same, 13, 2, 1, 13, 0, 1},
		{Same, 207, 2, 2, 104, 0, 1},
		{Same, 414, 2, 2, 207, 0, 0},
		{Same, 35, 3, 1, 35, 1, 1},
		{Same, 8, 3, 2, 4, 0, 1},
		{Valid, 35, 3, 2, 17, 0, 0},
		{Valid, 150, 7, 2, 72, 0, 0},
	} {
		p, oh, ow := padFor(c.mode, c.in, c.in, c.k, c.k, c.stride)
		if oh != c.outLen || ow != c.outLen || p.Top != c.before || p.Bottom != c.after || p.Left != c.before || p.Right != c.after {
			t.Errorf("%+v: pad %+v out %dx%d", c, p, oh, ow)
		}
	}
}

func TestConv2DMatchesNaive(t *testing.T) {
	for _, wino := range []bool{false, true} {
		UseWinograd = wino
		t.Run(fmt.Sprintf("winograd=%v", wino), testConv2DMatchesNaive)
	}
	UseWinograd = true
}

func testConv2DMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	// Winograd's transforms multiply and add values up to 5× apart, so its
	// float32 rounding error is larger than the direct sum's.
	tol := 1e-6
	if UseWinograd {
		tol = 2e-5
	}
	for _, threadCount := range []int{1, 3} {
		Threads = threadCount
		for _, c := range []struct{ h, w, cin, cout, k, stride int }{
			{9, 7, 3, 5, 3, 1}, {10, 10, 4, 8, 3, 2}, {6, 5, 7, 3, 1, 1}, {17, 17, 3, 32, 7, 2},
			{4, 4, 16, 9, 3, 2}, {1, 1, 5, 4, 1, 1}, {23, 19, 6, 13, 2, 2},
			{35, 35, 32, 32, 3, 1}, {4, 4, 64, 64, 3, 1}, {13, 11, 5, 7, 3, 1}, {3, 5, 2, 2, 3, 1},
		} {
			x := randTensor(r, c.h, c.w, c.cin)
			f := randTensor(r, c.k, c.k, c.cin, c.cout)
			conv, err := NewConv2D(f, c.stride)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []Padding{Same, Valid} {
				if mode == Valid && (c.h < c.k || c.w < c.k) {
					continue
				}
				p, oh, ow := padFor(mode, c.h, c.w, c.k, c.k, c.stride)
				want := naiveConv(x, f, c.stride, p, oh, ow)
				// Relative to the largest output: sums of up to 288
				// products of N(0,1) values reach ~50.
				if d := maxDiff(t, conv.Apply(x, mode), want) / maxAbs(want); d > tol {
					t.Errorf("threads %d %+v mode %d: max difference %.2g of the largest output, tolerance %g", threadCount, c, mode, d, tol)
				}
			}
		}
	}
	Threads = 0
}

func TestConv2DEpilogue(t *testing.T) {
	x := FromData([]float32{1, -2, 3, -4}, 1, 2, 2)
	f := FromData([]float32{1, 0, 0, 1}, 1, 1, 2, 2) // identity
	c, _ := NewConv2D(f, 1)
	c.Bias, c.Scale, c.Offset, c.Act = []float32{1, 1}, []float32{2, 3}, []float32{0, -1}, ReLU
	got := c.Apply(x, Valid).Data
	// (v+1)*s+o, relu: (1+1)*2=4, (-2+1)*3-1=-4→0, (3+1)*2=8, (-4+1)*3-1→0
	if want := []float32{4, 0, 8, 0}; !equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	c.Bias, c.Scale, c.Offset, c.Act = nil, nil, nil, Leaky
	got = c.Apply(x, Valid).Data
	if want := []float32{1, -2 * leakySlope, 3, -4 * leakySlope}; !equal(got, want) {
		t.Errorf("leaky: got %v, want %v", got, want)
	}
}

// The epilogue is fused into the Winograd output transform; both paths
// must apply it identically.
func TestConv2DEpilogueBothPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randTensor(r, 9, 8, 4)
	f := randTensor(r, 3, 3, 4, 5)
	var outs []*Tensor
	for _, wino := range []bool{false, true} {
		UseWinograd = wino
		c, _ := NewConv2D(f, 1)
		c.Bias = []float32{1, -1, 0.5, 0, 2}
		c.Scale = []float32{2, 0.5, -1, 1, 3}
		c.Offset = []float32{0, 1, -2, 0.25, -1}
		c.Act = ReLU
		outs = append(outs, c.Apply(x, Same))
	}
	UseWinograd = true
	p, oh, ow := padFor(Same, 9, 8, 3, 3, 1)
	want := naiveConv(x, f, 1, p, oh, ow)
	for i := range want.Data {
		co := i % 5
		v := (want.Data[i]+[]float32{1, -1, 0.5, 0, 2}[co])*[]float32{2, 0.5, -1, 1, 3}[co] + []float32{0, 1, -2, 0.25, -1}[co]
		want.Data[i] = max(v, 0)
	}
	for i, got := range outs {
		if d := maxDiff(t, got, want) / maxAbs(want); d > 2e-5 {
			t.Errorf("path %d: max difference %.2g of the largest output", i, d)
		}
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func TestDepthwiseConv2D(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randTensor(r, 7, 6, 5)
	f := randTensor(r, 3, 3, 5, 1)
	// A depthwise convolution is a full convolution with a diagonal filter.
	full := New(3, 3, 5, 5)
	for k := 0; k < 9; k++ {
		for c := 0; c < 5; c++ {
			full.Data[(k*5+c)*5+c] = f.Data[k*5+c]
		}
	}
	for _, stride := range []int{1, 2} {
		for _, mode := range []Padding{Same, Valid} {
			p, oh, ow := padFor(mode, 7, 6, 3, 3, stride)
			if d := maxDiff(t, DepthwiseConv2D(x, f, stride, mode), naiveConv(x, full, stride, p, oh, ow)); d > 1e-5 {
				t.Errorf("stride %d mode %d: max difference %g", stride, mode, d)
			}
		}
	}
}

func TestPooling(t *testing.T) {
	x := FromData([]float32{
		1, 2, 3,
		4, 5, 6,
		7, 8, 9,
	}, 3, 3, 1)
	if got := MaxPool(x, 2, 2, Same).Data; !equal(got, []float32{5, 6, 8, 9}) {
		t.Errorf("max same: %v", got)
	}
	if got := MaxPool(x, 2, 1, Same).Data; !equal(got, []float32{5, 6, 6, 8, 9, 9, 8, 9, 9}) {
		t.Errorf("max same stride 1: %v", got)
	}
	if got := AvgPool(x, 2, 2, Valid).Data; !equal(got, []float32{3}) {
		t.Errorf("avg valid: %v", got)
	}
	if got := AvgPool(x, 2, 2, Same).Data; !equal(got, []float32{3, 4.5, 7.5, 9}) {
		t.Errorf("avg same (padding not counted): %v", got)
	}
	if got := MaxPool(x, 3, 2, Valid).Data; !equal(got, []float32{9}) {
		t.Errorf("max 3x3 valid: %v", got)
	}
	if got := MeanHW(x).Data; !equal(got, []float32{5}) {
		t.Errorf("mean: %v", got)
	}
}

func TestResizeBilinear(t *testing.T) {
	// tfjs-core's resize_bilinear_test "simple alignCorners=false".
	x := FromData([]float32{2, 2, 4, 4}, 2, 2, 1)
	if got := ResizeBilinear(x, 3, 3).Data; !equal(got, []float32{2, 2, 2, 10. / 3, 10. / 3, 10. / 3, 4, 4, 4}) {
		t.Errorf("got %v", got)
	}
	// "works for ints".
	x = FromData([]float32{1, 2, 3, 4, 5}, 1, 5, 1)
	if got := ResizeBilinear(x, 1, 10).Data; !equal(got, []float32{1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5}) {
		t.Errorf("got %v", got)
	}
	// "matches tensorflow w/ random numbers alignCorners=false".
	x = FromData([]float32{
		1.19074044, 0.91373104, 2.01611669, -0.52270832, 0.38725395, 1.30809779,
		0.61835143, 3.49600659, 2.09230986, 0.56473997, 0.03823943, 1.19864896,
	}, 2, 3, 2)
	want := []float32{
		1.19074047, 0.91373104, 1.68596613, 0.05186744, 1.69034398, -0.15654698,
		0.7130264, 0.94193673, 0.38725394, 1.30809784, 0.9045459, 2.20486879,
		1.59434628, 0.89455694, 1.68591988, 0.26748738, 0.58103991, 1.00690198,
		0.21274668, 1.25337338, 0.6183514, 3.49600649, 1.50272655, 1.73724651,
		1.68149579, 0.69152176, 0.44905344, 1.07186723, 0.03823943, 1.19864893,
		0.6183514, 3.49600649, 1.50272655, 1.73724651, 1.68149579, 0.69152176,
		0.44905344, 1.07186723, 0.03823943, 1.19864893,
	}
	got := ResizeBilinear(x, 4, 5).Data
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			t.Fatalf("value %d = %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

func TestVecMatAndPad(t *testing.T) {
	v := FromData([]float32{1, 2}, 2)
	m := FromData([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if got := VecMat(v, m).Data; !equal(got, []float32{9, 12, 15}) {
		t.Errorf("vecmat: %v", got)
	}
	x := FromData([]float32{1, 2}, 1, 1, 2)
	p := PadHWC(x, Pad{Bottom: 1, Right: 1}, 1)
	if p.Shape[0] != 2 || p.Shape[1] != 2 || p.Shape[2] != 3 || !equal(p.Data[:3], []float32{1, 2, 0}) || !equal(p.Data[3:], make([]float32, 9)) {
		t.Errorf("pad: %v %v", p.Shape, p.Data)
	}
}
