package agehosted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"github.com/verifyd/verifyd"
)

// Passkeys (WebAuthn) of age accounts, with github.com/go-webauthn/webauthn:
// an account created with a passkey only, a passkey added to an account,
// and a login with a passkey. Every ceremony requires user verification
// (the device's PIN, fingerprint or face), so an assertion proves that the
// person holding the device unlocked it now: authentication at each use
// for the countries that want it (LoginEachUse), since a passkey login
// starts a new session. Passkeys are discoverable (resident): the login
// needs no address.
//
// Between the begin and the finish of a ceremony the library's session
// data travels sealed (encrypted and authenticated with the master key's
// sealer) in a short-lived cookie the handlers set: no table, and a
// replica that did not begin the ceremony can finish it.

// PasskeyTimeout is how long a ceremony may take.
const PasskeyTimeout = 5 * time.Minute

// Passkey ceremonies.
const (
	PasskeySignUp = "signup"
	PasskeyAdd    = "add"
	PasskeyLogIn  = "login"
)

// passkeyCeremony is what a ceremony remembers between begin and finish.
type passkeyCeremony struct {
	Kind        string               `json:"kind"`
	Environment verifyd.Environment  `json:"env"`
	Session     webauthn.SessionData `json:"session"`
	// AccountID and Email are the new account's (sign-up) or the
	// signed-in account's (add).
	AccountID string    `json:"account,omitempty"`
	Email     string    `json:"email,omitempty"`
	Expires   time.Time `json:"expires"`
}

// ErrPasskey is the one answer to a ceremony that failed (a wrong, replayed
// or expired answer, an unknown passkey, no user verification).
var ErrPasskey = verifyd.Errorf(verifyd.EUnauthorized, "the passkey could not be checked")

// ErrPasskeysOff refuses passkeys when the service has no public base URL
// (the relying party's origin).
var ErrPasskeysOff = verifyd.Errorf(verifyd.EConflict, "passkeys are not available")

// passkeyUser is an account as the WebAuthn library sees it: its id is the
// account's UUID (16 bytes), so the user handle a passkey returns names
// the account.
type passkeyUser struct {
	id    uuid.UUID
	email string
	creds []webauthn.Credential
}

func (u passkeyUser) WebAuthnID() []byte                         { return u.id[:] }
func (u passkeyUser) WebAuthnName() string                       { return u.email }
func (u passkeyUser) WebAuthnDisplayName() string                { return u.email }
func (u passkeyUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// newRelyingParty makes the WebAuthn relying party of an environment: its
// id is the age base URL's host name, its origin the base URL's origin.
func newRelyingParty(env verifyd.Environment, base string) (*webauthn.WebAuthn, error) {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("age base URL of %s: %q", env, base)
	}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		// WebAuthn has no relying party on an IP address (browsers refuse
		// it): such a deployment offers passwords only.
		return nil, nil
	}
	name := "verifyd"
	if env == verifyd.EnvSandbox {
		name = "verifyd sandbox"
	}
	return webauthn.New(&webauthn.Config{
		RPID: u.Hostname(), RPDisplayName: name, RPOrigins: []string{u.Scheme + "://" + u.Host},
		AuthenticatorSelection: protocol.AuthenticatorSelection{ResidentKey: protocol.ResidentKeyRequirementRequired,
			RequireResidentKey: protocol.ResidentKeyRequired(), UserVerification: protocol.VerificationRequired},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: PasskeyTimeout, TimeoutUVD: PasskeyTimeout},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: PasskeyTimeout, TimeoutUVD: PasskeyTimeout},
		},
	})
}

// PasskeysOn reports whether passkeys are offered in an environment.
func (s *Service) PasskeysOn(env verifyd.Environment) bool {
	return s.rp[env] != nil && s.sealer != nil
}

func (s *Service) seal(env verifyd.Environment, c passkeyCeremony) ([]byte, error) {
	c.Environment, c.Expires = env, s.now().Add(PasskeyTimeout)
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return s.sealer.Seal(b, []byte("age-passkey|"+string(env)))
}

func (s *Service) open(env verifyd.Environment, kind string, sealed []byte) (passkeyCeremony, error) {
	var c passkeyCeremony
	b, err := s.sealer.Open(sealed, []byte("age-passkey|"+string(env)))
	if err != nil || json.Unmarshal(b, &c) != nil || c.Kind != kind || c.Environment != env || !s.now().Before(c.Expires) {
		return passkeyCeremony{}, ErrPasskey
	}
	return c, nil
}

