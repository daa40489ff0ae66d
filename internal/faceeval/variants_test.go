package faceeval_test

import (
	"flag"
	"fmt"
	"image"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/faceeval"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

var variants = flag.Bool("faces.variants", false, "TestDescriptorVariants: compare ways of cropping the face for face-api's descriptor")

// TestDescriptorVariants compares crops and test-time augmentations for
// face-api's recognition network on the pictures and pairs of
// TestThresholdsOnDifferentPhotos (docs/accuracy.md "Faces"): face-api's
// unrotated square (what the engine used before 2026-11-24), the same
// square rotated so that the eyes are level, dlib's face chip
// (app.FaceChip), each with and without the mirror image's descriptor
// averaged in, and the chip at three paddings (scale jitter). For each it
// reports the closest pair of different people, the share of genuine
// pairs at or below 1.00, 0.95, 0.90 and 0.85 times that distance, the
// probability that a genuine pair is closer than an impostor pair (AUC)
// and the farthest genuine pair. It asserts nothing about accuracy and
// runs only when asked:
//
//	go test -count=1 -run TestDescriptorVariants -v ./internal/faceeval -args -faces.variants
func TestDescriptorVariants(t *testing.T) {
	if !*variants {
		t.Skip("opt-in measurement: -args -faces.variants")
	}
	if os.Getenv("VERIFYD_FACE_CROP") != "" {
		t.Skip("VERIFYD_FACE_CROP is set: the variants are computed from the default pipeline's landmarks")
	}
	m := facetest.Models(t)
	rec, err := faceapi.LoadRecognitionNet(facetest.ModelsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	items, _, _, _ := collect(t, m)

	type crop func(img *tfjs.Tensor, pts []faceapi.Point) *tfjs.Tensor
	// faceAPISquare is face-api's alignDlib square (side = mean
	// eye-to-mouth distance / 0.45, the eyes' and mouth's mean point at
	// 50 % / 43 %), unrotated or rotated about that point so that the eyes
	// are level.
	faceAPISquare := func(rotated bool) crop {
		return func(img *tfjs.Tensor, pts []faceapi.Point) *tfjs.Tensor {
			le, re, mo := centre(pts[36:42]), centre(pts[42:48]), centre(pts[48:68])
			side := math.Floor((math.Hypot(mo.X-le.X, mo.Y-le.Y) + math.Hypot(mo.X-re.X, mo.Y-re.Y)) / 2 / 0.45)
			ref := centre([]faceapi.Point{le, re, mo})
			if !rotated {
				x, y := math.Floor(math.Max(0, ref.X-0.5*side)), math.Floor(math.Max(0, ref.Y-0.43*side))
				return faceapi.Crop(img, image.Rect(int(x), int(y), int(x+side), int(y+side)))
			}
			k := side / 150
			a, b := k*(re.X-le.X)/math.Hypot(re.X-le.X, re.Y-le.Y), k*(re.Y-le.Y)/math.Hypot(re.X-le.X, re.Y-le.Y)
			ox, oy := 0.5*150, 0.43*150
			return faceeval.Warp(img, faceeval.Similarity{A: a, B: b, TX: ref.X - (a*ox - b*oy), TY: ref.Y - (b*ox + a*oy)}, 150)
		}
	}
	chip := func(padding float64) crop {
		return func(img *tfjs.Tensor, pts []faceapi.Point) *tfjs.Tensor { return app.FaceChip(img, pts, 150, padding) }
	}
	// describe averages the descriptors of the crops (and of their mirror
	// images when mirrored).
	describe := func(mirrored bool, crops ...crop) func(*tfjs.Tensor, []faceapi.Point) []float32 {
		return func(img *tfjs.Tensor, pts []faceapi.Point) []float32 {
			var ds [][]float32
			for _, c := range crops {
				x := c(img, pts)
				ds = append(ds, rec.Descriptor(x))
				if mirrored {
					ds = append(ds, rec.Descriptor(flip(x)))
				}
			}
			out := make([]float32, len(ds[0]))
			for _, d := range ds {
				for i, v := range d {
					out[i] += v / float32(len(ds))
				}
			}
			return out
		}
	}
	list := []struct {
		name string
		f    func(*tfjs.Tensor, []faceapi.Point) []float32
	}{
		{"face-api's square (before 2026-11-24)", describe(false, faceAPISquare(false))},
		{"face-api's square + mirror", describe(true, faceAPISquare(false))},
		{"face-api's square rotated level", describe(false, faceAPISquare(true))},
		{"face-api's square rotated level + mirror", describe(true, faceAPISquare(true))},
		{"dlib chip 150 / 0.25", describe(false, chip(0.25))},
		{"dlib chip 150 / 0.25 + mirror (the engine's)", describe(true, chip(0.25))},
		{"dlib chip, paddings 0.20, 0.25, 0.30, + mirror", describe(true, chip(0.2), chip(0.25), chip(0.3))},
	}

	var tb strings.Builder
	fmt.Fprintln(&tb, "| crop | closest impostor | photo vs photo, document vs photo, video matched at 1.00 / 0.95 / 0.90 / 0.85 × it | AUC | farthest genuine |")
	fmt.Fprintln(&tb, "|---|---:|---|---:|---:|")
	var closest strings.Builder
	for _, v := range list {
		descs := make([][]float32, len(items))
		for i, it := range items {
			pts := make([]faceapi.Point, len(it.face.Landmarks))
			for j, p := range it.face.Landmarks {
				pts[j] = faceapi.Point{X: p.X, Y: p.Y}
			}
			descs[i] = v.f(faceapi.ImageTensor(it.img), pts)
		}
		type pr struct {
			d    float64
			a, b string
		}
		sets := map[string][]float64{}
		var imps []pr
		for i, a := range items {
			for j := i + 1; j < len(items); j++ {
				set, _ := pairSet(a, items[j])
				if set == "" {
					continue
				}
				d := engine.Distance(descs[i], descs[j])
				sets[set] = append(sets[set], d)
				if set == impPhotos || set == impDocs {
					imps = append(imps, pr{d, a.photo.Name, items[j].photo.Name})
				}
			}
		}
		sort.Slice(imps, func(i, j int) bool { return imps[i].d < imps[j].d })
		gens := append(append([]float64(nil), sets[genPhotos]...), sets[genDocs]...)
		sort.Float64s(gens)
		var shares []string
		for _, f := range []float64{1, 0.95, 0.90, 0.85} {
			var s []string
			for _, n := range []string{genPhotos, genDocs, genVideo} {
				k := 0
				for _, d := range sets[n] {
					if d <= f*imps[0].d {
						k++
					}
				}
				s = append(s, fmt.Sprintf("%.0f", 100*float64(k)/float64(max(1, len(sets[n])))))
			}
			shares = append(shares, strings.Join(s, "/"))
		}
		var above float64
		k := 0
		for _, g := range gens {
			for k < len(imps) && imps[k].d <= g {
				k++
			}
			above += float64(len(imps) - k)
		}
		fmt.Fprintf(&tb, "| %s | %.3f | %s %% | %.4f | %.3f |\n", v.name, imps[0].d, strings.Join(shares, " · "),
			above/float64(len(gens)*len(imps)), gens[len(gens)-1])
		fmt.Fprintf(&closest, "%s, closest pairs of different people:", v.name)
		for _, p := range imps[:4] {
			fmt.Fprintf(&closest, " %.3f %s — %s;", p.d, p.a, p.b)
		}
		closest.WriteString("\n")
	}
	t.Log("\n" + tb.String() + "\n" + closest.String())
}

func centre(ps []faceapi.Point) faceapi.Point {
	var c faceapi.Point
	for _, p := range ps {
		c.X += p.X / float64(len(ps))
		c.Y += p.Y / float64(len(ps))
	}
	return c
}

// flip returns t mirrored left to right.
func flip(t *tfjs.Tensor) *tfjs.Tensor {
	h, w, c := t.HWC()
	out := tfjs.New(h, w, c)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			copy(out.Data[(y*w+x)*c:(y*w+x+1)*c], t.Data[(y*w+w-1-x)*c:(y*w+w-x)*c])
		}
	}
	return out
}
