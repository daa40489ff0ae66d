package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/sdk"
	"github.com/verifyd/verifyd/signature"
)

const webhook = "https://integrator.example.com/hooks/verifyd"

// newClient returns an SDK client for one mount of ts with the business's
// credential for it.
func newClient(t *testing.T, ts *testserver.Server, i verifyd.Interface, e verifyd.Environment) *sdk.Client {
	t.Helper()
	cred := ts.Credential(i, e)
	c, err := sdk.New(ts.BaseURL(i, e), cred.APIKey, cred.APISecret)
	if err != nil {
		t.Fatalf("sdk.New: %v", err)
	}
	return c
}

// testImage returns a w×h picture with some structure, so encoders do not
// produce a degenerate file.
func testImage(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	return img
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(w, h), &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// apiError asserts that err is an *sdk.APIError with the given status and
// message, and returns it.
func apiError(t *testing.T, err error, status int, message string) *sdk.APIError {
	t.Helper()
	var e *sdk.APIError
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *sdk.APIError", err, err)
	}
	if e.StatusCode != status || e.Message != message {
		t.Fatalf("APIError = %d %q, want %d %q (%v)", e.StatusCode, e.Message, status, message, e)
	}
	return e
}

func TestCreateAndGet(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	ctx := context.Background()
	base := ts.BaseURL(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	cred := ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	idv := newClient(t, ts, verifyd.InterfaceIdentity, verifyd.EnvSandbox)

	const returnURL = "https://shop.example.com/verified"
	if err := idv.Redirects().Add(ctx, []string{returnURL}); err != nil {
		t.Fatalf("add redirect: %v", err)
	}

	// A base URL with a trailing slash must reach the same mount.
	slash, err := sdk.New(base+"/", cred.APIKey, cred.APISecret)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		client *sdk.Client
		req    sdk.CreateRequest
	}{
		{"minimal", idv, sdk.CreateRequest{
			Customer: sdk.Customer{ID: uuid.NewString(), Email: "jane@example.com"},
			Webhook:  webhook,
		}},
		{"phone and allowed redirect", idv, sdk.CreateRequest{
			Customer:    sdk.Customer{ID: uuid.NewString(), Email: "john@example.org", Phone: "+44 20 7946 0958"},
			RedirectURI: returnURL,
			Webhook:     webhook + "?shop=1",
		}},
		{"base URL with trailing slash", slash, sdk.CreateRequest{
			Customer: sdk.Customer{ID: uuid.NewString(), Email: "ann@example.net"},
			Webhook:  webhook,
		}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		created, err := tt.client.Identity().Create(ctx, tt.req)
		if err != nil {
			t.Fatalf("%s: create: %v", tt.name, err)
		}
		if created.ID == "" || seen[created.ID] {
			t.Fatalf("%s: id %q is empty or reused", tt.name, created.ID)
		}
		seen[created.ID] = true
		wantCustomer := sdk.Customer{ID: tt.req.Customer.ID, Email: tt.req.Customer.Email}
		if created.Customer != wantCustomer || created.Webhook != tt.req.Webhook {
			t.Errorf("%s: create answered customer %+v webhook %q, want %+v %q",
				tt.name, created.Customer, created.Webhook, wantCustomer, tt.req.Webhook)
		}
		if !strings.HasPrefix(created.RedirectURI, base+"/verify/") || len(created.RedirectURI) <= len(base+"/verify/") {
			t.Errorf("%s: redirect_uri %q is not a hosted page under %s/verify/", tt.name, created.RedirectURI, base)
		}

		got, err := idv.Identity().Get(ctx, created.ID)
		if err != nil {
			t.Fatalf("%s: get: %v", tt.name, err)
		}
		want := sdk.Verification{
			ID: created.ID, Customer: wantCustomer, RedirectURI: created.RedirectURI,
			Webhook: tt.req.Webhook, Status: sdk.StatusPending, Reason: sdk.ReasonNone,
		}
		if *got != want {
			t.Errorf("%s: get = %+v, want %+v", tt.name, *got, want)
		}
		if got.Status.Terminal() {
			t.Errorf("%s: status %q reported terminal", tt.name, got.Status)
		}
	}
}

func TestSubmit(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	idv := newClient(t, ts, verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	pngImg, jpegImg := pngBytes(t, 200, 150), jpegBytes(t, 320, 240)

	tests := []struct {
		name string
		req  sdk.SubmitImagesRequest
	}{
		{"passport PNG without back", sdk.SubmitImagesRequest{
			DocumentType: sdk.DocumentPassport, DocumentCountry: "gbr",
			Selfie: jpegImg, DocumentFront: pngImg,
		}},
		{"default type is passport", sdk.SubmitImagesRequest{
			DocumentCountry: "fra", Selfie: pngImg, DocumentFront: jpegImg,
		}},
		{"ID card JPEG with back", sdk.SubmitImagesRequest{
			DocumentType: sdk.DocumentIDCard, DocumentCountry: "deu",
			Selfie: jpegImg, DocumentFront: jpegImg, DocumentBack: pngImg,
		}},
		{"driver licence", sdk.SubmitImagesRequest{
			DocumentType: sdk.DocumentDriverLicense, DocumentCountry: "usa",
			Selfie: pngImg, DocumentFront: pngImg, DocumentBack: jpegImg,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			// The "+pending" tag keeps the sandbox from processing the
			// submission, so the status read back cannot race the job.
			tt.req.Customer = sdk.Customer{ID: uuid.NewString(), Email: "jane+pending@example.com"}
			tt.req.Webhook = webhook
			res, err := idv.Identity().SubmitImages(ctx, tt.req)
			if err != nil {
				t.Fatalf("submit: %v", err)
			}
			if res.ID == "" || res.Status != sdk.StatusPending || res.Webhook != webhook ||
				res.Customer != (sdk.Customer{ID: tt.req.Customer.ID, Email: "jane+pending@example.com"}) {
				t.Fatalf("submit = %+v", *res)
			}
			got, err := idv.Identity().Get(ctx, res.ID)
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			if got.ID != res.ID || got.Status != sdk.StatusPending || got.Reason != sdk.ReasonNone || got.RedirectURI != "" {
				t.Errorf("get = %+v, want pending direct submission without redirect_uri", *got)
			}
		})
	}

	t.Run("pre-encoded images", func(t *testing.T) {
		t.Parallel()
		res, err := idv.Identity().Submit(context.Background(), sdk.SubmitRequest{
			Customer: sdk.SubmitCustomer{
				ID: uuid.NewString(), Email: "jane@example.com", Selfie: sdk.EncodeImage(jpegImg),
				Document: sdk.Document{Type: sdk.DocumentResidencePermit, Country: "esp",
					Front: sdk.EncodeImage(pngImg), Back: sdk.EncodeImage(pngImg)},
			},
			Webhook: webhook,
		})
		if err != nil {
			t.Fatalf("submit: %v", err)
		}
		if res.Status != sdk.StatusPending {
			t.Errorf("status = %q, want pending", res.Status)
		}
	})

	invalid := []struct {
		name  string
		req   sdk.SubmitImagesRequest
		field string
	}{
		{"ID card without back", sdk.SubmitImagesRequest{
			DocumentType: sdk.DocumentIDCard, DocumentCountry: "deu", Selfie: jpegImg, DocumentFront: jpegImg,
		}, "customer.document.back"},
		{"unknown country", sdk.SubmitImagesRequest{
			DocumentCountry: "xxx", Selfie: jpegImg, DocumentFront: jpegImg,
		}, "customer.document.country"},
		{"selfie is not an image", sdk.SubmitImagesRequest{
			DocumentCountry: "gbr", Selfie: []byte("not an image"), DocumentFront: jpegImg,
		}, "customer.selfie"},
		{"image too small", sdk.SubmitImagesRequest{
			DocumentCountry: "gbr", Selfie: jpegImg, DocumentFront: pngBytes(t, 32, 32),
		}, "customer.document.front"},
	}
	for _, tt := range invalid {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The "+pending" tag keeps the sandbox from processing the
			// submission, so the status read back cannot race the job.
			tt.req.Customer = sdk.Customer{ID: uuid.NewString(), Email: "jane+pending@example.com"}
			tt.req.Webhook = webhook
			_, err := idv.Identity().SubmitImages(context.Background(), tt.req)
			e := apiError(t, err, http.StatusUnprocessableEntity, "invalid parameters")
			if _, ok := e.Field(tt.field); !ok {
				t.Errorf("fields %+v do not name %s", e.Fields, tt.field)
			}
		})
	}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	mounts := []struct {
		i verifyd.Interface
		e verifyd.Environment
	}{
		{verifyd.InterfaceIdentity, verifyd.EnvSandbox},
		{verifyd.InterfaceIdentity, verifyd.EnvProduction},
		{verifyd.InterfaceAge, verifyd.EnvSandbox},
		{verifyd.InterfaceAge, verifyd.EnvProduction},
	}
	for _, m := range mounts {
		t.Run(string(m.i)+"-"+string(m.e), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rc := newClient(t, ts, m.i, m.e).Redirects()
			// Distinct URLs per mount, so a leak between lists would show.
			u := func(s string) string { return "https://" + string(m.i) + "-" + string(m.e) + ".example.com/" + s }
			steps := []struct {
				name string
				do   func() error
				want []string
			}{
				{"initially empty", func() error { return nil }, []string{}},
				{"add", func() error { return rc.Add(ctx, []string{u("a"), u("b")}) }, []string{u("a"), u("b")}},
				{"add without duplicates", func() error { return rc.Add(ctx, []string{u("b"), u("c"), u("a")}) }, []string{u("a"), u("b"), u("c")}},
				{"replace", func() error { return rc.Replace(ctx, []string{u("d"), u("a")}) }, []string{u("d"), u("a")}},
				{"remove, ignoring absent", func() error { return rc.Remove(ctx, []string{u("d"), u("zzz")}) }, []string{u("a")}},
				{"replace with nil clears", func() error { return rc.Replace(ctx, nil) }, []string{}},
			}
			for _, s := range steps {
				if err := s.do(); err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				got, err := rc.List(ctx)
				if err != nil {
					t.Fatalf("%s: list: %v", s.name, err)
				}
				if !reflect.DeepEqual(got, s.want) {
					t.Fatalf("%s: list = %q, want %q", s.name, got, s.want)
				}
			}
			err := rc.Add(ctx, []string{"ftp://example.com/x"})
			apiError(t, err, http.StatusBadRequest, "invalid redirect URL: must use http or https")
		})
	}
}

