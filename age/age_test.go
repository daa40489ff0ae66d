package age_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/tenant"
)

const (
	prd      = verifyd.EnvProduction
	sbx      = verifyd.EnvSandbox
	redirect = "https://shop.example/callback?from=verifyd"
)

// clock is the injected time; tests move it forward.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type fixture struct {
	t       *testing.T
	ctx     context.Context
	svc     *age.Service
	db      *sqlstore.DB
	tenants *tenant.Service
	clock   *clock
	sealer  *seal.Sealer
	flowURL func(verifyd.Environment) string
	// creds[env] is the business's age credential; other is another
	// business's production age key, identity its production identity key.
	creds    map[verifyd.Environment]verifyd.Credential
	other    verifyd.Credential
	identity verifyd.Credential
}

// each runs fn on a fresh fixture per database.
func each(t *testing.T, fn func(t *testing.T, f *fixture)) {
	t.Helper()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			fn(t, newFixture(t, d))
		})
	}
}

func newFixture(t *testing.T, dialect string) *fixture {
	t.Helper()
	ctx := t.Context()
	db, err := sqlstore.Open(ctx, testdb.URL(t, dialect), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	sealer, err := seal.New(key, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)}
	tenants := tenant.New(db, sealer, rand.Reader, c.now)
	f := &fixture{t: t, ctx: ctx, db: db, tenants: tenants, clock: c, creds: map[verifyd.Environment]verifyd.Credential{}}
	f.flowURL = func(e verifyd.Environment) string {
		if e == sbx {
			return "https://verifyd.example/sandbox/age/"
		}
		return "https://verifyd.example/age"
	}
	f.sealer = sealer
	f.svc = age.New(db, tenants, rand.Reader, c.now, age.Config{FlowBaseURL: f.flowURL, Sealer: sealer})
	for n, name := range []string{"Shop", "Other shop"} {
		_, creds, err := tenants.CreateBusiness(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, cr := range creds {
			if cr.Interface == verifyd.InterfaceAge {
				if err := tenants.AddRedirects(ctx, cr, []string{redirect, "https://shop.example/plain"}); err != nil {
					t.Fatal(err)
				}
			}
			switch {
			case n == 1 && cr.Interface == verifyd.InterfaceAge && cr.Environment == prd:
				f.other = cr
			case n == 0 && cr.Interface == verifyd.InterfaceAge:
				f.creds[cr.Environment] = cr
			case n == 0 && cr.Environment == prd:
				f.identity = cr
			}
		}
	}
	return f
}

// query is a valid authorize query for the production key with changes:
// a value "" removes the parameter.
func (f *fixture) query(env verifyd.Environment, changes ...string) url.Values {
	q := url.Values{
		"client_id": {f.creds[env].APIKey}, "scope": {"adult"}, "redirect_uri": {redirect},
		"country": {"gb"}, "state": {"xyz"}, "response_type": {"code"},
	}
	for i := 0; i+1 < len(changes); i += 2 {
		if changes[i+1] == "" {
			q.Del(changes[i])
		} else {
			q.Set(changes[i], changes[i+1])
		}
	}
	return q
}

func (f *fixture) authorize(env verifyd.Environment, q url.Values) age.AuthRequest {
	f.t.Helper()
	r, flow, err := f.svc.Authorize(f.ctx, env, q)
	if err != nil {
		f.t.Fatalf("Authorize: %v", err)
	}
	if want := map[verifyd.Environment]string{prd: "https://verifyd.example/age/flow/", sbx: "https://verifyd.example/sandbox/age/flow/"}[env] + r.Flow; flow != want {
		f.t.Fatalf("flow URL = %q, want %q", flow, want)
	}
	return r
}

// code runs authorize and completes it, returning the code and the redirect.
func (f *fixture) code(env verifyd.Environment, q url.Values, o age.Outcome) (string, *url.URL) {
	f.t.Helper()
	r := f.authorize(env, q)
	to, err := f.svc.Complete(f.ctx, r.Flow, o)
	if err != nil {
		f.t.Fatalf("Complete: %v", err)
	}
	u, err := url.Parse(to)
	if err != nil {
		f.t.Fatal(err)
	}
	return u.Query().Get("code"), u
}

var adult = age.Outcome{AgeVerified: true, VerificationID: "ver_123", Method: "document"}

func (f *fixture) exchange(env verifyd.Environment, code string, mod ...func(*age.TokenRequest)) (age.Token, error) {
	in := age.TokenRequest{ClientID: f.creds[env].APIKey, ClientSecret: f.creds[env].APISecret, Code: code}
	for _, m := range mod {
		m(&in)
	}
	return f.svc.Exchange(f.ctx, env, in)
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", what, err, want)
	}
}

func TestAuthorizeChecksInOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sqlite")
	identityKey, otherEnvKey := f.identity.APIKey, f.creds[sbx].APIKey
	revoked, err := f.tenants.CreateKey(f.ctx, f.creds[prd].BusinessID, verifyd.InterfaceAge, prd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.tenants.RevokeKey(f.ctx, revoked.APIKey); err != nil {
		t.Fatal(err)
	}
	challenge := strings.Repeat("a", 43)
	tests := []struct {
		name    string
		changes []string
		extra   url.Values
		want    error
	}{
		{"no client_id", []string{"client_id", ""}, nil, age.ErrInvalidClientID},
		{"unknown client_id", []string{"client_id", "vdk_live_age_nope"}, nil, age.ErrInvalidClientID},
		{"revoked key", []string{"client_id", revoked.APIKey}, nil, age.ErrInvalidClientID},
		{"identity key", []string{"client_id", identityKey}, nil, age.ErrInvalidClientID},
		{"sandbox key on production", []string{"client_id", otherEnvKey}, nil, age.ErrInvalidClientID},
		{"invalid UTF-8 client_id", []string{"client_id", "\xff"}, nil, age.ErrInvalidClientID},
		{"repeated client_id", nil, url.Values{"client_id": {"x"}}, age.ErrInvalidClientID},
		// client id is checked before everything else
		{"bad client and scope", []string{"client_id", "x", "scope", "openid", "country", "xx"}, nil, age.ErrInvalidClientID},
		{"no scope", []string{"scope", ""}, nil, age.ErrInvalidScope},
		{"other scope", []string{"scope", "openid"}, nil, age.ErrInvalidScope},
		{"two scopes", []string{"scope", "adult openid"}, nil, age.ErrInvalidScope},
		{"scope case", []string{"scope", "Adult"}, nil, age.ErrInvalidScope},
		// scope before params
		{"bad scope and country", []string{"scope", "x", "country", "xx"}, nil, age.ErrInvalidScope},
		{"no redirect_uri", []string{"redirect_uri", ""}, nil, age.ErrInvalidParams},
		{"no country", []string{"country", ""}, nil, age.ErrInvalidParams},
		{"unknown country", []string{"country", "it"}, nil, age.ErrInvalidParams},
		{"uppercase country", []string{"country", "GB"}, nil, age.ErrInvalidParams},
		{"repeated country", nil, url.Values{"country": {"de"}}, age.ErrInvalidParams},
		{"control character in state", []string{"state", "a\x00b"}, nil, age.ErrInvalidParams},
		{"long user_id", []string{"user_id", strings.Repeat("u", 257)}, nil, age.ErrInvalidParams},
		{"PKCE plain", []string{"code_challenge", challenge, "code_challenge_method", "plain"}, nil, age.ErrInvalidParams},
		{"PKCE without method", []string{"code_challenge", challenge}, nil, age.ErrInvalidParams},
		{"PKCE method without challenge", []string{"code_challenge_method", "S256"}, nil, age.ErrInvalidParams},
		{"PKCE short challenge", []string{"code_challenge", "abc", "code_challenge_method", "S256"}, nil, age.ErrInvalidParams},
		{"PKCE challenge not base64url", []string{"code_challenge", strings.Repeat("+", 43), "code_challenge_method", "S256"}, nil, age.ErrInvalidParams},
		// params before the redirect list
		{"unlisted redirect and bad country", []string{"redirect_uri", "https://evil.example/", "country", "xx"}, nil, age.ErrInvalidParams},
		{"unlisted redirect", []string{"redirect_uri", "https://evil.example/"}, nil, age.ErrUnauthorizedRedirect},
		{"prefix of a listed redirect", []string{"redirect_uri", "https://shop.example/callback"}, nil, age.ErrUnauthorizedRedirect},
		{"listed redirect plus query", []string{"redirect_uri", redirect + "&x=1"}, nil, age.ErrUnauthorizedRedirect},
		{"trailing slash", []string{"redirect_uri", "https://shop.example/plain/"}, nil, age.ErrUnauthorizedRedirect},
	}
	for _, tt := range tests {
		q := f.query(prd, tt.changes...)
		for k, vs := range tt.extra {
			q[k] = append(q[k], vs...)
		}
		_, _, err := f.svc.Authorize(f.ctx, prd, q)
		wantErr(t, tt.name, err, tt.want)
	}
	// The sandbox list is separate: a URL only on the production list is
	// refused on the sandbox mount.
	sandboxOnly := f.creds[sbx]
	if err := f.tenants.ReplaceRedirects(f.ctx, sandboxOnly, []string{"https://sandbox.example/cb"}); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.svc.Authorize(f.ctx, sbx, f.query(sbx))
	wantErr(t, "production-only redirect on the sandbox", err, age.ErrUnauthorizedRedirect)
	f.authorize(sbx, f.query(sbx, "redirect_uri", "https://sandbox.example/cb"))
}

func TestAuthorizeKeepsRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sqlite")
	verifier := strings.Repeat("v", 50)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	q := f.query(prd, "state", "a b&c=d/é", "user_id", "user-42", "country", "de",
		"code_challenge", challenge, "code_challenge_method", "S256", "approval_prompt", "force", "access_type", "offline")
	r := f.authorize(prd, q)
	if !strings.HasPrefix(r.ID, "areq_") || len(r.ID) < len("areq_")+26 {
		t.Errorf("request id %q: want areq_ and at least 128 random bits", r.ID)
	}
	got, err := f.svc.AuthRequest(f.ctx, r.Flow)
	if err != nil {
		t.Fatalf("AuthRequest: %v", err)
	}
	start := f.clock.now()
	want := age.AuthRequest{ID: r.ID, Flow: r.Flow, BusinessID: f.creds[prd].BusinessID, Environment: prd,
		ClientID: f.creds[prd].APIKey, RedirectURI: redirect, State: "a b&c=d/é", UserID: "user-42", Country: "de",
		CodeChallenge: challenge, CodeChallengeMethod: "S256", CreatedAt: start, ExpiresAt: start.Add(30 * time.Minute)}
	if got != want || r != want {
		t.Errorf("AuthRequest = %+v\nAuthorize returned %+v\nwant %+v", got, r, want)
	}
	// Two requests never share an id.
	if again := f.authorize(prd, q); again.ID == r.ID || again.Flow == r.Flow {
		t.Error("two authorize requests got the same id or flow")
	}
	// Nothing is stored until the flow completes.
	if _, err := f.db.AgeAuthRequest(f.ctx, r.ID); !errors.Is(err, verifyd.ErrNotFound) {
		t.Errorf("stored request after Authorize: %v, want ErrNotFound", err)
	}
	// The flow handle cannot be altered or made elsewhere: a changed
	// byte, another master key, no prefix.
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	otherSealer, _ := seal.New(key, rand.Reader)
	elsewhere := age.New(f.db, f.tenants, rand.Reader, f.clock.now, age.Config{FlowBaseURL: f.flowURL, Sealer: otherSealer})
	foreign, _, err := elsewhere.Authorize(f.ctx, prd, q)
	if err != nil {
		t.Fatal(err)
	}
	flip := []byte(r.Flow)
	flip[len(flip)/2] ^= 'A' ^ 'B'
	if flip[len(flip)/2] == r.Flow[len(flip)/2] {
		flip[len(flip)/2] = 'C'
	}
	for name, bad := range map[string]string{"changed": string(flip), "other key": foreign.Flow,
		"no prefix": strings.TrimPrefix(r.Flow, "af_"), "truncated": r.Flow[:len(r.Flow)-4], "long": r.Flow + strings.Repeat("A", 20000)} {
		_, err := f.svc.AuthRequest(f.ctx, bad)
		wantErr(t, "AuthRequest of a "+name+" flow", err, verifyd.ErrNotFound)
		_, err = f.svc.Complete(f.ctx, bad, adult)
		wantErr(t, "Complete of a "+name+" flow", err, verifyd.ErrNotFound)
	}

	f.clock.advance(30*time.Minute - time.Microsecond)
	if _, err := f.svc.AuthRequest(f.ctx, r.Flow); err != nil {
		t.Errorf("AuthRequest just before expiry: %v", err)
	}
	f.clock.advance(time.Microsecond)
	_, err = f.svc.AuthRequest(f.ctx, r.Flow)
	wantErr(t, "AuthRequest after 30 minutes", err, verifyd.ErrNotFound)
	_, err = f.svc.Complete(f.ctx, r.Flow, adult)
	wantErr(t, "Complete after 30 minutes", err, verifyd.ErrNotFound)
	_, err = f.svc.AuthRequest(f.ctx, "areq_\xff")
	wantErr(t, "AuthRequest of an id that is not UTF-8", err, verifyd.ErrNotFound)
	_, err = f.svc.AuthRequest(f.ctx, "areq_unknown")
	wantErr(t, "AuthRequest of an unknown id", err, verifyd.ErrNotFound)
	_, err = f.svc.Complete(f.ctx, "areq_unknown", adult)
	wantErr(t, "Complete of an unknown id", err, verifyd.ErrNotFound)
}