// credentials returns an account's passkeys as the library's records.
func (s *Service) credentials(ctx context.Context, env verifyd.Environment, accountID string) ([]webauthn.Credential, error) {
	keys, err := s.store.AgePasskeys(ctx, env, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]webauthn.Credential, 0, len(keys))
	for _, k := range keys {
		var c webauthn.Credential
		if err := json.Unmarshal(k.Credential, &c); err != nil {
			return nil, fmt.Errorf("passkey of account %s: %w", accountID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// BeginPasskeySignUp starts creating an account with a passkey only: the
// address is checked as for a password sign-up (and counts against the
// client address's limit); it returns the options for
// navigator.credentials.create and the sealed ceremony.
func (s *Service) BeginPasskeySignUp(ctx context.Context, env verifyd.Environment, email string, client netip.Addr) (any, []byte, error) {
	if !s.PasskeysOn(env) {
		return nil, nil, ErrPasskeysOff
	}
	addr := verifyd.NormalizeEmail(email)
	if addr == "" {
		return nil, nil, verifyd.InvalidFields([]verifyd.FieldError{{Field: FieldEmail, Problem: ProblemEmail}})
	}
	if err := s.logins.TakeClient(client); err != nil {
		return nil, nil, err
	}
	if _, err := s.store.AgeAccountByEmail(ctx, env, addr); err == nil {
		return nil, nil, verifyd.InvalidFields([]verifyd.FieldError{{Field: FieldEmail, Problem: ProblemExists}})
	} else if !errors.Is(err, verifyd.ErrNotFound) {
		return nil, nil, err
	}
	id, err := uuid.NewRandomFromReader(s.cfg.Rand)
	if err != nil {
		return nil, nil, err
	}
	opts, session, err := s.rp[env].BeginRegistration(passkeyUser{id: id, email: addr})
	if err != nil {
		return nil, nil, err
	}
	sealed, err := s.seal(env, passkeyCeremony{Kind: PasskeySignUp, Session: *session, AccountID: id.String(), Email: addr})
	return opts, sealed, err
}

// FinishPasskeySignUp checks the new passkey (the browser's answer in r's
// body) and creates the account with it, without a password.
func (s *Service) FinishPasskeySignUp(ctx context.Context, env verifyd.Environment, sealed []byte, r *http.Request) (verifyd.AgeAccount, error) {
	c, err := s.open(env, PasskeySignUp, sealed)
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	id, err := uuid.Parse(c.AccountID)
	if err != nil {
		return verifyd.AgeAccount{}, ErrPasskey
	}
	cred, err := s.rp[env].FinishRegistration(passkeyUser{id: id, email: c.Email}, c.Session, r)
	if err != nil {
		return verifyd.AgeAccount{}, fmt.Errorf("%w: %v", ErrPasskey, err)
	}
	a := verifyd.AgeAccount{ID: c.AccountID, Environment: env, Email: c.Email, CreatedAt: s.now()}
	p, err := s.passkeyOf(env, a.ID, cred)
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	if err := s.store.CreateAgeAccountWithPasskey(ctx, a, p); err != nil {
		if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
			return verifyd.AgeAccount{}, verifyd.InvalidFields([]verifyd.FieldError{{Field: FieldEmail, Problem: ProblemExists}})
		}
		return verifyd.AgeAccount{}, err
	}
	return a, nil
}

func (s *Service) passkeyOf(env verifyd.Environment, accountID string, cred *webauthn.Credential) (verifyd.AgePasskey, error) {
	b, err := json.Marshal(cred)
	if err != nil {
		return verifyd.AgePasskey{}, err
	}
	return verifyd.AgePasskey{Environment: env, AccountID: accountID, CredentialID: cred.ID, Credential: b, CreatedAt: s.now()}, nil
}

// BeginPasskeyAdd starts adding a passkey to a signed-in account; the
// account's passkeys are excluded (the device says it has one already).
func (s *Service) BeginPasskeyAdd(ctx context.Context, env verifyd.Environment, acct verifyd.AgeAccount) (any, []byte, error) {
	if !s.PasskeysOn(env) {
		return nil, nil, ErrPasskeysOff
	}
	id, err := uuid.Parse(acct.ID)
	if err != nil {
		return nil, nil, err
	}
	creds, err := s.credentials(ctx, env, acct.ID)
	if err != nil {
		return nil, nil, err
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(creds))
	for _, c := range creds {
		exclude = append(exclude, c.Descriptor())
	}
	opts, session, err := s.rp[env].BeginRegistration(passkeyUser{id: id, email: acct.Email, creds: creds},
		webauthn.WithExclusions(exclude))
	if err != nil {
		return nil, nil, err
	}
	sealed, err := s.seal(env, passkeyCeremony{Kind: PasskeyAdd, Session: *session, AccountID: acct.ID, Email: acct.Email})
	return opts, sealed, err
}

// FinishPasskeyAdd stores the new passkey of the signed-in account that
// began the ceremony.
func (s *Service) FinishPasskeyAdd(ctx context.Context, env verifyd.Environment, acct verifyd.AgeAccount, sealed []byte, r *http.Request) error {
	c, err := s.open(env, PasskeyAdd, sealed)
	if err != nil || c.AccountID != acct.ID {
		return ErrPasskey
	}
	id, err := uuid.Parse(acct.ID)
	if err != nil {
		return ErrPasskey
	}
	creds, err := s.credentials(ctx, env, acct.ID)
	if err != nil {
		return err
	}
	cred, err := s.rp[env].FinishRegistration(passkeyUser{id: id, email: acct.Email, creds: creds}, c.Session, r)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPasskey, err)
	}
	p, err := s.passkeyOf(env, acct.ID, cred)
	if err != nil {
		return err
	}
	return s.store.AddAgePasskey(ctx, p)
}

