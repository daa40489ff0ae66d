package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// --- age-flow accounts and proofs -------------------------------------------

// ageAccountTests are the AgeAccountStore contract's tests.
var ageAccountTests = map[string]func(*testing.T, context.Context, verifyd.Store){
	"AccountRoundTrip":              testAgeAccountRoundTrip,
	"AccountEmailUniquePerEnv":      testAgeAccountUniquePerEnv,
	"AccountConcurrentCreateOne":    testAgeAccountConcurrentCreate,
	"AccountNotFound":               testAgeAccountNotFound,
	"AccountSetPasswordHash":        testAgeAccountSetPasswordHash,
	"ProofRoundTrip":                testAgeProofRoundTrip,
	"ProofDecideOnce":               testAgeProofDecideOnce,
	"ProofsNewestFirstPerAccount":   testAgeProofsNewestFirst,
	"ProofWithoutAccountOrIdentity": testAgeProofWithoutAccount,
}

func newAgeAccount(id string, env verifyd.Environment, email string, created time.Time) verifyd.AgeAccount {
	return verifyd.AgeAccount{ID: id, Environment: env, Email: email, PasswordHash: testPHC + "/" + id, CreatedAt: created}
}

func mustCreateAgeAccount(t *testing.T, ctx context.Context, s verifyd.Store, a verifyd.AgeAccount) {
	t.Helper()
	if err := s.CreateAgeAccount(ctx, a); err != nil {
		t.Fatalf("CreateAgeAccount(%s): %v", a.ID, err)
	}
}

func testAgeAccountRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := newAgeAccount("7c1e0d4a-1b2c-4d3e-8f40-5a6b7c8d9e01", verifyd.EnvProduction, "ada@example.com", oddClock)
	mustCreateAgeAccount(t, ctx, s, a)
	got, err := s.AgeAccount(ctx, verifyd.EnvProduction, a.ID)
	if err != nil {
		t.Fatalf("AgeAccount: %v", err)
	}
	assertEqual(t, "AgeAccount", got, a)
	got, err = s.AgeAccountByEmail(ctx, verifyd.EnvProduction, "ada@example.com")
	if err != nil {
		t.Fatalf("AgeAccountByEmail: %v", err)
	}
	assertEqual(t, "AgeAccountByEmail", got, a)
	// Accounts never cross environments.
	_, err = s.AgeAccount(ctx, verifyd.EnvSandbox, a.ID)
	assertNotFound(t, "AgeAccount of the other environment", err)
	_, err = s.AgeAccountByEmail(ctx, verifyd.EnvSandbox, "ada@example.com")
	assertNotFound(t, "AgeAccountByEmail in the other environment", err)
}

func testAgeAccountUniquePerEnv(t *testing.T, ctx context.Context, s verifyd.Store) {
	mustCreateAgeAccount(t, ctx, s, newAgeAccount("a1", verifyd.EnvProduction, "ada@example.com", clock))
	err := s.CreateAgeAccount(ctx, newAgeAccount("a2", verifyd.EnvProduction, "ada@example.com", clock))
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("second account with the same address: err = %v, want EConflict", err)
	}
	// The same address in the sandbox is another account.
	mustCreateAgeAccount(t, ctx, s, newAgeAccount("a3", verifyd.EnvSandbox, "ada@example.com", clock))
}

func testAgeAccountConcurrentCreate(t *testing.T, ctx context.Context, s verifyd.Store) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.CreateAgeAccount(ctx, newAgeAccount("c"+string(rune('a'+i)), verifyd.EnvSandbox, "same@example.com", clock))
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch verifyd.ErrorCodeOf(err) {
		case "":
			ok++
		case verifyd.EConflict:
		default:
			t.Errorf("concurrent create: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d concurrent creates with one address succeeded, want 1", ok, n)
	}
}

func testAgeAccountNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	_, err := s.AgeAccount(ctx, verifyd.EnvProduction, "nobody")
	assertNotFound(t, "AgeAccount", err)
	_, err = s.AgeAccountByEmail(ctx, verifyd.EnvProduction, "nobody@example.com")
	assertNotFound(t, "AgeAccountByEmail", err)
	assertNotFound(t, "SetAgePasswordHash", s.SetAgePasswordHash(ctx, verifyd.EnvProduction, "nobody", testPHC))
	_, err = s.AgeProof(ctx, verifyd.EnvProduction, "nothing")
	assertNotFound(t, "AgeProof", err)
	_, err = s.DecideAgeProof(ctx, "nothing", verifyd.AgeResultAdult, clock)
	assertNotFound(t, "DecideAgeProof", err)
}

func testAgeAccountSetPasswordHash(t *testing.T, ctx context.Context, s verifyd.Store) {
	a := newAgeAccount("a1", verifyd.EnvProduction, "ada@example.com", clock)
	mustCreateAgeAccount(t, ctx, s, a)
	if err := s.SetAgePasswordHash(ctx, verifyd.EnvSandbox, a.ID, "other"); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
		t.Fatalf("SetAgePasswordHash in the other environment: %v, want not found", err)
	}
	if err := s.SetAgePasswordHash(ctx, verifyd.EnvProduction, a.ID, testPHC+"/new"); err != nil {
		t.Fatal(err)
	}
	got, err := s.AgeAccount(ctx, verifyd.EnvProduction, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.PasswordHash != testPHC+"/new" {
		t.Fatalf("hash = %q after SetAgePasswordHash", got.PasswordHash)
	}
}

// ageProofFixture stores a business with a sandbox identity verification and
// an account, and returns a pending document proof linking them.
func ageProofFixture(t *testing.T, ctx context.Context, s verifyd.Store, env verifyd.Environment) verifyd.AgeProof {
	t.Helper()
	_, creds := createBusiness(t, ctx, s, "biz_age", clock)
	var cred verifyd.StoredCredential
	for _, c := range creds {
		if c.Interface == verifyd.InterfaceAge && c.Environment == env {
			cred = c
		}
	}
	v := hostedVerification("v-age", cred, clock)
	v.Webhook, v.RedirectURI, v.HostedTokenHash, v.SealedHostedToken = "", "", nil, nil
	if err := s.CreateVerification(ctx, v, nil); err != nil {
		t.Fatalf("CreateVerification: %v", err)
	}
	a := newAgeAccount("acct-1", env, "ada@example.com", clock)
	mustCreateAgeAccount(t, ctx, s, a)
	return verifyd.AgeProof{ID: "proof-1", Environment: env, AccountID: a.ID, Method: verifyd.AgeMethodDocument,
		Provider: "verifyd-document", Result: verifyd.AgeResultPending, IdentityVerificationID: v.ID,
		BusinessID: cred.BusinessID, RequestID: "req-1", Country: "de", CreatedAt: oddClock}
}

func testAgeProofRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	p := ageProofFixture(t, ctx, s, verifyd.EnvProduction)
	if err := s.CreateAgeProof(ctx, p); err != nil {
		t.Fatalf("CreateAgeProof: %v", err)
	}
	got, err := s.AgeProof(ctx, verifyd.EnvProduction, p.ID)
	if err != nil {
		t.Fatalf("AgeProof: %v", err)
	}
	assertEqual(t, "AgeProof", got, p)
	_, err = s.AgeProof(ctx, verifyd.EnvSandbox, p.ID)
	assertNotFound(t, "AgeProof of the other environment", err)
}

func testAgeProofDecideOnce(t *testing.T, ctx context.Context, s verifyd.Store) {
	p := ageProofFixture(t, ctx, s, verifyd.EnvSandbox)
	if err := s.CreateAgeProof(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DecideAgeProof(ctx, p.ID, verifyd.AgeResultPending, at(time.Minute)); verifyd.ErrorCodeOf(err) != verifyd.EInvalid {
		t.Fatalf("deciding as pending: %v, want EInvalid", err)
	}
	got, err := s.DecideAgeProof(ctx, p.ID, verifyd.AgeResultAdult, at(time.Minute))
	if err != nil {
		t.Fatalf("DecideAgeProof: %v", err)
	}
	want := p
	decided := at(time.Minute)
	want.Result, want.DecidedAt = verifyd.AgeResultAdult, &decided
	assertEqual(t, "decided proof", got, want)
	again, err := s.DecideAgeProof(ctx, p.ID, verifyd.AgeResultMinor, at(2*time.Minute))
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("second decision: %v, want EConflict", err)
	}
	assertEqual(t, "proof after a refused second decision", again, want)
}

