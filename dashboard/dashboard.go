// Package dashboard holds the use cases of the business dashboard, where
// an integrator's people manage what the operator's command line manages
// for them otherwise: business users (invited by the operator or an
// owner, or a sandbox-only business's first user by self sign-up), their
// sign-in (password plus a TOTP code), roles and what each may do (Can),
// API keys, allowed-redirect lists, settings and the audit log. Keys,
// lists and settings go through the tenant service, so the rules and the
// audit log are the same as for the command line and API C; every change
// made here is recorded with the business user as the actor.
//
// web/dashboard is its HTTP side; docs/dashboard.md describes both.
package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/mailer"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/tenant"
	"github.com/verifyd/verifyd/webauth"
)

// Realm is the session realm of business users.
const Realm = "dashboard"

// InvitationLifetime is how long an invitation link works.
const InvitationLifetime = 7 * 24 * time.Hour

// Config adjusts the dashboard service.
type Config struct {
	// SignUp lets anyone create a sandbox-only business with themselves
	// as its owner (serve --dashboard-signup).
	SignUp bool
	// Insecure drops the Secure attribute of cookies (development over
	// plain http).
	Insecure bool
	Now      func() time.Time
	Rand     io.Reader
	// UserLimit and ClientLimit bound sign-in attempts per account and
	// address and per address, AccountLimit those on one account from
	// addresses it never signed in from (webauth.LoginConfig; defaults 5,
	// 20 and 10 per 15 min). AccountLimit is lower than webauth's default
	// because it bounds how fast someone who knows the password can guess
	// codes: 960 guesses a day, each right with a chance of 3 in a
	// million (docs/dashboard.md).
	UserLimit, ClientLimit, AccountLimit int
	// BaseURL is the dashboard's public URL (https://host/dashboard): its
	// host is the passkeys' relying party. Passkeys are off when it is
	// empty or its host is an IP address.
	BaseURL string
	// Mailer e-mails invitation links to the invited (nil: the link is
	// shown or printed to whoever invited, who sends it).
	Mailer mailer.Sender
}

// Service is the dashboard's use cases.
type Service struct {
	store   verifyd.Store
	tenants *tenant.Service
	sealer  *seal.Sealer
	cfg     Config
	logins  *webauth.Logins
	rp      *webauthn.WebAuthn // nil: no passkeys
	// Sessions are the business users' browser sessions.
	Sessions *webauth.Sessions
}

