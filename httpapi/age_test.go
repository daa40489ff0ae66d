package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/verifyd/verifyd"
	agesvc "github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/internal/testserver"
)

// The OAuth side of the age interface (SPEC A1–A3). Tests stand in for the
// hosted flow by calling the age service's Complete with the request id
// from A1's Location.

const oauthCallback = "https://shop.example/age/callback?site=1"

// oauthFixture is an integrator of the age interface in one environment,
// with its callback on the allowed list.
type oauthFixture struct {
	t    *testing.T
	ts   *testserver.Server
	env  verifyd.Environment
	base string
	cred verifyd.Credential
}

func newOAuth(t *testing.T, ts *testserver.Server, env verifyd.Environment) *oauthFixture {
	t.Helper()
	newClient(t, ts, age, env).change(t, "PUT", []string{oauthCallback, "http://localhost:3000/cb"})
	return &oauthFixture{t: t, ts: ts, env: env, base: ts.BaseURL(age, env), cred: ts.Credential(age, env)}
}

// config is the integrator's golang.org/x/oauth2 configuration.
func (f *oauthFixture) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: f.cred.APIKey, ClientSecret: f.cred.APISecret, RedirectURL: oauthCallback, Scopes: []string{"adult"},
		Endpoint: oauth2.Endpoint{AuthURL: f.base + "/oauth/authorize", TokenURL: f.base + "/oauth/token"},
	}
}

// noFollow is a browser that shows each redirect instead of following it.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func oauthDo(t *testing.T, hc *http.Client, req *http.Request) response {
	t.Helper()
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, raw: raw}
}

func oauthGet(t *testing.T, rawURL string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return oauthDo(t, noFollow, req)
}

// start opens an authorize URL as a browser would and returns the request
// id of the hosted flow it is sent to.
func (f *oauthFixture) start(authURL string) string {
	f.t.Helper()
	res := oauthGet(f.t, authURL)
	if res.status != http.StatusFound {
		f.t.Fatalf("authorize: status %d, body %s", res.status, res.raw)
	}
	loc := res.header.Get("Location")
	id, ok := strings.CutPrefix(loc, f.base+"/flow/")
	if !ok || id == "" || strings.ContainsAny(id, "/?#") {
		f.t.Fatalf("authorize redirects to %q, want %s/flow/{id}", loc, f.base)
	}
	return id
}

// finish stands in for the hosted flow and returns where it sends the user.
func (f *oauthFixture) finish(id string, o agesvc.Outcome) *url.URL {
	f.t.Helper()
	to, err := f.ts.Age.Complete(context.Background(), id, o)
	if err != nil {
		f.t.Fatalf("Complete: %v", err)
	}
	u, err := url.Parse(to)
	if err != nil {
		f.t.Fatal(err)
	}
	return u
}

// authorizeURL is an A1 URL as SPEC shows it, with changes ("" removes).
func (f *oauthFixture) authorizeURL(changes ...string) string {
	q := url.Values{"client_id": {f.cred.APIKey}, "scope": {"adult"}, "redirect_uri": {oauthCallback}, "country": {"gb"}}
	for i := 0; i+1 < len(changes); i += 2 {
		if changes[i+1] == "" {
			q.Del(changes[i])
		} else {
			q.Set(changes[i], changes[i+1])
		}
	}
	return f.base + "/oauth/authorize?" + q.Encode()
}

// code runs A1 and the hosted flow and returns the code.
func (f *oauthFixture) code(o agesvc.Outcome, changes ...string) string {
	f.t.Helper()
	return f.finish(f.start(f.authorizeURL(changes...)), o).Query().Get("code")
}

// specToken is SPEC's A2: Basic base64(KEY:SECRET) and a JSON body.
func (f *oauthFixture) specToken(key, secret string, body any) response {
	f.t.Helper()
	return f.tokenRequest("application/json", jsonOf(f.t, body), "Basic "+base64.StdEncoding.EncodeToString([]byte(key+":"+secret)))
}

func (f *oauthFixture) tokenRequest(contentType string, body []byte, auth string) response {
	f.t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.base+"/oauth/token", bytes.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return oauthDo(f.t, http.DefaultClient, req)
}

