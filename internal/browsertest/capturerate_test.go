package browsertest

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/testserver"
)

var (
	captureFull = flag.Bool("capture.full", false, "TestCaptureFirstAttempt: run every camera scene (also VERIFYD_CAPTURE_FULL=1; default: the quick subset)")
	captureOnly = flag.String("capture.scene", "", "TestCaptureFirstAttempt: run only the scenes whose name contains this")
)

// captureSeed makes the scenes; docs/hosted-flow.md's figures are for it.
const captureSeed = 2026

// autoCaptureBound is how long the measurement waits, once the camera
// shows a picture, for the page to take the photo by itself before it
// presses Capture (one and a half plays of a scene's 4-second video).
const autoCaptureBound = 6 * time.Second

// sideResult is how one side of the document was taken.
type sideResult struct {
	auto bool
	// took is from the camera's first picture to the photo taken (for a
	// manual capture: the bound).
	took time.Duration
	// states are the guide's states seen, in order, without repeats.
	states []string
}

// sceneResult is one scene's measurement.
type sceneResult struct {
	scene       cameraScene
	front, back *sideResult
	uploaded    int64
	phase       string
	// docRetake is whether the server asked to take the document again.
	docRetake bool
	// hint is the retry page's advice; document the document check's
	// outcome; reason the verification's reason when it ended; failing
	// the checks that failed ("check reason").
	hint, document, reason, failing string
}

