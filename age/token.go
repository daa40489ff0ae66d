package age

import (
	"context"
	"errors"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/tenant"
)

// TokenRequest is a code exchange (SPEC A2) as the HTTP layer read it, from
// SPEC's form (HTTP Basic and a JSON body with code) or RFC 6749's (a form
// body, credentials in Basic or in the body).
type TokenRequest struct {
	// ClientID and ClientSecret are the API key and secret, already
	// URL-decoded when they came in HTTP Basic (RFC 6749 §2.3.1).
	ClientID, ClientSecret string
	// GrantType is "" (SPEC's form) or "authorization_code".
	GrantType string
	Code      string
	// RedirectURI is "" when not sent; otherwise it must be the authorize
	// request's.
	RedirectURI string
	// CodeVerifier is PKCE's verifier (RFC 7636).
	CodeVerifier string
}

// Token is the token response. SPEC lists access_token; token_type and
// expires_in are RFC 6749 §5.1's, which OAuth client libraries read.
type Token struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// dummySecret is compared against when the key is unknown, so the answer
// takes as long as for a wrong secret.
const dummySecret = "vds_live_0000000000000000000000000000000000000000000000000000"

// authenticate checks a client's key and secret: missing ones are
// ErrInvalidClientCredentials; a key that is unknown or revoked, or a wrong
// secret, is ErrClientMismatch; the right secret of a key of another
// interface or environment is ErrClientNotAllowed.
func (s *Service) authenticate(ctx context.Context, env verifyd.Environment, key, secret string) (verifyd.Credential, error) {
	if key == "" || secret == "" {
		return verifyd.Credential{}, ErrInvalidClientCredentials
	}
	if !cleanText(key, maxKey) {
		equalSecret(secret, dummySecret)
		return verifyd.Credential{}, ErrClientMismatch
	}
	cred, err := s.tenants.Credential(ctx, key)
	if errors.Is(err, tenant.ErrUnknownKey) {
		equalSecret(secret, dummySecret)
		return verifyd.Credential{}, ErrClientMismatch
	}
	if err != nil {
		return verifyd.Credential{}, err
	}
	if !equalSecret(secret, cred.APISecret) {
		return verifyd.Credential{}, ErrClientMismatch
	}
	if cred.Interface != verifyd.InterfaceAge || cred.Environment != env {
		return verifyd.Credential{}, ErrClientNotAllowed
	}
	return cred, nil
}

// Exchange exchanges a code for an access token (SPEC A2) on the age mount
// of env. The client is authenticated before the code is looked at. The
// code must have been issued to this client (API key) in env, be unused and
// unexpired, and, when the authorize request had a PKCE challenge, come with
// the matching verifier (a verifier for a code without challenge is refused
// too). A redirect_uri, when given, must be the authorize request's
// (ErrUnauthorizedRedirect). Every other failure is ErrInvalidCode, and
// nothing is consumed by a failed exchange.
//
// A code that was already exchanged is refused and every token issued for it
// is revoked (RFC 6749 §4.1.2): whoever presents it a second time, the
// legitimate client or not, one of them had it stolen.
func (s *Service) Exchange(ctx context.Context, env verifyd.Environment, in TokenRequest) (Token, error) {
	cred, err := s.authenticate(ctx, env, in.ClientID, in.ClientSecret)
	if err != nil {
		return Token{}, err
	}
	if in.GrantType != "" && in.GrantType != "authorization_code" {
		return Token{}, ErrUnsupportedGrant
	}
	if in.Code == "" {
		return Token{}, ErrMissingCode
	}
	hash := hashOf(in.Code)
	code, err := s.store.AgeCode(ctx, hash)
	if notFound(err) {
		return Token{}, ErrInvalidCode
	}
	if err != nil {
		return Token{}, err
	}
	// Another client's code is refused without consuming it or revoking
	// anything: it cannot have obtained a token with it.
	if code.ClientID != cred.APIKey || code.Environment != env {
		return Token{}, ErrInvalidCode
	}
	now := s.now().UTC()
	if code.UsedAt != nil {
		return Token{}, s.replayed(ctx, hash)
	}
	if !now.Before(code.ExpiresAt) {
		return Token{}, ErrInvalidCode
	}
	if in.RedirectURI != "" && in.RedirectURI != code.RedirectURI {
		return Token{}, ErrUnauthorizedRedirect
	}
	if code.CodeChallenge == "" {
		if in.CodeVerifier != "" {
			return Token{}, ErrInvalidCode
		}
	} else if !validVerifier(in.CodeVerifier) || !equalSecret(s256(in.CodeVerifier), code.CodeChallenge) {
		return Token{}, ErrInvalidCode
	}

	access, err := s.random("vdt_"+envTag(env)+"_", 32)
	if err != nil {
		return Token{}, err
	}
	_, err = s.store.RedeemAgeCode(ctx, hash, verifyd.AgeToken{
		Hash: hashOf(access), BusinessID: code.BusinessID, Environment: code.Environment, ClientID: code.ClientID,
		AgeVerified: code.AgeVerified, VerificationID: code.VerificationID,
		CreatedAt: now, ExpiresAt: now.Add(TokenLifetime),
	})
	if errors.Is(err, verifyd.ErrCodeSpent) {
		// Someone exchanged it since it was read (a concurrent exchange is a
		// replay too), or it expired this instant.
		if again, err := s.store.AgeCode(ctx, hash); err == nil && again.UsedAt != nil {
			return Token{}, s.replayed(ctx, hash)
		}
		return Token{}, ErrInvalidCode
	}
	if err != nil {
		return Token{}, err
	}
	return Token{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(TokenLifetime.Seconds())}, nil
}

// replayed revokes the tokens issued for a code presented again and returns
// the error to answer.
func (s *Service) replayed(ctx context.Context, codeHash []byte) error {
	if _, err := s.store.RevokeAgeTokens(ctx, codeHash, s.now().UTC()); err != nil {
		return err
	}
	return ErrInvalidCode
}

// validVerifier checks RFC 7636 §4.1: 43 to 128 characters of
// [A-Za-z0-9-._~].
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range []byte(v) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~':
		default:
			return false
		}
	}
	return true
}

// User is the age verification result of SPEC A3.
type User struct {
	AgeVerified bool   `json:"age_verified"`
	ID          string `json:"id"`
	Threshold   int    `json:"threshold"`
}

// User returns the result an access token gives access to (SPEC A3) on the
// age mount of env. A token that is missing, unknown, expired, revoked, of
// another environment, or obtained with an API key revoked since, is
// ErrMalformedToken.
func (s *Service) User(ctx context.Context, env verifyd.Environment, accessToken string) (User, error) {
	if accessToken == "" {
		return User{}, ErrMalformedToken
	}
	t, err := s.store.AgeToken(ctx, hashOf(accessToken))
	if notFound(err) {
		return User{}, ErrMalformedToken
	}
	if err != nil {
		return User{}, err
	}
	if t.Environment != env || t.RevokedAt != nil || !s.now().Before(t.ExpiresAt) {
		return User{}, ErrMalformedToken
	}
	if _, err := s.tenants.Credential(ctx, t.ClientID); errors.Is(err, tenant.ErrUnknownKey) {
		return User{}, ErrMalformedToken
	} else if err != nil {
		return User{}, err
	}
	return User{AgeVerified: t.AgeVerified, ID: t.VerificationID, Threshold: Threshold}, nil
}

// notFound reports whether err is a store's not-found.
func notFound(err error) bool { return errors.Is(err, verifyd.ErrNotFound) }
