package tfjs

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// WeightGroup is one entry of a TensorFlow.js weights manifest: binary
// shards that, concatenated in order, hold the listed weights back to back.
type WeightGroup struct {
	Paths   []string     `json:"paths"`
	Weights []WeightSpec `json:"weights"`
}

// WeightSpec describes one weight in a group.
type WeightSpec struct {
	Name         string        `json:"name"`
	Shape        []int         `json:"shape"`
	DType        string        `json:"dtype"` // float32, int32 or bool
	Quantization *Quantization `json:"quantization,omitempty"`
}

// Quantization is how a weight is stored when it is quantized: DType uint8
// or uint16 with value = q*Scale + Min, or DType float16.
type Quantization struct {
	DType string   `json:"dtype"`
	Scale *float64 `json:"scale,omitempty"`
	Min   *float64 `json:"min,omitempty"`
}

// ModelJSON is the part of a TensorFlow.js model.json this package reads.
// Format is "graph-model" or "layers-model" (older files leave it empty);
// ModelTopology is kept undecoded for callers that interpret it.
type ModelJSON struct {
	Format          string          `json:"format"`
	GeneratedBy     string          `json:"generatedBy"`
	ConvertedBy     string          `json:"convertedBy"`
	ModelTopology   json.RawMessage `json:"modelTopology"`
	WeightsManifest []WeightGroup   `json:"weightsManifest"`
}

// Weights maps weight names to their values. Integer and boolean weights
// are converted to float32 (exact up to 2^24).
type Weights map[string]*Tensor

// Get returns the named weight and checks its shape; a dimension of -1 in
// want matches anything.
func (w Weights) Get(name string, want ...int) (*Tensor, error) {
	t, ok := w[name]
	if !ok {
		return nil, fmt.Errorf("tfjs: weight %q missing", name)
	}
	if want != nil {
		if len(want) != len(t.Shape) {
			return nil, fmt.Errorf("tfjs: weight %q has shape %v, want %v", name, t.Shape, want)
		}
		for i, d := range want {
			if d >= 0 && t.Shape[i] != d {
				return nil, fmt.Errorf("tfjs: weight %q has shape %v, want %v", name, t.Shape, want)
			}
		}
	}
	return t, nil
}

// LoadManifestFile reads the weights of a TensorFlow.js model from a file
// that is either a weights manifest (a JSON array of weight groups) or a
// model.json (an object with "weightsManifest"). Shard paths are relative
// to the file's directory.
func LoadManifestFile(path string) (Weights, *ModelJSON, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var groups []WeightGroup
	var model *ModelJSON
	trimmed := strings.TrimSpace(string(raw))
	switch {
	case strings.HasPrefix(trimmed, "["):
		if err := json.Unmarshal(raw, &groups); err != nil {
			return nil, nil, fmt.Errorf("tfjs: %s: %w", path, err)
		}
	case strings.HasPrefix(trimmed, "{"):
		model = new(ModelJSON)
		if err := json.Unmarshal(raw, model); err != nil {
			return nil, nil, fmt.Errorf("tfjs: %s: %w", path, err)
		}
		groups = model.WeightsManifest
	default:
		return nil, nil, fmt.Errorf("tfjs: %s is neither a weights manifest nor a model.json", path)
	}
	if len(groups) == 0 {
		return nil, nil, fmt.Errorf("tfjs: %s lists no weights", path)
	}
	dir := filepath.Dir(path)
	w, err := LoadWeights(groups, func(p string) ([]byte, error) {
		if filepath.IsAbs(p) || strings.Contains(filepath.ToSlash(p), "..") {
			return nil, fmt.Errorf("tfjs: shard path %q leaves the model directory", p)
		}
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	})
	if err != nil {
		return nil, nil, fmt.Errorf("tfjs: %s: %w", path, err)
	}
	return w, model, nil
}