// New returns the dashboard service.
func New(store verifyd.Store, tenants *tenant.Service, sealer *seal.Sealer, cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.AccountLimit == 0 {
		cfg.AccountLimit = 10
	}
	rp, err := relyingParty(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	return &Service{store: store, tenants: tenants, sealer: sealer, cfg: cfg, rp: rp,
		logins: webauth.NewLogins(webauth.LoginConfig{UserLimit: cfg.UserLimit, ClientLimit: cfg.ClientLimit, AccountLimit: cfg.AccountLimit,
			Now: cfg.Now, BadLogin: ErrBadLogin,
			Limited: func(wait time.Duration) error { return &RateLimitedError{RetryAfter: wait} }}),
		Sessions: webauth.NewSessions(store, webauth.Config{Realm: Realm, Name: "verifyd_dashboard",
			Insecure: cfg.Insecure, Now: cfg.Now, Rand: cfg.Rand}),
	}, nil
}

// NewTOTPKey returns a fresh TOTP secret for account to enrol.
func (s *Service) NewTOTPKey(account string) (TOTPKey, error) { return NewTOTPKey(s.cfg.Rand, account) }

// InvitationLink is the link of an invitation token under the
// dashboard's URL, or "" when the service has none.
func (s *Service) InvitationLink(token string) string {
	if s.cfg.BaseURL == "" {
		return ""
	}
	return strings.TrimSuffix(s.cfg.BaseURL, "/") + "/invitations/" + token
}

// SignUpOpen reports whether self sign-up is enabled.
func (s *Service) SignUpOpen() bool { return s.cfg.SignUp }

// ErrBadLogin is the one answer to an unknown address, a wrong password,
// a wrong or reused code and a removed user.
var ErrBadLogin = verifyd.Errorf(verifyd.EUnauthorized, "Wrong e-mail address, password or code.")

// ErrInvitation is the one answer to an unknown, used or expired
// invitation link.
var ErrInvitation = verifyd.Errorf(verifyd.ENotFound, "This invitation link is unknown, used or expired.")

// ErrSignUpClosed refuses a sign-up when the operator did not enable it.
var ErrSignUpClosed = verifyd.Errorf(verifyd.ENotFound, "Sign-up is not available here.")

// RateLimitedError refuses a sign-in attempt after too many.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("too many attempts; retry in %s", e.RetryAfter.Round(time.Second))
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// totpAAD binds a sealed TOTP secret to its user.
func totpAAD(userID string) []byte { return []byte("dashboard-totp/" + userID) }

// Invite invites email to join a business in role, and returns the
// invitation and the token of its link (shown once; only its hash is
// stored). The actor is the context's (the operator's command line, or
// an owner through InviteUser).
func (s *Service) Invite(ctx context.Context, businessID, email string, role verifyd.Role) (verifyd.Invitation, string, error) {
	addr := verifyd.NormalizeEmail(email)
	if addr == "" {
		return verifyd.Invitation{}, "", ErrEmail
	}
	if !role.Valid() {
		return verifyd.Invitation{}, "", ErrRole
	}
	// An address in use could never accept; say so now rather than at
	// the link.
	if _, err := s.store.BusinessUserByEmail(ctx, addr); err == nil {
		return verifyd.Invitation{}, "", ErrTaken
	} else if !errors.Is(err, verifyd.ErrNotFound) {
		return verifyd.Invitation{}, "", err
	}
	token, err := verifyd.RandomToken(s.cfg.Rand, 32)
	if err != nil {
		return verifyd.Invitation{}, "", err
	}
	now := s.cfg.Now().UTC().Truncate(time.Microsecond)
	inv := verifyd.Invitation{TokenHash: hashToken(token), BusinessID: businessID, Email: addr, Role: role,
		InvitedBy: verifyd.ActorFrom(ctx), CreatedAt: now, ExpiresAt: now.Add(InvitationLifetime)}
	if err := s.store.CreateInvitation(ctx, inv); err != nil {
		return verifyd.Invitation{}, "", err
	}
	// The detail names the role only: addresses stay out of the log.
	s.audit(ctx, businessID, verifyd.AuditUserInvite, "", "role="+string(role))
	return inv, token, nil
}

func (s *Service) audit(ctx context.Context, businessID, action, subject, detail string) {
	// As in tenant: the change is committed, so a failure to record it
	// does not fail the change.
	_ = s.store.AppendAudit(ctx, verifyd.AuditEntry{At: s.cfg.Now().UTC(), BusinessID: businessID,
		Actor: verifyd.ActorFrom(ctx), Action: action, Subject: subject, Detail: detail})
}

// OpenInvitation returns the invitation of a link's token and its
// business while it can be accepted, or ErrInvitation.
func (s *Service) OpenInvitation(ctx context.Context, token string) (verifyd.Invitation, verifyd.Business, error) {
	inv, err := s.store.Invitation(ctx, hashToken(token))
	if errors.Is(err, verifyd.ErrNotFound) || (err == nil && (inv.AcceptedAt != nil || !s.cfg.Now().Before(inv.ExpiresAt))) {
		return verifyd.Invitation{}, verifyd.Business{}, ErrInvitation
	}
	if err != nil {
		return verifyd.Invitation{}, verifyd.Business{}, err
	}
	b, err := s.store.Business(ctx, inv.BusinessID)
	return inv, b, err
}

// Enrollment is what a new user chooses: a name, a password, and a TOTP
// secret (from NewTOTPKey, shown to them) proven by a current code.
type Enrollment struct {
	Name, Password string
	TOTPSecret     string
	Code           string
}

// MaxNameLen bounds a user's display name, in characters.
const MaxNameLen = 200

// Errors of an enrollment or a sign-up, one per field.
var (
	ErrName     = verifyd.Errorf(verifyd.EInvalid, "a name of 1 to %d characters is required", MaxNameLen)
	ErrPassword = verifyd.Errorf(verifyd.EInvalid, "the password must have %d to %d characters", webauth.MinPasswordLen, webauth.MaxPasswordLen)
	ErrCode     = verifyd.Errorf(verifyd.EInvalid, "the code does not match the authenticator app's")
	ErrEmail    = verifyd.Errorf(verifyd.EInvalid, "an e-mail address such as name@example.com is required")
	ErrBusiness = verifyd.Errorf(verifyd.EInvalid, "a business name of 1 to 200 characters is required")
	ErrTaken    = verifyd.Errorf(verifyd.EConflict, "a user with this e-mail address exists")
)

// newUser checks an enrollment and builds the user it creates.
func (s *Service) newUser(e Enrollment, email string, role verifyd.Role) (verifyd.BusinessUser, error) {
	name := strings.TrimSpace(e.Name)
	if name == "" || utf8.RuneCountInString(name) > MaxNameLen || !utf8.ValidString(name) {
		return verifyd.BusinessUser{}, ErrName
	}
	if webauth.CheckPassword(e.Password) != nil {
		return verifyd.BusinessUser{}, ErrPassword
	}
	now := s.cfg.Now().UTC().Truncate(time.Microsecond)
	if _, err := TOTPKeyFor(email, e.TOTPSecret); err != nil {
		return verifyd.BusinessUser{}, ErrCode
	}
	step := checkTOTP(e.TOTPSecret, e.Code, now)
	if step == 0 {
		return verifyd.BusinessUser{}, ErrCode
	}
	hash, err := webauth.HashPassword(e.Password)
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	id, err := verifyd.RandomToken(s.cfg.Rand, 12)
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	id = "bu_" + id
	sealed, err := s.sealer.Seal([]byte(e.TOTPSecret), totpAAD(id))
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	// The enrolment code counts as used: it cannot sign in again.
	return verifyd.BusinessUser{ID: id, Email: email, Name: name, Role: role, PasswordHash: hash,
		SealedTOTP: sealed, TOTPStep: step, CreatedAt: now}, nil
}

// AcceptInvitation creates the invited user with the enrollment and
// returns it; the link works once.
func (s *Service) AcceptInvitation(ctx context.Context, token string, e Enrollment) (verifyd.BusinessUser, error) {
	inv, _, err := s.OpenInvitation(ctx, token)
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	u, err := s.newUser(e, inv.Email, inv.Role)
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	u.BusinessID = inv.BusinessID
	switch err := s.store.AcceptInvitation(ctx, inv.TokenHash, u); {
	case errors.Is(err, verifyd.ErrNotFound):
		return verifyd.BusinessUser{}, ErrInvitation
	case verifyd.ErrorCodeOf(err) == verifyd.EConflict:
		return verifyd.BusinessUser{}, ErrTaken
	case err != nil:
		return verifyd.BusinessUser{}, err
	}
	ctx = verifyd.WithActor(ctx, actorOf(u))
	s.audit(ctx, u.BusinessID, verifyd.AuditUserJoin, u.ID, "role="+string(u.Role))
	return u, nil
}

// SignUp creates a sandbox-only business named businessName with the
// new user as its owner, when sign-up is enabled. Sign-ups count against
// the client's sign-in limit, since each costs a password hash.
func (s *Service) SignUp(ctx context.Context, client netip.Addr, businessName, email string, e Enrollment) (verifyd.Business, verifyd.BusinessUser, error) {
	if !s.cfg.SignUp {
		return verifyd.Business{}, verifyd.BusinessUser{}, ErrSignUpClosed
	}
	if !verifyd.ValidBusinessName(businessName) {
		return verifyd.Business{}, verifyd.BusinessUser{}, ErrBusiness
	}
	addr := verifyd.NormalizeEmail(email)
	if addr == "" {
		return verifyd.Business{}, verifyd.BusinessUser{}, ErrEmail
	}
	if err := s.logins.TakeClient(client); err != nil {
		return verifyd.Business{}, verifyd.BusinessUser{}, err
	}
	u, err := s.newUser(e, addr, verifyd.RoleOwner)
	if err != nil {
		return verifyd.Business{}, verifyd.BusinessUser{}, err
	}
	b, u, err := s.tenants.CreateSandboxBusiness(ctx, businessName, u)
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		return verifyd.Business{}, verifyd.BusinessUser{}, ErrTaken
	}
	return b, u, err
}

