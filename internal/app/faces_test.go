package app_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/math/f64"

	xdraw "golang.org/x/image/draw"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mrz"
)

var tiltSweep = flag.Bool("faces.tilts", false, "TestTiltedSelfie: report the faces found and described right at tilts from 0° to 40° instead of checking 25°")

var accuracyAll = flag.Bool("faces.all", false, "TestFaceAccuracy: use every face of the sample photos (default: the first 8)")

// transforms are the same-photo changes of the first measurement.
var transforms = []struct {
	name string
	f    func(image.Image) image.Image
}{
	{"scaled to 50%", func(img image.Image) image.Image { return scale(img, 0.5) }},
	{"JPEG quality 25", func(img image.Image) image.Image { return jpegQ(img, 25) }},
	{"darkened to 55%", func(img image.Image) image.Image { return darken(img, 0.55) }},
	{"rotated 7°", func(img image.Image) image.Image { return rotate(img, 7) }},
}

// TestFaceAccuracy measures descriptor distances on three kinds of pairs
// and checks the default thresholds against them: same-photo
// transformations and composed documents must never fail, different
// people must never pass. `go test -run TestFaceAccuracy -v
// ./internal/app -args -faces.all` prints the table of docs/accuracy.md.
func TestFaceAccuracy(t *testing.T) {
	t.Parallel()
	people := facetest.People(t)
	if !*accuracyAll {
		people = people[:8]
	}
	m := facetest.Models(t)
	ctx := context.Background()
	th := engine.DefaultFaceThresholds
	one := func(what string, img image.Image) (engine.Face, bool) {
		faces, err := m.Faces(ctx, img)
		if err != nil {
			t.Fatal(err)
		}
		faces = th.Usable(faces)
		if len(faces) == 0 {
			t.Logf("%s: no face found", what)
			return engine.Face{}, false
		}
		// The face nearest the centre: the crops are centred on the person
		// and can show a neighbour's face at the edge.
		b := img.Bounds()
		centre := func(f engine.Face) float64 {
			return math.Hypot(float64(f.Box.Min.X+f.Box.Max.X)/2-float64(b.Min.X+b.Max.X)/2,
				float64(f.Box.Min.Y+f.Box.Max.Y)/2-float64(b.Min.Y+b.Max.Y)/2)
		}
		return slices.MinFunc(faces, func(a, b engine.Face) int { return int(centre(a) - centre(b)) }), true
	}

	type set struct {
		name      string
		genuine   bool
		distances []float64
		missed    int
		// closest names the pair with the smallest distance.
		closest  string
		closestD float64
	}
	sets := map[string]*set{}
	add := func(name string, genuine bool, d float64, ok bool, pair string) {
		s := sets[name]
		if s == nil {
			s = &set{name: name, genuine: genuine}
			sets[name] = s
		}
		if !ok {
			s.missed++
			return
		}
		if len(s.distances) == 0 || d < s.closestD {
			s.closest, s.closestD = pair, d
		}
		s.distances = append(s.distances, d)
	}

	selfies := make([]engine.Face, len(people))
	found := make([]bool, len(people))
	docs := make([]engine.Face, len(people))
	docFound := make([]bool, len(people))
	liveness := map[string][]engine.Liveness{}
	gen := docgen.NewGenerator(5, time.Now())
	start := time.Now()
	for i, p := range people {
		selfie := p.Selfie()
		selfies[i], found[i] = one(p.Name+" selfie", selfie)
		if found[i] && m.HasLiveness() {
			l, err := m.Liveness(ctx, selfie, selfies[i].Box)
			if err != nil {
				t.Fatal(err)
			}
			liveness["genuine: selfie crop"] = append(liveness["genuine: selfie crop"], l)
		}
		for _, tr := range transforms {
			f, ok := one(p.Name+" "+tr.name, tr.f(selfie))
			add("same photo, "+tr.name, true, engine.Distance(selfies[i].Descriptor, f.Descriptor), ok && found[i], p.Name)
		}
		spec := gen.Spec(mrz.TD1)
		spec.Face = p.Portrait()
		doc, err := docgen.Render(spec)
		if errors.Is(err, docgen.ErrNoFont) {
			testdb.Skip(t, err.Error())
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			name string
			d    docgen.Degrade
		}{{"mild", docgen.Mild()}, {"heavy", docgen.Heavy()}} {
			ph, err := docgen.Photograph(doc, q.d, uint64(i+1))
			if err != nil {
				t.Fatal(err)
			}
			f, ok := one(p.Name+" document "+q.name, ph.Image)
			add("composed document, "+q.name+" photo", true, engine.Distance(selfies[i].Descriptor, f.Descriptor), ok && found[i], p.Name)
			if q.name == "mild" {
				docs[i], docFound[i] = f, ok
				if ok && m.HasLiveness() {
					// A presentation attack: the document's portrait held
					// up to the camera.
					l, err := m.Liveness(ctx, ph.Image, f.Box)
					if err != nil {
						t.Fatal(err)
					}
					liveness["attack: document portrait"] = append(liveness["attack: document portrait"], l)
				}
			}
		}
	}
	for i := range people {
		for j := range people {
			if i == j || !found[i] {
				continue
			}
			// Faces from two of the sample photos taken with one camera
			// are not known to be different people
			// (facetest.SurelyDifferent): reported, not asserted.
			kind := "different people"
			if !facetest.SurelyDifferent(people[i], people[j]) {
				kind = "unlabelled (two of sample1–4)"
			}
			add(kind+", selfie vs document", false, engine.Distance(selfies[i].Descriptor, docs[j].Descriptor), docFound[j],
				people[i].Name+" selfie — "+people[j].Name+" document")
			if j > i && found[j] {
				add(kind+", selfie vs selfie", false, engine.Distance(selfies[i].Descriptor, selfies[j].Descriptor), true,
					people[i].Name+" — "+people[j].Name)
			}
		}
	}

	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	sort.Strings(names)
	var table strings.Builder
	fmt.Fprintf(&table, "%d people, %s; thresholds: pass ≤ %.2f, fail ≥ %.2f\n", len(people), time.Since(start).Round(time.Second), th.MatchDistance, th.MismatchDistance)
	fmt.Fprintln(&table, "| pairs | n | no face | min | median | max | pass | review | fail |")
	fmt.Fprintln(&table, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range names {
		s := sets[n]
		sort.Float64s(s.distances)
		var pass, review, fail int
		for _, d := range s.distances {
			switch {
			case d >= th.MismatchDistance:
				fail++
			case d > th.MatchDistance:
				review++
			default:
				pass++
			}
		}
		if len(s.distances) == 0 {
			t.Errorf("%s: no pairs measured", n)
			continue
		}
		fmt.Fprintf(&table, "| %s | %d | %d | %.3f | %.3f | %.3f | %d | %d | %d |\n", n, len(s.distances), s.missed,
			s.distances[0], s.distances[len(s.distances)/2], s.distances[len(s.distances)-1], pass, review, fail)
		if !s.genuine {
			fmt.Fprintf(&table, "    closest: %.3f %s\n", s.closestD, s.closest)
		}
		// Heavily degraded document photos are reported, not asserted:
		// the quality check refuses many of them before faces are compared.
		if s.genuine && fail > 0 && !strings.Contains(n, "heavy") {
			t.Errorf("%s: %d same-person pairs would fail with photo_mismatch", n, fail)
		}
		if !s.genuine && pass > 0 && !strings.HasPrefix(n, "unlabelled") {
			t.Errorf("%s: %d different-people pairs would pass", n, pass)
		}
	}
	fmt.Fprintf(&table, "\nliveness; thresholds: pass ≥ %.2f, fail < %.2f (on the lower of real and live)\n", th.LivenessPass, th.LivenessFail)
	fmt.Fprintln(&table, "| photos | n | real min / median / max | live min / median / max | pass | review | fail |")
	fmt.Fprintln(&table, "|---|---:|---|---|---:|---:|---:|")
	for _, n := range []string{"genuine: selfie crop", "attack: document portrait"} {
		ls := liveness[n]
		if len(ls) == 0 {
			continue
		}
		var real, live []float64
		var pass, review, fail int
		for _, l := range ls {
			real, live = append(real, l.Real), append(live, l.Live)
			switch low := math.Min(l.Real, l.Live); {
			case low < th.LivenessFail:
				fail++
			case low < th.LivenessPass:
				review++
			default:
				pass++
			}
		}
		sort.Float64s(real)
		sort.Float64s(live)
		fmt.Fprintf(&table, "| %s | %d | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %d | %d | %d |\n", n, len(ls),
			real[0], real[len(real)/2], real[len(real)-1], live[0], live[len(live)/2], live[len(live)-1], pass, review, fail)
		if strings.HasPrefix(n, "genuine") && fail > 0 {
			t.Errorf("%s: %d genuine selfies would fail with liveness_error", n, fail)
		}
	}
	t.Log("\n" + table.String())
}

func scale(img image.Image, f float64) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, int(float64(b.Dx())*f), int(float64(b.Dy())*f)))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	return dst
}

