package age

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

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
// mount of env. It returns the request and the URL of the hosted flow to
// send the user to, which carries the request sealed (AuthRequest.Flow):
// nothing is stored until the flow finishes.
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
	// Nothing is stored: the request travels sealed in the flow's address
	// and is stored when the flow issues its code (Complete), so a flood
	// of authorize requests costs no writes.
	flow, err := s.sealRequest(r)
	if err != nil {
		return AuthRequest{}, "", err
	}
	url := strings.TrimSuffix(s.cfg.FlowBaseURL(env), "/") + "/flow/" + flow
	return requestOf(r, flow), url, nil
}

// flowPrefix starts every flow handle.
const flowPrefix = "af_"

// maxFlow bounds a flow handle: the sealed request with the longest
// redirect_uri, state and user_id allowed, each escaped to twice its
// length in JSON at worst, plus the other fields and the seal, in base64.
const maxFlow = len(flowPrefix) + 4*(2*(verifyd.MaxURLLength+maxState+maxUserID)+1024)/3

// sealedRequest is an authorize request as its flow handle carries it.
type sealedRequest struct {
	ID          string `json:"i"`
	BusinessID  string `json:"b"`
	Environment string `json:"e"`
	ClientID    string `json:"k"`
	RedirectURI string `json:"r"`
	State       string `json:"s,omitempty"`
	UserID      string `json:"u,omitempty"`
	Country     string `json:"c"`
	Challenge   string `json:"p,omitempty"`
	Method      string `json:"m,omitempty"`
	// Created and Expires are Unix microseconds.
	Created int64 `json:"t"`
	Expires int64 `json:"x"`
}

// flowAAD binds a handle to its purpose and environment: a handle made
// for the sandbox does not open on production.
func flowAAD(env verifyd.Environment) []byte { return []byte("age-authorize-request|" + string(env)) }

// sealRequest makes the flow handle of a request: the request encrypted
// and authenticated under the master key (seal), in base64url.
func (s *Service) sealRequest(r verifyd.AgeAuthRequest) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // <, > and & as themselves: shorter
	err := enc.Encode(sealedRequest{ID: r.ID, BusinessID: r.BusinessID, Environment: string(r.Environment),
		ClientID: r.ClientID, RedirectURI: r.RedirectURI, State: r.State, UserID: r.UserID, Country: r.Country,
		Challenge: r.CodeChallenge, Method: r.CodeChallengeMethod,
		Created: r.CreatedAt.UnixMicro(), Expires: r.ExpiresAt.UnixMicro()})
	if err != nil {
		return "", err
	}
	sealed, err := s.cfg.Sealer.Seal(bytes.TrimSuffix(b.Bytes(), []byte("\n")), flowAAD(r.Environment))
	if err != nil {
		return "", err
	}
	return flowPrefix + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// openRequest reads a flow handle made by sealRequest in either
// environment. Anything else, damaged or sealed under another key, is
// verifyd.ErrNotFound; expiry is the caller's to check.
func (s *Service) openRequest(flow string) (verifyd.AgeAuthRequest, error) {
	raw, ok := strings.CutPrefix(flow, flowPrefix)
	if !ok || len(flow) > maxFlow {
		return verifyd.AgeAuthRequest{}, verifyd.ErrNotFound
	}
	sealed, err := base64.RawURLEncoding.Strict().DecodeString(raw)
	if err != nil {
		return verifyd.AgeAuthRequest{}, verifyd.ErrNotFound
	}
	for _, env := range verifyd.Environments {
		b, err := s.cfg.Sealer.Open(sealed, flowAAD(env))
		if err != nil {
			continue
		}
		var in sealedRequest
		if err := json.Unmarshal(b, &in); err != nil || in.Environment != string(env) {
			return verifyd.AgeAuthRequest{}, verifyd.ErrNotFound
		}
		return verifyd.AgeAuthRequest{ID: in.ID, BusinessID: in.BusinessID, Environment: env, ClientID: in.ClientID,
			RedirectURI: in.RedirectURI, State: in.State, UserID: in.UserID, Country: in.Country,
			CodeChallenge: in.Challenge, CodeChallengeMethod: in.Method,
			CreatedAt: time.UnixMicro(in.Created).UTC(), ExpiresAt: time.UnixMicro(in.Expires).UTC()}, nil
	}
	return verifyd.AgeAuthRequest{}, verifyd.ErrNotFound
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
