package liveness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// motion is a head's pose at a time of the recording.
type motion func(at time.Duration) (yaw, pitch, scale, eyes float64)

// follow performs the challenge's steps, each 0.6 s after its prompt,
// peaking 1 s later and back to neutral by the window's end.
func follow(c Challenge, amount float64) motion {
	return func(at time.Duration) (yaw, pitch, scale, eyes float64) {
		scale, eyes = 80, 1
		for i, s := range c.Steps {
			from, _ := c.Window(i)
			x := (at - from - 600*time.Millisecond).Seconds() / 2
			if x <= 0 || x >= 1 {
				continue
			}
			k := math.Sin(math.Pi * x)
			switch s {
			case TurnLeft:
				yaw = 25 * k * amount
			case TurnRight:
				yaw = -25 * k * amount
			case LookUp:
				pitch = 18 * k * amount
			case Blink:
				eyes = 1 - 0.8*k*amount
			case Closer:
				scale = 80 * (1 + 0.4*k*amount)
			}
		}
		return
	}
}

// record samples m at 4 frames per second over the challenge, with
// landmark noise, as the face models would give it.
func record(c Challenge, m motion, rnd *rand.Rand) []Frame {
	var out []Frame
	for at := time.Duration(0); at < c.Duration(); at += time.Second / FramesPerSecond {
		yaw, pitch, scale, eyes := m(at)
		lm := project(yaw, pitch, scale, 0.6, rnd)
		closeEyes(lm, eyes)
		out = append(out, Frame{At: at, Faces: 1, Landmarks: lm, Descriptor: []float32{0, 0}, Digest: fmt.Sprint(len(out))})
	}
	return out
}

// closeEyes scales the eyelids' opening by k.
func closeEyes(lm []Point, k float64) {
	for _, pair := range [][2]int{{37, 41}, {38, 40}, {43, 47}, {44, 46}} {
		a, b := &lm[pair[0]], &lm[pair[1]]
		mid := (a.Y + b.Y) / 2
		a.Y, b.Y = mid+(a.Y-mid)*k, mid+(b.Y-mid)*k
	}
}

// tiltPicture is a print of the neutral face held in front of the camera
// and tilted about its vertical axis in time with each turn prompt: its
// landmarks move by a homography.
func tiltPicture(c Challenge, rnd *rand.Rand) []Frame {
	front := project(0, 0, 80, 0, rnd)
	var out []Frame
	for at := time.Duration(0); at < c.Duration(); at += time.Second / FramesPerSecond {
		yaw, pitch, _, _ := follow(c, 1)(at)
		a, b := math.Sin(yaw*math.Pi/180), math.Sin(pitch*math.Pi/180)
		h := [9]float64{math.Cos(yaw * math.Pi / 180), 0, 0, 0, math.Cos(pitch * math.Pi / 180), 0, a * 0.002, -b * 0.002, 1}
		lm := warp(front, h)
		for i := range lm {
			lm[i].X += rnd.NormFloat64() * 0.6
			lm[i].Y += rnd.NormFloat64() * 0.6
		}
		out = append(out, Frame{At: at, Faces: 1, Landmarks: lm, Digest: fmt.Sprint(len(out))})
	}
	return out
}

