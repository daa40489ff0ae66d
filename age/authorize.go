package age

import (
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/tenant"
)

// Limits on the free-text parameters of the authorize request.
const (
	maxState  = 2048
	maxUserID = 256
	maxKey    = 200
	// maxID bounds request ids, verification ids and methods.
	maxID = 256
)

// param returns the single value of a query parameter ("" when absent);
// ok is false when it is repeated (RFC 6749 §3.1: parameters must not be
// included more than once).
func param(q url.Values, name string) (v string, ok bool) {
	switch vs := q[name]; len(vs) {
	case 0:
		return "", true
	case 1:
		return vs[0], true
	}
	return "", false
}

// Authorize validates an authorize request (SPEC A1) that arrived on the age
// mount of env and keeps it for the hosted flow. It returns the request and
// the URL of the hosted flow to send the user to.
//
// The checks run in this order and the first failure answers: client_id (an
// active age key of env, else ErrInvalidClientID), scope (exactly "adult",
// else ErrInvalidScope), the other parameters (redirect_uri present, country
// one of Countries, state, user_id and PKCE well formed, else
// ErrInvalidParams), and last redirect_uri on the business's allowed list of
// the age interface in env (exact match, else ErrUnauthorizedRedirect). Other
// parameters, such as response_type, are ignored.
func (s *Service) Authorize(ctx context.Context, env verifyd.Environment, q url.Values) (AuthRequest, string, error) {
	clientID, ok := param(q, "client_id")
	if !ok || clientID == "" || !cleanText(clientID, maxKey) {
		return AuthRequest{}, "", ErrInvalidClientID
	}
	cred, err := s.tenants.Credential(ctx, clientID)
	if errors.Is(err, tenant.ErrUnknownKey) {
		return AuthRequest{}, "", ErrInvalidClientID
	}
	if err != nil {
		return AuthRequest{}, "", err
	}
	if cred.Interface != verifyd.InterfaceAge || cred.Environment != env {
		return AuthRequest{}, "", ErrInvalidClientID
	}

	if scope, ok := param(q, "scope"); !ok || scope != "adult" {
		return AuthRequest{}, "", ErrInvalidScope
	}

	var v [6]string
	for n, name := range []string{"redirect_uri", "country", "state", "user_id", "code_challenge", "code_challenge_method"} {
		if v[n], ok = param(q, name); !ok {
			return AuthRequest{}, "", ErrInvalidParams
		}
	}
	redirectURI, country, state, userID, challenge, method := v[0], v[1], v[2], v[3], v[4], v[5]
	switch {
	case redirectURI == "" || !cleanText(redirectURI, verifyd.MaxURLLength),
		!slices.Contains(Countries, country),
		!cleanText(state, maxState),
		!cleanText(userID, maxUserID),
		!validChallenge(challenge, method):
		return AuthRequest{}, "", ErrInvalidParams
	}

	list := verifyd.RedirectList{BusinessID: cred.BusinessID, Interface: verifyd.InterfaceAge, Environment: env}
	allowed, err := s.tenants.RedirectAllowed(ctx, list, redirectURI)
	if err != nil {
		return AuthRequest{}, "", err
	}
	if !allowed {
		return AuthRequest{}, "", ErrUnauthorizedRedirect
	}

	id, err := s.random("areq_", 20)
	if err != nil {
		return AuthRequest{}, "", err
	}
	now := s.now().UTC()
	r := verifyd.AgeAuthRequest{
		ID: id, BusinessID: cred.BusinessID, Environment: env, ClientID: cred.APIKey,
		RedirectURI: redirectURI, State: state, UserID: userID, Country: country,
		CodeChallenge: challenge, CodeChallengeMethod: method,
		CreatedAt: now, ExpiresAt: now.Add(RequestLifetime),
	}
	// Rows stop mattering once the tokens issued from them have expired.
	if err := s.store.CreateAgeAuthRequest(ctx, r, now.Add(-TokenLifetime)); err != nil {
		return AuthRequest{}, "", err
	}
	flow := strings.TrimSuffix(s.cfg.FlowBaseURL(env), "/") + "/flow/" + id
	return requestOf(r), flow, nil
}

// validChallenge accepts no PKCE at all, or an S256 challenge: the unpadded
// base64url encoding of a SHA-256 (43 characters). The plain method is
// refused, and so is a method without a challenge.
func validChallenge(challenge, method string) bool {
	if challenge == "" {
		return method == ""
	}
	if method != "S256" || len(challenge) != 43 {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(challenge)
	return err == nil && len(b) == 32
}
