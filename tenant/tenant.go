// Package tenant holds the use cases around integrators: businesses, their
// API credentials (created, rotated, revoked, authenticated) and their
// allowed-redirect lists.
package tenant

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/seal"
)

// Service implements the tenant use cases on a store.
type Service struct {
	store  verifyd.Store
	sealer *seal.Sealer
	rand   io.Reader
	now    func() time.Time
	// cache is nil unless CacheCredentials turned it on.
	cache *credentialCache
}

// New returns a Service. rand supplies key material and now the clock.
func New(store verifyd.Store, sealer *seal.Sealer, rand io.Reader, now func() time.Time) *Service {
	return &Service{store: store, sealer: sealer, rand: rand, now: now}
}

// CacheCredentials makes Credential keep up to max active credentials in
// memory for ttl each (credentialCache), and returns s. A key revoked by
// another process (the CLI, another replica) is still accepted here for
// up to ttl; RevokeKey on s takes effect at once. Call it before s is
// used.
func (s *Service) CacheCredentials(ttl time.Duration, max int) *Service {
	if ttl > 0 && max > 0 {
		s.cache = newCredentialCache(ttl, max, s.now)
	}
	return s
}

// secretAAD binds a sealed secret to its key, so a sealed secret moved to
// another credential row cannot be opened.
func secretAAD(apiKey string) []byte { return []byte("credential/" + apiKey) }

func (s *Service) newCredential(businessID string, i verifyd.Interface, e verifyd.Environment) (verifyd.StoredCredential, error) {
	c, err := verifyd.NewCredential(s.rand, businessID, i, e, s.now().UTC())
	if err != nil {
		return verifyd.StoredCredential{}, err
	}
	sealed, err := s.sealer.Seal([]byte(c.APISecret), secretAAD(c.APIKey))
	if err != nil {
		return verifyd.StoredCredential{}, err
	}
	return verifyd.StoredCredential{Credential: c, SealedSecret: sealed}, nil
}

// CreateBusiness creates a business with one credential for each interface
// and environment, and returns the credentials with their secrets.
func (s *Service) CreateBusiness(ctx context.Context, name string) (verifyd.Business, []verifyd.Credential, error) {
	if !verifyd.ValidBusinessName(name) {
		return verifyd.Business{}, nil, verifyd.Errorf(verifyd.EInvalid, "a business name of 1 to 200 characters is required")
	}
	id, err := verifyd.NewBusinessID(s.rand)
	if err != nil {
		return verifyd.Business{}, nil, err
	}
	b := verifyd.Business{ID: id, Name: name, CreatedAt: s.now().UTC()}
	var stored []verifyd.StoredCredential
	var creds []verifyd.Credential
	for _, i := range verifyd.Interfaces {
		for _, e := range verifyd.Environments {
			c, err := s.newCredential(id, i, e)
			if err != nil {
				return verifyd.Business{}, nil, err
			}
			stored = append(stored, c)
			creds = append(creds, c.Credential)
		}
	}
	if err := s.store.CreateBusiness(ctx, b, stored); err != nil {
		return verifyd.Business{}, nil, fmt.Errorf("create business: %w", err)
	}
	b.DirectLiveness, b.RetentionDays = verifyd.DirectLivenessAuto, verifyd.DefaultRetentionDays
	keys := make([]string, len(creds))
	for n, c := range creds {
		keys[n] = c.APIKey
	}
	s.audit(ctx, verifyd.ActorFrom(ctx), id, verifyd.AuditBusinessCreate, id, "keys "+strings.Join(keys, " "))
	return b, creds, nil
}

// ErrSandboxOnly refuses a production key to a sandbox-only business.
var ErrSandboxOnly = verifyd.Errorf(verifyd.EConflict, "this business is sandbox-only: it cannot have production keys")

