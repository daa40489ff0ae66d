package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// agePasskeyTests are the AgePasskeyStore contract's tests.
var agePasskeyTests = map[string]func(*testing.T, context.Context, verifyd.Store){
	"AccountWithPasskeyRoundTrip": testAgePasskeyAccount,
	"AccountWithPasskeyAtomic":    testAgePasskeyAtomic,
	"AddAndUse":                   testAgePasskeyAddAndUse,
	"PerEnvironment":              testAgePasskeyPerEnvironment,
	"DeletedWithTheAccount":       testAgePasskeyDeleted,
}

func newPasskey(env verifyd.Environment, account string, id byte, created time.Time) verifyd.AgePasskey {
	// Raw credential ids are bytes of any value, 0x00 and 0xff included.
	return verifyd.AgePasskey{Environment: env, AccountID: account, CredentialID: []byte{id, 0x00, 0xff, 0xfb, id},
		Credential: []byte(`{"id":"` + string(rune('a'+id)) + `","publicKey":"pk"}`), CreatedAt: created}
}

func testAgePasskeyAccount(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := newAgeAccount("acct-pk", verifyd.EnvProduction, "pk@example.com", oddClock)
	a.PasswordHash = "" // a passkey-only account
	p := newPasskey(verifyd.EnvProduction, a.ID, 1, oddClock)
	if err := s.CreateAgeAccountWithPasskey(ctx, a, p); err != nil {
		t.Fatalf("CreateAgeAccountWithPasskey: %v", err)
	}
	got, err := s.AgeAccountByEmail(ctx, verifyd.EnvProduction, a.Email)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "passkey-only account", got, a)
	pk, err := s.AgePasskey(ctx, verifyd.EnvProduction, p.CredentialID)
	if err != nil {
		t.Fatalf("AgePasskey: %v", err)
	}
	assertEqual(t, "AgePasskey", pk, p)
	list, err := s.AgePasskeys(ctx, verifyd.EnvProduction, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "AgePasskeys", list, []verifyd.AgePasskey{p})
}

func testAgePasskeyAtomic(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := newAgeAccount("acct-1", verifyd.EnvProduction, "one@example.com", clock)
	p := newPasskey(verifyd.EnvProduction, a.ID, 1, clock)
	if err := s.CreateAgeAccountWithPasskey(ctx, a, p); err != nil {
		t.Fatal(err)
	}
	// The same credential for another new account: refused, and the
	// account is not created either.
	b := newAgeAccount("acct-2", verifyd.EnvProduction, "two@example.com", clock)
	if err := s.CreateAgeAccountWithPasskey(ctx, b, newPasskey(verifyd.EnvProduction, b.ID, 1, clock)); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("a used credential id: %v, want EConflict", err)
	}
	_, err := s.AgeAccount(ctx, verifyd.EnvProduction, b.ID)
	assertNotFound(t, "account of a refused passkey sign-up", err)
	// A used address: refused, and the passkey is not stored.
	c := newAgeAccount("acct-3", verifyd.EnvProduction, "one@example.com", clock)
	if err := s.CreateAgeAccountWithPasskey(ctx, c, newPasskey(verifyd.EnvProduction, c.ID, 3, clock)); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("a used address: %v, want EConflict", err)
	}
	_, err = s.AgePasskey(ctx, verifyd.EnvProduction, newPasskey(verifyd.EnvProduction, c.ID, 3, clock).CredentialID)
	assertNotFound(t, "passkey of a refused sign-up", err)
}

func testAgePasskeyAddAndUse(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := newAgeAccount("acct-pw", verifyd.EnvSandbox, "pw@example.com", clock)
	mustCreateAgeAccount(t, ctx, s, a)
	first, second := newPasskey(verifyd.EnvSandbox, a.ID, 1, at(time.Minute)), newPasskey(verifyd.EnvSandbox, a.ID, 2, at(time.Hour))
	for _, p := range []verifyd.AgePasskey{second, first} {
		if err := s.AddAgePasskey(ctx, p); err != nil {
			t.Fatalf("AddAgePasskey: %v", err)
		}
	}
	if err := s.AddAgePasskey(ctx, first); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("adding a passkey twice: %v, want EConflict", err)
	}
	assertNotFound(t, "AddAgePasskey to an unknown account", s.AddAgePasskey(ctx, newPasskey(verifyd.EnvSandbox, "nobody", 9, clock)))
	list, err := s.AgePasskeys(ctx, verifyd.EnvSandbox, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "AgePasskeys oldest first", list, []verifyd.AgePasskey{first, second})
	used := at(2 * time.Hour)
	if err := s.UseAgePasskey(ctx, verifyd.EnvSandbox, first.CredentialID, []byte(`{"signCount":7}`), used); err != nil {
		t.Fatalf("UseAgePasskey: %v", err)
	}
	got, err := s.AgePasskey(ctx, verifyd.EnvSandbox, first.CredentialID)
	if err != nil {
		t.Fatal(err)
	}
	want := first
	want.Credential, want.LastUsedAt = []byte(`{"signCount":7}`), &used
	assertEqual(t, "passkey after a login", got, want)
	assertNotFound(t, "UseAgePasskey of an unknown one", s.UseAgePasskey(ctx, verifyd.EnvSandbox, []byte{42}, nil, used))
}

func testAgePasskeyPerEnvironment(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := newAgeAccount("acct-env", verifyd.EnvProduction, "env@example.com", clock)
	p := newPasskey(verifyd.EnvProduction, a.ID, 1, clock)
	if err := s.CreateAgeAccountWithPasskey(ctx, a, p); err != nil {
		t.Fatal(err)
	}
	_, err := s.AgePasskey(ctx, verifyd.EnvSandbox, p.CredentialID)
	assertNotFound(t, "a production passkey from the sandbox", err)
	assertNotFound(t, "adding to a production account from the sandbox",
		s.AddAgePasskey(ctx, newPasskey(verifyd.EnvSandbox, a.ID, 2, clock)))
}

func testAgePasskeyDeleted(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := newAgeAccount("acct-del", verifyd.EnvProduction, "del@example.com", clock)
	p := newPasskey(verifyd.EnvProduction, a.ID, 1, clock)
	if err := s.CreateAgeAccountWithPasskey(ctx, a, p); err != nil {
		t.Fatal(err)
	}
	got, err := s.DeleteAgeAccount(ctx, verifyd.AgeAccountDeletion{Environment: verifyd.EnvProduction, AccountID: a.ID,
		SessionRealm: ageRealm, At: clock})
	if err != nil || got.Passkeys != 1 {
		t.Fatalf("DeleteAgeAccount: %+v, %v; want one passkey deleted", got, err)
	}
	_, err = s.AgePasskey(ctx, verifyd.EnvProduction, p.CredentialID)
	assertNotFound(t, "passkey of a deleted account", err)
}
