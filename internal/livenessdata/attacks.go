package livenessdata

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/liveness"
	"github.com/verifyd/verifyd/mrz"
)

// Species is a kind of presentation: genuine, or an attack species in
// the sense of ISO/IEC 30107-3.
type Species string

// The species.
const (
	// Genuine: a live person following the prompts.
	Genuine Species = "genuine"
	// Print: a photo of the person printed on paper, held by hand and
	// tilted, turned and brought closer as the prompts ask.
	Print Species = "print"
	// Screen: a photo or a recorded video of the person on a phone or
	// monitor, moved likewise.
	Screen Species = "screen"
	// Portrait: an ID card carrying the person's portrait (composed by
	// internal/docgen) held to the camera and moved likewise.
	Portrait Species = "portrait"
	// Replay: a genuine recording of the person that follows another
	// challenge, injected as the camera's frames or shown on a monitor.
	Replay Species = "replay"
	// Frozen: one genuine frame submitted for every frame.
	Frozen Species = "frozen"
	// Reuse: the frames of the subject's earlier attempt submitted again.
	Reuse Species = "reuse"
)

// AttackSpecies lists the attack species in a fixed order.
var AttackSpecies = []Species{Print, Screen, Portrait, Replay, Frozen, Reuse}

// Sequence is one recorded attempt.
type Sequence struct {
	Species Species
	// Variant says how this one was made (e.g. "laser print", "video on
	// a phone", "replay injected"), for the evaluation's breakdown.
	Variant string
	// Person is whose face the frames show.
	Person string
	// Steps is the challenge the attempt answers.
	Steps  []liveness.Step
	Frames []TimedFrame
	// Earlier are the frames the subject's earlier attempt submitted
	// (Reuse only): the server knows their digests.
	Earlier []TimedFrame
	// Missed lists, for a genuine sequence, the movements whose labelled
	// peak (the eyes closed, the head fully turned) no recorded frame
	// shows: at 4 frames a second a natural blink often falls between
	// two frames, and a genuine attempt can fail for it.
	Missed []liveness.Step
	// Mild lists, for a genuine sequence, the movements taken from a
	// segment labelled mild (Segment.Mild): made, but near the
	// threshold, so review is a right outcome for them.
	Mild []liveness.Step
}

// Attack returns an attack of species sp on the challenge steps,
// impersonating a person drawn at random; its parameters (medium,
// motion, timing, background) are drawn from rng. Genuine is accepted
// too.
func (s *Set) Attack(sp Species, steps []liveness.Step, rng *rand.Rand) (Sequence, error) {
	return s.attack(sp, steps, rng, frameTimes)
}

// clock gives the times of the frames of a recording lasting total.
type clock func(total time.Duration, rng *rand.Rand) []time.Duration

func (s *Set) attack(sp Species, steps []liveness.Step, rng *rand.Rand, tm clock) (Sequence, error) {
	person := Persons()[rng.IntN(len(Persons()))]
	switch sp {
	case Genuine:
		return s.genuine(steps, rng, tm)
	case Print:
		return s.flat(sp, person, steps, rng, tm)
	case Screen:
		return s.flat(sp, person, steps, rng, tm)
	case Portrait:
		return s.flat(sp, person, steps, rng, tm)
	case Replay:
		return s.replay(performer(person, len(steps), rng), steps, rng, tm)
	case Frozen:
		return s.frozen(person, steps, rng, tm)
	case Reuse:
		return s.reuse(performer(person, len(steps), rng), steps, rng, tm)
	}
	return Sequence{}, fmt.Errorf("livenessdata: unknown species %q", sp)
}

// performer is person when their videos can perform some challenge of n
// steps (a recording of one is what a replay or a reused attempt needs),
// else another person who can: franck never turns right or looks up, so
// he performs no three-step challenge once blinks are not drawn.
func performer(person string, n int, rng *rand.Rand) string {
	can := func(p string) bool {
		for range 200 {
			if CanPerform(p, liveness.Draw(rng.IntN, n)) {
				return true
			}
		}
		return false
	}
	if can(person) {
		return person
	}
	for _, p := range Persons() {
		if can(p) {
			return p
		}
	}
	return person
}

