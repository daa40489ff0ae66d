// Package httpapi is the HTTP interface of verifyd: the four mounts
// (identity and age, production and sandbox) with SPEC.md's paths under each,
// the operational endpoints, and the middleware every request passes through.
// Handlers decode, call a use-case service and encode; they never touch SQL.
// Every route is listed in routes.go.
package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/semaphore"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/console"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/tenant"
	"github.com/verifyd/verifyd/web/agepages"
	"github.com/verifyd/verifyd/web/consolepage"
	"github.com/verifyd/verifyd/web/dashpages"
	"github.com/verifyd/verifyd/web/hosted"
	"github.com/verifyd/verifyd/webhook"
)

// Mount is one (interface, environment) pair served under a public base
// URL (request.Mount, where the page sets read it too).
type Mount = request.Mount

// DefaultMounts returns the four mounts of a single listener:
// /identity and /age for production, /sandbox/identity and /sandbox/age for
// the sandbox, under the given origin (e.g. http://127.0.0.1:8080).
func DefaultMounts(origin string) (map[string]string, error) {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("invalid origin %q", origin)
	}
	o := strings.TrimSuffix(origin, "/")
	return map[string]string{
		"identity-production": o + "/identity",
		"identity-sandbox":    o + "/sandbox/identity",
		"age-production":      o + "/age",
		"age-sandbox":         o + "/sandbox/age",
	}, nil
}

// ParseMounts turns base URLs keyed by Mount.Name into mounts.
func ParseMounts(bases map[string]string) ([]Mount, error) {
	var out []Mount
	for _, i := range verifyd.Interfaces {
		for _, e := range verifyd.Environments {
			m := Mount{Interface: i, Environment: e}
			raw, ok := bases[m.Name()]
			if !ok {
				return nil, fmt.Errorf("no base URL for %s", m.Name())
			}
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
				return nil, fmt.Errorf("base URL of %s must be an absolute http(s) URL without query, got %q", m.Name(), raw)
			}
			m.BaseURL = u
			out = append(out, m)
		}
	}
	for a := range out {
		for b := range a {
			if strings.EqualFold(out[a].BaseURL.Host, out[b].BaseURL.Host) && out[a].Prefix() == out[b].Prefix() {
				return nil, fmt.Errorf("%s and %s have the same base URL", out[a].Name(), out[b].Name())
			}
		}
	}
	return out, nil
}

// Config is the HTTP layer's configuration.
type Config struct {
	Mounts []Mount
	// Dev relaxes rules meant for production (http webhooks).
	Dev bool
	// MaxBodyBytes limits request bodies; MaxSubmissionBytes limits B2, which
	// carries several base64 images.
	MaxBodyBytes       int64
	MaxSubmissionBytes int64
	// MaxBodiesInFlight bounds the bytes of the large request bodies
	// (above MaxBodyBytes: B2's images) being read and handled at once,
	// 128 MiB when zero. A body holds about three times its size while it
	// is parsed and stored, so sixteen 40 MiB submissions at once would
	// otherwise take gigabytes; past the bound a request waits for its
	// turn (within the server's read timeout).
	MaxBodiesInFlight int64
	// TrustedProxies are the addresses of the reverse proxies in front of
	// the service: only from them are X-Forwarded-For and Forwarded
	// believed (clientOf). Rate limits and lock-outs key on the result.
	TrustedProxies []netip.Prefix
	// Now is the clock of the rate limits (time.Now when nil).
	Now func() time.Time
	// RefusalHold is the longest an answer refused by the anonymous
	// limits is held before it is sent: until the client's next token is
	// due, at most this long (1 s when zero; negative sends it at once).
	// A flooding client that waits for each answer, as HTTP/1.1 clients
	// on a connection do, is slowed to about one request per connection
	// and hold instead of costing the server CPU at the rate it can send.
	RefusalHold time.Duration
	// MaxHeldRefusals bounds the refused answers held at once (2048 when
	// zero, about 20 KiB each); beyond it they are sent at once.
	MaxHeldRefusals int64
	// MetricsToken, when set, serves /metrics to requests carrying
	// "Authorization: Bearer TOKEN". Without it /metrics is served only
	// in development mode: metrics name routes, volumes and failures,
	// which are nobody's business on the public listener (verifyd serve
	// --metrics-listen serves them on a private one).
	MetricsToken string
}

