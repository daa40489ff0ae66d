package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verifyd/verifyd"
)

// reqInfo is filled in while a request is handled and read by the
// observing middleware once it is done.
type reqInfo struct {
	id    string
	mount string
	route string
	// apiKey is the key that authenticated the request, for the logs.
	apiKey string
	// client is the client's address (Server.clientOf).
	client netip.Addr
	// quiet leaves the request out of the logs (a rate-limited flood:
	// one line per refused request would make the flood cost CPU and
	// disk; the limiter logs one line per client and minute instead).
	quiet bool
}

type infoKey struct{}

func infoOf(ctx context.Context) *reqInfo {
	if i, ok := ctx.Value(infoKey{}).(*reqInfo); ok {
		return i
	}
	return &reqInfo{}
}

// logger returns the server's logger with the request id attached.
func (s *Server) logger(r *http.Request) *slog.Logger {
	return s.deps.Logger.With(slog.String("request_id", infoOf(r.Context()).id))
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
	info := &reqInfo{id: r.Header.Get("X-Request-Id"), client: s.clientOf(r)}
	if !requestIDPattern.MatchString(info.id) {
		var b [12]byte
		_, _ = rand.Read(b[:])
		info.id = hex.EncodeToString(b[:])
	}
	w.Header().Set("X-Request-Id", info.id)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	rec := &statusRecorder{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
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
		if strings.Contains(info.route, "{token}") || strings.HasPrefix(info.route, "/flow/{id}") {
			path = info.route
		}
		if info.quiet {
			return
		}
		s.logger(r).LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", path),
			slog.String("mount", info.mount), slog.String("route", info.route), slog.String("api_key", info.apiKey),
			slog.String("client", info.client.String()),
			slog.Int("status", status), slog.Int("bytes", rec.bytes),
			slog.Duration("duration", elapsed))
	}()
	next(rec, r)
}

// readBody reads a whole request body up to limit bytes. A longer body is
// ETooLarge; the caller needs the exact bytes because signatures cover them.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errRequestTooLarge
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, errRequestTooLarge
	}
	if err != nil {
		return nil, &verifyd.Error{Code: verifyd.EMalformed, Message: verifyd.MsgMalformed, Err: err}
	}
	return b, nil
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

func (m *httpMetrics) observe(info *reqInfo, method string, status int, d time.Duration) {
	route := info.route
	if route == "" {
		route = "unmatched"
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
	default:
		method = "OTHER" // arbitrary methods must not create label values
	}
	m.requests.WithLabelValues(info.mount, route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(info.mount, route, method).Observe(d.Seconds())
}
