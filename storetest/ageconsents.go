package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// ageConsentTests are the AgeConsentStore contract's tests (consent per
// business, docs/age.md).
var ageConsentTests = map[string]func(*testing.T, context.Context, verifyd.Store){
	"GrantListRevoke":          testAgeConsentGrantListRevoke,
	"GrantAgainKeepsFirstTime": testAgeConsentGrantAgain,
	"UnknownAccountOrBusiness": testAgeConsentUnknown,
	"PerEnvironment":           testAgeConsentPerEnvironment,
}

func consentFixture(t *testing.T, ctx context.Context, s verifyd.Store) (shop, other verifyd.Business, ada verifyd.AgeAccount) {
	t.Helper()
	shop, _ = createBusiness(t, ctx, s, "biz_shop", clock)
	other, _ = createBusiness(t, ctx, s, "biz_other", clock)
	ada = newAgeAccount("acct-ada", verifyd.EnvProduction, "ada@example.com", clock)
	mustCreateAgeAccount(t, ctx, s, ada)
	return shop, other, ada
}

func mustGrant(t *testing.T, ctx context.Context, s verifyd.Store, c verifyd.AgeConsent) {
	t.Helper()
	if err := s.GrantAgeConsent(ctx, c); err != nil {
		t.Fatalf("GrantAgeConsent(%s, %s): %v", c.AccountID, c.BusinessID, err)
	}
}

func testAgeConsentGrantListRevoke(t *testing.T, ctx context.Context, s verifyd.Store) {
	shop, other, ada := consentFixture(t, ctx, s)
	_, err := s.AgeConsent(ctx, verifyd.EnvProduction, ada.ID, shop.ID)
	assertNotFound(t, "AgeConsent before any grant", err)
	if cs, err := s.AgeConsents(ctx, verifyd.EnvProduction, ada.ID); err != nil || cs == nil || len(cs) != 0 {
		t.Fatalf("AgeConsents before any grant = %#v, %v; want an empty non-nil list", cs, err)
	}
	first := verifyd.AgeConsent{Environment: verifyd.EnvProduction, AccountID: ada.ID, BusinessID: shop.ID, GrantedAt: oddClock}
	second := verifyd.AgeConsent{Environment: verifyd.EnvProduction, AccountID: ada.ID, BusinessID: other.ID, GrantedAt: at(time.Hour)}
	mustGrant(t, ctx, s, first)
	mustGrant(t, ctx, s, second)
	first.BusinessName, second.BusinessName = shop.Name, other.Name
	got, err := s.AgeConsent(ctx, verifyd.EnvProduction, ada.ID, shop.ID)
	if err != nil {
		t.Fatalf("AgeConsent: %v", err)
	}
	assertEqual(t, "AgeConsent", got, first)
	list, err := s.AgeConsents(ctx, verifyd.EnvProduction, ada.ID)
	if err != nil {
		t.Fatalf("AgeConsents: %v", err)
	}
	assertEqual(t, "AgeConsents (most recent first)", list, []verifyd.AgeConsent{second, first})

	if err := s.RevokeAgeConsent(ctx, verifyd.EnvProduction, ada.ID, shop.ID); err != nil {
		t.Fatalf("RevokeAgeConsent: %v", err)
	}
	_, err = s.AgeConsent(ctx, verifyd.EnvProduction, ada.ID, shop.ID)
	assertNotFound(t, "AgeConsent after revocation", err)
	assertNotFound(t, "RevokeAgeConsent twice", s.RevokeAgeConsent(ctx, verifyd.EnvProduction, ada.ID, shop.ID))
	list, err = s.AgeConsents(ctx, verifyd.EnvProduction, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "AgeConsents after revoking one", list, []verifyd.AgeConsent{second})
	// Granting after a revocation is a new consent with its own time.
	again := first
	again.GrantedAt = at(2 * time.Hour)
	mustGrant(t, ctx, s, again)
	if got, err := s.AgeConsent(ctx, verifyd.EnvProduction, ada.ID, shop.ID); err != nil || !sameInstant(got.GrantedAt, again.GrantedAt) {
		t.Fatalf("consent granted again after revocation: %+v, %v", got, err)
	}
}

func testAgeConsentGrantAgain(t *testing.T, ctx context.Context, s verifyd.Store) {
	shop, _, ada := consentFixture(t, ctx, s)
	c := verifyd.AgeConsent{Environment: verifyd.EnvProduction, AccountID: ada.ID, BusinessID: shop.ID, GrantedAt: clock}
	mustGrant(t, ctx, s, c)
	later := c
	later.GrantedAt = at(time.Hour)
	mustGrant(t, ctx, s, later)
	got, err := s.AgeConsent(ctx, verifyd.EnvProduction, ada.ID, shop.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sameInstant(got.GrantedAt, clock) {
		t.Fatalf("granted at %v after a second grant, want the first %v", got.GrantedAt, clock)
	}
}

func testAgeConsentUnknown(t *testing.T, ctx context.Context, s verifyd.Store) {
	shop, _, ada := consentFixture(t, ctx, s)
	for name, c := range map[string]verifyd.AgeConsent{
		"unknown account":  {Environment: verifyd.EnvProduction, AccountID: "nobody", BusinessID: shop.ID, GrantedAt: clock},
		"unknown business": {Environment: verifyd.EnvProduction, AccountID: ada.ID, BusinessID: "biz_nobody", GrantedAt: clock},
		"account of the other environment": {Environment: verifyd.EnvSandbox, AccountID: ada.ID, BusinessID: shop.ID,
			GrantedAt: clock},
	} {
		assertNotFound(t, "GrantAgeConsent, "+name, s.GrantAgeConsent(ctx, c))
	}
	if cs, err := s.AgeConsents(ctx, verifyd.EnvProduction, ada.ID); err != nil || len(cs) != 0 {
		t.Fatalf("consents after refused grants: %v, %v", cs, err)
	}
	assertNotFound(t, "RevokeAgeConsent of nothing", s.RevokeAgeConsent(ctx, verifyd.EnvProduction, ada.ID, shop.ID))
}

func testAgeConsentPerEnvironment(t *testing.T, ctx context.Context, s verifyd.Store) {
	shop, _, ada := consentFixture(t, ctx, s)
	mustGrant(t, ctx, s, verifyd.AgeConsent{Environment: verifyd.EnvProduction, AccountID: ada.ID, BusinessID: shop.ID, GrantedAt: clock})
	_, err := s.AgeConsent(ctx, verifyd.EnvSandbox, ada.ID, shop.ID)
	assertNotFound(t, "AgeConsent from the other environment", err)
	if cs, err := s.AgeConsents(ctx, verifyd.EnvSandbox, ada.ID); err != nil || len(cs) != 0 {
		t.Fatalf("AgeConsents from the other environment: %v, %v", cs, err)
	}
	assertNotFound(t, "RevokeAgeConsent from the other environment", s.RevokeAgeConsent(ctx, verifyd.EnvSandbox, ada.ID, shop.ID))
}