// Pinger reports whether a dependency is ready.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps are the services the handlers call.
type Deps struct {
	Tenants  *tenant.Service
	Identity *identity.Service
	Ready    Pinger
	Logger   *slog.Logger
	// Registry receives the HTTP metrics and serves /metrics.
	Registry *prometheus.Registry
	// Console is the review console served at /console (none when nil).
	Console *console.Service
	// Age is the OAuth side of the age interface (SPEC A1–A3).
	Age *age.Service
	// AgeFlow is the hosted age-verification pages at /flow/{id} (none
	// when nil).
	AgeFlow *agehosted.Service
	// Branding shows businesses' branding and the data protection notice
	// on the hosted pages (nil: none).
	Branding *branding.Service
	// WebhookTests sends the dashboard's test events.
	WebhookTests *webhook.Tester
	// Dashboard is the business dashboard served at /dashboard (none when
	// nil).
	Dashboard *dashboard.Service
}

// Server is the http.Handler of the whole service.
type Server struct {
	cfg     Config
	deps    Deps
	mounts  []mountHandler
	ops     *http.ServeMux
	metrics *httpMetrics
	limits  anonymousLimits
	// bodies is MaxBodiesInFlight's semaphore.
	bodies *semaphore.Weighted
	// held is MaxHeldRefusals' semaphore.
	held *semaphore.Weighted
	// hosted is the identity hosted page.
	hosted *hosted.Pages
	// age is the age flow's pages (nil without Deps.AgeFlow).
	age *agepages.Pages
	// console is the review console's pages (nil without Deps.Console).
	console *consolepage.Pages
	// dashboard is the business dashboard's pages (nil without
	// Deps.Dashboard).
	dashboard *dashpages.Pages
}

type mountHandler struct {
	Mount
	mux *http.ServeMux
}

// New builds the handler for cfg.
func New(cfg Config, deps Deps) *Server {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.MaxSubmissionBytes == 0 {
		cfg.MaxSubmissionBytes = 40 << 20
	}
	if cfg.MaxBodiesInFlight == 0 {
		cfg.MaxBodiesInFlight = 128 << 20
	}
	if cfg.RefusalHold == 0 {
		cfg.RefusalHold = time.Second
	}
	if cfg.MaxHeldRefusals == 0 {
		cfg.MaxHeldRefusals = 2048
	}
	s := &Server{cfg: cfg, deps: deps, metrics: newHTTPMetrics(deps.Registry), limits: newAnonymousLimits(cfg.Now),
		bodies: semaphore.NewWeighted(cfg.MaxBodiesInFlight), held: semaphore.NewWeighted(cfg.MaxHeldRefusals)}
	s.hosted = &hosted.Pages{Identity: deps.Identity, Branding: deps.Branding, Logger: deps.Logger}
	if deps.AgeFlow != nil {
		s.age = &agepages.Pages{Flow: deps.AgeFlow, Branding: deps.Branding, Logger: deps.Logger, Dev: cfg.Dev}
	}
	if deps.Console != nil {
		s.console = &consolepage.Pages{Console: deps.Console, Logger: deps.Logger, Dev: cfg.Dev}
	}
	if deps.Dashboard != nil {
		s.dashboard = dashpages.New(deps.Dashboard, dashpages.Config{Logger: deps.Logger, Dev: cfg.Dev,
			Data: dashpages.Data{Identity: deps.Identity, Branding: deps.Branding, WebhookTests: deps.WebhookTests}})
	}
	for _, m := range cfg.Mounts {
		s.mounts = append(s.mounts, mountHandler{Mount: m, mux: s.mountRoutes(m)})
	}
	// Longest prefix first, so /sandbox/identity wins over a root mount.
	sort.SliceStable(s.mounts, func(a, b int) bool { return len(s.mounts[a].Prefix()) > len(s.mounts[b].Prefix()) })
	s.ops = s.opsRoutes()
	return s
}

