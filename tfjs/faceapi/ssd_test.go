package faceapi

import (
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/verifyd/verifyd/tfjs"
)

func TestSSDOptionsDefaults(t *testing.T) {
	o, err := SSDOptions{}.withDefaults()
	if err != nil || o.MinConfidence != 0.5 || o.MaxResults != 100 {
		t.Errorf("defaults %+v, %v; want face-api's 0.5 and 100", o, err)
	}
	for _, bad := range []SSDOptions{{MinConfidence: 1}, {MinConfidence: -0.1}, {MaxResults: -1}} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestSSDNMS(t *testing.T) {
	out := SSDOutput{
		Boxes: [][4]float32{
			{0, 0, 0.5, 0.5},       // 0.9
			{0.05, 0.05, 0.5, 0.5}, // 0.95, overlaps 0 by 0.81: suppresses it
			{0.6, 0.6, 1, 1},       // 0.7
			{0.6, 0.6, 0.9, 0.9},   // 0.4: below the threshold
			{0.2, 0.2, 0.7, 0.7},   // 0.8, overlaps 1 by < 0.5: kept
		},
		Scores: []float32{0.9, 0.95, 0.7, 0.4, 0.8},
	}
	if got := ssdNMS(out, 100, 0.5, 0.5); !reflect.DeepEqual(got, []int{1, 4, 2}) {
		t.Errorf("kept %v, want [1 4 2]", got)
	}
	if got := ssdNMS(out, 2, 0.5, 0.5); !reflect.DeepEqual(got, []int{1, 4}) {
		t.Errorf("maxResults 2 kept %v, want [1 4]", got)
	}
}

// TestSSDConcurrent runs one detector from several goroutines (run with
// -race): the results must equal a sequential run's.
func TestSSDConcurrent(t *testing.T) {
	d, err := LoadSSDDetector(modelsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	img := tfjs.New(300, 200, 3)
	for i := range img.Data {
		img.Data[i] = float32((i * 7919) % 256)
	}
	var wg sync.WaitGroup
	res := make([]SSDOutput, 3)
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = d.Forward(img)
		}()
	}
	wg.Wait()
	want := d.Forward(img)
	for i, r := range res {
		if !reflect.DeepEqual(r, want) {
			t.Errorf("goroutine %d: output differs from a sequential run", i)
		}
	}
}

func TestTinyDetectorOptionsDefaults(t *testing.T) {
	o, err := TinyDetectorOptions{}.withDefaults()
	if err != nil || o.InputSize != 416 || o.ScoreThreshold != 0.5 {
		t.Errorf("defaults %+v, %v; want face-api's 416 and 0.5", o, err)
	}
	for _, bad := range []TinyDetectorOptions{{ScoreThreshold: 1}, {ScoreThreshold: -0.1},
		{ScoreThreshold: math.NaN()}, {InputSize: 100}, {InputSize: 32}} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
