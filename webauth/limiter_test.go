package webauth_test

import (
	"testing"
	"time"

	"github.com/verifyd/verifyd/webauth"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func TestLimiterSlidingWindow(t *testing.T) {
	t.Parallel()
	c := newClock()
	l := webauth.NewLimiter(3, 15*time.Minute, c.now)
	for i := range 3 {
		if ok, _ := l.Take("ada"); !ok {
			t.Fatalf("attempt %d refused", i+1)
		}
		c.add(time.Minute)
	}
	ok, wait := l.Take("ada")
	if ok || wait != 12*time.Minute {
		t.Fatalf("4th attempt: ok=%v wait=%v, want refused for 12m", ok, wait)
	}
	if ok, _ := l.Take("bob"); !ok {
		t.Fatal("another key is limited too")
	}
	// A refused attempt does not extend the lockout.
	c.add(12 * time.Minute)
	if ok, _ := l.Take("ada"); !ok {
		t.Fatal("still refused after the oldest attempt left the window")
	}
	if ok, _ := l.Take("ada"); ok {
		t.Fatal("a second attempt was allowed although only one left the window")
	}
}

func TestLimiterForgiveAndReset(t *testing.T) {
	t.Parallel()
	c := newClock()
	l := webauth.NewLimiter(2, time.Hour, c.now)
	l.Take("ip")
	l.Take("ip")
	l.Forgive("ip")
	if ok, _ := l.Take("ip"); !ok {
		t.Fatal("a forgiven attempt still counts")
	}
	if ok, _ := l.Take("ip"); ok {
		t.Fatal("limit not reached after two counted attempts")
	}
	l.Reset("ip")
	if ok, _ := l.Take("ip"); !ok {
		t.Fatal("refused after Reset")
	}
	l.Forgive("unknown") // no panic
}