func TestCompleteRedirect(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sqlite")
	code, u := f.code(prd, f.query(prd, "state", "a b&c=d/é"), adult)
	if !strings.HasPrefix(code, "vdc_") || len(code) < 30 {
		t.Errorf("code %q: want vdc_ and at least 128 random bits", code)
	}
	if got := u.Scheme + "://" + u.Host + u.Path; got != "https://shop.example/callback" {
		t.Errorf("redirect goes to %q", got)
	}
	if q := u.Query(); q.Get("from") != "verifyd" || q.Get("state") != "a b&c=d/é" || len(q) != 3 {
		t.Errorf("redirect query = %v, want from, code and the state unchanged", q)
	}
	if !strings.HasPrefix(u.RawQuery, "from=verifyd&code=") {
		t.Errorf("redirect query %q does not keep the registered query first and unchanged", u.RawQuery)
	}
	// Without state there is no state parameter.
	_, u = f.code(prd, f.query(prd, "state", "", "redirect_uri", "https://shop.example/plain"), adult)
	if u.RawQuery != "code="+u.Query().Get("code") {
		t.Errorf("redirect without state: query %q", u.RawQuery)
	}

	// Completing twice fails; an outcome needs its verification id.
	r := f.authorize(prd, f.query(prd))
	_, err := f.svc.Complete(f.ctx, r.Flow, age.Outcome{AgeVerified: true})
	if verifyd.ErrorCodeOf(err) != verifyd.EInvalid {
		t.Errorf("Complete without verification id: %v, want EInvalid", err)
	}
	if _, err := f.svc.Complete(f.ctx, r.Flow, adult); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	// Completing stored the request, completed.
	if stored, err := f.db.AgeAuthRequest(f.ctx, r.ID); err != nil || stored.CompletedAt == nil || stored.RedirectURI != r.RedirectURI {
		t.Errorf("stored request after Complete: %+v, %v", stored, err)
	}
	_, err = f.svc.Complete(f.ctx, r.Flow, adult)
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict || !errors.Is(err, age.ErrCompleted) {
		t.Errorf("second Complete: %v, want ErrCompleted (EConflict)", err)
	}
	// A completed request can still be read until it expires, and says
	// it is completed (its flow handle has not changed).
	if got, err := f.svc.AuthRequest(f.ctx, r.Flow); err != nil || got.CompletedAt == nil {
		t.Errorf("AuthRequest of a completed request: %+v, %v", got, err)
	}
	if r.CompletedAt != nil {
		t.Error("Authorize returned a completed request")
	}
}

