package dashpages

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
)

// TestProblemTexts checks that every problem the branding rules give has
// a code, and a text for it in every language of the dashboard, so that
// the branding page never mixes an English problem into a translated
// page.
func TestProblemTexts(t *testing.T) {
	big := bytes.Repeat([]byte{0x89}, branding.MaxLogoBytes+1)
	seen := map[string]bool{}
	for _, in := range []branding.Input{
		{DisplayName: strings.Repeat("x", branding.MaxDisplayName+1), AccentColour: "red", SupportEmail: "no", Logo: []byte("GIF89a")},
		{DisplayName: "a\x01", AccentColour: "#fafafa", Logo: big},
		{Logo: []byte{1}, RemoveLogo: true},
	} {
		_, _, err := in.Validate()
		var e *verifyd.Error
		if !errors.As(err, &e) || len(e.Fields) == 0 {
			t.Fatalf("%+v: %v, want field problems", in, err)
		}
		for _, f := range e.Fields {
			if f.Code == "" {
				t.Errorf("%s: %q has no code", f.Field, f.Problem)
				continue
			}
			seen[f.Code] = true
		}
	}
	if len(seen) < 8 {
		t.Errorf("only %d problem codes seen: %v", len(seen), seen)
	}
	// Every problem text of any language exists in the others too.
	for lang := range texts {
		for k := range texts[lang] {
			if !strings.HasPrefix(k, "problem_") {
				continue
			}
			for _, other := range []string{"en", "de", "fr"} {
				if _, ok := texts[other][k]; !ok {
					t.Errorf("%s has %s, %s does not", lang, k, other)
				}
			}
		}
	}
	for code := range seen {
		for _, lang := range []string{"en", "de", "fr"} {
			if _, ok := texts[lang]["problem_"+code]; !ok {
				t.Errorf("no %s text for problem_%s", lang, code)
			}
		}
	}
}
