package cli_test

import (
	"strings"
	"testing"
)

// TestServeSaysWhetherItSendsEmail: without --smtp-url serve says at
// start-up that age accounts get no e-mail; with one it names the server
// (never the password); a malformed one stops it.
func TestServeSaysWhetherItSendsEmail(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "sqlite")
	lines := servedLogs(t, env, "--models-dir", t.TempDir(), "--models-fetch=false")
	if len(logged(lines, "no --smtp-url")) != 1 {
		t.Fatalf("no start-up line about e-mail:\n%s", messages(lines))
	}
	lines = servedLogs(t, env, "--models-dir", t.TempDir(), "--models-fetch=false",
		"--smtp-url", "smtp://mailer:s3cret@mail.example:2525?from=age@verifyd.example")
	got := logged(lines, "age account e-mails are sent through SMTP")
	if len(got) != 1 || got[0]["host"] != "mail.example" || got[0]["port"] != float64(2525) || got[0]["tls"] != "starttls" {
		t.Fatalf("start-up lines:\n%s", messages(lines))
	}
	for _, l := range lines {
		for _, v := range l {
			if s, ok := v.(string); ok && strings.Contains(s, "s3cret") {
				t.Fatalf("a log line shows the SMTP password: %v", l)
			}
		}
	}
	if _, _, err := run(t, env, "serve", "--smtp-url", "http://mail.example"); err == nil {
		t.Fatal("serve accepted an --smtp-url that is not smtp:// or smtps://")
	}
}
