package layout

import (
	"net/http"
	"strings"

	"github.com/verifyd/verifyd/httpapi/request"
)

// Protect wraps the routes of a page set with sessions (the console, the
// dashboard): a cross-origin POST is answered by deny before it reaches
// them (a second layer under the CSRF tokens), and the matched route is
// recorded for logs and metrics.
func Protect(mux http.Handler, deny http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(deny)
	h := cop.Handler(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Pattern != "" {
			request.InfoOf(r.Context()).Route = r.Pattern
		}
	})
}

// SafeNext keeps a post-login destination inside a page set at base
// ("/console"): base itself or a path below it, without a query, a
// fragment, "//" or "/..", so it can only name a page of the set; base
// otherwise.
func SafeNext(next, base string) string {
	if (next == base || strings.HasPrefix(next, base+"/")) && !strings.ContainsAny(next, "\\?#") &&
		!strings.Contains(next, "//") && !strings.Contains(next, "/..") {
		return next
	}
	return base
}
