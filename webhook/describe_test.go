package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/netguard"
)

// TestDescribe: each kind of delivery failure is told in words, and none
// carries the address or the text of the error it came from.
func TestDescribe(t *testing.T) {
	post := func(err error) error { return &url.Error{Op: "Post", URL: "http://10.0.3.4:8080/hook", Err: err} }
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"blocked", post(fmt.Errorf("%w: %s", netguard.ErrBlocked, "10.0.3.4")), "refused: the destination is on an internal network"},
		{"unknown host", post(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "db.corp", IsNotFound: true}}), "the host name could not be resolved"},
		{"timeout", post(context.DeadlineExceeded), "the receiver did not answer in time"},
		{"anything else", post(errors.New("10.0.3.4: something odd")), "the receiver could not be reached"},
	} {
		got := describe(c.err)
		if got != c.want || strings.Contains(got, "10.0.3.4") || strings.Contains(got, "db.corp") {
			t.Errorf("%s: describe = %q, want %q", c.name, got, c.want)
		}
	}
}
