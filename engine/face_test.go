package engine_test

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"slices"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
)

// byPhoto answers FaceAnalyzer calls from a table keyed by the photo's
// width, so one test input can give the selfie and the document different
// faces. The real analyzer is exercised by internal/app's face tests; this
// table tests the decision bands alone.
type byPhoto map[int][]engine.Face

func (b byPhoto) Faces(_ context.Context, img image.Image) ([]engine.Face, error) {
	f, ok := b[img.Bounds().Dx()]
	if !ok {
		return nil, errors.New("analyzer exploded")
	}
	return f, nil
}

// moved is f with its box moved by dx, dy.
func moved(f engine.Face, dx, dy int) engine.Face {
	f.Box = f.Box.Add(image.Pt(dx, dy))
	return f
}

// descriptorAt returns a descriptor at distance d from the zero vector.
func descriptorAt(d float64) []float32 {
	v := make([]float32, 128)
	v[0] = float32(d)
	return v
}

func face(size int, score, d float64) engine.Face {
	return engine.Face{Box: image.Rect(10, 10, 10+size, 10+size), Score: score, Descriptor: descriptorAt(d)}
}

func TestFaceMatchCheck(t *testing.T) {
	t.Parallel()
	const selfieW, docW = 640, 1000
	me := face(200, 0.9, 0)
	// Descriptors are float32: the thresholds are rounded to float32 so
	// that a distance "at the threshold" is exactly the threshold.
	th := engine.DefaultFaceThresholds
	th.MatchDistance, th.MismatchDistance = float64(float32(th.MatchDistance)), float64(float32(th.MismatchDistance))
	mid := (th.MatchDistance + th.MismatchDistance) / 2
	tests := []struct {
		name    string
		selfie  []engine.Face
		doc     []engine.Face
		outcome engine.Outcome
		reason  verifyd.Reason
		dist    float64 // expected evidence distance; NaN: none
	}{
		{"same person", []engine.Face{me}, []engine.Face{face(120, 0.8, 0.3)}, engine.Pass, "", 0.3},
		{"at the match threshold", []engine.Face{me}, []engine.Face{face(120, 0.8, th.MatchDistance)}, engine.Pass, "", th.MatchDistance},
		{"borderline goes to review", []engine.Face{me}, []engine.Face{face(120, 0.8, mid)}, engine.Review, "", mid},
		{"another person fails", []engine.Face{me}, []engine.Face{face(120, 0.8, th.MismatchDistance+0.001)}, engine.Fail, verifyd.ReasonPhotoMismatch, th.MismatchDistance + 0.001},
		{"closest document face counts (ghost image)", []engine.Face{me},
			[]engine.Face{face(120, 0.9, 0.9), face(40, 0.7, 0.2)}, engine.Pass, "", 0.2},
		{"no selfie face goes to review", nil, []engine.Face{face(120, 0.8, 0.3)}, engine.Review, "", math.NaN()},
		{"unsure selfie face is no face", []engine.Face{face(200, 0.3, 0)}, []engine.Face{face(120, 0.8, 0.3)},
			engine.Review, "", math.NaN()},
		{"two selfie faces go to review", []engine.Face{me, moved(face(150, 0.8, 1), 160, 0)}, []engine.Face{face(120, 0.8, 0.3)},
			engine.Review, "", math.NaN()},
		{"a face found twice, whole and in part, is one face", []engine.Face{moved(face(120, 0.7, 1), 80, 80), me},
			[]engine.Face{face(120, 0.8, 0.3)}, engine.Pass, "", 0.3},
		{"no document face goes to review", []engine.Face{me}, nil, engine.Review, "", math.NaN()},
		{"tiny document face goes to review", []engine.Face{me}, []engine.Face{face(20, 0.8, 0.1)}, engine.Review, "", 0.1},
		{"tiny but clearly another person fails", []engine.Face{me}, []engine.Face{face(20, 0.8, 0.9)},
			engine.Fail, verifyd.ReasonPhotoMismatch, 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := engine.FaceMatchCheck{Faces: byPhoto{selfieW: tt.selfie, docW: tt.doc}, Thresholds: th}
			in := &engine.Input{
				Selfie: &engine.Image{Image: image.NewGray(image.Rect(0, 0, selfieW, 480))},
				Front:  &engine.Image{Image: image.NewGray(image.Rect(0, 0, docW, 700))},
				Facts:  map[string]any{},
			}
			r := c.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Reason != tt.reason {
				t.Fatalf("got %s %q (%s), want %s %q", r.Outcome, r.Reason, r.Detail, tt.outcome, tt.reason)
			}
			d, ok := r.Evidence["distance"].(float64)
			if math.IsNaN(tt.dist) {
				if ok {
					t.Errorf("distance %v in evidence, want none", d)
				}
			} else if !ok || math.Abs(d-tt.dist) > 5e-4 { // evidence is rounded to 3 decimals
				t.Errorf("evidence distance = %v, want %v", r.Evidence["distance"], tt.dist)
			}
			if _, ok := r.Evidence["selfie_faces"]; !ok {
				t.Errorf("evidence lacks selfie_faces: %v", r.Evidence)
			}
			_, hasFact := in.Facts[engine.FactSelfieFace]
			if hasFact != (len(engine.Distinct(c.Thresholds.Usable(tt.selfie))) == 1) {
				t.Errorf("selfie face fact set = %v with %d selfie faces", hasFact, len(tt.selfie))
			}
		})
	}

	// The document's own portrait as the selfie: the same landmarks,
	// moved and scaled as a re-photographed picture would be.
	landmarks := func(scale, dx, jitter float64) []engine.Point {
		pts := make([]engine.Point, 68)
		for i := range pts {
			x, y := 100*math.Cos(float64(i)), 100*math.Sin(float64(2*i))
			// The eye centres (36–41, 42–47) 100 px apart.
			if i >= 36 && i < 48 {
				x, y = -50+100*float64((i-36)/6)+5*math.Cos(float64(i)), 5*math.Sin(float64(i))
			}
			pts[i] = engine.Point{X: dx + scale*(x+jitter*math.Sin(float64(7*i))), Y: 300 + scale*(y+jitter*math.Cos(float64(5*i)))}
		}
		return pts
	}
	withLandmarks := func(f engine.Face, lm []engine.Point) engine.Face { f.Landmarks = lm; return f }
	for _, tt := range []struct {
		name    string
		jitter  float64 // landmark difference, in % of the eye distance
		dist    float64
		outcome engine.Outcome
		reason  verifyd.Reason
	}{
		{"the document's portrait as the selfie", 0.5, 0.15, engine.Fail, verifyd.ReasonPotentialFraud},
		{"nearly the portrait's pose goes to review", 2.5, 0.15, engine.Review, ""},
		{"same pose but a less alike face goes to review", 0.5, 0.27, engine.Review, ""},
		{"another photograph matches", 6, 0.15, engine.Pass, ""},
		{"same pose, other face: not a copy", 0.5, 0.35, engine.Pass, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			th := engine.DefaultFaceThresholds
			th.MatchDistance = 0.36
			selfie := withLandmarks(me, landmarks(2, 400, 0))
			doc := withLandmarks(face(120, 0.8, tt.dist), landmarks(0.6, 100, tt.jitter))
			c := engine.FaceMatchCheck{Faces: byPhoto{selfieW: {selfie}, docW: {doc}}, Thresholds: th}
			in := &engine.Input{
				Selfie: &engine.Image{Image: image.NewGray(image.Rect(0, 0, selfieW, 480))},
				Front:  &engine.Image{Image: image.NewGray(image.Rect(0, 0, docW, 700))},
				Facts:  map[string]any{},
			}
			r := c.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Reason != tt.reason {
				t.Fatalf("got %s %q (%s; shape %v), want %s %q", r.Outcome, r.Reason, r.Detail, r.Evidence["shape_difference"], tt.outcome, tt.reason)
			}
		})
	}

	t.Run("analyzer error is our error", func(t *testing.T) {
		c := engine.FaceMatchCheck{Faces: byPhoto{}, Thresholds: engine.DefaultFaceThresholds}
		in := &engine.Input{Selfie: &engine.Image{Image: image.NewGray(image.Rect(0, 0, 5, 5))},
			Front: &engine.Image{Image: image.NewGray(image.Rect(0, 0, 5, 5))}, Facts: map[string]any{}}
		if r := c.Run(context.Background(), in); r.Outcome != engine.Error {
			t.Fatalf("outcome %s, want error", r.Outcome)
		}
	})
}

