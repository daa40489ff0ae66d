package httpapi

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/webauth"
)

// clientOf is the address a request came from: the TCP peer, or, when the
// peer is one of the trusted proxies, the address the proxies recorded.
// X-Forwarded-For is read from the right: each trusted proxy appends the
// address it received from, so the rightmost address that is not itself
// a trusted proxy is the client; anything left of it was written by the
// client and proves nothing. Without X-Forwarded-For the RFC 7239
// Forwarded header's last for= is used.
func (s *Server) clientOf(r *http.Request) netip.Addr {
	peer := request.RemoteAddr(r)
	if !s.trusted(peer) {
		return peer
	}
	var hops []string
	if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
		for _, v := range xff {
			hops = append(hops, strings.Split(v, ",")...)
		}
	} else {
		for _, v := range r.Header.Values("Forwarded") {
			for _, elem := range strings.Split(v, ",") {
				for _, pair := range strings.Split(elem, ";") {
					if k, val, ok := strings.Cut(strings.TrimSpace(pair), "="); ok && strings.EqualFold(k, "for") {
						hops = append(hops, forwardedNode(val))
					}
				}
			}
		}
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // garbage: the last good address stands
		}
		client = a.Unmap()
		if !s.trusted(client) {
			break
		}
	}
	return client
}

// forwardedNode turns a Forwarded for= value ("192.0.2.1",
// "\"[2001:db8::1]:4711\"") into an address string.
func forwardedNode(v string) string {
	v = strings.Trim(strings.TrimSpace(v), `"`)
	if strings.HasPrefix(v, "[") {
		if end := strings.Index(v, "]"); end > 0 {
			return v[1:end]
		}
	}
	if host, _, err := net.SplitHostPort(v); err == nil {
		return host
	}
	return v
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// anonymousLimits are per-client request budgets for the entry points
// anyone may call without a key: the age flow's authorize request (A1),
// which starts a flow and is the cheapest way to make the service write,
// and the hosted pages of both interfaces. The token buckets refill
// steadily and allow a burst, so a person clicking through a page, its
// polling and a retry never meet them; a flood from one address (or one
// IPv6 /64) does, and waits. Sign-up, login and the console have their
// own, stricter limits (webauth).
type anonymousLimits struct {
	authorize, pages *clientBuckets
}

func newAnonymousLimits(now func() time.Time) anonymousLimits {
	return anonymousLimits{
		// A1: 60 at once, then one a second.
		authorize: newClientBuckets(rate.Every(time.Second), 60, now),
		// Hosted pages, their forms and status polling: 300 at once, then
		// five a second.
		pages: newClientBuckets(rate.Every(200*time.Millisecond), 300, now),
	}
}

// class picks the budget of a path relative to its mount, or nil.
func (l anonymousLimits) class(path string) *clientBuckets {
	switch {
	case path == "/oauth/authorize":
		return l.authorize
	case strings.HasPrefix(path, "/verify/"), strings.HasPrefix(path, "/flow/"), path == "/account" || strings.HasPrefix(path, "/account/"):
		return l.pages
	}
	return nil
}

// clientBuckets holds one token bucket per client key, in the memory of
// one process (as webauth's limiters, for the same reasons).
type clientBuckets struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	lastSweep time.Time
	// logged is when a client's refusal was last logged.
	logged map[string]time.Time
}

// firstRefusal reports whether a refusal of client should be logged: the
// first in a minute.
func (c *clientBuckets) firstRefusal(client netip.Addr) bool {
	key := webauth.ClientKey(client)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if at, ok := c.logged[key]; ok && now.Sub(at) < time.Minute {
		return false
	}
	if len(c.logged) >= maxBuckets {
		clear(c.logged)
	}
	c.logged[key] = now
	return true
}

// maxBuckets bounds the memory of one class: beyond it, full (idle)
// buckets are dropped, and when none is idle new clients are refused.
const maxBuckets = 100_000

func newClientBuckets(limit rate.Limit, burst int, now func() time.Time) *clientBuckets {
	if now == nil {
		now = time.Now
	}
	return &clientBuckets{limit: limit, burst: burst, now: now, buckets: map[string]*rate.Limiter{}, logged: map[string]time.Time{}}
}

// allow takes one token of the client's bucket, or says how long to wait.
func (c *clientBuckets) allow(client netip.Addr) (bool, time.Duration) {
	key := webauth.ClientKey(client)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	b := c.buckets[key]
	if b == nil {
		if len(c.buckets) >= maxBuckets || now.Sub(c.lastSweep) > time.Minute {
			c.sweep(now)
		}
		if len(c.buckets) >= maxBuckets {
			return false, time.Minute
		}
		b = rate.NewLimiter(c.limit, c.burst)
		c.buckets[key] = b
	}
	res := b.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep drops the buckets that are full again: their clients went quiet.
func (c *clientBuckets) sweep(now time.Time) {
	c.lastSweep = now
	for k, b := range c.buckets {
		if b.TokensAt(now) >= float64(c.burst) {
			delete(c.buckets, k)
		}
	}
}

// errTooManyRequests answers a client over its budget.
var errTooManyRequests = &verifyd.Error{Code: verifyd.ETooManyRequests, Message: verifyd.MsgTooManyRequests}

// holdRefusal waits before a refused answer is sent: until the client's
// next token is due (wait), at most Config.RefusalHold, and not at all
// when MaxHeldRefusals answers are held already or the client has gone.
// A client that waits for each answer then gets about one per connection
// and hold; answering at once let one address's 32 connections send 14,000
// requests a second, and their parsing and scheduling cost an integrator's
// B1 70 % of its rate on two cores (docs/reliability.md).
func (s *Server) holdRefusal(ctx context.Context, wait time.Duration) {
	d := min(wait, s.cfg.RefusalHold)
	if d <= 0 || !s.held.TryAcquire(1) {
		return
	}
	defer s.held.Release(1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// retryAfter is the Retry-After value for a wait: whole seconds, at least one.
func retryAfter(d time.Duration) string { return strconv.Itoa(int(d/time.Second) + 1) }
