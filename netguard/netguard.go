// Package netguard keeps webhooks from reaching internal networks (SSRF).
//
// A webhook URL is checked twice: when a verification is created (its host
// is a literal address, a local name, or resolves to an internal address:
// refused) and on every delivery attempt, on the address actually dialled.
// The second check is what defeats DNS rebinding: a name that resolved to a
// public address at creation and to 127.0.0.1 later is refused at connect.
//
// The address classification comes from code.dny.dev/ssrf, which tracks
// IANA's special-purpose address registries; this package only adds the
// policy (which checks run when) and local host names.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// ErrBlocked is returned for destinations on internal networks.
var ErrBlocked = errors.New("destination is on an internal network")

// Resolver looks up host names; net.DefaultResolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard decides which webhook destinations are allowed.
type Guard struct {
	// allowInternal disables every check (verifyd serve --dev), so local
	// receivers work during development.
	allowInternal bool
	guardian      *ssrf.Guardian
	resolver      Resolver
}

// New returns a Guard. allowInternal turns it off; resolver may be nil for
// net.DefaultResolver.
func New(allowInternal bool, resolver Resolver) *Guard {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	return &Guard{allowInternal: allowInternal, guardian: ssrf.New(ssrf.WithAnyPort()), resolver: resolver}
}

// AllowsInternal reports whether checks are off.
func (g *Guard) AllowsInternal() bool { return g.allowInternal }

// localSuffixes are names that never leave the host or the site network.
var localSuffixes = []string{".localhost", ".local", ".internal", ".home.arpa", ".lan"}

// CheckURL checks a webhook URL at creation. A name that does not resolve
// is accepted: it may be created before its DNS record, and every delivery
// attempt checks the address it dials anyway.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	if g.allowInternal {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.checkAddr(ip)
	}
	if host == "localhost" || !strings.Contains(host, ".") {
		return ErrBlocked
	}
	for _, s := range localSuffixes {
		if strings.HasSuffix(host, s) {
			return ErrBlocked
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if err := g.checkAddr(a); err != nil {
			return err
		}
	}
	return nil
}

func (g *Guard) checkAddr(ip netip.Addr) error {
	if err := g.guardian.SafeAddr(ip.Unmap()); err != nil {
		return fmt.Errorf("%w: %s", ErrBlocked, ip)
	}
	return nil
}

// Control is a net.Dialer Control function that refuses connections to
// internal addresses. It runs after name resolution, on the address being
// dialled.
func (g *Guard) Control(network, address string, _ syscall.RawConn) error {
	if g.allowInternal {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBlocked, address)
	}
	return g.checkAddr(ap.Addr())
}
