package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/liveness"
)

// The active liveness challenge's endpoints (web/hosted/liveness.go, web/agepages/flow.go,
// docs/liveness-challenge.md): drawing on the identity page and in the age
// flow's document method, and its use with a submission.

// liveCapture is what the page's script adds to a submission after the
// challenge: the challenge id, the frames with their times, and the step
// the person asked a manual check for.
type liveCapture struct {
	challenge string
	frames    [][]byte
	ms        []string
	manual    string
}

func (l *liveCapture) write(w *multipart.Writer) {
	if l == nil {
		return
	}
	_ = w.WriteField("liveness_challenge", l.challenge)
	if l.manual != "" {
		_ = w.WriteField("liveness_manual", l.manual)
	}
	for n, f := range l.frames {
		fw, _ := w.CreateFormFile("liveness_frame", fmt.Sprintf("live%d.jpg", n+1))
		_, _ = fw.Write(f)
		if n < len(l.ms) {
			_ = w.WriteField("liveness_frame_ms", l.ms[n])
		}
	}
	for n := len(l.frames); n < len(l.ms); n++ {
		_ = w.WriteField("liveness_frame_ms", l.ms[n])
	}
}

// liveFrames returns n distinct 640×480 frames 250 ms apart.
func liveFrames(t *testing.T, n int) ([][]byte, []string) {
	var frames [][]byte
	var ms []string
	for i := range n {
		frames = append(frames, testJPEG(t, 640-i, 480))
		ms = append(ms, strconv.Itoa(250*i))
	}
	return frames, ms
}

// challenge asks the page's challenge endpoint for a draw, as the script
// does (JSON, X-CSRF-Token); headers override.
func (c *customer) challenge(headers ...string) response {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.page+"/liveness-challenge", nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-CSRF-Token", c.csrf)
	for n := 0; n+1 < len(headers); n += 2 {
		req.Header.Set(headers[n], headers[n+1])
	}
	return c.do(req)
}

// draw draws a challenge and returns its id.
func (c *customer) draw() string {
	c.t.Helper()
	res := c.challenge()
	if res.status != http.StatusCreated {
		c.t.Fatalf("liveness-challenge: %d %s", res.status, res.raw)
	}
	return res.json(c.t)["id"].(string)
}

// captureSeen records the liveness capture the pipeline got and answers
// with a result the test sets.
type captureSeen struct {
	mu     sync.Mutex
	got    []engine.Capture
	result engine.Result
}

func (*captureSeen) Name() string { return "capture" }
func (c *captureSeen) Run(_ context.Context, in *engine.Input) engine.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	var got engine.Capture
	if in.Capture != nil {
		got = *in.Capture
	} else {
		got.ManualStep = "<nil capture>"
	}
	c.got = append(c.got, got)
	return c.result
}

func (c *captureSeen) set(r engine.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.result = r
}

func (c *captureSeen) last(t *testing.T) engine.Capture {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.got) == 0 {
		t.Fatal("the pipeline ran on no submission")
	}
	return c.got[len(c.got)-1]
}

func newLivenessServer(t *testing.T) (*testserver.Server, *captureSeen, *flowClock) {
	seen := &captureSeen{result: engine.NeedsReview("scripted", nil)}
	clock := &flowClock{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Now: clock.now,
		Pipeline: engine.NewPipeline(engine.DecodeCheck{}, seen)})
	return ts, seen, clock
}

