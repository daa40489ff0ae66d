package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// customer is a browser on the hosted page: it keeps cookies, does not
// follow redirects, and reads the CSRF token from the page.
type customer struct {
	t    *testing.T
	page string // the hosted page URL (B1's redirect_uri)
	http *http.Client
	csrf string
}

func newCustomer(t *testing.T, page string) *customer {
	jar, _ := cookiejar.New(nil)
	return &customer{t: t, page: page, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (c *customer) do(req *http.Request) response {
	c.t.Helper()
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, raw: raw}
}

// open loads the page (with extra headers such as Accept-Language) and
// remembers its CSRF token.
func (c *customer) open(suffix string, headers ...string) response {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.page+suffix, nil)
	for n := 0; n+1 < len(headers); n += 2 {
		req.Header.Set(headers[n], headers[n+1])
	}
	res := c.do(req)
	if m := csrfField.FindSubmatch(res.raw); m != nil {
		c.csrf = string(m[1])
	}
	return res
}

// photos is a valid submission's images.
type photos struct {
	front, back, selfie []byte
	frames              [][]byte // the camera's burst after the selfie
	live                *liveCapture
}

func goodPhotos(t *testing.T) photos {
	return photos{front: testJPEG(t, 900, 600), back: testJPEG(t, 901, 600), selfie: testJPEG(t, 320, 400)}
}