func TestExchangeAndUser(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		for _, env := range []verifyd.Environment{prd, sbx} {
			for _, o := range []age.Outcome{adult, {AgeVerified: false, VerificationID: "ver_minor", Method: "document"}} {
				code, _ := f.code(env, f.query(env), o)
				tok, err := f.exchange(env, code, func(in *age.TokenRequest) {
					in.GrantType, in.RedirectURI = "authorization_code", redirect
				})
				if err != nil {
					t.Fatalf("%s Exchange: %v", env, err)
				}
				prefix := map[verifyd.Environment]string{prd: "vdt_live_", sbx: "vdt_test_"}[env]
				if !strings.HasPrefix(tok.AccessToken, prefix) || tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 {
					t.Errorf("%s token = %+v", env, tok)
				}
				u, err := f.svc.User(f.ctx, env, tok.AccessToken)
				if err != nil {
					t.Fatalf("%s User: %v", env, err)
				}
				if want := (age.User{AgeVerified: o.AgeVerified, ID: o.VerificationID, Threshold: 18}); u != want {
					t.Errorf("%s User = %+v, want %+v", env, u, want)
				}
				// Tokens only work in the environment that issued them.
				other := map[verifyd.Environment]verifyd.Environment{prd: sbx, sbx: prd}[env]
				_, err = f.svc.User(f.ctx, other, tok.AccessToken)
				wantErr(t, string(env)+" token on the other environment", err, age.ErrMalformedToken)
			}
		}
	})
}

func TestExchangeClientAuthentication(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sqlite")
	code, _ := f.code(prd, f.query(prd), adult)
	tests := []struct {
		name       string
		id, secret string
		want       error
	}{
		{"no credentials", "", "", age.ErrInvalidClientCredentials},
		{"no secret", f.creds[prd].APIKey, "", age.ErrInvalidClientCredentials},
		{"wrong secret", f.creds[prd].APIKey, f.creds[sbx].APISecret, age.ErrClientMismatch},
		{"unknown key", "vdk_live_age_nope", f.creds[prd].APISecret, age.ErrClientMismatch},
		{"sandbox key on production", f.creds[sbx].APIKey, f.creds[sbx].APISecret, age.ErrClientNotAllowed},
		{"identity key", f.identity.APIKey, f.identity.APISecret, age.ErrClientNotAllowed},
		{"identity key, wrong secret", f.identity.APIKey, f.creds[prd].APISecret, age.ErrClientMismatch},
		// another business authenticates fine but the code is not theirs
		{"other business", f.other.APIKey, f.other.APISecret, age.ErrInvalidCode},
	}
	for _, tt := range tests {
		_, err := f.exchange(prd, code, func(in *age.TokenRequest) { in.ClientID, in.ClientSecret = tt.id, tt.secret })
		wantErr(t, tt.name, err, tt.want)
	}
	// A client that fails authentication gets the same answer with a code
	// that does not exist: the code is not looked at.
	_, err := f.exchange(prd, "vdc_nope", func(in *age.TokenRequest) { in.ClientSecret = "wrong" })
	wantErr(t, "wrong secret with an unknown code", err, age.ErrClientMismatch)
	// None of this consumed the code.
	if _, err := f.exchange(prd, code); err != nil {
		t.Errorf("Exchange by the right client after refused attempts: %v", err)
	}
	// A revoked key cannot exchange, and its tokens stop working.
	code, _ = f.code(prd, f.query(prd), adult)
	tok, err := f.exchange(prd, code)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.tenants.RevokeKey(f.ctx, f.creds[prd].APIKey); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.User(f.ctx, prd, tok.AccessToken)
	wantErr(t, "token of a revoked key", err, age.ErrMalformedToken)
	_, err = f.exchange(prd, "vdc_any")
	wantErr(t, "revoked key", err, age.ErrClientMismatch)
}

func TestExchangeCodeRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sqlite")
	// Unknown and empty codes; another grant type.
	_, err := f.exchange(prd, "vdc_unknown")
	wantErr(t, "unknown code", err, age.ErrInvalidCode)
	_, err = f.exchange(prd, "")
	wantErr(t, "empty code", err, age.ErrMissingCode)
	code, _ := f.code(prd, f.query(prd), adult)
	_, err = f.exchange(prd, code, func(in *age.TokenRequest) { in.GrantType = "client_credentials" })
	wantErr(t, "grant_type client_credentials", err, age.ErrUnsupportedGrant)

	// A redirect_uri at the token step must be the authorize one.
	for _, other := range []string{"https://shop.example/plain", redirect + "&x=1", "https://evil.example/"} {
		_, err = f.exchange(prd, code, func(in *age.TokenRequest) { in.RedirectURI = other })
		wantErr(t, "redirect_uri "+other, err, age.ErrUnauthorizedRedirect)
	}
	// Omitted is fine (SPEC's form has none); refused attempts consumed nothing.
	if _, err := f.exchange(prd, code); err != nil {
		t.Fatalf("Exchange without redirect_uri: %v", err)
	}

	// Expiry: 10 minutes, exclusive.
	code, _ = f.code(prd, f.query(prd), adult)
	f.clock.advance(10*time.Minute - time.Microsecond)
	if _, err := f.exchange(prd, code); err != nil {
		t.Errorf("Exchange just before expiry: %v", err)
	}
	code, _ = f.code(prd, f.query(prd), adult)
	f.clock.advance(10 * time.Minute)
	_, err = f.exchange(prd, code)
	wantErr(t, "code after 10 minutes", err, age.ErrInvalidCode)
}

func TestExchangePKCE(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sqlite")
	verifier := "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" // RFC 7636 appendix B
	challenge := "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	pkce := f.query(prd, "code_challenge", challenge, "code_challenge_method", "S256")
	code, _ := f.code(prd, pkce, adult)
	for name, v := range map[string]string{
		"missing verifier":      "",
		"wrong verifier":        strings.Repeat("x", 43),
		"challenge as verifier": challenge + "x",
		"short verifier":        verifier[:42],
		"bad characters":        verifier[:42] + "+",
	} {
		_, err := f.exchange(prd, code, func(in *age.TokenRequest) { in.CodeVerifier = v })
		wantErr(t, name, err, age.ErrInvalidCode)
	}
	if _, err := f.exchange(prd, code, func(in *age.TokenRequest) { in.CodeVerifier = verifier }); err != nil {
		t.Fatalf("Exchange with the right verifier: %v", err)
	}
	// A verifier for a code issued without challenge is refused (PKCE
	// downgrade).
	code, _ = f.code(prd, f.query(prd), adult)
	_, err := f.exchange(prd, code, func(in *age.TokenRequest) { in.CodeVerifier = verifier })
	wantErr(t, "verifier without challenge", err, age.ErrInvalidCode)
}