// TestLivenessChallengeIssuance: the identity page's endpoint draws three
// different movements with the page's timing and prompts in the page's
// language, bound to the verification and its next attempt; it needs the
// page's CSRF token and origin; a new draw replaces the unused one.
func TestLivenessChallengeIssuance(t *testing.T) {
	t.Parallel()
	ts, _, _ := newLivenessServer(t)
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("?lang=de")

	c.challenge("X-CSRF-Token", "").wantStatus(t, http.StatusForbidden)
	c.challenge("X-CSRF-Token", "forged-token").wantStatus(t, http.StatusForbidden)
	c.challenge("Origin", "https://evil.example").wantStatus(t, http.StatusForbidden)
	c.challenge("Sec-Fetch-Site", "cross-site").wantStatus(t, http.StatusForbidden)
	if get := c.open("/liveness-challenge"); get.status != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d, want 405", get.status)
	}

	// The language is the page's: ?lang= (the script's URL carries an
	// explicit choice) or else the browser's.
	res := c.challenge("Accept-Language", "de-DE,de;q=0.9")
	res.wantStatus(t, http.StatusCreated)
	var body struct {
		ID              string            `json:"id"`
		Steps           []string          `json:"steps"`
		LeadInMs        int64             `json:"lead_in_ms"`
		StepMs          int64             `json:"step_ms"`
		FramesPerSecond int               `json:"frames_per_second"`
		MaxFrames       int               `json:"max_frames"`
		MaxSide         int               `json:"max_side"`
		MaxFrameBytes   int               `json:"max_frame_bytes"`
		ExpiresAt       time.Time         `json:"expires_at"`
		LeadInPrompt    string            `json:"lead_in_prompt"`
		Prompts         map[string]string `json:"prompts"`
	}
	if err := json.Unmarshal(res.raw, &body); err != nil {
		t.Fatal(err)
	}
	if body.LeadInMs != 1500 || body.StepMs != 3000 || body.FramesPerSecond != 4 || body.MaxFrames != 48 ||
		body.MaxSide != 640 || body.MaxFrameBytes != liveness.MaxFrameBytes {
		t.Fatalf("timing and limits: %+v", body)
	}
	if len(body.Steps) != 3 || body.Steps[0] == body.Steps[1] || body.Steps[1] == body.Steps[2] || body.Steps[0] == body.Steps[2] {
		t.Fatalf("steps %v, want three different movements", body.Steps)
	}
	for _, s := range body.Steps {
		if !liveness.Step(s).Valid() || body.Prompts[s] == "" {
			t.Fatalf("step %q: prompt %q", s, body.Prompts[s])
		}
	}
	if body.LeadInPrompt != "Schauen Sie direkt in die Kamera." {
		t.Fatalf("lead-in prompt %q, want German", body.LeadInPrompt)
	}
	stored, err := ts.Store.LivenessChallenge(context.Background(), body.ID)
	if err != nil || stored.Subject != f.id || stored.Attempt != 1 || stored.UsedAt != nil {
		t.Fatalf("stored challenge %+v, %v; want it bound to %s, attempt 1, unused", stored, err, f.id)
	}
	if !stored.ExpiresAt.Equal(stored.IssuedAt.Add(liveness.Lifetime)) || !body.ExpiresAt.Equal(stored.ExpiresAt.Truncate(time.Second)) {
		t.Fatalf("expiry: stored %v, answered %v", stored.ExpiresAt, body.ExpiresAt)
	}

	// Drawing again replaces the unused challenge.
	second := c.draw()
	if second == body.ID {
		t.Fatal("a new draw returned the same challenge")
	}
	if _, err := ts.Store.LivenessChallenge(context.Background(), body.ID); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
		t.Fatalf("the replaced challenge: %v, want not found", err)
	}
	p := goodPhotos(t)
	frames, ms := liveFrames(t, 3)
	p.live = &liveCapture{challenge: body.ID, frames: frames, ms: ms}
	if got := problemsOf(t, c.submit(idCard, p, true)); !strings.Contains(got["liveness_challenge"], "perform a new challenge") {
		t.Fatalf("submission with the replaced challenge: %v", got)
	}

	// Another verification's token draws for that verification only.
	g := newHosted(t, ts, prd, "bob@example.com")
	d := newCustomer(t, g.page)
	d.open("")
	other := d.draw()
	if c, _ := ts.Store.LivenessChallenge(context.Background(), other); c.Subject != g.id {
		t.Fatalf("challenge of the second verification is bound to %s", c.Subject)
	}
	if _, err := ts.Store.LivenessChallenge(context.Background(), second); err != nil {
		t.Fatalf("the first verification's challenge after another verification drew: %v", err)
	}
}

