package agehosted_test

import (
	"context"
	"crypto/rand"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/seal"
)

// The flow itself runs against a real server in httpapi/age_pages_test.go
// and in Chromium in internal/browsertest; these are the rules on their own.

// TestCountryTable: every SPEC country has a row; no row accepts a method
// that is not a check (the sandbox shortcut, "none"); Germany and France
// accept only the document and want the password at each use; the US
// caps reuse at Tennessee's 60 minutes.
func TestCountryTable(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"gb", "de", "fr", "us"} {
		c, ok := agehosted.CountryOf(code)
		if !ok || c.Code != code || len(c.Methods) == 0 || c.Validity <= 0 {
			t.Fatalf("%s: %+v", code, c)
		}
		if c.Methods[0] != verifyd.AgeMethodDocument {
			t.Errorf("%s: the document is not offered first: %v", code, c.Methods)
		}
		for _, m := range []verifyd.AgeMethod{verifyd.AgeMethodSandbox, verifyd.AgeMethodNone, "self_declaration"} {
			if c.Accepts(m) {
				t.Errorf("%s accepts %s", code, m)
			}
		}
	}
	if len(agehosted.Countries) != 4 {
		t.Errorf("%d countries, want SPEC's 4", len(agehosted.Countries))
	}
	for _, code := range []string{"de", "fr"} {
		c := agehosted.Countries[code]
		if !slices.Equal(c.Methods, []verifyd.AgeMethod{verifyd.AgeMethodDocument}) || !c.LoginEachUse {
			t.Errorf("%s: %+v, want the document only and the password at each use", code, c)
		}
	}
	if c := agehosted.Countries["fr"]; c.Validity > time.Hour {
		t.Errorf("fr reuses a proof for %v; Arcom wants a check at each consultation", c.Validity)
	}
	if c := agehosted.Countries["us"]; c.Validity > time.Hour || c.Accepts(verifyd.AgeMethodEmailEstimation) {
		t.Errorf("us: %+v", c)
	}
	if c := agehosted.Countries["gb"]; !c.Accepts(verifyd.AgeMethodCreditCard) || !c.Accepts(verifyd.AgeMethodEmailEstimation) || c.LoginEachUse {
		t.Errorf("gb: %+v", c)
	}
}

func newService(t *testing.T, providers ...agehosted.Provider) *agehosted.Service {
	t.Helper()
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	sealer, err := seal.New(key, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := agehosted.New(nil, nil, nil, sealer, agehosted.Config{Providers: providers})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOfferedMethods: simulations serve the sandbox only, so production
// offers the document alone until a real provider is configured; a
// country never offers a method it does not accept.
func TestOfferedMethods(t *testing.T) {
	t.Parallel()
	s := newService(t, agehosted.SandboxSimulations()...)
	for code, c := range agehosted.Countries {
		if got := s.Offered(verifyd.EnvProduction, c); !slices.Equal(got, []verifyd.AgeMethod{verifyd.AgeMethodDocument}) {
			t.Errorf("production %s offers %v", code, got)
		}
		if got := s.Offered(verifyd.EnvSandbox, c); !slices.Equal(got, c.Methods) {
			t.Errorf("sandbox %s offers %v, want %v", code, got, c.Methods)
		}
	}
	// A real provider (not simulated) serves both environments.
	s = newService(t, realProvider{})
	gb := agehosted.Countries["gb"]
	if got := s.Offered(verifyd.EnvProduction, gb); !slices.Equal(got, []verifyd.AgeMethod{verifyd.AgeMethodDocument, verifyd.AgeMethodCreditCard}) {
		t.Errorf("production gb with a card provider offers %v", got)
	}
	if got := s.Offered(verifyd.EnvProduction, agehosted.Countries["de"]); len(got) != 1 {
		t.Errorf("production de with a card provider offers %v", got)
	}
}

func TestNewRefusesBadProviders(t *testing.T) {
	t.Parallel()
	for name, ps := range map[string][]agehosted.Provider{
		"two of a method": {realProvider{}, realProvider{}},
		"built in":        {agehosted.NewSimulation(verifyd.AgeMethodDocument)},
	} {
		if _, err := agehosted.New(nil, nil, nil, nil, agehosted.Config{Providers: ps}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

type realProvider struct{}

func (realProvider) Name() string              { return "card-co" }
func (realProvider) Method() verifyd.AgeMethod { return verifyd.AgeMethodCreditCard }
func (realProvider) Simulated() bool           { return false }
func (realProvider) Start(context.Context, agehosted.ProviderStart) (agehosted.ProviderStep, error) {
	return agehosted.ProviderStep{RedirectURL: "https://card.example/check"}, nil
}
func (realProvider) Finish(context.Context, agehosted.ProviderFinish) (verifyd.AgeResult, error) {
	return verifyd.AgeResultFailed, nil
}

func TestSimulation(t *testing.T) {
	t.Parallel()
	p := agehosted.NewSimulation(verifyd.AgeMethodMobileOperator)
	if !p.Simulated() || p.Method() != verifyd.AgeMethodMobileOperator || !strings.Contains(p.Name(), "sandbox") {
		t.Fatalf("%+v", p)
	}
	step, _ := p.Start(context.Background(), agehosted.ProviderStart{})
	if step.RedirectURL != "" || len(step.Choices) != 3 {
		t.Fatalf("step %+v", step)
	}
	for _, c := range step.Choices {
		if got, err := p.Finish(context.Background(), agehosted.ProviderFinish{Values: url.Values{"outcome": {string(c)}}}); err != nil || got != c {
			t.Errorf("%s: %s %v", c, got, err)
		}
	}
	for _, bad := range []string{"", "pending", "approved"} {
		if _, err := p.Finish(context.Background(), agehosted.ProviderFinish{Values: url.Values{"outcome": {bad}}}); verifyd.ErrorCodeOf(err) != verifyd.EInvalid {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestPublicID: the id an integrator learns is stable for the proof and
// the integrator, differs between integrators (they cannot link a person
// by it) and does not contain the proof id.
func TestPublicID(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a1, a2, b := s.PublicID("biz_a", "proof-1"), s.PublicID("biz_a", "proof-1"), s.PublicID("biz_b", "proof-1")
	if a1 != a2 || a1 == b || !strings.HasPrefix(a1, "agv_") || strings.Contains(a1, "proof") || len(a1) != 4+32 {
		t.Fatalf("ids %q %q %q", a1, a2, b)
	}
	if s.PublicID("biz_a", "proof-2") == a1 {
		t.Fatal("two proofs share an id")
	}
}
