// Package agehosted holds the use cases of the hosted age-verification
// pages, where a person sent by an integrator's /oauth/authorize (package
// age) signs up or logs in, proves that they are 18 or older with a method
// their country accepts, and is sent back with a code, whatever the
// outcome. web/agepages is its HTTP side; docs/age.md describes the
// flow, the country requirements and the sandbox.
//
// Accounts are per environment and shared by every integrator: a person
// proves their age to verifyd once, then logs in. Integrators only ever
// learn {age_verified, id, threshold}, and the id is a pseudonym of the
// proof per integrator, so two sites cannot link a person by it.
package agehosted

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/liveness"
	"github.com/verifyd/verifyd/mailer"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/webauth"
)

// Threshold is SPEC's fixed age threshold.
const Threshold = 18

// Requests is the OAuth side of the age interface (*age.Service): the
// authorize request a flow page serves, and its completion with a code.
type Requests interface {
	AuthRequest(ctx context.Context, flow string) (age.AuthRequest, error)
	Complete(ctx context.Context, flow string, o age.Outcome) (redirectURL string, err error)
}

// Store is what the flow persists: accounts, proofs and browser sessions.
type Store interface {
	verifyd.AgeAccountStore
	verifyd.AgeConsentStore
	verifyd.AgePasskeyStore
	verifyd.AgeMailStore
	verifyd.SessionStore
	// Business names the business asking, on the consent step.
	Business(ctx context.Context, id string) (verifyd.Business, error)
}

// Config adjusts the service.
type Config struct {
	// BaseURL returns the public base URL of the age interface of an
	// environment; the flow of request ID is at {base}/flow/{ID} and the
	// session cookies are scoped to the base URL's path.
	BaseURL func(verifyd.Environment) string
	// Insecure drops the Secure attribute of cookies (--dev, plain http).
	Insecure bool
	// Providers are the methods besides the document. A simulated provider
	// serves the sandbox only.
	Providers []Provider
	Now       func() time.Time
	Rand      io.Reader
	// UserLimit and IPLimit are how many login attempts an e-mail address
	// and a client address get per LimitWindow (defaults 5, 20 and 15 min);
	// sign-ups count against the client address too.
	UserLimit, IPLimit int
	LimitWindow        time.Duration
	// SessionLifetime and IdleTimeout default to 12 h and 30 min.
	SessionLifetime, IdleTimeout time.Duration
	// Mailer sends the accounts' e-mails (confirmation, password reset,
	// login codes, deletion links); nil: no e-mail, and the pages offer
	// none of it.
	Mailer mailer.Sender
}

// Service implements the hosted age flow.
type Service struct {
	store     Store
	identity  *identity.Service
	requests  Requests
	sealer    *seal.Sealer
	cfg       Config
	logins    *webauth.Logins
	sessions  map[verifyd.Environment]*webauth.Sessions
	providers map[verifyd.Environment]map[verifyd.AgeMethod]Provider
	// rp is each environment's WebAuthn relying party (nil: no passkeys).
	rp map[verifyd.Environment]*webauthn.WebAuthn
	// mailClients and mailAddrs limit e-mail requests per client address
	// (10) and per address and purpose (3) in 15 minutes; codeTries the
	// login-code attempts per address and client (5) and per address
	// from anywhere (20): a stranger guessing codes cannot lock the person
	// out from their own address for long, nor out of passwords and
	// passkeys at all.
	mailClients, mailAddrs, codeTries, codeTriesAll *webauth.Limiter
}

// Realm returns the session realm of an environment's accounts.
func Realm(env verifyd.Environment) string { return "age-" + string(env) }

