package livenessdata

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/verifyd/verifyd/liveness"
)

// clip plays a video in real time over part of a sequence: the picture
// at sequence time t (From ≤ t < To) is the video's at Start + (t − From).
type clip struct {
	From, To time.Duration
	Video    string
	Start    float64 // seconds into the video
	Step     liveness.Step
}

// plan is a genuine recording: which video plays when.
type plan struct {
	Person string
	Clips  []clip
}

// seconds converts a duration to float seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }

// dur converts float seconds to a duration.
func dur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// between returns a uniformly drawn duration in [a, b].
func between(rng *rand.Rand, a, b time.Duration) time.Duration {
	return a + time.Duration(rng.Float64()*float64(b-a))
}

// ReactionDelay bounds how long after a prompt appears the person starts
// the movement in a genuine sequence: people read the prompt first.
const (
	MinReaction = 300 * time.Millisecond
	MaxReaction = 1000 * time.Millisecond
)

// performers returns the people who can perform every step.
func performers(steps []liveness.Step) []string {
	var out []string
	for _, p := range Persons() {
		if CanPerform(p, steps) {
			out = append(out, p)
		}
	}
	return out
}

// drawPlan draws genuine plans until one finds enough unused footage
// (a few draws at most: the neutral footage is short).
func drawPlan(steps []liveness.Step, person string, rng *rand.Rand) (plan, error) {
	var err error
	for range 20 {
		var p plan
		if p, err = genuinePlan(steps, person, rng); err == nil {
			return p, nil
		}
	}
	return plan{}, err
}

// genuinePlan draws a genuine recording of steps (with the page's
// timing: LeadIn, then StepWindow per step) by person, or by a person
// drawn among those who can perform the steps when person is "".
func genuinePlan(steps []liveness.Step, person string, rng *rand.Rand) (plan, error) {
	if person == "" {
		ps := performers(steps)
		if len(ps) == 0 {
			return plan{}, fmt.Errorf("livenessdata: nobody in the videos performs all of %v", steps)
		}
		person = ps[rng.IntN(len(ps))]
	} else if !CanPerform(person, steps) {
		return plan{}, fmt.Errorf("livenessdata: %s does not perform all of %v", person, steps)
	}
	total := liveness.LeadIn + time.Duration(len(steps))*liveness.StepWindow
	// A camera never delivers the same picture twice: no stretch of a
	// video may play twice in one sequence (its frames would be
	// byte-identical, which is what a replay looks like).
	used := footage{}
	var moves []clip
	for i, st := range steps {
		var segs []Segment
		for _, sg := range segmentsOf(person, st) {
			if used.free(sg.Video, sg.From, sg.To) {
				segs = append(segs, sg)
			}
		}
		if len(segs) == 0 {
			return plan{}, fmt.Errorf("livenessdata: %s's segments of %s overlap the others drawn", person, st)
		}
		seg := segs[rng.IntN(len(segs))]
		used.take(seg.Video, seg.From, seg.To)
		prompt := liveness.LeadIn + time.Duration(i)*liveness.StepWindow
		from := prompt + between(rng, MinReaction, MaxReaction)
		moves = append(moves, clip{From: from, To: from + dur(seg.To-seg.From), Video: seg.Video, Start: seg.From, Step: st})
	}
	// A movement longer than the time to the next one (moving closer and
	// staying there) is cut when the person reacts to the next prompt.
	for i := 0; i+1 < len(moves); i++ {
		moves[i].To = min(moves[i].To, moves[i+1].From)
	}
	moves[len(moves)-1].To = min(moves[len(moves)-1].To, total)

	// Neutral stretches fill the rest, taken from the video of the
	// movement they lead to (or follow) so that the room and the light
	// stay the same.
	var out []clip
	at := time.Duration(0)
	for i := 0; i <= len(moves); i++ {
		end := total
		video := ""
		if i < len(moves) {
			end = moves[i].From
			video = moves[i].Video
		} else {
			video = moves[i-1].Video
		}
		if end > at {
			fill, err := neutralClips(person, video, at, end, used, rng)
			if err != nil {
				return plan{}, err
			}
			out = append(out, fill...)
		}
		if i < len(moves) {
			out = append(out, moves[i])
			at = moves[i].To
		}
	}
	return plan{Person: person, Clips: out}, nil
}

// footage records which stretches of which videos a sequence plays.
type footage map[string][][2]float64

// margin keeps two stretches apart by more than a frame, so that their
// nearest frames differ.
const margin = 1.5 / FPS

// free reports whether [from, to] of video is unused.
func (f footage) free(video string, from, to float64) bool {
	for _, u := range f[video] {
		if from < u[1]+margin && to > u[0]-margin {
			return false
		}
	}
	return true
}

// take marks [from, to] of video used.
func (f footage) take(video string, from, to float64) {
	f[video] = append(f[video], [2]float64{from, to})
}

// freeParts returns the unused parts of s at least minLen long.
func (f footage) freeParts(s Segment, minLen float64) [][2]float64 {
	parts := [][2]float64{{s.From, s.To}}
	for _, u := range f[s.Video] {
		var next [][2]float64
		for _, p := range parts {
			if u[1]+margin <= p[0] || u[0]-margin >= p[1] {
				next = append(next, p)
				continue
			}
			if u[0]-margin > p[0] {
				next = append(next, [2]float64{p[0], u[0] - margin})
			}
			if u[1]+margin < p[1] {
				next = append(next, [2]float64{u[1] + margin, p[1]})
			}
		}
		parts = next
	}
	var out [][2]float64
	for _, p := range parts {
		if p[1]-p[0] >= minLen {
			out = append(out, p)
		}
	}
	return out
}

