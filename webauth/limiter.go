package webauth

import (
	"sync"
	"time"
)

// Limiter counts attempts per key (a username, a client address) in a
// sliding window. It lives in the memory of one process: several replicas
// each keep their own counts, and a restart forgets them. That is a
// deliberate trade: failed logins are hot, short-lived data, and writing
// each one to the database would let anyone turn guessing into database
// write load (SQLite has one writer). With R replicas the effective limit
// is R times the configured one, which argon2id's cost and the minimum
// password length still make far too slow for guessing.
type Limiter struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu        sync.Mutex
	hits      map[string][]time.Time
	lastSweep time.Time
}

// maxKeys bounds the limiter's memory. When that many keys have recent
// attempts (a distributed attack), attempts under new keys are refused
// until old ones age out: the console fails closed.
const maxKeys = 100_000

// NewLimiter allows max attempts per key in any window of the given
// length.
func NewLimiter(max int, window time.Duration, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{max: max, window: window, now: now, hits: map[string][]time.Time{}}
}

// recent drops a key's attempts older than the window; l.mu is held.
func (l *Limiter) recent(key string, now time.Time) []time.Time {
	h := l.hits[key]
	i := 0
	for i < len(h) && !h[i].After(now.Add(-l.window)) {
		i++
	}
	h = h[i:]
	if len(h) == 0 {
		delete(l.hits, key)
		return nil
	}
	l.hits[key] = h
	return h
}

func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute && len(l.hits) < maxKeys {
		return
	}
	l.lastSweep = now
	for k := range l.hits {
		l.recent(k, now)
	}
}

// Take records an attempt under key, before its outcome is known (so a
// burst of concurrent attempts is counted too), and reports whether it may
// go ahead. When it may not, nothing is recorded and retryAfter says when
// the oldest attempt leaves the window.
func (l *Limiter) Take(key string) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	h := l.recent(key, now)
	if len(h) >= l.max {
		return false, h[len(h)-l.max].Add(l.window).Sub(now)
	}
	if h == nil && len(l.hits) >= maxKeys {
		return false, l.window
	}
	l.hits[key] = append(h, now)
	return true, 0
}

// Forgive removes the most recent attempt under key: it succeeded, so it
// does not count against the client.
func (l *Limiter) Forgive(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h := l.hits[key]; len(h) > 0 {
		if len(h) == 1 {
			delete(l.hits, key)
		} else {
			l.hits[key] = h[:len(h)-1]
		}
	}
}

// Reset forgets every attempt under key.
func (l *Limiter) Reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.hits, key)
}