func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	if b, ok := v.([]byte); ok {
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// accessToken checks a 200 token response and returns the token.
func (f *oauthFixture) accessToken(res response) string {
	f.t.Helper()
	if res.status != http.StatusOK {
		f.t.Fatalf("token: status %d, body %s", res.status, res.raw)
	}
	m := res.json(f.t)
	wantKeys(f.t, m, "access_token", "token_type", "expires_in")
	if m["token_type"] != "Bearer" || m["expires_in"] != float64(3600) {
		f.t.Fatalf("token response %s", res.raw)
	}
	if res.header.Get("Cache-Control") != "no-store" || res.header.Get("Pragma") != "no-cache" {
		f.t.Fatalf("token response headers: Cache-Control %q, Pragma %q", res.header.Get("Cache-Control"), res.header.Get("Pragma"))
	}
	return m["access_token"].(string)
}

// user is SPEC's A3 with ?access_token=.
func (f *oauthFixture) user(token string) response {
	f.t.Helper()
	return oauthGet(f.t, f.base+"/users/me?access_token="+url.QueryEscape(token))
}

func wantUser(t *testing.T, res response, verified bool, id string) {
	t.Helper()
	if res.status != http.StatusOK {
		t.Fatalf("users/me: status %d, body %s", res.status, res.raw)
	}
	m := res.json(t)
	wantKeys(t, m, "age_verified", "id", "threshold")
	if m["age_verified"] != verified || m["id"] != id || m["threshold"] != float64(18) {
		t.Fatalf("users/me = %s, want age_verified %v, id %q, threshold 18", res.raw, verified, id)
	}
}

var ageAdult = agesvc.Outcome{AgeVerified: true, VerificationID: "ver_adult_1", Method: "document"}

// TestAgeFlow runs the whole flow with golang.org/x/oauth2, unmodified, as
// the integrator's client, and with SPEC's own forms, on both environments
// and databases.
func TestAgeFlow(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{}, func(t *testing.T, ts *testserver.Server) {
		for _, env := range []verifyd.Environment{prd, sbx} {
			f := newOAuth(t, ts, env)
			ctx := context.Background()

			// golang.org/x/oauth2: AuthCodeURL, Exchange, then a Bearer call.
			cfg := f.config()
			u := f.finish(f.start(cfg.AuthCodeURL("state-1/é", oauth2.SetAuthURLParam("country", "gb"))), ageAdult)
			if got := u.Scheme + "://" + u.Host + u.Path; got != "https://shop.example/age/callback" ||
				u.Query().Get("site") != "1" || u.Query().Get("state") != "state-1/é" || u.Query().Get("code") == "" {
				t.Fatalf("%s: callback %s", env, u)
			}
			tok, err := cfg.Exchange(ctx, u.Query().Get("code"))
			if err != nil {
				t.Fatalf("%s: oauth2 Exchange: %v", env, err)
			}
			if tok.TokenType != "Bearer" || time.Until(tok.Expiry) < 59*time.Minute || time.Until(tok.Expiry) > time.Hour {
				t.Fatalf("%s: oauth2 token type %q, expiry %v", env, tok.TokenType, tok.Expiry)
			}
			res, err := cfg.Client(ctx, tok).Get(f.base + "/users/me")
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			wantUser(t, response{status: res.StatusCode, header: res.Header, raw: raw}, true, "ver_adult_1")

			// The same with PKCE, and with the credentials in the body.
			verifier := oauth2.GenerateVerifier()
			u = f.finish(f.start(cfg.AuthCodeURL("s2", oauth2.S256ChallengeOption(verifier),
				oauth2.SetAuthURLParam("country", "us"), oauth2.AccessTypeOffline, oauth2.ApprovalForce)),
				agesvc.Outcome{AgeVerified: false, VerificationID: "ver_minor", Method: "credit_card"})
			inParams := f.config()
			inParams.Endpoint.AuthStyle = oauth2.AuthStyleInParams
			if _, err := inParams.Exchange(ctx, u.Query().Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier())); err == nil {
				t.Fatalf("%s: exchange with the wrong PKCE verifier succeeded", env)
			}
			tok, err = inParams.Exchange(ctx, u.Query().Get("code"), oauth2.VerifierOption(verifier))
			if err != nil {
				t.Fatalf("%s: oauth2 Exchange with PKCE: %v", env, err)
			}
			wantUser(t, oauthGet(t, f.base+"/users/me", "Authorization", "Bearer "+tok.AccessToken), false, "ver_minor")

			// SPEC's forms: Basic + JSON {"code"}, then ?access_token=.
			code := f.code(ageAdult, "user_id", "u-42", "country", "fr")
			token := f.accessToken(f.specToken(f.cred.APIKey, f.cred.APISecret, map[string]string{"code": code}))
			wantUser(t, f.user(token), true, "ver_adult_1")

			// RFC 6749's form body with Basic credentials URL-encoded.
			code = f.code(ageAdult)
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {oauthCallback}}
			basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(f.cred.APIKey) + ":" + url.QueryEscape(f.cred.APISecret)))
			token = f.accessToken(f.tokenRequest("application/x-www-form-urlencoded", []byte(form.Encode()), "Basic "+basic))
			wantUser(t, f.user(token), true, "ver_adult_1")
		}
	})
}

