// Package webhook delivers status-change notifications to integrators:
// one signed POST per attempt, every attempt recorded, with the retry
// schedule that the durable queue (package queue) applies between attempts.
//
// Delivery is at least once. Every attempt of an event carries the same
// body bytes and the same Webhook-Id header, so receivers can de-duplicate.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/netguard"
	"github.com/verifyd/verifyd/signature"
)

// Retry schedule: exponential backoff from BaseDelay, doubling per attempt,
// capped at MaxDelay, with ±20% jitter; at most MaxAttempts attempts and
// never after Deadline from the status change. With these values the 20th
// attempt falls about three days after the first. docs/webhooks.md lists the
// schedule.
const (
	BaseDelay   = 10 * time.Second
	MaxDelay    = 8 * time.Hour
	MaxAttempts = 20
	Deadline    = 72 * time.Hour
	// AttemptTimeout bounds one attempt: connect, send, and the answer.
	AttemptTimeout = 10 * time.Second
	// MaxRetryAfter caps a receiver's Retry-After.
	MaxRetryAfter = 12 * time.Hour
)

// Backoff returns the delay after the given failed attempt (1-based). jitter
// returns a number in [0, 1); rand.Float64 in production.
func Backoff(attempt int, jitter func() float64) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := float64(BaseDelay) * math.Pow(2, float64(attempt-1))
	if d > float64(MaxDelay) {
		d = float64(MaxDelay)
	}
	return time.Duration(d * (0.8 + 0.4*jitter()))
}

// Store is what delivery needs from the database.
type Store interface {
	WebhookEvent(ctx context.Context, id string) (verifyd.WebhookEvent, error)
	PendingBefore(ctx context.Context, e verifyd.WebhookEvent) (bool, error)
	// RecordWebhookAttempt stores an attempt and the event's new state.
	RecordWebhookAttempt(ctx context.Context, a verifyd.WebhookAttempt, state verifyd.WebhookState) error
}

// Secrets returns the secret of an API key, even a revoked one: a
// verification's webhooks stay signed with the key that created it.
type Secrets interface {
	SigningSecret(ctx context.Context, apiKey string) (string, error)
}

// Config configures a Sender.
type Config struct {
	Guard *netguard.Guard
	// Resolver resolves receiver host names for every attempt; the
	// resolved address is what Guard checks and what is dialled. nil means
	// the system's resolver.
	Resolver netguard.Resolver
	// Timeout bounds one attempt (AttemptTimeout when zero).
	Timeout  time.Duration
	Now      func() time.Time
	Logger   *slog.Logger
	Registry prometheus.Registerer
	// PerDestination bounds the attempts in flight to one receiver (host
	// and port) in this process (DefaultPerDestination when zero).
	PerDestination int
}

// DefaultPerDestination is how many attempts one receiver gets at once.
// A slow receiver (one that answers after nine seconds) then holds two of
// the queue's workers, not all of them: the other tenants' events keep
// flowing. Two rather than one, so that a receiver's second verification
// does not wait behind the first one's slow answer.
const DefaultPerDestination = 2

// Sender delivers webhook events.
type Sender struct {
	store   Store
	secrets Secrets
	cfg     Config
	client  *http.Client
	metrics *metrics

	mu       sync.Mutex
	inFlight map[string]int // destination → attempts running
}

