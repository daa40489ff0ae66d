package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestCaptureFormFeedback: on the German page of a person in Berlin the
// link's expiry is shown in German and their time zone (not UTC); the error
// summary lists the missing photos and empties itself as they are chosen;
// a chosen file is offered "choose another file", not "take again".
func TestCaptureFormFeedback(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	hk := newHooks(t, ts)
	_, page := create(t, ts, verifyd.EnvProduction, "ada@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
	dir := documentFiles(t)

	ctx := browser(t)
	do(t, ctx, "open the page", mobile(), timeZone("Europe/Berlin"),
		chromedp.Navigate(page+"?lang=de"))
	waitJS(t, ctx, "the capture form", `!!document.querySelector('#s-front button.take')`)

	expires := jsString(t, ctx, `document.getElementById('expires').textContent`)
	if strings.Contains(expires, "UTC") || !strings.HasPrefix(expires, "Dieser Link ist bis") ||
		!(strings.Contains(expires, "MEZ") || strings.Contains(expires, "MESZ")) {
		t.Fatalf("expiry %q: want German text in Berlin time", expires)
	}

	do(t, ctx, "submit without photos",
		chromedp.Click(chromedp.CSS(`input[name=document_type][value=IdCard]`)),
		chromedp.SetValue(chromedp.ID("f-document_country"), "deu"),
		chromedp.Click(chromedp.ID("submit")))
	waitJS(t, ctx, "the error summary", `!document.getElementById('error-summary').hidden`)
	count := `String(document.querySelectorAll('#error-summary li').length)`
	if got := jsString(t, ctx, count); got != "3" {
		t.Fatalf("%s problems in the summary, want 3", got)
	}
	do(t, ctx, "choose the front", chromedp.SetUploadFiles(chromedp.ID("f-front"), []string{filepath.Join(dir, "front.jpg")}))
	waitJS(t, ctx, "two problems left", count+` === '2'`)
	if got := jsString(t, ctx, `document.querySelector('label[for=f-front]').textContent`); got != "Andere Datei wählen" {
		t.Fatalf("the file label after choosing says %q", got)
	}
	if got := jsString(t, ctx, `document.querySelector('#s-front button.take').textContent`); got != "Foto aufnehmen" {
		t.Fatalf("the camera button after choosing a file says %q", got)
	}
	do(t, ctx, "choose the rest",
		chromedp.SetUploadFiles(chromedp.ID("f-back"), []string{filepath.Join(dir, "back.jpg")}),
		chromedp.SetUploadFiles(chromedp.ID("f-selfie"), []string{filepath.Join(dir, "selfie.png")}))
	waitJS(t, ctx, "the summary gone", `document.getElementById('error-summary').hidden && `+count+` === '0'`)
}

// timeZone makes the tab's clock show the time of the zone (IANA name).
func timeZone(zone string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
		return err
	})
}

// y4m writes a two-frame Y4M video for Chromium's fake camera, w×h, with
// the luminance pix(x, y) and neutral colour.
func y4m(t *testing.T, w, h int, pix func(x, y int) byte) string {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "YUV4MPEG2 W%d H%d F10:1 Ip A1:1 C420jpeg\n", w, h)
	for range 2 {
		b.WriteString("FRAME\n")
		for y := range h {
			for x := range w {
				b.WriteByte(pix(x, y))
			}
		}
		b.Write(bytes.Repeat([]byte{128}, w*h/2))
	}
	p := filepath.Join(t.TempDir(), "camera.y4m")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// card draws fakeCamera's light card with dark text at x0..x0+440,
// y 100..380 on a grey table; glare adds a clipped white patch on it.
func card(x0 int, glare bool) func(x, y int) byte {
	return func(x, y int) byte {
		dx := x - x0
		if dx <= 0 || dx >= 440 || y <= 100 || y >= 380 {
			return 80
		}
		if glare && dx > 200 && dx < 330 && y > 150 && y < 260 {
			return 255
		}
		if (y-140)%28 < 8 && dx > 200 && dx < 400 && y < 330 || (dx > 30 && dx < 170 && y > 140 && y < 320) {
			return 40
		}
		return 225
	}
}