func TestAgeAuthorizeErrors(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	f := newOAuth(t, ts, prd)
	newOAuth(t, ts, sbx)
	challenge := strings.Repeat("A", 43)
	tests := []struct {
		name    string
		url     string
		status  int
		message string
	}{
		{"no client_id", f.authorizeURL("client_id", ""), 400, "invalid client id"},
		{"unknown client_id", f.authorizeURL("client_id", "vdk_live_age_unknown"), 400, "invalid client id"},
		{"sandbox key on production", f.authorizeURL("client_id", ts.Credential(age, sbx).APIKey), 400, "invalid client id"},
		{"identity key", f.authorizeURL("client_id", ts.Credential(idp, prd).APIKey), 400, "invalid client id"},
		{"client id checked first", f.authorizeURL("client_id", "x", "scope", "", "country", ""), 400, "invalid client id"},
		{"no scope", f.authorizeURL("scope", ""), 400, "invalid scope"},
		{"scope openid", f.authorizeURL("scope", "openid"), 400, "invalid scope"},
		{"scope before params", f.authorizeURL("scope", "openid", "country", "", "redirect_uri", ""), 400, "invalid scope"},
		{"no redirect_uri", f.authorizeURL("redirect_uri", ""), 400, "invalid params"},
		{"no country", f.authorizeURL("country", ""), 400, "invalid params"},
		{"country it", f.authorizeURL("country", "it"), 400, "invalid params"},
		{"country GB", f.authorizeURL("country", "GB"), 400, "invalid params"},
		{"PKCE plain", f.authorizeURL("code_challenge", challenge, "code_challenge_method", "plain"), 400, "invalid params"},
		{"PKCE without method", f.authorizeURL("code_challenge", challenge), 400, "invalid params"},
		{"malformed query", f.base + "/oauth/authorize?client_id=%zz", 400, "invalid params"},
		{"params before redirect list", f.authorizeURL("redirect_uri", "https://evil.example/", "country", ""), 400, "invalid params"},
		{"unlisted redirect_uri", f.authorizeURL("redirect_uri", "https://evil.example/cb"), 401, "Unauthorized redirect_uri"},
		{"redirect_uri not exact", f.authorizeURL("redirect_uri", "https://shop.example/age/callback"), 401, "Unauthorized redirect_uri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := oauthGet(t, tt.url)
			res.wantError(t, tt.status, tt.message)
			if loc := res.header.Get("Location"); loc != "" {
				t.Errorf("error answer redirects to %q", loc)
			}
		})
	}
	// Only GET.
	req, _ := http.NewRequest(http.MethodPost, f.authorizeURL(), nil)
	oauthDo(t, noFollow, req).wantError(t, http.StatusMethodNotAllowed, verifyd.MsgMethodNotAllowed)
	// A redirect on the production list is not on the sandbox's.
	sb := newOAuth(t, ts, sbx)
	newClient(t, ts, age, sbx).change(t, "PUT", []string{"https://sandbox.example/cb"})
	oauthGet(t, sb.authorizeURL()).wantError(t, 401, "Unauthorized redirect_uri")
	sb.start(sb.authorizeURL("redirect_uri", "https://sandbox.example/cb"))
}

