// Package mailer sends the service's e-mails (the age flow's address
// confirmations, password resets, login codes and deletion links) through
// an SMTP server, with github.com/wneessen/go-mail. The server is named by
// one URL (--smtp-url):
//
//	smtp://user:pass@host:587    STARTTLS, mandatory (a server that does not offer it is refused)
//	smtps://user:pass@host:465   TLS from the first byte
//
// with an optional ?from=address (default no-reply@host). User and password
// are optional (no authentication); they are URL-encoded as in any URL.
package mailer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is a plain-text e-mail to one address.
type Message struct {
	To, Subject, Body string
}

// Sender sends messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Config is an SMTP server.
type Config struct {
	Host string
	Port int
	// SSL is TLS from the first byte (smtps); otherwise STARTTLS is
	// mandatory.
	SSL                bool
	Username, Password string
	From               string
	// TLS overrides the TLS configuration (tests trust their own
	// certificate); nil: the system's roots, verifying Host.
	TLS *tls.Config
	// Timeout bounds a delivery (15 s when zero).
	Timeout time.Duration
}

// ParseURL reads an --smtp-url.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, errors.New("--smtp-url: not a URL")
	}
	c := Config{Host: u.Hostname()}
	switch u.Scheme {
	case "smtp":
		c.Port = 587
	case "smtps":
		c.Port, c.SSL = 465, true
	default:
		return Config{}, fmt.Errorf("--smtp-url: scheme %q, want smtp (STARTTLS) or smtps (TLS)", u.Scheme)
	}
	if c.Host == "" || (u.Path != "" && u.Path != "/") {
		return Config{}, errors.New("--smtp-url: want smtp[s]://[user:password@]host[:port][?from=address]")
	}
	if p := u.Port(); p != "" {
		if c.Port, err = strconv.Atoi(p); err != nil || c.Port < 1 || c.Port > 65535 {
			return Config{}, fmt.Errorf("--smtp-url: port %q", p)
		}
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	c.From = u.Query().Get("from")
	if c.From == "" {
		c.From = "no-reply@" + c.Host
	}
	if _, err := mail.ParseAddress(c.From); err != nil {
		return Config{}, fmt.Errorf("--smtp-url: from address %q", c.From)
	}
	return c, nil
}

// SMTP sends through an SMTP server, one connection per message (the
// service sends few, each in answer to a person's request).
type SMTP struct{ cfg Config }

// NewSMTP returns a sender; it does not connect before the first message.
func NewSMTP(cfg Config) (*SMTP, error) {
	if cfg.Host == "" || cfg.Port == 0 || cfg.From == "" {
		return nil, errors.New("mailer: host, port and from are required")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Second
	}
	return &SMTP{cfg: cfg}, nil
}

// Send delivers a message; an error names what failed, never the password.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return fmt.Errorf("mailer: from: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mailer: to: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageID()
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	tlsConf := s.cfg.TLS
	if tlsConf == nil {
		tlsConf = &tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12}
	}
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(s.cfg.Timeout), gomail.WithTLSConfig(tlsConf)}
	if s.cfg.SSL {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(s.cfg.Username),
			gomail.WithPassword(s.cfg.Password))
	}
	c, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return fmt.Errorf("mailer: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mailer: send to %s:%d: %w", s.cfg.Host, s.cfg.Port, err)
	}
	return nil
}