// otherChallenge draws a challenge of n steps that person performs and
// that differs from steps (a recording made for it does not answer
// steps, though it may share a step or two).
func otherChallenge(person string, steps []liveness.Step, rng *rand.Rand) ([]liveness.Step, error) {
	for range 1000 {
		o := liveness.Draw(rng.IntN, len(steps))
		if CanPerform(person, o) && !slices.Equal(o, steps) {
			return o, nil
		}
	}
	return nil, fmt.Errorf("livenessdata: no other challenge of %d steps for %s", len(steps), person)
}

// neutralStill returns a neutral frame of person and its video.
func (s *Set) neutralStill(person string, rng *rand.Rand) (image.Image, Video, error) {
	segs := segmentsOf(person, Neutral)
	seg := segs[rng.IntN(len(segs))]
	v, _ := VideoByName(seg.Video)
	img, err := s.At(seg.Video, seg.From+rng.Float64()*(seg.To-seg.From))
	return img, v, err
}

// frameSize is the size of the attacker's camera frames: the person's
// video's, so that frame size says nothing.
func frameSize(person string) (int, int) {
	if person == "franck" {
		return 360, 288
	}
	return 400, 300
}

// smooth is smoothstep on [0, 1].
func smooth(x float64) float64 {
	x = math.Min(1, math.Max(0, x))
	return x * x * (3 - 2*x)
}

// handMotion is how an attacker moves a flat medium to mimic the
// prompts: for each step, after a reaction delay, a ramp to the pose
// that imitates the movement, a hold and a ramp back; a tremor
// throughout. still holds the medium without imitating anything.
type handMotion struct {
	base   pose
	moves  []handMove
	tremor [6][3][2]float64 // per pose component: (amplitude, frequency) of three sines
	phase  [6][3]float64
}

type handMove struct {
	from, up, hold, down float64 // seconds
	target               pose    // offsets added to base at full strength
	closer               float64 // distance factor at full strength (closer)
}

func newHandMotion(steps []liveness.Step, still bool, rng *rand.Rand) handMotion {
	deg := math.Pi / 180
	m := handMotion{base: pose{
		yaw: 3 * deg * rng.NormFloat64(), pitch: 3 * deg * rng.NormFloat64(), roll: 3 * deg * rng.NormFloat64(),
		dist: 1, dx: 0.03 * rng.NormFloat64(), dy: 0.03 * rng.NormFloat64(),
	}}
	amps := [6]float64{1.2 * deg, 1.2 * deg, 1.0 * deg, 0.01, 0.006, 0.006} // yaw pitch roll dist dx dy
	for k := range m.tremor {
		for j := range 3 {
			m.tremor[k][j] = [2]float64{amps[k] * (0.3 + 0.7*rng.Float64()), 0.5 + 4*rng.Float64()}
			m.phase[k][j] = 2 * math.Pi * rng.Float64()
		}
	}
	if still {
		return m
	}
	for i, st := range steps {
		prompt := seconds(liveness.LeadIn + time.Duration(i)*liveness.StepWindow)
		mv := handMove{
			from: prompt + 0.4 + rng.Float64(), up: 0.3 + 0.4*rng.Float64(),
			hold: 0.4 + 0.8*rng.Float64(), down: 0.3 + 0.4*rng.Float64(),
		}
		a := 20 + 25*rng.Float64()
		switch st {
		case liveness.TurnLeft: // the nose should go to the frame's right: the right edge recedes
			mv.target = pose{yaw: -a * deg, dx: 0.02 + 0.06*rng.Float64()}
		case liveness.TurnRight:
			mv.target = pose{yaw: a * deg, dx: -0.02 - 0.06*rng.Float64()}
		case liveness.LookUp: // the chin should come forward: the top edge recedes
			mv.target = pose{pitch: (15 + 20*rng.Float64()) * deg, dy: -0.02 - 0.05*rng.Float64()}
		case liveness.Blink:
			// A quick flick about the horizontal axis squashes the eyes
			// vertically, the nearest a flat picture gets to closing them.
			mv.up, mv.hold, mv.down = 0.12+0.1*rng.Float64(), 0.05+0.15*rng.Float64(), 0.12+0.1*rng.Float64()
			flick := (45 + 20*rng.Float64()) * deg
			if rng.IntN(2) == 0 {
				flick = -flick
			}
			mv.target = pose{pitch: flick}
		case liveness.Closer:
			mv.closer = 1 / (1.3 + 0.4*rng.Float64())
			mv.hold = 1.5 + rng.Float64()
		}
		m.moves = append(m.moves, mv)
	}
	return m
}

