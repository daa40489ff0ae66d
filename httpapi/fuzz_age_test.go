package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/verifyd/verifyd/internal/testserver"
)

// FuzzAuthorize: any A1 query is answered with SPEC's 302 or one of A1's
// error rows, never another status or a redirect to anywhere but the
// hosted flow; and every flow it starts opens (200) on the flow page.
func FuzzAuthorize(f *testing.F) {
	ts := testserver.Start(f, "sqlite", testserver.Options{Dev: true,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	cred := ts.Credential(age, prd)
	if err := ts.Tenants.AddRedirects(context.Background(), cred, []string{oauthCallback}); err != nil {
		f.Fatal(err)
	}
	base := ts.BaseURL(age, prd)
	valid := url.Values{"client_id": {cred.APIKey}, "scope": {"adult"}, "redirect_uri": {oauthCallback}, "country": {"gb"},
		"state": {"s"}, "user_id": {"u"}}
	f.Add(valid.Encode())
	f.Add(valid.Encode() + "&code_challenge=" + strings.Repeat("a", 43) + "&code_challenge_method=S256")
	f.Add(valid.Encode() + "&country=de")
	f.Add("client_id=" + cred.APIKey + "&scope=adult&redirect_uri=%zz")
	f.Add("client_id=" + cred.APIKey + "&scope=adult&country=fr&redirect_uri=https://evil.example/")
	f.Add(valid.Encode() + "&state=%00")
	want := map[int][]string{400: {"invalid client id", "invalid params", "invalid scope"}, 401: {"Unauthorized redirect_uri"}}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var n atomic.Uint32
	f.Fuzz(func(t *testing.T, query string) {
		// Each input from its own client address: the A1 limit is per client.
		i := n.Add(1)
		get := func(u string) (*http.Response, []byte) {
			req, err := http.NewRequest("GET", u, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", byte(i>>16), byte(i>>8), byte(i)))
			res, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res, b
		}
		u, err := url.Parse(base + "/oauth/authorize")
		if err != nil {
			t.Fatal(err)
		}
		u.RawQuery = query
		if strings.ContainsAny(query, "# \x7f") || strings.ContainsFunc(query, func(r rune) bool { return r < 0x20 }) {
			return // not a request line a client can send
		}
		res, body := get(u.String())
		switch res.StatusCode {
		case http.StatusFound:
			loc := res.Header.Get("Location")
			flow, ok := strings.CutPrefix(loc, base+"/flow/af_")
			if !ok || flow == "" || strings.ContainsAny(flow, "/?#") {
				t.Fatalf("A1 %q redirects to %q", query, loc)
			}
			if page, b := get(loc); page.StatusCode != http.StatusOK {
				t.Fatalf("the flow of %q answers %d: %.300s", query, page.StatusCode, b)
			}
		case 400, 401:
			var e struct {
				Message    string `json:"message"`
				StatusCode int    `json:"status_code"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.StatusCode != res.StatusCode || !contains(want[res.StatusCode], e.Message) {
				t.Fatalf("A1 %q: %d %s", query, res.StatusCode, body)
			}
		default:
			t.Fatalf("A1 %q: %d %s", query, res.StatusCode, body)
		}
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