// TestCaptureFirstAttempt measures the hosted page's capture of documents
// on camera scenes (camerascene_test.go) with the production engine: the
// page's live guidance takes the front (and the back of an ID card) by
// itself, or Capture is pressed after autoCaptureBound; the selfie is a
// chosen file (a real face); the server's answer to this first attempt
// is recorded. A scene's document is accepted on the first attempt when
// the server does not ask to take it again (the retry page keeps the
// front and the back), whatever the face checks decide.
//
// The quick subset (an ID card in good light, a passport in soft focus)
// must be accepted, and all three of its sides taken by themselves. `go
// test ./internal/browsertest -run TestCaptureFirstAttempt -v -timeout 30m
// -args -capture.full` measures every scene, prints docs/hosted-flow.md's
// tables, and asserts floors for the documents accepted (80 %) and the
// sides taken by the page itself (75 %).
func TestCaptureFirstAttempt(t *testing.T) {
	full := *captureFull || os.Getenv("VERIFYD_CAPTURE_FULL") == "1"
	scenes := cameraScenes(captureSeed, 2)
	if !full {
		// An ID card in good light and a passport in soft focus.
		scenes = []cameraScene{scenes[0], scenes[9]}
	}
	if *captureOnly != "" {
		scenes = slices.DeleteFunc(scenes, func(s cameraScene) bool { return !strings.Contains(s.name, *captureOnly) })
	}
	people := facetest.People(t)
	var mu sync.Mutex
	checks := map[string][]engine.Result{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Faces: facetest.Models(t), OCR: testserver.OCR(t),
		Observe: func(id string, r engine.Result) {
			mu.Lock()
			checks[id] = append(checks[id], r)
			mu.Unlock()
		}})
	hk := newHooks(t, ts)
	counter := newUploadCounter(t, ts.HTTP.URL)
	dir := t.TempDir()

	var results []sceneResult
	for i, s := range scenes {
		t.Run(s.name, func(t *testing.T) {
			person := people[i%len(people)]
			frontStill, backStill := s.render(t, person.Portrait(), time.Now())
			video := sceneVideoPath(t)
			s.video(t, frontStill, video, 0)
			selfie := filepath.Join(dir, fmt.Sprintf("selfie%d.jpg", i))
			// Past the last person the faces come round again, cut a little
			// wider: the consistency check fails a selfie byte-identical to
			// another customer's (potential_fraud).
			round := float64(i / len(people))
			if err := os.WriteFile(selfie, jpegOf(t, person.Crop(720, 960, 0.4-0.03*round, 0.4)), 0o644); err != nil {
				t.Fatal(err)
			}

			id, page := create(t, ts, verifyd.EnvProduction, fmt.Sprintf("person%d@example.com", i), hk.srv.URL+"/hooks", "https://shop.example.com/x")
			page = strings.Replace(page, ts.HTTP.URL, counter.srv.URL, 1)
			ctx := browser(t, chromedp.Flag("use-fake-ui-for-media-stream", true),
				chromedp.Flag("use-fake-device-for-media-stream", true),
				chromedp.Flag("use-file-for-fake-video-capture", video))
			do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=en"))
			waitJS(t, ctx, "the capture form", `!!document.querySelector('#s-front button.take')`)
			do(t, ctx, "choose the document",
				chromedp.Click(chromedp.CSS(`input[name=document_type][value=`+string(s.docType)+`]`)),
				chromedp.SetValue(chromedp.ID("f-document_country"), s.country))

			r := sceneResult{scene: s}
			r.front = takeDocumentSide(t, ctx, "front")
			if s.docType != verifyd.DocPassport {
				// The back: another photo of the document (docgen draws one
				// side), filmed with another shake.
				next := video + ".next"
				s.video(t, backStill, next, 1)
				if err := os.Rename(next, video); err != nil {
					t.Fatal(err)
				}
				r.back = takeDocumentSide(t, ctx, "back")
			}
			before := len(counter.uploads())
			do(t, ctx, "choose the selfie", chromedp.SetUploadFiles(chromedp.ID("f-selfie"), []string{selfie}))
			waitJS(t, ctx, "the selfie's preview", `!!document.querySelector('#s-selfie img.preview')`)
			do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))
			waitJSWithin(t, ctx, 4*time.Minute, "the server's answer",
				`['approved', 'failed', 'retry', 'review'].includes(document.querySelector('main').dataset.phase)`)
			if up := counter.uploads(); len(up) > before {
				r.uploaded = up[len(up)-1]
			}
			r.phase = jsString(t, ctx, `document.querySelector('main').dataset.phase`)
			if r.phase == "retry" {
				kept := jsString(t, ctx, `[...document.querySelectorAll('.kept-note')].map(e => e.id).join(',')`)
				r.docRetake = !strings.Contains(kept, "k-front") || s.docType != verifyd.DocPassport && !strings.Contains(kept, "k-back")
				r.hint = jsString(t, ctx, `(document.querySelector('.notice-fix') || {innerText: ''}).innerText.replace(/\s+/g, ' ').trim()`)
			}
			r.reason = string(mustVerification(t, ts, id).Reason)
			mu.Lock()
			for _, c := range checks[id] {
				if c.Outcome == engine.Fail {
					r.failing = strings.TrimSpace(r.failing + " " + c.Check + ":" + string(c.Reason))
				}
				if c.Check == "document" {
					r.document = string(c.Outcome)
					if c.Reason != "" {
						r.document += " " + string(c.Reason)
					}
				}
			}
			mu.Unlock()
			results = append(results, r)
			t.Logf("%s", r.row())
		})
	}
	accepted := report(t, results)
	auto, sides := 0, 0
	for _, r := range results {
		for _, s := range []*sideResult{r.front, r.back} {
			if s != nil {
				sides++
				if s.auto {
					auto++
				}
			}
		}
	}
	if full && 10*accepted < 8*len(scenes) {
		// Measured: 20 of 22 (the two too-dark scenes are refused).
		t.Errorf("documents accepted on the first attempt: %d of %d, want at least 80 %%", accepted, len(scenes))
	}
	if full && 4*auto < 3*sides {
		// Measured: 28 and 29 of 33 (the too-dark scenes and one or two
		// fronts in the shadow scenes are not), docs/hosted-flow.md.
		t.Errorf("sides taken by the page itself: %d of %d, want at least 75 %%", auto, sides)
	}
	if !full {
		// The floor the current page meets with margin: both documents
		// accepted on the first attempt, and all three sides taken by
		// themselves (measured: each within 0.8 s of the camera's first
		// picture, docs/hosted-flow.md).
		for _, r := range results {
			if r.docRetake || r.document != "pass" {
				t.Errorf("%s: %s; want the document accepted on the first attempt", r.scene.name, r.row())
			}
		}
		if auto != sides {
			t.Errorf("%d of %d sides taken by themselves, want all", auto, sides)
		}
		if len(results) != len(scenes) {
			t.Errorf("%d of %d scenes measured", len(results), len(scenes))
		}
	}
}

