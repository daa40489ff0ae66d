package browsertest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
