//go:build unix

package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"image"

	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/noderef"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// pairOptions are face-api's detector options the analyzer pair is timed
// with, on both sides; the engine's own passes (800, 608, 416, 320 until a
// face scores 0.5) are timed by the engine pair.
var pairOptions = faceapi.TinyDetectorOptions{InputSize: 608, ScoreThreshold: 0.3}

// BenchmarkPair times the face work of one verification: one selfie
// (facetest.People()[2].Selfie(), 720×960) and one document photo (a
// German ID card composed by docgen around the same person's Portrait(),
// photographed with docgen.Mild(), 1600×1200), against face-api on
// TensorFlow.js WASM in Node measured in the same run.
//
//   - analyzer: faceapi.Analyzer.Faces on both images at input size 608,
//     score threshold 0.3 (detection, landmarks, alignment, descriptor of
//     every face), on tensors made before timing. Node: the same RGB bytes
//     through detectAllFaces(img, new TinyFaceDetectorOptions({inputSize:
//     608, scoreThreshold: 0.3})).withFaceLandmarks().withFaceDescriptors()
//     (scripts/face-reference.mjs, kind "faces"), one thread.
//   - engine: what the engine calls per verification without a selfie
//     burst: app.FaceModels.Faces on both images (image conversion, the
//     detector at 800, then 608, 416, 320 until a face scores 0.5) and
//     FaceModels.Liveness on the selfie's face (engine.LivenessCheck
//     rates the selfie only). Node has no counterpart; its figures are
//     those of the analyzer pair, for comparison.
//
// Reported per pair: go-ms/op, go-cpu-ms/op (process user+system time),
// node-ms/op, node-cpu-ms/op (the sum over the two images of the median
// of 15 calls after two warm-up calls). Node runs once per invocation of
// go test, before the sub-benchmarks, so with -count its figures repeat;
// -v logs them per image. For one core:
//
//	taskset -c 1 go test ./internal/app -run '^$' -bench Pair -cpu 1 -benchtime 10x -count 3
func BenchmarkPair(b *testing.B) {
	person := facetest.People(b)[2]
	models := facetest.Models(b)
	dir := facetest.ModelsDir(b)
	ref := pairReference(b)
	an, err := faceapi.LoadAnalyzer(dir)
	if err != nil {
		b.Fatal(err)
	}

	selfie := person.Selfie()
	gen := docgen.NewGenerator(12, time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	spec := gen.Spec(mrz.TD1)
	spec.Fields.IssuingState, spec.Fields.Nationality, spec.Fields.DocumentCode = "D", "D", "ID"
	spec.Face = person.Portrait()
	doc, err := docgen.Render(spec)
	if errors.Is(err, docgen.ErrNoFont) {
		testdb.Skip(b, err.Error())
	}
	if err != nil {
		b.Fatal(err)
	}
	photo, err := docgen.Photograph(doc, docgen.Mild(), 1)
	if err != nil {
		b.Fatal(err)
	}
	imgs := []image.Image{selfie, photo.Image}
	tensors := []*tfjs.Tensor{faceapi.ImageTensor(selfie), faceapi.ImageTensor(photo.Image)}

	// Warm up (filters packed once per network) and check that both
	// images show a face.
	ctx := context.Background()
	goFaces := make([]int, len(tensors))
	scores := make([][]float64, len(tensors))
	for i, t := range tensors {
		f, err := an.Faces(t, pairOptions)
		if err != nil {
			b.Fatal(err)
		}
		goFaces[i] = len(f)
		for _, face := range f {
			scores[i] = append(scores[i], face.Detection.Score)
		}
	}
	var selfieFace image.Rectangle
	for i, img := range imgs {
		f, err := models.Faces(ctx, img)
		if err != nil {
			b.Fatal(err)
		}
		if len(f) == 0 {
			b.Fatalf("no face in the %s", []string{"selfie", "document photo"}[i])
		}
		if i == 0 {
			selfieFace = f[0].Box
		}
	}
	if _, err := models.Liveness(ctx, selfie, selfieFace); err != nil && models.HasLiveness() {
		b.Fatal(err)
	}

	out := pairNode(b, ref, dir, tensors)
	var nodeMs, nodeCPU float64
	for i, r := range out.Results {
		if len(r.Faces) != goFaces[i] {
			b.Fatalf("%s: %d faces in Go, %d in face-api", r.Name, goFaces[i], len(r.Faces))
		}
		nodeMs += median(r.Ms)
		nodeCPU += median(r.CPUMs)
		b.Logf("face-api %s: CPU ms median %.1f, min %.1f, max %.1f over %d calls; wall median %.1f",
			r.Name, median(r.CPUMs), slices.Min(r.CPUMs), slices.Max(r.CPUMs), len(r.CPUMs), median(r.Ms))
	}
	b.Logf("faces at 608/0.3: selfie %d (scores %.3f), document %d (scores %.3f); reference %v, backend %s, simd %v",
		goFaces[0], scores[0], goFaces[1], scores[1], out.Versions, out.Backend, out.SIMD)

	report := func(b *testing.B, cpu0 time.Duration) {
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
		b.ReportMetric(ms(b.Elapsed()), "go-ms/op")
		b.ReportMetric(ms(processCPU()-cpu0), "go-cpu-ms/op")
		b.ReportMetric(nodeMs, "node-ms/op")
		b.ReportMetric(nodeCPU, "node-cpu-ms/op")
	}
	b.Run("analyzer", func(b *testing.B) {
		cpu0 := processCPU()
		for b.Loop() {
			for _, t := range tensors {
				if _, err := an.Faces(t, pairOptions); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, cpu0)
	})
	b.Run("engine", func(b *testing.B) {
		if !models.HasLiveness() {
			testdb.Skip(b, "the engine pair benchmark needs the liveness models (go run ./cmd/verifyd models fetch)")
		}
		cpu0 := processCPU()
		for b.Loop() {
			var box image.Rectangle
			for i, img := range imgs {
				f, err := models.Faces(ctx, img)
				if err != nil || len(f) == 0 {
					b.Fatalf("faces: %d, %v", len(f), err)
				}
				if i == 0 {
					box = f[0].Box
				}
			}
			if _, err := models.Liveness(ctx, selfie, box); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu0)
	})
}

// processCPU is the process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pairReference returns the Node installation of face-api and its driver
// script, skipping the benchmark when they are absent.
func pairReference(t testing.TB) noderef.Reference {
	t.Helper()
	return noderef.Find(t, "the face pair benchmark needs", "face-reference.mjs")
}

type nodeResult struct {
	Name  string            `json:"name"`
	Faces []json.RawMessage `json:"faces"`
	Ms    []float64         `json:"ms"`
	CPUMs []float64         `json:"cpuMs"`
}

// pairNode runs face-api's whole pipeline on each tensor's RGB bytes
// (scripts/face-reference.mjs, kind "faces"), timing 15 calls of each.
func pairNode(t testing.TB, r noderef.Reference, models string, tensors []*tfjs.Tensor) noderef.Output[nodeResult] {
	t.Helper()
	dir := t.TempDir()
	var items []map[string]any
	for i, img := range tensors {
		h, w, _ := img.HWC()
		raw := filepath.Join(dir, []string{"selfie.rgb", "document.rgb"}[i])
		if err := os.WriteFile(raw, faceapi.RGBBytes(img), 0o600); err != nil {
			t.Fatal(err)
		}
		items = append(items, map[string]any{
			"name": []string{"selfie", "document"}[i], "kind": "faces", "raw": raw, "width": w, "height": h,
			"inputSize": pairOptions.InputSize, "scoreThreshold": pairOptions.ScoreThreshold,
		})
	}
	job := map[string]any{"npmDir": r.NpmDir, "modelDir": models, "iterations": 15, "items": items}
	return noderef.Run[nodeResult](t, r, job, len(items))
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkFacesCrop measures FaceModels.Faces on one selfie (one face)
// with each descriptor crop; the differences are the cost per face of
// the chip and of the mirror image's second pass of the recognition
// network (docs/faces.md "Speed"):
//
//	go test -run '^$' -bench BenchmarkFacesCrop -cpu 1 -benchtime 20x ./internal/app
func BenchmarkFacesCrop(b *testing.B) {
	dir := facetest.ModelsDir(b)
	selfie := facetest.People(b)[0].Selfie()
	for _, c := range []struct {
		name string
		crop app.DescriptorCrop
	}{{"faceapi", app.FaceAPICrop}, {"chip", app.ChipOnly}, {"chip-mirrored", app.ChipMirrored}} {
		m, err := app.LoadFaceModelsCrop(dir, c.crop)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := m.Faces(context.Background(), selfie); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var facesPhotos = flag.String("faces.photos", "", "BenchmarkFacesOnPhotos: a directory of photos (scripts/indepdocs/gen.py's output) whose *-selfie.jpg and *-front.jpg are searched for faces")

// BenchmarkFacesOnPhotos times FaceModels.Faces, the face search of the
// face check, on a set of photos made independently of this code: the
// selfies and the document fronts of a scripts/indepdocs set generated
// with --portraits (docs/performance.md, twenty-seventh pass), and the
// selfies turned 30° either way (a tilted head, thirty-first pass). The
// photos are decoded before timing; it reports the milliseconds per
// photo. Skipped without -faces.photos:
//
//	go test -c -o /tmp/app.test ./internal/app && cd internal/app && taskset -c 1 /tmp/app.test \
//	  -test.run '^$' -test.bench FacesOnPhotos -test.benchtime 1x -test.cpu 1 -faces.photos /tmp/indf59
func BenchmarkFacesOnPhotos(b *testing.B) {
	if *facesPhotos == "" {
		b.Skip("no -faces.photos")
	}
	m := facetest.Models(b)
	for _, kind := range []string{"selfie", "front", "selfie-tilted"} {
		// selfie-tilted: each selfie turned 30° one way and the other,
		// a head the detector misses upright, which the turned look
		// finds (FaceModels.faces, rollAngles).
		glob := strings.TrimSuffix(kind, "-tilted")
		files, err := filepath.Glob(filepath.Join(*facesPhotos, "*-"+glob+".jpg"))
		if err != nil || len(files) == 0 {
			b.Fatalf("no *-%s.jpg in %s: %v", kind, *facesPhotos, err)
		}
		var imgs []image.Image
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			// As the service decodes a submitted photo: upright by its
			// EXIF orientation.
			img, _, _, err := engine.DecodeImage(raw)
			if err != nil {
				b.Fatalf("%s: %v", f, err)
			}
			if glob == kind {
				imgs = append(imgs, img)
				continue
			}
			imgs = append(imgs, rotate(img, 30), rotate(img, -30))
		}
		b.Run(kind, func(b *testing.B) {
			for b.Loop() {
				for _, img := range imgs {
					if _, err := m.Faces(context.Background(), img); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(imgs)), "ms/photo")
		})
	}
}
