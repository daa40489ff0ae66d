package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// ageMailTests are the AgeMailStore contract's tests.
var ageMailTests = map[string]func(*testing.T, context.Context, verifyd.Store){
	"TokenUsedOnce":           testAgeMailUsedOnce,
	"TokenPurposeEnvExpiry":   testAgeMailScope,
	"ConcurrentUsesOneWins":   testAgeMailConcurrent,
	"ExpiredTokensCleanedUp":  testAgeMailCleanup,
	"ConfirmEmail":            testAgeMailConfirm,
	"DeletedWithTheAccount":   testAgeMailDeleted,
	"UnknownAccountIsRefused": testAgeMailUnknownAccount,
}

func mailToken(acct verifyd.AgeAccount, purpose verifyd.AgeMailPurpose, label string, created time.Time) verifyd.AgeMailToken {
	return verifyd.AgeMailToken{Hash: digest(label), Environment: acct.Environment, AccountID: acct.ID, Purpose: purpose,
		Email: acct.Email, CreatedAt: created, ExpiresAt: created.Add(time.Hour)}
}

func mustMailToken(t *testing.T, ctx context.Context, s verifyd.Store, tok verifyd.AgeMailToken) {
	t.Helper()
	if err := s.CreateAgeMailToken(ctx, tok); err != nil {
		t.Fatalf("CreateAgeMailToken: %v", err)
	}
}

func mailAccount(t *testing.T, ctx context.Context, s verifyd.Store, env verifyd.Environment) verifyd.AgeAccount {
	t.Helper()
	a := newAgeAccount("acct-mail-"+string(env), env, "mail@example.com", clock)
	mustCreateAgeAccount(t, ctx, s, a)
	return a
}

func testAgeMailUsedOnce(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := mailAccount(t, ctx, s, verifyd.EnvProduction)
	tok := mailToken(a, verifyd.AgeMailReset, "reset", oddClock)
	mustMailToken(t, ctx, s, tok)
	peek, err := s.AgeMailToken(ctx, a.Environment, verifyd.AgeMailReset, tok.Hash, oddClock.Add(time.Minute))
	if err != nil {
		t.Fatalf("AgeMailToken: %v", err)
	}
	assertEqual(t, "AgeMailToken", peek, tok)
	used := oddClock.Add(2 * time.Minute)
	got, err := s.UseAgeMailToken(ctx, a.Environment, verifyd.AgeMailReset, tok.Hash, used)
	if err != nil {
		t.Fatalf("UseAgeMailToken: %v", err)
	}
	want := tok
	want.UsedAt = &used
	assertEqual(t, "used token", got, want)
	_, err = s.UseAgeMailToken(ctx, a.Environment, verifyd.AgeMailReset, tok.Hash, used)
	assertNotFound(t, "a token used twice", err)
	_, err = s.AgeMailToken(ctx, a.Environment, verifyd.AgeMailReset, tok.Hash, used)
	assertNotFound(t, "peeking at a used token", err)
}

func testAgeMailScope(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := mailAccount(t, ctx, s, verifyd.EnvSandbox)
	tok := mailToken(a, verifyd.AgeMailDelete, "delete", clock)
	mustMailToken(t, ctx, s, tok)
	for name, try := range map[string]func() error{
		"another purpose": func() error {
			_, err := s.UseAgeMailToken(ctx, a.Environment, verifyd.AgeMailReset, tok.Hash, at(time.Minute))
			return err
		},
		"the other environment": func() error {
			_, err := s.UseAgeMailToken(ctx, verifyd.EnvProduction, verifyd.AgeMailDelete, tok.Hash, at(time.Minute))
			return err
		},
		"at its expiry": func() error {
			_, err := s.UseAgeMailToken(ctx, a.Environment, verifyd.AgeMailDelete, tok.Hash, tok.ExpiresAt)
			return err
		},
		"peek after expiry": func() error {
			_, err := s.AgeMailToken(ctx, a.Environment, verifyd.AgeMailDelete, tok.Hash, tok.ExpiresAt.Add(time.Second))
			return err
		},
		"an unknown token": func() error {
			_, err := s.UseAgeMailToken(ctx, a.Environment, verifyd.AgeMailDelete, digest("nothing"), at(time.Minute))
			return err
		},
	} {
		assertNotFound(t, name, try())
	}
	// None of the refusals used it.
	if _, err := s.UseAgeMailToken(ctx, a.Environment, verifyd.AgeMailDelete, tok.Hash, at(time.Minute)); err != nil {
		t.Fatalf("the token after refused uses: %v", err)
	}
}