// at is the medium's pose at time t (seconds).
func (m handMotion) at(t float64) pose {
	p := m.base
	for _, mv := range m.moves {
		var f float64
		switch {
		case t < mv.from:
			continue
		case t < mv.from+mv.up:
			f = smooth((t - mv.from) / mv.up)
		case t < mv.from+mv.up+mv.hold:
			f = 1
		default:
			f = 1 - smooth((t-mv.from-mv.up-mv.hold)/mv.down)
		}
		p.yaw += f * mv.target.yaw
		p.pitch += f * mv.target.pitch
		p.roll += f * mv.target.roll
		p.dx += f * mv.target.dx
		p.dy += f * mv.target.dy
		if mv.closer > 0 {
			p.dist *= 1 + f*(mv.closer-1)
		}
	}
	var tr [6]float64
	for k := range m.tremor {
		for j := range 3 {
			tr[k] += m.tremor[k][j][0] * math.Sin(2*math.Pi*m.tremor[k][j][1]*t+m.phase[k][j])
		}
	}
	p.yaw += tr[0]
	p.pitch += tr[1]
	p.roll += tr[2]
	p.dist *= 1 + tr[3]
	p.dx += tr[4]
	p.dy += tr[5]
	return p
}

// glareOn brightens a soft spot of the medium (a reflection of the
// room's light on gloss, glass or laminate) at (u, v) of its quad.
func glareOn(dst *image.RGBA, quad [4][2]float64, u, v, radius, strength float64) {
	// Bilinear position inside the quad.
	px := (1-v)*((1-u)*quad[0][0]+u*quad[1][0]) + v*((1-u)*quad[3][0]+u*quad[2][0])
	py := (1-v)*((1-u)*quad[0][1]+u*quad[1][1]) + v*((1-u)*quad[3][1]+u*quad[2][1])
	r := radius * math.Hypot(quad[1][0]-quad[0][0], quad[1][1]-quad[0][1])
	inside := func(x, y float64) bool {
		// Same side of all four edges (the quad is convex).
		sign := 0.0
		for i := 0; i < 4; i++ {
			a, b := quad[i], quad[(i+1)%4]
			c := (b[0]-a[0])*(y-a[1]) - (b[1]-a[1])*(x-a[0])
			if sign == 0 {
				sign = c
			} else if c*sign < 0 {
				return false
			}
		}
		return true
	}
	b := dst.Rect.Intersect(image.Rect(int(px-2*r), int(py-2*r), int(px+2*r), int(py+2*r)))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !inside(float64(x), float64(y)) {
				continue
			}
			d := math.Hypot(float64(x)-px, float64(y)-py) / r
			g := strength * math.Exp(-d*d)
			i := dst.PixOffset(x, y)
			for c := 0; c < 3; c++ {
				dst.Pix[i+c] = clamp8(float64(dst.Pix[i+c]) + g*(255-float64(dst.Pix[i+c])))
			}
		}
	}
}