func TestRedirectListsAreSeparate(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	ctx := context.Background()
	if err := newClient(t, ts, verifyd.InterfaceIdentity, verifyd.EnvSandbox).Redirects().Add(ctx, []string{"https://a.example.com/"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*sdk.Client{
		newClient(t, ts, verifyd.InterfaceIdentity, verifyd.EnvProduction),
		newClient(t, ts, verifyd.InterfaceAge, verifyd.EnvSandbox),
	} {
		got, err := c.Redirects().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Errorf("%s: list = %q, want empty", c.BaseURL(), got)
		}
	}
}

func TestAPIErrors(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	ctx := context.Background()
	base := ts.BaseURL(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	cred := ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	good := newClient(t, ts, verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	mustNew := func(baseURL, key, secret string) *sdk.Client {
		c, err := sdk.New(baseURL, key, secret)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	wrongSecret := mustNew(base, cred.APIKey, cred.APISecret+"x")
	unknownKey := mustNew(base, "no_such_key", cred.APISecret)
	prod := ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvProduction)
	otherEnv := mustNew(base, prod.APIKey, prod.APISecret)
	age := ts.Credential(verifyd.InterfaceAge, verifyd.EnvSandbox)
	ageKeyOnIdentity := mustNew(base, age.APIKey, age.APISecret)

	created, err := good.Identity().Create(ctx, sdk.CreateRequest{
		Customer: sdk.Customer{ID: uuid.NewString(), Email: "jane@example.com"}, Webhook: webhook,
	})
	if err != nil {
		t.Fatal(err)
	}
	validCreate := sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: "jane@example.com"}, Webhook: webhook}

	tests := []struct {
		name    string
		call    func() error
		status  int
		message string
		field   string
	}{
		{"wrong secret on create", func() error { _, err := wrongSecret.Identity().Create(ctx, validCreate); return err },
			401, "invalid authentication", ""},
		{"wrong secret on get", func() error { _, err := wrongSecret.Identity().Get(ctx, created.ID); return err },
			401, "invalid authentication", ""},
		{"wrong secret on redirect list", func() error { _, err := wrongSecret.Redirects().List(ctx); return err },
			401, "invalid authentication", ""},
		{"wrong secret on redirect add", func() error { return wrongSecret.Redirects().Add(ctx, []string{"https://x.example.com/"}) },
			401, "invalid authentication", ""},
		{"unknown key on identity", func() error { _, err := unknownKey.Identity().Get(ctx, created.ID); return err },
			401, "invalid client", ""},
		{"production key in sandbox", func() error { _, err := otherEnv.Identity().Create(ctx, validCreate); return err },
			401, "invalid client", ""},
		{"age key on identity redirect list", func() error { _, err := ageKeyOnIdentity.Redirects().List(ctx); return err },
			401, "invalid authentication", ""},
		{"customer id not a UUID v4", func() error {
			_, err := good.Identity().Create(ctx, sdk.CreateRequest{
				Customer: sdk.Customer{ID: "customer-42", Email: "jane@example.com"}, Webhook: webhook,
			})
			return err
		}, 422, "invalid parameters", "customer.id"},
		{"redirect_uri not allowed", func() error {
			_, err := good.Identity().Create(ctx, sdk.CreateRequest{
				Customer: sdk.Customer{ID: uuid.NewString(), Email: "jane@example.com"},
				Webhook:  webhook, RedirectURI: "https://not-allowed.example.com/",
			})
			return err
		}, 422, "invalid parameters", "redirect_uri"},
		{"missing webhook", func() error {
			_, err := good.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: "jane@example.com"}})
			return err
		}, 422, "invalid parameters", "webhook"},
		{"unknown verification id", func() error { _, err := good.Identity().Get(ctx, uuid.NewString()); return err },
			404, "not found", ""},
		{"verification id needing escaping", func() error { _, err := good.Identity().Get(ctx, "no such id"); return err },
			404, "not found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := apiError(t, tt.call(), tt.status, tt.message)
			if tt.field != "" {
				if _, ok := e.Field(tt.field); !ok {
					t.Errorf("fields %+v do not name %s", e.Fields, tt.field)
				}
				if !strings.Contains(e.Error(), tt.field) {
					t.Errorf("Error() = %q does not mention %s", e.Error(), tt.field)
				}
			} else if len(e.Fields) != 0 {
				t.Errorf("unexpected fields %+v", e.Fields)
			}
		})
	}

	// A key of the identity interface does not work on the age interface.
	identityKeyOnAge := mustNew(ts.BaseURL(verifyd.InterfaceAge, verifyd.EnvSandbox), cred.APIKey, cred.APISecret)
	_, err = identityKeyOnAge.Redirects().List(ctx)
	apiError(t, err, 401, "invalid authentication")
}