// takeDocumentSide opens the camera for a document side, waits up to
// autoCaptureBound for the page to take it by itself (recording the
// guide's states), and presses Capture otherwise.
func takeDocumentSide(t *testing.T, ctx context.Context, field string) *sideResult {
	t.Helper()
	do(t, ctx, "open the camera for "+field, chromedp.Click(chromedp.CSS("#s-"+field+" button.take")))
	waitJS(t, ctx, "the camera for "+field, `document.getElementById('camera').open && !document.getElementById('camera-shoot').disabled`)
	res := &sideResult{}
	start := time.Now()
	taken := `!document.getElementById('camera').open && document.getElementById('s-` + field + `').dataset.captured === 'auto'`
	state := `(document.querySelector('#camera .guide').dataset.state || '')`
	for time.Since(start) < autoCaptureBound {
		got := jsString(t, ctx, `(`+taken+`) ? 'taken' : `+state)
		if got == "taken" {
			res.auto, res.took = true, time.Since(start)
			break
		}
		if got != "" && (len(res.states) == 0 || res.states[len(res.states)-1] != got) {
			res.states = append(res.states, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !res.auto {
		res.took = autoCaptureBound
		do(t, ctx, "capture "+field+" by hand", chromedp.Click(chromedp.ID("camera-shoot")))
	}
	waitJS(t, ctx, "the preview of "+field, `!document.getElementById('camera').open && !!document.querySelector('#s-`+field+` img.preview')`)
	return res
}

func (s *sideResult) String() string {
	if s == nil {
		return "–"
	}
	how := "manual"
	if s.auto {
		how = "auto"
	}
	return fmt.Sprintf("%s %.1f s (%s)", how, s.took.Seconds(), strings.Join(s.states, "→"))
}

// row is the scene's line of the per-scene table.
func (r sceneResult) row() string {
	outcome := "accepted"
	if r.docRetake {
		outcome = "retake"
	}
	end := r.phase
	if r.reason != "" {
		end += " " + r.reason
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |", r.scene.name, r.scene.docType, r.front, r.back,
		r.uploaded, r.document, end, r.failing, outcome, r.hint)
}

// report logs the per-scene table, the table per condition and the
// overall first-attempt success rate; it returns how many documents were
// accepted on the first attempt.
func report(t *testing.T, results []sceneResult) int {
	t.Helper()
	t.Logf("| scene | document | front | back | bytes uploaded | document check | page after | failed checks | document first attempt | hint |")
	t.Logf("|---|---|---|---|---:|---|---|---|---|---|")
	type tally struct{ n, auto, sides, accepted int }
	by := map[string]*tally{}
	var order []string
	all := &tally{}
	for _, r := range results {
		t.Logf("%s", r.row())
		c := by[r.scene.condition]
		if c == nil {
			c = &tally{}
			by[r.scene.condition] = c
			order = append(order, r.scene.condition)
		}
		for _, tl := range []*tally{c, all} {
			tl.n++
			for _, s := range []*sideResult{r.front, r.back} {
				if s != nil {
					tl.sides++
					if s.auto {
						tl.auto++
					}
				}
			}
			if !r.docRetake {
				tl.accepted++
			}
		}
	}
	t.Logf("| condition | scenes | sides taken automatically | document accepted on the first attempt |")
	t.Logf("|---|---:|---:|---:|")
	for _, name := range append(order, "all") {
		c := all
		if name != "all" {
			c = by[name]
		}
		t.Logf("| %s | %d | %d of %d | %d of %d (%.0f %%) |", name, c.n, c.auto, c.sides, c.accepted, c.n, 100*float64(c.accepted)/float64(max(1, c.n)))
	}
	return all.accepted
}

// TestDocumentGuidanceRotation: a sharp, lit card that fills 80 % of the
// guide is taken by itself square to the frame and turned as a hand turns
// it (up to 10°), on a grey table, on a light table (a dark card, and a
// light one), and with a light thing on the table against its top side;
// turned so far that its corners leave the guide, or blurred, it is not.
// The page used to average each side's gradient over the middle half of
// the guide, where a turned edge spreads over several rows: 3° stayed
// "blur" and 6° "outside" (docs/hosted-flow.md); now each scan line is
// judged by itself and a line fitted through the edges found.
func TestDocumentGuidanceRotation(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	hk := newHooks(t, ts)
	grey := cardLook{table: 90, paper: 215, ink: 60, fill: 0.8}
	for _, c := range []struct {
		name  string
		video func(x, y int) byte
		state string // "" for the automatic capture
	}{
		{"0°", turnedCard(0), ""},
		{"2°", turnedCard(2), ""},
		{"3°", turnedCard(3), ""},
		{"6°", turnedCard(6), ""},
		{"-10°", turnedCard(-10), ""},
		{"dark card on a light table, 7°", grey.with(func(l *cardLook) { l.table, l.paper, l.ink = 200, 70, 20 }).turned(7), ""},
		{"light card on a light table, -4°", grey.with(func(l *cardLook) { l.table, l.paper = 175, 238 }).turned(-4), ""},
		{"a light thing against the top, 5°", grey.with(func(l *cardLook) { l.thing = true }).turned(5), ""},
		{"corners outside the guide, 9°", grey.with(func(l *cardLook) { l.fill = 1.02 }).turned(9), "outside"},
		{"blurred, 6°", blurred(turnedCard(6)), "blur"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, page := create(t, ts, verifyd.EnvProduction, "ada@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
			ctx := browser(t, chromedp.Flag("use-fake-ui-for-media-stream", true),
				chromedp.Flag("use-fake-device-for-media-stream", true),
				chromedp.Flag("use-file-for-fake-video-capture", y4m(t, 640, 360, c.video)))
			do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=en"))
			waitJS(t, ctx, "the camera button", `!!document.querySelector('#s-front button.take')`)
			start := time.Now()
			do(t, ctx, "open the camera", chromedp.Click(chromedp.CSS("#s-front button.take")))
			if c.state == "" {
				waitJS(t, ctx, "the automatic capture", `!document.getElementById('camera').open && document.getElementById('s-front').dataset.captured === 'auto'`)
				t.Logf("%s: taken by itself %.1f s after opening the camera", c.name, time.Since(start).Seconds())
				return
			}
			waitJS(t, ctx, "the guide's verdict", `document.querySelector('#camera .guide').dataset.state === '`+c.state+`'`)
			time.Sleep(2 * time.Second)
			if got := jsString(t, ctx, `document.querySelector('#camera .guide').dataset.state + ' ' + document.getElementById('camera').open`); got != c.state+" true" {
				t.Fatalf("after 2 s: %q, want %q and the camera still open", got, c.state)
			}
		})
	}
}

// cardLook is a card with dark stripes on a table, fill of the guide's
// width and of ID-1 shape, in a 640×360 frame; thing puts a light object
// on the table against the card's top side.
type cardLook struct {
	table, paper, ink byte
	fill              float64
	thing             bool
}

func (l cardLook) with(change func(*cardLook)) cardLook {
	change(&l)
	return l
}

// turned draws the card turned by degrees about the frame's centre.
func (l cardLook) turned(degrees float64) func(x, y int) byte {
	a := degrees * math.Pi / 180
	w := l.fill * guideWidth * 640
	h := w * 54 / 85.6
	return func(x, y int) byte {
		u, v := float64(x)-320, float64(y)-180
		ru, rv := u*math.Cos(a)+v*math.Sin(a), -u*math.Sin(a)+v*math.Cos(a)
		if math.Abs(ru) >= w/2 || math.Abs(rv) >= h/2 {
			if l.thing && y < 80 && x > 220 && x < 400 {
				return 160
			}
			return l.table
		}
		if int(ru+1000)%40 < 4 {
			return l.ink
		}
		return l.paper
	}
}

// turnedCard is a light card on a grey table, 80 % of the guide's width,
// turned by degrees.
func turnedCard(degrees float64) func(x, y int) byte {
	return cardLook{table: 90, paper: 215, ink: 60, fill: 0.8}.turned(degrees)
}
