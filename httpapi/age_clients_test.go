package httpapi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// clientResult is one client run of a driver script
// (scripts/oauth-clients.mjs, scripts/oauth-clients.py).
type clientResult struct {
	Client    string         `json:"client"`
	OK        bool           `json:"ok"`
	Failed    map[string]any `json:"failed"`
	Issuer    string         `json:"issuer"`
	TokenType string         `json:"token_type"`
	ExpiresIn float64        `json:"expires_in"`
	User      map[string]any `json:"user"`
	Minor     map[string]any `json:"minor"`
	Replay    map[string]any `json:"replay"`
	Wrong     map[string]any `json:"wrong_secret"`
}

// TestNodeClients runs real npm OAuth clients, unmodified, in Node against
// a real server through the sandbox age flow to age_verified
// (scripts/oauth-clients.mjs): openid-client 6 with RFC 8414 discovery,
// PKCE and HTTP Basic, openid-client 5 with Issuer.discover on the RFC 8414
// metadata URL and oauthCallback, and simple-oauth2 5 with the credentials in the
// header and in the body. Each also sees the RFC 6749 error of a replayed
// code and of a wrong secret. The packages come from
// scripts/npm-clients-install (pinned, integrity-checked).
func TestNodeClients(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		testdb.Skip(t, "the Node client tests need Node.js (node on PATH)")
	}
	root := testdb.RepoRoot(t)
	npm := filepath.Join(root, ".cache", "npm-clients")
	for _, pkg := range []string{"openid-client", "openid-client-5", "simple-oauth2"} {
		if _, err := os.Stat(filepath.Join(npm, "node_modules", pkg, "package.json")); err != nil {
			testdb.Skip(t, "the Node client tests need the npm packages: run scripts/npm-clients-install ("+err.Error()+")")
		}
	}
	f, versions, results := runClientScript(t, map[string]string{"npmDir": npm}, "node", filepath.Join(root, "scripts", "oauth-clients.mjs"))
	if versions["openid-client"] != "6.9.0" || versions["openid-client-5"] != "5.7.1" || versions["simple-oauth2"] != "5.1.0" {
		t.Errorf("ran %v, want openid-client 6.9.0 and 5.7.1 and simple-oauth2 5.1.0 (scripts/npm-clients/package-lock.json)", versions)
	}
	wantClients(t, results, "openid-client discovery (issuer)", "openid-client discovery (metadata-url)",
		"openid-client 5 (Issuer.discover, oauthCallback)",
		"simple-oauth2 (authorizationMethod header)", "simple-oauth2 (authorizationMethod body)")
	for _, r := range results {
		t.Run(r.Client, func(t *testing.T) {
			wantClientFlow(t, r)
			if strings.HasPrefix(r.Client, "openid-client 5") {
				// OPError carries RFC 6749's error member and the status.
				if r.Issuer != f.base {
					t.Errorf("issuer %q, want %q", r.Issuer, f.base)
				}
				if r.Replay["name"] != "OPError" || r.Replay["error"] != "invalid_grant" || r.Replay["status"] != float64(400) {
					t.Errorf("replay: %v, want OPError invalid_grant 400", r.Replay)
				}
				if r.Wrong["name"] != "OPError" || r.Wrong["error"] != "invalid_client" || r.Wrong["status"] != float64(401) {
					t.Errorf("wrong secret: %v, want OPError invalid_client 401", r.Wrong)
				}
				if r.Minor["age_verified"] != false {
					t.Errorf("minor's /users/me = %v", r.Minor)
				}
				return
			}
			if strings.HasPrefix(r.Client, "openid-client") {
				if r.Issuer != f.base {
					t.Errorf("issuer %q, want %q", r.Issuer, f.base)
				}
				// oauth4webapi reads the challenge of a 401 before the body.
				if r.Wrong["name"] != "WWWAuthenticateChallengeError" || r.Wrong["challenge"] != "basic" {
					t.Errorf("wrong secret: %v, want a Basic challenge", r.Wrong)
				}
				if r.Minor["age_verified"] != false {
					t.Errorf("minor's /users/me = %v", r.Minor)
				}
				return
			}
			if r.Replay["status"] != float64(400) || r.Wrong["error"] != "invalid_client" || r.Wrong["status"] != float64(401) {
				t.Errorf("replay %v, wrong secret %v: want 400, and 401 invalid_client", r.Replay, r.Wrong)
			}
		})
	}
}