// Authenticate checks a sign-in: the address, the password and a TOTP
// code not used before. Attempts are limited per account and address
// (webauth.Logins); a wrong code counts as a failed attempt, so the code
// cannot be guessed by someone who knows the password.
func (s *Service) Authenticate(ctx context.Context, email, password, code string, client netip.Addr) (verifyd.BusinessUser, error) {
	addr := verifyd.NormalizeEmail(email)
	var u verifyd.BusinessUser
	var step int64
	err := s.logins.LogIn("dashboard|"+addr, client, password, func() (webauth.Credential, error) {
		if addr == "" {
			return webauth.Credential{}, verifyd.ErrNotFound
		}
		var err error
		if u, err = s.store.BusinessUserByEmail(ctx, addr); err != nil {
			return webauth.Credential{}, err
		}
		secret, err := s.sealer.Open(u.SealedTOTP, totpAAD(u.ID))
		if err != nil {
			return webauth.Credential{}, fmt.Errorf("open TOTP secret of %s: %w", u.ID, err)
		}
		step = checkTOTP(string(secret), code, s.cfg.Now())
		// A wrong code refuses the sign-in like a wrong password, once
		// the password has been checked.
		return webauth.Credential{PasswordHash: u.PasswordHash, Disabled: !u.Active() || step == 0 || step <= u.TOTPStep,
			Name: "business user " + u.ID}, nil
	})
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	// Of two sign-ins racing with one code, one wins.
	if err := s.store.UseTOTPStep(ctx, u.ID, step); verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		return verifyd.BusinessUser{}, ErrBadLogin
	} else if err != nil {
		return verifyd.BusinessUser{}, err
	}
	return u, nil
}