// TestLivenessChallengeUse: a submission uses its challenge once; the
// frames are stored sealed and reach the engine with their times, the
// earlier attempts' digests and the manual-check request; a reused, an
// expired (by the injected clock) or another verification's challenge is
// refused with a field problem; a failed liveness check lets the person
// try again with a new challenge for the next attempt.
func TestLivenessChallengeUse(t *testing.T) {
	t.Parallel()
	ts, seen, clock := newLivenessServer(t)
	ctx := context.Background()
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("")

	// Validation, before anything is used.
	p := goodPhotos(t)
	frames, ms := liveFrames(t, 4)
	id := c.draw()
	for _, tc := range []struct {
		name  string
		live  liveCapture
		field string
	}{
		{"frames without a challenge", liveCapture{frames: frames, ms: ms}, "liveness_challenge"},
		{"a time missing", liveCapture{challenge: id, frames: frames, ms: ms[:3]}, "liveness_frame_ms"},
		{"times out of order", liveCapture{challenge: id, frames: frames[:2], ms: []string{"500", "250"}}, "liveness_frame_ms"},
		{"a time after the challenge", liveCapture{challenge: id, frames: frames[:1], ms: []string{"60000"}}, "liveness_frame_ms"},
		{"a frame too large", liveCapture{challenge: id, frames: [][]byte{testJPEG(t, 700, 400)}, ms: []string{"0"}}, "liveness_frame"},
		{"not an image", liveCapture{challenge: id, frames: [][]byte{[]byte("no")}, ms: []string{"0"}}, "liveness_frame"},
		{"an unknown manual step", liveCapture{challenge: id, manual: "dance"}, "liveness_manual"},
	} {
		p.live = &tc.live
		if got := problemsOf(t, c.submit(idCard, p, true)); got[tc.field] == "" {
			t.Errorf("%s: problems %v, want one for %s", tc.name, got, tc.field)
		}
	}
	many, manyMs := liveFrames(t, liveness.MaxFrames+1)
	p.live = &liveCapture{challenge: id, frames: many, ms: manyMs}
	if got := problemsOf(t, c.submit(idCard, p, true)); !strings.Contains(got["liveness_frame"], "at most 48 frames") {
		t.Fatalf("49 frames: %v", got)
	}
	if st, _ := ts.Store.LivenessChallenge(ctx, id); st.UsedAt != nil {
		t.Fatal("a refused submission used the challenge")
	}

	// Expiry by the service's clock.
	clock.advance(liveness.Lifetime)
	p.live = &liveCapture{challenge: id, frames: frames, ms: ms}
	if got := problemsOf(t, c.submit(idCard, p, true)); !strings.Contains(got["liveness_challenge"], "perform a new challenge") {
		t.Fatalf("expired challenge: %v", got)
	}

	// Another verification's challenge.
	g := newHosted(t, ts, prd, "bob@example.com")
	d := newCustomer(t, g.page)
	d.open("")
	p.live = &liveCapture{challenge: d.draw(), frames: frames, ms: ms}
	if got := problemsOf(t, c.submit(idCard, p, true)); !strings.Contains(got["liveness_challenge"], "perform a new challenge") {
		t.Fatalf("another verification's challenge: %v", got)
	}

	// The first attempt: the liveness check fails it, the person may retry.
	seen.set(engine.Failed(verifyd.ReasonLivenessError, "the head did not turn", map[string]any{"fix": "liveness", "image": "selfie"}))
	first := c.draw()
	p.live = &liveCapture{challenge: first, frames: frames, ms: ms}
	c.submit(idCard, p, true).wantStatus(t, http.StatusAccepted)
	st := c.waitPhase("retry")
	if st["attempts_left"] != float64(2) {
		t.Fatalf("after a failed liveness check: %v", st)
	}
	got := seen.last(t)
	if got.Challenge == nil || got.Challenge.ID != first || got.ManualStep != "" || len(got.Frames) != 4 || len(got.EarlierDigests) != 0 {
		t.Fatalf("capture of attempt 1: %+v", got)
	}
	for n, fr := range got.Frames {
		if fr.At != time.Duration(250*n)*time.Millisecond || fr.Image == nil || !bytes.Equal(fr.Image.Bytes, frames[n]) {
			t.Fatalf("frame %d: at %v, image %v", n+1, fr.At, fr.Image != nil)
		}
	}
	stored, err := ts.Identity.Images(ctx, verifyd.Verification{ID: f.id})
	if err != nil || !bytes.Equal(stored[verifyd.LivenessFrameImage(4)].Bytes, frames[3]) {
		t.Fatalf("stored frames: %v, %d images", err, len(stored))
	}
	retry := c.open("")
	wantBody(t, retry, "We could not confirm the movements.")

	// Used once: the same challenge is refused on the retry.
	if got := problemsOf(t, c.submit(idCard, p, true)); !strings.Contains(got["liveness_challenge"], "perform a new challenge") {
		t.Fatalf("reused challenge: %v", got)
	}

	// The second attempt draws for attempt 2 and the engine gets the first
	// attempt's digests; the person asked for a manual check at blink.
	seen.set(engine.NeedsReview("scripted", nil))
	second := c.draw()
	if st, _ := ts.Store.LivenessChallenge(ctx, second); st.Attempt != 2 {
		t.Fatalf("second challenge's attempt %d, want 2", st.Attempt)
	}
	p.live = &liveCapture{challenge: second, frames: frames[:2], ms: ms[:2], manual: "blink"}
	c.submit(idCard, p, true).wantStatus(t, http.StatusAccepted)
	c.waitPhase("review")
	got = seen.last(t)
	var want []string
	for _, fr := range frames {
		s := sha256.Sum256(fr)
		want = append(want, hex.EncodeToString(s[:]))
	}
	if got.Challenge == nil || got.Challenge.ID != second || got.ManualStep != liveness.Blink || !slices.Equal(got.EarlierDigests, want) {
		t.Fatalf("capture of attempt 2: %+v", got)
	}

	// Under review the page takes no submission, so no challenge either.
	c.challenge().wantStatus(t, http.StatusConflict)

	// The operator deciding the manual check sees the frames in order.
	createOperator(t, ts, operatorName, operatorPassword)
	ob := newOperatorBrowser(t, ts)
	ob.login(operatorName, operatorPassword)
	item := ob.get("/console/verifications/"+f.id).wantStatus(t, http.StatusOK)
	for _, want := range []string{`/images/liveness_frame_1"`, `/images/liveness_frame_2"`, "Liveness challenge, frame 2"} {
		if !strings.Contains(item.body, want) {
			t.Errorf("the console's item lacks %q", want)
		}
	}
	if im := ob.get("/console/verifications/"+f.id+"/images/liveness_frame_2").wantStatus(t, http.StatusOK); im.body != string(frames[1]) {
		t.Error("the console serves another picture as the second frame")
	}
}

