package faceeval_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/tfjs/faceapi"
	"github.com/verifyd/verifyd/tfjs/human"
)

var fusionEval = flag.Bool("faces.fusion", false, "run TestFusionOnDifferentPhotos, a measurement of score fusion the engine does not use")

// TestFusionOnDifferentPhotos measures score fusion of the engine's
// descriptor (dlib's chip and its mirror through face-api's recognition
// network) with human's FaceRes on the pictures and pairs of
// TestThresholdsOnDifferentPhotos. Each distance is normalised by the
// impostor pairs' distances of its own descriptor (z = (d − mean) / sd,
// so that both speak in standard deviations of "different people") and
// the two are averaged with a weight w on the engine's. For each weight
// it reports the probability that a genuine pair of different
// photographs scores below an impostor pair (AUC), the closest impostor
// pair, and the share of genuine pairs matched at the closest impostor's
// score less 0, 0.25 and 0.5 impostor standard deviations — w = 1 is the
// engine's descriptor alone, on the same scale. It asserts nothing about
// accuracy (the engine does not fuse), so it runs only when asked for:
//
//	go test -count=1 -run TestFusionOnDifferentPhotos -v ./internal/faceeval -args -faces.fusion
func TestFusionOnDifferentPhotos(t *testing.T) {
	if !*fusionEval {
		t.Skip("opt-in measurement: -args -faces.fusion")
	}
	m := faceResModels(t)
	items, noFace, _, elapsed := collect(t, m)
	ctx := context.Background()
	fr, err := human.LoadFaceRes(m.FaceResDir())
	if err != nil {
		t.Fatal(err)
	}
	// FaceRes two ways: human's crop through the engine's pipeline (box
	// ×1.4, FaceModels.FaceResDescriptor), and the box as found (×1.0),
	// the crop that did best alone (docs/faces.md).
	frs := map[string][][]float32{"FaceRes ×1.4": make([][]float32, len(items)), "FaceRes ×1.0": make([][]float32, len(items))}
	for i, it := range items {
		if frs["FaceRes ×1.4"][i], err = m.FaceResDescriptor(ctx, it.img, it.face.Box); err != nil {
			t.Fatal(err)
		}
		if frs["FaceRes ×1.0"][i], err = fr.Describe(faceapi.ImageTensor(it.img), human.EnlargeBox(it.face.Box, 1.0)); err != nil {
			t.Fatal(err)
		}
	}

	type pair struct {
		set     string
		a, b    string
		api, fr float64
	}
	var tb strings.Builder
	fmt.Fprintf(&tb, "%d pictures described, %d without a face, %s (face-api pipeline)\n", len(items), len(noFace), elapsed.Round(1e9))
	for _, frName := range []string{"FaceRes ×1.4", "FaceRes ×1.0"} {
		var ps []pair
		for i, a := range items {
			for j := i + 1; j < len(items); j++ {
				set, _ := pairSet(a, items[j])
				if set == "" || set == genSame {
					continue
				}
				ps = append(ps, pair{set, a.photo.Name, items[j].photo.Name,
					engine.Distance(a.face.Descriptor, items[j].face.Descriptor), human.FaceResDistance(frs[frName][i], frs[frName][j])})
			}
		}
		impostor := func(p pair) bool { return p.set == impPhotos || p.set == impDocs }
		stats := func(f func(pair) float64) (mean, sd float64) {
			var n, s, s2 float64
			for _, p := range ps {
				if impostor(p) {
					n, s, s2 = n+1, s+f(p), s2+f(p)*f(p)
				}
			}
			mean = s / n
			return mean, math.Sqrt(s2/n - mean*mean)
		}
		mAPI, sAPI := stats(func(p pair) float64 { return p.api })
		mFR, sFR := stats(func(p pair) float64 { return p.fr })
		fmt.Fprintf(&tb, "\n%s with the engine's descriptor; impostor mean / sd: engine %.3f / %.3f, FaceRes %.2f / %.2f\n", frName, mAPI, sAPI, mFR, sFR)
		fmt.Fprintln(&tb, "| weight on the engine's | AUC | closest impostor (z) | pair | photo / document / video matched at closest − 0 · 0.25 · 0.5 sd |")
		fmt.Fprintln(&tb, "|---:|---:|---:|---|---|")
		for _, w := range []float64{1, 0.8, 0.7, 0.6, 0.5, 0.4, 0} {
			score := func(p pair) float64 { return w*(p.api-mAPI)/sAPI + (1-w)*(p.fr-mFR)/sFR }
			var gen, imp []float64
			closest, closestPair := math.Inf(1), pair{}
			for _, p := range ps {
				s := score(p)
				switch {
				case impostor(p):
					imp = append(imp, s)
					if s < closest {
						closest, closestPair = s, p
					}
				case p.set == genPhotos || p.set == genDocs:
					gen = append(gen, s)
				}
			}
			sort.Float64s(imp)
			var below float64 // pairs (genuine, impostor) in the right order
			for _, g := range gen {
				k := sort.SearchFloat64s(imp, g)
				below += float64(len(imp) - k)
			}
			auc := below / float64(len(gen)*len(imp))
			var shares []string
			for _, k := range []float64{0, 0.25, 0.5} {
				share := func(set string) string {
					n, c := 0, 0
					for _, p := range ps {
						if p.set == set {
							n++
							if score(p) < closest-k {
								c++
							}
						}
					}
					return fmt.Sprintf("%.0f", 100*float64(c)/float64(max(1, n)))
				}
				shares = append(shares, share(genPhotos)+"/"+share(genDocs)+"/"+share(genVideo))
			}
			fmt.Fprintf(&tb, "| %.1f | %.4f | %.2f | %s — %s (%.3f, %.2f) | %s %% |\n", w, auc, closest, closestPair.a, closestPair.b,
				closestPair.api, closestPair.fr, strings.Join(shares, " · "))
		}
	}
	t.Log("\n" + tb.String())
}
