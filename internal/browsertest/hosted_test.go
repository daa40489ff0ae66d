package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/sdk"
)

// browser starts a headless Chromium with a fresh profile and returns a
// tab. Page exceptions and Content-Security-Policy violations fail the test.
func browser(t *testing.T, flags ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if _, statErr := os.Stat("/usr/bin/chromium"); statErr != nil {
			testdb.Skip(t, "the browser tests need Chromium (apt-get install -y chromium)")
		}
		path = "/usr/bin/chromium"
	}
	profile, err := os.MkdirTemp("", "verifyd-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true), chromedp.Flag("mute-audio", true),
	}, flags...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(alloc)
	// A guard against a hung browser, not a measure: the face models take
	// seconds per photo on a busy 2-core machine.
	ctx, cancelTime := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
		// Chromium's helpers may still write for a moment after it exits.
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		var p string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			p = (&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error()
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError && (strings.Contains(e.Entry.Text, "Content Security Policy") || e.Entry.Source == cdplog.EntrySourceSecurity) {
				p = e.Entry.Text
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("browser: %s", p)
		}
	})
	return ctx
}

// mobile is the viewport of a common phone (390×844 CSS pixels).
func mobile() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch)
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitJS polls a JavaScript condition, across page loads, until it is true.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	waitJSWithin(t, ctx, 60*time.Second, what, expr)
}

// waitJSWithin is waitJS with another time limit.
func waitJSWithin(t *testing.T, ctx context.Context, limit time.Duration, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var lastErr error
	// Only a fully parsed document counts: a page arriving over the network
	// can already show <main data-phase=…> while the elements after it are
	// not parsed yet, and the caller's next look would miss them.
	guarded := "document.readyState !== 'loading' && (" + expr + ")"
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](guarded))
		if err == nil && ok {
			return
		}
		lastErr = err
		time.Sleep(100 * time.Millisecond)
	}
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
	t.Fatalf("timed out waiting for %s (%v); page text:\n%s", what, lastErr, text)
}

func jsString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// screenshot saves a full-page screenshot (PNG) and returns its path; a
// name starting with "viewport-" gets only what the phone's screen shows.
func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	dir := os.Getenv("VERIFYD_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	shot := chromedp.FullScreenshot(100)
	if strings.HasPrefix(name, "viewport-") {
		shot = chromedp.CaptureScreenshot()
	}
	buf, err := chromedp.Run(ctx, shot)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
	return p
}

// hooks is a webhook receiver that checks signatures with the SDK.
type hooks struct {
	mu     sync.Mutex
	events []sdk.Event
	srv    *httptest.Server
}

func newHooks(t *testing.T, ts *testserver.Server) *hooks {
	h := &hooks{}
	secrets := map[string]string{}
	for _, c := range ts.Credentials {
		secrets[c.APIKey] = c.APISecret
	}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := sdk.VerifyWebhook(r, func(key string) (string, bool) { s, ok := secrets[key]; return s, ok })
		if err != nil {
			t.Errorf("webhook: %v", err)
			w.WriteHeader(400)
			return
		}
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
		w.WriteHeader(204)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// waitFor waits until the verification's webhooks are exactly want
// ("status:reason" in order).
func (h *hooks) waitFor(t *testing.T, id string, want ...string) {
	t.Helper()
	// Generous: the face models take seconds on a busy 2-core machine.
	deadline := time.Now().Add(60 * time.Second)
	var got []string
	for time.Now().Before(deadline) {
		got = nil
		h.mu.Lock()
		for _, e := range h.events {
			if e.ID == id {
				got = append(got, string(e.Status)+":"+string(e.Reason))
			}
		}
		h.mu.Unlock()
		if strings.Join(got, ",") == strings.Join(want, ",") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("webhooks of %s: %v, want %v", id, got, want)
}

// create makes a hosted verification through the SDK and returns its id
// and page. Its customer has answered yes to the consent step already
// (TestHostedConsentAndBranding runs that step in the browser).
func create(t *testing.T, ts *testserver.Server, env verifyd.Environment, email, webhook, redirect string) (string, string) {
	t.Helper()
	id, page := createAwaitingConsent(t, ts, env, email, webhook, redirect)
	if _, err := ts.Identity.ConsentHosted(context.Background(), page[strings.LastIndex(page, "/")+1:]); err != nil {
		t.Fatal(err)
	}
	return id, page
}

// createAwaitingConsent is create before the consent step.
func createAwaitingConsent(t *testing.T, ts *testserver.Server, env verifyd.Environment, email, webhook, redirect string) (string, string) {
	t.Helper()
	cred := ts.Credential(verifyd.InterfaceIdentity, env)
	c, err := sdk.New(ts.BaseURL(verifyd.InterfaceIdentity, env), cred.APIKey, cred.APISecret)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Redirects().Replace(ctx, []string{redirect}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: email},
		RedirectURI: redirect, Webhook: webhook})
	if err != nil {
		t.Fatal(err)
	}
	return res.ID, res.RedirectURI
}