// New returns the service. A simulated provider serves the sandbox only;
// two providers of one method in an environment, or a provider of a
// built-in method, are refused.
func New(store Store, id *identity.Service, requests Requests, sealer *seal.Sealer, cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	s := &Service{store: store, identity: id, requests: requests, sealer: sealer, cfg: cfg,
		logins: webauth.NewLogins(webauth.LoginConfig{UserLimit: cfg.UserLimit, ClientLimit: cfg.IPLimit,
			Window: cfg.LimitWindow, Now: cfg.Now, BadLogin: ErrBadLogin,
			Limited: func(wait time.Duration) error { return &RateLimitedError{RetryAfter: wait} }}),
		sessions:     map[verifyd.Environment]*webauth.Sessions{},
		providers:    map[verifyd.Environment]map[verifyd.AgeMethod]Provider{},
		rp:           map[verifyd.Environment]*webauthn.WebAuthn{},
		mailClients:  webauth.NewLimiter(10, 15*time.Minute, cfg.Now),
		mailAddrs:    webauth.NewLimiter(3, 15*time.Minute, cfg.Now),
		codeTries:    webauth.NewLimiter(5, 15*time.Minute, cfg.Now),
		codeTriesAll: webauth.NewLimiter(20, 15*time.Minute, cfg.Now),
	}
	for _, env := range verifyd.Environments {
		path := "/"
		if cfg.BaseURL != nil {
			u, err := url.Parse(cfg.BaseURL(env))
			if err != nil {
				return nil, fmt.Errorf("age base URL of %s: %w", env, err)
			}
			path = strings.TrimSuffix(u.Path, "/") + "/"
			if s.rp[env], err = newRelyingParty(env, cfg.BaseURL(env)); err != nil {
				return nil, err
			}
		}
		name := "verifyd_age"
		if env == verifyd.EnvSandbox {
			name = "verifyd_age_sandbox"
		}
		// Lax, not Strict: the person arrives by a redirect that another
		// site started, and a returning person's session must be sent then.
		s.sessions[env] = webauth.NewSessions(store, webauth.Config{Realm: Realm(env), Name: name, Path: path,
			Insecure: cfg.Insecure, SameSite: http.SameSiteLaxMode, Lifetime: cfg.SessionLifetime,
			IdleTimeout: cfg.IdleTimeout, Now: cfg.Now, Rand: cfg.Rand})
		s.providers[env] = map[verifyd.AgeMethod]Provider{}
	}
	for _, p := range cfg.Providers {
		envs := verifyd.Environments
		if p.Simulated() {
			envs = []verifyd.Environment{verifyd.EnvSandbox}
		}
		if p.Method() == verifyd.AgeMethodDocument || p.Method() == verifyd.AgeMethodSandbox {
			return nil, fmt.Errorf("provider %s: the %s method is built in", p.Name(), p.Method())
		}
		for _, env := range envs {
			if _, dup := s.providers[env][p.Method()]; dup {
				return nil, fmt.Errorf("two providers of %s in %s", p.Method(), env)
			}
			s.providers[env][p.Method()] = p
		}
	}
	return s, nil
}

// Sessions returns the browser sessions of an environment's accounts.
func (s *Service) Sessions(env verifyd.Environment) *webauth.Sessions { return s.sessions[env] }

func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Microsecond) }

// --- accounts ---------------------------------------------------------------

// Errors of the account forms.
var (
	// ErrBadLogin is the one answer to a wrong address or password.
	ErrBadLogin = verifyd.Errorf(verifyd.EUnauthorized, "Wrong e-mail address or password.")
	// ErrNotSignedIn refuses a step that needs an account signed in (in
	// this flow, where the country wants the password at each use).
	ErrNotSignedIn = verifyd.Errorf(verifyd.EUnauthorized, "sign in first")
)

// Problems of the sign-up form (FieldError.Problem), which the page turns
// into text in its language.
const (
	ProblemEmail       = "invalid"
	ProblemExists      = "exists"
	ProblemTooShort    = "too_short"
	ProblemTooLong     = "too_long"
	ProblemEncoding    = "encoding"
	ProblemNoMatch     = "mismatch"
	FieldEmail         = "email"
	FieldPassword      = "password"
	FieldPasswordAgain = "password_again"
)

// RateLimitedError refuses a login or sign-up after too many attempts.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("too many attempts; retry in %s", e.RetryAfter.Round(time.Second))
}

// SignUp creates an account in the environment. Sign-ups count against the
// client address's limit (each costs an argon2id hash).
func (s *Service) SignUp(ctx context.Context, env verifyd.Environment, email, password, again string, client netip.Addr) (verifyd.AgeAccount, error) {
	var p verifyd.Problems
	addr := verifyd.NormalizeEmail(email)
	if addr == "" {
		p.Add(FieldEmail, ProblemEmail)
	}
	checkNewPassword(&p, password, again)
	if err := p.Err(); err != nil {
		return verifyd.AgeAccount{}, err
	}
	if err := s.logins.TakeClient(client); err != nil {
		return verifyd.AgeAccount{}, err
	}
	if _, err := s.store.AgeAccountByEmail(ctx, env, addr); err == nil {
		return verifyd.AgeAccount{}, verifyd.InvalidFields([]verifyd.FieldError{{Field: FieldEmail, Problem: ProblemExists}})
	} else if !errors.Is(err, verifyd.ErrNotFound) {
		return verifyd.AgeAccount{}, err
	}
	hash, err := webauth.HashPassword(password)
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	id, err := uuid.NewRandomFromReader(s.cfg.Rand)
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	a := verifyd.AgeAccount{ID: id.String(), Environment: env, Email: addr, PasswordHash: hash, CreatedAt: s.now()}
	if err := s.store.CreateAgeAccount(ctx, a); err != nil {
		if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
			// Created by a concurrent sign-up.
			return verifyd.AgeAccount{}, verifyd.InvalidFields([]verifyd.FieldError{{Field: FieldEmail, Problem: ProblemExists}})
		}
		return verifyd.AgeAccount{}, err
	}
	return a, nil
}