// New returns a Sender.
func New(store Store, secrets Secrets, cfg Config) *Sender {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = AttemptTimeout
	}
	if cfg.PerDestination == 0 {
		cfg.PerDestination = DefaultPerDestination
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	transport := &http.Transport{
		// No proxy from the environment: a proxy would dial for us and
		// bypass the address check.
		Proxy:                 nil,
		DialContext:           (&guardedDialer{guard: cfg.Guard, resolver: cfg.Resolver}).DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Sender{
		store: store, secrets: secrets, cfg: cfg, metrics: newMetrics(cfg.Registry),
		client: &http.Client{
			Transport: transport,
			Timeout:   cfg.Timeout,
			// A redirect is an answer, not a 2xx: never follow it.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// RetryAfterError asks for the next attempt no earlier than After, as the
// receiver's Retry-After header said.
type RetryAfterError struct {
	After time.Duration
	Err   error
}

func (e *RetryAfterError) Error() string { return e.Err.Error() }
func (e *RetryAfterError) Unwrap() error { return e.Err }

// WaitError asks to run the job again after After without counting an
// attempt: an earlier event of the same verification is still pending.
type WaitError struct{ After time.Duration }

func (e *WaitError) Error() string { return "waiting for an earlier event: " + e.After.String() }

// ErrGaveUp is returned when an event will not be attempted again.
var ErrGaveUp = errors.New("webhook delivery given up")

// Deliver makes one delivery attempt of an event. It returns nil when the
// receiver answered 2xx (or the event was already delivered), an error to
// be retried otherwise, and an error wrapping ErrGaveUp when the event has
// been marked failed. final says the queue will not try again.
func (s *Sender) Deliver(ctx context.Context, eventID string, attempt int, final bool) error {
	ev, err := s.store.WebhookEvent(ctx, eventID)
	if err != nil {
		return fmt.Errorf("load webhook event %s: %w", eventID, err)
	}
	if ev.State == verifyd.WebhookDelivered {
		return nil // a duplicate job for an event already delivered
	}
	now := s.cfg.Now().UTC()
	// Keep a verification's events in order: while an earlier one is being
	// retried, wait (without using an attempt), checking less often the
	// longer it takes. An earlier event that failed for good does not block.
	if blocked, err := s.store.PendingBefore(ctx, ev); err != nil {
		return err
	} else if blocked && now.Sub(ev.CreatedAt) < Deadline {
		return &WaitError{After: min(max(now.Sub(ev.CreatedAt)/10, 200*time.Millisecond), time.Hour)}
	}
	if now.Sub(ev.CreatedAt) > Deadline {
		final = true
	}
	// A receiver already busy with its share of attempts: wait a moment
	// (without using an attempt) and leave the worker to other receivers.
	dest := destination(ev.URL)
	if !s.take(dest) {
		return &WaitError{After: 500 * time.Millisecond}
	}
	defer s.done(dest)
	secret, err := s.secrets.SigningSecret(ctx, ev.APIKey)
	if err != nil {
		return fmt.Errorf("signing secret for %s: %w", ev.APIKey, err)
	}
	a := verifyd.WebhookAttempt{EventID: ev.ID, Attempt: ev.Attempts + 1, At: now}
	res, sendErr := s.send(ctx, ev, secret, a.Attempt, false)
	a.Latency = s.cfg.Now().Sub(now)
	var retryAfter time.Duration
	state, outcome := verifyd.WebhookPending, "delivered"
	switch {
	case sendErr != nil:
		a.Error = describe(sendErr)
		// The business sees a.Error; the operator's log has the details.
		s.cfg.Logger.InfoContext(ctx, "webhook request failed", "event_id", ev.ID, "attempt", a.Attempt, "err", sendErr)
		outcome = "network_error"
		if errors.Is(sendErr, netguard.ErrBlocked) {
			outcome = "blocked"
		}
	case res.StatusCode >= 200 && res.StatusCode < 300:
		a.StatusCode, state = res.StatusCode, verifyd.WebhookDelivered
	default:
		a.StatusCode, outcome = res.StatusCode, "http_error"
		a.Error = fmt.Sprintf("receiver answered HTTP %d", res.StatusCode)
		retryAfter = parseRetryAfter(res.Header.Get("Retry-After"), now)
	}
	if state != verifyd.WebhookDelivered && final {
		state = verifyd.WebhookFailed
	}
	if err := s.store.RecordWebhookAttempt(ctx, a, state); err != nil {
		return fmt.Errorf("record webhook attempt: %w", err)
	}
	s.metrics.observe(outcome, a.Latency, state, now.Sub(ev.CreatedAt))
	log := s.cfg.Logger.With("event_id", ev.ID, "verification_id", ev.VerificationID, "attempt", a.Attempt,
		"status_code", a.StatusCode, "latency", a.Latency, "state", state)
	switch state {
	case verifyd.WebhookDelivered:
		log.InfoContext(ctx, "webhook delivered")
		return nil
	case verifyd.WebhookFailed:
		log.WarnContext(ctx, "webhook failed for good", "error", a.Error)
		return fmt.Errorf("%w: %s", ErrGaveUp, a.Error)
	}
	log.InfoContext(ctx, "webhook attempt failed", "error", a.Error)
	err = errors.New(a.Error)
	if retryAfter > 0 {
		return &RetryAfterError{After: retryAfter, Err: err}
	}
	return err
}

// send makes the HTTP request and drains the answer.
func (s *Sender) send(ctx context.Context, ev verifyd.WebhookEvent, secret string, attempt int, test bool) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ev.URL, bytes.NewReader(ev.Payload))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Authorization", signature.Header(ev.APIKey, signature.Sign(secret, ev.Payload)))
	h.Set("User-Agent", "verifyd-webhooks/1")
	// Standard Webhooks-style metadata: a stable id for de-duplication, the
	// time of this attempt, and which attempt it is.
	h.Set("Webhook-Id", ev.ID)
	h.Set("Webhook-Timestamp", strconv.FormatInt(s.cfg.Now().Unix(), 10))
	h.Set("Webhook-Attempt", strconv.Itoa(attempt))
	if test {
		// A test event reports no status change (Tester.Send).
		h.Set("Webhook-Test", "true")
	}
	res, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	return res, nil
}

// guardedDialer resolves the receiver's host itself and dials the
// resolved addresses with the guard's check, so the address checked is
// the address connected to, on every attempt (no DNS rebinding window).
type guardedDialer struct {
	guard    *netguard.Guard
	resolver netguard.Resolver
}

func (d *guardedDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = d.resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: d.guard.Control}
	var errs []error
	for _, ip := range ips {
		conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// parseRetryAfter reads a Retry-After header in seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.Atoi(v); err == nil {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d <= 0 {
		return 0
	}
	return min(d, MaxRetryAfter)
}

// Jitter is the production jitter source for Backoff.
func Jitter() float64 { return rand.Float64() }

type metrics struct {
	attempts *prometheus.CounterVec
	attempt  prometheus.Histogram
	latency  prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verifyd_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome (delivered, http_error, network_error, blocked).",
		}, []string{"outcome"}),
		attempt: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "verifyd_webhook_attempt_duration_seconds",
			Help:    "Duration of one webhook delivery attempt.",
			Buckets: prometheus.DefBuckets,
		}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "verifyd_webhook_delivery_latency_seconds",
			Help:    "Time from a status change to its successful delivery.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400},
		}),
	}
	if reg != nil {
		reg.MustRegister(m.attempts, m.attempt, m.latency)
	}
	return m
}

func (m *metrics) observe(outcome string, d time.Duration, state verifyd.WebhookState, sinceChange time.Duration) {
	m.attempts.WithLabelValues(outcome).Inc()
	m.attempt.Observe(d.Seconds())
	if state == verifyd.WebhookDelivered {
		m.latency.Observe(sinceChange.Seconds())
	}
}

// destination is the receiver a webhook URL names: its host and port.
func destination(webhook string) string {
	u, err := url.Parse(webhook)
	if err != nil {
		return webhook
	}
	return strings.ToLower(u.Host)
}

// take claims one of the destination's attempt slots.
func (s *Sender) take(dest string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight == nil {
		s.inFlight = map[string]int{}
	}
	if s.inFlight[dest] >= s.cfg.PerDestination {
		return false
	}
	s.inFlight[dest]++
	return true
}

func (s *Sender) done(dest string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight[dest]--; s.inFlight[dest] <= 0 {
		delete(s.inFlight, dest)
	}
}