// submit posts the capture form as multipart/form-data. fields holds the
// text fields (csrf is added unless given); asJSON is what the page's
// script asks for.
func (c *customer) submit(fields map[string]string, p photos, asJSON bool, headers ...string) response {
	c.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if _, ok := fields["csrf"]; !ok {
		_ = w.WriteField("csrf", c.csrf)
	}
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for name, data := range map[string][]byte{"front": p.front, "back": p.back, "selfie": p.selfie} {
		if data == nil {
			continue
		}
		fw, _ := w.CreateFormFile(name, name+".jpg")
		_, _ = fw.Write(data)
	}
	for n, data := range p.frames {
		fw, _ := w.CreateFormFile("selfie_frame", fmt.Sprintf("frame%d.jpg", n+1))
		_, _ = fw.Write(data)
	}
	p.live.write(w)
	_ = w.Close()
	req, _ := http.NewRequest("POST", c.page+"/submission", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if asJSON {
		req.Header.Set("Accept", "application/json")
	}
	for n := 0; n+1 < len(headers); n += 2 {
		req.Header.Set(headers[n], headers[n+1])
	}
	return c.do(req)
}

func (c *customer) sandbox(outcome string) response {
	c.t.Helper()
	form := url.Values{"csrf": {c.csrf}, "outcome": {outcome}}
	req, _ := http.NewRequest("POST", c.page+"/sandbox", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

func (c *customer) status() map[string]any {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.page+"/status", nil)
	res := c.do(req)
	if res.status != 200 {
		c.t.Fatalf("status: %d %s", res.status, res.raw)
	}
	return res.json(c.t)
}

// waitPhase polls the status endpoint until the phase is want.
func (c *customer) waitPhase(want string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := c.status()
		if s["phase"] == want {
			return s
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("phase %v, want %s: %v", s["phase"], want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var idCard = map[string]string{"document_type": "IdCard", "document_country": "deu"}

// hostedFixture creates a hosted verification with a webhook receiver and
// an allowed redirect_uri.
type hostedFixture struct {
	ts       *testserver.Server
	rc       *receiver
	id       string
	page     string
	redirect string
}

func newHosted(t *testing.T, ts *testserver.Server, env verifyd.Environment, email string) hostedFixture {
	t.Helper()
	c := newClient(t, ts, idp, env)
	f := hostedFixture{ts: ts, rc: newReceiver(t, ts.Credential(idp, env)), redirect: "https://shop.example.com/verified?order=42"}
	if res := c.send("PUT", "/v1/business/allowed-redirects", []string{f.redirect}); res.status != 204 {
		t.Fatalf("allow redirect: %d %s", res.status, res.raw)
	}
	body := createBody(newCustomerID(), f.rc.url(), f.redirect)
	body["customer"].(map[string]any)["email"] = email
	res := c.send("POST", "/api/v1/identity-verification", body)
	if res.status != 201 {
		t.Fatalf("B1: %d %s", res.status, res.raw)
	}
	m := res.json(t)
	f.id, f.page = m["id"].(string), m["redirect_uri"].(string)
	// The fixture's customer has agreed to the processing of their face
	// (the consent step has its own tests: TestHostedConsentStep).
	if _, err := ts.Identity.ConsentHosted(context.Background(), f.page[strings.LastIndex(f.page, "/")+1:]); err != nil {
		t.Fatalf("consent: %v", err)
	}
	return f
}

// newHostedWithoutConsent is newHosted before the customer answered the
// consent step.
func newHostedWithoutConsent(t *testing.T, ts *testserver.Server, env verifyd.Environment, email string) hostedFixture {
	t.Helper()
	c := newClient(t, ts, idp, env)
	f := hostedFixture{ts: ts, rc: newReceiver(t, ts.Credential(idp, env))}
	body := createBody(newCustomerID(), f.rc.url(), "")
	body["customer"].(map[string]any)["email"] = email
	res := c.send("POST", "/api/v1/identity-verification", body)
	if res.status != 201 {
		t.Fatalf("B1: %d %s", res.status, res.raw)
	}
	m := res.json(t)
	f.id, f.page = m["id"].(string), m["redirect_uri"].(string)
	return f
}

// script is a check that answers from a list, then repeats the last answer.
type script struct {
	mu      sync.Mutex
	n       int
	answers []engine.Result
	// gate, when set, blocks every run until it is closed.
	gate chan struct{}
}

func (*script) Name() string { return "scripted" }
func (s *script) Run(ctx context.Context, _ *engine.Input) engine.Result {
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return engine.Errored(ctx.Err(), nil)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.answers[min(s.n, len(s.answers)-1)]
	s.n++
	return r
}

func wantHeaderContains(t *testing.T, res response, name string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(res.header.Get(name), p) {
			t.Fatalf("%s = %q, want it to contain %q", name, res.header.Get(name), p)
		}
	}
}

func wantBody(t *testing.T, res response, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(string(res.raw), p) {
			t.Fatalf("body does not contain %q:\n%s", p, res.raw)
		}
	}
}

func wantNotBody(t *testing.T, res response, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(string(res.raw), p) {
			t.Fatalf("body contains %q:\n%s", p, res.raw)
		}
	}
}

var strictCSP = []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
	"connect-src 'self'", "media-src 'self' blob:", "frame-ancestors 'none'"}

// TestHostedPageHeadersAssetsAndLanguages: every page carries the strict
// CSP, the CSRF cookie is HttpOnly, SameSite=Strict and scoped to the
// mount's pages, assets come from the same origin with long caching, and
// the language follows ?lang= then Accept-Language.
func TestHostedPageHeadersAssetsAndLanguages(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)

	res := c.open("", "Accept-Language", "fr-CH, fr;q=0.9, en;q=0.5")
	if res.status != 200 {
		t.Fatalf("page: %d %s", res.status, res.raw)
	}
	wantHeaderContains(t, res, "Content-Security-Policy", strictCSP...)
	wantHeaderContains(t, res, "Cache-Control", "no-store")
	wantHeaderContains(t, res, "Referrer-Policy", "same-origin")
	cookie := res.header.Get("Set-Cookie")
	for _, p := range []string{"verifyd_hosted_csrf=", "Path=/identity/verify/", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(cookie, p) {
			t.Fatalf("Set-Cookie %q lacks %q", cookie, p)
		}
	}
	// French, with the country preselected from fr-CH, and no inline code.
	wantBody(t, res, `<html lang="fr">`, "Vérification d’identité", "Carte d’identité", `<option value="che" selected>Suisse (CHE)</option>`,
		`name="csrf" value="`+c.csrf+`"`, `enctype="multipart/form-data"`, `accept="image/*" capture="environment"`,
		`capture="user"`, `role="status"`)
	wantNotBody(t, res, "<style", "style=", "onclick", "<script>", "Sandbox")
	// Two script elements: the external script and the (not executed) JSON data block.
	if scripts := regexp.MustCompile(`<script[^>]*>`).FindAll(res.raw, -1); len(scripts) != 2 ||
		!bytes.Contains(scripts[0], []byte(`src="/identity/verify-assets/hosted.`)) || !bytes.Contains(scripts[1], []byte(`type="application/json"`)) {
		t.Fatalf("scripts: %q", scripts)
	}

	// ?lang= wins over Accept-Language, in German and English.
	de := c.open("?lang=de", "Accept-Language", "fr")
	wantBody(t, de, `<html lang="de">`, "Identitätsprüfung", "Personalausweis", "Ausstellungsland", "Zur Prüfung senden")
	en := c.open("", "Accept-Language", "es, it")
	wantBody(t, en, `<html lang="en">`, "Identity verification", "Driving licence")

	// Assets: same origin, hashed names, cached for a year.
	for _, ext := range []string{"css", "js"} {
		m := regexp.MustCompile(`/identity/verify-assets/hosted\.[0-9a-f]+\.` + ext).Find(res.raw)
		if m == nil {
			t.Fatalf("no %s asset in the page", ext)
		}
		req, _ := http.NewRequest("GET", ts.HTTP.URL+string(m), nil)
		a := c.do(req)
		if a.status != 200 || len(a.raw) < 500 {
			t.Fatalf("asset %s: %d", m, a.status)
		}
		wantHeaderContains(t, a, "Cache-Control", "max-age=31536000", "immutable")
		wantHeaderContains(t, a, "Content-Type", map[string]string{"css": "text/css", "js": "text/javascript"}[ext])
	}
	req, _ := http.NewRequest("GET", ts.HTTP.URL+"/identity/verify-assets/other.js", nil)
	if a := c.do(req); a.status != 404 {
		t.Fatalf("unknown asset: %d", a.status)
	}

	// An unknown token gets a page (with the CSP), not JSON.
	bad := newCustomer(t, ts.BaseURL(idp, prd)+"/verify/no-such-token")
	nf := bad.open("?lang=de")
	if nf.status != 404 {
		t.Fatalf("unknown token: %d", nf.status)
	}
	wantHeaderContains(t, nf, "Content-Security-Policy", strictCSP...)
	wantBody(t, nf, "Dieser Verifizierungslink ist ungültig", `id="next-step"`, "kehren Sie dorthin zurück")
	// A production token does not open on the sandbox mount.
	other := newCustomer(t, strings.Replace(f.page, "/identity/", "/sandbox/identity/", 1))
	if r := other.open(""); r.status != 404 {
		t.Fatalf("production token on the sandbox mount: %d", r.status)
	}

	// The status document.
	s := c.status()
	for k, want := range map[string]any{"status": "started", "reason": "", "phase": "capture", "processing": false,
		"can_retry": false, "attempts_left": float64(3), "message_key": "state_capture", "return_url": ""} {
		if s[k] != want {
			t.Fatalf("status[%s] = %v, want %v (%v)", k, s[k], want, s)
		}
	}
}

