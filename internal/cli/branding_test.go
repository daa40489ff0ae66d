package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testdb"
)

// TestBusinessSetBranding: business set's branding flags store what they
// name and keep the rest, the logo is re-encoded, bad values name their
// field, and the older flags still work next to them.
func TestBusinessSetBranding(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t, d)
			stdout, _, err := run(t, env, "business", "create", "--name", "Branded Ltd")
			if err != nil {
				t.Fatal(err)
			}
			var b businessOut
			if err := json.Unmarshal([]byte(stdout), &b); err != nil {
				t.Fatal(err)
			}
			img := image.NewNRGBA(image.Rect(0, 0, 64, 32))
			for n := range img.Pix {
				img.Pix[n] = uint8(n)
			}
			img.Set(0, 0, color.NRGBA{1, 2, 3, 4})
			var raw bytes.Buffer
			if err := png.Encode(&raw, img); err != nil {
				t.Fatal(err)
			}
			logo := filepath.Join(t.TempDir(), "logo.png")
			if err := os.WriteFile(logo, raw.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			type out struct {
				RetentionDays int `json:"retention_days"`
				Branding      struct {
					DisplayName  string `json:"display_name"`
					AccentColour string `json:"accent_colour"`
					SupportEmail string `json:"support_email"`
					PrivacyURL   string `json:"privacy_url"`
					Logo         *struct {
						Format        string
						Width, Height int
					}
				}
			}
			set := func(args ...string) (out, error) {
				stdout, _, err := run(t, env, append([]string{"business", "set", "--business", b.ID}, args...)...)
				var o out
				if err == nil {
					err = json.Unmarshal([]byte(stdout), &o)
				}
				return o, err
			}
			o, err := set("--display-name", "Branded", "--accent-colour", "#0A5C36", "--support-email", "help@branded.example",
				"--privacy-url", "https://branded.example/privacy", "--logo", logo, "--retention-days", "9")
			if err != nil {
				t.Fatalf("business set: %v", err)
			}
			br := o.Branding
			if o.RetentionDays != 9 || br.DisplayName != "Branded" || br.AccentColour != "#0a5c36" ||
				br.SupportEmail != "help@branded.example" || br.PrivacyURL != "https://branded.example/privacy" ||
				br.Logo == nil || br.Logo.Format != "png" || br.Logo.Width != 64 || br.Logo.Height != 32 {
				t.Errorf("business set printed %+v", o)
			}
			// One flag changes one field; an empty value clears it.
			if o, err = set("--display-name", "Renamed", "--support-email", ""); err != nil {
				t.Fatal(err)
			}
			if br := o.Branding; br.DisplayName != "Renamed" || br.SupportEmail != "" || br.AccentColour != "#0a5c36" || br.Logo == nil {
				t.Errorf("partial change printed %+v", br)
			}
			if o, err = set("--remove-logo"); err != nil || o.Branding.Logo != nil {
				t.Errorf("--remove-logo: %+v, %v", o.Branding, err)
			}
			for _, c := range []struct {
				args  []string
				field string
			}{
				{[]string{"--accent-colour", "#fafafa"}, "accent_colour is too light"},
				{[]string{"--privacy-url", "http://branded.example/privacy"}, "privacy_url must use https"},
				{[]string{"--logo", filepath.Join("testdata", "missing.png")}, "no such file"},
			} {
				if _, err := set(c.args...); err == nil || !strings.Contains(err.Error(), c.field) {
					t.Errorf("business set %v = %v, want an error naming %q", c.args, err, c.field)
				}
			}
			if _, err := set("--logo", logo, "--remove-logo"); !errors.Is(err, cli.ErrUsage) {
				t.Errorf("--logo with --remove-logo = %v, want a usage error", err)
			}
		})
	}
}
