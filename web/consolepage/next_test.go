package consolepage

import (
	"testing"
	"time"
)

// TestSafeNext: a post-login destination stays inside the console; any
// way out (another host, a scheme, a backslash, dot segments) lands on
// the queue.
func TestSafeNext(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/console":                     "/console",
		"/console/verifications/abc":   "/console/verifications/abc",
		"":                             "/console",
		"//evil.example/console":       "/console",
		"https://evil.example/console": "/console",
		"/console/../admin":            "/console",
		"/console\\evil":               "/console",
		"/console//evil.example":       "/console",
		"/console?x=1":                 "/console",
		"/consolex":                    "/console",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHumanDuration: durations read the way a person says them.
func TestHumanDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		30 * time.Second:           "under a minute",
		5 * time.Minute:            "5 min",
		26*time.Hour + time.Minute: "26 h 1 min",
		75 * time.Hour:             "3 days 3 h",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