// TestHostedCSRF: a submission needs the cookie and the same value in the
// form (or header), from this origin.
func TestHostedCSRF(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newHosted(t, ts, prd, "ada@example.com")
	p := goodPhotos(t)

	// No cookie at all (a cross-site form post: Strict cookies stay home).
	stranger := newCustomer(t, f.page)
	stranger.csrf = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	stranger.submit(idCard, p, true).wantStatus(t, 403)

	c := newCustomer(t, f.page)
	c.open("")
	token := c.csrf
	// The token with its first character changed (whatever it was).
	wrong := "x" + token[1:]
	if token[0] == 'x' {
		wrong = "y" + token[1:]
	}
	for name, tc := range map[string]struct {
		fields  map[string]string
		headers []string
	}{
		"wrong token":      {map[string]string{"csrf": wrong, "document_type": "IdCard", "document_country": "deu"}, nil},
		"no token":         {map[string]string{"csrf": "", "document_type": "IdCard", "document_country": "deu"}, nil},
		"other origin":     {idCard, []string{"Origin", "https://evil.example"}},
		"null origin":      {idCard, []string{"Origin", "null"}},
		"cross-site fetch": {idCard, []string{"Sec-Fetch-Site", "cross-site"}},
		"wrong header":     {idCard, []string{"X-CSRF-Token", "nope"}},
	} {
		res := c.submit(tc.fields, p, true, tc.headers...)
		if res.status != 403 {
			t.Fatalf("%s: %d %s", name, res.status, res.raw)
		}
	}
	// The plain form gets a page explaining what to do.
	res := c.submit(map[string]string{"csrf": "", "document_type": "IdCard", "document_country": "deu"}, p, false)
	if res.status != 403 {
		t.Fatalf("form without token: %d", res.status)
	}
	wantBody(t, res, "This page has expired in your browser")
	wantHeaderContains(t, res, "Content-Security-Policy", strictCSP...)
	if got := c.status()["phase"]; got != "capture" {
		t.Fatalf("a refused submission changed the phase: %v", got)
	}
	// Same origin, right token (in the header, as the script sends it).
	origin := ts.HTTP.URL
	if res := c.submit(map[string]string{"csrf": "", "document_type": "IdCard", "document_country": "deu"}, p, true,
		"Origin", origin, "Sec-Fetch-Site", "same-origin", "X-CSRF-Token", token); res.status != 202 {
		t.Fatalf("good submission: %d %s", res.status, res.raw)
	}
}