// BeginPasskeyLogIn starts a login with a discoverable passkey, with user
// verification required.
func (s *Service) BeginPasskeyLogIn(env verifyd.Environment, client netip.Addr) (any, []byte, error) {
	if !s.PasskeysOn(env) {
		return nil, nil, ErrPasskeysOff
	}
	if err := s.logins.TakeClient(client); err != nil {
		return nil, nil, err
	}
	opts, session, err := s.rp[env].BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, nil, err
	}
	sealed, err := s.seal(env, passkeyCeremony{Kind: PasskeyLogIn, Session: *session})
	return opts, sealed, err
}

// FinishPasskeyLogIn checks a passkey's assertion (signature, origin,
// challenge, user verification, the user handle naming the passkey's
// account) and returns the account. A signature counter that went
// backwards (a cloned authenticator) is refused.
func (s *Service) FinishPasskeyLogIn(ctx context.Context, env verifyd.Environment, sealed []byte, r *http.Request) (verifyd.AgeAccount, error) {
	c, err := s.open(env, PasskeyLogIn, sealed)
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	var acct verifyd.AgeAccount
	handler := func(rawID, userHandle []byte) (webauthn.User, error) {
		p, err := s.store.AgePasskey(ctx, env, rawID)
		if err != nil {
			return nil, err
		}
		id, err := uuid.Parse(p.AccountID)
		if err != nil || string(userHandle) != string(id[:]) {
			return nil, ErrPasskey
		}
		if acct, err = s.store.AgeAccount(ctx, env, p.AccountID); err != nil {
			return nil, err
		}
		creds, err := s.credentials(ctx, env, p.AccountID)
		if err != nil {
			return nil, err
		}
		return passkeyUser{id: id, email: acct.Email, creds: creds}, nil
	}
	_, cred, err := s.rp[env].FinishPasskeyLogin(handler, c.Session, r)
	if err != nil {
		return verifyd.AgeAccount{}, fmt.Errorf("%w: %v", ErrPasskey, err)
	}
	if cred.Authenticator.CloneWarning {
		return verifyd.AgeAccount{}, fmt.Errorf("%w: signature counter went backwards", ErrPasskey)
	}
	b, err := json.Marshal(cred)
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	if err := s.store.UseAgePasskey(ctx, env, cred.ID, b, s.now()); err != nil {
		return verifyd.AgeAccount{}, err
	}
	return acct, nil
}

// Passkeys lists an account's passkeys (the account page).
func (s *Service) Passkeys(ctx context.Context, env verifyd.Environment, accountID string) ([]verifyd.AgePasskey, error) {
	return s.store.AgePasskeys(ctx, env, accountID)
}
