package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/verifyd/verifyd"
)

// Passkeys (WebAuthn) of business users, with github.com/go-webauthn/webauthn
// as the age pages use it (agehosted/passkey.go): a signed-in user adds a
// passkey, and then signs in with it instead of password and code. Every
// ceremony requires user verification (the device's PIN or biometrics), so
// a passkey is two factors by itself. Passkeys are discoverable: the
// sign-in needs no address. Between begin and finish the library's
// session data travels sealed with the master key in a short-lived cookie.

// PasskeyTimeout is how long a ceremony may take.
const PasskeyTimeout = 5 * time.Minute

const (
	ceremonyAdd   = "add"
	ceremonyLogIn = "login"
)

// ErrPasskey is the one answer to a ceremony that failed.
var ErrPasskey = verifyd.Errorf(verifyd.EUnauthorized, "the passkey could not be checked")

// ErrPasskeysOff refuses passkeys when the dashboard's URL has no host
// name (WebAuthn has no relying party on an IP address).
var ErrPasskeysOff = verifyd.Errorf(verifyd.EConflict, "passkeys are not available here")

type ceremony struct {
	Kind    string               `json:"kind"`
	Session webauthn.SessionData `json:"session"`
	UserID  string               `json:"user,omitempty"`
	Expires time.Time            `json:"expires"`
}

// passkeyUser is a business user as the WebAuthn library sees it; the
// user handle a passkey returns is the user's id.
type passkeyUser struct {
	u     verifyd.BusinessUser
	creds []webauthn.Credential
}

func (p passkeyUser) WebAuthnID() []byte                         { return []byte(p.u.ID) }
func (p passkeyUser) WebAuthnName() string                       { return p.u.Email }
func (p passkeyUser) WebAuthnDisplayName() string                { return p.u.Name }
func (p passkeyUser) WebAuthnCredentials() []webauthn.Credential { return p.creds }

// relyingParty is the WebAuthn relying party of the dashboard's URL, or
// nil when it has no host name.
func relyingParty(base string) (*webauthn.WebAuthn, error) {
	if base == "" {
		return nil, nil
	}
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("dashboard URL %q", base)
	}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		return nil, nil
	}
	return webauthn.New(&webauthn.Config{
		RPID: u.Hostname(), RPDisplayName: "verifyd dashboard", RPOrigins: []string{u.Scheme + "://" + u.Host},
		AuthenticatorSelection: protocol.AuthenticatorSelection{ResidentKey: protocol.ResidentKeyRequirementRequired,
			RequireResidentKey: protocol.ResidentKeyRequired(), UserVerification: protocol.VerificationRequired},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: PasskeyTimeout, TimeoutUVD: PasskeyTimeout},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: PasskeyTimeout, TimeoutUVD: PasskeyTimeout},
		},
	})
}

// PasskeysOn reports whether passkeys are offered.
func (s *Service) PasskeysOn() bool { return s.rp != nil }

const ceremonyAAD = "dashboard-passkey"

func (s *Service) sealCeremony(c ceremony) ([]byte, error) {
	c.Expires = s.cfg.Now().Add(PasskeyTimeout)
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return s.sealer.Seal(b, []byte(ceremonyAAD))
}

func (s *Service) openCeremony(kind string, sealed []byte) (ceremony, error) {
	var c ceremony
	b, err := s.sealer.Open(sealed, []byte(ceremonyAAD))
	if err != nil || json.Unmarshal(b, &c) != nil || c.Kind != kind || !s.cfg.Now().Before(c.Expires) {
		return ceremony{}, ErrPasskey
	}
	return c, nil
}

func (s *Service) webauthnUser(ctx context.Context, u verifyd.BusinessUser) (passkeyUser, error) {
	keys, err := s.store.BusinessPasskeys(ctx, u.ID)
	if err != nil {
		return passkeyUser{}, err
	}
	out := passkeyUser{u: u, creds: make([]webauthn.Credential, 0, len(keys))}
	for _, k := range keys {
		var c webauthn.Credential
		if err := json.Unmarshal(k.Credential, &c); err != nil {
			return passkeyUser{}, fmt.Errorf("passkey of %s: %w", u.ID, err)
		}
		out.creds = append(out.creds, c)
	}
	return out, nil
}

// Passkeys lists the member's passkeys.
func (s *Service) Passkeys(ctx context.Context, m Member) ([]verifyd.BusinessPasskey, error) {
	return s.store.BusinessPasskeys(ctx, m.User.ID)
}

