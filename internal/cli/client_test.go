package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/sdk"
)

const testWebhook = "https://integrator.example.com/hooks/verifyd"

// clientEnv starts a server and returns it with the environment that points
// the API client commands at its sandbox identity mount.
func clientEnv(t *testing.T) (*testserver.Server, map[string]string) {
	t.Helper()
	ts := testserver.Start(t, "sqlite", testserver.Options{})
	cred := ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	return ts, map[string]string{
		"VERIFYD_BASE_URL":   ts.BaseURL(verifyd.InterfaceIdentity, verifyd.EnvSandbox),
		"VERIFYD_API_KEY":    cred.APIKey,
		"VERIFYD_API_SECRET": cred.APISecret,
	}
}

// decodeOne decodes stdout, which must hold exactly one JSON value.
func decodeOne(t *testing.T, stdout string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not the expected JSON: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout has more than one JSON value: %s", stdout)
	}
}

// writePNG writes a w×h PNG with some structure into dir and returns its
// path.
func writePNG(t *testing.T, dir, name string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

type customerOut struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

func TestIdentityCreateAndGet(t *testing.T) {
	t.Parallel()
	ts, env := clientEnv(t)
	base := env["VERIFYD_BASE_URL"]
	const returnURL = "https://shop.example.com/verified"
	if _, stderr, err := run(t, env, "redirects", "add", returnURL); err != nil {
		t.Fatalf("redirects add: %v\n%s", err, stderr)
	}

	customer := uuid.NewString()
	stdout, stderr, err := run(t, env, "identity", "create", "--customer-id", customer, "--email", "jane@example.com",
		"--phone", "+44 20 7946 0958", "--redirect-uri", returnURL, "--webhook", testWebhook)
	if err != nil {
		t.Fatalf("identity create: %v\n%s", err, stderr)
	}
	var created struct {
		ID          string      `json:"id"`
		Customer    customerOut `json:"customer"`
		RedirectURI string      `json:"redirect_uri"`
		Webhook     string      `json:"webhook"`
	}
	decodeOne(t, stdout, &created)
	if created.ID == "" || created.Customer != (customerOut{customer, "jane@example.com"}) || created.Webhook != testWebhook ||
		!strings.HasPrefix(created.RedirectURI, base+"/verify/") {
		t.Fatalf("identity create output: %s", stdout)
	}
	if !strings.Contains(stdout, "\n  \"id\"") {
		t.Errorf("output is not indented: %s", stdout)
	}

	stdout, stderr, err = run(t, env, "identity", "get", "--id", created.ID)
	if err != nil {
		t.Fatalf("identity get: %v\n%s", err, stderr)
	}
	var got struct {
		ID          string      `json:"id"`
		Customer    customerOut `json:"customer"`
		RedirectURI string      `json:"redirect_uri"`
		Webhook     string      `json:"webhook"`
		Status      string      `json:"status"`
		Reason      string      `json:"reason"`
	}
	decodeOne(t, stdout, &got)
	if got.ID != created.ID || got.Status != "pending" || got.Customer != created.Customer ||
		got.RedirectURI != created.RedirectURI || got.Webhook != testWebhook || got.Reason != "" {
		t.Fatalf("identity get output: %s", stdout)
	}

	// Without --customer-id a fresh UUID v4 is used and shown; the options
	// may also come as flags instead of the environment.
	cred := ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox)
	stdout, stderr, err = run(t, nil, "identity", "create", "--email", "ann@example.net", "--webhook", testWebhook,
		"--base-url", base, "--api-key", cred.APIKey, "--api-secret", cred.APISecret)
	if err != nil {
		t.Fatalf("identity create with flags: %v\n%s", err, stderr)
	}
	decodeOne(t, stdout, &created)
	if u, err := uuid.Parse(created.Customer.ID); err != nil || u.Version() != 4 || created.Customer.ID == customer {
		t.Fatalf("generated customer id %q: %v", created.Customer.ID, err)
	}

	// An unknown id is a 404 from the service.
	_, _, err = run(t, env, "identity", "get", "--id", "nope")
	var apiErr *sdk.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || cli.ExitCode(err) != 1 ||
		!strings.HasPrefix(err.Error(), "HTTP 404: ") {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestIdentitySubmit(t *testing.T) {
	t.Parallel()
	_, env := clientEnv(t)
	dir := t.TempDir()
	selfie := writePNG(t, dir, "selfie.png", 120, 160)
	front := writePNG(t, dir, "front.png", 200, 120)
	back := writePNG(t, dir, "back.png", 200, 120)

	customer := uuid.NewString()
	stdout, stderr, err := run(t, env, "identity", "submit", "--customer-id", customer, "--email", "jane@example.com",
		"--selfie", selfie, "--document-type", "IdCard", "--document-country", "deu",
		"--front", front, "--back", back, "--webhook", testWebhook)
	if err != nil {
		t.Fatalf("identity submit: %v\n%s", err, stderr)
	}
	var res struct {
		ID       string      `json:"id"`
		Status   string      `json:"status"`
		Customer customerOut `json:"customer"`
		Webhook  string      `json:"webhook"`
	}
	decodeOne(t, stdout, &res)
	if res.ID == "" || res.Status != "pending" || res.Customer != (customerOut{customer, "jane@example.com"}) || res.Webhook != testWebhook {
		t.Fatalf("identity submit output: %s", stdout)
	}
	stdout, _, err = run(t, env, "identity", "get", "--id", res.ID)
	if err != nil || !strings.Contains(stdout, res.ID) {
		t.Fatalf("identity get after submit: %v %s", err, stdout)
	}

	// A passport needs no back; the customer id is generated.
	stdout, stderr, err = run(t, env, "identity", "submit", "--email", "ann@example.net", "--selfie", selfie,
		"--document-type", "Passport", "--document-country", "gbr", "--front", front, "--webhook", testWebhook)
	if err != nil {
		t.Fatalf("identity submit passport: %v\n%s", err, stderr)
	}
	decodeOne(t, stdout, &res)
	if _, err := uuid.Parse(res.Customer.ID); err != nil || res.Status != "pending" {
		t.Fatalf("identity submit passport output: %s", stdout)
	}

	// An ID card without its back is refused by the service, naming the field.
	_, _, err = run(t, env, "identity", "submit", "--email", "ann@example.net", "--selfie", selfie,
		"--document-type", "IdCard", "--document-country", "deu", "--front", front, "--webhook", testWebhook)
	var apiErr *sdk.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(err.Error(), "customer.document.back") {
		t.Fatalf("ID card without back: %v", err)
	}

	// A missing file is reported before any request.
	_, _, err = run(t, env, "identity", "submit", "--email", "ann@example.net", "--selfie", filepath.Join(dir, "missing.png"),
		"--document-type", "Passport", "--document-country", "gbr", "--front", front, "--webhook", testWebhook)
	if err == nil || errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "missing.png") {
		t.Fatalf("missing selfie file: %v", err)
	}
}

func TestRedirectsRoundTrip(t *testing.T) {
	t.Parallel()
	_, env := clientEnv(t)
	list := func() []string {
		t.Helper()
		stdout, stderr, err := run(t, env, "redirects", "list")
		if err != nil {
			t.Fatalf("redirects list: %v\n%s", err, stderr)
		}
		var out struct {
			Body []string `json:"body"`
		}
		decodeOne(t, stdout, &out)
		if out.Body == nil {
			t.Fatalf("redirects list printed no body array: %s", stdout)
		}
		return out.Body
	}
	change := func(args ...string) {
		t.Helper()
		stdout, stderr, err := run(t, env, append([]string{"redirects"}, args...)...)
		if err != nil || stdout != "" {
			t.Fatalf("redirects %v: %v, stdout %q\n%s", args, err, stdout, stderr)
		}
	}
	const a, b, c = "https://a.example.com/done", "https://b.example.com/done", "https://c.example.com/done"
	if got := list(); len(got) != 0 {
		t.Fatalf("new list = %v", got)
	}
	change("add", a, b)
	// Flags may follow the URLs.
	change("add", b, "--base-url", env["VERIFYD_BASE_URL"])
	if got := list(); !sameSet(got, a, b) {
		t.Fatalf("after add: %v", got)
	}
	change("replace", "--", c)
	if got := list(); !sameSet(got, c) {
		t.Fatalf("after replace: %v", got)
	}
	change("add", a)
	change("remove", c, "https://not-listed.example.com/")
	if got := list(); !sameSet(got, a) {
		t.Fatalf("after remove: %v", got)
	}
	change("remove", a)
	if got := list(); len(got) != 0 {
		t.Fatalf("after removing all: %v", got)
	}

	for _, verb := range []string{"add", "replace", "remove"} {
		if _, _, err := run(t, env, "redirects", verb); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("redirects %s without URLs: %v, want a usage error", verb, err)
		}
	}
	if _, _, err := run(t, env, "redirects", "list", "extra"); !errors.Is(err, cli.ErrUsage) {
		t.Errorf("redirects list with an argument: %v, want a usage error", err)
	}
}