func TestAnalyze(t *testing.T) {
	ch := func(steps ...Step) Challenge { return Challenge{ID: "c", Steps: steps} }
	three := ch(TurnLeft, Blink, LookUp)
	cases := []struct {
		name   string
		c      Challenge
		frames func(c Challenge, rnd *rand.Rand) []Frame
		in     func(*Input)
		want   Outcome
		why    string
	}{
		{name: "followed", c: three, frames: func(c Challenge, r *rand.Rand) []Frame { return record(c, follow(c, 1), r) }, want: Pass},
		{name: "followed, right and closer", c: ch(TurnRight, Closer), frames: func(c Challenge, r *rand.Rand) []Frame { return record(c, follow(c, 1), r) }, want: Pass},
		{name: "borderline movements", c: three, frames: func(c Challenge, r *rand.Rand) []Frame { return record(c, follow(c, 0.4), r) }, want: Review, why: "borderline"},
		{name: "ignored the prompts", c: three, frames: func(c Challenge, r *rand.Rand) []Frame {
			return record(c, func(time.Duration) (float64, float64, float64, float64) { return 0, 0, 80, 1 }, r)
		}, want: Fail, why: "not performed"},
		{name: "another order", c: three, frames: func(c Challenge, r *rand.Rand) []Frame {
			return record(c, follow(ch(LookUp, TurnLeft, Blink), 1), r)
		}, want: Fail, why: "not performed"},
		{name: "a tilted picture", c: ch(TurnLeft, TurnRight), frames: tiltPicture, want: Fail},
		{name: "a repeated frame", c: three, frames: func(c Challenge, r *rand.Rand) []Frame {
			f := record(c, follow(c, 1), r)
			f[7].Digest = f[3].Digest
			return f
		}, want: Fail, why: "same image"},
		{name: "frames of an earlier attempt", c: three, frames: func(c Challenge, r *rand.Rand) []Frame { return record(c, follow(c, 1), r) },
			in: func(in *Input) { in.EarlierDigests = []string{"x", "12"} }, want: Fail, why: "earlier attempt"},
		{name: "another person", c: three, frames: func(c Challenge, r *rand.Rand) []Frame {
			f := record(c, follow(c, 1), r)
			f[20].Descriptor = []float32{1, 0}
			return f
		}, want: Fail, why: "different people"},
		{name: "not the selfie's person", c: three, frames: func(c Challenge, r *rand.Rand) []Frame { return record(c, follow(c, 1), r) },
			in: func(in *Input) { in.Reference = []float32{0, 0.9} }, want: Fail, why: "another person than the selfie"},
		{name: "too few frames", c: three, frames: func(c Challenge, r *rand.Rand) []Frame { return record(c, follow(c, 1), r)[:10] }, want: Review, why: "frames were recorded"},
		{name: "face lost", c: three, frames: func(c Challenge, r *rand.Rand) []Frame {
			f := record(c, follow(c, 1), r)
			for i := 0; i < len(f); i += 2 {
				f[i].Faces, f[i].Landmarks = 0, nil
			}
			return f
		}, want: Review, why: "face was found"},
		{name: "two faces", c: three, frames: func(c Challenge, r *rand.Rand) []Frame {
			f := record(c, follow(c, 1), r)
			f[5].Faces = 2
			return f
		}, want: Review, why: "2 faces"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Challenge: tc.c, Frames: tc.frames(tc.c, rand.New(rand.NewPCG(7, 8))), MismatchDistance: 0.75}
			if tc.in != nil {
				tc.in(&in)
			}
			r := Analyze(in)
			if r.Outcome != tc.want || !strings.Contains(r.Why, tc.why) {
				t.Errorf("got %s (%s), want %s mentioning %q; steps %+v", r.Outcome, r.Why, tc.want, tc.why, r.Steps)
			}
		})
	}
}

func TestDraw(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	counts := map[Step]int{}
	for range 1000 {
		s := Draw(rnd.IntN, 3)
		if len(s) != 3 || s[0] == s[1] || s[1] == s[2] || s[0] == s[2] {
			t.Fatalf("Draw gave %v, want three different steps", s)
		}
		for _, x := range s {
			counts[x]++
		}
	}
	for _, s := range Drawn {
		if counts[s] < 650 || counts[s] > 850 {
			t.Errorf("%s drawn %d times in 3000, want about 750", s, counts[s])
		}
	}
	if counts[Blink] != 0 {
		t.Errorf("blink drawn %d times: the landmarks cannot see it", counts[Blink])
	}
	if n := len(Draw(rnd.IntN, 9)); n != 3 {
		t.Errorf("Draw(9) gave %d steps, want 3", n)
	}
}

// The tilted picture's landmarks read as no turn at all; were they to
// read as one, the parallax check would fail it: both are asserted.
func TestTiltedPictureHasNoParallax(t *testing.T) {
	c := Challenge{Steps: []Step{TurnLeft, TurnRight}}
	f := tiltPicture(c, rand.New(rand.NewPCG(11, 12)))
	r := Analyze(Input{Challenge: c, Frames: f})
	if r.Outcome != Fail {
		t.Fatalf("a tilted picture: %s (%s)", r.Outcome, r.Why)
	}
	// Judged as if the turns had been seen: the plane is caught anyway.
	th := DefaultThresholds
	th.TurnDegrees, th.TurnReview = -90, -90
	r = analyze(Input{Challenge: c, Frames: f}, th)
	if r.Outcome != Fail || !strings.Contains(r.Why, "flat picture") {
		t.Errorf("with the turn thresholds out of the way: %s (%s), want a flat picture", r.Outcome, r.Why)
	}
}