func jpegQ(img image.Image, q int) image.Image {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		panic(err)
	}
	out, err := jpeg.Decode(&buf)
	if err != nil {
		panic(err)
	}
	return out
}

func darken(img image.Image, f float64) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			dst.SetRGBA(x, y, color.RGBA{uint8(float64(r>>8) * f), uint8(float64(g>>8) * f), uint8(float64(bl>>8) * f), 255})
		}
	}
	return dst
}

// rotate turns img by deg degrees about its centre, keeping its size and
// filling the corners with the nearest edge colour (grey).
func rotate(img image.Image, deg float64) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(b)
	xdraw.Draw(dst, b, image.NewUniform(color.RGBA{128, 128, 128, 255}), image.Point{}, xdraw.Src)
	s, c := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	m := f64.Aff3{c, -s, cx - c*cx + s*cy, s, c, cy - s*cx - c*cy}
	xdraw.BiLinear.Transform(dst, m, img, b, xdraw.Over, nil)
	return dst
}

// flipImage returns img mirrored left to right.
func flipImage(img image.Image) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			dst.Set(b.Dx()-1-x, y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return dst
}

// TestDescriptorPose checks what the engine's descriptor (app.ChipMirrored)
// is built to ignore: a selfie and its mirror image get close descriptors
// (the chip's and its mirror's descriptors are averaged; not equal,
// since the landmarks of a mirrored face are not exactly mirrored and
// dlib's mean face is not quite symmetric), and a selfie turned by ±15°
// stays closer to the selfie than with face-api's own crop
// (app.FaceAPICrop, the engine's before 2026-11-24), which is not rotated
// upright. Measured 2026-11-24: mirrored 0.09–0.14 (face-api's crop
// 0.26–0.39); turned 0.07–0.15 (0.34–0.48) except sample1#1 turned 15°
// further from upright than it already is, 0.374 (0.495), where the
// landmarks suffer.
func TestDescriptorPose(t *testing.T) {
	people := facetest.People(t)[:4]
	chip := facetest.Models(t)
	if os.Getenv("VERIFYD_FACE_CROP") != "" {
		t.Skip("VERIFYD_FACE_CROP is set: this test checks the default descriptor")
	}
	faceAPI, err := app.LoadFaceModelsCrop(facetest.ModelsDir(t), app.FaceAPICrop)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	centred := func(m *app.FaceModels, img image.Image) []float32 {
		faces, err := m.Faces(ctx, img)
		if err != nil {
			t.Fatal(err)
		}
		faces = engine.DefaultFaceThresholds.Usable(faces)
		if len(faces) == 0 {
			return nil
		}
		b := img.Bounds()
		centre := func(f engine.Face) float64 {
			return math.Hypot(float64(f.Box.Min.X+f.Box.Max.X-b.Min.X-b.Max.X), float64(f.Box.Min.Y+f.Box.Max.Y-b.Min.Y-b.Max.Y))
		}
		return slices.MinFunc(faces, func(a, b engine.Face) int { return int(centre(a) - centre(b)) }).Descriptor
	}
	for _, p := range people {
		selfie := p.Selfie()
		for _, v := range []struct {
			name  string
			img   image.Image
			limit float64
		}{{"mirrored", flipImage(selfie), 0.20}, {"turned 15°", rotate(selfie, 15), 0}, {"turned −15°", rotate(selfie, -15), 0}} {
			a, b := centred(chip, selfie), centred(chip, v.img)
			fa, fb := centred(faceAPI, selfie), centred(faceAPI, v.img)
			if a == nil || b == nil || fa == nil || fb == nil {
				t.Logf("%s %s: no face", p.Name, v.name)
				continue
			}
			d, fd := engine.Distance(a, b), engine.Distance(fa, fb)
			t.Logf("%s %s: distance %.3f (face-api's crop: %.3f)", p.Name, v.name, d, fd)
			if v.limit > 0 && d > v.limit {
				t.Errorf("%s %s: descriptor distance %.3f to the selfie, want ≤ %.2f", p.Name, v.name, d, v.limit)
			}
			if d >= fd {
				t.Errorf("%s %s: descriptor distance %.3f to the selfie, not below face-api's crop's %.3f", p.Name, v.name, d, fd)
			}
		}
	}
}