// CreateSandboxBusiness creates a sandbox-only business (the public test
// workspace of the dashboard's sign-up) with one sandbox credential per
// interface, together with its first user, atomically; owner's
// BusinessID is set to the new business. It returns the business and
// the user as stored.
func (s *Service) CreateSandboxBusiness(ctx context.Context, name string, owner verifyd.BusinessUser) (verifyd.Business, verifyd.BusinessUser, error) {
	if !verifyd.ValidBusinessName(name) {
		return verifyd.Business{}, verifyd.BusinessUser{}, verifyd.Errorf(verifyd.EInvalid, "a business name of 1 to 200 characters is required")
	}
	id, err := verifyd.NewBusinessID(s.rand)
	if err != nil {
		return verifyd.Business{}, verifyd.BusinessUser{}, err
	}
	b := verifyd.Business{ID: id, Name: strings.TrimSpace(name), CreatedAt: s.now().UTC(), SandboxOnly: true}
	var stored []verifyd.StoredCredential
	var keys []string
	for _, i := range verifyd.Interfaces {
		c, err := s.newCredential(id, i, verifyd.EnvSandbox)
		if err != nil {
			return verifyd.Business{}, verifyd.BusinessUser{}, err
		}
		stored, keys = append(stored, c), append(keys, c.APIKey)
	}
	owner.BusinessID = id
	if err := s.store.CreateBusinessWithUser(ctx, b, stored, owner); err != nil {
		return verifyd.Business{}, verifyd.BusinessUser{}, err
	}
	b.DirectLiveness, b.RetentionDays = verifyd.DirectLivenessAuto, verifyd.DefaultRetentionDays
	s.audit(ctx, verifyd.Actor{Kind: verifyd.ActorBusinessUser, Name: owner.ID}, id, verifyd.AuditBusinessCreate, id,
		"sandbox-only sign-up; keys "+strings.Join(keys, " "))
	return b, owner, nil
}

// Businesses lists all businesses.
func (s *Service) Businesses(ctx context.Context) ([]verifyd.Business, error) {
	return s.store.Businesses(ctx)
}

// Business returns one business.
func (s *Service) Business(ctx context.Context, id string) (verifyd.Business, error) {
	return s.store.Business(ctx, id)
}

// SetDirectLiveness changes what happens to a business's production
// direct submissions (verifyd.DirectLiveness) and returns the business.
func (s *Service) SetDirectLiveness(ctx context.Context, id string, p verifyd.DirectLiveness) (verifyd.Business, error) {
	if !p.Valid() {
		return verifyd.Business{}, verifyd.Errorf(verifyd.EInvalid, "the direct submission policy must be auto or review")
	}
	if err := s.store.SetDirectLiveness(ctx, id, p); err != nil {
		return verifyd.Business{}, err
	}
	s.audit(ctx, verifyd.ActorFrom(ctx), id, verifyd.AuditBusinessSet, id, "direct_liveness="+string(p))
	return s.store.Business(ctx, id)
}

// SetRetentionDays changes how long a business's identity-API
// verifications keep their images and evidence after the decision
// (verifyd.Business.RetentionDays) and returns the business. Finished
// verifications not purged yet follow the new setting.
func (s *Service) SetRetentionDays(ctx context.Context, id string, days int) (verifyd.Business, error) {
	if !verifyd.ValidRetentionDays(days) {
		return verifyd.Business{}, verifyd.Errorf(verifyd.EInvalid, "the retention must be 0 to %d days", verifyd.MaxRetentionDays)
	}
	if err := s.store.SetRetentionDays(ctx, id, days); err != nil {
		return verifyd.Business{}, err
	}
	s.audit(ctx, verifyd.ActorFrom(ctx), id, verifyd.AuditBusinessSet, id, "retention_days="+strconv.Itoa(days))
	return s.store.Business(ctx, id)
}

// audit records a change that is committed already. A failure to record
// it is not reported as the change's failure: the caller would retry
// something that is done.
func (s *Service) audit(ctx context.Context, actor verifyd.Actor, businessID, action, subject, detail string) {
	_ = s.store.AppendAudit(ctx, verifyd.AuditEntry{At: s.now().UTC(), BusinessID: businessID, Actor: actor,
		Action: action, Subject: subject, Detail: detail})
}

// apiActor is the actor of a change made with credential c: the API key,
// unless the context names a person.
func apiActor(ctx context.Context, c verifyd.Credential) verifyd.Actor {
	if a := verifyd.ActorFrom(ctx); a.Kind != verifyd.ActorSystem {
		return a
	}
	return verifyd.Actor{Kind: verifyd.ActorAPIKey, Name: c.APIKey}
}

// redirectDetail names the list and URLs of a redirect change.
func redirectDetail(c verifyd.Credential, urls []string) string {
	d := fmt.Sprintf("%s/%s:", c.Interface, c.Environment)
	for _, u := range urls {
		if len(d) > 2000 {
			return d + " …"
		}
		d += " " + u
	}
	return d
}

