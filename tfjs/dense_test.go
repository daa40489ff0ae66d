package tfjs

import "testing"

func TestDense(t *testing.T) {
	x := FromData([]float32{1, 2, 3}, 1, 1, 3)
	w := FromData([]float32{
		1, 0,
		0, 1,
		2, -1,
	}, 3, 2)
	got := Dense(x, w, FromData([]float32{0.5, -0.5}, 2))
	want := []float32{1 + 6 + 0.5, 2 - 3 - 0.5}
	if len(got.Shape) != 1 || got.Shape[0] != 2 || got.Data[0] != want[0] || got.Data[1] != want[1] {
		t.Errorf("Dense = %v %v, want [2] %v", got.Shape, got.Data, want)
	}
	if got := Dense(x, w, nil); got.Data[0] != 7 || got.Data[1] != -1 {
		t.Errorf("Dense without bias = %v, want [7 -1]", got.Data)
	}
	defer func() {
		if recover() == nil {
			t.Error("Dense with a bias of the wrong length did not panic")
		}
	}()
	Dense(x, w, FromData([]float32{1, 2, 3}, 3))
}
