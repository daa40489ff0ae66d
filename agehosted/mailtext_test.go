package agehosted

import (
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
)

// TestMailTextsComplete: every e-mail exists in every language and
// carries both the link or code and the address.
func TestMailTextsComplete(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "de", "fr"} {
		for _, p := range []verifyd.AgeMailPurpose{verifyd.AgeMailConfirm, verifyd.AgeMailReset, verifyd.AgeMailCode, verifyd.AgeMailDelete} {
			if _, ok := mailTexts[lang][p]; !ok {
				t.Errorf("%s/%s: no text", lang, p)
				continue
			}
			subject, body := mailText(lang, p, "SECRET-123", "ada@example.com")
			if subject == "" || !strings.Contains(body, "SECRET-123") || !strings.Contains(body, "ada@example.com") || strings.Contains(body, "%!") {
				t.Errorf("%s/%s: %q / %q", lang, p, subject, body)
			}
		}
	}
	if s, _ := mailText("xx", verifyd.AgeMailCode, "1", "a@b.c"); s != mailTexts["en"][verifyd.AgeMailCode][0] {
		t.Errorf("an unknown language gets %q, want English", s)
	}
}

// TestOnlyMethod: the methods page is skipped only for a single method
// and never after a failed check.
func TestOnlyMethod(t *testing.T) {
	t.Parallel()
	doc := []verifyd.AgeMethod{verifyd.AgeMethodDocument}
	failed := &verifyd.AgeProof{Result: verifyd.AgeResultFailed}
	for _, c := range []struct {
		name string
		st   State
		want bool
	}{
		{"one method", State{Step: StepMethods, Methods: doc}, true},
		{"several", State{Step: StepMethods, Methods: append(doc, verifyd.AgeMethodCreditCard)}, false},
		{"after a failure", State{Step: StepMethods, Methods: doc, Failed: failed}, false},
		{"another step", State{Step: StepConsent, Methods: doc}, false},
	} {
		if m, ok := OnlyMethod(c.st); ok != c.want || (ok && m != verifyd.AgeMethodDocument) {
			t.Errorf("%s: %v %v, want %v", c.name, m, ok, c.want)
		}
	}
}