// LoadWeights decodes the weights of a manifest, reading each shard with
// read.
func LoadWeights(groups []WeightGroup, read func(path string) ([]byte, error)) (Weights, error) {
	out := Weights{}
	for _, g := range groups {
		var buf []byte
		for _, p := range g.Paths {
			b, err := read(p)
			if err != nil {
				return nil, err
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, spec := range g.Weights {
			t, n, err := DecodeWeight(spec, buf[off:])
			if err != nil {
				return nil, err
			}
			off += n
			if _, dup := out[spec.Name]; dup {
				return nil, fmt.Errorf("weight %q listed twice", spec.Name)
			}
			out[spec.Name] = t
		}
		if off != len(buf) {
			return nil, fmt.Errorf("shards %v hold %d bytes, the weights use %d", g.Paths, len(buf), off)
		}
	}
	return out, nil
}

var errShort = errors.New("shard data ends before the weight")

// DecodeWeight decodes one weight from the start of buf, the way
// tfjs-core's io.decodeWeights does (so quantized values are rounded to
// float32 identically), and returns it with the number of bytes it used.
func DecodeWeight(spec WeightSpec, buf []byte) (*Tensor, int, error) {
	n := 1
	for _, d := range spec.Shape {
		if d < 0 {
			return nil, 0, fmt.Errorf("weight %q: bad shape %v", spec.Name, spec.Shape)
		}
		n *= d
	}
	t := &Tensor{Shape: append([]int(nil), spec.Shape...), Data: make([]float32, n)}
	if q := spec.Quantization; q != nil {
		switch q.DType {
		case "uint8", "uint16":
			if q.Scale == nil || q.Min == nil {
				return nil, 0, fmt.Errorf("weight %q: %s quantization without scale and min", spec.Name, q.DType)
			}
			if spec.DType != "float32" && spec.DType != "int32" {
				return nil, 0, fmt.Errorf("weight %q: %s quantization of dtype %q", spec.Name, q.DType, spec.DType)
			}
			width := 1
			if q.DType == "uint16" {
				width = 2
			}
			if len(buf) < n*width {
				return nil, 0, fmt.Errorf("weight %q: %w", spec.Name, errShort)
			}
			scale, min := *q.Scale, *q.Min
			for i := range t.Data {
				var v float64
				if width == 1 {
					v = float64(buf[i])
				} else {
					v = float64(binary.LittleEndian.Uint16(buf[2*i:]))
				}
				// JavaScript computes in float64 and stores into a
				// Float32Array (int32 weights: Math.round first).
				f := v*scale + min
				if spec.DType == "int32" {
					f = math.Floor(f + 0.5)
				}
				t.Data[i] = float32(f)
			}
			return t, n * width, nil
		case "float16":
			if spec.DType != "float32" {
				return nil, 0, fmt.Errorf("weight %q: float16 quantization of dtype %q", spec.Name, spec.DType)
			}
			if len(buf) < 2*n {
				return nil, 0, fmt.Errorf("weight %q: %w", spec.Name, errShort)
			}
			for i := range t.Data {
				t.Data[i] = Float16(binary.LittleEndian.Uint16(buf[2*i:]))
			}
			return t, 2 * n, nil
		default:
			return nil, 0, fmt.Errorf("weight %q: unknown quantization dtype %q", spec.Name, q.DType)
		}
	}
	switch spec.DType {
	case "float32", "int32":
		if len(buf) < 4*n {
			return nil, 0, fmt.Errorf("weight %q: %w", spec.Name, errShort)
		}
		for i := range t.Data {
			u := binary.LittleEndian.Uint32(buf[4*i:])
			if spec.DType == "float32" {
				t.Data[i] = math.Float32frombits(u)
			} else {
				t.Data[i] = float32(int32(u))
			}
		}
		return t, 4 * n, nil
	case "bool":
		if len(buf) < n {
			return nil, 0, fmt.Errorf("weight %q: %w", spec.Name, errShort)
		}
		for i := range t.Data {
			if buf[i] != 0 {
				t.Data[i] = 1
			}
		}
		return t, n, nil
	}
	return nil, 0, fmt.Errorf("weight %q: unsupported dtype %q", spec.Name, spec.DType)
}

// Float16 converts an IEEE 754 half-precision value to float32.
func Float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: value = mant * 2^-24.
		f := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}
