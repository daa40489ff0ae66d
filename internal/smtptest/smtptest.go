// Package smtptest runs a real SMTP server on loopback for tests
// (github.com/emersion/go-smtp): STARTTLS with a certificate made for the
// test, AUTH PLAIN required, and every delivered message kept for the test
// to read. It is a server speaking the protocol over TCP, not a mock of
// the sender.
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Credentials the server accepts.
const (
	User     = "verifyd"
	Password = "mail p@ss/word"
)

// Message is a delivered message.
type Message struct {
	From string
	To   []string
	Raw  []byte
}

// Parsed returns the message's headers and decoded plain-text body.
func (m Message) Parsed(t testing.TB) (*mail.Message, string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(m.Raw))
	if err != nil {
		t.Fatalf("delivered message does not parse: %v\n%s", err, m.Raw)
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		t.Fatal(err)
	}
	return msg, decodeBody(msg.Header.Get("Content-Transfer-Encoding"), body)
}

// Server is a running SMTP server.
type Server struct {
	// Addr is host:port on loopback.
	Addr string
	// Pool trusts the server's certificate.
	Pool *x509.CertPool
	mu   sync.Mutex
	msgs []Message
	news chan struct{}
}

// Start runs a server until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	cert, pool := certificate(t)
	s := &Server{Pool: pool, news: make(chan struct{}, 1)}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{srv: s}, nil }))
	srv.Domain = "localhost"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 1 << 20
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	go srv.Serve(l) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return s
}

// URL is the --smtp-url of the server (STARTTLS, with the credentials).
func (s *Server) URL() string {
	return "smtp://" + url.UserPassword(User, Password).String() + "@" + s.Addr + "?from=" + url.QueryEscape("verifyd <age@verifyd.test>")
}

// Messages returns what was delivered so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// WaitFor waits for the n-th (from 1) message to an address.
func (s *Server) WaitFor(t testing.TB, to string, n int) Message {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		var got []Message
		for _, m := range s.Messages() {
			for _, r := range m.To {
				if strings.EqualFold(r, to) {
					got = append(got, m)
				}
			}
		}
		if len(got) >= n {
			return got[n-1]
		}
		select {
		case <-s.news:
		case <-deadline:
			t.Fatalf("no message %d to %s after 10 s (%d delivered in all)", n, to, len(s.Messages()))
		}
	}
}

type session struct {
	srv    *Server
	authed bool
	from   string
	to     []string
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != User || password != Password {
			return errors.New("invalid credentials")
		}
		s.authed = true
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.srv.mu.Lock()
	s.srv.msgs = append(s.srv.msgs, Message{From: s.from, To: s.to, Raw: raw})
	s.srv.mu.Unlock()
	select {
	case s.srv.news <- struct{}{}:
	default:
	}
	return nil
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }

// certificate makes a self-signed certificate for 127.0.0.1 and localhost.
func certificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "smtptest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true, DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

func decodeBody(cte string, body []byte) string {
	switch strings.ToLower(cte) {
	case "quoted-printable":
		b, err := io.ReadAll(quotedPrintable(body))
		if err == nil {
			return string(b)
		}
	case "base64":
		return decodeBase64(body)
	}
	return string(body)
}