// wantTokenError asserts SPEC's error body of the token endpoint with RFC
// 6749 §5.2's error code next to it, a description in the characters RFC
// 6749 allows, and WWW-Authenticate on the 401s of client authentication.
func wantTokenError(t *testing.T, res response, status int, message, code string) {
	t.Helper()
	m := res.wantError(t, status, message)
	if m["error"] != code {
		t.Fatalf("error = %v, want %q; body %s", m["error"], code, res.raw)
	}
	desc, _ := m["error_description"].(string)
	if desc == "" || strings.ContainsFunc(desc, func(r rune) bool { return r < 0x20 || r > 0x7e || r == '"' || r == '\\' }) {
		t.Fatalf("error_description %q is empty or outside RFC 6749's characters", desc)
	}
	if got := res.header.Get("WWW-Authenticate"); (status == http.StatusUnauthorized && code != "invalid_grant") != strings.HasPrefix(got, "Basic ") {
		t.Fatalf("status %d with WWW-Authenticate %q", status, got)
	}
	if res.header.Get("Cache-Control") != "no-store" || res.header.Get("Pragma") != "no-cache" {
		t.Fatalf("token error headers: Cache-Control %q, Pragma %q", res.header.Get("Cache-Control"), res.header.Get("Pragma"))
	}
}

func TestAgeTokenErrors(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	f := newOAuth(t, ts, prd)
	_, creds, err := ts.Tenants.CreateBusiness(context.Background(), "Other shop")
	if err != nil {
		t.Fatal(err)
	}
	var other verifyd.Credential
	for _, c := range creds {
		if c.Interface == age && c.Environment == prd {
			other = c
		}
	}
	key, secret := f.cred.APIKey, f.cred.APISecret
	code := f.code(ageAdult)
	body := map[string]string{"code": code}
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	form := func(kv ...string) []byte {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return []byte(v.Encode())
	}
	const formType = "application/x-www-form-urlencoded"

	// 400 invalid client credentials: missing or malformed (invalid_client).
	wantTokenError(t, f.tokenRequest("application/json", jsonOf(t, body), ""), 400, "invalid client credentials", "invalid_client")
	for _, auth := range []string{"Basic", "Basic !!!", "Basic " + enc(key), "Basic " + enc(":"+secret), "Basic " + enc(key+":"),
		"Bearer " + secret, "hmac " + key + ":00", "Basic " + enc(key+":%zz")} {
		wantTokenError(t, f.tokenRequest("application/json", jsonOf(t, body), auth), 400, "invalid client credentials", "invalid_client")
	}
	// Two methods at once, or a body client_id naming another client
	// (invalid_request, RFC 6749 §2.3).
	wantTokenError(t, f.specToken(key, secret, map[string]string{"code": code, "client_secret": secret}), 400, "invalid client credentials", "invalid_request")
	wantTokenError(t, f.specToken(key, secret, map[string]string{"code": code, "client_id": other.APIKey}), 400, "invalid client credentials", "invalid_request")

	// 401 client id and client secret does not match: invalid_client, or
	// unauthorized_client for a key and its secret on the wrong mount.
	for _, tt := range []struct {
		name, key, secret, code string
	}{
		{"wrong secret", key, other.APISecret, "invalid_client"},
		{"unknown key", "vdk_live_age_unknown", secret, "invalid_client"},
		{"sandbox key on production", ts.Credential(age, sbx).APIKey, ts.Credential(age, sbx).APISecret, "unauthorized_client"},
		{"identity key", ts.Credential(idp, prd).APIKey, ts.Credential(idp, prd).APISecret, "unauthorized_client"},
		{"identity key, age secret", ts.Credential(idp, prd).APIKey, secret, "invalid_client"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantTokenError(t, f.specToken(tt.key, tt.secret, body), 401, "client id and client secret does not match", tt.code)
		})
	}
	wantTokenError(t, f.tokenRequest(formType, form("code", code, "client_id", key, "client_secret", "wrong"), ""),
		401, "client id and client secret does not match", "invalid_client")

	// 401 Unauthorized redirect_uri at the token step (invalid_grant).
	wantTokenError(t, f.specToken(key, secret, map[string]string{"code": code, "redirect_uri": "https://shop.example/age/callback"}),
		401, "Unauthorized redirect_uri", "invalid_grant")
	wantTokenError(t, f.tokenRequest(formType, form("grant_type", "authorization_code", "code", code, "redirect_uri", "http://localhost:3000/cb"),
		"Basic "+enc(key+":"+secret)), 401, "Unauthorized redirect_uri", "invalid_grant")

	// 400 invalid code: unknown or another business's (invalid_grant);
	// missing (invalid_request).
	wantTokenError(t, f.specToken(key, secret, map[string]string{"code": "vdc_unknown"}), 400, "invalid code", "invalid_grant")
	wantTokenError(t, f.specToken(other.APIKey, other.APISecret, body), 400, "invalid code", "invalid_grant")
	wantTokenError(t, f.specToken(key, secret, map[string]string{}), 400, "invalid code", "invalid_request")
	// 400 invalid params: a body that does not parse or a repeated form
	// parameter (invalid_request); another grant type
	// (unsupported_grant_type).
	for _, raw := range []string{`{"code":`, `["x"]`, `{"code": 7}`} {
		wantTokenError(t, f.specToken(key, secret, []byte(raw)), 400, "invalid params", "invalid_request")
	}
	wantTokenError(t, f.tokenRequest(formType, []byte("code=a&code=b"), "Basic "+enc(key+":"+secret)), 400, "invalid params", "invalid_request")
	for _, grant := range []string{"password", "client_credentials", "refresh_token"} {
		wantTokenError(t, f.specToken(key, secret, map[string]string{"code": code, "grant_type": grant}), 400, "invalid params", "unsupported_grant_type")
	}
	// A body over the limit.
	wantTokenError(t, f.tokenRequest("application/json", bytes.Repeat([]byte(" "), 2<<20), "Basic "+enc(key+":"+secret)),
		http.StatusRequestEntityTooLarge, verifyd.MsgTooLarge, "invalid_request")

	// None of the refused requests consumed the code; without a Content-Type
	// the JSON body is recognised.
	wantUser(t, f.user(f.accessToken(f.tokenRequest("", jsonOf(t, body), "Basic "+enc(key+":"+secret)))), true, "ver_adult_1")

	// Only POST.
	req, _ := http.NewRequest(http.MethodGet, f.base+"/oauth/token", nil)
	oauthDo(t, http.DefaultClient, req).wantError(t, http.StatusMethodNotAllowed, verifyd.MsgMethodNotAllowed)
}