type fixedLiveness struct {
	s   engine.Liveness
	err error
	box *image.Rectangle
}

func (f fixedLiveness) Liveness(_ context.Context, _ image.Image, box image.Rectangle) (engine.Liveness, error) {
	*f.box = box
	return f.s, f.err
}

// closerLook is a FaceAnalyzer for a document photo with a card on it:
// the selfie (by its width), the whole document photo, and the part of
// it where the card lies (any other image) each have their faces; looks
// counts the closer looks.
type closerLook struct {
	selfieW       int
	selfie, whole []engine.Face
	closer        []engine.Face
	looks         *int
}

func (c closerLook) Faces(_ context.Context, img image.Image) ([]engine.Face, error) {
	b := img.Bounds()
	switch {
	case b.Dx() == c.selfieW:
		return c.selfie, nil
	case b.Min == image.Point{}:
		return c.whole, nil
	}
	*c.looks++
	return c.closer, nil
}

// TestFaceMatchCheckLooksCloserBeforeFailing checks that a mismatch found
// on the whole photo fails only when a closer look where the document
// lies does not bring the pair below the mismatch distance by the margin:
// a genuine German card in low light, its portrait detected at 0.505,
// was 0.848 from the selfie on the whole photo and 0.438 closer
// (docs/accuracy.md, twenty-eighth pass).
func TestFaceMatchCheckLooksCloserBeforeFailing(t *testing.T) {
	t.Parallel()
	th := engine.DefaultFaceThresholds
	// A 1000 × 750 photo of a table with a card half its width on it:
	// portraitRegion finds the card.
	photo := image.NewGray(image.Rect(0, 0, 1000, 750))
	for i := range photo.Pix {
		photo.Pix[i] = 40
	}
	card := image.Rect(250, 217, 750, 532)
	for y := card.Min.Y; y < card.Max.Y; y++ {
		for x := card.Min.X; x < card.Max.X; x++ {
			photo.SetGray(x, y, color.Gray{220})
		}
	}
	me := face(200, 0.9, 0)
	for _, tt := range []struct {
		name    string
		whole   []engine.Face
		closer  []engine.Face
		outcome engine.Outcome
		looks   int
		dist    float64
	}{
		{"closer, the pair is where genuine pairs are: review", []engine.Face{face(100, 0.505, 0.848)}, []engine.Face{face(180, 0.9, 0.438)}, engine.Review, 1, 0.848},
		{"closer, still beyond the mismatch distance: fails", []engine.Face{face(100, 0.8, 0.9)}, []engine.Face{face(180, 0.9, 0.88)}, engine.Fail, 1, 0.9},
		{"closer, just under the mismatch distance (within the margin): fails", []engine.Face{face(100, 0.8, 0.79)}, []engine.Face{face(180, 0.9, th.MismatchDistance-0.01)}, engine.Fail, 1, 0.79},
		{"closer, no face: fails on the whole photo's", []engine.Face{face(100, 0.8, 0.9)}, nil, engine.Fail, 1, 0.9},
		{"a match on the whole photo needs no closer look", []engine.Face{face(100, 0.8, 0.3)}, []engine.Face{face(180, 0.9, 0.9)}, engine.Pass, 0, 0.3},
		{"no face on the whole photo: the closer look's decides", nil, []engine.Face{face(180, 0.9, 0.9)}, engine.Fail, 1, 0.9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			looks := 0
			c := engine.FaceMatchCheck{Faces: closerLook{selfieW: 640, selfie: []engine.Face{me}, whole: tt.whole, closer: tt.closer, looks: &looks}, Thresholds: th}
			in := &engine.Input{
				Selfie: &engine.Image{Image: image.NewGray(image.Rect(0, 0, 640, 480))},
				Front:  &engine.Image{Image: photo},
				Facts:  map[string]any{},
			}
			r := c.Run(context.Background(), in)
			if r.Outcome != tt.outcome || looks != tt.looks {
				t.Fatalf("got %s (%s) after %d closer looks, want %s after %d", r.Outcome, r.Detail, looks, tt.outcome, tt.looks)
			}
			if tt.outcome == engine.Fail && r.Reason != verifyd.ReasonPhotoMismatch {
				t.Errorf("reason %q, want photo_mismatch", r.Reason)
			}
			if d, _ := r.Evidence["distance"].(float64); math.Abs(d-tt.dist) > 5e-4 {
				t.Errorf("evidence distance %v, want %v", r.Evidence["distance"], tt.dist)
			}
		})
	}
}

func TestLivenessCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		s       engine.Liveness
		noFace  bool
		err     error
		outcome engine.Outcome
		reason  verifyd.Reason
		direct  bool // a direct submission of a business that reviews them
	}{
		{"live", engine.Liveness{Real: 0.97, Live: 0.9}, false, nil, engine.Pass, "", false},
		{"one low score is borderline", engine.Liveness{Real: 0.97, Live: 0.1}, false, nil, engine.Review, "", false},
		{"spoof fails", engine.Liveness{Real: 0.01, Live: 0.9}, false, nil, engine.Fail, verifyd.ReasonLivenessError, false},
		{"no face from the match check", engine.Liveness{Real: 1, Live: 1}, true, nil, engine.Review, "", false},
		{"scorer error", engine.Liveness{}, false, errors.New("bad"), engine.Error, "", false},
		{"live, but the business reviews direct submissions", engine.Liveness{Real: 0.97, Live: 0.9}, false, nil, engine.Review, "", true},
		{"a spoof still fails when the business reviews", engine.Liveness{Real: 0.01, Live: 0.9}, false, nil, engine.Fail, verifyd.ReasonLivenessError, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got image.Rectangle
			want := image.Rect(1, 2, 30, 40)
			c := engine.LivenessCheck{Scorer: fixedLiveness{tt.s, tt.err, &got}, Thresholds: engine.DefaultFaceThresholds}
			in := &engine.Input{Selfie: &engine.Image{Image: image.NewGray(image.Rect(0, 0, 50, 50))}, Facts: map[string]any{}, DirectReview: tt.direct}
			if !tt.noFace {
				in.Facts[engine.FactSelfieFace] = want
			}
			r := c.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Reason != tt.reason {
				t.Fatalf("got %s %q (%s), want %s %q", r.Outcome, r.Reason, r.Detail, tt.outcome, tt.reason)
			}
			if !tt.noFace && got != want {
				t.Errorf("scorer saw box %v, want %v", got, want)
			}
		})
	}
}

