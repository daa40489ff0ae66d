package layout_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/web/layout"
)

func TestSafeNext(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ next, want string }{
		{"/dashboard", "/dashboard"},
		{"/dashboard/keys", "/dashboard/keys"},
		{"/dashboardx", "/dashboard"},
		{"/console", "/dashboard"},
		{"https://evil.example/dashboard", "/dashboard"},
		{"//evil.example/dashboard/", "/dashboard"},
		{"/dashboard//evil.example", "/dashboard"},
		{"/dashboard/../console", "/dashboard"},
		{"/dashboard/keys?x=1", "/dashboard"},
		{"/dashboard/keys#x", "/dashboard"},
		{`/dashboard\evil`, "/dashboard"},
		{"", "/dashboard"},
	} {
		if got := layout.SafeNext(c.next, "/dashboard"); got != c.want {
			t.Errorf("SafeNext(%q) = %q, want %q", c.next, got, c.want)
		}
	}
}

// TestProtect: a cross-site POST gets the deny answer and never reaches
// the routes; a same-origin one does, and its route is recorded.
func TestProtect(t *testing.T) {
	t.Parallel()
	reached := 0
	mux := http.NewServeMux()
	mux.HandleFunc("POST /pages/x", func(w http.ResponseWriter, r *http.Request) { reached++ })
	h := layout.Protect(mux, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}))
	for _, c := range []struct {
		site    string
		status  int
		reached int
	}{
		{"cross-site", http.StatusTeapot, 0},
		{"same-origin", http.StatusOK, 1},
	} {
		info := &request.Info{}
		r := httptest.NewRequest("POST", "/pages/x", nil)
		r = r.WithContext(request.WithInfo(r.Context(), info))
		r.Header.Set("Sec-Fetch-Site", c.site)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.status || reached != c.reached {
			t.Errorf("%s POST: %d, reached %d times; want %d and %d", c.site, w.Code, reached, c.status, c.reached)
		}
		if c.reached == 1 && info.Route != "POST /pages/x" {
			t.Errorf("route recorded %q", info.Route)
		}
	}
}