func TestNonJSONErrorBody(t *testing.T) {
	t.Parallel()
	// A reverse proxy in front of verifyd may answer with a page of its own.
	page := "<html><body><h1>502 Bad Gateway</h1>\n" + strings.Repeat("upstream unavailable ", 50) + "</body></html>"
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/empty/v1/business/allowed-redirects" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, page)
	}))
	defer proxy.Close()

	c, err := sdk.New(proxy.URL+"/identity", "key", "secret")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Redirects().List(context.Background())
	var e *sdk.APIError
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want *sdk.APIError", err)
	}
	if e.StatusCode != http.StatusBadGateway || !strings.HasPrefix(e.Message, "<html><body><h1>502 Bad Gateway</h1> upstream") ||
		len(e.Message) > 300 || strings.Contains(e.Message, "\n") {
		t.Errorf("APIError = %d %q, want 502 and a short one-line excerpt", e.StatusCode, e.Message)
	}

	c, _ = sdk.New(proxy.URL+"/empty", "key", "secret")
	err = c.Redirects().Add(context.Background(), []string{"https://a.example.com/"})
	if !errors.As(err, &e) || e.StatusCode != 503 || e.Message != "Service Unavailable" {
		t.Errorf("empty body error = %v, want 503 Service Unavailable", err)
	}
}