// TestTiltedSelfie turns every face-api sample person's selfie by 25°
// either way and checks that the engine finds the face at least nine
// times in ten, and that every face it finds there is the person's: its
// landmarks where the upright selfie's are once turned, its descriptor a
// match for the upright selfie's. Without the turned second look and the
// levelled landmarks (FaceModels.faces) one of the faces is not found
// even upright, one is missed turned, and two are described 0.58 and
// 0.61 from themselves upright: borderline matches of a person with
// herself. The crops of face-api's group photos show neighbours at their
// edges; the face looked at is the one nearest where the person's face
// is turned to.
func TestTiltedSelfie(t *testing.T) {
	t.Parallel()
	people := facetest.People(t)
	m := facetest.Models(t)
	ctx := context.Background()
	th := engine.DefaultFaceThresholds
	centre := func(f engine.Face) engine.Point {
		return engine.Point{X: float64(f.Box.Min.X+f.Box.Max.X) / 2, Y: float64(f.Box.Min.Y+f.Box.Max.Y) / 2}
	}
	// nearest returns the usable face of img nearest to p.
	nearest := func(img image.Image, p engine.Point) (engine.Face, float64) {
		faces, err := m.Faces(ctx, img)
		if err != nil {
			t.Fatal(err)
		}
		best, at := engine.Face{}, math.Inf(1)
		for _, f := range th.Usable(faces) {
			if c := centre(f); math.Hypot(c.X-p.X, c.Y-p.Y) < at {
				best, at = f, math.Hypot(c.X-p.X, c.Y-p.Y)
			}
		}
		return best, at
	}
	type person struct {
		name    string
		selfie  image.Image
		upright engine.Face
	}
	var uprights []person
	for _, p := range people {
		selfie := p.Selfie()
		b := selfie.Bounds()
		upright, _ := nearest(selfie, engine.Point{X: float64(b.Min.X+b.Max.X) / 2, Y: float64(b.Min.Y+b.Max.Y) / 2})
		if upright.Descriptor == nil {
			t.Errorf("%s: no face upright", p.Name)
			continue
		}
		uprights = append(uprights, person{p.Name, selfie, upright})
	}
	// tilt turns every selfie by deg either way and returns how many of
	// the faces were found, and of those how many were the person's
	// (landmarks within 0.2 eye distances of the upright ones turned,
	// descriptor within MatchDistance of the upright one).
	tilt := func(deg float64) (tried, found, right int) {
		for _, p := range uprights {
			b := p.selfie.Bounds()
			cx, cy := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
			upright := p.upright
			eyes := math.Hypot(upright.Landmarks[36].X-upright.Landmarks[45].X, upright.Landmarks[36].Y-upright.Landmarks[45].Y)
			for _, a := range []float64{deg, -deg} {
				// rotate turns by a about the centre (image coordinates, y
				// down): where a point of the upright selfie goes.
				s, c := math.Sincos(a * math.Pi / 180)
				turnPoint := func(q engine.Point) engine.Point {
					x, y := q.X-cx, q.Y-cy
					return engine.Point{X: cx + c*x - s*y, Y: cy + s*x + c*y}
				}
				tried++
				turned, off := nearest(rotate(p.selfie, a), turnPoint(centre(upright)))
				if off > float64(upright.Box.Dx())/2 {
					t.Logf("%s turned %+g°: the face not found", p.name, a)
					continue
				}
				found++
				var sq float64
				for i, q := range upright.Landmarks {
					want := turnPoint(q)
					sq += math.Pow(turned.Landmarks[i].X-want.X, 2) + math.Pow(turned.Landmarks[i].Y-want.Y, 2)
				}
				rms := math.Sqrt(sq/float64(len(upright.Landmarks))) / eyes
				d := engine.Distance(upright.Descriptor, turned.Descriptor)
				t.Logf("%s turned %+g°: landmarks off by %.3f eye distances, descriptor distance %.3f", p.name, a, rms, d)
				if d >= th.MismatchDistance && !*tiltSweep {
					t.Errorf("%s turned %+g°: descriptor distance %.3f to the upright selfie's: a photo_mismatch of the person with herself", p.name, a, d)
				}
				if rms <= 0.2 && d <= th.MatchDistance {
					right++
				}
			}
		}
		t.Logf("turned %g°: %d of %d faces found, %d of them the person's", deg, found, tried, right)
		return tried, found, right
	}
	if *tiltSweep {
		for _, deg := range []float64{0, 10, 15, 20, 25, 30, 35, 40} {
			tilt(deg)
		}
		return
	}
	tried, _, right := tilt(25)
	if 10*right < 9*tried {
		t.Errorf("turned 25°: %d of %d faces found and described as the person, want nine in ten", right, tried)
	}
}