// LogIn checks an account's password. Attempts are limited per address and
// per client address; an unknown address costs as much time as a wrong
// password, and both get ErrBadLogin.
func (s *Service) LogIn(ctx context.Context, env verifyd.Environment, email, password string, client netip.Addr) (verifyd.AgeAccount, error) {
	addr := verifyd.NormalizeEmail(email)
	var a verifyd.AgeAccount
	err := s.logins.LogIn("user:"+string(env)+":"+addr, client, password, func() (webauth.Credential, error) {
		if addr == "" {
			return webauth.Credential{}, verifyd.ErrNotFound
		}
		var err error
		a, err = s.store.AgeAccountByEmail(ctx, env, addr)
		if err == nil && a.PasswordHash == "" {
			// A passkey-only account has no password: the same answer,
			// and the same time, as an unknown address.
			return webauth.Credential{}, verifyd.ErrNotFound
		}
		return webauth.Credential{PasswordHash: a.PasswordHash, Name: "age account " + a.ID}, err
	})
	if err != nil {
		return verifyd.AgeAccount{}, err
	}
	if webauth.NeedsRehash(a.PasswordHash) {
		if hash, err := webauth.HashPassword(password); err == nil {
			if err := s.store.SetAgePasswordHash(ctx, env, a.ID, hash); err == nil {
				a.PasswordHash = hash
			}
		}
	}
	return a, nil
}

// Account returns the account a session names, or ErrNotFound.
func (s *Service) Account(ctx context.Context, env verifyd.Environment, id string) (verifyd.AgeAccount, error) {
	return s.store.AgeAccount(ctx, env, id)
}

// DeleteAccount erases a signed-in account after checking its password
// again (the login's limits apply: ErrBadLogin, RateLimitedError). It
// removes the account, its sessions and proofs, revokes the access tokens
// and expires the unused codes issued for it, and ends and purges its
// identity verifications still under way, in one store transaction
// (docs/age.md, account deletion). The same address can sign up again
// afterwards, as a new account.
//
// A passkey-only account has no password to check: its session must have
// begun (with a passkey login, which verifies the user) less than
// RecentLoginWindow ago, or the answer is ErrReauth.
func (s *Service) DeleteAccount(ctx context.Context, env verifyd.Environment, acct verifyd.AgeAccount, password string, client netip.Addr, sessionStart time.Time) (verifyd.AgeAccountDeleted, error) {
	if acct.PasswordHash == "" {
		if !s.RecentLogin(sessionStart) {
			return verifyd.AgeAccountDeleted{}, ErrReauth
		}
		return s.store.DeleteAgeAccount(ctx, verifyd.AgeAccountDeletion{Environment: env, AccountID: acct.ID,
			SessionRealm: Realm(env), At: s.now()})
	}
	err := s.logins.LogIn("user:"+string(env)+":"+acct.Email, client, password, func() (webauth.Credential, error) {
		a, err := s.store.AgeAccount(ctx, env, acct.ID)
		return webauth.Credential{PasswordHash: a.PasswordHash, Name: "age account " + a.ID}, err
	})
	if err != nil {
		return verifyd.AgeAccountDeleted{}, err
	}
	return s.store.DeleteAgeAccount(ctx, verifyd.AgeAccountDeletion{Environment: env, AccountID: acct.ID,
		SessionRealm: Realm(env), At: s.now()})
}

// RecentLoginWindow is how recent a passkey login must be to delete a
// passkey-only account.
const RecentLoginWindow = 10 * time.Minute

// ErrReauth asks a passkey-only account to log in again before deleting.
var ErrReauth = verifyd.Errorf(verifyd.EUnauthorized, "log in again with your passkey first")

// RecentLogin reports whether a session began less than RecentLoginWindow
// ago.
func (s *Service) RecentLogin(sessionStart time.Time) bool {
	return s.now().Sub(sessionStart) < RecentLoginWindow
}

// --- the flow ---------------------------------------------------------------

// Request returns the authorize request a flow page serves (flow is the
// handle in its address): one of the page's environment, not expired.
// Anything else is ErrNotFound.
func (s *Service) Request(ctx context.Context, env verifyd.Environment, flow string) (age.AuthRequest, error) {
	if flow == "" {
		return age.AuthRequest{}, verifyd.ErrNotFound
	}
	r, err := s.requests.AuthRequest(ctx, flow)
	if err != nil {
		return age.AuthRequest{}, err
	}
	if r.Environment != env {
		return age.AuthRequest{}, verifyd.ErrNotFound
	}
	if _, ok := CountryOf(r.Country); !ok {
		return age.AuthRequest{}, fmt.Errorf("authorize request %s has an unknown country %q", r.ID, r.Country)
	}
	return r, nil
}

// Step is what a flow page shows.
type Step string