func TestFaceThresholdsValidate(t *testing.T) {
	t.Parallel()
	ok := engine.DefaultFaceThresholds
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	bad := []func(*engine.FaceThresholds){
		func(t *engine.FaceThresholds) { t.MatchDistance = t.MismatchDistance + 0.05 },
		func(t *engine.FaceThresholds) { t.MatchDistance = 0 },
		func(t *engine.FaceThresholds) { t.MinFaceScore = 2 },
		func(t *engine.FaceThresholds) { t.LivenessFail = 0.9 },
		func(t *engine.FaceThresholds) { t.LivenessPass = 1.5 },
	}
	for i, f := range bad {
		th := ok
		f(&th)
		if th.Validate() == nil {
			t.Errorf("case %d: %+v accepted", i, th)
		}
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	if d := engine.Distance([]float32{0, 3}, []float32{4, 0}); d != 5 {
		t.Errorf("distance = %v, want 5", d)
	}
	if d := engine.Distance([]float32{1}, []float32{1, 2}); !math.IsInf(d, 1) {
		t.Errorf("mismatched lengths = %v, want +Inf", d)
	}
}

// frame is a grey test frame of width w whose pixels depend on seed, so two
// seeds differ (motion) and one seed repeated does not.
func frame(w int, seed uint8) *engine.Image {
	img := image.NewGray(image.Rect(0, 0, w, 300))
	for y := range 300 {
		for x := range w {
			img.SetGray(x, y, color.Gray{uint8(x*7+y*3) + seed*13})
		}
	}
	return &engine.Image{Image: img}
}

func TestLivenessCheckFrames(t *testing.T) {
	t.Parallel()
	me := face(200, 0.9, 0)
	live := engine.Liveness{Real: 0.9, Live: 0.9}
	tests := []struct {
		name    string
		frames  []*engine.Image
		faces   byPhoto
		outcome engine.Outcome
		reason  verifyd.Reason
	}{
		{"same face, moving", []*engine.Image{frame(301, 1), frame(302, 2), frame(303, 3)},
			byPhoto{301: {me}, 302: {face(190, 0.9, 0.1)}, 303: {me}}, engine.Pass, ""},
		{"identical frames (injected still)", []*engine.Image{frame(301, 1), frame(302, 1)},
			byPhoto{301: {me}, 302: {me}}, engine.Review, ""},
		{"another person in a frame", []*engine.Image{frame(301, 1), frame(302, 2)},
			byPhoto{301: {me}, 302: {face(200, 0.9, 0.8)}}, engine.Fail, verifyd.ReasonLivenessError},
		{"no face in a frame", []*engine.Image{frame(301, 1), frame(302, 2)},
			byPhoto{301: {me}, 302: nil}, engine.Review, ""},
		{"one frame is enough to rate", []*engine.Image{frame(301, 1)}, byPhoto{301: {me}}, engine.Pass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var box image.Rectangle
			c := engine.LivenessCheck{Scorer: fixedLiveness{live, nil, &box}, Faces: tt.faces, Thresholds: engine.DefaultFaceThresholds}
			in := &engine.Input{Selfie: &engine.Image{Image: image.NewGray(image.Rect(0, 0, 640, 480))}, Frames: tt.frames,
				Facts: map[string]any{engine.FactSelfieFace: me.Box, engine.FactSelfieDescriptor: me.Descriptor}}
			r := c.Run(context.Background(), in)
			if r.Outcome != tt.outcome || r.Reason != tt.reason {
				t.Fatalf("got %s %q (%s), want %s %q", r.Outcome, r.Reason, r.Detail, tt.outcome, tt.reason)
			}
		})
	}
}

