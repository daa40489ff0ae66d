package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// run runs the command line in-process with the given environment.
func run(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = cli.Run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

type businessOut struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Credentials []struct {
		Interface   string `json:"interface"`
		Environment string `json:"environment"`
		APIKey      string `json:"api_key"`
		APISecret   string `json:"api_secret"`
	} `json:"credentials"`
}

func testEnv(t *testing.T, dialect string) map[string]string {
	return map[string]string{
		"VERIFYD_DATABASE":        testdb.URL(t, dialect),
		"VERIFYD_MASTER_KEY_FILE": filepath.Join(t.TempDir(), "master.key"),
		// serve would fetch the face models from the npm registry.
		"VERIFYD_MODELS_FETCH": "false",
	}
}

func TestBusinessAndKeys(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t, d)
			stdout, stderr, err := run(t, env, "business", "create", "--name", "Acme Ltd")
			if err != nil {
				t.Fatalf("business create: %v\n%s", err, stderr)
			}
			// stdout is one JSON object and nothing else.
			var b businessOut
			dec := json.NewDecoder(strings.NewReader(stdout))
			if err := dec.Decode(&b); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			if dec.More() {
				t.Fatalf("stdout has more than one JSON value: %s", stdout)
			}
			var raw map[string]json.RawMessage
			_ = json.Unmarshal([]byte(stdout), &raw)
			if len(raw) != 3 || b.Name != "Acme Ltd" || !strings.HasPrefix(b.ID, "biz_") {
				t.Fatalf("business output: %s", stdout)
			}
			pairs := map[string]bool{}
			for _, c := range b.Credentials {
				pairs[c.Interface+"/"+c.Environment] = true
				tag := map[string]string{"production": "live", "sandbox": "test"}[c.Environment]
				if !strings.HasPrefix(c.APIKey, "vdk_"+tag+"_") || !strings.HasPrefix(c.APISecret, "vds_"+tag+"_") {
					t.Errorf("credential %+v lacks its environment prefix", c)
				}
			}
			if len(b.Credentials) != 4 || len(pairs) != 4 {
				t.Fatalf("want one credential per interface/environment pair, got %+v", b.Credentials)
			}

			// The master key file was created private.
			st, err := os.Stat(env["VERIFYD_MASTER_KEY_FILE"])
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("master key file: %v %v", err, st)
			}

			stdout, _, err = run(t, env, "business", "list", "--json")
			if err != nil || !strings.Contains(stdout, b.ID) {
				t.Fatalf("business list: %v %s", err, stdout)
			}
			stdout, _, err = run(t, env, "key", "create", "--business", b.ID, "--interface", "age", "--environment", "sandbox", "--json")
			if err != nil {
				t.Fatal(err)
			}
			var created struct {
				APIKey    string `json:"api_key"`
				APISecret string `json:"api_secret"`
				Status    string `json:"status"`
			}
			if err := json.Unmarshal([]byte(stdout), &created); err != nil || created.APISecret == "" || created.Status != "active" {
				t.Fatalf("key create output: %v %s", err, stdout)
			}
			stdout, _, err = run(t, env, "key", "revoke", "--key", created.APIKey, "--json")
			if err != nil || !strings.Contains(stdout, `"status": "revoked"`) {
				t.Fatalf("key revoke: %v %s", err, stdout)
			}
			stdout, _, err = run(t, env, "key", "list", "--business", b.ID, "--json")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(stdout, "vds_") {
				t.Fatal("key list printed secrets")
			}
			var listed []struct {
				APIKey string `json:"api_key"`
				Status string `json:"status"`
			}
			_ = json.Unmarshal([]byte(stdout), &listed)
			statuses := map[string]int{}
			for _, k := range listed {
				statuses[k.Status]++
				if k.APIKey == created.APIKey && k.Status != "revoked" {
					t.Fatalf("revoked key listed as %s", k.Status)
				}
			}
			if statuses["active"] != 4 || statuses["revoked"] != 1 {
				t.Fatalf("key list statuses %v", statuses)
			}
			stdout, _, err = run(t, env, "business", "set", "--business", b.ID, "--direct-liveness", "review")
			if err != nil || !strings.Contains(stdout, `"direct_liveness": "review"`) {
				t.Fatalf("business set: %v %s", err, stdout)
			}
			if _, _, err := run(t, env, "business", "set", "--business", b.ID, "--direct-liveness", "maybe"); !errors.Is(err, cli.ErrUsage) {
				t.Fatalf("business set with an unknown policy: %v", err)
			}
			if _, _, err := run(t, env, "key", "list", "--business", "biz_unknown"); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("unknown business: %v", err)
			}
		})
	}
}

