package agehosted

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"math/big"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/mailer"
	"github.com/verifyd/verifyd/webauth"
)

// E-mail for age accounts (docs/age.md, e-mail): a link that confirms the
// address, a link that sets a new password, a one-time login code, and a
// link that deletes the account without the password. Each is a
// single-use secret of which only the SHA-256 is stored. Without a mailer
// (no --smtp-url) none is offered.
//
// Requests never tell whether an address has an account: the answer is
// the same, and a message goes out only when one exists. They are limited
// per address and per client address, so nobody can flood a person's
// mailbox or probe many addresses.

// Lifetimes of e-mailed secrets.
const (
	ConfirmLifetime = 24 * time.Hour
	ResetLifetime   = time.Hour
	DeleteLifetime  = time.Hour
	CodeLifetime    = 10 * time.Minute
)

// Errors of the e-mail steps.
var (
	// ErrMailOff refuses an e-mail step when no mailer is configured.
	ErrMailOff = verifyd.Errorf(verifyd.EConflict, "e-mail is not available")
	// ErrMailLink answers a link that is unknown, used or expired.
	ErrMailLink = verifyd.Errorf(verifyd.ENotFound, "this link is not valid any more")
	// ErrBadCode is the one answer to a wrong code, an unknown address or
	// an expired code.
	ErrBadCode = verifyd.Errorf(verifyd.EUnauthorized, "Wrong e-mail address or code.")
)

// MailOn reports whether e-mail is configured.
func (s *Service) MailOn() bool { return s.cfg.Mailer != nil }

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// codeHash binds a login code to its account: the same 8 digits of another
// account are another row.
func codeHash(accountID, code string) []byte {
	h := sha256.Sum256([]byte("age-login-code|" + accountID + "|" + code))
	return h[:]
}