// TestDocumentLiveGuidance: with Chromium's fake camera, a card inside the
// frame guide turns it green and is photographed by itself; a card half
// outside the frame, or one with glare, is not (the guide says why), and
// Capture still takes it by hand.
func TestDocumentLiveGuidance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		video func(x, y int) byte
		state string // "" for the automatic capture
	}{
		{"inside", card(100, false), ""},
		{"half outside", card(400, false), "outside"},
		{"glare", card(100, true), "glare"},
		{"blurred", blurred(card(100, false)), "blur"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
			hk := newHooks(t, ts)
			_, page := create(t, ts, verifyd.EnvProduction, "ada@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
			ctx := browser(t, chromedp.Flag("use-fake-ui-for-media-stream", true),
				chromedp.Flag("use-fake-device-for-media-stream", true),
				chromedp.Flag("use-file-for-fake-video-capture", y4m(t, 640, 480, c.video)))
			do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=en"))
			waitJS(t, ctx, "the camera button", `!!document.querySelector('#s-front button.take')`)
			do(t, ctx, "open the camera", chromedp.Click(chromedp.CSS("#s-front button.take")))
			if c.state == "" {
				waitJS(t, ctx, "the automatic capture", `!document.getElementById('camera').open && document.getElementById('s-front').dataset.captured === 'auto'`)
				return
			}
			waitJS(t, ctx, "the guide's verdict", `document.querySelector('#camera .guide').dataset.state === '`+c.state+`'`)
			// It stays so: no automatic capture of a bad picture.
			time.Sleep(2 * time.Second)
			if got := jsString(t, ctx, `document.querySelector('#camera .guide').dataset.state + ' ' + document.getElementById('camera').open`); got != c.state+" true" {
				t.Fatalf("after 2 s: %q, want %q and the camera still open", got, c.state)
			}
			want := map[string]string{"outside": "Move the document into the frame", "glare": "Light is reflected", "blur": "The picture is blurred"}[c.state]
			if got := jsString(t, ctx, `document.getElementById('camera-help').textContent`); !strings.HasPrefix(got, want) {
				t.Fatalf("help %q, want %q", got, want)
			}
			do(t, ctx, "capture by hand", chromedp.Click(chromedp.ID("camera-shoot")))
			waitJS(t, ctx, "the manual capture", `!document.getElementById('camera').open && document.getElementById('s-front').dataset.captured === 'manual'`)
		})
	}
}

// blurred is pix under a box blur of 9 pixels (σ ≈ 2.6 px).
func blurred(pix func(x, y int) byte) func(x, y int) byte {
	return func(x, y int) byte {
		sum := 0
		for dy := -4; dy <= 4; dy++ {
			for dx := -4; dx <= 4; dx++ {
				sum += int(pix(x+dx, y+dy))
			}
		}
		return byte(sum / 81)
	}
}

// TestSelfieLiveGuidance: the selfie's guide says whether the oval holds a
// lit subject with features: a plain wall is "none", a dark room "light",
// a detailed, lit picture "ok" (green); the photo is never taken by
// itself (the movement check follows Capture).
func TestSelfieLiveGuidance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, state string
		video       func(x, y int) byte
	}{
		{"plain wall", "none", func(int, int) byte { return 150 }},
		{"dark", "light", func(x, y int) byte { return byte(20 + (x/40+y/40)%2*20) }},
		{"lit detail", "ok", card(100, false)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
			hk := newHooks(t, ts)
			_, page := create(t, ts, verifyd.EnvProduction, "ada@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")
			ctx := browser(t, chromedp.Flag("use-fake-ui-for-media-stream", true),
				chromedp.Flag("use-fake-device-for-media-stream", true),
				chromedp.Flag("use-file-for-fake-video-capture", y4m(t, 640, 480, c.video)))
			do(t, ctx, "open the page", mobile(), chromedp.Navigate(page+"?lang=en"))
			waitJS(t, ctx, "the camera button", `!!document.querySelector('#s-selfie button.take')`)
			do(t, ctx, "open the camera", chromedp.Click(chromedp.CSS("#s-selfie button.take")))
			waitJS(t, ctx, "the guide's verdict", `document.querySelector('#camera .guide').dataset.state === '`+c.state+`'`)
			time.Sleep(time.Second)
			if got := jsString(t, ctx, `document.querySelector('#camera .guide').className + ' ' + document.getElementById('camera').open`); got != map[bool]string{true: "guide guide-face ok true", false: "guide guide-face true"}[c.state == "ok"] {
				t.Fatalf("after 1 s: %q", got)
			}
		})
	}
}

// TestDesktopHandsOffToPhone: on a computer the capture page opens the
// hand-off: a QR code of its own link and the link to copy. A phone opens
// the link and sends the photos; the computer's page follows and shows
// that the verification is being reviewed.
func TestDesktopHandsOffToPhone(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	hk := newHooks(t, ts)
	_, page := create(t, ts, verifyd.EnvSandbox, "ada+review@example.com", hk.srv.URL+"/hooks", "https://shop.example.com/x")

	desk := browser(t)
	do(t, desk, "open the page on the computer", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(page+"?lang=en"))
	waitJS(t, desk, "the hand-off, open", `document.getElementById('handoff') && document.getElementById('handoff').open`)
	waitJS(t, desk, "the QR code", `document.getElementById('handoff-qr').complete && document.getElementById('handoff-qr').naturalWidth > 100`)
	link := jsString(t, desk, `document.getElementById('handoff-link').value`)
	if link != page+"?lang=en" {
		t.Fatalf("hand-off link %q, want %q", link, page+"?lang=en")
	}

	phone := browser(t)
	do(t, phone, "open the link on the phone", mobile(), chromedp.Navigate(link))
	waitJS(t, phone, "the capture form", `!!document.getElementById('capture')`)
	if jsString(t, phone, `String(document.getElementById('handoff').open)`) != "false" {
		t.Fatal("the phone's page opens the hand-off")
	}
	fillCaptureForm(t, phone, documentFiles(t))
	do(t, phone, "submit on the phone", chromedp.Click(chromedp.ID("submit")))
	waitJS(t, phone, "the review on the phone", `document.querySelector('main').dataset.phase === 'review'`)
	waitJS(t, desk, "the computer following", `document.querySelector('main').dataset.phase === 'review' && document.body.innerText.includes('being reviewed')`)
}