// TestPythonClients runs requests-oauthlib and Authlib, unmodified, against
// a real server through the sandbox age flow (scripts/oauth-clients.py):
// Basic credentials, PKCE with Authlib, and the errors of a replayed code
// and a wrong secret raised as the libraries' own RFC 6749 exceptions. The
// packages are Debian's (python3-requests-oauthlib, python3-authlib), which
// .ci/run installs.
func TestPythonClients(t *testing.T) {
	t.Parallel()
	python := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import authlib, requests_oauthlib").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		testdb.Skip(t, "the Python client tests need python3 with authlib and requests_oauthlib (Debian: python3-authlib python3-requests-oauthlib)")
	}
	_, versions, results := runClientScript(t, nil, python, filepath.Join(testdb.RepoRoot(t), "scripts", "oauth-clients.py"))
	t.Logf("versions: %v", versions)
	wantClients(t, results, "requests-oauthlib", "Authlib")
	for _, r := range results {
		t.Run(r.Client, func(t *testing.T) {
			wantClientFlow(t, r)
			want := map[string]string{"requests-oauthlib": "InvalidClientError", "Authlib": "OAuthError"}[r.Client]
			if r.Client == "requests-oauthlib" && r.Replay["name"] != "InvalidGrantError" || r.Client == "Authlib" && r.Replay["name"] != "OAuthError" {
				t.Errorf("replay raised %v", r.Replay)
			}
			if r.Wrong["name"] != want || r.Wrong["error"] != "invalid_client" {
				t.Errorf("wrong secret raised %v, want %s invalid_client", r.Wrong, want)
			}
		})
	}
}

// runClientScript runs a client driver script (cmd and its arguments, then
// the job file) against a fresh server's sandbox age mount, whose integrator
// allows the script's callback. job adds to the job's fields.
func runClientScript(t *testing.T, job map[string]string, cmd ...string) (*oauthFixture, map[string]string, []clientResult) {
	t.Helper()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newOAuth(t, ts, sbx)
	fields := map[string]string{"base": f.base, "clientId": f.cred.APIKey, "clientSecret": f.cred.APISecret,
		"redirectUri": "http://localhost:3000/cb"}
	for k, v := range job {
		fields[k] = v
	}
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	jobFile := filepath.Join(t.TempDir(), "job.json")
	if err := os.WriteFile(jobFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(cmd[0], append(cmd[1:], jobFile)...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, stderr.String())
	}
	var out struct {
		Versions map[string]string `json:"versions"`
		Results  []clientResult    `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("output: %v\n%s", err, stdout.String())
	}
	return f, out.Versions, out.Results
}

// wantClients asserts that the script reported each client.
func wantClients(t *testing.T, results []clientResult, clients ...string) {
	t.Helper()
	ran := map[string]bool{}
	for _, r := range results {
		ran[r.Client] = true
	}
	for _, c := range clients {
		if !ran[c] {
			t.Errorf("no result for %s", c)
		}
	}
}

// wantClientFlow asserts what every client run shows: the flow reached an
// adult's /users/me, the token response was read, and a replayed code was
// refused with invalid_grant.
func wantClientFlow(t *testing.T, r clientResult) {
	t.Helper()
	if !r.OK {
		t.Fatalf("failed: %v", r.Failed)
	}
	if id, _ := r.User["id"].(string); r.User["age_verified"] != true || r.User["threshold"] != float64(18) || !strings.HasPrefix(id, "agv_") {
		t.Errorf("/users/me = %v, want age_verified true", r.User)
	}
	if !strings.EqualFold(r.TokenType, "Bearer") || r.ExpiresIn != 3600 {
		t.Errorf("token_type %q, expires_in %v", r.TokenType, r.ExpiresIn)
	}
	if r.Replay["error"] != "invalid_grant" {
		t.Errorf("replayed code: %v, want invalid_grant", r.Replay)
	}
}
