package httpapi_test

import (
	"bytes"
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
)

const (
	operatorName     = "ada"
	operatorPassword = "correct horse battery staple"
	consoleCSP       = "default-src 'none'; img-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

// consoleClock is a server clock tests can move forward.
type consoleClock struct{ offset atomic.Int64 }

func (c *consoleClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *consoleClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// createOperator adds an operator to the server.
func createOperator(t *testing.T, ts *testserver.Server, name, password string) {
	t.Helper()
	if _, err := ts.App.Console.CreateOperator(context.Background(), name, password); err != nil {
		t.Fatalf("create operator: %v", err)
	}
}

// operatorBrowser is an operator's browser without JavaScript: it keeps
// cookies and does not follow redirects, so tests see each answer.
type operatorBrowser struct {
	t    *testing.T
	base string
	hc   *http.Client
	// header is added to every request.
	header http.Header
}

type consoleResp struct {
	status int
	header http.Header
	body   string
}

func newOperatorBrowser(t *testing.T, ts *testserver.Server) *operatorBrowser {
	jar, _ := cookiejar.New(nil)
	return &operatorBrowser{t: t, base: ts.HTTP.URL, header: http.Header{}, hc: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *operatorBrowser) do(method, path string, form url.Values) consoleResp {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.header {
		req.Header[k] = v
	}
	res, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return consoleResp{status: res.StatusCode, header: res.Header, body: string(raw)}
}

func (b *operatorBrowser) get(path string) consoleResp { return b.do("GET", path, nil) }

func (b *operatorBrowser) post(path string, form url.Values) consoleResp {
	return b.do("POST", path, form)
}

var consoleCSRFField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrf returns the CSRF token of a page.s forms.
func (p consoleResp) csrf(t *testing.T) string {
	t.Helper()
	m := consoleCSRFField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no CSRF token on the page (%d): %s", p.status, p.body)
	}
	return html.UnescapeString(m[1])
}

// alert returns the page.s error message.
func (p consoleResp) alert() string {
	_, rest, ok := strings.Cut(p.body, `role="alert">`)
	if !ok {
		return ""
	}
	msg, _, _ := strings.Cut(rest, "<")
	return html.UnescapeString(msg)
}

func (p consoleResp) wantStatus(t *testing.T, status int) consoleResp {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d, want %d; body: %s", p.status, status, p.body)
	}
	return p
}

func (p consoleResp) wantRedirect(t *testing.T, location string) {
	t.Helper()
	if p.status != http.StatusSeeOther || p.header.Get("Location") != location {
		t.Fatalf("got %d to %q, want 303 to %q; body: %s", p.status, p.header.Get("Location"), location, p.body)
	}
}

// login signs in through the login form.
func (b *operatorBrowser) login(user, password string) consoleResp {
	b.t.Helper()
	form := b.get("/console/login").wantStatus(b.t, http.StatusOK)
	return b.post("/console/login", url.Values{"csrf_token": {form.csrf(b.t)}, "username": {user},
		"password": {password}, "next": {"/console"}})
}

// reviewItems submits sandbox verifications that wait for review, and
// returns their ids once they are in the review queue.
func reviewItems(t *testing.T, ts *testserver.Server, rc *receiver, n int) (ids []string, selfie, front []byte) {
	t.Helper()
	c := newClient(t, ts, idp, sbx)
	selfie, front = testPNG(t, 100, 120, false), testJPEG(t, 200, 120)
	for range n {
		ids = append(ids, submitAs(t, c, "ada+review@example.com", rc.url(), selfie, front))
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		q, err := ts.Store.ReviewQueue(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		var in []string
		for _, v := range q {
			in = append(in, v.ID)
		}
		if len(in) == len(ids) && !slices.ContainsFunc(ids, func(id string) bool { return !slices.Contains(in, id) }) {
			return ids, selfie, front
		}
		if time.Now().After(deadline) {
			t.Fatalf("review queue %v, want %v", in, ids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConsoleLogin(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	createOperator(t, ts, operatorName, operatorPassword)
	b := newOperatorBrowser(t, ts)

	// Signed out, every page leads to the login form.
	b.get("/console").wantRedirect(t, "/console/login?next=%2Fconsole")
	b.get("/console/verifications/x").wantRedirect(t, "/console/login?next=%2Fconsole%2Fverifications%2Fx")
	form := b.get("/console/login").wantStatus(t, http.StatusOK)
	if got := form.header.Get("Content-Security-Policy"); got != consoleCSP {
		t.Errorf("CSP %q, want %q", got, consoleCSP)
	}
	if cc := form.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	for _, want := range []string{`<label for="username">`, `<label for="password">`, `autocomplete="current-password"`, `<html lang="en">`} {
		if !strings.Contains(form.body, want) {
			t.Errorf("login page lacks %s", want)
		}
	}
	if strings.Contains(form.body, "<script") || strings.Contains(form.body, "style=") {
		t.Error("login page has script or inline style")
	}
	// The stylesheet is a long-cached static file.
	css := regexp.MustCompile(`href="(/console/static/console-[0-9a-f]+\.css)"`).FindStringSubmatch(form.body)
	if css == nil {
		t.Fatal("no stylesheet link")
	}
	sheet := b.get(css[1]).wantStatus(t, http.StatusOK)
	if sheet.header.Get("Content-Type") != "text/css; charset=utf-8" || !strings.Contains(sheet.header.Get("Cache-Control"), "max-age=31536000") {
		t.Errorf("stylesheet headers %v", sheet.header)
	}
	b.get("/console/static/other.css").wantStatus(t, http.StatusNotFound)

	// Wrong password and unknown user get the same generic answer.
	token := form.csrf(t)
	wrong := b.post("/console/login", url.Values{"csrf_token": {token}, "username": {operatorName}, "password": {"not the password"}})
	unknown := b.post("/console/login", url.Values{"csrf_token": {token}, "username": {"mallory"}, "password": {operatorPassword}})
	wrong.wantStatus(t, http.StatusUnauthorized)
	unknown.wantStatus(t, http.StatusUnauthorized)
	if wrong.alert() != "Wrong username or password." || unknown.alert() != wrong.alert() {
		t.Errorf("failure messages %q and %q", wrong.alert(), unknown.alert())
	}
	b.get("/console").wantRedirect(t, "/console/login?next=%2Fconsole")

	// The login form needs its CSRF token.
	noToken := b.post("/console/login", url.Values{"username": {operatorName}, "password": {operatorPassword}})
	noToken.wantStatus(t, http.StatusForbidden)
	stranger := newOperatorBrowser(t, ts) // has no form cookie of its own
	stranger.post("/console/login", url.Values{"csrf_token": {token}, "username": {operatorName}, "password": {operatorPassword}}).
		wantStatus(t, http.StatusForbidden)

	// Success: the username is case-insensitive, the queue opens.
	b.login("ADA", operatorPassword).wantRedirect(t, "/console")
	queue := b.get("/console").wantStatus(t, http.StatusOK)
	if !strings.Contains(queue.body, "Signed in as <strong>ada</strong>") || !strings.Contains(queue.body, "Nothing is waiting for review.") {
		t.Errorf("queue page: %s", queue.body)
	}
	b.get("/console/login").wantRedirect(t, "/console")

	// Sign-in goes back to the page asked for, but never off the console.
	other := newOperatorBrowser(t, ts)
	f := other.get("/console/login?next=%2Fconsole%2Fverifications%2Fabc").wantStatus(t, http.StatusOK)
	other.post("/console/login", url.Values{"csrf_token": {f.csrf(t)}, "username": {operatorName}, "password": {operatorPassword},
		"next": {"/console/verifications/abc"}}).wantRedirect(t, "/console/verifications/abc")
	for _, next := range []string{"//evil.example/console", "https://evil.example/", "/console/../identity", "/consolex", "/\\evil.example"} {
		o := newOperatorBrowser(t, ts)
		f := o.get("/console/login").wantStatus(t, http.StatusOK)
		o.post("/console/login", url.Values{"csrf_token": {f.csrf(t)}, "username": {operatorName}, "password": {operatorPassword},
			"next": {next}}).wantRedirect(t, "/console")
	}

	// Sign-out needs the CSRF token and ends the session.
	b.post("/console/logout", url.Values{}).wantStatus(t, http.StatusForbidden)
	b.get("/console").wantStatus(t, http.StatusOK)
	b.post("/console/logout", url.Values{"csrf_token": {queue.csrf(t)}}).wantRedirect(t, "/console/login")
	b.get("/console").wantRedirect(t, "/console/login?next=%2Fconsole")

	// A disabled operator's sessions end at once.
	if _, err := ts.App.Console.DisableOperator(context.Background(), operatorName); err != nil {
		t.Fatal(err)
	}
	other.get("/console").wantRedirect(t, "/console/login?next=%2Fconsole")
	if p := b.login(operatorName, operatorPassword); p.status != http.StatusUnauthorized {
		t.Fatalf("a disabled operator signed in: %d", p.status)
	}
}

// TestConsoleCookies checks the session cookie of a production server
// (no --dev): Secure, HttpOnly, SameSite=Strict, with the __Host- prefix.
func TestConsoleCookies(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	createOperator(t, ts, operatorName, operatorPassword)
	b := newOperatorBrowser(t, ts)
	form := b.get("/console/login").wantStatus(t, http.StatusOK)
	// Go's cookie jar keeps Secure cookies away from http://, as browsers
	// do; send the form cookie by hand.
	var formCookie *http.Cookie
	for _, c := range (&http.Response{Header: form.header}).Cookies() {
		formCookie = c
	}
	if formCookie == nil || formCookie.Name != "__Host-verifyd_console_form" || !formCookie.Secure || !formCookie.HttpOnly {
		t.Fatalf("form cookie %+v", formCookie)
	}
	b.header.Set("Cookie", formCookie.Name+"="+formCookie.Value)
	res := b.post("/console/login", url.Values{"csrf_token": {form.csrf(t)}, "username": {operatorName}, "password": {operatorPassword}})
	res.wantRedirect(t, "/console")
	var session *http.Cookie
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == "__Host-verifyd_console" {
			session = c
		}
	}
	if session == nil || !session.Secure || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode ||
		session.Path != "/" || session.Domain != "" || len(session.Value) != 43 {
		t.Fatalf("session cookie %+v", session)
	}
}

func TestConsoleRateLimit(t *testing.T) {
	t.Parallel()
	clock := &consoleClock{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Now: clock.now})
	createOperator(t, ts, operatorName, operatorPassword)
	createOperator(t, ts, "bob", operatorPassword)
	b := newOperatorBrowser(t, ts)
	for i := range 5 {
		if p := b.login(operatorName, "wrong password "+string(rune('a'+i))); p.status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, p.status)
		}
	}
	// The sixth attempt is refused even with the right password.
	p := b.login(operatorName, operatorPassword).wantStatus(t, http.StatusTooManyRequests)
	if !strings.HasPrefix(p.alert(), "Too many sign-in attempts.") || p.header.Get("Retry-After") == "" {
		t.Fatalf("rate-limited answer: %q, Retry-After %q", p.alert(), p.header.Get("Retry-After"))
	}
	b.get("/console").wantRedirect(t, "/console/login?next=%2Fconsole")
	// Another operator from the same address is not locked out.
	newOperatorBrowser(t, ts).login("bob", operatorPassword).wantRedirect(t, "/console")
	// After the window the operator may try again.
	clock.advance(15*time.Minute + time.Second)
	b.login(operatorName, operatorPassword).wantRedirect(t, "/console")
}

func TestConsoleSessionExpiry(t *testing.T) {
	t.Parallel()
	clock := &consoleClock{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Now: clock.now})
	createOperator(t, ts, operatorName, operatorPassword)
	b := newOperatorBrowser(t, ts)
	b.login(operatorName, operatorPassword).wantRedirect(t, "/console")
	// Activity keeps the session…
	for range 3 {
		clock.advance(20 * time.Minute)
		b.get("/console").wantStatus(t, http.StatusOK)
	}
	// …30 idle minutes end it, and the stored session is gone.
	clock.advance(30 * time.Minute)
	b.get("/console").wantRedirect(t, "/console/login?next=%2Fconsole")
	// The absolute lifetime (12 h) ends even a busy session.
	b.login(operatorName, operatorPassword).wantRedirect(t, "/console")
	for range 12*3 - 1 {
		clock.advance(20 * time.Minute)
		b.get("/console").wantStatus(t, http.StatusOK)
	}
	clock.advance(20 * time.Minute)
	b.get("/console").wantRedirect(t, "/console/login?next=%2Fconsole")
}

func TestConsoleReview(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{Dev: true}, func(t *testing.T, ts *testserver.Server) {
		rc := newReceiver(t, ts.Credential(idp, sbx))
		createOperator(t, ts, operatorName, operatorPassword)
		ids, selfie, front := reviewItems(t, ts, rc, 3)
		// An approved verification is not in the queue.
		done := submitAs(t, newClient(t, ts, idp, sbx), "ada@example.com", rc.url(), selfie, front)
		rc.waitFor("approved", hasStatuses(done, "started:", "approved:"))

		b := newOperatorBrowser(t, ts)
		// Images are never public.
		for _, kind := range []string{"selfie", "document_front"} {
			p := b.get("/console/verifications/"+ids[0]+"/images/"+kind).wantStatus(t, http.StatusForbidden)
			if strings.Contains(p.body, "\x89PNG") || p.header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("signed-out image answer: %v", p.header)
			}
		}
		b.login(operatorName, operatorPassword).wantRedirect(t, "/console")

		// The queue lists the three, longest waiting first, with their
		// business.
		queue := b.get("/console").wantStatus(t, http.StatusOK)
		inQueue, err := ts.Store.ReviewQueue(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		last := -1
		for _, v := range inQueue {
			i := strings.Index(queue.body, `href="/console/verifications/`+v.ID+`"`)
			if i < last {
				t.Fatalf("queue lacks %s or is out of order: %s", v.ID, queue.body)
			}
			last = i
		}
		for _, want := range []string{"3 waiting for a decision", "Test business", ts.Business.ID, "sandbox", "under a minute", "<time datetime=",
			// Why a person is asked, the interface, and when the person
			// stops waiting (a B1 verification lives five days).
			"sandbox: sandbox: outcome chosen by the e-mail tag", "<td>identity</td>", "in 4 days 23 h"} {
			if !strings.Contains(queue.body, want) {
				t.Errorf("queue lacks %q", want)
			}
		}
		if strings.Contains(queue.body, done) {
			t.Error("the approved verification is in the queue")
		}
		// The filters separate the interfaces and the environments.
		for query, want := range map[string]string{
			"?environment=sandbox":                    "3 waiting for a decision",
			"?interface=identity&environment=sandbox": "3 waiting for a decision",
			"?environment=production":                 "Nothing matching these filters",
			"?interface=age":                          "Nothing matching these filters",
		} {
			if got := b.get("/console"+query).wantStatus(t, http.StatusOK); !strings.Contains(got.body, want) {
				t.Errorf("queue%s lacks %q", query, want)
			}
		}

		// The item: summary, images, evidence, history, decision forms.
		item := b.get("/console/verifications/"+ids[0]).wantStatus(t, http.StatusOK)
		if item.header.Get("Content-Security-Policy") != consoleCSP {
			t.Errorf("item CSP %q", item.header.Get("Content-Security-Policy"))
		}
		for _, want := range []string{
			"ada+review@example.com", "waiting for an operator",
			`<img src="/console/verifications/` + ids[0] + `/images/selfie"`,
			`<img src="/console/verifications/` + ids[0] + `/images/document_front"`,
			"Run 1: review", `<th scope="row">sandbox</th>`, `outcome-pass`, "sandbox: outcome chosen by the e-mail tag",
			"<td>created</td>", "<td>submission</td>",
			`value="approve"`, `<label for="reason">`, `<option value="photo_mismatch">`,
		} {
			if !strings.Contains(html.UnescapeString(item.body), want) {
				t.Errorf("item page lacks %q", want)
			}
		}
		for kind, want := range map[string]struct {
			ct   string
			body []byte
		}{"selfie": {"image/png", selfie}, "document_front": {"image/jpeg", front}} {
			im := b.get("/console/verifications/"+ids[0]+"/images/"+kind).wantStatus(t, http.StatusOK)
			if im.header.Get("Content-Type") != want.ct || im.header.Get("Cache-Control") != "no-store" || !bytes.Equal([]byte(im.body), want.body) {
				t.Errorf("%s: %v, %d bytes", kind, im.header, len(im.body))
			}
		}
		b.get("/console/verifications/"+ids[0]+"/images/document_back").wantStatus(t, http.StatusNotFound)
		b.get("/console/verifications/"+ids[0]+"/images/other").wantStatus(t, http.StatusNotFound)
		b.get("/console/verifications/00000000-0000-4000-8000-000000000000").wantStatus(t, http.StatusNotFound)

		// A decision without the CSRF token, or from another site, is refused.
		token := item.csrf(t)
		decision := "/console/verifications/" + ids[0] + "/decision"
		b.post(decision, url.Values{"decision": {"approve"}}).wantStatus(t, http.StatusForbidden)
		b.post(decision, url.Values{"decision": {"approve"}, "csrf_token": {token + "x"}}).wantStatus(t, http.StatusForbidden)
		b.header.Set("Sec-Fetch-Site", "cross-site")
		b.post(decision, url.Values{"decision": {"approve"}, "csrf_token": {token}}).wantStatus(t, http.StatusForbidden)
		b.header.Del("Sec-Fetch-Site")
		// Failing needs a reason.
		p := b.post(decision, url.Values{"decision": {"fail"}, "csrf_token": {token}}).wantStatus(t, http.StatusUnprocessableEntity)
		if p.alert() != "Choose the reason of the failure." {
			t.Errorf("no-reason message %q", p.alert())
		}
		if v, _ := ts.Store.VerificationByID(context.Background(), ids[0]); v.Status != verifyd.StatusStarted {
			t.Fatalf("a refused decision changed the verification: %s", v.Status)
		}

		// A decision is confirmed first: the first post only asks.
		confirm := b.post(decision, url.Values{"decision": {"approve"}, "csrf_token": {token}}).wantStatus(t, http.StatusOK)
		for _, want := range []string{`id="confirm"`, `name="confirm" value="yes"`, "will be <strong>approved</strong>", "Yes, approve"} {
			if !strings.Contains(confirm.body, want) {
				t.Errorf("confirmation page lacks %q", want)
			}
		}
		if v, _ := ts.Store.VerificationByID(context.Background(), ids[0]); v.Status != verifyd.StatusStarted {
			t.Fatalf("an unconfirmed decision changed the verification: %s", v.Status)
		}
		failConfirm := b.post("/console/verifications/"+ids[1]+"/decision", url.Values{"decision": {"fail"}, "reason": {"photo_mismatch"},
			"csrf_token": {token}}).wantStatus(t, http.StatusOK)
		if !strings.Contains(failConfirm.body, "Yes, fail (photo_mismatch)") || !strings.Contains(failConfirm.body, `name="reason" value="photo_mismatch"`) {
			t.Errorf("fail confirmation: %s", failConfirm.body)
		}

		// Approve the first, fail the second: webhooks go out as usual.
		b.post(decision, url.Values{"decision": {"approve"}, "confirm": {"yes"}, "csrf_token": {token}}).wantRedirect(t, "/console?decided="+ids[0])
		rc.waitFor("approved by review", hasStatuses(ids[0], "started:", "approved:"))
		b.post("/console/verifications/"+ids[1]+"/decision", url.Values{"decision": {"fail"}, "reason": {"photo_mismatch"},
			"confirm": {"yes"}, "csrf_token": {token}}).wantRedirect(t, "/console?decided="+ids[1])
		rc.waitFor("failed by review", hasStatuses(ids[1], "started:", "failed:photo_mismatch"))

		// Decided items leave the queue; the queue says what happened.
		queue = b.get("/console?decided="+ids[1]).wantStatus(t, http.StatusOK)
		if strings.Contains(queue.body, ids[0]+`"`) || !strings.Contains(queue.body, `href="/console/verifications/`+ids[2]+`"`) ||
			!strings.Contains(queue.body, "1 waiting for a decision") {
			t.Errorf("queue after decisions: %s", queue.body)
		}
		if !strings.Contains(queue.body, "Verification "+ids[1]+" is now failed (photo_mismatch).") {
			t.Errorf("queue notice missing: %s", queue.body)
		}
		// The history records who decided and when.
		events, err := ts.Store.StatusEvents(context.Background(), ids[1])
		if err != nil {
			t.Fatal(err)
		}
		lastEv := events[len(events)-1]
		if lastEv.Cause != verifyd.CauseReview || lastEv.Actor != operatorName || lastEv.To != verifyd.StatusFailed ||
			lastEv.Reason != verifyd.ReasonPhotoMismatch || time.Since(lastEv.At) > time.Minute {
			t.Errorf("decision history entry %+v", lastEv)
		}
		// And so does the audit log.
		var audited []string
		entries, err := ts.Store.AuditEntries(context.Background(), verifyd.AuditFilter{BusinessID: ts.Business.ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Action == verifyd.AuditDecision {
				audited = append(audited, string(e.Actor.Kind)+":"+e.Actor.Name+" "+e.Subject+" "+e.Detail)
			}
		}
		if want := []string{"operator:" + operatorName + " " + ids[0] + " approved",
			"operator:" + operatorName + " " + ids[1] + " failed photo_mismatch"}; !slices.Equal(audited, want) {
			t.Errorf("audited decisions %q, want %q", audited, want)
		}
		decided := b.get("/console/verifications/"+ids[1]).wantStatus(t, http.StatusOK)
		for _, want := range []string{"Decided: <strong>failed (photo_mismatch) by ada at ", "<td>review</td>\n<td>ada</td>", "decided by an operator"} {
			if !strings.Contains(decided.body, want) {
				t.Errorf("decided item lacks %q", want)
			}
		}
		if strings.Contains(decided.body, `value="approve"`) {
			t.Error("a decided item still offers the decision form")
		}
		// Deciding again is refused.
		p = b.post("/console/verifications/"+ids[0]+"/decision", url.Values{"decision": {"fail"}, "reason": {"minor"},
			"confirm": {"yes"}, "csrf_token": {token}}).wantStatus(t, http.StatusConflict)
		if !strings.Contains(p.alert(), "not waiting for review") {
			t.Errorf("second decision message %q", p.alert())
		}
	})
}