func (r response) wantStatus(t *testing.T, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
}

// problemsOf returns field → problem of a JSON 422.
func problemsOf(t *testing.T, res response) map[string]string {
	t.Helper()
	res.wantStatus(t, 422)
	var body struct {
		Message string `json:"message"`
		Errors  []struct{ Field, Problem, Message string }
	}
	if err := json.Unmarshal(res.raw, &body); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range body.Errors {
		out[e.Field] = e.Problem + " | " + e.Message
	}
	return out
}

func TestHostedSubmissionValidation(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("")
	good := goodPhotos(t)

	got := problemsOf(t, c.submit(map[string]string{}, photos{}, true))
	for _, field := range []string{"document_type", "document_country", "front", "back", "selfie"} {
		if !strings.Contains(got[field], "is required") {
			t.Fatalf("%s: %q (%v)", field, got[field], got)
		}
	}
	got = problemsOf(t, c.submit(map[string]string{"document_type": "Visa", "document_country": "DEU"}, good, true))
	if len(got) != 2 || got["document_type"] == "" || got["document_country"] == "" {
		t.Fatalf("bad choices: %v", got)
	}
	// A passport needs no back; the images are checked by B2's rules.
	huge := bytes.Repeat([]byte{0xff}, verifyd.MaxImageBytes+100)
	gif := []byte("GIF89a\x40\x00\x40\x00\x00\x00\x00;")
	got = problemsOf(t, c.submit(map[string]string{"document_type": "Passport", "document_country": "gbr"},
		photos{front: gif, selfie: testPNG(t, 32, 32, false)}, true))
	if len(got) != 2 || !strings.Contains(got["front"], "JPEG, PNG or WebP") || !strings.Contains(got["selfie"], "smaller than 64") {
		t.Fatalf("bad images: %v", got)
	}
	got = problemsOf(t, c.submit(idCard, photos{front: huge, back: good.back, selfie: good.selfie}, true, "Accept-Language", "de"))
	if len(got) != 1 || !strings.Contains(got["front"], "Das Foto ist größer als 10 MB") {
		t.Fatalf("huge image: %v", got)
	}
	// Without the script: the page again, with the problems and the choices kept.
	res := c.submit(map[string]string{"document_type": "DriverLicense", "document_country": "fra"},
		photos{front: good.front, selfie: good.selfie}, false)
	res.wantStatus(t, 422)
	wantHeaderContains(t, res, "Content-Security-Policy", strictCSP...)
	wantBody(t, res, "Please correct the following:", `href="#f-back"`, "Back of the document: please add a photo.",
		`value="DriverLicense" required checked`, `<option value="fra" selected>`, `aria-invalid="true"`,
		// The photos that were fine are named: the browser dropped them.
		`id="choose-again"`, "Please choose these photos again: Front of the document, Selfie.")
	// Once on the page (the script's texts, in their JSON element, aside).
	shown, _, _ := strings.Cut(string(res.raw), `id="hosted-text"`)
	if n := strings.Count(shown, "Please correct the following:"); n != 1 {
		t.Fatalf("the error heading is shown %d times", n)
	}
	// A body far too large is refused before it is read (the limit is
	// about 44 MB: three photos, the burst and the liveness frames).
	u, _ := url.Parse(f.page + "/submission")
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=x\r\n"+
		"Accept: application/json\r\nContent-Length: %d\r\n\r\n", u.Path, u.Host, 60<<20)
	if r, err := http.ReadResponse(bufio.NewReader(conn), nil); err != nil || r.StatusCode != 413 {
		t.Fatalf("oversized body: %v %v", err, r)
	}
	if s := c.status(); s["phase"] != "capture" || s["attempts_left"] != float64(3) {
		t.Fatalf("refused submissions were counted: %v", s)
	}
}

