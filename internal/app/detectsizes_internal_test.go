package app

import (
	"errors"
	"slices"
	"testing"

	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// TestDetectSizes checks the order the detector's input sizes are tried
// in (detectSizes): a large face found at the probe size ends the search
// there, a portrait small in its photo takes the loop from 800 down, the
// probe's run is never repeated, and an error stops the search. The
// detector is a table here; the face evaluations (docs/accuracy.md,
// "Faces") measure what the real one finds in this order.
func TestDetectSizes(t *testing.T) {
	const long = 1600
	face := func(score, width float64) []faceapi.Detection {
		return []faceapi.Detection{{Box: faceapi.Box{X: 10, Y: 10, Width: width, Height: width}, Score: score}}
	}
	// At 416 a face spans width·416/1600 input pixels: 3 cells of 32 px
	// are 369 px of the photo.
	for _, c := range []struct {
		name  string
		found map[int][]faceapi.Detection
		probe int
		ran   []int
		score float64
	}{
		{"a close-up found at the probe size", map[int][]faceapi.Detection{416: face(0.9, 600), 800: face(0.6, 600)}, 416, []int{416}, 0.9},
		{"a face of exactly three cells", map[int][]faceapi.Detection{416: face(0.7, 370)}, 416, []int{416}, 0.7},
		{"a small face at the probe size: the loop", map[int][]faceapi.Detection{416: face(0.9, 300), 800: face(0.8, 300)}, 416, []int{416, 800}, 0.8},
		{"a large face scored low at the probe size: the loop", map[int][]faceapi.Detection{416: face(0.45, 600), 608: face(0.7, 600)}, 416, []int{416, 800, 608}, 0.7},
		{"nothing sure anywhere: the probe's run reused, the last size's detections kept", map[int][]faceapi.Detection{416: face(0.4, 100), 320: face(0.35, 100)}, 416, []int{416, 800, 608, 320}, 0.35},
		{"two sure faces at the probe size: the loop", map[int][]faceapi.Detection{416: append(face(0.8, 600), face(0.6, 500)...), 800: face(0.85, 600)}, 416, []int{416, 800}, 0.85},
		{"one sure large face and a doubtful one: the probe's detections", map[int][]faceapi.Detection{416: append(face(0.8, 600), faceapi.Detection{Box: faceapi.Box{Width: 50, Height: 50}, Score: 0.35})}, 416, []int{416}, 0.8},
		{"no probe", map[int][]faceapi.Detection{416: face(0.9, 600)}, 0, []int{800, 608, 416}, 0.9},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ran []int
			dets, err := detectSizes(func(size int) ([]faceapi.Detection, error) {
				ran = append(ran, size)
				return c.found[size], nil
			}, faceInputSizes, c.probe, long)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ran, c.ran) {
				t.Errorf("ran the detector at %v, want %v", ran, c.ran)
			}
			if len(dets) == 0 || dets[0].Score != c.score || len(dets) != len(c.found[c.ran[len(c.ran)-1]]) {
				t.Errorf("kept %+v, want the detection scored %v", dets, c.score)
			}
		})
	}
	t.Run("an error stops the search", func(t *testing.T) {
		boom := errors.New("boom")
		var ran []int
		_, err := detectSizes(func(size int) ([]faceapi.Detection, error) {
			ran = append(ran, size)
			if size == 800 {
				return nil, boom
			}
			return nil, nil
		}, faceInputSizes, probeInputSize, long)
		if !errors.Is(err, boom) || !slices.Equal(ran, []int{416, 800}) {
			t.Errorf("err %v after %v", err, ran)
		}
	})
}
