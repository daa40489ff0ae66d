// Package age holds the OAuth 2.0 side of SPEC.md section A: the authorize
// step that validates an integrator's request and hands the user to the
// hosted flow (A1), the exchange of the code for an access token (A2), and
// the user details read with that token (A3). The hosted pages where the user
// proves their age live elsewhere; they read a waiting request with
// AuthRequest and finish it with Complete. docs/age.md describes the
// protocol and the choices SPEC.md leaves open.
package age

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/seal"
)

// Lifetimes of what the protocol issues.
const (
	// RequestLifetime is how long the user has to finish the hosted flow.
	RequestLifetime = 30 * time.Minute
	// CodeLifetime is how long a code may be exchanged (RFC 6749 §4.1.2
	// recommends at most 10 minutes).
	CodeLifetime = 10 * time.Minute
	// TokenLifetime is how long an access token reads the user details.
	TokenLifetime = time.Hour
	// Threshold is SPEC's fixed age threshold.
	Threshold = 18
)

// Countries are the age-flow countries of SPEC A1, lowercase.
var Countries = []string{"gb", "de", "fr", "us"}

// SPEC.md's messages of section A, and the ones chosen where it has none
// (docs/age.md).
var (
	// A1
	ErrInvalidClientID      = &verifyd.Error{Code: verifyd.EBadRequest, Message: "invalid client id"}
	ErrInvalidScope         = &verifyd.Error{Code: verifyd.EBadRequest, Message: "invalid scope"}
	ErrInvalidParams        = &verifyd.Error{Code: verifyd.EBadRequest, Message: "invalid params"}
	ErrUnauthorizedRedirect = &verifyd.Error{Code: verifyd.EUnauthorized, Message: "Unauthorized redirect_uri"}
	// A2. Several errors share a SPEC message (and so a status) but not
	// RFC 6749's error code, which the HTTP layer adds next to SPEC's
	// fields: they are separate values so that it can tell them apart.
	ErrInvalidClientCredentials = &verifyd.Error{Code: verifyd.EBadRequest, Message: "invalid client credentials"}
	// ErrTwoClientAuthMethods is ErrInvalidClientCredentials for a request
	// that authenticates in two ways at once (RFC 6749 §2.3:
	// invalid_request).
	ErrTwoClientAuthMethods = &verifyd.Error{Code: verifyd.EBadRequest, Message: "invalid client credentials"}
	ErrClientMismatch       = &verifyd.Error{Code: verifyd.EUnauthorized, Message: "client id and client secret does not match"}
	// ErrClientNotAllowed is ErrClientMismatch for a key and its right
	// secret used on the wrong mount: an identity key, or an age key of the
	// other environment (RFC 6749's unauthorized_client). Only a caller who
	// holds the secret learns that the key exists elsewhere.
	ErrClientNotAllowed = &verifyd.Error{Code: verifyd.EUnauthorized, Message: "client id and client secret does not match"}
	// ErrUnsupportedGrant is SPEC's A1 "invalid params" for a grant_type
	// other than authorization_code (unsupported_grant_type).
	ErrUnsupportedGrant = &verifyd.Error{Code: verifyd.EBadRequest, Message: "invalid params"}
	// ErrInvalidCode (no SPEC row) answers a code that is unknown, expired,
	// used, issued to another client, or whose PKCE verifier is missing or
	// wrong. The causes are not told apart, as RFC 6749's invalid_grant.
	ErrInvalidCode = &verifyd.Error{Code: verifyd.EBadRequest, Message: "invalid code"}
	// ErrMissingCode is ErrInvalidCode for a request without a code
	// (invalid_request).
	ErrMissingCode = &verifyd.Error{Code: verifyd.EBadRequest, Message: "invalid code"}
	// A3: a token that is missing, unknown, expired, revoked or of another
	// environment.
	ErrMalformedToken = &verifyd.Error{Code: verifyd.EBadRequest, Message: "malformed token"}
	// ErrCompleted is Complete's answer for a request completed before.
	ErrCompleted = &verifyd.Error{Code: verifyd.EConflict, Message: "authorize request already completed"}
)

