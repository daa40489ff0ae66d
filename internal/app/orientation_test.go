package app_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/orient/orienttest"
)

// TestSelfieExifOrientation is a phone selfie uploaded as a file: stored
// sideways (or upside down) with the EXIF orientation that turns it
// upright. The production face check must find the face and match it with
// the photo; without the tag the same pixels are decoded as stored, and
// upside down show no usable face.
func TestSelfieExifOrientation(t *testing.T) {
	t.Parallel()
	m := facetest.Models(t)
	person := facetest.People(t)[0]
	selfie := person.Selfie() // 720×960, upright
	front := orienttest.Encode(t, person.Crop(640, 820, 0.35, 0.45))
	pipeline := engine.NewPipeline(engine.DecodeCheck{}, engine.FaceMatchCheck{Faces: m, Thresholds: engine.DefaultFaceThresholds})
	run := func(t *testing.T, selfieBytes []byte) engine.Decision {
		t.Helper()
		in := &engine.Input{
			Selfie: &engine.Image{Kind: verifyd.ImageSelfie, Bytes: selfieBytes},
			Front:  &engine.Image{Kind: verifyd.ImageDocumentFront, Bytes: front},
			Facts:  map[string]any{},
		}
		d, err := pipeline.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, o := range []int{6, 8, 3} {
		t.Run(fmt.Sprintf("orientation %d", o), func(t *testing.T) {
			stored := orienttest.Stored(selfie, o)
			d := run(t, orienttest.WithOrientation(t, stored, o == 8, uint16(o)))
			if len(d.Results) != 2 {
				t.Fatalf("results %+v", d.Results)
			}
			dec, face := d.Results[0], d.Results[1]
			if ev := dec.Evidence["selfie"].(map[string]any); ev["orientation"] != o || ev["width"] != 720 || ev["height"] != 960 {
				t.Errorf("decode evidence %v", ev)
			}
			// Both sides are crops of one photograph, which the face check
			// rightly suspects of being the document's own portrait; what
			// this test needs is the face found upright and matched.
			match := engine.DefaultFaceThresholds.MatchDistance
			if dist, ok := face.Evidence["distance"].(float64); !ok || dist > match {
				t.Errorf("face check: %s: %s %v", face.Outcome, face.Detail, face.Evidence)
			}
			// The control: the same stored pixels without the tag are
			// decoded as stored, sideways or upside down. The face search
			// looks again at a photo turned 20° either way when it finds
			// no face upright (a tilted head), and that can find a face
			// lying on its side too, so a sideways selfie without the tag
			// may match; an upside-down one is beyond it.
			untagged := run(t, orienttest.Encode(t, stored))
			ev := untagged.Results[0].Evidence["selfie"].(map[string]any)
			if sideways := o != 3; sideways && (ev["width"] != 960 || ev["height"] != 720) || !sideways && ev["orientation"] == o {
				t.Errorf("without the tag the selfie was decoded upright (%v): the test no longer shows that the tag matters", ev)
			}
			r := untagged.Results[1]
			if o == 3 && r.Evidence["distance"] != nil && r.Evidence["distance"].(float64) <= match {
				t.Errorf("without the tag the upside-down selfie matches too (%s): the test no longer shows that the tag matters", r.Detail)
			}
			// Nor may a lost tag fail the customer: photo_mismatch is
			// final. An upside-down face the landmark network could not
			// place, levelled by its points, once went from a borderline
			// 0.706 to 0.844, a mismatch with its own photo.
			if r.Outcome == engine.Fail {
				t.Errorf("without the tag the face check fails the person (%s)", r.Detail)
			}
			t.Logf("without the tag: %s: %s", r.Outcome, r.Detail)
		})
	}
}
