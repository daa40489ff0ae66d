package tfjs

import "testing"

func TestChannelAffineClip(t *testing.T) {
	in := []float32{-1, 2, 7, 0.5, 3, -4}
	cases := []struct {
		scale, offset []float32
		want          []float32
	}{
		{nil, nil, []float32{0, 2, 6, 0.5, 3, 0}},
		{nil, []float32{1, -1, 0}, []float32{0, 1, 6, 1.5, 2, 0}},
		{[]float32{2, 0.5, -1}, nil, []float32{0, 1, 0, 1, 1.5, 4}},
		{[]float32{2, 0.5, -1}, []float32{1, 0, 10}, []float32{0, 1, 3, 2, 1.5, 6}},
	}
	for i, c := range cases {
		x := FromData(append([]float32(nil), in...), 2, 1, 3)
		got := ChannelAffineClip(x, c.scale, c.offset, 0, 6)
		for j, v := range got.Data {
			if v != c.want[j] {
				t.Errorf("case %d: %v, want %v", i, got.Data, c.want)
				break
			}
		}
	}
}
