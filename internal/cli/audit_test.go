package cli_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testdb"
)

// TestRetentionSettingAndAuditList: business set --retention-days stores
// the setting (and keeps --direct-liveness working), bad values are usage
// errors, and audit list shows every change with the operating-system user
// as the actor, filtered by business and time.
func TestRetentionSettingAndAuditList(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t, d)
			env["USER"] = "ops"
			stdout, _, err := run(t, env, "business", "create", "--name", "Retained Ltd")
			if err != nil {
				t.Fatal(err)
			}
			var b businessOut
			if err := json.Unmarshal([]byte(stdout), &b); err != nil {
				t.Fatal(err)
			}
			var set struct {
				RetentionDays  int    `json:"retention_days"`
				DirectLiveness string `json:"direct_liveness"`
			}
			for _, c := range []struct {
				args      []string
				days      int
				liveness  string
				wantUsage bool
			}{
				{[]string{"--retention-days", "7"}, 7, "auto", false},
				{[]string{"--direct-liveness", "review"}, 7, "review", false},
				{[]string{"--retention-days", "0", "--direct-liveness", "auto"}, 0, "auto", false},
				{[]string{"--retention-days", "-1"}, 0, "", true},
				{[]string{"--retention-days", "3651"}, 0, "", true},
				{[]string{}, 0, "", true},
			} {
				stdout, _, err := run(t, env, append([]string{"business", "set", "--business", b.ID}, c.args...)...)
				if c.wantUsage {
					if !errors.Is(err, cli.ErrUsage) {
						t.Errorf("business set %v: %v, want a usage error", c.args, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("business set %v: %v", c.args, err)
				}
				if err := json.Unmarshal([]byte(stdout), &set); err != nil || set.RetentionDays != c.days || set.DirectLiveness != c.liveness {
					t.Errorf("business set %v printed %s", c.args, stdout)
				}
			}
			if _, _, err := run(t, env, "business", "set", "--business", "biz_nobody", "--retention-days", "3"); err == nil ||
				!strings.Contains(err.Error(), "not found") {
				t.Errorf("business set of an unknown business: %v", err)
			}

			stdout, _, err = run(t, env, "audit", "list", "--json")
			if err != nil {
				t.Fatal(err)
			}
			var entries []struct {
				BusinessID string `json:"business_id"`
				Actor      struct{ Kind, Name string }
				Action     string
				Subject    string
				Detail     string
			}
			if err := json.Unmarshal([]byte(stdout), &entries); err != nil {
				t.Fatalf("audit list --json: %v\n%s", err, stdout)
			}
			var got []string
			for _, e := range entries {
				if e.BusinessID != b.ID || e.Actor.Kind != "operator" || e.Actor.Name != "cli:ops" {
					t.Errorf("entry %+v", e)
				}
				got = append(got, e.Action+" "+e.Detail)
			}
			want := []string{"business.set retention_days=7", "business.set direct_liveness=review",
				"business.set direct_liveness=auto", "business.set retention_days=0"}
			if len(got) != 5 || !strings.HasPrefix(got[0], "business.create keys vdk_") || !reflect.DeepEqual(got[1:], want) {
				t.Errorf("audited actions %q", got)
			}

			for _, c := range []struct {
				args []string
				want int
			}{
				{[]string{"--business", "biz_other"}, 0},
				{[]string{"--business", b.ID, "--since", "1h"}, 5},
				{[]string{"--since", "2099-01-01T00:00:00Z"}, 0},
				{[]string{"--limit", "2"}, 2},
			} {
				stdout, _, err := run(t, env, append([]string{"audit", "list", "--json"}, c.args...)...)
				var list []json.RawMessage
				if err != nil || json.Unmarshal([]byte(stdout), &list) != nil || len(list) != c.want {
					t.Errorf("audit list %v: %v, %d entries, want %d: %s", c.args, err, len(list), c.want, stdout)
				}
			}
			stdout, _, err = run(t, env, "audit", "list")
			if err != nil || !strings.Contains(stdout, "operator:cli:ops") || !strings.Contains(stdout, "retention_days=7") {
				t.Errorf("audit list table: %v\n%s", err, stdout)
			}
			if _, _, err := run(t, env, "audit", "list", "--since", "yesterday"); !errors.Is(err, cli.ErrUsage) {
				t.Errorf("audit list --since yesterday: %v", err)
			}
		})
	}
}
