package httpapi

import (
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestClientOf(t *testing.T) {
	s := &Server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}}}
	for _, c := range []struct {
		name, peer string
		headers    map[string]string
		want       string
	}{
		{"no proxy", "203.0.113.7:5000", nil, "203.0.113.7"},
		{"an untrusted peer's header is ignored", "203.0.113.7:5000", map[string]string{"X-Forwarded-For": "198.51.100.1"}, "203.0.113.7"},
		{"a trusted proxy's client", "10.1.2.3:443", map[string]string{"X-Forwarded-For": "198.51.100.1"}, "198.51.100.1"},
		{"what the client wrote itself is skipped", "10.1.2.3:443", map[string]string{"X-Forwarded-For": "1.2.3.4, 198.51.100.1"}, "198.51.100.1"},
		{"two trusted proxies", "10.1.2.3:443", map[string]string{"X-Forwarded-For": "198.51.100.1, 10.9.9.9"}, "198.51.100.1"},
		{"garbage keeps the last good hop", "10.1.2.3:443", map[string]string{"X-Forwarded-For": "198.51.100.1, nonsense"}, "10.1.2.3"},
		{"Forwarded", "[::1]:443", map[string]string{"Forwarded": `for=192.0.2.60;proto=https, for="[2001:db8::17]:4711"`}, "2001:db8::17"},
		{"trusted proxy without a header", "10.1.2.3:443", nil, "10.1.2.3"},
		{"an IPv4-mapped peer", "[::ffff:203.0.113.7]:5000", nil, "203.0.113.7"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		for k, v := range c.headers {
			r.Header.Set(k, v)
		}
		if got := s.clientOf(r); got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestClientBuckets(t *testing.T) {
	now := time.Unix(1e9, 0)
	b := newClientBuckets(rate.Every(time.Second), 3, func() time.Time { return now })
	a, other := netip.MustParseAddr("198.51.100.1"), netip.MustParseAddr("198.51.100.2")
	for i := range 3 {
		if ok, _ := b.allow(a); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, wait := b.allow(a)
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("over the burst: %v, wait %v", ok, wait)
	}
	if ok, _ := b.allow(other); !ok {
		t.Fatal("another client was refused")
	}
	// One IPv6 client usually holds a whole /64.
	v6a, v6b := netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::ffff")
	for range 3 {
		b.allow(v6a)
	}
	if ok, _ := b.allow(v6b); ok {
		t.Fatal("another address of the same /64 has a budget of its own")
	}
	now = now.Add(time.Second)
	if ok, _ := b.allow(a); !ok {
		t.Fatal("the bucket did not refill")
	}
	// Idle buckets are swept.
	now = now.Add(time.Hour)
	b.sweep(now)
	if len(b.buckets) != 0 {
		t.Fatalf("%d idle buckets kept", len(b.buckets))
	}
}
