package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

const (
	idp = verifyd.InterfaceIdentity
	age = verifyd.InterfaceAge
	prd = verifyd.EnvProduction
	sbx = verifyd.EnvSandbox
)

// eachDialect runs fn against a fresh server on every database.
func eachDialect(t *testing.T, opts testserver.Options, fn func(t *testing.T, ts *testserver.Server)) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			fn(t, testserver.Start(t, d, opts))
		})
	}
}

func createBody(customerID, webhook, redirect string) map[string]any {
	b := map[string]any{
		"customer": map[string]any{"id": customerID, "email": "ada@example.com"},
		"webhook":  webhook,
	}
	if redirect != "" {
		b["redirect_uri"] = redirect
	}
	return b
}

func TestCreateGetHostedVerification(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{}, func(t *testing.T, ts *testserver.Server) {
		c := newClient(t, ts, idp, prd)
		cust := newCustomerID()
		res := c.send("POST", "/api/v1/identity-verification", createBody(cust, "https://hooks.example.com/idv", ""))
		if res.status != http.StatusCreated {
			t.Fatalf("B1 status %d: %s", res.status, res.raw)
		}
		m := res.json(t)
		wantKeys(t, m, "id", "customer", "redirect_uri", "webhook")
		wantKeys(t, m["customer"].(map[string]any), "id", "email")
		if m["customer"].(map[string]any)["id"] != cust || m["webhook"] != "https://hooks.example.com/idv" {
			t.Fatalf("B1 body does not echo the request: %s", res.raw)
		}
		hosted := m["redirect_uri"].(string)
		if !strings.HasPrefix(hosted, c.base+"/verify/") || len(hosted) < len(c.base)+40 {
			t.Fatalf("redirect_uri %q is not a hosted page URL under %s", hosted, c.base)
		}

		id := m["id"].(string)
		got := c.send("GET", "/api/v1/identity-verification/"+id, nil)
		if got.status != http.StatusOK {
			t.Fatalf("B3 status %d: %s", got.status, got.raw)
		}
		g := got.json(t)
		wantKeys(t, g, "id", "customer", "redirect_uri", "webhook", "status", "reason")
		if g["id"] != id || g["status"] != "pending" || g["reason"] != "" || g["redirect_uri"] != hosted {
			t.Fatalf("B3 body = %s", got.raw)
		}

		// The hosted page resolves its token and is served with a strict CSP.
		page, err := http.Get(hosted)
		if err != nil {
			t.Fatal(err)
		}
		page.Body.Close()
		if page.StatusCode != 200 || !strings.Contains(page.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Fatalf("hosted page: %d, CSP %q", page.StatusCode, page.Header.Get("Content-Security-Policy"))
		}
		if bad := c.do("GET", "/verify/not-a-token", nil, ""); bad.status != http.StatusNotFound {
			t.Fatalf("unknown hosted token: status %d", bad.status)
		}
	})
}

func wantKeys(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	if len(m) != len(keys) {
		t.Fatalf("object has keys %v, want exactly %v", mapKeys(m), keys)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Fatalf("object lacks %q: %v", k, mapKeys(m))
		}
	}
}

func mapKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Resolver: testserver.StaticResolver{
		"intranet.example.com": {netip.MustParseAddr("192.168.1.20")},
	}})
	prod := newClient(t, ts, idp, prd)
	sand := newClient(t, ts, idp, sbx)
	cust := newCustomerID()
	tests := []struct {
		name    string
		c       *client
		body    any
		status  int
		message string
		field   string
	}{
		{"uuid v1 is refused", prod, createBody("c232ab00-9414-11ec-b3c8-9f6bdeced846", "https://h.example.com/", ""), 422, verifyd.MsgInvalidParameters, "customer.id"},
		{"not a uuid", prod, createBody("customer-42", "https://h.example.com/", ""), 422, verifyd.MsgInvalidParameters, "customer.id"},
		{"bad email", prod, map[string]any{"customer": map[string]any{"id": cust, "email": "ada"}, "webhook": "https://h.example.com/"}, 422, verifyd.MsgInvalidParameters, "customer.email"},
		{"missing webhook", prod, createBody(cust, "", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"relative webhook", prod, createBody(cust, "/hook", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"http webhook in production", prod, createBody(cust, "http://h.example.com/", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"ftp webhook", sand, createBody(cust, "ftp://h.example.com/", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"redirect not allowed", prod, createBody(cust, "https://h.example.com/", "https://shop.example.com/done"), 422, verifyd.MsgInvalidParameters, "redirect_uri"},
		{"wrong JSON type", prod, []byte(`{"customer":{"id":42,"email":"a@b.co"},"webhook":"https://h.example.com/"}`), 422, verifyd.MsgInvalidParameters, "customer.id"},
		{"bad phone", prod, map[string]any{"customer": map[string]any{"id": cust, "email": "a@b.co", "phone": "call me"}, "webhook": "https://h.example.com/"}, 422, verifyd.MsgInvalidParameters, "customer.phone"},
		{"malformed JSON", prod, []byte(`{"customer":`), 400, verifyd.MsgMalformed, ""},
		{"empty body", prod, []byte(``), 400, verifyd.MsgMalformed, ""},
		{"trailing data", prod, []byte(`{} {}`), 400, verifyd.MsgMalformed, ""},
		{"not an object", prod, []byte(`[1,2]`), 400, verifyd.MsgMalformed, ""},
		{"http webhook in sandbox is allowed", sand, createBody(cust, "http://hooks.example.com/hook", ""), 201, "", ""},
		{"loopback webhook", sand, createBody(cust, "http://127.0.0.1:9/hook", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"localhost webhook", prod, createBody(cust, "https://localhost/hook", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"private webhook", prod, createBody(cust, "https://10.1.2.3/hook", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"metadata webhook", prod, createBody(cust, "https://169.254.169.254/latest", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"IPv6 loopback webhook", prod, createBody(cust, "https://[::1]/hook", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"name resolving to a private address", prod, createBody(cust, "https://intranet.example.com/hook", ""), 422, verifyd.MsgInvalidParameters, "webhook"},
		{"phone accepted, unknown fields ignored", prod, map[string]any{"customer": map[string]any{"id": cust, "email": "a@b.co", "phone": "+44 20 7946 0958"}, "webhook": "https://h.example.com/", "extra": 1}, 201, "", ""},
		{"empty redirect_uri counts as absent", prod, map[string]any{"customer": map[string]any{"id": cust, "email": "a@b.co"}, "webhook": "https://h.example.com/", "redirect_uri": ""}, 201, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.t = t
			res := tt.c.send("POST", "/api/v1/identity-verification", tt.body)
			if tt.status == 201 {
				if res.status != 201 {
					t.Fatalf("status %d: %s", res.status, res.raw)
				}
				return
			}
			m := res.wantError(t, tt.status, tt.message)
			if tt.field != "" && !strings.Contains(string(res.raw), `"field":"`+tt.field+`"`) {
				t.Fatalf("error does not name field %s: %s", tt.field, m)
			}
		})
	}
}

func TestCreateRedirectMustBeAllowed(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	c := newClient(t, ts, idp, prd)
	body := createBody(newCustomerID(), "https://h.example.com/", "https://shop.example.com/done")
	c.send("POST", "/api/v1/identity-verification", body).wantError(t, 422, verifyd.MsgInvalidParameters)

	// Allowed on the age list or in the sandbox does not count.
	newClient(t, ts, age, prd).send("PATCH", "/v1/business/allowed-redirects", []string{"https://shop.example.com/done"})
	newClient(t, ts, idp, sbx).send("PATCH", "/v1/business/allowed-redirects", []string{"https://shop.example.com/done"})
	c.send("POST", "/api/v1/identity-verification", body).wantError(t, 422, verifyd.MsgInvalidParameters)

	if res := c.send("PATCH", "/v1/business/allowed-redirects", []string{"https://shop.example.com/done"}); res.status != 204 {
		t.Fatalf("PATCH: %d %s", res.status, res.raw)
	}
	if res := c.send("POST", "/api/v1/identity-verification", body); res.status != 201 {
		t.Fatalf("allowed redirect: %d %s", res.status, res.raw)
	}
	// Exact match only: a longer path is not allowed.
	body["redirect_uri"] = "https://shop.example.com/done/more"
	c.send("POST", "/api/v1/identity-verification", body).wantError(t, 422, verifyd.MsgInvalidParameters)
}

// TestPHPEscapedBody sends the byte form PHP clients produce. The signature
// must be checked over those bytes and the values decoded correctly.
func TestPHPEscapedBody(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	c := newClient(t, ts, idp, prd)
	raw := phpJSON(t, map[string]any{
		"customer": map[string]any{"id": newCustomerID(), "email": "zoe@example.com"},
		"webhook":  "https://hooks.example.com/café/idv",
	})
	if !bytes.Contains(raw, []byte(`https:\/\/hooks.example.com\/caf\u00e9\/idv`)) {
		t.Fatalf("test encoder did not escape like PHP: %s", raw)
	}
	res := c.send("POST", "/api/v1/identity-verification", raw)
	if res.status != 201 {
		t.Fatalf("status %d: %s", res.status, res.raw)
	}
	if got := res.json(t)["webhook"]; got != "https://hooks.example.com/café/idv" {
		t.Fatalf("webhook decoded as %q", got)
	}
}

func submitBody(t *testing.T, docType string, back bool) map[string]any {
	doc := map[string]any{"country": "gbr", "front": b64(testJPEG(t, 320, 200))}
	if docType != "" {
		doc["type"] = docType
	}
	if back {
		doc["back"] = b64(testPNG(t, 320, 200, false))
	}
	return map[string]any{
		"customer": map[string]any{
			"id": newCustomerID(), "email": "ada@example.com",
			"selfie": "data:image/png;base64," + b64(testPNG(t, 240, 320, false)), "document": doc,
		},
		"webhook": "https://hooks.example.com/idv",
	}
}

func TestSubmitSelfieDocument(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{}, func(t *testing.T, ts *testserver.Server) {
		c := newClient(t, ts, idp, prd)
		body := submitBody(t, "", false)
		res := c.send("POST", "/api/v1/identity-verification/selfie-document-validation", body)
		if res.status != 201 {
			t.Fatalf("B2 status %d: %s", res.status, res.raw)
		}
		m := res.json(t)
		wantKeys(t, m, "id", "status", "customer", "webhook")
		if m["status"] != "pending" {
			t.Fatalf("B2 status field %v", m["status"])
		}
		id := m["id"].(string)
		ctx := context.Background()
		v, err := ts.Store.Verification(ctx, ts.Business.ID, prd, id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Document.Type != verifyd.DocPassport || v.Document.Country != "gbr" || v.Flow != verifyd.FlowDirect {
			t.Fatalf("stored document %+v flow %s; an omitted type must default to Passport", v.Document, v.Flow)
		}
		// Images are sealed at rest: the stored bytes are not the image.
		images, err := ts.Store.Images(ctx, id)
		if err != nil || len(images) != 2 {
			t.Fatalf("images: %v, %d stored", err, len(images))
		}
		for _, im := range images {
			if bytes.Contains(im.Sealed, []byte("PNG")) || bytes.Contains(im.Sealed, []byte("JFIF")) {
				t.Fatalf("%s stored in clear", im.Kind)
			}
			if _, err := ts.Sealer.Open(im.Sealed, []byte("image/"+id+"/"+string(im.Kind))); err != nil {
				t.Fatalf("%s does not open: %v", im.Kind, err)
			}
		}
		got := c.send("GET", "/api/v1/identity-verification/"+id, nil).json(t)
		// The engine may already have picked the submission up.
		if got["redirect_uri"] != "" || (got["status"] != "pending" && got["status"] != "started" && got["status"] != "failed") {
			t.Fatalf("B3 of a direct submission: %v", got)
		}
	})
}

func TestSubmitValidation(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	c := newClient(t, ts, idp, sbx)
	set := func(body map[string]any, path string, v any) map[string]any {
		cur := body
		parts := strings.Split(path, ".")
		for _, p := range parts[:len(parts)-1] {
			cur = cur[p].(map[string]any)
		}
		cur[parts[len(parts)-1]] = v
		return body
	}
	tests := []struct {
		name   string
		body   map[string]any
		status int
		field  string
	}{
		{"id card without back", submitBody(t, "IdCard", false), 422, "customer.document.back"},
		{"driver licence without back", submitBody(t, "DriverLicense", false), 422, "customer.document.back"},
		{"residence permit with back", submitBody(t, "ResidencePermit", true), 201, ""},
		{"unknown type", submitBody(t, "Visa", true), 422, "customer.document.type"},
		{"uppercase country", set(submitBody(t, "", false), "customer.document.country", "GBR"), 422, "customer.document.country"},
		{"unknown country", set(submitBody(t, "", false), "customer.document.country", "xyz"), 422, "customer.document.country"},
		{"selfie not base64", set(submitBody(t, "", false), "customer.selfie", "%%%"), 422, "customer.selfie"},
		{"selfie not an image", set(submitBody(t, "", false), "customer.selfie", b64([]byte("GIF89a not really"))), 422, "customer.selfie"},
		{"front missing", set(submitBody(t, "", false), "customer.document.front", ""), 422, "customer.document.front"},
		{"tiny image", set(submitBody(t, "", false), "customer.selfie", b64(testPNG(t, 10, 10, false))), 422, "customer.selfie"},
		{"url-safe base64 without padding", set(submitBody(t, "", false), "customer.selfie",
			strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(b64(testPNG(t, 100, 101, false))), "=")), 201, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			res := c.send("POST", "/api/v1/identity-verification/selfie-document-validation", tt.body)
			if res.status != tt.status {
				t.Fatalf("status %d, want %d: %s", res.status, tt.status, res.raw)
			}
			if tt.field != "" && !strings.Contains(string(res.raw), `"field":"`+tt.field+`"`) {
				t.Fatalf("error does not name %s: %s", tt.field, res.raw)
			}
		})
	}
}

func TestGetIsolation(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	other, _, err := ts.Tenants.CreateBusiness(context.Background(), "Other")
	if err != nil {
		t.Fatal(err)
	}
	otherCreds, err := ts.Tenants.RevealedKeys(context.Background(), other.ID)
	if err != nil {
		t.Fatal(err)
	}
	sand := newClient(t, ts, idp, sbx)
	id := sand.send("POST", "/api/v1/identity-verification", createBody(newCustomerID(), "https://h.example.com/", "")).json(t)["id"].(string)

	prod := newClient(t, ts, idp, prd)
	prod.send("GET", "/api/v1/identity-verification/"+id, nil).wantError(t, 404, verifyd.MsgNotFound)
	prod.send("GET", "/api/v1/identity-verification/00000000-0000-4000-8000-000000000000", nil).wantError(t, 404, verifyd.MsgNotFound)
	for _, oc := range otherCreds {
		if oc.Interface == idp && oc.Environment == sbx {
			o := &client{t: t, base: sand.base, key: oc.APIKey, secret: oc.APISecret}
			o.send("GET", "/api/v1/identity-verification/"+id, nil).wantError(t, 404, verifyd.MsgNotFound)
		}
	}
	if res := sand.send("GET", "/api/v1/identity-verification/"+id, nil); res.status != 200 {
		t.Fatalf("own verification: %d", res.status)
	}
}

// TestGetShowsEachChangeAtOnce: B3 reads the verification at every call
// (no answer is cached), so each sandbox change shows in the very next
// GET, with every field of SPEC's body.
func TestGetShowsEachChangeAtOnce(t *testing.T) {
	t.Parallel()
	eachDialect(t, testserver.Options{Dev: true}, func(t *testing.T, ts *testserver.Server) {
		c := newClient(t, ts, idp, sbx)
		customer := newCustomerID()
		created := c.send("POST", "/api/v1/identity-verification", createBody(customer, "https://h.example.com/", "")).json(t)
		id := created["id"].(string)
		steps := []struct {
			simulate       map[string]string // nil: read as created
			status, reason string
		}{
			{nil, "pending", ""},
			{map[string]string{"status": "started"}, "started", ""},
			{map[string]string{"status": "failed", "reason": "minor"}, "failed", "minor"},
		}
		for _, st := range steps {
			if st.simulate != nil {
				if res := c.send("POST", "/api/v1/sandbox/identity-verification/"+id+"/simulate", st.simulate); res.status != 200 {
					t.Fatalf("simulate %v: %d %s", st.simulate, res.status, res.raw)
				}
			}
			got := c.send("GET", "/api/v1/identity-verification/"+id, nil).json(t)
			want := map[string]any{
				"id":           id,
				"customer":     map[string]any{"id": customer, "email": "ada@example.com"},
				"redirect_uri": created["redirect_uri"],
				"webhook":      "https://h.example.com/",
				"status":       st.status,
				"reason":       st.reason,
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("B3 after %v:\n got %v\nwant %v", st.simulate, got, want)
			}
		}
	})
}