// TestHostedRetryAfterFixableFailure: a blurred first photo leaves the
// verification started with a retry offer; the second submission is
// approved, and the page ends with the Continue link.
func TestHostedRetryAfterFixableFailure(t *testing.T) {
	t.Parallel()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			testHostedRetry(t, dialect)
		})
	}
}

func testHostedRetry(t *testing.T, dialect string) {
	check := &script{answers: []engine.Result{
		engine.Failed(verifyd.ReasonPoorIDScanError, "document_front is too blurred to read (sharpness 12)", nil),
		engine.Passed("fine", nil),
	}}
	ts := testserver.Start(t, dialect, testserver.Options{Dev: true, Pipeline: engine.NewPipeline(engine.DecodeCheck{}, check)})
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("")
	f.rc.waitFor("started", hasStatuses(f.id, "started:"))

	res := c.submit(idCard, goodPhotos(t), true)
	res.wantStatus(t, 202)
	if s := res.json(t); s["phase"] != "processing" || s["processing"] != true || s["attempts_left"] != float64(2) {
		t.Fatalf("after submitting: %v", s)
	}
	s := c.waitPhase("retry")
	if s["can_retry"] != true || s["attempts_left"] != float64(2) || s["status"] != "started" || s["message_key"] != "state_retry" || s["return_url"] != "" {
		t.Fatalf("retry status: %v", s)
	}
	page := c.open("")
	wantBody(t, page, "We could not use your photos", "The photo was blurred", "This concerns the front of the document.",
		"Attempts left: 2", `id="capture"`, `value="IdCard" required checked`, `<option value="deu" selected>`)
	wantNotBody(t, page, `id="continue"`)
	// Only the photo the check named is asked for again: the back and the
	// selfie are kept, and their inputs are not required.
	wantBody(t, page, `id="k-back"`, `id="k-selfie"`, `data-kept="true"`)
	wantNotBody(t, page, `id="k-front"`, `name="back" accept="image/*" capture="environment" required`)
	first, err := ts.Store.Images(context.Background(), f.id)
	if err != nil {
		t.Fatal(err)
	}
	de := c.open("?lang=de")
	wantBody(t, de, "Das Foto war unscharf", "Verbleibende Versuche: 2")
	if got := statuses(f.rc.all(), f.id); len(got) != 1 {
		t.Fatalf("a fixable failure sent webhooks: %v", got)
	}

	// The retry sends the new front only.
	c.submit(idCard, photos{front: testJPEG(t, 902, 600)}, true).wantStatus(t, 202)
	s = c.waitPhase("approved")
	second, err := ts.Store.Images(context.Background(), f.id)
	if err != nil {
		t.Fatal(err)
	}
	sums := func(ims []verifyd.StoredImage) map[verifyd.ImageKind]string {
		out := map[verifyd.ImageKind]string{}
		for _, im := range ims {
			out[im.Kind] = fmt.Sprintf("%x", im.SHA256)
		}
		return out
	}
	a, b := sums(first), sums(second)
	if len(b) != 3 || a[verifyd.ImageDocumentBack] != b[verifyd.ImageDocumentBack] || a[verifyd.ImageSelfie] != b[verifyd.ImageSelfie] ||
		a[verifyd.ImageDocumentFront] == b[verifyd.ImageDocumentFront] {
		t.Fatalf("images after the retry: %v, before: %v", b, a)
	}
	if s["status"] != "approved" || s["return_url"] != f.redirect || s["attempts_left"] != float64(1) {
		t.Fatalf("approved status: %v", s)
	}
	f.rc.waitFor("approved", hasStatuses(f.id, "started:", "approved:"))
	page = c.open("")
	wantBody(t, page, "Your identity has been verified", `id="continue" href="https://shop.example.com/verified?order=42"`)
	wantNotBody(t, page, `id="capture"`)
	// Finished: no more submissions.
	c.submit(idCard, goodPhotos(t), true).wantStatus(t, 409)
}

