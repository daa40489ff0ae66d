package testserver

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer safe for concurrent writers and a reader: a
// server's logs (Options.Logger) or a command's output, read while it runs.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor waits up to 10 s until the buffer holds every part, and fails
// the test otherwise. A request's log line is written after its response,
// so a client can have read the response before the line exists.
func (s *Buffer) WaitFor(t testing.TB, parts ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		text := s.String()
		missing := ""
		for _, p := range parts {
			if !strings.Contains(text, p) {
				missing = p
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not logged: %s\nlogs:\n%s", missing, text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
