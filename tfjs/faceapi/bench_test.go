package faceapi

import (
	"image"
	"sort"
	"testing"
	"time"
)

// BenchmarkFaceAPI times one descriptor (a face crop of sample1.jpg,
// resized to 150×150 inside), one tiny-detector pass (sample1.jpg,
// 1920×1280, at input size 416, including decoding and NMS), the
// landmarks of that face crop, and the whole pipeline on sample1.jpg
// (Analyzer.Faces at 416: detection, then landmarks and descriptor of
// each of its 3 faces; face-api's detectAllFaces().withFaceLandmarks()
// .withFaceDescriptors()), one SSD MobileNet v1 detection (sample1.jpg,
// resized to 512×512 inside, face-api's default SsdMobilenetv1Options) and
// the whole pipeline with it (Analyzer.FacesSSD) in Go, and the same calls
// of face-api on TensorFlow.js WASM in Node, measured in the same run. Reported per call: go-ms/op and node-ms/op (wall time; Go's
// is the mean over b.N calls, Node's the median of 15 calls after two
// warm-up calls) and go-cpu-ms/op and node-cpu-ms/op (process CPU time,
// which a busy machine distorts less). For one core: taskset -c 0 go test
// -cpu 1 …; Node's WASM backend is single-threaded.
func BenchmarkFaceAPI(b *testing.B) {
	models := modelsDir(b)
	ref := findReference(b)
	rec, err := LoadRecognitionNet(models)
	if err != nil {
		b.Fatal(err)
	}
	det, err := LoadTinyDetector(models)
	if err != nil {
		b.Fatal(err)
	}
	lm, err := LoadLandmarkNet(models)
	if err != nil {
		b.Fatal(err)
	}
	an, err := LoadAnalyzer(models)
	if err != nil {
		b.Fatal(err)
	}
	img := loadSample(b, ref, "sample1.jpg")
	dets, err := det.Detect(img, TinyDetectorOptions{})
	if err != nil || len(dets) == 0 {
		b.Fatalf("no face in sample1.jpg: %v", err)
	}
	d := dets[0].Box
	face := Crop(img, image.Rect(int(d.X), int(d.Y), int(d.Right()+0.5), int(d.Bottom()+0.5)))

	// Pack the filters (done once per loaded network).
	rec.Descriptor(face)
	lm.Landmarks(face)
	if _, err := an.Faces(img, TinyDetectorOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := an.FacesSSD(img, SSDOptions{}); err != nil {
		b.Fatal(err)
	}

	dir := b.TempDir()
	var items []refItem
	items = addItem(b, items, dir, refItem{Name: "descriptor", Kind: "descriptor", img: face})
	items = addItem(b, items, dir, refItem{Name: "detect", Kind: "detect", InputSize: 416, ScoreThreshold: 0.5, img: img})
	items = addItem(b, items, dir, refItem{Name: "landmarks", Kind: "landmarks", img: face})
	items = addItem(b, items, dir, refItem{Name: "faces", Kind: "faces", InputSize: 416, ScoreThreshold: 0.5, img: img})
	items = addItem(b, items, dir, refItem{Name: "ssd", Kind: "ssd", MinConfidence: 0.5, MaxResults: 100, img: img})
	items = addItem(b, items, dir, refItem{Name: "ssd faces", Kind: "ssdfaces", MinConfidence: 0.5, MaxResults: 100, img: img})
	out := runReference(b, ref, models, items, 15)

	report := func(b *testing.B, cpu0 time.Duration, ref refResult) {
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
		b.ReportMetric(ms(b.Elapsed()), "go-ms/op")
		if cpu0 >= 0 {
			b.ReportMetric(ms(processCPU()-cpu0), "go-cpu-ms/op")
		}
		b.ReportMetric(median(ref.Ms), "node-ms/op")
		b.ReportMetric(median(ref.CPUMs), "node-cpu-ms/op")
	}
	b.Run("descriptor", func(b *testing.B) {
		cpu0 := processCPU()
		for b.Loop() {
			rec.Descriptor(face)
		}
		report(b, cpu0, out.Results[0])
	})
	b.Run("detect", func(b *testing.B) {
		cpu0 := processCPU()
		for b.Loop() {
			if _, err := det.Detect(img, TinyDetectorOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu0, out.Results[1])
	})
	b.Run("landmarks", func(b *testing.B) {
		cpu0 := processCPU()
		for b.Loop() {
			lm.Landmarks(face)
		}
		report(b, cpu0, out.Results[2])
	})
	b.Run("faces", func(b *testing.B) {
		cpu0 := processCPU()
		for b.Loop() {
			if _, err := an.Faces(img, TinyDetectorOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu0, out.Results[3])
	})
	b.Run("ssd", func(b *testing.B) {
		cpu0 := processCPU()
		for b.Loop() {
			if _, err := an.DetectSSD(img, SSDOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu0, out.Results[4])
	})
	b.Run("faces-ssd", func(b *testing.B) {
		cpu0 := processCPU()
		for b.Loop() {
			if _, err := an.FacesSSD(img, SSDOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu0, out.Results[5])
	})
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