// neutralClips covers [from, to) with unused neutral stretches of
// person, preferring those of video.
func neutralClips(person, video string, from, to time.Duration, used footage, rng *rand.Rand) ([]clip, error) {
	var out []clip
	for at := from; at < to; {
		need := seconds(to - at)
		var parts [][2]float64
		var videos []string
		for pass := 0; pass < 2 && len(parts) == 0; pass++ {
			for _, s := range segmentsOf(person, Neutral) {
				if pass == 0 && s.Video != video {
					continue
				}
				for _, p := range used.freeParts(s, math.Min(need, 0.5)) {
					parts = append(parts, p)
					videos = append(videos, s.Video)
				}
			}
		}
		if len(parts) == 0 {
			return nil, fmt.Errorf("livenessdata: not enough unused neutral footage of %s", person)
		}
		k := rng.IntN(len(parts))
		p := parts[k]
		length := math.Min(need, p[1]-p[0])
		start := p[0] + rng.Float64()*(p[1]-p[0]-length)
		used.take(videos[k], start, start+length)
		d := dur(length)
		if length == need {
			d = to - at // no rounding gap at the end
		}
		out = append(out, clip{From: at, To: at + d, Video: videos[k], Start: start, Step: Neutral})
		at += d
	}
	return out, nil
}

// FrameInterval is the hosted page's nominal time between two recorded
// frames (liveness.FramesPerSecond).
const FrameInterval = time.Second / liveness.FramesPerSecond

// frameTimes draws the times a page recording for total would stamp: a
// random phase, then one frame per FrameInterval with the jitter of a
// browser's timers.
func frameTimes(total time.Duration, rng *rand.Rand) []time.Duration {
	var out []time.Duration
	for t := between(rng, 0, FrameInterval); t < total; t += FrameInterval + between(rng, -25*time.Millisecond, 25*time.Millisecond) {
		out = append(out, t)
	}
	return out
}

// render picks each frame of p at times.
func (s *Set) render(p plan, times []time.Duration) ([]TimedFrame, error) {
	out := make([]TimedFrame, 0, len(times))
	for _, t := range times {
		i := slices.IndexFunc(p.Clips, func(c clip) bool { return t >= c.From && t < c.To })
		if i < 0 {
			i = len(p.Clips) - 1
		}
		c := p.Clips[i]
		img, err := s.At(c.Video, c.Start+seconds(t-c.From))
		if err != nil {
			return nil, err
		}
		out = append(out, TimedFrame{At: t, Image: img})
	}
	return out, nil
}

// Genuine returns a genuine recording of a person following steps: the
// page's timing (liveness.LeadIn, then liveness.StepWindow per step),
// about liveness.FramesPerSecond frames stamped with their time; neutral
// frames during the lead-in; each movement taken from a labelled
// segment, starting MinReaction to MaxReaction after its prompt, and a
// return to neutral. The person is drawn among those the videos show
// performing every step. The frames' pictures are shared: do not
// modify them.
func (s *Set) Genuine(steps []liveness.Step, rng *rand.Rand) (Sequence, error) {
	return s.genuine(steps, rng, frameTimes)
}

func (s *Set) genuine(steps []liveness.Step, rng *rand.Rand, tm clock) (Sequence, error) {
	p, err := drawPlan(steps, "", rng)
	if err != nil {
		return Sequence{}, err
	}
	times := tm(challengeDuration(steps), rng)
	fr, err := s.render(p, times)
	if err != nil {
		return Sequence{}, err
	}
	return Sequence{Species: Genuine, Variant: "following the prompts", Person: p.Person, Steps: steps, Frames: fr,
		Missed: missedPeaks(p, times), Mild: mildMoves(p)}, nil
}

// mildMoves returns the movements of p taken from a segment labelled mild.
func mildMoves(p plan) []liveness.Step {
	var out []liveness.Step
	for _, c := range p.Clips {
		if c.Step != Neutral && segmentOf(c).Mild {
			out = append(out, c.Step)
		}
	}
	return out
}

// segmentOf returns the labelled segment clip c plays.
func segmentOf(c clip) Segment {
	i := slices.IndexFunc(Segments, func(s Segment) bool { return s.Video == c.Video && s.From == c.Start && s.Step == c.Step })
	return Segments[i]
}

// missedPeaks returns the movements of p none of whose frames at times
// falls in the labelled peak (a blink between two frames, a turn's peak
// cut by the next movement).
func missedPeaks(p plan, times []time.Duration) []liveness.Step {
	var out []liveness.Step
	for _, c := range p.Clips {
		if c.Step == Neutral {
			continue
		}
		seg := segmentOf(c)
		hit := false
		for _, t := range times {
			// The frame shown at t is the nearest video frame.
			if sec := math.Round((c.Start+seconds(t-c.From))*FPS) / FPS; t >= c.From && t < c.To && sec >= seg.PeakFrom-1e-9 && sec <= seg.PeakTo+1e-9 {
				hit = true
			}
		}
		if !hit {
			out = append(out, c.Step)
		}
	}
	return out
}

// challengeDuration is how long the page records for steps.
func challengeDuration(steps []liveness.Step) time.Duration {
	return liveness.Challenge{Steps: steps}.Duration()
}
