package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/httpapi/request"
)

// The OAuth endpoints of the age interface (SPEC A1–A3, docs/age.md). Their
// errors are SPEC's JSON bodies; the authorize step never redirects on an
// error, so a bad request cannot bounce a browser to an unchecked address.

// ageAuthorize is A1: validate, keep the request, and send the user to the
// hosted flow with a 302.
func (s *Server) ageAuthorize(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		s.writeError(w, r, age.ErrInvalidParams)
		return
	}
	_, flow, err := s.deps.Age.Authorize(r.Context(), request.MountOf(r.Context()).Environment, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, flow, http.StatusFound)
}

// ageToken is A2: exchange a code for an access token.
func (s *Server) ageToken(w http.ResponseWriter, r *http.Request) {
	var in age.TokenRequest
	body, err := request.ReadBody(w, r, s.cfg.MaxBodyBytes)
	if err == nil {
		in, err = tokenRequest(r, body)
	}
	if err == nil {
		var tok age.Token
		if tok, err = s.deps.Age.Exchange(r.Context(), request.MountOf(r.Context()).Environment, in); err == nil {
			request.InfoOf(r.Context()).APIKey = in.ClientID
			w.Header().Set("Pragma", "no-cache")
			request.WriteJSON(w, http.StatusOK, tok)
			return
		}
	}
	w.Header().Set("Pragma", "no-cache")
	eb := request.ErrorBodyOf(r, s.deps.Logger, err)
	eb.OAuthError, eb.OAuthDescription = tokenErrorOf(err, eb.StatusCode)
	if eb.StatusCode == http.StatusUnauthorized && eb.OAuthError != "invalid_grant" {
		// A client that failed to authenticate is told the scheme: RFC 6749
		// §5.2 asks for it after HTTP Basic, RFC 9110 §15.5.2 on every 401.
		// Not on SPEC's 401 for a redirect_uri mismatch, which is no
		// authentication failure: clients that read a challenge first
		// (openid-client) would report it instead of invalid_grant.
		w.Header().Set("WWW-Authenticate", `Basic realm="verifyd", charset="UTF-8"`)
	}
	request.WriteJSON(w, eb.StatusCode, eb)
}

// tokenError is an RFC 6749 §5.2 error: its code and a description for
// the integrator's developer, in the characters RFC 6749 allows there
// (printable ASCII but the double quote and the backslash).
type tokenError struct{ code, description string }

// tokenErrors gives each error of the token endpoint its RFC 6749 code.
// SPEC's message and status are unchanged; errors that share a SPEC message
// are separate values in package age so that they get the right code here.
var tokenErrors = map[error]tokenError{
	age.ErrInvalidParams: {"invalid_request",
		"the token request could not be read: send grant_type=authorization_code and code as a form or JSON body, each parameter once"},
	age.ErrMissingCode:          {"invalid_request", "the code parameter is missing"},
	age.ErrTwoClientAuthMethods: {"invalid_request", "use one client authentication method: HTTP Basic or client_id and client_secret in the body, not both"},
	age.ErrInvalidClientCredentials: {"invalid_client",
		"client authentication is missing or malformed: send HTTP Basic with the API key and secret, or client_id and client_secret in the body"},
	age.ErrClientMismatch:   {"invalid_client", "unknown or revoked API key, or wrong secret"},
	age.ErrClientNotAllowed: {"unauthorized_client", "this API key is not an age key of this environment (sandbox and production keys are separate)"},
	age.ErrUnsupportedGrant: {"unsupported_grant_type", "only grant_type=authorization_code is supported"},
	age.ErrInvalidCode: {"invalid_grant",
		"the code is unknown, expired, already used or issued to another client, or the PKCE code_verifier is missing or wrong"},
	age.ErrUnauthorizedRedirect: {"invalid_grant", "redirect_uri is not the one of the authorization request"},
}

// tokenErrorOf returns the RFC 6749 error code and description of a token
// endpoint error answered with status: the table's, else invalid_request
// for other refusals (a body too large) and server_error (RFC 6749 §4.1.2.1's
// code, which OAuth clients also accept here) for the service's failures.
func tokenErrorOf(err error, status int) (code, description string) {
	var e *verifyd.Error
	if errors.As(err, &e) && status < 500 {
		if te, ok := tokenErrors[e]; ok {
			return te.code, te.description
		}
	}
	if status < 500 {
		return "invalid_request", "the token request was refused: " + http.StatusText(status)
	}
	return "server_error", "the service failed; try again later"
}