func testAgeProofsNewestFirst(t *testing.T, ctx context.Context, s verifyd.Store) {
	p := ageProofFixture(t, ctx, s, verifyd.EnvSandbox)
	other := newAgeAccount("acct-2", verifyd.EnvSandbox, "grace@example.com", clock)
	mustCreateAgeAccount(t, ctx, s, other)
	var ids []string
	for i, acct := range []string{p.AccountID, other.ID, p.AccountID, p.AccountID} {
		q := p
		q.ID, q.AccountID, q.CreatedAt = "proof-"+string(rune('a'+i)), acct, at(time.Duration(i)*time.Hour)
		q.Method, q.Provider, q.IdentityVerificationID = verifyd.AgeMethodCreditCard, "sandbox-credit_card", ""
		if err := s.CreateAgeProof(ctx, q); err != nil {
			t.Fatal(err)
		}
		if acct == p.AccountID {
			ids = append([]string{q.ID}, ids...)
		}
	}
	got, err := s.AgeProofs(ctx, verifyd.EnvSandbox, p.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs []string
	for _, q := range got {
		gotIDs = append(gotIDs, q.ID)
	}
	assertEqual(t, "AgeProofs ids", gotIDs, ids)
	none, err := s.AgeProofs(ctx, verifyd.EnvProduction, p.AccountID)
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("AgeProofs in the other environment = %v, %v; want an empty list", none, err)
	}
}

func testAgeProofWithoutAccount(t *testing.T, ctx context.Context, s verifyd.Store) {
	p := ageProofFixture(t, ctx, s, verifyd.EnvSandbox)
	decided := at(time.Second)
	p.AccountID, p.IdentityVerificationID, p.Method, p.Provider = "", "", verifyd.AgeMethodSandbox, "sandbox"
	p.Result, p.DecidedAt = verifyd.AgeResultMinor, &decided
	if err := s.CreateAgeProof(ctx, p); err != nil {
		t.Fatalf("CreateAgeProof without account: %v", err)
	}
	got, err := s.AgeProof(ctx, verifyd.EnvSandbox, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "AgeProof without account", got, p)
}

// testTransitionWithoutWebhook: an internal verification (the age flow's
// document method has no webhook) changes status and keeps its history,
// but creates no webhook event and no delivery job.
func testTransitionWithoutWebhook(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_internal", prod, clock)
	v.Webhook, v.RedirectURI, v.HostedTokenHash, v.SealedHostedToken = "", "", nil, nil
	mustCreateVerification(t, ctx, e, v, nil)
	history := []verifyd.StatusEvent{createdEntry(v)}
	for i, tr := range []verifyd.Transition{
		transition(v.ID, verifyd.StatusStarted, at(time.Second)),
		transition(v.ID, verifyd.StatusApproved, at(2*time.Second)),
	} {
		from := v.Status
		got := mustTransition(t, ctx, e, tr, "evt_internal_"+string(tr.To))
		v = applied(v, tr)
		assertEqual(t, "transition of an internal verification", got, v)
		history = append(history, historyEntry(i+2, from, tr))
		if _, err := e.WebhookEvent(ctx, "evt_internal_"+string(tr.To)); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
			t.Errorf("webhook event of an internal verification: err = %v, want not found", err)
		}
		if jobs := e.jobsFor("evt_internal_" + string(tr.To)); len(jobs) != 0 {
			t.Errorf("delivery jobs of an internal verification: %v", jobs)
		}
	}
	assertHistory(t, ctx, e, "internal verification", v.ID, history)
	if events := mustWebhookEvents(t, ctx, e, verifyd.WebhookFilter{VerificationID: v.ID}); len(events) != 0 {
		t.Errorf("webhook events of an internal verification: %v", events)
	}
}
