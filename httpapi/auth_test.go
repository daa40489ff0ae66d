package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/signature"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	ctx := context.Background()
	revoked, err := ts.Tenants.CreateKey(ctx, ts.Business.ID, idp, prd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Tenants.RevokeKey(ctx, revoked.APIKey); err != nil {
		t.Fatal(err)
	}
	rotated, err := ts.Tenants.CreateKey(ctx, ts.Business.ID, idp, prd)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"customer":{"id":"` + newCustomerID() + `","email":"a@b.co"},"webhook":"https://h.example.com/"}`)
	good := ts.Credential(idp, prd)
	sign := func(c verifyd.Credential) string {
		return signature.Header(c.APIKey, signature.Sign(c.APISecret, body))
	}

	tests := []struct {
		name       string
		mount      [2]string // interface, environment of the mount called
		path       string
		auth       string
		status     int
		message    string
		wantCreate bool
	}{
		{"valid", [2]string{"identity", "production"}, "/api/v1/identity-verification", sign(good), 201, "", true},
		{"uppercase hex and scheme", [2]string{"identity", "production"}, "/api/v1/identity-verification",
			"HMAC " + good.APIKey + ":" + strings.ToUpper(signature.Sign(good.APISecret, body)), 201, "", true},
		{"a second active key works (rotation)", [2]string{"identity", "production"}, "/api/v1/identity-verification", sign(rotated), 201, "", true},
		{"missing header", [2]string{"identity", "production"}, "/api/v1/identity-verification", "", 401, verifyd.MsgInvalidAuthentication, false},
		{"other scheme", [2]string{"identity", "production"}, "/api/v1/identity-verification", "Bearer " + good.APIKey, 401, verifyd.MsgInvalidAuthentication, false},
		{"no colon", [2]string{"identity", "production"}, "/api/v1/identity-verification", "hmac " + good.APIKey, 401, verifyd.MsgInvalidAuthentication, false},
		{"wrong signature", [2]string{"identity", "production"}, "/api/v1/identity-verification",
			signature.Header(good.APIKey, signature.Sign("wrong secret", body)), 401, verifyd.MsgInvalidAuthentication, false},
		{"signature not hex", [2]string{"identity", "production"}, "/api/v1/identity-verification", "hmac " + good.APIKey + ":zz", 401, verifyd.MsgInvalidAuthentication, false},
		{"unknown key", [2]string{"identity", "production"}, "/api/v1/identity-verification",
			signature.Header("vdk_live_idv_nope", signature.Sign(good.APISecret, body)), 401, verifyd.MsgInvalidClient, false},
		{"revoked key", [2]string{"identity", "production"}, "/api/v1/identity-verification", sign(revoked), 401, verifyd.MsgInvalidClient, false},
		{"sandbox key in production", [2]string{"identity", "production"}, "/api/v1/identity-verification", sign(ts.Credential(idp, sbx)), 401, verifyd.MsgInvalidClient, false},
		{"production key in sandbox", [2]string{"identity", "sandbox"}, "/api/v1/identity-verification", sign(good), 401, verifyd.MsgInvalidClient, false},
		{"age key on identity", [2]string{"identity", "production"}, "/api/v1/identity-verification", sign(ts.Credential(age, prd)), 401, verifyd.MsgInvalidClient, false},
		{"C: unknown key", [2]string{"identity", "production"}, "/v1/business/allowed-redirects",
			signature.Header("vdk_live_idv_nope", "00"), 401, verifyd.MsgInvalidAuthentication, false},
		{"C: identity key on age", [2]string{"age", "production"}, "/v1/business/allowed-redirects", sign(good), 401, verifyd.MsgInvalidAuthentication, false},
		{"C: sandbox key in production", [2]string{"age", "production"}, "/v1/business/allowed-redirects", sign(ts.Credential(age, sbx)), 401, verifyd.MsgInvalidAuthentication, false},
		{"C: revoked key", [2]string{"identity", "production"}, "/v1/business/allowed-redirects", sign(revoked), 401, verifyd.MsgInvalidAuthentication, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &client{t: t, base: ts.BaseURL(verifyd.Interface(tt.mount[0]), verifyd.Environment(tt.mount[1]))}
			reqBody := body
			if strings.HasPrefix(tt.path, "/v1/business") {
				reqBody = []byte(`["https://a.example.com/"]`)
				// sign the redirect body with the case's credential where valid
			}
			method := "POST"
			if strings.HasPrefix(tt.path, "/v1/business") {
				method = "PATCH"
			}
			res := c.do(method, tt.path, reqBody, tt.auth)
			if tt.wantCreate {
				if res.status != tt.status {
					t.Fatalf("status %d: %s", res.status, res.raw)
				}
				return
			}
			res.wantError(t, tt.status, tt.message)
		})
	}
}

// TestGETSignatureForms: GET requests may sign the request URI in any of the
// forms clients use; anything else is refused.
func TestGETSignatureForms(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	c := newClient(t, ts, idp, sbx)
	id := c.send("POST", "/api/v1/identity-verification", createBody(newCustomerID(), "https://h.example.com/", "")).json(t)["id"].(string)
	rel := "/api/v1/identity-verification/" + id
	prefix := strings.TrimPrefix(c.base, ts.HTTP.URL) // "/sandbox/identity"
	tests := []struct {
		name   string
		path   string // requested, relative to the base URL
		signed string
		ok     bool
	}{
		{"relative path (PHP SDK)", rel, rel, true},
		{"full path", rel, prefix + rel, true},
		{"relative path with query", rel + "?x=1", rel + "?x=1", true},
		{"relative path ignoring query", rel + "?x=1", rel, true},
		{"full path with query", rel + "?x=1", prefix + rel + "?x=1", true},
		{"absolute URL", rel, c.base + rel, true},
		{"other path", rel, "/api/v1/identity-verification/other", false},
		{"body-style empty string", rel, "", false},
		{"prefix only", rel, prefix, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cred := ts.Credential(idp, sbx)
			res := c.do("GET", tt.path, nil, signature.Header(cred.APIKey, signature.Sign(cred.APISecret, []byte(tt.signed))))
			if tt.ok && res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.raw)
			}
			if !tt.ok {
				res.wantError(t, 401, verifyd.MsgInvalidAuthentication)
			}
		})
	}
	// A GET of the redirect list signs its URI the same way.
	ac := newClient(t, ts, age, sbx)
	ac.signGET = func(base, path string) string { return strings.TrimPrefix(base, ts.HTTP.URL) + path }
	if res := ac.send("GET", "/v1/business/allowed-redirects", nil); res.status != 200 {
		t.Fatalf("GET redirects with full-path signature: %d %s", res.status, res.raw)
	}
}

// countingReader yields n bytes of JSON-ish filler and counts what was read.
type countingReader struct {
	n, read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), c.n-c.read)
	for i := range k {
		p[i] = ' '
	}
	c.read += k
	return int(k), nil
}

// TestUnknownKeyIsRefusedBeforeTheBody: a request signed with a made-up
// key is answered 401 without its (large) body being read, so strangers
// cannot make the server hold 40 MiB per request.
func TestUnknownKeyIsRefusedBeforeTheBody(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	c := newClient(t, ts, idp, prd)
	body := &countingReader{n: 30 << 20}
	req, err := http.NewRequest("POST", c.base+"/api/v1/identity-verification/selfie-document-validation", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = body.n
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "hmac madeup:"+strings.Repeat("0", 64))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", res.StatusCode)
	}
	// net/http may read a little of an unread body to keep the connection;
	// the body itself (30 MiB) must not have been.
	if body.read > 4<<20 {
		t.Errorf("%d MiB of the body were read before refusing the key", body.read>>20)
	}
}