// Tenants is what the service needs of the tenant use cases
// (*tenant.Service).
type Tenants interface {
	// Credential returns the active credential with the key, secret
	// included, or an error (tenant.ErrUnknownKey when unknown or revoked).
	Credential(ctx context.Context, apiKey string) (verifyd.Credential, error)
	// RedirectAllowed reports whether url is on the list, by exact match.
	RedirectAllowed(ctx context.Context, l verifyd.RedirectList, url string) (bool, error)
}

// Config holds what the service needs from the deployment.
type Config struct {
	// FlowBaseURL returns the public base URL of the age interface of an
	// environment; the hosted flow of a request is at {base}/flow/{Flow}.
	FlowBaseURL func(verifyd.Environment) string
	// Sealer seals authorize requests into their flow handles (required).
	Sealer *seal.Sealer
}

// Service implements the OAuth use cases of the age interface.
type Service struct {
	store   verifyd.AgeOAuthStore
	tenants Tenants
	rand    io.Reader
	now     func() time.Time
	cfg     Config
}

// New returns a Service. rand supplies request ids, codes and tokens; now is
// the clock.
func New(store verifyd.AgeOAuthStore, tenants Tenants, rand io.Reader, now func() time.Time, cfg Config) *Service {
	return &Service{store: store, tenants: tenants, rand: rand, now: now, cfg: cfg}
}

// AuthRequest is a validated /oauth/authorize request waiting for the user to
// finish the hosted flow.
type AuthRequest struct {
	// ID names the request in what the flow stores (proofs, the code).
	ID string
	// Flow is the request's handle in the flow's address (/flow/{Flow}):
	// the request itself, sealed, so that an authorize request is stored
	// only when its flow issues a code.
	Flow        string
	BusinessID  string
	Environment verifyd.Environment
	// ClientID is the integrator's API key.
	ClientID    string
	RedirectURI string
	// State is returned unchanged on the redirect ("" when none was sent).
	State string
	// UserID is SPEC's optional user_id ("" when none was sent).
	UserID string
	// Country is gb, de, fr or us.
	Country                            string
	CodeChallenge, CodeChallengeMethod string
	CreatedAt, ExpiresAt               time.Time
	// CompletedAt is when the flow finished with a code (nil before).
	CompletedAt *time.Time
}

// Outcome is what the hosted flow found: whether the user proved to be 18+,
// and the id of the verification (SPEC's "id").
type Outcome struct {
	AgeVerified    bool
	VerificationID string
	Method         string
	// AccountID is the hosted flow's account ("" when none): kept with the
	// code, never sent, so deleting the account revokes its tokens.
	AccountID string
}

