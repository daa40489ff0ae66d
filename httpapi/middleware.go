package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verifyd/verifyd/httpapi/request"
)

// logger returns the server's logger with the request id attached.
func (s *Server) logger(r *http.Request) *slog.Logger {
	return request.Logger(s.deps.Logger, r)
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// observe is the outermost middleware: it assigns a request id (keeping a
// well-formed X-Request-Id from a proxy), turns panics into SPEC's 500 body,
// and records a log line and metrics for every request.
func (s *Server) observe(w http.ResponseWriter, r *http.Request, next http.HandlerFunc) {
	start := time.Now()
	info := &request.Info{ID: r.Header.Get("X-Request-Id"), Client: s.clientOf(r)}
	if !requestIDPattern.MatchString(info.ID) {
		var b [12]byte
		_, _ = rand.Read(b[:])
		info.ID = hex.EncodeToString(b[:])
	}
	w.Header().Set("X-Request-Id", info.ID)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	rec := &statusRecorder{ResponseWriter: w}
	r = r.WithContext(request.WithInfo(r.Context(), info))
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logger(r).ErrorContext(r.Context(), "panic", slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			if rec.status == 0 {
				s.writeError(rec, r, fmt.Errorf("panic: %v", p))
			}
		}
		elapsed := time.Since(start)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		s.metrics.observe(info, r.Method, status, elapsed)
		// Hosted-page paths carry the customer's bearer token, and the age
		// flow's the authorize request id: log the route pattern instead of
		// the path for those.
		path := r.URL.Path
		if strings.Contains(info.Route, "{token}") || strings.HasPrefix(info.Route, "/flow/{id}") {
			path = info.Route
		}
		if info.Quiet {
			return
		}
		s.logger(r).LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", path),
			slog.String("mount", info.Mount), slog.String("route", info.Route), slog.String("api_key", info.APIKey),
			slog.String("client", info.Client.String()),
			slog.Int("status", status), slog.Int("bytes", rec.bytes),
			slog.Duration("duration", elapsed))
	}()
	next(rec, r)
}

// httpMetrics are the request metrics served on /metrics.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics(reg *prometheus.Registry) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verifyd_http_requests_total",
			Help: "HTTP requests by mount, route, method and status code.",
		}, []string{"mount", "route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "verifyd_http_request_duration_seconds",
			Help:    "HTTP request latency by mount and route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"mount", "route", "method"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.duration)
	}
	return m
}

func (m *httpMetrics) observe(info *request.Info, method string, status int, d time.Duration) {
	route := info.Route
	if route == "" {
		route = "unmatched"
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
	default:
		method = "OTHER" // arbitrary methods must not create label values
	}
	m.requests.WithLabelValues(info.Mount, route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(info.Mount, route, method).Observe(d.Seconds())
}