// Member is a signed-in, active business user with their business.
type Member struct {
	User     verifyd.BusinessUser
	Business verifyd.Business
}

// Can reports whether the member's role has permission p.
func (m Member) Can(p Permission) bool { return Can(m.User.Role, p) }

// actorOf is the audit log's name of a user: the id, not the address,
// because the log keeps no personal data (verifyd.AuditEntry).
func actorOf(u verifyd.BusinessUser) verifyd.Actor {
	return verifyd.Actor{Kind: verifyd.ActorBusinessUser, Name: u.ID}
}

// Context returns ctx carrying the member as the actor of changes.
func (m Member) Context(ctx context.Context) context.Context {
	return verifyd.WithActor(ctx, actorOf(m.User))
}

// ActiveMember returns the active user with the given id and their
// business, or ErrNotFound (a removed user's session ends).
func (s *Service) ActiveMember(ctx context.Context, userID string) (Member, error) {
	u, err := s.store.BusinessUser(ctx, userID)
	if err != nil {
		return Member{}, err
	}
	if !u.Active() {
		return Member{}, verifyd.ErrNotFound
	}
	b, err := s.store.Business(ctx, u.BusinessID)
	if err != nil {
		return Member{}, err
	}
	return Member{User: u, Business: b}, nil
}

func (m Member) need(p Permission) error {
	if !m.Can(p) {
		return ErrForbidden
	}
	return nil
}

// Keys lists the business's API keys, without secrets.
func (s *Service) Keys(ctx context.Context, m Member) ([]verifyd.Credential, error) {
	return s.tenants.Keys(ctx, m.Business.ID)
}

// CreateKey creates a key for rotation and returns it with its secret,
// which is shown this once.
func (s *Service) CreateKey(ctx context.Context, m Member, i verifyd.Interface, e verifyd.Environment) (verifyd.Credential, error) {
	if err := m.need(ManageKeys); err != nil {
		return verifyd.Credential{}, err
	}
	return s.tenants.CreateKey(m.Context(ctx), m.Business.ID, i, e)
}