// TestDarkCloseUp checks that the engine finds the face of a dark
// close-up: each face-api sample person's selfie cropped so that the face
// fills 55 % and 70 % of its width, every pixel at a fifth of its
// brightness (a phone in a dim room that did not brighten the photo). The
// tiny detector scores such faces below 0.5 at 320 and larger; the last
// look at 224, face-api's size for large faces (FaceModels.faces,
// lastLooks), finds 24 of the 36 (19 without it). A face it finds
// must be the person's: not at the mismatch distance from the same crop
// at full brightness.
func TestDarkCloseUp(t *testing.T) {
	t.Parallel()
	m := facetest.Models(t)
	ctx := context.Background()
	th := engine.DefaultFaceThresholds
	// only returns img's one usable face, or false.
	only := func(img image.Image) (engine.Face, bool) {
		faces, err := m.Faces(ctx, img)
		if err != nil {
			t.Fatal(err)
		}
		if u := th.Usable(faces); len(u) == 1 {
			return u[0], true
		}
		return engine.Face{}, false
	}
	tried, found := 0, 0
	for _, p := range facetest.People(t) {
		for _, frac := range []float64{0.55, 0.7} {
			crop := p.Crop(720, 960, frac, 0.4)
			bright, ok := only(crop)
			if !ok {
				continue // not the case looked at here
			}
			tried++
			dark, ok := only(darken(crop, 0.2))
			if !ok {
				t.Logf("%s, face %.0f %% of the width, dark: no face", p.Name, 100*frac)
				continue
			}
			found++
			d := engine.Distance(bright.Descriptor, dark.Descriptor)
			t.Logf("%s, face %.0f %% of the width, dark: found, %.3f from the bright crop's", p.Name, 100*frac, d)
			if d >= th.MismatchDistance {
				t.Errorf("%s, face %.0f %% of the width: the dark crop's face is %.3f from the bright one's, a photo_mismatch of the person with herself", p.Name, 100*frac, d)
			}
		}
	}
	if tried < 30 || found < 22 {
		t.Errorf("dark close-ups: %d of %d faces found, want at least 22 of at least 30", found, tried)
	}
}
