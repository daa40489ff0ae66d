package httpapi_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// chromium returns the path of Debian's chromium, or "".
func chromium() string {
	for _, name := range []string{"/usr/bin/chromium", "chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestConsoleInChromium drives the review console in a real headless
// Chromium, as an operator would with the keyboard: sign in, open an item,
// check the images and the stylesheet load under the page's CSP, fail the
// verification with a reason and see it leave the queue. Set
// VERIFYD_CONSOLE_SCREENSHOTS=DIR to keep screenshots of each page.
func TestConsoleInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium()
	if exe == "" {
		testdb.Skip(t, "the console browser test needs Chromium (apt-get install chromium)")
	}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	rc := newReceiver(t, ts.Credential(idp, sbx))
	createOperator(t, ts, operatorName, operatorPassword)
	ids, _, _ := reviewItems(t, ts, rc, 2)
	item := ids[0]
	shots := os.Getenv("VERIFYD_CONSOLE_SCREENSHOTS")

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// Start the browser with a context without deadline (see chromedp.Run),
	// then bound the steps.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var mu sync.Mutex
	var messages []string
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			mu.Lock()
			messages = append(messages, m.String())
			mu.Unlock()
		}
	}()
	browser := ctx
	ctx, cancelSteps := context.WithTimeout(browser, 90*time.Second)
	defer cancelSteps()

	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(what, js string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](js))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	screenshot := func(name string) {
		t.Helper()
		if shots == "" {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Signed out, the console leads to the login form. Sign in with the
	// keyboard only: type, Tab to the password, Enter to submit.
	step("open the console", chromedp.Navigate(ts.HTTP.URL+"/console"), chromedp.WaitVisible(chromedp.ID("username")))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasSuffix(loc, "/console/login?next=%2Fconsole") {
		t.Fatalf("signed out, /console went to %s", loc)
	}
	screenshot("1-login")
	step("sign in",
		chromedp.Focus(chromedp.ID("username")),
		chromedp.KeyEvent(operatorName+kb.Tab),
		chromedp.KeyEvent(operatorPassword+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS("table.queue")),
	)
	// The stylesheet applies (it is the only style the CSP allows).
	if bg := eval("header style", `getComputedStyle(document.querySelector("header.top")).backgroundColor`); bg != "rgb(244, 245, 247)" {
		t.Errorf("stylesheet not applied: header background %v", bg)
	}
	for _, id := range ids {
		if eval("queue link", `document.querySelector('a[href="/console/verifications/`+id+`"]') !== null`) != true {
			t.Fatalf("queue lacks %s", id)
		}
	}
	screenshot("2-queue")

	// Open the item: both images load from the authenticated endpoint.
	step("open the item",
		chromedp.Click(chromedp.CSS(`a[href="/console/verifications/`+item+`"]`)),
		chromedp.WaitVisible(chromedp.ID("reason")),
	)
	for deadline := time.Now().Add(20 * time.Second); ; {
		loaded := eval("images loaded", `[...document.querySelectorAll(".images img")].every(i => i.complete && i.naturalWidth > 0)`)
		if loaded == true {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the images did not load")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := eval("images", `document.querySelectorAll(".images img").length`); n != float64(2) {
		t.Fatalf("%v images on the item page, want 2", n)
	}
	if txt, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("table.checks"))); !strings.Contains(txt, "sandbox") {
		t.Errorf("check table: %q", txt)
	}
	screenshot("3-item")

	// On a phone-sized screen the page does not scroll sideways.
	step("narrow viewport", chromedp.EmulateViewport(375, 800, chromedp.EmulateMobile))
	if eval("overflow", `document.documentElement.scrollWidth <= window.innerWidth`) != true {
		t.Errorf("the item page overflows a 375px screen: %v > %v", eval("w", "document.documentElement.scrollWidth"), eval("w", "window.innerWidth"))
	}
	screenshot("4-item-mobile")
	step("wide viewport", chromedp.EmulateViewport(1280, 900))

	// Fail it with a reason, from the keyboard: focus the select, choose,
	// submit with Enter on the button.
	step("fail with a reason",
		chromedp.SetValue(chromedp.ID("reason"), "minor"),
		chromedp.Focus(chromedp.CSS("button.fail")),
		chromedp.KeyEvent(kb.Enter),
		// The decision is confirmed on a page of its own.
		chromedp.WaitVisible(chromedp.ID("confirm")),
		chromedp.Focus(chromedp.CSS("#confirm button.fail")),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS("p.notice")),
	)
	notice, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("p.notice")))
	if want := "Verification " + item + " is now failed (minor)."; notice != want {
		t.Errorf("notice %q, want %q", notice, want)
	}
	if eval("gone", `document.querySelector('a[href="/console/verifications/`+item+`"]') === null`) != true {
		t.Error("the decided item is still in the queue")
	}
	if eval("other", `document.querySelector('a[href="/console/verifications/`+ids[1]+`"]') !== null`) != true {
		t.Error("the other item left the queue")
	}
	screenshot("5-queue-after")
	rc.waitFor("failed by the operator", hasStatuses(item, "started:", "failed:minor"))
	events, err := ts.Store.StatusEvents(context.Background(), item)
	if err != nil || events[len(events)-1].Actor != operatorName {
		t.Fatalf("history: %+v %v", events, err)
	}

	// The pages caused no CSP violation or script error.
	mu.Lock()
	defer mu.Unlock()
	for _, m := range messages {
		if strings.Contains(m, "Content Security Policy") || strings.Contains(m, "exception") {
			t.Errorf("browser console: %s", m)
		}
	}
}