// RevokeKey revokes one of the business's keys; a key of another business
// is ErrNotFound.
func (s *Service) RevokeKey(ctx context.Context, m Member, apiKey string) (verifyd.Credential, error) {
	if err := m.need(ManageKeys); err != nil {
		return verifyd.Credential{}, err
	}
	c, err := s.store.Credential(ctx, apiKey)
	if err != nil {
		return verifyd.Credential{}, err
	}
	if c.BusinessID != m.Business.ID {
		return verifyd.Credential{}, verifyd.ErrNotFound
	}
	return s.tenants.RevokeKey(m.Context(ctx), apiKey)
}

// RedirectList is one allowed-redirect list of the business.
type RedirectList struct {
	Interface   verifyd.Interface
	Environment verifyd.Environment
	URLs        []string
}

// environments are the environments a business may use.
func environments(b verifyd.Business) []verifyd.Environment {
	if b.SandboxOnly {
		return []verifyd.Environment{verifyd.EnvSandbox}
	}
	return verifyd.Environments
}

// Environments are the environments the member's business may use.
func (m Member) Environments() []verifyd.Environment { return environments(m.Business) }

// Redirects returns every allowed-redirect list of the business.
func (s *Service) Redirects(ctx context.Context, m Member) ([]RedirectList, error) {
	var out []RedirectList
	for _, i := range verifyd.Interfaces {
		for _, e := range environments(m.Business) {
			urls, err := s.tenants.ListRedirects(ctx, verifyd.RedirectList{BusinessID: m.Business.ID, Interface: i, Environment: e})
			if err != nil {
				return nil, err
			}
			out = append(out, RedirectList{Interface: i, Environment: e, URLs: urls})
		}
	}
	return out, nil
}

func (m Member) list(i verifyd.Interface, e verifyd.Environment) (verifyd.RedirectList, error) {
	if !i.Valid() || !e.Valid() {
		return verifyd.RedirectList{}, verifyd.Errorf(verifyd.EBadRequest, "unknown list")
	}
	return verifyd.RedirectList{BusinessID: m.Business.ID, Interface: i, Environment: e}, nil
}

// AddRedirect adds a URL to a list, with API C's rules.
func (s *Service) AddRedirect(ctx context.Context, m Member, i verifyd.Interface, e verifyd.Environment, url string) error {
	if err := m.need(ManageRedirects); err != nil {
		return err
	}
	l, err := m.list(i, e)
	if err != nil {
		return err
	}
	return s.tenants.AddListRedirects(m.Context(ctx), l, []string{strings.TrimSpace(url)})
}

// RemoveRedirect removes a URL from a list.
func (s *Service) RemoveRedirect(ctx context.Context, m Member, i verifyd.Interface, e verifyd.Environment, url string) error {
	if err := m.need(ManageRedirects); err != nil {
		return err
	}
	l, err := m.list(i, e)
	if err != nil {
		return err
	}
	return s.tenants.RemoveListRedirects(m.Context(ctx), l, []string{url})
}

// SetRetentionDays changes the business's retention.
func (s *Service) SetRetentionDays(ctx context.Context, m Member, days int) (verifyd.Business, error) {
	if err := m.need(ManageSettings); err != nil {
		return verifyd.Business{}, err
	}
	return s.tenants.SetRetentionDays(m.Context(ctx), m.Business.ID, days)
}

// SetDirectLiveness changes the business's policy for direct submissions.
func (s *Service) SetDirectLiveness(ctx context.Context, m Member, p verifyd.DirectLiveness) (verifyd.Business, error) {
	if err := m.need(ManageSettings); err != nil {
		return verifyd.Business{}, err
	}
	return s.tenants.SetDirectLiveness(m.Context(ctx), m.Business.ID, p)
}

