package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/testserver"
)

// The passkey ceremonies' HTTP rules (web/agepages/passkey.go); the ceremonies
// themselves run in Chromium (internal/browsertest/age_passkey_test.go).
func TestAgePasskeyEndpoints(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Localhost: true})
	f := newOAuth(t, ts, sbx)
	f.base = strings.Replace(f.base, "127.0.0.1", "localhost", 1)
	b := newFlowBrowser(t, f)
	b.authorize("gb")
	page := b.get("")
	wantBody(t, page, `id="passkey-login"`, `data-passkey="login"`, `id="signup-passkey"`, "/flow-assets/passkey.")
	token := b.token("/login")
	send := func(path, csrf, body string, headers ...string) response {
		req, _ := http.NewRequest(http.MethodPost, f.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if csrf != "" {
			req.Header.Set("X-CSRF-Token", csrf)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		return b.send(req)
	}
	// The form token and this origin are required.
	wantStatus(t, send("/passkey/login/begin", "", `{}`), http.StatusForbidden)
	wantStatus(t, send("/passkey/login/begin", "forged", `{}`), http.StatusForbidden)
	wantStatus(t, send("/passkey/login/begin", token, `{}`, "Origin", "https://evil.example"), http.StatusForbidden)
	// A session's ceremony (adding a passkey) needs a session.
	wantStatus(t, send("/passkey/add/begin", token, `{}`), http.StatusForbidden)

	res := send("/passkey/login/begin", token, `{}`)
	wantStatus(t, res, http.StatusOK)
	var opts struct {
		PublicKey struct {
			Challenge        string `json:"challenge"`
			RPID             string `json:"rpId"`
			UserVerification string `json:"userVerification"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(res.raw, &opts); err != nil || len(opts.PublicKey.Challenge) < 43 ||
		opts.PublicKey.RPID != "localhost" || opts.PublicKey.UserVerification != "required" {
		t.Fatalf("login options %s (%v)", res.raw, err)
	}
	c := cookieNamed(res, "verifyd_age_passkey_sandbox")
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/sandbox/age/passkey/" || c.MaxAge != 300 {
		t.Fatalf("ceremony cookie %+v", c)
	}
	// A forged answer is refused, and the ceremony is used up.
	res = send("/passkey/login/finish", token, `{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{}}`)
	wantStatus(t, res, http.StatusUnauthorized)
	wantBody(t, res, "The passkey could not be checked.")
	// Sign-up: the address's rules.
	res = send("/passkey/signup/begin", token, `{"email":"not an address"}`)
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantStatus(t, b.signUp("taken@example.com"), http.StatusSeeOther)
	b.get("")
	res = send("/passkey/signup/begin", b.token("/cancel"), `{"email":"Taken@example.com"}`)
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, "an account with this address exists")

	// On an IP address there is no relying party: no passkey buttons.
	ip := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	g := newOAuth(t, ip, sbx)
	ib := newFlowBrowser(t, g)
	ib.authorize("gb")
	wantNotBody(t, ib.get(""), `data-passkey=`)
}