// The steps of the flow.
const (
	// StepAccount: sign up or log in (again, where the country wants the
	// password at each use).
	StepAccount Step = "account"
	// StepConsent: the signed-in person has not agreed to share with this
	// business whether they are 18 or older; nothing goes to it before.
	StepConsent Step = "consent"
	// StepMethods: choose how to prove one's age.
	StepMethods Step = "methods"
	// StepBiometric: the document method waits for the person's explicit
	// consent to the processing of their face (matching, liveness) before
	// the capture form; nothing is collected before the answer.
	StepBiometric Step = "biometric"
	// StepDocument: photograph the document and take a selfie (first
	// attempt or a retry).
	StepDocument Step = "document"
	// StepProcessing: the photos are being checked.
	StepProcessing Step = "processing"
	// StepReview: a person reviews the document verification; the page
	// waits.
	StepReview Step = "review"
	// StepProvider: a provider's check is under way (a simulation shows
	// its choices).
	StepProvider Step = "provider"
	// StepDone: the outcome is known; Complete sends the person back.
	StepDone Step = "done"
)

// Visitor is who opened a flow page: the signed-in account (nil when none)
// and when its session began.
type Visitor struct {
	Account      *verifyd.AgeAccount
	SessionStart time.Time
}

// State is a flow as its page shows it.
type State struct {
	Request age.AuthRequest
	Country Country
	Account *verifyd.AgeAccount
	// Relogin: an account is signed in, but the country wants the password
	// in this flow (authentication at each use).
	Relogin bool
	Step    Step
	// BusinessName is who asks (StepConsent).
	BusinessName string
	// Methods are those offered: accepted by the country and available in
	// the environment.
	Methods []verifyd.AgeMethod
	// Proof is the proof the step is about.
	Proof *verifyd.AgeProof
	// Document is the document proof's verification (document steps).
	Document *identity.HostedState
	// Choices are a simulation's outcomes (StepProvider).
	Choices []verifyd.AgeResult
	// Failed is this flow's latest proof when it failed (StepMethods shows
	// why: FailedReason for the document method).
	Failed       *verifyd.AgeProof
	FailedReason verifyd.Reason
	// Declined: that failure is the person's refusal of the processing of
	// their face (StepBiometric's no), not a check that failed.
	Declined bool
	// Outcome is set in StepDone; Reused says a stored proof satisfied the
	// country.
	Outcome *age.Outcome
	Reused  bool
}

// Offered lists the methods a country offers in an environment.
func (s *Service) Offered(env verifyd.Environment, c Country) []verifyd.AgeMethod {
	var out []verifyd.AgeMethod
	for _, m := range c.Methods {
		if _, ok := s.providers[env][m]; ok || m == verifyd.AgeMethodDocument {
			out = append(out, m)
		}
	}
	return out
}

// publicID is the id an integrator learns for a proof: a keyed hash of the
// proof and the integrator, so the same proof has another id at another
// integrator and two sites cannot link a person by it. It is stable, so an
// integrator sees the same id each time a stored proof is reused.
func (s *Service) publicID(businessID, proofID string) string {
	mac := s.sealer.MAC([]byte("age-proof-id|" + businessID + "|" + proofID))
	return "agv_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(mac[:20]))
}

// PublicID is publicID for operators and tests: the id integrator
// businessID received for a proof.
func (s *Service) PublicID(businessID, proofID string) string { return s.publicID(businessID, proofID) }