// CreateKey adds a credential to a business, for rotation: the old key keeps
// working until it is revoked.
func (s *Service) CreateKey(ctx context.Context, businessID string, i verifyd.Interface, e verifyd.Environment) (verifyd.Credential, error) {
	if !i.Valid() || !e.Valid() {
		return verifyd.Credential{}, verifyd.Errorf(verifyd.EInvalid, "interface must be identity or age and environment production or sandbox")
	}
	b, err := s.store.Business(ctx, businessID)
	if err != nil {
		return verifyd.Credential{}, err
	}
	if b.SandboxOnly && e != verifyd.EnvSandbox {
		return verifyd.Credential{}, ErrSandboxOnly
	}
	c, err := s.newCredential(businessID, i, e)
	if err != nil {
		return verifyd.Credential{}, err
	}
	if err := s.store.CreateCredential(ctx, c); err != nil {
		return verifyd.Credential{}, err
	}
	s.audit(ctx, verifyd.ActorFrom(ctx), businessID, verifyd.AuditKeyCreate, c.APIKey, fmt.Sprintf("%s/%s", i, e))
	return c.Credential, nil
}

// Keys lists a business's credentials without their secrets.
func (s *Service) Keys(ctx context.Context, businessID string) ([]verifyd.Credential, error) {
	if _, err := s.store.Business(ctx, businessID); err != nil {
		return nil, err
	}
	stored, err := s.store.Credentials(ctx, businessID)
	if err != nil {
		return nil, err
	}
	out := make([]verifyd.Credential, len(stored))
	for n, c := range stored {
		out[n] = c.Credential
	}
	return out, nil
}

// RevealedKeys lists a business's active credentials with their secrets.
// Only the operator's demo output uses it.
func (s *Service) RevealedKeys(ctx context.Context, businessID string) ([]verifyd.Credential, error) {
	stored, err := s.store.Credentials(ctx, businessID)
	if err != nil {
		return nil, err
	}
	var out []verifyd.Credential
	for _, c := range stored {
		if !c.Active() {
			continue
		}
		open, err := s.open(c)
		if err != nil {
			return nil, err
		}
		out = append(out, open)
	}
	return out, nil
}

// RevokeKey revokes a credential; requests signed with it fail from then on.
func (s *Service) RevokeKey(ctx context.Context, apiKey string) (verifyd.Credential, error) {
	c, err := s.store.RevokeCredential(ctx, apiKey, s.now().UTC())
	if s.cache != nil {
		s.cache.revoked(apiKey)
	}
	if err != nil {
		return verifyd.Credential{}, err
	}
	s.audit(ctx, verifyd.ActorFrom(ctx), c.BusinessID, verifyd.AuditKeyRevoke, apiKey, fmt.Sprintf("%s/%s", c.Interface, c.Environment))
	return c.Credential, nil
}

func (s *Service) open(c verifyd.StoredCredential) (verifyd.Credential, error) {
	secret, err := s.sealer.Open(c.SealedSecret, secretAAD(c.APIKey))
	if err != nil {
		return verifyd.Credential{}, fmt.Errorf("open secret of %s: %w", c.APIKey, err)
	}
	out := c.Credential
	out.APISecret = string(secret)
	return out, nil
}

// ErrUnknownKey is returned by Credential for a key that does not exist or
// is revoked.
var ErrUnknownKey = &verifyd.Error{Code: verifyd.EUnauthorized, Message: verifyd.MsgInvalidClient}

// Credential returns the active credential with the given key, secret
// included, or ErrUnknownKey.
func (s *Service) Credential(ctx context.Context, apiKey string) (verifyd.Credential, error) {
	var epoch uint64
	if s.cache != nil {
		if c, ok := s.cache.get(apiKey); ok {
			return c, nil
		}
		epoch = s.cache.currentEpoch()
	}
	c, err := s.store.Credential(ctx, apiKey)
	if errors.Is(err, verifyd.ErrNotFound) || (err == nil && !c.Active()) {
		return verifyd.Credential{}, ErrUnknownKey
	}
	if err != nil {
		return verifyd.Credential{}, err
	}
	open, err := s.open(c)
	if err == nil && s.cache != nil {
		s.cache.put(open, epoch)
	}
	return open, err
}

