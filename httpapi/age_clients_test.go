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

// nodeClientResult is one client run of scripts/oauth-clients.mjs.
type nodeClientResult struct {
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
// PKCE and HTTP Basic, and simple-oauth2 5 with the credentials in the
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
	for _, pkg := range []string{"openid-client", "simple-oauth2"} {
		if _, err := os.Stat(filepath.Join(npm, "node_modules", pkg, "package.json")); err != nil {
			testdb.Skip(t, "the Node client tests need the npm packages: run scripts/npm-clients-install ("+err.Error()+")")
		}
	}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	f := newOAuth(t, ts, sbx)
	job, err := json.Marshal(map[string]string{
		"npmDir": npm, "base": f.base, "clientId": f.cred.APIKey, "clientSecret": f.cred.APISecret,
		"redirectUri": "http://localhost:3000/cb",
	})
	if err != nil {
		t.Fatal(err)
	}
	jobFile := filepath.Join(t.TempDir(), "job.json")
	if err := os.WriteFile(jobFile, job, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(root, "scripts", "oauth-clients.mjs"), jobFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node scripts/oauth-clients.mjs: %v\n%s", err, stderr.String())
	}
	var out struct {
		Versions map[string]string  `json:"versions"`
		Results  []nodeClientResult `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("output: %v\n%s", err, stdout.String())
	}
	t.Logf("versions: %v", out.Versions)
	if out.Versions["openid-client"] != "6.9.0" || out.Versions["simple-oauth2"] != "5.1.0" {
		t.Errorf("ran %v, want openid-client 6.9.0 and simple-oauth2 5.1.0 (scripts/npm-clients/package-lock.json)", out.Versions)
	}
	ran := map[string]bool{}
	for _, r := range out.Results {
		ran[r.Client] = true
		t.Run(r.Client, func(t *testing.T) {
			if !r.OK {
				t.Fatalf("failed: %v", r.Failed)
			}
			if r.User["age_verified"] != true || r.User["threshold"] != float64(18) || !strings.HasPrefix(r.User["id"].(string), "agv_") {
				t.Errorf("/users/me = %v, want age_verified true", r.User)
			}
			if r.TokenType != "Bearer" && r.TokenType != "bearer" || r.ExpiresIn != 3600 {
				t.Errorf("token_type %q, expires_in %v", r.TokenType, r.ExpiresIn)
			}
			if r.Replay["error"] != "invalid_grant" || r.Replay["status"] != float64(400) {
				t.Errorf("replayed code: %v, want 400 invalid_grant", r.Replay)
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
			} else if r.Wrong["error"] != "invalid_client" || r.Wrong["status"] != float64(401) {
				t.Errorf("wrong secret: %v, want 401 invalid_client", r.Wrong)
			}
		})
	}
	for _, want := range []string{"openid-client discovery (issuer)", "openid-client discovery (metadata-url)",
		"simple-oauth2 (authorizationMethod header)", "simple-oauth2 (authorizationMethod body)"} {
		if !ran[want] {
			t.Errorf("no result for %s", want)
		}
	}
}