// State works out what the flow page shows to a visitor.
func (s *Service) State(ctx context.Context, req age.AuthRequest, v Visitor) (State, error) {
	c, _ := CountryOf(req.Country)
	st := State{Request: req, Country: c, Account: v.Account, Methods: s.Offered(req.Environment, c)}
	if v.Account == nil {
		st.Step = StepAccount
		return st, nil
	}
	if c.LoginEachUse && v.SessionStart.Before(req.CreatedAt) {
		st.Step, st.Relogin = StepAccount, true
		return st, nil
	}
	// Nothing about the person, not even a stored proof's answer, goes to
	// a business they have not agreed to share with.
	if _, err := s.store.AgeConsent(ctx, req.Environment, v.Account.ID, req.BusinessID); errors.Is(err, verifyd.ErrNotFound) {
		b, err := s.store.Business(ctx, req.BusinessID)
		if err != nil {
			return State{}, fmt.Errorf("business of authorize request %s: %w", req.ID, err)
		}
		st.Step, st.BusinessName = StepConsent, b.Name
		return st, nil
	} else if err != nil {
		return State{}, err
	}
	proofs, err := s.proofs(ctx, req.Environment, v.Account.ID)
	if err != nil {
		return State{}, err
	}
	now := s.now()
	// A stored proof that satisfies the country sends the person straight
	// back. Newest first; a later "minor" stops older adult proofs from
	// being reused.
	for n := range proofs {
		p := proofs[n]
		if p.Result == verifyd.AgeResultMinor {
			break
		}
		if p.Result == verifyd.AgeResultAdult && c.Accepts(p.Method) && p.DecidedAt != nil && now.Sub(*p.DecidedAt) < c.Validity {
			st.Step, st.Proof, st.Reused = StepDone, &p, p.RequestID != req.ID
			st.Outcome = &age.Outcome{AgeVerified: true, VerificationID: s.publicID(req.BusinessID, p.ID), Method: string(p.Method),
				AccountID: v.Account.ID}
			return st, nil
		}
	}
	// This flow's latest proof decides what is shown; without one, a
	// document check still under way from an earlier flow is waited for.
	var cur *verifyd.AgeProof
	for n := range proofs {
		if proofs[n].RequestID == req.ID {
			cur = &proofs[n]
			break
		}
	}
	if cur == nil {
		for n := range proofs {
			if p := proofs[n]; p.Method == verifyd.AgeMethodDocument && p.Result == verifyd.AgeResultPending {
				if ds, err := s.identity.InternalState(ctx, p.IdentityVerificationID); err == nil &&
					(ds.Phase == identity.PhaseProcessing || ds.Phase == identity.PhaseReview) {
					cur = &proofs[n]
				}
				break
			}
		}
	}
	st.Step = StepMethods
	if cur == nil {
		return st, nil
	}
	switch cur.Result {
	case verifyd.AgeResultMinor:
		st.Step, st.Proof = StepDone, cur
		st.Outcome = &age.Outcome{AgeVerified: false, VerificationID: s.publicID(req.BusinessID, cur.ID), Method: string(cur.Method),
			AccountID: v.Account.ID}
	case verifyd.AgeResultFailed:
		st.Failed = cur
		if cur.Method == verifyd.AgeMethodDocument {
			if ds, err := s.identity.InternalState(ctx, cur.IdentityVerificationID); err == nil {
				st.FailedReason, st.Declined = ds.Reason, ds.Declined
			}
		}
	case verifyd.AgeResultPending:
		st.Proof = cur
		if cur.Method == verifyd.AgeMethodDocument {
			ds, err := s.identity.InternalState(ctx, cur.IdentityVerificationID)
			if err != nil {
				return State{}, err
			}
			st.Document = &ds
			switch {
			case ds.NeedsConsent():
				st.Step = StepBiometric
			case ds.Phase == identity.PhaseCapture, ds.Phase == identity.PhaseRetry:
				st.Step = StepDocument
			case ds.Phase == identity.PhaseReview:
				st.Step = StepReview
			default:
				st.Step = StepProcessing
			}
			return st, nil
		}
		p, ok := s.providers[req.Environment][cur.Method]
		if !ok {
			// The provider is gone (configuration changed): choose again.
			st.Proof = nil
			return st, nil
		}
		step, err := p.Start(ctx, s.providerStart(req, cur.ID))
		if err != nil {
			return State{}, err
		}
		st.Step, st.Choices = StepProvider, step.Choices
	}
	return st, nil
}

func (s *Service) providerStart(req age.AuthRequest, proofID string) ProviderStart {
	in := ProviderStart{ProofID: proofID, Environment: req.Environment, Country: req.Country}
	if s.cfg.BaseURL != nil {
		in.ReturnURL = strings.TrimSuffix(s.cfg.BaseURL(req.Environment), "/") + "/flow/" + url.PathEscape(req.Flow) +
			"/provider/" + url.PathEscape(proofID)
	}
	return in
}

// proofs lists an account's proofs, newest first, after bringing pending
// document proofs up to date with their verification.
func (s *Service) proofs(ctx context.Context, env verifyd.Environment, accountID string) ([]verifyd.AgeProof, error) {
	proofs, err := s.store.AgeProofs(ctx, env, accountID)
	if err != nil {
		return nil, err
	}
	for n, p := range proofs {
		if p.Method == verifyd.AgeMethodDocument && p.Result == verifyd.AgeResultPending {
			if proofs[n], err = s.syncDocument(ctx, p); err != nil {
				return nil, err
			}
		}
	}
	return proofs, nil
}

// syncDocument decides a document proof once its verification is decided:
// approved is adult (unless the date of birth read from the MRZ says
// otherwise), failed with reason minor is minor, any other failure or
// expiry is failed. The proof is decided at the verification's decision.
func (s *Service) syncDocument(ctx context.Context, p verifyd.AgeProof) (verifyd.AgeProof, error) {
	ds, err := s.identity.InternalState(ctx, p.IdentityVerificationID)
	if err != nil {
		return p, fmt.Errorf("verification of age proof %s: %w", p.ID, err)
	}
	var result verifyd.AgeResult
	switch ds.Status {
	case verifyd.StatusApproved:
		result = verifyd.AgeResultAdult
		years, ok, err := s.identity.AgeAtDecision(ctx, ds.ID)
		if err != nil {
			return p, err
		}
		if ok && years < Threshold {
			result = verifyd.AgeResultMinor
		}
	case verifyd.StatusFailed:
		result = verifyd.AgeResultFailed
		if ds.Reason == verifyd.ReasonMinor {
			result = verifyd.AgeResultMinor
		}
	case verifyd.StatusExpired:
		result = verifyd.AgeResultFailed
	default:
		return p, nil
	}
	decided, err := s.store.DecideAgeProof(ctx, p.ID, result, ds.UpdatedAt)
	if err != nil && verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		return p, err
	}
	return decided, nil
}

