package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi"
	"github.com/verifyd/verifyd/internal/testserver"
)

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	c := newClient(t, ts, idp, prd)
	// Unknown paths, inside and outside the mounts, are JSON 404s.
	for _, p := range []string{"/nope", "/api/v1/identity-verifications", "/api/v2/identity-verification"} {
		c.do("GET", p, nil, "").wantError(t, 404, verifyd.MsgNotFound)
	}
	root := &client{t: t, base: ts.HTTP.URL}
	root.do("GET", "/elsewhere", nil, "").wantError(t, 404, verifyd.MsgNotFound)
	// The age interface has no identity paths.
	(&client{t: t, base: ts.BaseURL(age, prd)}).do("POST", "/api/v1/identity-verification", []byte("{}"), "").
		wantError(t, 404, verifyd.MsgNotFound)

	res := c.do("DELETE", "/api/v1/identity-verification", nil, "")
	res.wantError(t, 405, verifyd.MsgMethodNotAllowed)
	if res.header.Get("Allow") != "POST" {
		t.Fatalf("Allow = %q", res.header.Get("Allow"))
	}
	c.do("POST", "/v1/business/allowed-redirects", []byte("[]"), "").wantError(t, 405, verifyd.MsgMethodNotAllowed)
	if res.header.Get("X-Request-Id") == "" {
		t.Fatal("no X-Request-Id")
	}
}

func TestBodyLimits(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	c := newClient(t, ts, idp, prd)
	big := []byte(`{"customer":{"id":"x","email":"` + strings.Repeat("a", 1<<20) + `"}}`)
	c.send("POST", "/api/v1/identity-verification", big).wantError(t, 413, verifyd.MsgTooLarge)

	// B2 takes several megabytes of images: a 2.5 MB noisy PNG selfie.
	body := submitBody(t, "", false)
	selfie := testPNG(t, 1000, 800, true)
	if len(selfie) < 2<<20 {
		t.Fatalf("test image only %d bytes", len(selfie))
	}
	body["customer"].(map[string]any)["selfie"] = b64(selfie)
	if res := c.send("POST", "/api/v1/identity-verification/selfie-document-validation", body); res.status != 201 {
		t.Fatalf("large B2: %d %s", res.status, res.raw)
	}
}

func TestOperationalEndpoints(t *testing.T) {
	t.Parallel()
	// In production without a token /metrics is not served at all.
	closed := testserver.Start(t, "sqlite", testserver.Options{})
	if res, err := http.Get(closed.HTTP.URL + "/metrics"); err != nil || res.StatusCode != 404 {
		t.Fatalf("/metrics without a token in production: %v %v", res.StatusCode, err)
	}
	ts := testserver.Start(t, "sqlite", testserver.Options{MetricsToken: "s3cret"})
	if res, err := http.Get(ts.HTTP.URL + "/metrics"); err != nil || res.StatusCode != 401 {
		t.Fatalf("/metrics without the token: %v %v", res.StatusCode, err)
	}
	newClient(t, ts, idp, prd).do("GET", "/api/v1/identity-verification/x", nil, "") // one request to count
	for path, want := range map[string]string{
		"/healthz": `"ok"`,
		"/readyz":  `"ready"`,
		"/metrics": `verifyd_http_requests_total{code="401",method="GET",mount="identity-production",route="/api/v1/identity-verification/{id}"} 1`,
	} {
		req, _ := http.NewRequest("GET", ts.HTTP.URL+path, nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !bytes.Contains(b, []byte(want)) {
			t.Fatalf("%s: %d, body lacks %s:\n%s", path, res.StatusCode, want, b)
		}
	}
	// readyz fails when the database is gone.
	stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ts.App.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	ts.Store.Close()
	res, err := http.Get(ts.HTTP.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("readyz with a closed database: %d", res.StatusCode)
	}
}

// TestHostRouting: two mounts may share a path prefix on different hosts;
// the Host header decides.
func TestHostRouting(t *testing.T) {
	t.Parallel()
	mounts, err := httpapi.ParseMounts(map[string]string{
		"identity-production": "https://api.example.com",
		"identity-sandbox":    "https://sandbox.example.com",
		"age-production":      "https://api.example.com/age",
		"age-sandbox":         "https://sandbox.example.com/age",
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, path string
		wantMount  string
	}{
		{"api.example.com", "/nope", "identity-production"},
		{"sandbox.example.com", "/nope", "identity-sandbox"},
		{"api.example.com:443", "/age/nope", "age-production"},
		{"sandbox.example.com", "/age/nope", "age-sandbox"},
		{"other.example.com", "/nope", ""},
	}
	for _, tt := range tests {
		reg := prometheus.NewRegistry()
		srv := httpapi.New(httpapi.Config{Mounts: mounts}, httpapi.Deps{
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: reg,
		})
		req := httptest.NewRequest("GET", tt.path, nil)
		req.Host = tt.host
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != 404 {
			t.Fatalf("%s%s: %d", tt.host, tt.path, rec.Code)
		}
		if got := mountLabel(t, reg); got != tt.wantMount {
			t.Errorf("%s%s routed to %q, want %q", tt.host, tt.path, got, tt.wantMount)
		}
	}
	if _, err := httpapi.ParseMounts(map[string]string{
		"identity-production": "https://api.example.com/x", "identity-sandbox": "https://api.example.com/x",
		"age-production": "https://api.example.com/a", "age-sandbox": "https://api.example.com/b",
	}); err == nil {
		t.Fatal("two mounts with one base URL were accepted")
	}
}

// mountLabel returns the mount label of the single request a registry
// counted.
func mountLabel(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "verifyd_http_requests_total" {
			continue
		}
		for _, l := range f.GetMetric()[0].GetLabel() {
			if l.GetName() == "mount" {
				return l.GetValue()
			}
		}
	}
	t.Fatal("no request counted")
	return ""
}

// TestHostedTokenNotLogged: the hosted page's URL is a bearer credential of
// the customer; request logs show the route pattern instead.
func TestHostedTokenNotLogged(t *testing.T) {
	t.Parallel()
	var logs testserver.Buffer
	ts := testserver.Start(t, "sqlite", testserver.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	c := newClient(t, ts, idp, prd)
	hosted := c.send("POST", "/api/v1/identity-verification", createBody(newCustomerID(), "https://hooks.example.com/", "")).json(t)["redirect_uri"].(string)
	res, err := http.Get(hosted)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	logs.WaitFor(t, `"path":"/verify/{token}"`)
	token := hosted[strings.LastIndex(hosted, "/")+1:]
	if strings.Contains(logs.String(), token) {
		t.Fatal("the hosted token was written to the logs")
	}
}