// ServeHTTP routes a request to the operational endpoints or to a mount,
// through the common middleware.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.observe(w, r, s.dispatch)
}

// dispatch finds the handler of a request and records its route for logs
// and metrics.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	info := request.InfoOf(r.Context())
	if h, pattern := s.ops.Handler(r); pattern != "" {
		info.Route = pattern
		h.ServeHTTP(w, r)
		return
	}
	m, rest, ok := s.findMount(r)
	if alias, isAlias := wellKnownAlias(r.URL.Path); isAlias {
		// Only the metadata of an age mount whose base path is the
		// issuer's: anything else stays a 404.
		r2 := r.Clone(r.Context())
		r2.URL.Path = alias
		if am, arest, aok := s.findMount(r2); aok && arest == wellKnownOAuth && am.Interface == verifyd.InterfaceAge {
			m, rest, ok, r = am, arest, true, r2
		}
	}
	if !ok {
		info.Route = "unmatched"
		s.writeError(w, r, request.ErrRouteNotFound)
		return
	}
	if c := s.limits.class(rest); c != nil {
		if ok, wait := c.allow(request.ClientAddr(r)); !ok {
			info.Quiet = true
			if c.firstRefusal(request.ClientAddr(r)) {
				s.logger(r).WarnContext(r.Context(), "client rate-limited", "client", request.ClientAddr(r).String(), "path", rest)
			}
			w.Header().Set("Retry-After", retryAfter(wait))
			s.holdRefusal(r.Context(), wait)
			s.writeError(w, r, errTooManyRequests)
			return
		}
	}
	// A shallow copy with a URL of its own, as http.StripPrefix makes:
	// r.Clone also copied every header, a map per request, and no handler
	// changes the request's headers.
	r2 := r.WithContext(request.WithMount(r.Context(), m.Mount, r))
	u := *r.URL
	r2.URL = &u
	r2.URL.Path = rest
	r2.URL.RawPath = ""
	info.Mount = m.Name()
	// ServeHTTP (not Handler) so that path values are set; it records the
	// matched pattern on r2.
	m.mux.ServeHTTP(w, r2)
	info.Route = r2.Pattern
}

// findMount picks the mount for a request: among mounts whose path prefix
// matches, one on the request's host wins; otherwise the longest prefix,
// provided it is not shared by another mount (then only the host can
// decide, and an unknown host gets 404).
func (s *Server) findMount(r *http.Request) (mountHandler, string, bool) {
	host := requestHost(r)
	var candidates []mountHandler
	for _, m := range s.mounts {
		p := m.Prefix()
		if r.URL.Path == p || strings.HasPrefix(r.URL.Path, p+"/") {
			if strings.EqualFold(m.BaseURL.Host, host) {
				return m, strings.TrimPrefix(r.URL.Path, p), true
			}
			candidates = append(candidates, m)
		}
	}
	if len(candidates) == 0 {
		return mountHandler{}, "", false
	}
	best := candidates[0]
	if len(candidates) > 1 && candidates[1].Prefix() == best.Prefix() {
		return mountHandler{}, "", false
	}
	rest := strings.TrimPrefix(r.URL.Path, best.Prefix())
	if rest == "" {
		rest = "/"
	}
	return best, rest, true
}

// requestHost returns the request's host, ignoring the default port.
func requestHost(r *http.Request) string {
	h := r.Host
	if host, port, err := net.SplitHostPort(h); err == nil && (port == "80" || port == "443") {
		h = host
	}
	return h
}