// OnlyMethod is the method to start without asking: the country accepts
// one method in this environment (Germany and France: the document), so
// the methods page would offer a single button. After a failed check the
// page is shown (it says why), and a choice is never made for the person
// when there are several.
func OnlyMethod(st State) (verifyd.AgeMethod, bool) {
	if st.Step != StepMethods || len(st.Methods) != 1 || st.Failed != nil {
		return "", false
	}
	return st.Methods[0], true
}

// ErrMethodNotOffered refuses a method the request's country does not
// accept, or that no provider serves in the environment.
var ErrMethodNotOffered = verifyd.InvalidFields([]verifyd.FieldError{{Field: "method",
	Problem: "is not offered for this country and environment"}})

// ErrBusy refuses to start or submit while a check is under way.
var ErrBusy = verifyd.Errorf(verifyd.EConflict, "a check is under way")

// signedIn returns the flow state for a step that needs the account.
func (s *Service) signedIn(ctx context.Context, req age.AuthRequest, v Visitor) (State, error) {
	st, err := s.State(ctx, req, v)
	if err != nil {
		return State{}, err
	}
	switch st.Step {
	case StepAccount:
		return st, ErrNotSignedIn
	case StepConsent:
		return st, ErrNoConsent
	}
	return st, nil
}

// ErrNoConsent refuses a step before the person agreed to share with the
// business (the page shows the question).
var ErrNoConsent = verifyd.Errorf(verifyd.EConflict, "agree to share with this site first")

// Consent records the signed-in person's answer to "<business> asks
// whether you are 18 or older. Share?". Yes is remembered for the
// account and business (revocable on the account page) and the flow goes
// on. No is not remembered: it withdraws a consent given before, and the
// flow ends at once as "Go back without proving my age" does, with a code
// saying age_verified false and an id of a new proof of method none, so
// the business learns nothing it could link to the person; the returned
// URL is then the redirect_uri with the code.
func (s *Service) Consent(ctx context.Context, req age.AuthRequest, v Visitor, share bool) (string, error) {
	st, err := s.State(ctx, req, v)
	if err != nil {
		return "", err
	}
	if st.Step == StepAccount {
		return "", ErrNotSignedIn
	}
	env, acct := req.Environment, v.Account.ID
	if share {
		return "", s.store.GrantAgeConsent(ctx, verifyd.AgeConsent{Environment: env, AccountID: acct,
			BusinessID: req.BusinessID, GrantedAt: s.now()})
	}
	if err := s.store.RevokeAgeConsent(ctx, env, acct, req.BusinessID); err != nil && !errors.Is(err, verifyd.ErrNotFound) {
		return "", err
	}
	p, err := s.newDecided(req, v.Account, verifyd.AgeMethodNone, "declined", verifyd.AgeResultFailed)
	if err != nil {
		return "", err
	}
	if err := s.store.CreateAgeProof(ctx, p); err != nil {
		return "", err
	}
	return s.requests.Complete(ctx, req.Flow, age.Outcome{AgeVerified: false, VerificationID: s.publicID(req.BusinessID, p.ID),
		Method: string(p.Method), AccountID: acct})
}

// Consents lists the businesses an account shares its answer with.
func (s *Service) Consents(ctx context.Context, env verifyd.Environment, accountID string) ([]verifyd.AgeConsent, error) {
	return s.store.AgeConsents(ctx, env, accountID)
}

// RevokeConsent stops sharing with a business: its next request asks
// again. Revoking what was not granted is ErrNotFound.
func (s *Service) RevokeConsent(ctx context.Context, env verifyd.Environment, accountID, businessID string) error {
	return s.store.RevokeAgeConsent(ctx, env, accountID, businessID)
}

