package livenessdata

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/liveness"
)

// openSet opens the decoded frames, skipping (failing under
// VERIFYD_TEST_REQUIRE_ALL=1) when scripts/liveness-frames was not run.
func openSet(t testing.TB) *Set {
	t.Helper()
	s, err := Open(FramesDir(testdb.RepoRoot(t)))
	if errors.Is(err, ErrNoFrames) {
		testdb.Skip(t, "the liveness data needs the videos' frames: run scripts/liveness-frames")
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLabels(t *testing.T) {
	for _, s := range Segments {
		v, ok := VideoByName(s.Video)
		if !ok {
			t.Errorf("%+v: unknown video", s)
			continue
		}
		if s.From < 0 || s.To <= s.From || s.To > float64(v.Frames-1)/FPS {
			t.Errorf("%s %s %.1f–%.1f: outside the video's %d frames or empty", s.Video, s.Step, s.From, s.To, v.Frames)
		}
		if s.Step != Neutral && !s.Step.Valid() {
			t.Errorf("%s %.1f: unknown step %q", s.Video, s.From, s.Step)
		}
		if s.Step != Neutral && (s.PeakFrom < s.From || s.PeakTo > s.To || s.PeakTo < s.PeakFrom) {
			t.Errorf("%s %s %.1f–%.1f: peak %.1f–%.1f outside", s.Video, s.Step, s.From, s.To, s.PeakFrom, s.PeakTo)
		}
		// A movement must fit in a step's window after the longest
		// reaction, or the genuine sequences would miss their peaks.
		if s.Step != Neutral && s.Step != liveness.Closer && dur(s.PeakFrom-s.From)+MaxReaction > liveness.StepWindow {
			t.Errorf("%s %s %.1f: peak %.1f s into the segment is too late", s.Video, s.Step, s.From, s.PeakFrom-s.From)
		}
	}
	for _, st := range liveness.Steps {
		if len(performers([]liveness.Step{st})) == 0 {
			t.Errorf("nobody performs %s", st)
		}
	}
	for _, p := range Persons() {
		if len(segmentsOf(p, Neutral)) == 0 {
			t.Errorf("%s has no neutral stretch", p)
		}
	}
	// Every drawable challenge has a performer.
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		steps := liveness.Draw(rng.IntN, 2+rng.IntN(2))
		if len(performers(steps)) == 0 {
			t.Fatalf("nobody performs %v", steps)
		}
	}
}

func TestGenuinePlanFollowsThePrompts(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for range 300 {
		steps := liveness.Draw(rng.IntN, 2+rng.IntN(2))
		p, err := drawPlan(steps, "", rng)
		if err != nil {
			t.Fatal(err)
		}
		total := challengeDuration(steps)
		// The clips tile [0, total) without gaps.
		at := time.Duration(0)
		for _, c := range p.Clips {
			if c.From != at || c.To <= c.From {
				t.Fatalf("%v: clip %+v after %v", steps, c, at)
			}
			at = c.To
		}
		if at != total {
			t.Fatalf("%v: clips end at %v, want %v", steps, at, total)
		}
		// Each step's movement, in order, starts after its prompt with a
		// human reaction and reaches its peak within the step's window.
		var moves []clip
		for _, c := range p.Clips {
			if c.Step != Neutral {
				moves = append(moves, c)
			}
		}
		if len(moves) != len(steps) {
			t.Fatalf("%v: %d movements", steps, len(moves))
		}
		c := liveness.Challenge{Steps: steps}
		for i, m := range moves {
			from, to := c.Window(i)
			if m.Step != steps[i] {
				t.Fatalf("%v: movement %d is %s", steps, i, m.Step)
			}
			if d := m.From - from; d < MinReaction || d > MaxReaction {
				t.Errorf("%v: %s starts %v after its prompt", steps, m.Step, d)
			}
			i := slices.IndexFunc(Segments, func(s Segment) bool { return s.Video == m.Video && s.From == m.Start })
			peak := m.From + dur(Segments[i].PeakFrom-Segments[i].From)
			if peak >= m.To || peak >= to {
				t.Errorf("%v: %s's peak at %v is cut (clip ends %v, window %v)", steps, m.Step, peak, m.To, to)
			}
		}
	}
}

func TestSequences(t *testing.T) {
	s := openSet(t)
	rng := rand.New(rand.NewPCG(3, 3))
	for _, sp := range append([]Species{Genuine}, AttackSpecies...) {
		steps := liveness.Draw(rng.IntN, 2+rng.IntN(2))
		seq, err := s.Attack(sp, steps, rng)
		if err != nil {
			t.Fatalf("%s: %v", sp, err)
		}
		total := challengeDuration(steps)
		n := len(seq.Frames)
		if want := int(total / FrameInterval); n < want-2 || n > want+1 || n > liveness.MaxFrames {
			t.Errorf("%s: %d frames for %v, want about %d", sp, n, total, want)
		}
		for i, f := range seq.Frames {
			b := f.Image.Bounds()
			if max(b.Dx(), b.Dy()) > liveness.MaxFrameSide || f.At < 0 || f.At >= total || (i > 0 && f.At <= seq.Frames[i-1].At) {
				t.Fatalf("%s: frame %d at %v, %v", sp, i, f.At, b)
			}
		}
		enc, err := Encode(seq.Frames)
		if err != nil {
			t.Fatal(err)
		}
		ds := Digests(enc)
		distinct := len(slices.Compact(slices.Sorted(slices.Values(ds))))
		switch sp {
		case Frozen:
			if distinct != 1 {
				t.Errorf("frozen: %d distinct frames", distinct)
			}
		case Reuse:
			earlier, err := Encode(seq.Earlier)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range ds {
				if !slices.Contains(Digests(earlier), d) {
					t.Errorf("reuse: frame %d is not one of the earlier attempt's", i)
				}
			}
		default:
			// A live scene, a hand or a playing video changes every frame.
			if distinct < n-1 {
				t.Errorf("%s (%s): %d distinct frames of %d", sp, seq.Variant, distinct, n)
			}
		}
	}
}

func TestEncodedSequenceIsReproducible(t *testing.T) {
	s := openSet(t)
	steps := []liveness.Step{liveness.TurnRight, liveness.Blink}
	a, _, err := s.EncodedSequence(Print, steps, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := s.EncodedSequence(Print, steps, 7)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := s.EncodedSequence(Print, steps, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) || !bytes.Equal(a[0].JPEG, b[0].JPEG) || a[len(a)-1].At != b[len(b)-1].At {
		t.Error("the same seed gave different frames")
	}
	if bytes.Equal(a[0].JPEG, c[0].JPEG) {
		t.Error("different seeds gave the same first frame")
	}
	_, earlier, err := s.EncodedSequence(Reuse, steps, 7)
	if err != nil || len(earlier) == 0 {
		t.Errorf("reuse: %d earlier frames, %v", len(earlier), err)
	}
}

// TestPlaneProjection checks the camera model the flat attacks rely on:
// facing the camera the medium is an upright rectangle of the asked
// width, a positive yaw brings its right edge nearer (longer), and the
// homography maps the texture's corners onto the projection.
func TestPlaneProjection(t *testing.T) {
	cam := newCamera(400, 300)
	q := cam.corners(300, 400, 0.5, 0.5, 0.5, pose{dist: 1})
	if w := q[1][0] - q[0][0]; math.Abs(w-200) > 1e-6 || q[0][1] != q[1][1] || q[0][0] != q[3][0] {
		t.Errorf("facing: %v", q)
	}
	q = cam.corners(300, 400, 0.5, 0.5, 0.5, pose{dist: 1, yaw: 0.4})
	if right, left := q[2][1]-q[1][1], q[3][1]-q[0][1]; right <= left {
		t.Errorf("yaw 0.4: right edge %.1f px, left %.1f px", right, left)
	}
	q = cam.corners(300, 400, 0.5, 0.5, 0.5, pose{dist: 1, pitch: 0.4})
	if bottom, top := q[2][0]-q[3][0], q[1][0]-q[0][0]; bottom <= top {
		t.Errorf("pitch 0.4: bottom edge %.1f px, top %.1f px", bottom, top)
	}
	h := homography([4][2]float64{{0, 0}, {300, 0}, {300, 400}, {0, 400}}, q)
	for i, p := range [4][2]float64{{0, 0}, {300, 0}, {300, 400}, {0, 400}} {
		x, y := h.apply(p[0], p[1])
		if math.Hypot(x-q[i][0], y-q[i][1]) > 1e-6 {
			t.Errorf("corner %d → (%.3f, %.3f), want %v", i, x, y, q[i])
		}
		u, v := h.inverse().apply(x, y)
		if math.Hypot(u-p[0], v-p[1]) > 1e-6 {
			t.Errorf("inverse of corner %d → (%.3f, %.3f)", i, u, v)
		}
	}
}

// TestMissedPeaks checks the bookkeeping of blinks falling between two
// frames: a blink whose closed-eye frames lie between the recorded
// times is missed, one recorded at its peak is not.
func TestMissedPeaks(t *testing.T) {
	// franck blinks with the eyes closed at 44.3–44.4 s.
	c := clip{From: 2 * time.Second, To: 2500 * time.Millisecond, Video: "franck", Start: 44.1, Step: liveness.Blink}
	p := plan{Person: "franck", Clips: []clip{c}}
	// 2.0 s shows 44.1 s, 2.45 s shows 44.55 → 44.6: both outside the peak.
	if got := missedPeaks(p, []time.Duration{2 * time.Second, 2450 * time.Millisecond}); !slices.Equal(got, []liveness.Step{liveness.Blink}) {
		t.Errorf("frames around the blink: missed %v", got)
	}
	// 2.25 s shows 44.35 → 44.4: eyes closed.
	if got := missedPeaks(p, []time.Duration{2 * time.Second, 2250 * time.Millisecond}); len(got) != 0 {
		t.Errorf("a frame at the blink: missed %v", got)
	}
}

// TestVideoForAFakeCamera checks the steady-rate sequence and its
// YUV4MPEG2 encoding: one frame per 1/fps over the whole challenge, each
// frame a header and a 4:2:0 picture.
func TestVideoForAFakeCamera(t *testing.T) {
	s := openSet(t)
	steps := []liveness.Step{liveness.LookUp, liveness.TurnLeft}
	seq, err := s.Video(Genuine, steps, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := int(challengeDuration(steps) / (100 * time.Millisecond)); len(seq.Frames) != want {
		t.Fatalf("%d frames, want %d", len(seq.Frames), want)
	}
	for i, f := range seq.Frames {
		if f.At != time.Duration(i)*100*time.Millisecond {
			t.Fatalf("frame %d at %v", i, f.At)
		}
	}
	y, err := Y4M(seq.Frames, 10)
	if err != nil {
		t.Fatal(err)
	}
	b := seq.Frames[0].Image.Bounds()
	header := []byte("YUV4MPEG2 W400 H300 F10:1 Ip A1:1 C420jpeg\n")
	if !bytes.HasPrefix(y, header) || len(y) != len(header)+len(seq.Frames)*(len("FRAME\n")+b.Dx()*b.Dy()*3/2) {
		t.Errorf("Y4M of %d frames of %v: %d bytes, header %q", len(seq.Frames), b, len(y), y[:min(len(y), 50)])
	}
}
