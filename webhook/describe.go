package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"syscall"

	"github.com/verifyd/verifyd/netguard"
)

// describe says in words why a delivery could not be made, for what the
// business sees (the dashboard shows attempts and test events to every
// role): never the address a host name resolved to, nor Go's dial text
// with it. With a test event the URL is the user's choice, so the full
// error would let a business map the installation's network ("…on an
// internal network: 10.0.3.4"). The operator's log keeps the full error.
func describe(err error) string {
	var dns *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case errors.Is(err, netguard.ErrBlocked):
		return "refused: the destination is on an internal network"
	case errors.As(err, &dns):
		return "the host name could not be resolved"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by the receiver"
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid):
		return "TLS: the receiver's certificate was not accepted"
	case errors.As(err, &recordErr):
		return "TLS: the receiver does not speak TLS on this port"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "the receiver did not answer in time"
	}
	return "the receiver could not be reached"
}