// ChooseMethod starts proving one's age with a method. The document
// method creates an internal identity verification (business and
// environment of the request, customer = the account); another method
// starts its provider, whose step says whether to send the person away
// (RedirectURL). A method the country does not accept is refused.
func (s *Service) ChooseMethod(ctx context.Context, req age.AuthRequest, v Visitor, method verifyd.AgeMethod) (State, ProviderStep, error) {
	st, err := s.signedIn(ctx, req, v)
	if err != nil {
		return st, ProviderStep{}, err
	}
	if !slices.Contains(st.Methods, method) {
		return st, ProviderStep{}, ErrMethodNotOffered
	}
	switch st.Step {
	case StepDone:
		return st, ProviderStep{}, nil
	case StepProcessing, StepReview:
		return st, ProviderStep{}, ErrBusy
	case StepBiometric:
		// The document method was chosen and waits for the answer: not
		// another internal verification.
		if method == verifyd.AgeMethodDocument {
			return st, ProviderStep{}, nil
		}
	}
	id, err := uuid.NewRandomFromReader(s.cfg.Rand)
	if err != nil {
		return st, ProviderStep{}, err
	}
	p := verifyd.AgeProof{ID: id.String(), Environment: req.Environment, AccountID: v.Account.ID, Method: method,
		Result: verifyd.AgeResultPending, BusinessID: req.BusinessID, RequestID: req.ID, Country: req.Country,
		CreatedAt: s.now()}
	var step ProviderStep
	if method == verifyd.AgeMethodDocument {
		ds, err := s.identity.CreateInternal(ctx, identity.InternalInput{BusinessID: req.BusinessID,
			Environment: req.Environment, APIKey: req.ClientID,
			Customer: verifyd.Customer{ID: v.Account.ID, Email: v.Account.Email}})
		if err != nil {
			return st, ProviderStep{}, err
		}
		p.Provider, p.IdentityVerificationID = "verifyd-document", ds.ID
		if err := s.store.CreateAgeProof(ctx, p); err != nil {
			return st, ProviderStep{}, err
		}
	} else {
		prov := s.providers[req.Environment][method]
		p.Provider = prov.Name()
		if err := s.store.CreateAgeProof(ctx, p); err != nil {
			return st, ProviderStep{}, err
		}
		if step, err = prov.Start(ctx, s.providerStart(req, p.ID)); err != nil {
			return st, ProviderStep{}, err
		}
	}
	st, err = s.State(ctx, req, v)
	return st, step, err
}

// ErrNoBiometricConsent refuses the document method's photos and liveness
// challenge before the person agreed to the processing of their face (the
// page asks first).
var ErrNoBiometricConsent = verifyd.Errorf(verifyd.EConflict, "agree to the processing of your face first")

// BiometricConsent records the answer to the document method's question
// "Do you agree to this processing of your face?" on the attempt's
// internal verification. Yes records the time (the verification's
// consented_at) and the capture form follows. No ends the attempt
// (failed, idv_error, cause consent_declined; nothing was collected):
// the page then offers the other methods, the document again, and "Go back
// without proving my age". Outside StepBiometric it is ErrBusy.
func (s *Service) BiometricConsent(ctx context.Context, req age.AuthRequest, v Visitor, yes bool) (State, error) {
	st, err := s.signedIn(ctx, req, v)
	if err != nil {
		return st, err
	}
	if st.Step != StepBiometric {
		return st, ErrBusy
	}
	id := st.Proof.IdentityVerificationID
	if yes {
		_, err = s.identity.ConsentInternal(ctx, id)
	} else {
		_, err = s.identity.DeclineInternal(ctx, id)
	}
	if err != nil {
		return st, err
	}
	return s.State(ctx, req, v)
}

// SubmitDocument sends the document method's photos to the pipeline (the
// rules, retries and review of the identity hosted page).
func (s *Service) SubmitDocument(ctx context.Context, req age.AuthRequest, v Visitor, in identity.HostedSubmission) (State, error) {
	st, err := s.signedIn(ctx, req, v)
	if err != nil {
		return st, err
	}
	if st.Step == StepBiometric {
		return st, ErrNoBiometricConsent
	}
	if st.Step != StepDocument {
		return st, ErrBusy
	}
	if _, err := s.identity.SubmitInternal(ctx, st.Proof.IdentityVerificationID, in); err != nil {
		return st, err
	}
	return s.State(ctx, req, v)
}

// DocumentChallenge draws the active liveness challenge the document
// method's page performs after a camera selfie, bound to the proof's
// internal verification and its next attempt (identity.IssueChallenge).
func (s *Service) DocumentChallenge(ctx context.Context, req age.AuthRequest, v Visitor) (liveness.Challenge, error) {
	st, err := s.signedIn(ctx, req, v)
	if err != nil {
		return liveness.Challenge{}, err
	}
	if st.Step == StepBiometric {
		return liveness.Challenge{}, ErrNoBiometricConsent
	}
	if st.Step != StepDocument {
		return liveness.Challenge{}, ErrBusy
	}
	return s.identity.IssueInternalChallenge(ctx, st.Proof.IdentityVerificationID)
}

// FinishProvider records what a provider's check found: the simulation's
// form, or (returned) the answer a real provider sent the person back with.
// A simulation is never finished by a return: a link could do that.
func (s *Service) FinishProvider(ctx context.Context, req age.AuthRequest, v Visitor, proofID string, values url.Values, returned bool) (State, error) {
	st, err := s.signedIn(ctx, req, v)
	if err != nil {
		return st, err
	}
	if st.Step != StepProvider || st.Proof.ID != proofID {
		return st, ErrBusy
	}
	prov := s.providers[req.Environment][st.Proof.Method]
	if returned && prov.Simulated() {
		return st, ErrBusy
	}
	result, err := prov.Finish(ctx, ProviderFinish{ProofID: proofID, Values: values})
	if err != nil {
		return st, err
	}
	if _, err := s.store.DecideAgeProof(ctx, proofID, result, s.now()); err != nil && verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		return st, err
	}
	return s.State(ctx, req, v)
}