// fakeCamera writes a Y4M video for Chromium's fake camera: a light card
// with dark text lines on a grey table, 640×480.
func fakeCamera(t *testing.T) string {
	const w, h = 640, 480
	var b bytes.Buffer
	fmt.Fprintf(&b, "YUV4MPEG2 W%d H%d F10:1 Ip A1:1 C420jpeg\n", w, h)
	for range 2 {
		b.WriteString("FRAME\n")
		for y := range h {
			for x := range w {
				v := byte(80)
				if x > 100 && x < 540 && y > 100 && y < 380 {
					v = 225
					if (y-140)%28 < 8 && x > 300 && x < 500 && y < 330 || (x > 130 && x < 270 && y > 140 && y < 320) {
						v = 40
					}
				}
				b.WriteByte(v)
			}
		}
		b.Write(bytes.Repeat([]byte{128}, w*h/2)) // neutral chroma (U and V)
	}
	p := filepath.Join(t.TempDir(), "camera.y4m")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// capture photographs one section with the camera dialog.
func capture(t *testing.T, ctx context.Context, field string, shot string) {
	t.Helper()
	do(t, ctx, "open the camera for "+field, chromedp.Click(chromedp.CSS("#s-"+field+" button.take")))
	waitJS(t, ctx, "the camera for "+field, `document.getElementById('camera').open && !document.getElementById('camera-shoot').disabled`)
	if shot != "" {
		screenshot(t, ctx, shot)
	}
	if field == "selfie" {
		do(t, ctx, "capture "+field, chromedp.Click(chromedp.ID("camera-shoot")))
	}
	// A document inside the guide is taken by itself (live guidance).
	waitJS(t, ctx, "the preview of "+field, `!document.getElementById('camera').open && !!document.querySelector('#s-`+field+` img.preview')`)
	if field != "selfie" {
		if got := jsString(t, ctx, `document.getElementById('s-`+field+`').dataset.captured`); got != "auto" {
			t.Fatalf("%s was captured %q, want auto", field, got)
		}
	}
}

// TestSandboxCameraFlow: a customer on a phone photographs an ID card (front
// and back) and takes a selfie with the (fake) camera, the sandbox panel
// chooses the outcome, and the page ends with the result and the Continue
// link while the integrator receives the webhooks.
func TestSandboxCameraFlow(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	hk := newHooks(t, ts)
	redirect := "https://shop.example.com/after-verification"
	id, page := create(t, ts, verifyd.EnvSandbox, "ada+review@example.com", hk.srv.URL+"/hooks", redirect)

	ctx := browser(t, chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-video-capture", fakeCamera(t)))
	do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=en"))
	hk.waitFor(t, id, "started:")
	waitJS(t, ctx, "the capture form", `!!document.querySelector('#s-front button.take')`)
	if got := jsString(t, ctx, `document.documentElement.lang`); got != "en" {
		t.Fatalf("lang = %q", got)
	}
	do(t, ctx, "choose the document",
		chromedp.Click(chromedp.CSS(`input[name=document_type][value=IdCard]`)),
		chromedp.SetValue(chromedp.ID("f-document_country"), "deu"))
	if jsString(t, ctx, `String(document.getElementById('s-back').hidden)`) != "false" {
		t.Fatal("the back section is hidden for an ID card")
	}
	capture(t, ctx, "front", "viewport-camera-document.png")
	capture(t, ctx, "back", "")
	capture(t, ctx, "selfie", "viewport-camera-selfie.png")
	screenshot(t, ctx, "sandbox-captured.png")

	do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))
	// The e-mail tag "review" sends the submission to review; the panel is there.
	waitJS(t, ctx, "the review message", `document.body.innerText.includes('being reviewed') && !!document.getElementById('sandbox-outcome')`)
	if got := jsString(t, ctx, `document.getElementById('h-sandbox').textContent`); got != "Sandbox: choose the outcome" {
		t.Fatalf("sandbox heading %q", got)
	}
	screenshot(t, ctx, "sandbox-review.png")
	do(t, ctx, "choose approved", chromedp.SetValue(chromedp.ID("sandbox-outcome"), "approved"),
		chromedp.Click(chromedp.ID("sandbox-apply")))
	waitJS(t, ctx, "the result", `document.body.innerText.includes('Your identity has been verified') && !!document.getElementById('continue')`)
	if href := jsString(t, ctx, `document.getElementById('continue').href`); href != redirect {
		t.Fatalf("Continue goes to %q", href)
	}
	if jsString(t, ctx, `String(!!document.getElementById('sandbox-outcome'))`) != "false" {
		t.Fatal("the sandbox panel is still shown on a finished verification")
	}
	screenshot(t, ctx, "sandbox-approved.png")
	hk.waitFor(t, id, "started:", "approved:")

	// What was stored are the camera's JPEG frames.
	v, err := ts.Store.VerificationByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	// The selfie came with the frames of the liveness challenge the page
	// ran after it (the sandbox shows it too; its outcome is the tag's).
	images, err := ts.Identity.Images(context.Background(), v)
	if err != nil || len(images) < 3+20 {
		t.Fatalf("images: %v %d", err, len(images))
	}
	for kind, im := range images {
		cfg, format, err := image.DecodeConfig(bytes.NewReader(im.Bytes))
		if err != nil || format != "jpeg" || cfg.Width != 640 || cfg.Height != 480 {
			t.Fatalf("%s: %v %s %dx%d", kind, err, format, cfg.Width, cfg.Height)
		}
	}
	for n := 1; n <= 20; n++ {
		if _, ok := images[verifyd.LivenessFrameImage(n)]; !ok {
			t.Errorf("no %s stored", verifyd.LivenessFrameImage(n))
		}
	}
	if v.Document.Type != verifyd.DocIDCard || v.Document.Country != "deu" {
		t.Fatalf("document: %+v", v.Document)
	}
	// Continue leaves for the integrator's page.
	do(t, ctx, "continue", chromedp.Click(chromedp.ID("continue")))
	waitJS(t, ctx, "the integrator's page", `location.href === '`+redirect+`' || location.href.startsWith('chrome-error://')`)
}