func TestReplayRevokesTokens(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		code, _ := f.code(prd, f.query(prd), adult)
		tok, err := f.exchange(prd, code)
		if err != nil {
			t.Fatal(err)
		}
		other, _ := f.code(prd, f.query(prd), adult)
		kept, err := f.exchange(prd, other)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.User(f.ctx, prd, tok.AccessToken); err != nil {
			t.Fatalf("User before the replay: %v", err)
		}
		// Another business replaying it revokes nothing.
		_, err = f.svc.Exchange(f.ctx, prd, age.TokenRequest{ClientID: f.other.APIKey, ClientSecret: f.other.APISecret, Code: code})
		wantErr(t, "replay by another business", err, age.ErrInvalidCode)
		if _, err := f.svc.User(f.ctx, prd, tok.AccessToken); err != nil {
			t.Fatalf("User after another business's replay: %v", err)
		}
		_, err = f.exchange(prd, code)
		wantErr(t, "replayed code", err, age.ErrInvalidCode)
		_, err = f.svc.User(f.ctx, prd, tok.AccessToken)
		wantErr(t, "token of a replayed code", err, age.ErrMalformedToken)
		if _, err := f.svc.User(f.ctx, prd, kept.AccessToken); err != nil {
			t.Errorf("token of another code after the replay: %v", err)
		}
		// Even after the code expired, a replay still revokes.
		code, _ = f.code(prd, f.query(prd), adult)
		tok, _ = f.exchange(prd, code)
		f.clock.advance(20 * time.Minute)
		_, err = f.exchange(prd, code)
		wantErr(t, "replay of an expired code", err, age.ErrInvalidCode)
		_, err = f.svc.User(f.ctx, prd, tok.AccessToken)
		wantErr(t, "token of a code replayed after expiry", err, age.ErrMalformedToken)
	})
}

// barrier holds every RedeemAgeCode until n callers arrived (or a while
// passed), so concurrent exchanges all pass the checks before any of them
// consumes the code and the store's conditional update alone decides.
type barrier struct {
	verifyd.AgeOAuthStore
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func (b *barrier) RedeemAgeCode(ctx context.Context, codeHash []byte, t verifyd.AgeToken) (verifyd.AgeCode, error) {
	b.mu.Lock()
	if b.arrived++; b.arrived == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
	case <-time.After(5 * time.Second):
	}
	return b.AgeOAuthStore.RedeemAgeCode(ctx, codeHash, t)
}

func TestConcurrentExchangeOneWins(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		const n = 20
		f.svc = age.New(&barrier{AgeOAuthStore: f.db, n: n, all: make(chan struct{})}, f.tenants, rand.Reader,
			f.clock.now, age.Config{FlowBaseURL: f.flowURL, Sealer: f.sealer})
		code, _ := f.code(prd, f.query(prd), adult)
		toks := make([]age.Token, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				toks[i], errs[i] = f.exchange(prd, code)
			})
		}
		close(start)
		wg.Wait()
		var winners []age.Token
		for i, err := range errs {
			switch {
			case err == nil:
				winners = append(winners, toks[i])
			case !errors.Is(err, age.ErrInvalidCode):
				t.Errorf("exchange %d: %v", i, err)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("%d of %d concurrent exchanges won, want exactly 1", len(winners), n)
		}
		// The others were replays: the winner's token is revoked.
		_, err := f.svc.User(f.ctx, prd, winners[0].AccessToken)
		wantErr(t, "winner's token after concurrent replays", err, age.ErrMalformedToken)
	})
}

func TestUserTokenRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sqlite")
	for _, tok := range []string{"", "vdt_live_unknown", "\xff"} {
		_, err := f.svc.User(f.ctx, prd, tok)
		wantErr(t, fmt.Sprintf("token %q", tok), err, age.ErrMalformedToken)
	}
	code, _ := f.code(prd, f.query(prd), adult)
	tok, err := f.exchange(prd, code)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.advance(time.Hour - time.Microsecond)
	if _, err := f.svc.User(f.ctx, prd, tok.AccessToken); err != nil {
		t.Errorf("User just before the token expires: %v", err)
	}
	f.clock.advance(time.Microsecond)
	_, err = f.svc.User(f.ctx, prd, tok.AccessToken)
	wantErr(t, "token after an hour", err, age.ErrMalformedToken)
}