// SigningSecret returns the secret of a key even when it is revoked: a
// verification's webhooks stay signed with the key that created it.
func (s *Service) SigningSecret(ctx context.Context, apiKey string) (string, error) {
	c, err := s.store.Credential(ctx, apiKey)
	if err != nil {
		return "", err
	}
	open, err := s.open(c)
	return open.APISecret, err
}

// listOf names the redirect list a credential manages.
func listOf(c verifyd.Credential) verifyd.RedirectList {
	return verifyd.RedirectList{BusinessID: c.BusinessID, Interface: c.Interface, Environment: c.Environment}
}

// Redirects returns the allowed-redirect list the credential manages.
func (s *Service) Redirects(ctx context.Context, c verifyd.Credential) ([]string, error) {
	return s.store.Redirects(ctx, listOf(c))
}

// ListRedirects returns a business's allowed-redirect list for one
// interface and environment (the dashboard, which names lists rather than
// keys).
func (s *Service) ListRedirects(ctx context.Context, l verifyd.RedirectList) ([]string, error) {
	return s.store.Redirects(ctx, l)
}

// AddListRedirects adds URLs to a list named by business, interface and
// environment, with the rules of AddRedirects; the actor is the context's.
func (s *Service) AddListRedirects(ctx context.Context, l verifyd.RedirectList, urls []string) error {
	if err := verifyd.CheckRedirectList(urls); err != nil {
		return err
	}
	if err := s.store.AddRedirects(ctx, l, urls); err != nil {
		return err
	}
	c := verifyd.Credential{BusinessID: l.BusinessID, Interface: l.Interface, Environment: l.Environment}
	s.audit(ctx, verifyd.ActorFrom(ctx), l.BusinessID, verifyd.AuditRedirectsAdd, l.BusinessID, redirectDetail(c, urls))
	return nil
}

// RemoveListRedirects removes URLs from a list named by business,
// interface and environment; the actor is the context's.
func (s *Service) RemoveListRedirects(ctx context.Context, l verifyd.RedirectList, urls []string) error {
	if err := verifyd.CheckRedirectList(urls); err != nil {
		return err
	}
	if err := s.store.RemoveRedirects(ctx, l, urls); err != nil {
		return err
	}
	c := verifyd.Credential{BusinessID: l.BusinessID, Interface: l.Interface, Environment: l.Environment}
	s.audit(ctx, verifyd.ActorFrom(ctx), l.BusinessID, verifyd.AuditRedirectsRemove, l.BusinessID, redirectDetail(c, urls))
	return nil
}

// AddRedirects adds URLs to the credential's list.
func (s *Service) AddRedirects(ctx context.Context, c verifyd.Credential, urls []string) error {
	if err := verifyd.CheckRedirectList(urls); err != nil {
		return err
	}
	if err := s.store.AddRedirects(ctx, listOf(c), urls); err != nil {
		return err
	}
	s.audit(ctx, apiActor(ctx, c), c.BusinessID, verifyd.AuditRedirectsAdd, c.APIKey, redirectDetail(c, urls))
	return nil
}

// ReplaceRedirects replaces the credential's list.
func (s *Service) ReplaceRedirects(ctx context.Context, c verifyd.Credential, urls []string) error {
	if err := verifyd.CheckRedirectList(urls); err != nil {
		return err
	}
	if err := s.store.ReplaceRedirects(ctx, listOf(c), urls); err != nil {
		return err
	}
	s.audit(ctx, apiActor(ctx, c), c.BusinessID, verifyd.AuditRedirectsSet, c.APIKey, redirectDetail(c, urls))
	return nil
}

// RemoveRedirects removes URLs from the credential's list.
func (s *Service) RemoveRedirects(ctx context.Context, c verifyd.Credential, urls []string) error {
	if err := verifyd.CheckRedirectList(urls); err != nil {
		return err
	}
	if err := s.store.RemoveRedirects(ctx, listOf(c), urls); err != nil {
		return err
	}
	s.audit(ctx, apiActor(ctx, c), c.BusinessID, verifyd.AuditRedirectsRemove, c.APIKey, redirectDetail(c, urls))
	return nil
}

// RedirectAllowed reports whether url is on the list of the business for
// the given interface and environment.
func (s *Service) RedirectAllowed(ctx context.Context, l verifyd.RedirectList, url string) (bool, error) {
	return s.store.RedirectAllowed(ctx, l, url)
}
