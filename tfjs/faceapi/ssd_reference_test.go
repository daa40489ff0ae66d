package faceapi

import (
	"fmt"
	"testing"
)

// TestSSDParityWithFaceAPI compares the SSD MobileNet v1 detector with
// face-api's ssdMobilenetv1 on the same RGB bytes (scripts/face-reference.mjs,
// kinds "ssd" and "ssdfaces"): the decoded boxes and scores of all 5118
// anchors, the detections of locateFaces (default options and a lower
// minConfidence) and the whole pipeline with SsdMobilenetv1Options.
func TestSSDParityWithFaceAPI(t *testing.T) {
	models := modelsDir(t)
	ref := findReference(t)
	an, err := LoadAnalyzer(models)
	if err != nil {
		t.Fatal(err)
	}
	det, err := LoadSSDDetector(models)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	var items []refItem
	for _, s := range samples {
		img := loadSample(t, ref, s)
		items = addItem(t, items, dir, refItem{Name: s + " ssd", Kind: "ssd", MinConfidence: 0.5, MaxResults: 100, img: img})
		items = addItem(t, items, dir, refItem{Name: s + " ssd 0.2/2", Kind: "ssd", MinConfidence: 0.2, MaxResults: 2, img: img})
		items = addItem(t, items, dir, refItem{Name: s + " ssd faces", Kind: "ssdfaces", MinConfidence: 0.5, MaxResults: 100, img: img})
	}
	out := runReference(t, ref, models, items, 0)
	t.Logf("reference: %v, backend %s, simd %v", out.Versions, out.Backend, out.SIMD)

	var worstRawBox, worstRawScore float64
	var worst worstDiffs // of the detections and the pipeline's faces
	dets, faces := 0, 0
	for i, it := range items {
		want := out.Results[i]
		opts := SSDOptions{MinConfidence: it.MinConfidence, MaxResults: it.MaxResults}
		switch it.Kind {
		case "ssd":
			raw := det.Forward(it.img)
			if len(want.SSDBoxes) != 4*len(raw.Boxes) || len(want.SSDScores) != len(raw.Scores) || len(raw.Scores) != ssdPriors {
				t.Errorf("%s: %d boxes and %d scores, face-api %d values and %d scores", it.Name, len(raw.Boxes), len(raw.Scores), len(want.SSDBoxes), len(want.SSDScores))
				continue
			}
			var db, ds float64
			for j, b := range raw.Boxes {
				for k, v := range b {
					db = max(db, abs(float64(v)-float64(want.SSDBoxes[4*j+k])))
				}
				ds = max(ds, abs(float64(raw.Scores[j])-float64(want.SSDScores[j])))
			}
			worstRawBox, worstRawScore = max(worstRawBox, db), max(worstRawScore, ds)
			// Relative box coordinates: 1e-3 of the 512-px input is half
			// a pixel.
			if db > 1e-3 || ds > scoreTol {
				t.Errorf("%s: decoded boxes differ from face-api by up to %.2g (relative), scores by %.2g", it.Name, db, ds)
			}
			got, err := det.Detect(it.img, opts)
			if err != nil {
				t.Fatal(err)
			}
			dets += checkDetections(t, it.Name, got, want.Detections, &worst)
		case "ssdfaces":
			got, err := an.FacesSSD(it.img, opts)
			if err != nil {
				t.Fatal(err)
			}
			faces += checkFaces(t, it.Name, got, want.Faces, &worst)
		default:
			panic(fmt.Sprint("unexpected kind ", it.Kind))
		}
	}
	if dets == 0 || faces == 0 {
		t.Errorf("no faces found in any sample (%d detections, %d pipeline faces)", dets, faces)
	}
	t.Logf("%d items, %d detections, %d pipeline faces: worst decoded box %.2g (relative), anchor score %.2g; detections: box %.2g px, score %.2g; pipeline: landmarks %.2g px, descriptor %.2g (relative L2), aligned boxes equal",
		len(items), dets, faces, worstRawBox, worstRawScore, worst.box, worst.score, worst.landmarks, worst.descriptor)
}
