package webhook

import (
	"testing"
	"time"
)

// FuzzParseRetryAfter: any Retry-After value gives a wait that is never
// negative, without a panic.
func FuzzParseRetryAfter(f *testing.F) {
	f.Add("120")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add("-1")
	f.Add("99999999999999999999")
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		if d := parseRetryAfter(v, now); d < 0 {
			t.Fatalf("%q: %v", v, d)
		}
	})
}