// TestLivenessWithoutChallenge: an uploaded selfie carries no challenge;
// the engine gets an empty capture (ActiveLivenessCheck sends it to a
// person), and direct submissions (B2) get none at all.
func TestLivenessWithoutChallenge(t *testing.T) {
	t.Parallel()
	ts, seen, _ := newLivenessServer(t)
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("")
	c.submit(idCard, goodPhotos(t), true).wantStatus(t, http.StatusAccepted)
	c.waitPhase("review")
	if got := seen.last(t); got.Challenge != nil || len(got.Frames) != 0 || got.ManualStep != "" {
		t.Fatalf("capture of an upload: %+v", got)
	}
	r := engine.ActiveLivenessCheck{}.Run(context.Background(), &engine.Input{Capture: &engine.Capture{}})
	if r.Outcome != engine.Review || !strings.Contains(r.Detail, "not taken with the live camera challenge") {
		t.Fatalf("active check on an upload: %+v", r)
	}
}

// TestAgeLivenessChallenge: the age flow's document method draws from its
// own endpoint with the session's CSRF token, bound to the proof's
// internal verification, and its submission uses the challenge.
func TestAgeLivenessChallenge(t *testing.T) {
	t.Parallel()
	ts, seen, _ := newLivenessServer(t)
	f := newOAuth(t, ts, prd)
	b := newFlowBrowser(t, f)
	b.authorize("de")
	wantStatus(t, b.signUp("anna@example.de"), http.StatusSeeOther)

	draw := func(token string) response {
		req, _ := http.NewRequest(http.MethodPost, b.page+"/liveness-challenge?lang=fr", nil)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-CSRF-Token", token)
		return b.send(req)
	}
	// Before the document step (here: the consent question, whose form
	// carries the session's token) there is nothing to draw for.
	b.consent = false
	b.wantStep("consent")
	if res := draw(b.token("/consent")); res.status != http.StatusForbidden && res.status != http.StatusConflict {
		t.Fatalf("before the document step: %d %s", res.status, res.raw)
	}
	wantStatus(t, b.post("/consent", url.Values{"share": {"yes"}}), http.StatusSeeOther)
	// Germany accepts one method: the document step comes without a choice.
	page := b.wantStep("document")
	pageURL, _ := url.Parse(b.page)
	wantBody(t, page, `data-challenge="`+pageURL.Path+`/liveness-challenge"`)

	wantStatus(t, draw("forged"), http.StatusForbidden)
	res := draw(b.tokens["capture"])
	wantStatus(t, res, http.StatusCreated)
	body := res.json(t)
	id := body["id"].(string)
	if body["lead_in_prompt"] != "Regardez droit vers la caméra." {
		t.Fatalf("lead-in prompt %v, want French", body["lead_in_prompt"])
	}
	c, err := ts.Store.LivenessChallenge(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ts.Store.VerificationByID(context.Background(), c.Subject)
	if err != nil || !v.Internal() || c.Attempt != 1 {
		t.Fatalf("challenge bound to %+v (%v), attempt %d; want the proof's internal verification, attempt 1", v, err, c.Attempt)
	}

	// The document form with the challenge's frames.
	good := goodPhotos(t)
	frames, ms := liveFrames(t, 3)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("document_type", "Passport")
	_ = w.WriteField("document_country", "gbr")
	for name, data := range map[string][]byte{"front": good.front, "selfie": good.selfie} {
		fw, _ := w.CreateFormFile(name, name+".jpg")
		_, _ = fw.Write(data)
	}
	(&liveCapture{challenge: id, frames: frames, ms: ms}).write(w)
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, b.page+"/document", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-CSRF-Token", b.tokens["capture"])
	wantStatus(t, b.send(req), http.StatusAccepted)
	b.waitStep("review")
	if got := seen.last(t); got.Challenge == nil || got.Challenge.ID != id || len(got.Frames) != 3 {
		t.Fatalf("capture of the document method: %+v", got)
	}
}

// TestLivenessKeptWithSelfie: a retry that re-takes only the document's
// front keeps the selfie with the frames of its challenge, and the engine
// sees that challenge (not a missing one, and not its own frames as a
// replay of an earlier attempt).
func TestLivenessKeptWithSelfie(t *testing.T) {
	t.Parallel()
	ts, seen, _ := newLivenessServer(t)
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("")

	seen.set(engine.Failed(verifyd.ReasonPoorIDScanError, "blurred", map[string]any{"fix": "blur", "image": "document_front"}))
	p := goodPhotos(t)
	frames, ms := liveFrames(t, 4)
	id := c.draw()
	p.live = &liveCapture{challenge: id, frames: frames, ms: ms}
	c.submit(idCard, p, true).wantStatus(t, http.StatusAccepted)
	c.waitPhase("retry")
	before := seen.last(t)
	if before.Challenge == nil || before.Challenge.ID != id || len(before.Frames) != 4 {
		t.Fatalf("first attempt's capture: %+v", before)
	}

	seen.set(engine.NeedsReview("scripted", nil))
	c.submit(idCard, photos{front: testJPEG(t, 903, 600)}, true).wantStatus(t, http.StatusAccepted)
	c.waitPhase("review")
	got := seen.last(t)
	if got.Challenge == nil || got.Challenge.ID != id || len(got.Frames) != 4 || got.Frames[0].Image == nil {
		t.Fatalf("the kept selfie's capture: %+v", got)
	}
	if len(got.EarlierDigests) != 0 {
		t.Fatalf("the kept frames count as earlier ones: %v", got.EarlierDigests)
	}
}