// BeginPasskeyAdd starts adding a passkey to the member; their passkeys
// are excluded (the device says it has one already). It returns the
// options for navigator.credentials.create and the sealed ceremony.
func (s *Service) BeginPasskeyAdd(ctx context.Context, m Member) (any, []byte, error) {
	if s.rp == nil {
		return nil, nil, ErrPasskeysOff
	}
	pu, err := s.webauthnUser(ctx, m.User)
	if err != nil {
		return nil, nil, err
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(pu.creds))
	for _, c := range pu.creds {
		exclude = append(exclude, c.Descriptor())
	}
	opts, session, err := s.rp.BeginRegistration(pu, webauthn.WithExclusions(exclude))
	if err != nil {
		return nil, nil, err
	}
	sealed, err := s.sealCeremony(ceremony{Kind: ceremonyAdd, Session: *session, UserID: m.User.ID})
	return opts, sealed, err
}

// FinishPasskeyAdd checks the browser's answer (the JSON of body) and
// stores the member's new passkey.
func (s *Service) FinishPasskeyAdd(ctx context.Context, m Member, sealed []byte, body io.Reader) error {
	c, err := s.openCeremony(ceremonyAdd, sealed)
	if err != nil || c.UserID != m.User.ID {
		return ErrPasskey
	}
	pu, err := s.webauthnUser(ctx, m.User)
	if err != nil {
		return err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBody(body)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPasskey, err)
	}
	cred, err := s.rp.CreateCredential(pu, c.Session, parsed)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPasskey, err)
	}
	b, err := json.Marshal(cred)
	if err != nil {
		return err
	}
	if err := s.store.AddBusinessPasskey(ctx, verifyd.BusinessPasskey{CredentialID: cred.ID, UserID: m.User.ID,
		Credential: b, CreatedAt: s.cfg.Now().UTC().Truncate(time.Microsecond)}); err != nil {
		return err
	}
	s.audit(m.Context(ctx), m.Business.ID, verifyd.AuditPasskeyAdd, m.User.ID, "")
	return nil
}

// BeginPasskeyLogIn starts a sign-in with a discoverable passkey; it
// counts against the client address's limit.
func (s *Service) BeginPasskeyLogIn(client netip.Addr) (any, []byte, error) {
	if s.rp == nil {
		return nil, nil, ErrPasskeysOff
	}
	if err := s.logins.TakeClient(client); err != nil {
		return nil, nil, err
	}
	opts, session, err := s.rp.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, nil, err
	}
	sealed, err := s.sealCeremony(ceremony{Kind: ceremonyLogIn, Session: *session})
	return opts, sealed, err
}

// FinishPasskeyLogIn checks an assertion (signature, origin, challenge,
// user verification, the user handle naming the passkey's user) and
// returns the active user. A signature counter that went backwards (a
// cloned authenticator) is refused.
func (s *Service) FinishPasskeyLogIn(ctx context.Context, sealed []byte, body io.Reader) (verifyd.BusinessUser, error) {
	c, err := s.openCeremony(ceremonyLogIn, sealed)
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBody(body)
	if err != nil {
		return verifyd.BusinessUser{}, fmt.Errorf("%w: %v", ErrPasskey, err)
	}
	var user verifyd.BusinessUser
	handler := func(rawID, userHandle []byte) (webauthn.User, error) {
		p, err := s.store.BusinessPasskey(ctx, rawID)
		if err != nil {
			return nil, err
		}
		if string(userHandle) != p.UserID {
			return nil, ErrPasskey
		}
		if user, err = s.store.BusinessUser(ctx, p.UserID); err != nil {
			return nil, err
		}
		return s.webauthnUser(ctx, user)
	}
	_, cred, err := s.rp.ValidatePasskeyLogin(handler, c.Session, parsed)
	if err != nil {
		return verifyd.BusinessUser{}, fmt.Errorf("%w: %v", ErrPasskey, err)
	}
	if cred.Authenticator.CloneWarning {
		return verifyd.BusinessUser{}, fmt.Errorf("%w: signature counter went backwards", ErrPasskey)
	}
	if !user.Active() {
		return verifyd.BusinessUser{}, ErrPasskey
	}
	b, err := json.Marshal(cred)
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	if err := s.store.UseBusinessPasskey(ctx, cred.ID, b, s.cfg.Now().UTC()); err != nil {
		return verifyd.BusinessUser{}, err
	}
	return user, nil
}

// RemovePasskey deletes one of the member's passkeys; another user's is
// ErrNotFound.
func (s *Service) RemovePasskey(ctx context.Context, m Member, credentialID []byte) error {
	if err := s.store.DeleteBusinessPasskey(ctx, m.User.ID, credentialID); err != nil {
		return err
	}
	s.audit(m.Context(ctx), m.Business.ID, verifyd.AuditPasskeyRemove, m.User.ID, "")
	return nil
}