// TestAgeVerifyMyPaths: /authorize and /token, the paths VerifyMy's PHP age
// client calls, are A1 and A2 with their errors, next to SPEC's paths, on
// both environments; the flow completes through them as that client runs
// it (league/oauth2-client: a form body with client_id and client_secret,
// then /users/me with a Bearer token).
func TestAgeVerifyMyPaths(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	for _, env := range []verifyd.Environment{prd, sbx} {
		f := newOAuth(t, ts, env)
		authURL := strings.Replace(f.authorizeURL("state", "5f2b"), "/oauth/authorize?", "/authorize?", 1)
		u := f.finish(f.start(authURL), ageAdult)
		if u.Query().Get("state") != "5f2b" {
			t.Fatalf("%s: callback %s", env, u)
		}
		post := func(body url.Values) response {
			req, _ := http.NewRequest(http.MethodPost, f.base+"/token", strings.NewReader(body.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept", "application/json")
			return oauthDo(t, http.DefaultClient, req)
		}
		creds := url.Values{"client_id": {f.cred.APIKey}, "client_secret": {f.cred.APISecret}, "redirect_uri": {oauthCallback},
			"grant_type": {"authorization_code"}}
		bad := url.Values{}
		for k, v := range creds {
			bad[k] = v
		}
		bad.Set("code", "vdc_unknown")
		wantTokenError(t, post(bad), 400, "invalid code", "invalid_grant")
		creds.Set("code", u.Query().Get("code"))
		wantUser(t, oauthGet(t, f.base+"/users/me", "Authorization", "Bearer "+f.accessToken(post(creds))), true, "ver_adult_1")

		oauthGet(t, strings.Replace(f.authorizeURL("scope", "openid"), "/oauth/authorize?", "/authorize?", 1)).wantError(t, 400, "invalid scope")
		req, _ := http.NewRequest(http.MethodGet, f.base+"/token", nil)
		res := oauthDo(t, http.DefaultClient, req)
		res.wantError(t, http.StatusMethodNotAllowed, verifyd.MsgMethodNotAllowed)
		if res.header.Get("Allow") != "POST" {
			t.Errorf("GET /token: Allow %q", res.header.Get("Allow"))
		}
	}
	// Only the age mounts have them.
	oauthGet(t, ts.BaseURL(idp, sbx)+"/authorize").wantError(t, 404, verifyd.MsgNotFound)
}

// TestAgeMetadata: RFC 8414 metadata on each age mount, at the mount's
// /.well-known/oauth-authorization-server and at RFC 8414 §3.1's path
// built from the issuer; its endpoints are the ones that work.
func TestAgeMetadata(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	for _, env := range []verifyd.Environment{prd, sbx} {
		f := newOAuth(t, ts, env)
		base, err := url.Parse(f.base)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []string{f.base + "/.well-known/oauth-authorization-server",
			base.Scheme + "://" + base.Host + "/.well-known/oauth-authorization-server" + base.Path} {
			res := oauthGet(t, at)
			if res.status != 200 || res.header.Get("Content-Type") != "application/json" {
				t.Fatalf("%s: %d %s", at, res.status, res.raw)
			}
			m := res.json(t)
			want := map[string]any{
				"issuer":                                f.base,
				"authorization_endpoint":                f.base + "/oauth/authorize",
				"token_endpoint":                        f.base + "/oauth/token",
				"scopes_supported":                      []any{"adult"},
				"response_types_supported":              []any{"code"},
				"response_modes_supported":              []any{"query"},
				"grant_types_supported":                 []any{"authorization_code"},
				"token_endpoint_auth_methods_supported": []any{"client_secret_basic", "client_secret_post"},
				"code_challenge_methods_supported":      []any{"S256"},
			}
			wantKeys(t, m, mapKeys(want)...)
			for k, v := range want {
				if got, _ := json.Marshal(m[k]); string(got) != string(jsonOf(t, v)) {
					t.Errorf("%s: %s = %s, want %s", at, k, got, jsonOf(t, v))
				}
			}
		}
		// The advertised endpoints are the ones that work: PKCE S256 with
		// client_secret_post.
		cfg := f.config()
		cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
		verifier := oauth2.GenerateVerifier()
		u := f.finish(f.start(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("country", "de"))), ageAdult)
		if _, err := cfg.Exchange(context.Background(), u.Query().Get("code"), oauth2.VerifierOption(verifier)); err != nil {
			t.Fatalf("%s: exchange: %v", env, err)
		}
	}
	// Not for identity mounts, nor for a path that is no age mount's.
	idBase, _ := url.Parse(ts.BaseURL(idp, prd))
	for _, at := range []string{ts.BaseURL(idp, prd) + "/.well-known/oauth-authorization-server",
		idBase.Scheme + "://" + idBase.Host + "/.well-known/oauth-authorization-server" + idBase.Path,
		idBase.Scheme + "://" + idBase.Host + "/.well-known/oauth-authorization-server/nowhere",
		idBase.Scheme + "://" + idBase.Host + "/.well-known/oauth-authorization-server/age/",
		idBase.Scheme + "://" + idBase.Host + "/.well-known/oauth-authorization-server"} {
		oauthGet(t, at).wantError(t, 404, verifyd.MsgNotFound)
	}
}

func TestAgeUserErrors(t *testing.T) {
	t.Parallel()
	clock := &consoleClock{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Now: clock.now})
	f, sb := newOAuth(t, ts, prd), newOAuth(t, ts, sbx)
	token := f.accessToken(f.specToken(f.cred.APIKey, f.cred.APISecret, map[string]string{"code": f.code(ageAdult)}))
	sandboxToken := sb.accessToken(sb.specToken(sb.cred.APIKey, sb.cred.APISecret, map[string]string{"code": sb.code(ageAdult)}))

	oauthGet(t, f.base+"/users/me").wantError(t, 400, "malformed token")
	f.user("vdt_live_unknown").wantError(t, 400, "malformed token")
	oauthGet(t, f.base+"/users/me", "Authorization", "Bearer nope").wantError(t, 400, "malformed token")
	// A sandbox token on the production mount, and the other way round.
	f.user(sandboxToken).wantError(t, 400, "malformed token")
	sb.user(token).wantError(t, 400, "malformed token")
	// Two ways at once (RFC 6750 §2).
	oauthGet(t, f.base+"/users/me?access_token="+token, "Authorization", "Bearer "+token).wantError(t, 400, "malformed token")
	oauthGet(t, f.base+"/users/me?access_token="+token+"&access_token="+token).wantError(t, 400, "malformed token")
	wantUser(t, f.user(token), true, "ver_adult_1")
	wantUser(t, sb.user(sandboxToken), true, "ver_adult_1")

	// Expiry after an hour; codes after ten minutes.
	code := f.code(ageAdult)
	clock.advance(10 * time.Minute)
	f.specToken(f.cred.APIKey, f.cred.APISecret, map[string]string{"code": code}).wantError(t, 400, "invalid code")
	clock.advance(50*time.Minute - 30*time.Second)
	wantUser(t, f.user(token), true, "ver_adult_1")
	clock.advance(30 * time.Second)
	f.user(token).wantError(t, 400, "malformed token")
}