// TestHostedThirdFailureIsFinal: three fixable failures in a row fail the
// verification (with a webhook); nothing is accepted afterwards.
func TestHostedThirdFailureIsFinal(t *testing.T) {
	t.Parallel()
	check := &script{answers: []engine.Result{engine.Failed(verifyd.ReasonPartialID, "a corner of the document is outside the photo", nil)}}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Pipeline: engine.NewPipeline(engine.DecodeCheck{}, check)})
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("")
	for attempt := 1; attempt <= 2; attempt++ {
		c.submit(idCard, goodPhotos(t), true).wantStatus(t, 202)
		if s := c.waitPhase("retry"); s["attempts_left"] != float64(3-attempt) {
			t.Fatalf("attempt %d: %v", attempt, s)
		}
		wantBody(t, c.open(""), "Part of the document was cut off or covered")
	}
	c.submit(idCard, goodPhotos(t), true).wantStatus(t, 202)
	s := c.waitPhase("failed")
	if s["status"] != "failed" || s["reason"] != "partial_id" || s["can_retry"] != false || s["attempts_left"] != float64(0) || s["return_url"] != f.redirect {
		t.Fatalf("final status: %v", s)
	}
	f.rc.waitFor("failed", hasStatuses(f.id, "started:", "failed:partial_id"))
	page := c.open("?lang=fr")
	wantBody(t, page, "Votre identité n’a pas pu être vérifiée", "Une partie du document était masquée ou coupée.", `id="continue"`,
		`id="next-step"`, "contactez l’organisation qui vous a envoyé ici")
	wantNotBody(t, page, `id="capture"`)
	c.submit(idCard, goodPhotos(t), true).wantStatus(t, 409)
	runs, _ := ts.Store.CheckRuns(context.Background(), f.id)
	if len(runs) != 3 {
		t.Fatalf("runs: %d", len(runs))
	}
}

