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

	"github.com/verifyd/verifyd/age"
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
	_, flow, err := s.deps.Age.Authorize(r.Context(), mountOf(r.Context()).Environment, q)
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
	body, err := readBody(w, r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	in, basic, err := tokenRequest(r, body)
	if err == nil {
		var tok age.Token
		if tok, err = s.deps.Age.Exchange(r.Context(), mountOf(r.Context()).Environment, in); err == nil {
			infoOf(r.Context()).apiKey = in.ClientID
			w.Header().Set("Pragma", "no-cache")
			writeJSON(w, http.StatusOK, tok)
			return
		}
	}
	if basic && errors.Is(err, age.ErrClientMismatch) {
		// RFC 6749 §5.2: a client that tried HTTP Basic is told the scheme.
		w.Header().Set("WWW-Authenticate", `Basic realm="verifyd"`)
	}
	w.Header().Set("Pragma", "no-cache")
	s.writeError(w, r, err)
}

// tokenRequest reads a token request in any of the forms clients send:
// SPEC's (Basic credentials, JSON {"code"}) and RFC 6749's (a form body with
// grant_type, code, redirect_uri, code_verifier; credentials in Basic or as
// client_id and client_secret in the body). basic reports whether the
// credentials came in the Authorization header.
func tokenRequest(r *http.Request, body []byte) (in age.TokenRequest, basic bool, err error) {
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
			return in, false, age.ErrInvalidParams
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
				return in, false, age.ErrInvalidParams
			}
		}
	} else if err := json.Unmarshal(body, &f); err != nil {
		return in, false, age.ErrInvalidParams
	}
	in = age.TokenRequest{GrantType: f.GrantType, Code: f.Code, RedirectURI: f.RedirectURI, CodeVerifier: f.CodeVerifier}

	if h := r.Header.Get("Authorization"); h != "" {
		id, secret, ok := basicCredentials(h)
		// One authentication method only (RFC 6749 §2.3): a secret in the
		// body too, or a body client_id naming another client, is refused.
		if !ok || f.ClientSecret != "" || (f.ClientID != "" && f.ClientID != id) {
			return in, true, age.ErrInvalidClientCredentials
		}
		in.ClientID, in.ClientSecret = id, secret
		return in, true, nil
	}
	in.ClientID, in.ClientSecret = f.ClientID, f.ClientSecret
	return in, false, nil
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
	u, err := s.deps.Age.User(r.Context(), mountOf(r.Context()).Environment, token)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}