func TestRequestSigning(t *testing.T) {
	t.Parallel()
	// The signing rules are checked by the real server in the other tests;
	// this records the exact wire form for integrators porting the SDK.
	type seen struct {
		method, path, auth, contentType, accept string
		body                                    []byte
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.EscapedPath(), r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("Accept"), b}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","status":"pending","reason":"","body":[]}`)
	}))
	defer srv.Close()
	c, err := sdk.New(srv.URL+"/sandbox/identity", "k1", "s1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	if _, err := c.Identity().Get(ctx, "a b"); err != nil {
		t.Fatal(err)
	}
	s := <-got
	rel := "/api/v1/identity-verification/a b"
	if s.method != "GET" || s.path != "/sandbox/identity/api/v1/identity-verification/a%20b" ||
		s.auth != "hmac k1:"+signature.Sign("s1", []byte(rel)) || s.accept != "application/json" || len(s.body) != 0 {
		t.Errorf("GET sent %+v", s)
	}

	if err := c.Redirects().Replace(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s = <-got
	if s.method != "PUT" || s.path != "/sandbox/identity/v1/business/allowed-redirects" || string(s.body) != "[]" ||
		s.auth != "hmac k1:"+signature.Sign("s1", s.body) || s.contentType != "application/json" {
		t.Errorf("PUT sent %+v", s)
	}
}