func TestFaceMotion(t *testing.T) {
	t.Parallel()
	a, b := frame(100, 1).Image, frame(100, 2).Image
	box := image.Rect(10, 10, 90, 90)
	if m := engine.FaceMotion(a, a, box); m != 0 {
		t.Errorf("motion of a frame with itself = %v", m)
	}
	if m := engine.FaceMotion(a, b, box); m < engine.MinFrameMotion {
		t.Errorf("motion between different frames = %v", m)
	}
}

func TestDistinct(t *testing.T) {
	t.Parallel()
	at := func(x0, y0, x1, y1 int, score float64) engine.Face {
		return engine.Face{Box: image.Rect(x0, y0, x1, y1), Score: score}
	}
	tests := []struct {
		name  string
		faces []engine.Face
		want  []float64 // the scores kept, in order
	}{
		{"none", nil, nil},
		{"one", []engine.Face{at(0, 0, 100, 100, 0.9)}, []float64{0.9}},
		{"side by side", []engine.Face{at(0, 0, 100, 100, 0.6), at(150, 0, 250, 100, 0.9)}, []float64{0.9, 0.6}},
		// The selfie of the twenty-first pass: the chin and mouth, 0.815 of
		// their box inside the whole face's.
		{"whole and in part", []engine.Face{at(215, 293, 451, 520, 0.659), at(86, 186, 451, 478, 0.868)}, []float64{0.868}},
		{"the part more confident keeps the part", []engine.Face{at(0, 0, 200, 200, 0.6), at(50, 50, 150, 150, 0.9)}, []float64{0.9}},
		{"touching by less than half", []engine.Face{at(0, 0, 100, 100, 0.9), at(60, 0, 160, 100, 0.8)}, []float64{0.9, 0.8}},
		{"half exactly is two", []engine.Face{at(0, 0, 100, 100, 0.9), at(50, 0, 150, 100, 0.8)}, []float64{0.9, 0.8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []float64
			for _, f := range engine.Distinct(tt.faces) {
				got = append(got, f.Score)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("kept %v, want %v", got, tt.want)
			}
		})
	}
}