// documentPhotos returns photos of a synthetic ID card (front, back) from
// internal/docgen, or plain generated images when the OCR-B font is missing.
func documentPhotos(t *testing.T) (front, back []byte) {
	t.Helper()
	gen := docgen.NewGenerator(7, time.Now())
	spec := gen.Spec(mrz.TD1)
	doc, err := docgen.Render(spec)
	if errors.Is(err, docgen.ErrNoFont) {
		t.Logf("docgen: %v; using plain generated images", err)
		return plainJPEG(t, 1280, 800, 1), plainJPEG(t, 1280, 800, 2)
	}
	if err != nil {
		t.Fatal(err)
	}
	return photographSides(t, doc)
}

// photographSides photographs doc twice, as a document's front and back:
// mild phone-photo degradation (which includes the JPEG encoding), seeds
// 1 and 2.
func photographSides(t *testing.T, doc *docgen.Document) (front, back []byte) {
	t.Helper()
	shots := make([][]byte, 2)
	for n := range shots {
		p, err := docgen.Photograph(doc, docgen.Mild(), uint64(n+1))
		if err != nil {
			t.Fatal(err)
		}
		shots[n] = p.JPEG
	}
	return shots[0], shots[1]
}

func plainJPEG(t *testing.T, w, h int, seed int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x*seed + y), uint8(y * 2), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// selfiePNG is a plain synthetic portrait.
func selfiePNG(t *testing.T) []byte {
	const w, h = 600, 800
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{200, 210, 225, 255}
			dx, dy := float64(x-300)/170, float64(y-360)/230
			if dx*dx+dy*dy < 1 {
				c = color.RGBA{224, 172, 140, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// documentFiles writes a synthetic ID card (front.jpg, back.jpg) and a
// selfie (selfie.png) to a temporary directory, for the file inputs.
func documentFiles(t *testing.T) string {
	t.Helper()
	front, back := documentPhotos(t)
	return writeFiles(t, map[string][]byte{"front.jpg": front, "back.jpg": back, "selfie.png": selfiePNG(t)})
}

// fillCaptureForm fills the capture form with the files of documentFiles
// (a German ID card and the selfie) and waits for the three previews.
func fillCaptureForm(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	do(t, ctx, "fill the capture form",
		chromedp.Click(chromedp.CSS(`input[name=document_type][value=IdCard]`)),
		chromedp.SetValue(chromedp.ID("f-document_country"), "deu"),
		chromedp.SetUploadFiles(chromedp.ID("f-front"), []string{filepath.Join(dir, "front.jpg")}),
		chromedp.SetUploadFiles(chromedp.ID("f-back"), []string{filepath.Join(dir, "back.jpg")}),
		chromedp.SetUploadFiles(chromedp.ID("f-selfie"), []string{filepath.Join(dir, "selfie.png")}))
	waitJS(t, ctx, "the previews", `document.querySelectorAll('img.preview').length === 3`)
}

// TestProductionUploadFlow: without a camera, the customer uploads photos
// (a synthetic ID card from docgen and a selfie) with the file inputs; the
// production pipeline decides, and the page shows its outcome. Today that
// is review: automatic face matching is not available.
func TestProductionUploadFlow(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	hk := newHooks(t, ts)
	redirect := "https://shop.example.com/after-verification"
	id, page := create(t, ts, verifyd.EnvProduction, "grace@example.com", hk.srv.URL+"/hooks", redirect)

	dir := documentFiles(t)

	ctx := browser(t)
	do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=de"))
	waitJS(t, ctx, "the capture form", `!!document.getElementById('capture')`)
	if got := jsString(t, ctx, `document.documentElement.lang`); got != "de" {
		t.Fatalf("lang = %q", got)
	}
	if jsString(t, ctx, `String(document.body.innerText.includes('Sandbox'))`) != "false" {
		t.Fatal("a production page mentions the sandbox")
	}
	screenshot(t, ctx, "production-empty.png")
	fillCaptureForm(t, ctx, dir)
	screenshot(t, ctx, "production-filled.png")
	do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))
	waitJS(t, ctx, "a decision", `document.querySelector('main').dataset.phase !== 'processing' && document.querySelector('main').dataset.phase !== 'capture'`)

	// The page says what the status document says.
	res, err := http.Get(page + "/status?lang=de")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Phase, Message, Status, Reason string
		ReturnURL                      string `json:"return_url"`
	}
	_ = json.NewDecoder(res.Body).Decode(&st)
	res.Body.Close()
	t.Logf("production pipeline outcome: phase %s, status %s, reason %q", st.Phase, st.Status, st.Reason)
	if got := jsString(t, ctx, `document.getElementById('live').innerText`); !strings.Contains(got, st.Message) {
		t.Fatalf("page says %q, status says %q", got, st.Message)
	}
	screenshot(t, ctx, "production-result.png")
	switch st.Phase {
	case "review":
		// Automatic face matching is not available: a person decides.
		if !strings.Contains(st.Message, "wird von unserem Team geprüft") {
			t.Fatalf("review message %q", st.Message)
		}
		hk.waitFor(t, id, "started:")
	case "approved", "failed":
		hk.waitFor(t, id, "started:", st.Status+":"+st.Reason)
	default:
		t.Fatalf("unexpected phase %q after processing", st.Phase)
	}
	if href := jsString(t, ctx, `document.getElementById('continue') ? document.getElementById('continue').href : ''`); href != redirect || st.ReturnURL != redirect {
		t.Fatalf("Continue: %q, return_url %q", href, st.ReturnURL)
	}
}