// hashOf is how codes and tokens are stored and found.
func hashOf(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// s256 is PKCE's S256 transform (RFC 7636 §4.2).
func s256(verifier string) string {
	h := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// equalSecret compares two secrets in time that depends on neither.
func equalSecret(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

func envTag(e verifyd.Environment) string {
	if e == verifyd.EnvSandbox {
		return "test"
	}
	return "live"
}

func (s *Service) random(prefix string, n int) (string, error) {
	t, err := verifyd.RandomToken(s.rand, n)
	if err != nil {
		return "", err
	}
	return prefix + t, nil
}

// AuthRequest returns the request a flow handle carries, or
// verifyd.ErrNotFound when the handle is not one A1 made or the request
// has expired. A completed request is still returned until it expires,
// with CompletedAt set; completing it again fails.
func (s *Service) AuthRequest(ctx context.Context, flow string) (AuthRequest, error) {
	r, err := s.openRequest(flow)
	if err != nil {
		return AuthRequest{}, err
	}
	if !s.now().Before(r.ExpiresAt) {
		return AuthRequest{}, verifyd.ErrNotFound
	}
	// A request is stored when its flow finishes: a stored one is
	// finished, and its pages say so whoever opens them (a read, not a
	// write: a flood of flow pages still costs no writes).
	stored, err := s.store.AgeAuthRequest(ctx, r.ID)
	switch {
	case err == nil:
		r.CompletedAt = stored.CompletedAt
	case !errors.Is(err, verifyd.ErrNotFound):
		return AuthRequest{}, err
	}
	return requestOf(r, flow), nil
}

func requestOf(r verifyd.AgeAuthRequest, flow string) AuthRequest {
	return AuthRequest{
		ID: r.ID, Flow: flow, BusinessID: r.BusinessID, Environment: r.Environment, ClientID: r.ClientID,
		RedirectURI: r.RedirectURI, State: r.State, UserID: r.UserID, Country: r.Country,
		CodeChallenge: r.CodeChallenge, CodeChallengeMethod: r.CodeChallengeMethod,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, CompletedAt: r.CompletedAt,
	}
}

// Complete finishes the request of a flow handle with the hosted flow's
// outcome: it stores the request, issues the code and returns the
// request's redirect_uri with code (and state when the request had one)
// added to its query. A request can be completed once; a second Complete
// fails with ErrCompleted (EConflict). An unknown or expired request is
// verifyd.ErrNotFound.
func (s *Service) Complete(ctx context.Context, flow string, o Outcome) (string, error) {
	if o.VerificationID == "" || !cleanText(o.VerificationID, maxID) || !cleanText(o.Method, maxID) {
		return "", verifyd.Errorf(verifyd.EInvalid, "an outcome needs a verification id (and method) of at most %d bytes of text", maxID)
	}
	r, err := s.openRequest(flow)
	if err != nil {
		return "", err
	}
	now := s.now().UTC()
	if !now.Before(r.ExpiresAt) {
		return "", verifyd.ErrNotFound
	}
	code, err := s.random("vdc_", 32)
	if err != nil {
		return "", err
	}
	// The request is stored now, the first time its flow finishes; a
	// second completion finds it stored and is refused by the store's
	// conditional update. Old rows are purged on the way.
	if err := s.store.CreateAgeAuthRequest(ctx, r, now.Add(-TokenLifetime)); err != nil && verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		return "", err
	}
	err = s.store.CompleteAgeAuthRequest(ctx, r.ID, verifyd.AgeCode{
		Hash: hashOf(code), RequestID: r.ID, BusinessID: r.BusinessID, Environment: r.Environment,
		ClientID: r.ClientID, RedirectURI: r.RedirectURI,
		CodeChallenge: r.CodeChallenge, CodeChallengeMethod: r.CodeChallengeMethod,
		AgeVerified: o.AgeVerified, VerificationID: o.VerificationID, Method: o.Method, AccountID: o.AccountID,
		CreatedAt: now, ExpiresAt: now.Add(CodeLifetime),
	})
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		return "", ErrCompleted
	}
	if err != nil {
		return "", err
	}
	return withCode(r.RedirectURI, code, r.State), nil
}

// withCode appends code and state to a redirect URI's query, keeping the
// query it has byte for byte (integrators match their own parameters).
// Allowed redirect URLs have no fragment.
func withCode(redirectURI, code, state string) string {
	sep := "?"
	if i := strings.IndexByte(redirectURI, '?'); i >= 0 {
		sep = "&"
		if i == len(redirectURI)-1 || strings.HasSuffix(redirectURI, "&") {
			sep = ""
		}
	}
	out := redirectURI + sep + "code=" + url.QueryEscape(code)
	if state != "" {
		out += "&state=" + url.QueryEscape(state)
	}
	return out
}

// cleanText reports whether s is valid UTF-8 without control characters and
// at most max bytes long: what may be stored and compared as text.
func cleanText(s string, max int) bool {
	if len(s) > max || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
