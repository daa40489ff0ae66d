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

	var worstRawBox, worstRawScore, worstBox, worstScore, worstLm, worstDesc float64
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
			if len(got) != len(want.Detections) {
				t.Errorf("%s: %d faces, face-api %d", it.Name, len(got), len(want.Detections))
				continue
			}
			dets += len(got)
			for j, g := range got {
				w := want.Detections[j]
				bd := max(abs(g.Box.X-w.X), abs(g.Box.Y-w.Y), abs(g.Box.Width-w.Width), abs(g.Box.Height-w.Height))
				sd := abs(g.Score - w.Score)
				worstBox, worstScore = max(worstBox, bd), max(worstScore, sd)
				if bd > boxTol || sd > scoreTol {
					t.Errorf("%s face %d: box %+v score %.5f, face-api box {%.2f %.2f %.2f %.2f} score %.5f",
						it.Name, j, g.Box, g.Score, w.X, w.Y, w.Width, w.Height, w.Score)
				}
			}
		case "ssdfaces":
			got, err := an.FacesSSD(it.img, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want.Faces) {
				t.Errorf("%s: %d faces, face-api %d", it.Name, len(got), len(want.Faces))
				continue
			}
			faces += len(got)
			for j, g := range got {
				w := want.Faces[j]
				b := g.Detection.Box
				bd := max(abs(b.X-w.X), abs(b.Y-w.Y), abs(b.Width-w.Width), abs(b.Height-w.Height))
				worstBox, worstScore = max(worstBox, bd), max(worstScore, abs(g.Detection.Score-w.Score))
				if bd > boxTol || abs(g.Detection.Score-w.Score) > scoreTol {
					t.Errorf("%s face %d: detection %+v, face-api box {%.2f %.2f %.2f %.2f} score %.5f",
						it.Name, j, g.Detection, w.X, w.Y, w.Width, w.Height, w.Score)
				}
				d := landmarkDiff(g.Landmarks, w.Landmarks)
				worstLm = max(worstLm, d)
				if d > landmarkTol {
					t.Errorf("%s face %d: landmarks differ from face-api by up to %.2g px, tolerance %g", it.Name, j, d, landmarkTol)
				}
				if g.Aligned != w.Aligned {
					t.Errorf("%s face %d: aligned box %+v, face-api %+v", it.Name, j, g.Aligned, w.Aligned)
				}
				rel := Distance(g.Descriptor, w.Descriptor) / norm(w.Descriptor)
				worstDesc = max(worstDesc, rel)
				if len(w.Descriptor) != DescriptorSize || rel > descriptorTol {
					t.Errorf("%s face %d: descriptor differs from face-api by %.2g (relative), tolerance %g", it.Name, j, rel, descriptorTol)
				}
			}
		default:
			panic(fmt.Sprint("unexpected kind ", it.Kind))
		}
	}
	if dets == 0 || faces == 0 {
		t.Errorf("no faces found in any sample (%d detections, %d pipeline faces)", dets, faces)
	}
	t.Logf("%d items, %d detections, %d pipeline faces: worst decoded box %.2g (relative), anchor score %.2g; detections: box %.2g px, score %.2g; pipeline: landmarks %.2g px, descriptor %.2g (relative L2), aligned boxes equal",
		len(items), dets, faces, worstRawBox, worstRawScore, worstBox, worstScore, worstLm, worstDesc)
}
