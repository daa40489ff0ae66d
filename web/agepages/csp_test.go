package agepages

import (
	"strings"
	"testing"

	"github.com/verifyd/verifyd/web/layout"
)

// TestAgeCSP: the flow's policy adds the redirect_uri's origin to
// form-action and nothing else; anything that could smuggle another
// directive keeps the hosted page's policy.
func TestAgeCSP(t *testing.T) {
	t.Parallel()
	for uri, want := range map[string]string{
		"https://shop.example/cb?x=1":               "form-action 'self' https://shop.example;",
		"http://127.0.0.1:8081/cb":                  "form-action 'self' http://127.0.0.1:8081;",
		"https://[2001:db8::1]:8443/cb":             "form-action 'self' https://[2001:db8::1]:8443;",
		"https://shop.example;script-src *":         "form-action 'self';",
		"https://user@shop.example/cb":              "form-action 'self' https://shop.example;",
		"javascript:alert(1)":                       "form-action 'self';",
		"https://sh op.example/":                    "form-action 'self';",
		"":                                          "form-action 'self';",
		"https://shop.example:99999999/cb":          "form-action 'self';",
		"https://shop.example/cb;x 'unsafe-inline'": "form-action 'self' https://shop.example;",
	} {
		got := ageCSP(uri)
		if !strings.Contains(got, want) || strings.Count(got, ";") != strings.Count(layout.CSP, ";") || strings.Contains(got, "*") {
			t.Errorf("%q: %q, want %q", uri, got, want)
		}
	}
}

// TestAgeCatalogComplete: the age pages' texts exist in every language,
// with the same format verbs.
func TestAgeCatalogComplete(t *testing.T) {
	t.Parallel()
	for key, en := range ageCatalog["en"] {
		for _, lang := range []string{"de", "fr"} {
			text, ok := ageCatalog[lang][key]
			if !ok {
				t.Errorf("%s: no %s text", key, lang)
				continue
			}
			for _, verb := range []string{"%s", "%d"} {
				if strings.Count(text, verb) != strings.Count(en, verb) {
					t.Errorf("%s/%s: %q has other format verbs than %q", lang, key, text, en)
				}
			}
		}
	}
	for _, lang := range []string{"de", "fr"} {
		if len(ageCatalog[lang]) != len(ageCatalog["en"]) {
			t.Errorf("%s has %d texts, en %d", lang, len(ageCatalog[lang]), len(ageCatalog["en"]))
		}
	}
}