// TestAgeCodeReplay: a second exchange of a code is refused and revokes the
// token issued for it; of 20 concurrent exchanges of one code exactly one
// wins (and, the others being replays, its token is revoked too).
func TestAgeCodeReplay(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{}, func(t *testing.T, ts *testserver.Server) {
		f := newOAuth(t, ts, prd)
		ctx := context.Background()
		cfg := f.config()
		code := f.code(ageAdult, "redirect_uri", oauthCallback)
		tok, err := cfg.Exchange(ctx, code)
		if err != nil {
			t.Fatalf("Exchange: %v", err)
		}
		kept := f.accessToken(f.specToken(f.cred.APIKey, f.cred.APISecret, map[string]string{"code": f.code(ageAdult)}))
		wantUser(t, f.user(tok.AccessToken), true, "ver_adult_1")
		_, err = cfg.Exchange(ctx, code)
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.Response.StatusCode != 400 || !strings.Contains(string(re.Body), `"invalid code"`) || re.ErrorCode != "invalid_grant" {
			t.Fatalf("replayed Exchange: %v, want 400 invalid code, invalid_grant", err)
		}
		f.user(tok.AccessToken).wantError(t, 400, "malformed token")
		wantUser(t, f.user(kept), true, "ver_adult_1")

		code = f.code(ageAdult)
		const n = 20
		results := make([]response, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				req, _ := http.NewRequest(http.MethodPost, f.base+"/oauth/token", strings.NewReader(`{"code":"`+code+`"}`))
				req.Header.Set("Content-Type", "application/json")
				req.SetBasicAuth(f.cred.APIKey, f.cred.APISecret)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				results[i] = response{status: res.StatusCode, header: res.Header, raw: raw}
			})
		}
		close(start)
		wg.Wait()
		var winner string
		wins := 0
		for _, res := range results {
			switch res.status {
			case http.StatusOK:
				wins++
				winner = f.accessToken(res)
			default:
				res.wantError(t, 400, "invalid code")
			}
		}
		if wins != 1 {
			t.Fatalf("%d of %d concurrent exchanges won, want exactly 1", wins, n)
		}
		f.user(winner).wantError(t, 400, "malformed token")
	})
}