// flat makes a print, screen or portrait attack: a flat medium showing
// person, held in the attacker's room and moved to mimic the prompts.
func (s *Set) flat(sp Species, person string, steps []liveness.Step, rng *rand.Rand, tm clock) (Sequence, error) {
	w, h := frameSize(person)
	bgFrame, err := s.At("cap12_edit", 1.0)
	if err != nil {
		return Sequence{}, err
	}
	bg := room(bgFrame, w, h, rng)
	cam := newCamera(w, h)
	still := rng.IntN(6) == 0
	motion := newHandMotion(steps, still, rng)
	times := tm(challengeDuration(steps), rng)
	skin := skinTones[rng.IntN(len(skinTones))]
	thumbs := []float64{0.15 + 0.2*rng.Float64()}
	if rng.IntN(2) == 0 {
		thumbs = append(thumbs, 0.65+0.2*rng.Float64())
	}
	noise, gain := 1.5+2.5*rng.Float64(), 0.9+0.2*rng.Float64()
	cx, cy := 0.5+0.05*rng.NormFloat64(), 0.5+0.05*rng.NormFloat64()

	// ferr keeps a failure to read a video frame inside texAt.
	var ferr error
	var (
		tex     *image.RGBA                     // a fixed medium (print, card)
		texAt   func(float64, pose) *image.RGBA // a changing one (screen)
		cover   float64
		glare   float64 // strength of the reflection on the medium
		variant string
	)
	switch sp {
	case Print:
		img, v, err := s.neutralStill(person, rng)
		if err != nil {
			return Sequence{}, err
		}
		photo := cropFace(img, v.Face, 480, 640, 0.45+0.15*rng.Float64(), 0.42)
		tex = printed(photo, rng)
		blur(tex, 0.5) // the printer's dot gain
		// Held so that the print fills 60–90 % of the frame's height.
		cover = (0.6 + 0.3*rng.Float64()) * float64(h) / float64(w) * float64(tex.Rect.Dx()) / float64(tex.Rect.Dy())
		if rng.IntN(2) == 0 {
			glare, variant = 0.25+0.3*rng.Float64(), "glossy print"
		} else {
			variant = "matte print"
		}
	case Portrait:
		selfie, err := s.Selfie(person)
		if err != nil {
			return Sequence{}, err
		}
		v, _ := VideoByName(map[string]string{"cap": "cap13_edit2", "franck": "franck"}[person])
		spec := docgen.NewGenerator(rng.Uint64(), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)).Spec(mrz.TD1)
		spec.Face = cropFace(selfie, v.Face, 350, 450, 0.55, 0.45)
		doc, err := docgen.Render(spec)
		if err != nil {
			return Sequence{}, fmt.Errorf("livenessdata: composing the document: %w", err)
		}
		tex = doc.Image
		// The card is brought near enough for its portrait to be seen.
		cover = 0.6 + 0.35*rng.Float64()
		glare, variant = 0.2+0.4*rng.Float64(), "ID card (TD1)"
	case Screen:
		phone := rng.IntN(2) == 0
		displayW, bezel := 200+rng.IntN(80), 0.015
		cover = 0.8 + 0.35*rng.Float64()
		variant = "monitor"
		if phone {
			displayW, bezel, cover, variant = 160+rng.IntN(100), 0.05+0.04*rng.Float64(), 0.45+0.3*rng.Float64(), "phone"
			thumbs = thumbs[:1]
		} else {
			thumbs = nil // a monitor stands; nobody holds it
		}
		sub, grid := 1+rng.IntN(2), 0.2+0.4*rng.Float64()
		tone := [3]float64{0.92 + 0.06*rng.Float64(), 0.95 + 0.05*rng.Float64(), 1}
		gx, gy, gr := 0.2+0.6*rng.Float64(), 0.2+0.4*rng.Float64(), 0.15+0.2*rng.Float64()
		show := func(pic image.Image, t float64, p pose) *image.RGBA {
			// Tilting the display moves the reflection across it.
			return screenShown(pic, displayW, sub, grid, bezel, tone, gx+1.2*p.yaw, gy-1.2*p.pitch, gr)
		}
		if rng.IntN(2) == 0 || performer(person, len(steps), rng) != person {
			img, _, err := s.neutralStill(person, rng)
			if err != nil {
				return Sequence{}, err
			}
			variant += ", photo"
			texAt = func(t float64, p pose) *image.RGBA { return show(img, t, p) }
		} else {
			// A video of the person found or recorded earlier, playing
			// while the attacker moves the display to the prompts.
			other, err := otherChallenge(person, steps, rng)
			if err != nil {
				return Sequence{}, err
			}
			pl, err := drawPlan(other, person, rng)
			if err != nil {
				return Sequence{}, err
			}
			variant += ", video"
			texAt = func(t float64, p pose) *image.RGBA {
				fr, err := s.render(pl, []time.Duration{dur(t)})
				if err != nil {
					ferr = err
					return show(bgFrame, t, p)
				}
				return show(fr[0].Image, t, p)
			}
		}
	}
	if still {
		variant += ", held still"
	}

	frames := make([]TimedFrame, 0, len(times))
	for _, t := range times {
		p := motion.at(seconds(t))
		m := tex
		if texAt != nil {
			m = texAt(seconds(t), p)
		}
		img := image.NewRGBA(bg.Rect)
		copy(img.Pix, bg.Pix)
		quad := cam.corners(m.Rect.Dx(), m.Rect.Dy(), cover, cx, cy, p)
		composite(img, m, quad)
		if glare > 0 {
			glareOn(img, quad, 0.3+1.5*p.yaw, 0.35-1.5*p.pitch, 0.25, glare)
		}
		for _, th := range thumbs {
			drawThumb(img, quad, th, skin, rand.New(rand.NewPCG(uint64(th*1e6), 1)))
		}
		cameraLook(img, rng, noise, gain)
		frames = append(frames, TimedFrame{At: t, Image: img})
	}
	if ferr != nil {
		return Sequence{}, ferr
	}
	return Sequence{Species: sp, Variant: variant, Person: person, Steps: steps, Frames: frames}, nil
}

