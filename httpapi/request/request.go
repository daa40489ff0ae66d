// Package request is the request-level infrastructure that the API
// (package httpapi) and the server-rendered page sets (packages under web/)
// share: the mount a request came through, the request's id, route and
// client address as the observing middleware works them out, and the one
// mapping of errors to HTTP statuses and SPEC.md's JSON error body. It holds
// no routes and no handlers: those are listed in httpapi/routes.go.
package request

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/verifyd/verifyd"
)

// Mount is one (interface, environment) pair served under a public base
// URL. Requests are routed to a mount by host and path prefix.
type Mount struct {
	Interface   verifyd.Interface
	Environment verifyd.Environment
	BaseURL     *url.URL
}

// Name returns a short label such as "identity-sandbox".
func (m Mount) Name() string { return string(m.Interface) + "-" + string(m.Environment) }

// Prefix is the base URL's path without its trailing slash ("" for a mount
// at the root of its host).
func (m Mount) Prefix() string { return strings.TrimSuffix(m.BaseURL.Path, "/") }

// Mounted is what handlers learn about the mount a request came through.
type Mounted struct {
	Mount
	// FullPath and FullEscapedPath are the path before the mount prefix
	// was removed, which some clients sign.
	FullPath, FullEscapedPath string
}

type mountKey struct{}

// WithMount records the mount of r (whose path still carries the mount's
// prefix) in ctx.
func WithMount(ctx context.Context, m Mount, r *http.Request) context.Context {
	return context.WithValue(ctx, mountKey{}, &Mounted{Mount: m, FullPath: r.URL.Path, FullEscapedPath: r.URL.EscapedPath()})
}

// MountOf returns the mount recorded by WithMount, nil outside a mount.
func MountOf(ctx context.Context) *Mounted {
	m, _ := ctx.Value(mountKey{}).(*Mounted)
	return m
}

// Info is filled in while a request is handled and read by the observing
// middleware once it is done.
type Info struct {
	ID    string
	Mount string
	// Route is the matched pattern, for logs and metrics.
	Route string
	// APIKey is the key that authenticated the request, for the logs.
	APIKey string
	// Client is the client's address, behind trusted proxies too.
	Client netip.Addr
	// Quiet leaves the request out of the logs (a rate-limited flood:
	// one line per refused request would make the flood cost CPU and
	// disk; the limiter logs one line per client and minute instead).
	Quiet bool
}

type infoKey struct{}

// WithInfo records the request's Info in ctx.
func WithInfo(ctx context.Context, i *Info) context.Context {
	return context.WithValue(ctx, infoKey{}, i)
}

// InfoOf returns the request's Info; outside the middleware a fresh one,
// so that writes to it are harmless.
func InfoOf(ctx context.Context) *Info {
	if i, ok := ctx.Value(infoKey{}).(*Info); ok {
		return i
	}
	return &Info{}
}

// Logger returns base with the request's id attached.
func Logger(base *slog.Logger, r *http.Request) *slog.Logger {
	return base.With(slog.String("request_id", InfoOf(r.Context()).ID))
}

// ClientAddr is the client address the observing middleware worked out
// (trusted proxies' forwarding headers included), else the TCP peer.
func ClientAddr(r *http.Request) netip.Addr {
	if a := InfoOf(r.Context()).Client; a.IsValid() {
		return a
	}
	return RemoteAddr(r)
}

// RemoteAddr is the TCP peer's address.
func RemoteAddr(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}