func TestUsageAndHelp(t *testing.T) {
	t.Parallel()
	cmds := [][]string{{"serve"}, {"business", "create"}, {"business", "list"}, {"business", "set"}, {"key", "create"}, {"key", "list"}, {"key", "revoke"},
		{"verification", "show"}, {"webhooks", "list"}, {"webhooks", "resend"}, {"webhooks", "receive"},
		{"sandbox", "simulate"}, {"sandbox", "advance-time"}, {"audit", "list"}, {"identity", "redact"}}
	for _, c := range cmds {
		stdout, stderr, err := run(t, nil, append(c, "--help")...)
		if err != nil || strings.Count(stdout, "Usage: verifyd "+strings.Join(c, " ")) != 1 {
			t.Errorf("%v --help: %v\n%s", c, err, stdout)
		}
		// The usage once, on stdout: not a second copy on stderr.
		if strings.Contains(stderr, "Usage:") {
			t.Errorf("%v --help also printed the usage to stderr:\n%s", c, stderr)
		}
	}
	for _, args := range [][]string{{}, {"frobnicate"}, {"business"}, {"business", "create"}, {"key", "create", "--business", "b"}, {"serve", "--nope"}} {
		_, _, err := run(t, nil, args...)
		if !errors.Is(err, cli.ErrUsage) || cli.ExitCode(err) != 2 {
			t.Errorf("%v: err %v, want a usage error", args, err)
		}
	}
	// A wrong option still shows what is wrong and the usage, on stderr.
	if _, stderr, _ := run(t, nil, "serve", "--nope"); !strings.Contains(stderr, "flag provided but not defined: -nope") || !strings.Contains(stderr, "Usage: verifyd serve") {
		t.Errorf("serve --nope: stderr\n%s", stderr)
	}
}

// TestServeDemoWithCLIAlongside runs the real serve command, reads the demo
// credentials it prints, creates a business with the CLI on the same SQLite
// database while the server runs, and shuts the server down by cancelling
// its context.
func TestServeDemoWithCLIAlongside(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "sqlite")
	env["VERIFYD_LISTEN"] = "127.0.0.1:0"
	// A free port for the metrics listener.
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	env["VERIFYD_METRICS_LISTEN"] = free.Addr().String()
	free.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out testserver.Buffer
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"serve", "--dev", "--demo"}, func(k string) string { return env[k] }, nil, &out, io.Discard)
	}()
	var origin string
	deadline := time.Now().Add(20 * time.Second)
	for origin == "" && time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "verifyd listening on "); ok {
				origin = rest
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if origin == "" {
		cancel()
		t.Fatalf("server did not start: %s", out.String())
	}
	for _, want := range []string{`Demo business "Demo"`, origin + "/identity", origin + "/sandbox/identity", origin + "/age", origin + "/sandbox/age", "api secret: vds_test_"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	res, err := http.Get(origin + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", err, res)
	}
	res.Body.Close()
	res, err = http.Get("http://" + env["VERIFYD_METRICS_LISTEN"] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(metrics), "go_goroutines") {
		t.Fatalf("--metrics-listen: %d %.200s", res.StatusCode, metrics)
	}

	if stdout, stderr, err := run(t, env, "business", "create", "--name", "Alongside"); err != nil || !strings.Contains(stdout, "Alongside") {
		t.Fatalf("business create next to a running server: %v\n%s%s", err, stdout, stderr)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not shut down")
	}
	// A second start does not create a second demo business.
	stdout, _, err := run(t, env, "business", "list", "--json")
	if err != nil || strings.Count(stdout, `"Demo"`) != 1 {
		t.Fatalf("business list after restart: %v %s", err, stdout)
	}
}

func TestWrongMasterKeyIsRefused(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "sqlite")
	if _, _, err := run(t, env, "business", "create", "--name", "A"); err != nil {
		t.Fatal(err)
	}
	// Another key file on the same database: refused, not silently used.
	env["VERIFYD_MASTER_KEY_FILE"] = filepath.Join(t.TempDir(), "other.key")
	if _, _, err := run(t, env, "business", "list"); err == nil {
		t.Fatal("a missing master key file was replaced by a new key on an initialised database")
	}
	env["VERIFYD_MASTER_KEY"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	if _, _, err := run(t, env, "business", "list"); err == nil || !strings.Contains(err.Error(), "master key does not match") {
		t.Fatalf("wrong master key: %v", err)
	}
}