// TestHostedRefusesWhileProcessing: a second submission while the first is
// in the pipeline is refused; the page shows "processing" meanwhile.
func TestHostedRefusesWhileProcessing(t *testing.T) {
	t.Parallel()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			testHostedRefusesWhileProcessing(t, dialect)
		})
	}
}

func testHostedRefusesWhileProcessing(t *testing.T, dialect string) {
	check := &script{answers: []engine.Result{engine.NeedsReview("a person compares the faces", nil)}, gate: make(chan struct{})}
	ts := testserver.Start(t, dialect, testserver.Options{Dev: true, Pipeline: engine.NewPipeline(engine.DecodeCheck{}, check)})
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("")
	// Without the script: redirected back to the page, which says it is processing.
	res := c.submit(idCard, goodPhotos(t), false)
	if res.status != 303 || res.header.Get("Location") != strings.TrimPrefix(f.page, ts.HTTP.URL) {
		t.Fatalf("form submission: %d %q", res.status, res.header.Get("Location"))
	}
	page := c.open("")
	wantBody(t, page, "We are checking your photos", `<noscript><meta http-equiv="refresh" content="5"></noscript>`)
	wantNotBody(t, page, `id="capture"`)
	c.submit(idCard, goodPhotos(t), true).wantStatus(t, 409)
	form := c.submit(idCard, goodPhotos(t), false)
	form.wantStatus(t, 409)
	wantBody(t, form, "This verification cannot take photos right now")
	close(check.gate)
	s := c.waitPhase("review")
	if s["status"] != "started" || s["return_url"] != f.redirect || s["processing"] != false {
		t.Fatalf("review status: %v", s)
	}
	wantBody(t, c.open(""), "Your verification is being reviewed", `id="continue"`)
	c.submit(idCard, goodPhotos(t), true).wantStatus(t, 409)
}

