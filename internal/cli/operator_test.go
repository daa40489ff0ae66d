package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/webauth"
)

// runIn runs the command line with stdin.
func runIn(t *testing.T, env map[string]string, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = cli.Run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestOperatorCommands(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t, d)
			// The password comes from stdin: one line.
			stdout, stderr, err := runIn(t, env, "correct horse battery staple\n", "operator", "create", "--username", "Ada")
			if err != nil {
				t.Fatalf("operator create: %v\n%s", err, stderr)
			}
			var created map[string]any
			if err := json.Unmarshal([]byte(stdout), &created); err != nil || len(created) != 2 || created["username"] != "ada" {
				t.Fatalf("operator create printed %s", stdout)
			}
			if _, err := time.Parse(time.RFC3339Nano, created["created_at"].(string)); err != nil {
				t.Fatalf("created_at: %v", err)
			}
			// --generate prints a strong password, once.
			stdout, stderr, err = runIn(t, env, "", "operator", "create", "--username", "bob", "--generate")
			if err != nil {
				t.Fatalf("operator create --generate: %v\n%s", err, stderr)
			}
			var generated struct{ Username, Password string }
			if err := json.Unmarshal([]byte(stdout), &generated); err != nil || generated.Username != "bob" ||
				webauth.CheckPassword(generated.Password) != nil || len(generated.Password) < 20 {
				t.Fatalf("generated: %s", stdout)
			}
			// Refusals: short password, none, duplicate, bad username.
			for _, c := range []struct {
				stdin string
				args  []string
				want  string
			}{
				{"short pass\n", []string{"--username", "carol"}, "at least 12 characters"},
				{"", []string{"--username", "carol"}, "no password on stdin"},
				{"correct horse battery staple\n", []string{"--username", "ADA"}, "exists"},
				{"correct horse battery staple\n", []string{"--username", "has space"}, "a username has"},
			} {
				_, _, err := runIn(t, env, c.stdin, append([]string{"operator", "create"}, c.args...)...)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("operator create %v with %q: %v, want %q", c.args, c.stdin, err, c.want)
				}
			}
			if _, _, err := runIn(t, env, "", "operator", "create"); cli.ExitCode(err) != 2 {
				t.Errorf("operator create without --username: %v", err)
			}

			// The stored hash is argon2id with the documented parameters.
			db, err := sqlstore.Open(context.Background(), env["VERIFYD_DATABASE"], nil)
			if err != nil {
				t.Fatal(err)
			}
			o, err := db.Operator(context.Background(), "ada")
			db.Close()
			if err != nil || !strings.HasPrefix(o.PasswordHash, "$argon2id$v=19$m=65536,t=2,p=2$") ||
				webauth.VerifyPassword(o.PasswordHash, "correct horse battery staple") != nil {
				t.Fatalf("stored operator %+v, %v", o, err)
			}

			stdout, _, err = runIn(t, env, "", "operator", "disable", "--username", "bob")
			if err != nil || !strings.Contains(stdout, `"status": "disabled"`) {
				t.Fatalf("operator disable: %v %s", err, stdout)
			}
			if _, _, err := runIn(t, env, "", "operator", "disable", "--username", "nobody"); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("disable unknown: %v", err)
			}
			stdout, _, err = runIn(t, env, "", "operator", "list", "--json")
			var list []struct {
				Username, Status string
				DisabledAt       *time.Time `json:"disabled_at"`
			}
			if err != nil || json.Unmarshal([]byte(stdout), &list) != nil || len(list) != 2 ||
				list[0].Username != "ada" || list[0].Status != "active" || list[1].Status != "disabled" || list[1].DisabledAt == nil {
				t.Fatalf("operator list --json: %v %s", err, stdout)
			}
			if strings.Contains(stdout, "argon2") || strings.Contains(stdout, "password") {
				t.Fatal("operator list shows password hashes")
			}
			stdout, _, err = runIn(t, env, "", "operator", "list")
			if err != nil || !strings.HasPrefix(stdout, "USERNAME") || !strings.Contains(stdout, "bob") {
				t.Fatalf("operator list: %v %s", err, stdout)
			}
		})
	}
}