func sameSet(got []string, want ...string) bool {
	g, w := map[string]bool{}, map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	for _, s := range want {
		w[s] = true
	}
	return len(got) == len(want) && reflect.DeepEqual(g, w)
}

func TestClientErrors(t *testing.T) {
	t.Parallel()
	_, env := clientEnv(t)

	// A 422 names the field, in the form the program prints after "verifyd: ".
	_, stderr, err := run(t, env, "identity", "create", "--customer-id", "not-a-uuid", "--email", "jane@example.com", "--webhook", testWebhook)
	var apiErr *sdk.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnprocessableEntity || cli.ExitCode(err) != 1 {
		t.Fatalf("invalid customer id: %v (%T)\n%s", err, err, stderr)
	}
	if want := "HTTP 422: invalid parameters (customer.id: must be a UUID v4)"; err.Error() != want {
		t.Errorf("error text %q, want %q", err.Error(), want)
	}

	// A wrong secret is a 401.
	bad := map[string]string{}
	for k, v := range env {
		bad[k] = v
	}
	bad["VERIFYD_API_SECRET"] = "vds_test_wrong"
	for _, args := range [][]string{
		{"identity", "create", "--email", "jane@example.com", "--webhook", testWebhook},
		{"identity", "get", "--id", "whatever"},
		{"redirects", "list"},
		{"redirects", "add", "https://a.example.com/"},
	} {
		_, _, err := run(t, bad, args...)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized || cli.ExitCode(err) != 1 ||
			!strings.HasPrefix(err.Error(), "HTTP 401: ") {
			t.Errorf("%v with a wrong secret: %v", args, err)
		}
	}
	// The flag takes precedence over the environment.
	if _, _, err := run(t, env, "redirects", "list", "--api-secret", "vds_test_wrong"); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
		t.Errorf("--api-secret over the environment: %v", err)
	}

	// An unreachable server is an error, without a doubled "verifyd:" prefix.
	down := map[string]string{"VERIFYD_BASE_URL": "http://127.0.0.1:1/sandbox/identity", "VERIFYD_API_KEY": "k", "VERIFYD_API_SECRET": "s"}
	if _, _, err := run(t, down, "redirects", "list"); err == nil || cli.ExitCode(err) != 1 || strings.HasPrefix(err.Error(), "verifyd:") {
		t.Errorf("unreachable server: %v", err)
	}
}