// TestHostedSandboxPanel: sandbox pages offer the outcome panel, which
// moves the verification like the simulate control; production has none.
func TestHostedSandboxPanel(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})

	prod := newHosted(t, ts, prd, "ada@example.com")
	pc := newCustomer(t, prod.page)
	wantNotBody(t, pc.open(""), "Sandbox", "sandbox")
	pc.sandbox("approved").wantStatus(t, 404)
	if s := pc.status(); s["status"] != "started" {
		t.Fatalf("production verification moved: %v", s)
	}

	f := newHosted(t, ts, sbx, "ada+started@example.com")
	c := newCustomer(t, f.page)
	page := c.open("")
	wantBody(t, page, "Sandbox: choose the outcome", "Sandbox – test mode", `<option value="approved">Approved</option>`,
		`<option value="minor">Failed: minor</option>`, `<option value="review">Needs review</option>`)
	wantHeaderContains(t, page, "Content-Security-Policy", strictCSP...)
	// CSRF applies to the panel too.
	stranger := newCustomer(t, f.page)
	stranger.csrf = c.csrf
	stranger.sandbox("approved").wantStatus(t, 403)
	bad := c.sandbox("maybe")
	bad.wantStatus(t, 422)

	// "started" tag: the submission stays processing until an outcome is chosen.
	c.submit(idCard, goodPhotos(t), true).wantStatus(t, 202)
	wantBody(t, c.open(""), "We are checking your photos", "Sandbox: choose the outcome")
	res := c.sandbox("review")
	if res.status != 303 {
		t.Fatalf("review: %d %s", res.status, res.raw)
	}
	if s := c.status(); s["phase"] != "review" {
		t.Fatalf("after review: %v", s)
	}
	q, _ := ts.Store.ReviewQueue(context.Background(), 10)
	if len(q) != 1 || q[0].ID != f.id {
		t.Fatalf("review queue: %+v", q)
	}
	c.sandbox("approved").wantStatus(t, 303)
	f.rc.waitFor("approved", hasStatuses(f.id, "started:", "approved:"))
	page = c.open("")
	wantBody(t, page, "Your identity has been verified", `href="https://shop.example.com/verified?order=42"`)
	wantNotBody(t, page, "Sandbox: choose the outcome")
	// A finished verification takes no outcome.
	c.sandbox("minor").wantStatus(t, 422)

	// A failure reason fails it, through started, with the webhooks of simulate.
	g := newHosted(t, ts, sbx, "bob@example.com")
	gc := newCustomer(t, g.page)
	gc.open("")
	req, _ := http.NewRequest("POST", g.page+"/sandbox", strings.NewReader(url.Values{"csrf": {gc.csrf}, "outcome": {"photo_mismatch"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	js := gc.do(req)
	js.wantStatus(t, 200)
	if s := js.json(t); s["status"] != "failed" || s["reason"] != "photo_mismatch" || s["return_url"] != g.redirect {
		t.Fatalf("sandbox failure: %v", s)
	}
	g.rc.waitFor("failed", hasStatuses(g.id, "started:", "failed:photo_mismatch"))
	history, _ := ts.Store.StatusEvents(context.Background(), g.id)
	if last := history[len(history)-1]; last.Cause != verifyd.CauseSandboxControl {
		t.Fatalf("cause: %+v", last)
	}
}

// framesSeen is a check that records the burst frames the pipeline got.
type framesSeen struct {
	mu     sync.Mutex
	widths []int
}

func (*framesSeen) Name() string { return "frames" }
func (f *framesSeen) Run(_ context.Context, in *engine.Input) engine.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.widths = f.widths[:0]
	for _, fr := range in.Frames {
		f.widths = append(f.widths, fr.Image.Bounds().Dx())
	}
	return engine.NeedsReview("frames recorded", nil)
}

// TestHostedSelfieFrames: the camera's burst after a selfie is optional,
// bounded in number and size, stored with the submission and handed to
// the pipeline in order.
func TestHostedSelfieFrames(t *testing.T) {
	t.Parallel()
	seen := &framesSeen{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Pipeline: engine.NewPipeline(engine.DecodeCheck{}, seen)})
	f := newHosted(t, ts, prd, "ada@example.com")
	c := newCustomer(t, f.page)
	c.open("")
	good := goodPhotos(t)
	frame := func(w int) []byte { return testJPEG(t, w, 480) }

	p := good
	p.frames = [][]byte{frame(640), frame(641), frame(642), frame(643)}
	if got := problemsOf(t, c.submit(idCard, p, true)); len(got) != 1 || !strings.Contains(got["selfie_frame"], "at most 3 frames") {
		t.Fatalf("four frames: %v", got)
	}
	p.frames = [][]byte{frame(640), bytes.Repeat([]byte{0xff}, verifyd.MaxSelfieFrameSize+10)}
	if got := problemsOf(t, c.submit(idCard, p, true)); len(got) != 1 || !strings.Contains(got["selfie_frame"], "frame 2 is larger than 1024 KiB") {
		t.Fatalf("oversized frame: %v", got)
	}
	p.frames = [][]byte{frame(640), []byte("not an image")}
	if got := problemsOf(t, c.submit(idCard, p, true)); len(got) != 1 || got["selfie_frame"] == "" {
		t.Fatalf("undecodable frame: %v", got)
	}

	p.frames = [][]byte{frame(640), frame(641), frame(642)}
	c.submit(idCard, p, true).wantStatus(t, 202)
	c.waitPhase("review")
	seen.mu.Lock()
	widths := slices.Clone(seen.widths)
	seen.mu.Unlock()
	if !slices.Equal(widths, []int{640, 641, 642}) {
		t.Fatalf("pipeline frames %v, want widths 640, 641, 642 in order", widths)
	}
	images, err := ts.Store.Images(context.Background(), f.id)
	if err != nil || len(images) != 6 {
		t.Fatalf("stored images: %v, %d", err, len(images))
	}
}