// replay answers steps with a genuine recording of person made for
// another challenge (a random one, or one fixed challenge the attacker
// recorded once), injected as the camera's frames or filmed off a
// monitor.
func (s *Set) replay(person string, steps []liveness.Step, rng *rand.Rand, tm clock) (Sequence, error) {
	other, err := otherChallenge(person, steps, rng)
	if err != nil {
		return Sequence{}, err
	}
	variant := "recording of a random challenge"
	fixed := []liveness.Step{liveness.TurnLeft, liveness.Blink, liveness.Closer}[:len(steps)]
	if rng.IntN(3) == 0 && !slices.Equal(fixed, steps) {
		other, variant = fixed, "recording of one fixed challenge"
	}
	pl, err := drawPlan(other, person, rng)
	if err != nil {
		return Sequence{}, err
	}
	fr, err := s.render(pl, tm(challengeDuration(steps), rng))
	if err != nil {
		return Sequence{}, err
	}
	if rng.IntN(2) == 0 {
		return Sequence{Species: Replay, Variant: variant + ", injected", Person: person, Steps: steps, Frames: fr}, nil
	}
	// Filmed off a monitor standing still in the room.
	w, h := frameSize(person)
	bgFrame, err := s.At("cap12_edit", 1.0)
	if err != nil {
		return Sequence{}, err
	}
	bg := room(bgFrame, w, h, rng)
	cam := newCamera(w, h)
	motion := newHandMotion(steps, true, rng)
	displayW, sub, grid, cover := 200+rng.IntN(80), 1+rng.IntN(2), 0.2+0.4*rng.Float64(), 0.85+0.3*rng.Float64()
	tone := [3]float64{0.92 + 0.06*rng.Float64(), 0.95 + 0.05*rng.Float64(), 1}
	gx, gy, gr := 0.2+0.6*rng.Float64(), 0.2+0.4*rng.Float64(), 0.15+0.2*rng.Float64()
	noise, gain := 1.5+2.5*rng.Float64(), 0.9+0.2*rng.Float64()
	for i, f := range fr {
		p := motion.at(seconds(f.At))
		tex := screenShown(f.Image, displayW, sub, grid, 0.015, tone, gx, gy, gr)
		img := image.NewRGBA(bg.Rect)
		copy(img.Pix, bg.Pix)
		composite(img, tex, cam.corners(tex.Rect.Dx(), tex.Rect.Dy(), cover, 0.5, 0.5, p))
		cameraLook(img, rng, noise, gain)
		fr[i].Image = img
	}
	return Sequence{Species: Replay, Variant: variant + ", on a monitor", Person: person, Steps: steps, Frames: fr}, nil
}

// frozen submits one genuine neutral frame at every frame time.
func (s *Set) frozen(person string, steps []liveness.Step, rng *rand.Rand, tm clock) (Sequence, error) {
	img, _, err := s.neutralStill(person, rng)
	if err != nil {
		return Sequence{}, err
	}
	times := tm(challengeDuration(steps), rng)
	fr := make([]TimedFrame, len(times))
	for i, t := range times {
		fr[i] = TimedFrame{At: t, Image: img}
	}
	return Sequence{Species: Frozen, Variant: "one frame repeated", Person: person, Steps: steps, Frames: fr}, nil
}

// reuse submits, for this attempt, the frames of the subject's earlier
// genuine attempt at another challenge, unchanged (their times too).
func (s *Set) reuse(person string, steps []liveness.Step, rng *rand.Rand, tm clock) (Sequence, error) {
	other, err := otherChallenge(person, steps, rng)
	if err != nil {
		return Sequence{}, err
	}
	pl, err := drawPlan(other, person, rng)
	if err != nil {
		return Sequence{}, err
	}
	earlier, err := s.render(pl, tm(challengeDuration(other), rng))
	if err != nil {
		return Sequence{}, err
	}
	return Sequence{Species: Reuse, Variant: "earlier attempt's frames", Person: person, Steps: steps,
		Frames: slices.Clone(earlier), Earlier: earlier}, nil
}
