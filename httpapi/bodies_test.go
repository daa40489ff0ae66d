package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/testserver"
)

// TestLargeBodiesInFlightAreBounded: B2 bodies are read only while their
// bytes fit in MaxBodiesInFlight (128 MiB): with four 30 MiB bodies being
// read, a fifth is not read until one of them ends. Without the bound all
// five would be held in memory at once.
func TestLargeBodiesInFlightAreBounded(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	cred := ts.Credential(idp, prd)
	url := ts.BaseURL(idp, prd) + "/api/v1/identity-verification/selfie-document-validation"
	const size = 30 << 20
	type upload struct {
		w    *io.PipeWriter
		sent atomic.Int64
		done chan struct{}
	}
	var all []*upload
	t.Cleanup(func() {
		// Before the server's cleanup, which waits for its requests.
		for _, u := range all {
			u.w.CloseWithError(io.ErrUnexpectedEOF)
		}
	})
	start := func() *upload {
		pr, pw := io.Pipe()
		u := &upload{w: pw, done: make(chan struct{})}
		all = append(all, u)
		req, err := http.NewRequest("POST", url, pr)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = size
		// A real key, so the body is read; the signature is checked
		// after it and fails.
		req.Header.Set("Authorization", "hmac "+cred.APIKey+":"+strings.Repeat("0", 64))
		go func() {
			defer close(u.done)
			// One connection per upload.
			res, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
			if err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}()
		return u
	}
	// send writes n zero bytes to the upload as the server takes them.
	send := func(u *upload, n int) {
		chunk := make([]byte, 64<<10)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := u.w.Write(chunk[:k]); err != nil {
				return
			}
			u.sent.Add(int64(k))
			n -= k
		}
	}
	var first []*upload
	for range 4 {
		u := start()
		// Admitted: more than loopback's socket buffers hold (a few MiB)
		// can only have been written once the server reads this body, so
		// the four are surely in flight before the fifth starts.
		send(u, 16<<20)
		first = append(first, u)
	}
	fifth := start()
	go func() {
		send(fifth, size)
		fifth.w.Close()
	}()
	time.Sleep(1500 * time.Millisecond)
	if n := fifth.sent.Load(); n >= size {
		t.Fatalf("the fifth 30 MiB body was read while four were in flight (%d bytes taken)", n)
	}
	// One of the four ends: the fifth is read.
	first[0].w.CloseWithError(io.ErrUnexpectedEOF)
	select {
	case <-fifth.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the fifth body was not read after one of the four ended (%d bytes taken)", fifth.sent.Load())
	}
	if n := fifth.sent.Load(); n != size {
		t.Errorf("the fifth upload ended after %d of %d bytes", n, size)
	}
}
