package cli_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testdb"
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
