package mailer_test

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/smtptest"
	"github.com/verifyd/verifyd/mailer"
)

func TestParseURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]mailer.Config{
		"smtp://mail.example":                           {Host: "mail.example", Port: 587, From: "no-reply@mail.example"},
		"smtps://u:p%40ss@mail.example:2465?from=a@b.c": {Host: "mail.example", Port: 2465, SSL: true, Username: "u", Password: "p@ss", From: "a@b.c"},
		"smtp://u@[::1]:25?from=x@y.example":            {Host: "::1", Port: 25, Username: "u", From: "x@y.example"},
	} {
		got, err := mailer.ParseURL(raw)
		if err != nil || got.Host != want.Host || got.Port != want.Port || got.SSL != want.SSL ||
			got.Username != want.Username || got.Password != want.Password || got.From != want.From {
			t.Errorf("%s: %+v, %v; want %+v", raw, got, err, want)
		}
	}
	for _, bad := range []string{"", "http://mail.example", "smtp://", "smtp://h:0", "smtp://h:99999", "smtp://h/path", "smtp://h?from=nope"} {
		if _, err := mailer.ParseURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSendThroughSMTP delivers through a real SMTP server on loopback:
// STARTTLS, AUTH PLAIN, then the message as the server received it.
func TestSendThroughSMTP(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	cfg, err := mailer.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLS = &tls.Config{RootCAs: srv.Pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	s, err := mailer.NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	body := "Grüße aus Zürich: 123 456.\nhttps://verifyd.test/age/account/email?t=abc"
	if err := s.Send(context.Background(), mailer.Message{To: "ada@example.com", Subject: "Ihr Anmeldecode – verifyd", Body: body}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	msg, text := srv.WaitFor(t, "ada@example.com", 1).Parsed(t)
	if !strings.Contains(msg.Header.Get("From"), "age@verifyd.test") || msg.Header.Get("Message-Id") == "" {
		t.Errorf("headers %v", msg.Header)
	}
	if subj, _ := new(mimeDecoder).decode(msg.Header.Get("Subject")); subj != "Ihr Anmeldecode – verifyd" {
		t.Errorf("subject %q", subj)
	}
	if !strings.Contains(text, "Grüße aus Zürich: 123 456.") || !strings.Contains(text, "t=abc") {
		t.Errorf("body %q", text)
	}

	// Wrong credentials and a server that is not trusted fail loudly.
	bad := cfg
	bad.Password = "wrong"
	sb, _ := mailer.NewSMTP(bad)
	if err := sb.Send(context.Background(), mailer.Message{To: "x@example.com", Subject: "s", Body: "b"}); err == nil {
		t.Error("wrong password: sent")
	} else if strings.Contains(err.Error(), "wrong") {
		t.Errorf("the error names the password: %v", err)
	}
	untrusted := cfg
	untrusted.TLS = nil
	untrusted.Host = "127.0.0.1"
	su, _ := mailer.NewSMTP(untrusted)
	if err := su.Send(context.Background(), mailer.Message{To: "x@example.com", Subject: "s", Body: "b"}); err == nil {
		t.Error("a certificate nobody trusts: sent")
	}
	if n := len(srv.Messages()); n != 1 {
		t.Errorf("%d messages delivered, want 1", n)
	}
}