// TestAgeInternalErrors: SPEC's 500 rows carry only "Internal Server Error".
func TestAgeInternalErrors(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	f := newOAuth(t, ts, prd)
	// A1 stores nothing (the request travels sealed in the flow's
	// address); what it reads is the allowed-redirect list.
	for _, table := range []string{"age_tokens", "age_codes", "age_auth_requests", "redirect_urls"} {
		if _, err := ts.Store.SQL().Exec("DROP TABLE " + table); err != nil {
			t.Fatal(err)
		}
	}
	oauthGet(t, f.authorizeURL()).wantError(t, 500, "Internal Server Error")
	f.specToken(f.cred.APIKey, f.cred.APISecret, map[string]string{"code": "vdc_x"}).wantError(t, 500, "Internal Server Error")
	f.user("vdt_live_x").wantError(t, 500, "Internal Server Error")
}

// TestAuthorizeStoresNothing: A1 writes no row, however often it is
// called; the request is stored once, when its flow issues the code, and
// a second completion of the same flow is refused.
func TestAuthorizeStoresNothing(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	f := newOAuth(t, ts, prd)
	rows := func() int {
		var n int
		if err := ts.Store.SQL().QueryRow("SELECT count(*) FROM age_auth_requests").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var flows []string
	for range 10 {
		flows = append(flows, f.start(f.authorizeURL()))
	}
	if n := rows(); n != 0 {
		t.Fatalf("%d authorize requests stored after 10 A1 calls, want 0", n)
	}
	f.finish(flows[3], agesvc.Outcome{AgeVerified: true, VerificationID: "agv_x", Method: "document"})
	if n := rows(); n != 1 {
		t.Fatalf("%d authorize requests stored after one flow finished, want 1", n)
	}
	_, err := ts.Age.Complete(context.Background(), flows[3], agesvc.Outcome{AgeVerified: true, VerificationID: "agv_x", Method: "document"})
	if !errors.Is(err, agesvc.ErrCompleted) {
		t.Fatalf("second Complete of a flow: %v, want ErrCompleted", err)
	}
}