// TestCameraUnavailableFallsBackToUpload: with no camera, "Take a photo"
// explains the problem and moves the focus to the file input.
func TestCameraUnavailableFallsBackToUpload(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	hk := newHooks(t, ts)
	_, page := create(t, ts, verifyd.EnvProduction, "ada@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
	ctx := browser(t, chromedp.Flag("use-fake-ui-for-media-stream", true))
	do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=fr"))
	waitJS(t, ctx, "the camera button", `!!document.querySelector('#s-selfie button.take')`)
	do(t, ctx, "try the camera", chromedp.Click(chromedp.CSS("#s-selfie button.take")))
	waitJS(t, ctx, "the fallback message", `!document.getElementById('e-selfie').hidden && document.activeElement && document.activeElement.id === 'f-selfie'`)
	if got := jsString(t, ctx, `document.getElementById('e-selfie').textContent`); !strings.Contains(got, "importer une photo") {
		t.Fatalf("message %q", got)
	}
	if got := jsString(t, ctx, `document.getElementById('f-selfie').getAttribute('aria-describedby')`); got != "d-selfie e-selfie" {
		t.Fatalf("aria-describedby %q", got)
	}
	screenshot(t, ctx, "camera-unavailable.png")
}

// TestSandboxRetryPage: the sandbox e-mail tag poor_id_scan_error fails the
// first submission in a way the customer can fix: the page offers a retry
// with what to fix and the attempts left; the panel then approves.
func TestSandboxRetryPage(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	hk := newHooks(t, ts)
	id, page := create(t, ts, verifyd.EnvSandbox, "ada+poor_id_scan_error@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
	dir := t.TempDir()
	photo := filepath.Join(dir, "photo.jpg")
	if err := os.WriteFile(photo, plainJPEG(t, 800, 600, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=en"))
	waitJS(t, ctx, "the capture form", `!!document.getElementById('capture')`)
	do(t, ctx, "fill the form",
		chromedp.Click(chromedp.CSS(`input[name=document_type][value=Passport]`)),
		chromedp.SetValue(chromedp.ID("f-document_country"), "gbr"),
		chromedp.SetUploadFiles(chromedp.ID("f-front"), []string{photo}),
		chromedp.SetUploadFiles(chromedp.ID("f-selfie"), []string{photo}))
	if jsString(t, ctx, `String(document.getElementById('s-back').hidden)`) != "true" {
		t.Fatal("the back section is shown for a passport")
	}
	waitJS(t, ctx, "the previews", `document.querySelectorAll('img.preview').length === 2`)
	do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))
	waitJS(t, ctx, "the retry offer", `document.querySelector('main').dataset.phase === 'retry'`)
	text := jsString(t, ctx, `document.querySelector('main').innerText`)
	for _, want := range []string{"We could not use your photos", "The photo was blurred", "Attempts left: 2"} {
		if !strings.Contains(text, want) {
			t.Fatalf("retry page lacks %q:\n%s", want, text)
		}
	}
	if jsString(t, ctx, `document.querySelector('input[name=document_type]:checked').value + '/' + document.getElementById('f-document_country').value`) != "Passport/gbr" {
		t.Fatal("the retry form forgot the document")
	}
	screenshot(t, ctx, "sandbox-retry.png")
	hk.waitFor(t, id, "started:")
	do(t, ctx, "approve", chromedp.SetValue(chromedp.ID("sandbox-outcome"), "approved"), chromedp.Click(chromedp.ID("sandbox-apply")))
	waitJS(t, ctx, "the result", `document.querySelector('main').dataset.phase === 'approved'`)
	hk.waitFor(t, id, "started:", "approved:")
}