// RequestMail sends a link (confirm, reset, delete) or a login code to
// an address when it has an account, in the page's language; otherwise it
// does nothing and answers the same. Limited per address and client.
func (s *Service) RequestMail(ctx context.Context, env verifyd.Environment, lang string, purpose verifyd.AgeMailPurpose, email string, client netip.Addr) error {
	if !s.MailOn() {
		return ErrMailOff
	}
	addr := verifyd.NormalizeEmail(email)
	if addr == "" {
		return verifyd.InvalidFields([]verifyd.FieldError{{Field: FieldEmail, Problem: ProblemEmail}})
	}
	if ok, wait := s.mailClients.Take(clientKey(client)); !ok {
		return &RateLimitedError{RetryAfter: wait}
	}
	if ok, wait := s.mailAddrs.Take(string(env) + "|" + string(purpose) + "|" + addr); !ok {
		return &RateLimitedError{RetryAfter: wait}
	}
	acct, err := s.store.AgeAccountByEmail(ctx, env, addr)
	if errors.Is(err, verifyd.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.sendMail(ctx, env, lang, purpose, acct)
}

// SendConfirmation sends the link that confirms a new account's address.
func (s *Service) SendConfirmation(ctx context.Context, env verifyd.Environment, lang string, acct verifyd.AgeAccount) error {
	if !s.MailOn() {
		return ErrMailOff
	}
	return s.sendMail(ctx, env, lang, verifyd.AgeMailConfirm, acct)
}

func (s *Service) sendMail(ctx context.Context, env verifyd.Environment, lang string, purpose verifyd.AgeMailPurpose, acct verifyd.AgeAccount) error {
	now := s.now()
	t := verifyd.AgeMailToken{Environment: env, AccountID: acct.ID, Purpose: purpose, Email: acct.Email, CreatedAt: now}
	var secret string
	switch purpose {
	case verifyd.AgeMailCode:
		n, err := rand.Int(s.cfg.Rand, big.NewInt(100_000_000))
		if err != nil {
			return err
		}
		secret = fmt.Sprintf("%08d", n)
		t.Hash, t.ExpiresAt = codeHash(acct.ID, secret), now.Add(CodeLifetime)
	case verifyd.AgeMailConfirm, verifyd.AgeMailReset, verifyd.AgeMailDelete:
		b := make([]byte, 32)
		if _, err := s.cfg.Rand.Read(b); err != nil {
			return err
		}
		token := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
		t.Hash = tokenHash(token)
		t.ExpiresAt = now.Add(map[verifyd.AgeMailPurpose]time.Duration{verifyd.AgeMailConfirm: ConfirmLifetime,
			verifyd.AgeMailReset: ResetLifetime, verifyd.AgeMailDelete: DeleteLifetime}[purpose])
		secret = s.MailLinkURL(env, purpose, token, lang)
	default:
		return fmt.Errorf("unknown e-mail purpose %q", purpose)
	}
	if err := s.store.CreateAgeMailToken(ctx, t); err != nil {
		return err
	}
	subject, body := mailText(lang, purpose, secret, acct.Email)
	return s.cfg.Mailer.Send(ctx, mailer.Message{To: acct.Email, Subject: subject, Body: body})
}

// MailLinkURL is the address of an e-mailed link.
func (s *Service) MailLinkURL(env verifyd.Environment, purpose verifyd.AgeMailPurpose, token, lang string) string {
	base := ""
	if s.cfg.BaseURL != nil {
		base = strings.TrimSuffix(s.cfg.BaseURL(env), "/")
	}
	return base + "/account/email/" + string(purpose) + "?" + url.Values{"t": {token}, "lang": {lang}}.Encode()
}

// MailLink returns the account of a link that is still usable, without
// using it (the page shows its form).
func (s *Service) MailLink(ctx context.Context, env verifyd.Environment, purpose verifyd.AgeMailPurpose, token string) (verifyd.AgeAccount, error) {
	t, err := s.store.AgeMailToken(ctx, env, purpose, tokenHash(token), s.now())
	if errors.Is(err, verifyd.ErrNotFound) {
		return verifyd.AgeAccount{}, ErrMailLink
	}
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	return s.store.AgeAccount(ctx, env, t.AccountID)
}

func (s *Service) useLink(ctx context.Context, env verifyd.Environment, purpose verifyd.AgeMailPurpose, token string) (verifyd.AgeMailToken, error) {
	t, err := s.store.UseAgeMailToken(ctx, env, purpose, tokenHash(token), s.now())
	if errors.Is(err, verifyd.ErrNotFound) {
		return t, ErrMailLink
	}
	return t, err
}

// ConfirmEmail uses a confirmation link: the account's address, if it is
// still the one the link was sent to, is confirmed.
func (s *Service) ConfirmEmail(ctx context.Context, env verifyd.Environment, token string) error {
	t, err := s.useLink(ctx, env, verifyd.AgeMailConfirm, token)
	if err != nil {
		return err
	}
	return s.store.ConfirmAgeEmail(ctx, env, t.AccountID, t.Email, s.now())
}

// ResetPassword uses a reset link: it sets a new password (the sign-up's
// rules), confirms the address (the link reached it) and ends every
// session of the account, so a thief signed in elsewhere is out.
func (s *Service) ResetPassword(ctx context.Context, env verifyd.Environment, token, password, again string) (verifyd.AgeAccount, error) {
	var p verifyd.Problems
	checkNewPassword(&p, password, again)
	if err := p.Err(); err != nil {
		return verifyd.AgeAccount{}, err
	}
	t, err := s.useLink(ctx, env, verifyd.AgeMailReset, token)
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	hash, err := webauth.HashPassword(password)
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	if err := s.store.SetAgePasswordHash(ctx, env, t.AccountID, hash); err != nil {
		return verifyd.AgeAccount{}, err
	}
	if err := s.store.ConfirmAgeEmail(ctx, env, t.AccountID, t.Email, s.now()); err != nil && !errors.Is(err, verifyd.ErrNotFound) {
		return verifyd.AgeAccount{}, err
	}
	if _, err := s.sessions[env].EndAll(ctx, t.AccountID); err != nil {
		return verifyd.AgeAccount{}, err
	}
	return s.store.AgeAccount(ctx, env, t.AccountID)
}

// LogInWithCode checks an e-mailed login code. Attempts are limited per
// address and client like passwords; a wrong code, an unknown address and
// an expired code get ErrBadCode. A code is used once.
func (s *Service) LogInWithCode(ctx context.Context, env verifyd.Environment, email, code string, client netip.Addr) (verifyd.AgeAccount, error) {
	addr := verifyd.NormalizeEmail(email)
	code = strings.Join(strings.Fields(code), "")
	if ok, wait := s.codeTries.Take(string(env) + "|" + addr + "|" + clientKey(client)); !ok {
		return verifyd.AgeAccount{}, &RateLimitedError{RetryAfter: wait}
	}
	if ok, wait := s.codeTriesAll.Take(string(env) + "|" + addr); !ok {
		return verifyd.AgeAccount{}, &RateLimitedError{RetryAfter: wait}
	}
	if addr == "" || len(code) != 8 {
		return verifyd.AgeAccount{}, ErrBadCode
	}
	acct, err := s.store.AgeAccountByEmail(ctx, env, addr)
	if errors.Is(err, verifyd.ErrNotFound) {
		return verifyd.AgeAccount{}, ErrBadCode
	}
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	if _, err := s.store.UseAgeMailToken(ctx, env, verifyd.AgeMailCode, codeHash(acct.ID, code), s.now()); errors.Is(err, verifyd.ErrNotFound) {
		return verifyd.AgeAccount{}, ErrBadCode
	} else if err != nil {
		return verifyd.AgeAccount{}, err
	}
	// The code reached the address: it is confirmed.
	if err := s.store.ConfirmAgeEmail(ctx, env, acct.ID, acct.Email, s.now()); err != nil && !errors.Is(err, verifyd.ErrNotFound) {
		return verifyd.AgeAccount{}, err
	}
	return acct, nil
}

// DeleteByMail uses a deletion link: the account is erased as from the
// account page (DeleteAccount), without the password.
func (s *Service) DeleteByMail(ctx context.Context, env verifyd.Environment, token string) (verifyd.AgeAccountDeleted, error) {
	t, err := s.useLink(ctx, env, verifyd.AgeMailDelete, token)
	if err != nil {
		return verifyd.AgeAccountDeleted{}, err
	}
	return s.store.DeleteAgeAccount(ctx, verifyd.AgeAccountDeletion{Environment: env, AccountID: t.AccountID,
		SessionRealm: Realm(env), At: s.now()})
}

// clientKey is a client address's limiter key (an IPv6 /64 counts as one).
func clientKey(a netip.Addr) string {
	if a.Is6() && !a.Is4In6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.Unmap().String()
}