// Complete finishes a flow whose outcome is known and returns the
// integrator's redirect_uri with the code (age.ErrCompleted when it was
// finished before).
func (s *Service) Complete(ctx context.Context, st State) (string, error) {
	if st.Step != StepDone || st.Outcome == nil {
		return "", verifyd.Errorf(verifyd.EConflict, "the flow has no outcome yet")
	}
	return s.requests.Complete(ctx, st.Request.Flow, *st.Outcome)
}

// Cancel sends the person back without proof of age: age_verified is false.
// The id is that of this flow's latest proof, or of a proof recording that
// the person left without trying (method "none").
func (s *Service) Cancel(ctx context.Context, req age.AuthRequest, v Visitor) (string, error) {
	var proof *verifyd.AgeProof
	if st, err := s.State(ctx, req, v); err != nil {
		return "", err
	} else if st.Step == StepDone {
		return s.Complete(ctx, st)
	} else if st.Proof != nil && st.Proof.RequestID == req.ID {
		proof = st.Proof
	} else if st.Failed != nil {
		proof = st.Failed
	}
	if proof == nil {
		p, err := s.newDecided(req, v.Account, verifyd.AgeMethodNone, "none", verifyd.AgeResultFailed)
		if err != nil {
			return "", err
		}
		if err := s.store.CreateAgeProof(ctx, p); err != nil {
			return "", err
		}
		proof = &p
	}
	o := age.Outcome{AgeVerified: false, VerificationID: s.publicID(req.BusinessID, proof.ID), Method: string(proof.Method)}
	if v.Account != nil {
		o.AccountID = v.Account.ID
	}
	return s.requests.Complete(ctx, req.Flow, o)
}

func (s *Service) newDecided(req age.AuthRequest, acct *verifyd.AgeAccount, m verifyd.AgeMethod, provider string, r verifyd.AgeResult) (verifyd.AgeProof, error) {
	id, err := uuid.NewRandomFromReader(s.cfg.Rand)
	if err != nil {
		return verifyd.AgeProof{}, err
	}
	now := s.now()
	p := verifyd.AgeProof{ID: id.String(), Environment: req.Environment, Method: m, Provider: provider, Result: r,
		BusinessID: req.BusinessID, RequestID: req.ID, Country: req.Country, CreatedAt: now, DecidedAt: &now}
	if acct != nil {
		p.AccountID = acct.ID
	}
	return p, nil
}

// Sandbox outcomes of the shortcut that finishes a sandbox flow at once.
const (
	SandboxAdult = "adult"
	SandboxMinor = "minor"
)

// SandboxComplete finishes a sandbox flow at once with the outcome an
// integrator's test chose (adult or minor), without an account or a
// check: the proof (method "sandbox") belongs to nobody and is never
// reused. Production requests are not found.
func (s *Service) SandboxComplete(ctx context.Context, req age.AuthRequest, outcome string) (string, error) {
	if req.Environment != verifyd.EnvSandbox {
		return "", verifyd.ErrNotFound
	}
	result := verifyd.AgeResultAdult
	switch outcome {
	case SandboxAdult:
	case SandboxMinor:
		result = verifyd.AgeResultMinor
	default:
		return "", verifyd.InvalidFields([]verifyd.FieldError{{Field: "outcome", Problem: "must be adult or minor"}})
	}
	p, err := s.newDecided(req, nil, verifyd.AgeMethodSandbox, "sandbox-shortcut", result)
	if err != nil {
		return "", err
	}
	if err := s.store.CreateAgeProof(ctx, p); err != nil {
		return "", err
	}
	return s.requests.Complete(ctx, req.Flow, age.Outcome{AgeVerified: result == verifyd.AgeResultAdult,
		VerificationID: s.publicID(req.BusinessID, p.ID), Method: string(verifyd.AgeMethodSandbox)})
}

// checkNewPassword adds the problems of a new password typed twice (at
// sign-up and at a reset by e-mail): the sign-up's rules.
func checkNewPassword(p *verifyd.Problems, password, again string) {
	if err := webauth.CheckPassword(password); err != nil {
		switch {
		case len(password) > webauth.MaxPasswordLen:
			p.Add(FieldPassword, ProblemTooLong)
		case strings.Contains(err.Error(), "UTF-8"):
			p.Add(FieldPassword, ProblemEncoding)
		default:
			p.Add(FieldPassword, ProblemTooShort)
		}
	} else if password != again {
		p.Add(FieldPasswordAgain, ProblemNoMatch)
	}
}