func TestContextCanceled(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	c := newClient(t, ts, verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Redirects().List(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	var e *sdk.APIError
	if _, err := c.Identity().Get(ctx, uuid.NewString()); errors.As(err, &e) {
		t.Errorf("canceled call returned an APIError %v", e)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, base, key, secret string
		ok                      bool
	}{
		{"https with prefix", "https://verify.example.com/sandbox/identity", "k", "s", true},
		{"http root", "http://127.0.0.1:8080", "k", "s", true},
		{"relative", "/identity", "k", "s", false},
		{"no scheme", "verify.example.com/identity", "k", "s", false},
		{"ftp", "ftp://verify.example.com/", "k", "s", false},
		{"query", "https://verify.example.com/identity?x=1", "k", "s", false},
		{"fragment", "https://verify.example.com/identity#x", "k", "s", false},
		{"credentials", "https://u:p@verify.example.com/identity", "k", "s", false},
		{"unparsable", "https://verify.example.com/%zz", "k", "s", false},
		{"no key", "https://verify.example.com/identity", "", "s", false},
		{"no secret", "https://verify.example.com/identity", "k", "", false},
		{"colon in key", "https://verify.example.com/identity", "k:1", "s", false},
	}
	for _, tt := range tests {
		c, err := sdk.New(tt.base, tt.key, tt.secret, sdk.WithHTTPClient(nil), sdk.WithUserAgent("test"))
		if (err == nil) != tt.ok {
			t.Errorf("%s: New(%q) error = %v, want ok=%v", tt.name, tt.base, err, tt.ok)
		}
		if tt.ok && (c.BaseURL() != tt.base || c.APIKey() != tt.key) {
			t.Errorf("%s: BaseURL/APIKey = %q %q", tt.name, c.BaseURL(), c.APIKey())
		}
	}
}

func TestDefaultBaseURLs(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	urls, err := sdk.DefaultBaseURLs(ts.HTTP.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	// The SDK's convention must match the server's default mounts.
	want := sdk.BaseURLs{
		Identity:        ts.BaseURL(verifyd.InterfaceIdentity, verifyd.EnvProduction),
		IdentitySandbox: ts.BaseURL(verifyd.InterfaceIdentity, verifyd.EnvSandbox),
		Age:             ts.BaseURL(verifyd.InterfaceAge, verifyd.EnvProduction),
		AgeSandbox:      ts.BaseURL(verifyd.InterfaceAge, verifyd.EnvSandbox),
	}
	if urls != want {
		t.Fatalf("DefaultBaseURLs = %+v, want %+v", urls, want)
	}
	cred := ts.Credential(verifyd.InterfaceAge, verifyd.EnvSandbox)
	c, err := sdk.New(urls.AgeSandbox, cred.APIKey, cred.APISecret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Redirects().List(context.Background()); err != nil {
		t.Errorf("list on the age sandbox: %v", err)
	}
	for _, bad := range []string{"", "127.0.0.1:8080", "ftp://h", "http://h/?q=1", "http://h/#f"} {
		if _, err := sdk.DefaultBaseURLs(bad); err == nil {
			t.Errorf("DefaultBaseURLs(%q) succeeded", bad)
		}
	}
}

func TestVerifyWebhook(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	cred := ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	other := ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvProduction)
	secretForKey := func(k string) (string, bool) {
		if k == cred.APIKey {
			return cred.APISecret, true
		}
		return "", false
	}
	payload := []byte(`{"id":"5b0e6f5e-8d0b-4c47-9a43-1f6d1c1f9d11","customer_id":"0f8fad5b-d9cb-469f-a165-70867728950e","status":"failed","reason":"photo_mismatch"}`)
	sign := func(key, secret string, body []byte) string {
		return signature.Header(key, signature.Sign(secret, body))
	}
	tampered := bytes.Replace(payload, []byte("failed"), []byte("approved"), 1)

	tests := []struct {
		name    string
		body    []byte
		auth    string
		wantErr error
	}{
		{"valid", payload, sign(cred.APIKey, cred.APISecret, payload), nil},
		{"uppercase scheme and hex", payload, "HMAC " + cred.APIKey + ":" + strings.ToUpper(signature.Sign(cred.APISecret, payload)), nil},
		{"tampered body", tampered, sign(cred.APIKey, cred.APISecret, payload), sdk.ErrInvalidSignature},
		{"wrong secret", payload, sign(cred.APIKey, other.APISecret, payload), sdk.ErrInvalidSignature},
		{"unknown key", payload, sign(other.APIKey, other.APISecret, payload), sdk.ErrUnknownAPIKey},
		{"missing header", payload, "", sdk.ErrInvalidSignature},
		{"basic scheme", payload, "Basic " + cred.APIKey + ":" + signature.Sign(cred.APISecret, payload), sdk.ErrInvalidSignature},
		{"truncated signature", payload, sign(cred.APIKey, cred.APISecret, payload)[:40], sdk.ErrInvalidSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/hooks/verifyd", bytes.NewReader(tt.body))
			r.Header.Set("Content-Type", "application/json")
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			ev, err := sdk.VerifyWebhook(r, secretForKey)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("VerifyWebhook error = %v, want %v", err, tt.wantErr)
			}
			again, _ := io.ReadAll(r.Body)
			if !bytes.Equal(again, tt.body) {
				t.Errorf("body read again = %q, want %q", again, tt.body)
			}
			if tt.wantErr != nil {
				if ev != (sdk.Event{}) {
					t.Errorf("event %+v returned with an error", ev)
				}
				return
			}
			want := sdk.Event{
				ID: "5b0e6f5e-8d0b-4c47-9a43-1f6d1c1f9d11", CustomerID: "0f8fad5b-d9cb-469f-a165-70867728950e",
				Status: sdk.StatusFailed, Reason: sdk.ReasonPhotoMismatch, APIKey: cred.APIKey,
			}
			if ev != want {
				t.Errorf("event = %+v, want %+v", ev, want)
			}
		})
	}

	t.Run("body not JSON", func(t *testing.T) {
		t.Parallel()
		body := []byte("status=approved")
		r := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(body))
		r.Header.Set("Authorization", sign(cred.APIKey, cred.APISecret, body))
		_, err := sdk.VerifyWebhook(r, secretForKey)
		var syntax *json.SyntaxError
		if err == nil || errors.Is(err, sdk.ErrInvalidSignature) || !errors.As(err, &syntax) {
			t.Errorf("error = %v, want a JSON decoding error", err)
		}
	})

	t.Run("body too large", func(t *testing.T) {
		t.Parallel()
		body := bytes.Repeat([]byte(" "), sdk.MaxWebhookBytes+1)
		r := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(body))
		r.Header.Set("Authorization", sign(cred.APIKey, cred.APISecret, body))
		if _, err := sdk.VerifyWebhook(r, secretForKey); err == nil {
			t.Error("oversized body accepted")
		}
	})

	t.Run("VerifyWebhookBody", func(t *testing.T) {
		t.Parallel()
		auth := sign(cred.APIKey, cred.APISecret, payload)
		if err := sdk.VerifyWebhookBody(payload, auth, cred.APISecret); err != nil {
			t.Errorf("valid body: %v", err)
		}
		if err := sdk.VerifyWebhookBody(tampered, auth, cred.APISecret); !errors.Is(err, sdk.ErrInvalidSignature) {
			t.Errorf("tampered body: %v", err)
		}
		if err := sdk.VerifyWebhookBody(payload, auth, other.APISecret); !errors.Is(err, sdk.ErrInvalidSignature) {
			t.Errorf("wrong secret: %v", err)
		}
		if err := sdk.VerifyWebhookBody(payload, auth, ""); !errors.Is(err, sdk.ErrInvalidSignature) {
			t.Errorf("empty secret: %v", err)
		}
	})
}

func TestStatusAndDocumentHelpers(t *testing.T) {
	t.Parallel()
	for s, terminal := range map[sdk.Status]bool{
		sdk.StatusPending: false, sdk.StatusStarted: false,
		sdk.StatusExpired: true, sdk.StatusFailed: true, sdk.StatusApproved: true,
	} {
		if s.Terminal() != terminal {
			t.Errorf("%s.Terminal() = %v", s, !terminal)
		}
	}
	for d, back := range map[sdk.DocumentType]bool{
		sdk.DocumentPassport: false, "": false,
		sdk.DocumentIDCard: true, sdk.DocumentDriverLicense: true, sdk.DocumentResidencePermit: true,
	} {
		if d.NeedsBack() != back {
			t.Errorf("%q.NeedsBack() = %v", d, !back)
		}
	}
}