// ageMetadata serves RFC 8414's authorization server metadata of the mount
// (docs/integrations.md), so that clients that discover their endpoints
// (openid-client's discovery) need only the base URL. It lists what the
// token endpoint really accepts.
func (s *Server) ageMetadata(w http.ResponseWriter, r *http.Request) {
	base := strings.TrimSuffix(request.MountOf(r.Context()).BaseURL.String(), "/")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_ = json.NewEncoder(w).Encode(authServerMetadata{
		Issuer:                base,
		AuthorizationEndpoint: base + "/oauth/authorize",
		TokenEndpoint:         base + "/oauth/token",
		ScopesSupported:       []string{"adult"},
		ResponseTypes:         []string{"code"},
		ResponseModes:         []string{"query"},
		GrantTypes:            []string{"authorization_code"},
		TokenAuthMethods:      []string{"client_secret_basic", "client_secret_post"},
		CodeChallengeMethods:  []string{"S256"},
	})
}

// authServerMetadata is RFC 8414 §2's metadata, the members that apply.
// There is no userinfo_endpoint: /users/me answers SPEC's result, not an
// OpenID Connect UserInfo with "sub", so clients read it as a protected
// resource.
type authServerMetadata struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	ScopesSupported       []string `json:"scopes_supported"`
	ResponseTypes         []string `json:"response_types_supported"`
	ResponseModes         []string `json:"response_modes_supported"`
	GrantTypes            []string `json:"grant_types_supported"`
	TokenAuthMethods      []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
}

// tokenRequest reads a token request in any of the forms clients send:
// SPEC's (Basic credentials, JSON {"code"}) and RFC 6749's (a form body with
// grant_type, code, redirect_uri, code_verifier; credentials in Basic or as
// client_id and client_secret in the body).
func tokenRequest(r *http.Request, body []byte) (in age.TokenRequest, err error) {
	var f struct {
		GrantType    string `json:"grant_type"`
		Code         string `json:"code"`
		RedirectURI  string `json:"redirect_uri"`
		CodeVerifier string `json:"code_verifier"`
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	isForm := mediaType == "application/x-www-form-urlencoded"
	if !isForm && mediaType != "application/json" && !strings.HasSuffix(mediaType, "+json") {
		// No or another content type: a JSON object or else a form.
		isForm = !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{"))
	}
	if isForm {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return in, age.ErrInvalidParams
		}
		for name, dst := range map[string]*string{
			"grant_type": &f.GrantType, "code": &f.Code, "redirect_uri": &f.RedirectURI,
			"code_verifier": &f.CodeVerifier, "client_id": &f.ClientID, "client_secret": &f.ClientSecret,
		} {
			switch vs := form[name]; len(vs) {
			case 0:
			case 1:
				*dst = vs[0]
			default: // RFC 6749 §3.2: parameters must not be repeated
				return in, age.ErrInvalidParams
			}
		}
	} else if err := json.Unmarshal(body, &f); err != nil {
		return in, age.ErrInvalidParams
	}
	in = age.TokenRequest{GrantType: f.GrantType, Code: f.Code, RedirectURI: f.RedirectURI, CodeVerifier: f.CodeVerifier}

	if h := r.Header.Get("Authorization"); h != "" {
		id, secret, ok := basicCredentials(h)
		// One authentication method only (RFC 6749 §2.3): a secret in the
		// body too, or a body client_id naming another client, is refused.
		if !ok {
			return in, age.ErrInvalidClientCredentials
		}
		if f.ClientSecret != "" || (f.ClientID != "" && f.ClientID != id) {
			return in, age.ErrTwoClientAuthMethods
		}
		in.ClientID, in.ClientSecret = id, secret
		return in, nil
	}
	in.ClientID, in.ClientSecret = f.ClientID, f.ClientSecret
	return in, nil
}

// basicCredentials decodes "Basic base64(id:secret)". Both parts are
// URL-decoded (RFC 6749 §2.3.1), which leaves SPEC's undecoded keys and
// secrets unchanged since they only use [a-z0-9_].
func basicCredentials(h string) (id, secret string, ok bool) {
	scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	rest = strings.TrimSpace(rest)
	raw, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(rest); err != nil {
			return "", "", false
		}
	}
	user, pass, found := strings.Cut(string(raw), ":")
	if !found {
		return "", "", false
	}
	if id, err = url.QueryUnescape(user); err != nil {
		return "", "", false
	}
	if secret, err = url.QueryUnescape(pass); err != nil {
		return "", "", false
	}
	return id, secret, id != "" && secret != ""
}

// ageUser is A3: the age verification result for an access token, given as
// SPEC's ?access_token= or as "Authorization: Bearer" (RFC 6750). Both at
// once is refused (RFC 6750 §2).
func (s *Server) ageUser(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || len(q["access_token"]) > 1 {
		s.writeError(w, r, age.ErrMalformedToken)
		return
	}
	token := q.Get("access_token")
	if scheme, bearer, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "Bearer") {
		if token != "" {
			s.writeError(w, r, age.ErrMalformedToken)
			return
		}
		token = strings.TrimSpace(bearer)
	}
	u, err := s.deps.Age.User(r.Context(), request.MountOf(r.Context()).Environment, token)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	request.WriteJSON(w, http.StatusOK, u)
}