// Users lists the business's users and open invitations.
func (s *Service) Users(ctx context.Context, m Member) ([]verifyd.BusinessUser, []verifyd.Invitation, error) {
	if err := m.need(ManageUsers); err != nil {
		return nil, nil, err
	}
	users, err := s.store.BusinessUsers(ctx, m.Business.ID)
	if err != nil {
		return nil, nil, err
	}
	invs, err := s.store.Invitations(ctx, m.Business.ID, s.cfg.Now())
	return users, invs, err
}

// InviteUser invites a person to the member's business.
func (s *Service) InviteUser(ctx context.Context, m Member, email string, role verifyd.Role) (verifyd.Invitation, string, error) {
	if err := m.need(ManageUsers); err != nil {
		return verifyd.Invitation{}, "", err
	}
	return s.Invite(m.Context(ctx), m.Business.ID, email, role)
}

// WithdrawInvitation deletes an open invitation of the member's business,
// named by the hex SHA-256 of its token (InvitationID), so its link stops
// working.
func (s *Service) WithdrawInvitation(ctx context.Context, m Member, id string) error {
	if err := m.need(ManageUsers); err != nil {
		return err
	}
	hash, err := hex.DecodeString(id)
	if err != nil || len(hash) != sha256.Size {
		return verifyd.ErrNotFound
	}
	if err := s.store.DeleteInvitation(ctx, m.Business.ID, hash); err != nil {
		return err
	}
	s.audit(m.Context(ctx), m.Business.ID, verifyd.AuditUserUninvite, "", "")
	return nil
}

// InvitationID names an invitation on pages: the hex SHA-256 of its
// token, which does not give the link.
func InvitationID(inv verifyd.Invitation) string { return hex.EncodeToString(inv.TokenHash) }

// ErrRole refuses an unknown role.
var ErrRole = verifyd.Errorf(verifyd.EInvalid, "the role must be owner, developer or viewer")

// ErrRemoveSelf refuses an owner's removal of themselves, so a business
// always keeps an owner who signed in.
var ErrRemoveSelf = verifyd.Errorf(verifyd.EConflict, "you cannot remove yourself")

// RemoveUser disables a user of the business and ends their sessions.
func (s *Service) RemoveUser(ctx context.Context, m Member, userID string) (verifyd.BusinessUser, error) {
	if err := m.need(ManageUsers); err != nil {
		return verifyd.BusinessUser{}, err
	}
	if userID == m.User.ID {
		return verifyd.BusinessUser{}, ErrRemoveSelf
	}
	u, err := s.store.DisableBusinessUser(ctx, m.Business.ID, userID, s.cfg.Now().UTC())
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	if _, err := s.Sessions.EndAll(ctx, u.ID); err != nil {
		return u, err
	}
	s.audit(m.Context(ctx), m.Business.ID, verifyd.AuditUserRemove, u.ID, "role="+string(u.Role))
	return u, nil
}

// SetRole changes the role of another user of the business. An owner
// cannot change their own role, so a business keeps an owner.
func (s *Service) SetRole(ctx context.Context, m Member, userID string, role verifyd.Role) (verifyd.BusinessUser, error) {
	if err := m.need(ManageUsers); err != nil {
		return verifyd.BusinessUser{}, err
	}
	if !role.Valid() {
		return verifyd.BusinessUser{}, ErrRole
	}
	if userID == m.User.ID {
		return verifyd.BusinessUser{}, ErrChangeSelf
	}
	u, err := s.store.SetBusinessUserRole(ctx, m.Business.ID, userID, role)
	if err != nil {
		return verifyd.BusinessUser{}, err
	}
	s.audit(m.Context(ctx), m.Business.ID, verifyd.AuditUserRole, u.ID, "role="+string(role))
	return u, nil
}

// ErrChangeSelf refuses an owner's change of their own role.
var ErrChangeSelf = verifyd.Errorf(verifyd.EConflict, "you cannot change your own role")

// Audit returns the business's audit log, newest last, at most limit
// entries (the newest).
func (s *Service) Audit(ctx context.Context, m Member, limit int) ([]verifyd.AuditEntry, error) {
	if err := m.need(ViewAudit); err != nil {
		return nil, err
	}
	return s.store.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: m.Business.ID, Limit: limit})
}
