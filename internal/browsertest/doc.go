// Package browsertest drives the hosted verification page in a real
// headless Chromium (chromedp): camera capture with Chromium's fake camera,
// file upload, the sandbox panel, and screenshots of the mobile layout.
//
// The tests need Debian's chromium (/usr/bin/chromium); without it they are
// skipped, or fail when VERIFYD_TEST_REQUIRE_ALL=1 (CI). Set
// VERIFYD_SCREENSHOT_DIR to keep the screenshots (otherwise they are written
// to the test's temporary directory).
package browsertest
