package browsertest

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	xdraw "golang.org/x/image/draw"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/testserver"
)

// uploadCounter is a reverse proxy in front of the server that counts the
// bytes of each submission's body as it arrives.
type uploadCounter struct {
	mu    sync.Mutex
	sizes []int64
	srv   *httptest.Server
}

func newUploadCounter(t *testing.T, target string) *uploadCounter {
	u, _ := url.Parse(target)
	proxy := httputil.NewSingleHostReverseProxy(u)
	c := &uploadCounter{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/submission") {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			c.mu.Lock()
			c.sizes = append(c.sizes, int64(len(body)))
			c.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *uploadCounter) uploads() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int64(nil), c.sizes...)
}

// phonePhoto scales src up to w×h and adds sensor noise, as a 12 MP phone
// camera's JPEG (quality 92).
func phonePhoto(t *testing.T, src []byte, w, h int, seed uint64) []byte {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), xdraw.Src, nil)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < len(dst.Pix); i += 4 {
		n := int(rng.NormFloat64() * 3)
		for c := range 3 {
			dst.Pix[i+c] = uint8(min(255, max(0, int(dst.Pix[i+c])+n)))
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, dst, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// failFrontOnce fails the first run with a blurred front (naming the
// image, as the quality check does) and sends later ones to review.
type failFrontOnce struct {
	mu   sync.Mutex
	runs int
}

func (*failFrontOnce) Name() string { return "scripted" }
func (f *failFrontOnce) Run(context.Context, *engine.Input) engine.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs++
	if f.runs == 1 {
		return engine.Failed(verifyd.ReasonPoorIDScanError, "document_front is blurred",
			map[string]any{"fix": "blur", "image": string(verifyd.ImageDocumentFront)})
	}
	return engine.NeedsReview("a person decides", nil)
}

// TestUploadScaledWithProgressAndRetry: 12 MP phone photos are scaled on
// the device to 2048 px before upload, with a progress bar; the server's
// retry asks for the front only, and the second upload carries the front
// alone. The bytes of both uploads are logged against what the page sent
// before (the files as chosen), for docs/hosted-flow.md.
func TestUploadScaledWithProgressAndRetry(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true,
		Pipeline: engine.NewPipeline(engine.DecodeCheck{}, &failFrontOnce{})})
	hk := newHooks(t, ts)
	id, page := create(t, ts, verifyd.EnvProduction, "ada@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
	counter := newUploadCounter(t, ts.HTTP.URL)
	page = strings.Replace(page, ts.HTTP.URL, counter.srv.URL, 1)

	front, back := documentPhotos(t)
	files := map[string][]byte{
		"front.jpg":  phonePhoto(t, front, 4032, 3024, 1),
		"back.jpg":   phonePhoto(t, back, 4032, 3024, 2),
		"selfie.jpg": phonePhoto(t, selfieJPEG(t), 3024, 4032, 3),
		"front2.jpg": phonePhoto(t, front, 4032, 3024, 4),
	}
	dir := writeFiles(t, files)
	chosen := int64(len(files["front.jpg"]) + len(files["back.jpg"]) + len(files["selfie.jpg"]))

	ctx := browser(t)
	do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=en"))
	waitJS(t, ctx, "the capture form", `!!document.getElementById('capture')`)
	// The progress bar's values, kept across the reload that follows.
	recordProgress := `(() => { const p = document.getElementById('upload-progress');
		new MutationObserver(() => sessionStorage.setItem('progress', (sessionStorage.getItem('progress') || '') + ' ' + p.value))
			.observe(p, {attributes: true}); return true; })()`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](recordProgress)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "fill the form",
		chromedp.Click(chromedp.CSS(`input[name=document_type][value=IdCard]`)),
		chromedp.SetValue(chromedp.ID("f-document_country"), "deu"),
		chromedp.SetUploadFiles(chromedp.ID("f-front"), []string{filepath.Join(dir, "front.jpg")}),
		chromedp.SetUploadFiles(chromedp.ID("f-back"), []string{filepath.Join(dir, "back.jpg")}),
		chromedp.SetUploadFiles(chromedp.ID("f-selfie"), []string{filepath.Join(dir, "selfie.jpg")}))
	waitJS(t, ctx, "the previews", `document.querySelectorAll('img.preview').length === 3`)
	if got := jsString(t, ctx, `document.querySelector('label[for=upload-progress]').textContent`); got != "Upload progress" {
		t.Fatalf("progress label %q", got)
	}
	do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))
	waitJS(t, ctx, "the retry offer", `document.querySelector('main').dataset.phase === 'retry'`)
	if got := jsString(t, ctx, `sessionStorage.getItem('progress') || ''`); !strings.HasSuffix(got, " 100") {
		t.Fatalf("progress values %q, want them to end at 100", got)
	}

	// The stored photos are at most 2048 px on their long side.
	images, err := ts.Identity.Images(context.Background(), mustVerification(t, ts, id))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []verifyd.ImageKind{verifyd.ImageDocumentFront, verifyd.ImageDocumentBack, verifyd.ImageSelfie} {
		cfg, format, err := image.DecodeConfig(bytes.NewReader(images[kind].Bytes))
		if err != nil || format != "jpeg" || max(cfg.Width, cfg.Height) != 2048 {
			t.Fatalf("%s stored as %s %d×%d (%v)", kind, format, cfg.Width, cfg.Height, err)
		}
	}

	// The retry: only the front is asked for.
	if got := jsString(t, ctx, `[...document.querySelectorAll('.kept-note')].map(e => e.id).join(',')`); got != "k-back,k-selfie" {
		t.Fatalf("kept photos %q, want the back and the selfie", got)
	}
	do(t, ctx, "choose a new front", chromedp.SetUploadFiles(chromedp.ID("f-front"), []string{filepath.Join(dir, "front2.jpg")}))
	waitJS(t, ctx, "its preview", `!!document.querySelector('#s-front img.preview')`)
	do(t, ctx, "submit again", chromedp.Click(chromedp.ID("submit")))
	waitJS(t, ctx, "the review", `document.querySelector('main').dataset.phase === 'review'`)

	up := counter.uploads()
	if len(up) != 2 {
		t.Fatalf("%d submissions uploaded, want 2", len(up))
	}
	t.Logf("bytes per verification: files as chosen (sent unscaled before) %d; scaled first attempt %d (%.0f%%); retry with the front only %d; both attempts %d, was %d",
		chosen, up[0], 100*float64(up[0])/float64(chosen), up[1], up[0]+up[1], 2*chosen)
	if up[0] > chosen/3 || up[1] > up[0]/2 {
		t.Fatalf("uploads %v for %d bytes of files: not scaled, or the retry sent more than the front", up, chosen)
	}
}

func mustVerification(t *testing.T, ts *testserver.Server, id string) verifyd.Verification {
	t.Helper()
	v, err := ts.Store.VerificationByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// selfieJPEG is selfiePNG's portrait as a JPEG.
func selfieJPEG(t *testing.T) []byte {
	img, _, err := image.Decode(bytes.NewReader(selfiePNG(t)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
