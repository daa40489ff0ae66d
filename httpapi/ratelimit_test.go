package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestAnonymousFloodIsLimited: one client flooding the age flow's
// authorize endpoint meets a 429 with Retry-After after its burst, in
// SPEC's error body; another client behind the trusted proxy is still
// served, and so is the integrator's API.
func TestAnonymousFloodIsLimited(t *testing.T) {
	t.Parallel()
	var logs testserver.Buffer
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	authorize := ts.BaseURL(verifyd.InterfaceAge, prd) + "/oauth/authorize?client_id=nobody&response_type=code&redirect_uri=https://x.example/cb"
	get := func(forwardedFor string) *http.Response {
		req, _ := http.NewRequest("GET", authorize, nil)
		req.Header.Set("X-Forwarded-For", forwardedFor)
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var limited *http.Response
	for i := range 200 {
		if limited != nil {
			break
		}
		res := get("198.51.100.1")
		if res.StatusCode == http.StatusTooManyRequests {
			limited = res
			t.Logf("limited after %d requests", i)
			// A few more refusals: they must not be logged one by one.
			for range 5 {
				r := get("198.51.100.1")
				r.Body.Close()
			}
			continue
		}
		res.Body.Close()
	}
	if limited == nil {
		t.Fatal("200 authorize requests from one client were all served")
	}
	var body struct {
		Message    string `json:"message"`
		StatusCode int    `json:"status_code"`
	}
	raw, _ := io.ReadAll(limited.Body)
	limited.Body.Close()
	if err := json.Unmarshal(raw, &body); err != nil || body.Message != verifyd.MsgTooManyRequests || body.StatusCode != 429 ||
		limited.Header.Get("Retry-After") == "" {
		t.Fatalf("429 answer: %s %v", raw, limited.Header)
	}
	if res := get("198.51.100.2"); res.StatusCode == http.StatusTooManyRequests {
		t.Fatal("another client behind the proxy was limited too")
	} else {
		res.Body.Close()
	}
	if n := strings.Count(logs.String(), `"status":429`); n != 0 {
		t.Errorf("%d refused requests were logged one by one", n)
	}
	if n := strings.Count(logs.String(), "client rate-limited"); n != 1 {
		t.Errorf("the limited client was logged %d times, want once", n)
	}
	c := newClient(t, ts, idp, prd)
	if res := c.send("POST", "/api/v1/identity-verification", createBody(newCustomerID(), "https://h.example.com/", "")); res.status != 201 {
		t.Fatalf("the integrator's B1 during the flood: %d %s", res.status, res.raw)
	}
}

// TestRefusalsAreHeld: a client that keeps sending after its budget is
// spent gets each refusal only when its next token is due, so 16
// connections that wait for their answers send a few dozen requests in two
// seconds instead of thousands (what they sent before refusals were held).
func TestRefusalsAreHeld(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	authorize := ts.BaseURL(verifyd.InterfaceAge, prd) + "/oauth/authorize?client_id=nobody"
	var mu sync.Mutex
	statuses := map[int]int{}
	end := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			for time.Now().Before(end) {
				req, _ := http.NewRequest("GET", authorize, nil)
				req.Header.Set("X-Forwarded-For", "198.51.100.7")
				res, err := cl.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				mu.Lock()
				statuses[res.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// The burst of 60 is answered at once (400: the client id is
	// unknown); then about one refusal per connection and second.
	if statuses[http.StatusBadRequest] > 63 || statuses[http.StatusTooManyRequests] == 0 || statuses[http.StatusTooManyRequests] > 16*4 {
		t.Errorf("answers in 2 s from 16 connections of one client: %v; want at most 63 × 400 and 1–64 × 429", statuses)
	}
}