func testAgeMailConcurrent(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := mailAccount(t, ctx, s, verifyd.EnvProduction)
	tok := mailToken(a, verifyd.AgeMailCode, "code", clock)
	mustMailToken(t, ctx, s, tok)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.UseAgeMailToken(ctx, a.Environment, verifyd.AgeMailCode, tok.Hash, at(time.Minute))
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case verifyd.ErrorCodeOf(err) != verifyd.ENotFound:
			t.Errorf("concurrent use: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d concurrent uses succeeded, want 1", ok, n)
	}
}

func testAgeMailCleanup(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := mailAccount(t, ctx, s, verifyd.EnvProduction)
	old := mailToken(a, verifyd.AgeMailConfirm, "old", clock) // expires at clock+1h
	mustMailToken(t, ctx, s, old)
	// Created more than an hour after the old one expired: it is deleted,
	// so it cannot even be peeked at with an earlier clock.
	mustMailToken(t, ctx, s, mailToken(a, verifyd.AgeMailConfirm, "new", at(3*time.Hour)))
	_, err := s.AgeMailToken(ctx, a.Environment, verifyd.AgeMailConfirm, old.Hash, at(time.Minute))
	assertNotFound(t, "a long-expired token after a new one", err)
}

func testAgeMailConfirm(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := mailAccount(t, ctx, s, verifyd.EnvProduction)
	assertNotFound(t, "another address", s.ConfirmAgeEmail(ctx, a.Environment, a.ID, "other@example.com", clock))
	assertNotFound(t, "the other environment", s.ConfirmAgeEmail(ctx, verifyd.EnvSandbox, a.ID, a.Email, clock))
	first := at(time.Minute)
	if err := s.ConfirmAgeEmail(ctx, a.Environment, a.ID, a.Email, first); err != nil {
		t.Fatalf("ConfirmAgeEmail: %v", err)
	}
	if err := s.ConfirmAgeEmail(ctx, a.Environment, a.ID, a.Email, at(time.Hour)); err != nil {
		t.Fatalf("ConfirmAgeEmail again: %v", err)
	}
	got, err := s.AgeAccount(ctx, a.Environment, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := a
	want.EmailConfirmedAt = &first
	assertEqual(t, "confirmed account (the first confirmation kept)", got, want)
}

func testAgeMailDeleted(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := mailAccount(t, ctx, s, verifyd.EnvProduction)
	tok := mailToken(a, verifyd.AgeMailDelete, "delete", clock)
	mustMailToken(t, ctx, s, tok)
	got, err := s.DeleteAgeAccount(ctx, verifyd.AgeAccountDeletion{Environment: a.Environment, AccountID: a.ID,
		SessionRealm: ageRealm, At: at(time.Minute)})
	if err != nil || got.MailTokens != 1 {
		t.Fatalf("DeleteAgeAccount: %+v, %v; want one mail token deleted", got, err)
	}
	_, err = s.AgeMailToken(ctx, a.Environment, verifyd.AgeMailDelete, tok.Hash, at(time.Minute))
	assertNotFound(t, "a token of a deleted account", err)
}

func testAgeMailUnknownAccount(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := mailAccount(t, ctx, s, verifyd.EnvProduction)
	other := a
	other.ID = "nobody"
	assertNotFound(t, "a token of an unknown account", s.CreateAgeMailToken(ctx, mailToken(other, verifyd.AgeMailReset, "x", clock)))
	wrongEnv := a
	wrongEnv.Environment = verifyd.EnvSandbox
	assertNotFound(t, "a token of another environment's account", s.CreateAgeMailToken(ctx, mailToken(wrongEnv, verifyd.AgeMailReset, "y", clock)))
}
