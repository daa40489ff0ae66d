package tfjs

import "testing"

// The identity crop copies the image, a shift by half a pixel averages
// neighbours, and samples outside the image are zero.
func TestWarpSimilarity(t *testing.T) {
	img := New(2, 2, 1)
	copy(img.Data, []float32{0, 10, 20, 30})
	if got := WarpSimilarity(img, 1, 0, 0, 0, 2).Data; got[0] != 0 || got[1] != 10 || got[2] != 20 || got[3] != 30 {
		t.Errorf("identity: %v", got)
	}
	if got := WarpSimilarity(img, 1, 0, 0.5, 0, 1).Data[0]; got != 5 {
		t.Errorf("half a pixel right: %v, want 5", got)
	}
	if got := WarpSimilarity(img, 1, 0, -3, -3, 1).Data[0]; got != 0 {
		t.Errorf("outside: %v, want 0", got)
	}
}
