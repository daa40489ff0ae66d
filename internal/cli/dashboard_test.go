package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestBusinessInvite: business invite prints a link under the dashboard
// URL with a fresh token each time, refuses bad roles and unknown
// businesses, and records the invitation in the audit log with the
// operating-system user as the actor and no e-mail address.
func TestBusinessInvite(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t, d)
			env["USER"] = "ops"
			stdout, _, err := run(t, env, "business", "create", "--name", "Invites Ltd")
			if err != nil {
				t.Fatal(err)
			}
			var b businessOut
			if err := json.Unmarshal([]byte(stdout), &b); err != nil {
				t.Fatal(err)
			}
			var links []string
			for range 2 {
				stdout, _, err = run(t, env, "business", "invite", "--business", b.ID, "--email", "Ada@Example.com",
					"--role", "developer", "--dashboard-url", "https://dash.example.com/dashboard/", "--json")
				if err != nil {
					t.Fatalf("business invite: %v", err)
				}
				var out struct {
					BusinessID        string `json:"business_id"`
					Email, Role, Link string
				}
				if err := json.Unmarshal([]byte(stdout), &out); err != nil {
					t.Fatal(err)
				}
				if out.BusinessID != b.ID || out.Email != "ada@example.com" || out.Role != "developer" ||
					!strings.HasPrefix(out.Link, "https://dash.example.com/dashboard/invitations/") ||
					len(out.Link) < len("https://dash.example.com/dashboard/invitations/")+40 {
					t.Errorf("business invite printed %s", stdout)
				}
				links = append(links, out.Link)
			}
			if links[0] == links[1] {
				t.Error("two invitations got the same link")
			}
			stdout, _, err = run(t, env, "business", "invite", "--business", b.ID, "--email", "bob@example.com", "--role", "viewer")
			if err != nil || !strings.Contains(stdout, "/dashboard/invitations/") || !strings.Contains(stdout, "bob@example.com as viewer") {
				t.Errorf("business invite without --json: %q, %v", stdout, err)
			}
			if _, _, err := run(t, env, "business", "invite", "--business", b.ID, "--email", "a@example.com", "--role", "admin"); !errors.Is(err, cli.ErrUsage) {
				t.Errorf("a bad role: %v, want a usage error", err)
			}
			if _, _, err := run(t, env, "business", "invite", "--business", "biz_nobody", "--email", "a@example.com", "--role", "owner"); err == nil ||
				!strings.Contains(err.Error(), "not found") {
				t.Errorf("an unknown business: %v", err)
			}
			stdout, _, err = run(t, env, "audit", "list", "--business", b.ID, "--json")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(stdout, `"user.invite"`) != 3 || !strings.Contains(stdout, `"cli:ops"`) || strings.Contains(stdout, "example.com") {
				t.Errorf("audit list after three invitations:\n%s", stdout)
			}
		})
	}
}

// TestServeDashboardFlags: serve offers the dashboard's sign-up only with
// --dashboard-signup, and a --dashboard-url that is not a URL stops it.
func TestServeDashboardFlags(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "sqlite")
	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, http.StatusNotFound},
		{[]string{"--dashboard-signup"}, http.StatusOK},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var out, logs testserver.Buffer
		done := make(chan error, 1)
		go func() {
			done <- cli.Run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--ocr", "off", "--models-dir", t.TempDir(),
				"--models-fetch=false"}, c.args...), func(k string) string { return env[k] }, nil, &out, &logs)
		}()
		for !strings.Contains(out.String(), "verifyd listening on ") {
			select {
			case err := <-done:
				t.Fatalf("serve exited: %v\n%s", err, logs.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
		origin := strings.TrimSpace(strings.SplitN(strings.SplitAfter(out.String(), "verifyd listening on ")[1], "\n", 2)[0])
		res, err := http.Get(origin + "/dashboard/signup")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("serve %v: /dashboard/signup answered %d, want %d", c.args, res.StatusCode, c.want)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("serve: %v", err)
		}
	}
	if _, _, err := run(t, env, "serve", "--listen", "127.0.0.1:0", "--ocr", "off", "--models-fetch=false",
		"--models-dir", t.TempDir(), "--dashboard-url", "://nothing"); err == nil || !strings.Contains(err.Error(), "dashboard") {
		t.Errorf("serve with a bad --dashboard-url: %v", err)
	}
}

// TestBusinessInviteEmail: --lang is checked; with an --smtp-url that
// cannot be reached the invitation is still made, its link printed, and
// stderr says the e-mail failed. (A delivery itself is tested through the
// dashboard pages: the test SMTP server's certificate cannot be trusted
// from the command line's flags.)
func TestBusinessInviteEmail(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "sqlite")
	stdout, _, err := run(t, env, "business", "create", "--name", "Mail Ltd")
	if err != nil {
		t.Fatal(err)
	}
	var b businessOut
	if err := json.Unmarshal([]byte(stdout), &b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, env, "business", "invite", "--business", b.ID, "--email", "a@example.com", "--role", "owner",
		"--lang", "es"); !errors.Is(err, cli.ErrUsage) {
		t.Errorf("--lang es: %v, want a usage error", err)
	}
	if _, _, err := run(t, env, "business", "invite", "--business", b.ID, "--email", "a@example.com", "--role", "owner",
		"--smtp-url", "http://mail.example"); err == nil {
		t.Error("an --smtp-url that is not smtp:// or smtps:// was accepted")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	stdout, stderr, err := run(t, env, "business", "invite", "--business", b.ID, "--email", "a@example.com", "--role", "owner",
		"--smtp-url", "smtp://"+addr, "--lang", "fr")
	if err != nil || !strings.Contains(stdout, "/dashboard/invitations/") || !strings.Contains(stderr, "the e-mail to a@example.com failed") {
		t.Errorf("invite with an unreachable mail server: %v\nstdout %q\nstderr %q", err, stdout, stderr)
	}
}
