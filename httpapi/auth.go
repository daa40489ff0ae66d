package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/signature"
	"github.com/verifyd/verifyd/tenant"
)

// authed is a handler that runs after HMAC authentication, with the
// credential that signed the request and the exact body bytes.
type authed func(w http.ResponseWriter, r *http.Request, cred verifyd.Credential, body []byte) error

type authOpts struct {
	// unknownKey is the error for a key that is unknown, revoked or belongs
	// to another interface or environment: "invalid client" on the identity
	// endpoints, "invalid authentication" on the redirect-list endpoints.
	unknownKey error
	maxBody    int64
}

// hmacAuth authenticates a request as SPEC.md describes: the header
// "Authorization: hmac KEY:HEX" carries an HMAC-SHA256 keyed with the key's
// secret over the raw body, or for GET over the request URI.
func (s *Server) hmacAuth(o authOpts, next authed) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.authenticate(w, r, o, next); err != nil {
			s.writeError(w, r, err)
		}
	}
}

func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, o authOpts, next authed) error {
	apiKey, sig, ok := signature.ParseHeader(r.Header.Get("Authorization"))
	if !ok {
		return errInvalidAuth
	}
	// The key is looked up before the body is read: a body of up to
	// 40 MiB costs that much memory, and a stranger with a made-up key
	// must not be able to make us spend it.
	m := request.MountOf(r.Context())
	cred, err := s.deps.Tenants.Credential(r.Context(), apiKey)
	if errors.Is(err, tenant.ErrUnknownKey) {
		return o.unknownKey
	}
	if err != nil {
		return err
	}
	if cred.Interface != m.Interface || cred.Environment != m.Environment {
		return o.unknownKey
	}
	if o.maxBody > s.cfg.MaxBodyBytes {
		// A large body (B2): wait for room among the bodies in flight.
		n := r.ContentLength
		if n < 0 || n > o.maxBody {
			n = o.maxBody
		}
		n = min(max(n, 1), s.cfg.MaxBodiesInFlight)
		if err := s.bodies.Acquire(r.Context(), n); err != nil {
			return errServiceUnavailable
		}
		defer s.bodies.Release(n)
	}
	body, err := request.ReadBody(w, r, o.maxBody)
	if err != nil {
		return err
	}
	if !signatureMatches(cred.APISecret, sig, r, body, m) {
		return errInvalidAuth
	}
	request.InfoOf(r.Context()).APIKey = cred.APIKey
	return next(w, r, cred, body)
}

// signatureMatches checks sig against every input a client may have signed.
// For requests with a body that is the body, byte for byte. For GET it is
// the request URI, which clients write in several ways; all are accepted:
// the path relative to the mount's base URL (what the public PHP SDK signs),
// the full path, each with and without the query string, escaped or not, and
// the absolute URL. Each candidate is compared in constant time.
func signatureMatches(secret, sig string, r *http.Request, body []byte, m *request.Mounted) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return signature.Verify(secret, body, sig)
	}
	return signature.VerifyAny(secret, sig, uriCandidates(r, m)...)
}

func uriCandidates(r *http.Request, m *request.Mounted) []string {
	paths := []string{r.URL.Path, m.FullPath, m.FullEscapedPath}
	if m.Prefix() != "" {
		// the relative path in its escaped form, as sent
		paths = append(paths, strings.TrimPrefix(m.FullEscapedPath, m.Prefix()))
	}
	base := strings.TrimSuffix(m.BaseURL.String(), "/")
	paths = append(paths, base+r.URL.Path)
	var out []string
	for _, p := range dedupe(paths) {
		out = append(out, p)
		if r.URL.RawQuery != "" {
			out = append(out, p+"?"+r.URL.RawQuery)
		}
	}
	return out
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