func TestClientUsageAndHelp(t *testing.T) {
	t.Parallel()
	cmds := [][]string{{"identity", "create"}, {"identity", "submit"}, {"identity", "get"},
		{"redirects", "list"}, {"redirects", "add"}, {"redirects", "replace"}, {"redirects", "remove"}}
	for _, c := range cmds {
		stdout, _, err := run(t, map[string]string{"VERIFYD_API_SECRET": "vds_test_secret"}, append(c, "--help")...)
		if err != nil || !strings.Contains(stdout, "Usage: verifyd "+strings.Join(c, " ")) ||
			!strings.Contains(stdout, "-base-url") || !strings.Contains(stdout, "VERIFYD_API_SECRET") {
			t.Errorf("%v --help: %v\n%s", c, err, stdout)
		}
		if strings.Contains(stdout, "vds_test_secret") {
			t.Errorf("%v --help prints the secret from the environment", c)
		}
	}
	if stdout, _, err := run(t, nil, "help"); err != nil || !strings.Contains(stdout, "verifyd identity create") || !strings.Contains(stdout, "verifyd redirects list") {
		t.Errorf("main usage lacks the client commands: %v\n%s", err, stdout)
	}

	creds := map[string]string{"VERIFYD_BASE_URL": "http://127.0.0.1:1/sandbox/identity", "VERIFYD_API_KEY": "k", "VERIFYD_API_SECRET": "s"}
	for _, tt := range []struct {
		env  map[string]string
		args []string
	}{
		{creds, []string{"identity"}},
		{creds, []string{"identity", "frobnicate"}},
		{creds, []string{"redirects"}},
		{creds, []string{"identity", "create", "--email", "jane@example.com"}},                // no --webhook
		{creds, []string{"identity", "create", "--webhook", testWebhook}},                     // no --email
		{creds, []string{"identity", "submit", "--email", "j@example.com", "--webhook", "w"}}, // no images
		{creds, []string{"identity", "get"}},
		{creds, []string{"identity", "get", "--id", "x", "extra"}},
		{nil, []string{"identity", "get", "--id", "x"}}, // no credentials
		{map[string]string{"VERIFYD_BASE_URL": "ftp://x", "VERIFYD_API_KEY": "k", "VERIFYD_API_SECRET": "s"}, []string{"redirects", "list"}},
	} {
		_, stderr, err := run(t, tt.env, tt.args...)
		if !errors.Is(err, cli.ErrUsage) || cli.ExitCode(err) != 2 {
			t.Errorf("%v: err %v, want a usage error\n%s", tt.args, err, stderr)
		}
	}
	_, stderr, _ := run(t, creds, "identity", "create", "--email", "jane@example.com")
	if !strings.Contains(stderr, "--webhook") {
		t.Errorf("missing --webhook not named: %s", stderr)
	}
}
