package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// ageDeleteTests check AgeAccountStore.DeleteAgeAccount (account deletion,
// docs/age.md).
var ageDeleteTests = map[string]func(*testing.T, context.Context, *env){
	"ErasesTheAccountAndWhatIsTiedToIt":      testAgeDeleteErases,
	"UnknownAccountChangesNothing":           testAgeDeleteUnknown,
	"AddressIsFreeAgain":                     testAgeDeleteAddressFree,
	"EndsInternalVerificationsWithoutAProof": testAgeDeleteWithoutProof,
}

const ageRealm = "age-production"

func ageSession(t *testing.T, ctx context.Context, s verifyd.Store, label, realm, subject string) verifyd.WebSession {
	t.Helper()
	ws := newSession(label, realm, subject, clock)
	mustCreateSession(t, ctx, s, ws)
	return ws
}

// ageCodeFor completes a new authorize request with a code issued to an
// account and, when redeem, exchanges it for a token.
func ageCodeFor(t *testing.T, ctx context.Context, s verifyd.Store, cred verifyd.StoredCredential, label, account string, redeem bool) (verifyd.AgeCode, verifyd.AgeToken) {
	t.Helper()
	r := newAgeRequest("areq_"+label, cred, clock)
	mustCreateAgeRequest(t, ctx, s, r)
	c := newAgeCode(label, r, at(time.Minute))
	c.AccountID = account
	if err := s.CompleteAgeAuthRequest(ctx, r.ID, c); err != nil {
		t.Fatalf("CompleteAgeAuthRequest(%s): %v", label, err)
	}
	if !redeem {
		return c, verifyd.AgeToken{}
	}
	tok := newAgeToken(label, c, at(2*time.Minute))
	if _, err := s.RedeemAgeCode(ctx, c.Hash, tok); err != nil {
		t.Fatalf("RedeemAgeCode(%s): %v", label, err)
	}
	return c, tok
}

func testAgeDeleteErases(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	cred := ageFixture(t, ctx, e, "biz_oauth")
	ada := newAgeAccount("acct-ada", verifyd.EnvProduction, "ada@example.com", clock)
	bob := newAgeAccount("acct-bob", verifyd.EnvProduction, "bob@example.com", clock)
	mustCreateAgeAccount(t, ctx, e, ada)
	mustCreateAgeAccount(t, ctx, e, bob)

	// Ada's internal verifications: one waiting for review, one decided.
	review := internalVerification("vrf_review", prod, clock)
	review.Customer = verifyd.Customer{ID: ada.ID, Email: ada.Email}
	mustCreateVerification(t, ctx, e, review, newImages("vrf_review"))
	mustTransition(t, ctx, e, transition(review.ID, verifyd.StatusStarted, at(time.Second)), "evt_review_started")
	if _, err := e.RecordCheckRun(ctx, verifyd.CheckRun{VerificationID: review.ID, At: at(time.Minute), Outcome: "review",
		SealedResults: opaque("vrf_review/evidence", 300)}, verifyd.ReviewPending, digest("vrf_review/document")); err != nil {
		t.Fatalf("RecordCheckRun: %v", err)
	}
	done := internalVerification("vrf_done", prod, clock)
	done.Customer = verifyd.Customer{ID: ada.ID, Email: ada.Email}
	mustCreateVerification(t, ctx, e, done, nil)
	mustTransition(t, ctx, e, transition(done.ID, verifyd.StatusStarted, at(time.Second)), "evt_done_started")
	mustTransition(t, ctx, e, transition(done.ID, verifyd.StatusApproved, at(time.Minute)), "evt_done_approved")
	jobsBefore := len(e.purgeJobs())

	proof := func(id, account, verification string) verifyd.AgeProof {
		p := verifyd.AgeProof{ID: id, Environment: verifyd.EnvProduction, AccountID: account, Method: verifyd.AgeMethodCreditCard,
			Provider: "sim", Result: verifyd.AgeResultAdult, BusinessID: prod.BusinessID, RequestID: "req-" + id, Country: "gb",
			CreatedAt: clock, DecidedAt: &clock}
		if verification != "" {
			p.Method, p.Provider, p.Result, p.DecidedAt, p.IdentityVerificationID = verifyd.AgeMethodDocument, "verifyd-document",
				verifyd.AgeResultPending, nil, verification
		}
		if err := e.CreateAgeProof(ctx, p); err != nil {
			t.Fatalf("CreateAgeProof(%s): %v", id, err)
		}
		return p
	}
	proof("p-ada-review", ada.ID, review.ID)
	proof("p-ada-done", ada.ID, done.ID)
	proof("p-ada-card", ada.ID, "")
	bobProof := proof("p-bob", bob.ID, "")

	for _, acct := range []string{ada.ID, bob.ID} {
		if err := e.GrantAgeConsent(ctx, verifyd.AgeConsent{Environment: verifyd.EnvProduction, AccountID: acct,
			BusinessID: prod.BusinessID, GrantedAt: clock}); err != nil {
			t.Fatalf("GrantAgeConsent(%s): %v", acct, err)
		}
	}

	adaPhone := ageSession(t, ctx, e, "ada phone", ageRealm, ada.ID)
	ageSession(t, ctx, e, "ada laptop", ageRealm, ada.ID)
	sameSubjectOtherRealm := ageSession(t, ctx, e, "ada console", "console", ada.ID)
	bobSession := ageSession(t, ctx, e, "bob", ageRealm, bob.ID)

	adaUsed, adaToken := ageCodeFor(t, ctx, e, cred, "ada-used", ada.ID, true)
	adaUnused, _ := ageCodeFor(t, ctx, e, cred, "ada-unused", ada.ID, false)
	_, bobToken := ageCodeFor(t, ctx, e, cred, "bob", bob.ID, true)
	noAccount, _ := ageCodeFor(t, ctx, e, cred, "none", "", false)

	when := at(5 * time.Minute)
	got, err := e.DeleteAgeAccount(ctx, verifyd.AgeAccountDeletion{Environment: verifyd.EnvProduction, AccountID: ada.ID,
		SessionRealm: ageRealm, At: when})
	if err != nil {
		t.Fatalf("DeleteAgeAccount: %v", err)
	}
	assertEqual(t, "deletion", got, verifyd.AgeAccountDeleted{Sessions: 2, Proofs: 3, Consents: 1, RevokedTokens: 1, ExpiredCodes: 1,
		Verifications: []string{"vrf_done", "vrf_review"}, Ended: 1})

	// The account and its proofs are gone; Bob's are not.
	if _, err := e.AgeAccount(ctx, verifyd.EnvProduction, ada.ID); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
		t.Errorf("account after deletion: %v", err)
	}
	if _, err := e.AgeAccountByEmail(ctx, verifyd.EnvProduction, ada.Email); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
		t.Errorf("account by e-mail after deletion: %v", err)
	}
	if proofs, err := e.AgeProofs(ctx, verifyd.EnvProduction, ada.ID); err != nil || len(proofs) != 0 {
		t.Errorf("proofs after deletion: %v, %v", proofs, err)
	}
	if p, err := e.AgeProof(ctx, verifyd.EnvProduction, bobProof.ID); err != nil {
		t.Errorf("another account's proof: %v", err)
	} else {
		assertEqual(t, "another account's proof", p, bobProof)
	}
	if cs, err := e.AgeConsents(ctx, verifyd.EnvProduction, ada.ID); err != nil || len(cs) != 0 {
		t.Errorf("consents after deletion: %v, %v", cs, err)
	}
	if _, err := e.AgeConsent(ctx, verifyd.EnvProduction, bob.ID, prod.BusinessID); err != nil {
		t.Errorf("another account's consent after a deletion: %v", err)
	}
	// Sessions: Ada's age sessions are gone, others stay.
	if _, err := e.Session(ctx, adaPhone.TokenHash); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
		t.Errorf("session after deletion: %v", err)
	}
	for _, ws := range []verifyd.WebSession{sameSubjectOtherRealm, bobSession} {
		if _, err := e.Session(ctx, ws.TokenHash); err != nil {
			t.Errorf("session %s/%s after another deletion: %v", ws.Realm, ws.Subject, err)
		}
	}
	// Tokens revoked, the unused code expired, the link to the account
	// removed; another account's and a code of no account untouched.
	if tok, err := e.AgeToken(ctx, adaToken.Hash); err != nil || tok.RevokedAt == nil || !tok.RevokedAt.Equal(when) {
		t.Errorf("Ada's token after deletion: %+v, %v; want revoked at %v", tok, err, when)
	}
	if tok, err := e.AgeToken(ctx, bobToken.Hash); err != nil || tok.RevokedAt != nil {
		t.Errorf("Bob's token after Ada's deletion: %+v, %v", tok, err)
	}
	for _, c := range []verifyd.AgeCode{adaUsed, adaUnused} {
		stored, err := e.AgeCode(ctx, c.Hash)
		if err != nil || stored.AccountID != "" {
			t.Errorf("code %s after deletion: account %q, %v", c.VerificationID, stored.AccountID, err)
		}
	}
	if c, _ := e.AgeCode(ctx, adaUnused.Hash); !c.ExpiresAt.Equal(when) {
		t.Errorf("unused code expires at %v, want %v", c.ExpiresAt, when)
	}
	if c, _ := e.AgeCode(ctx, adaUsed.Hash); !c.ExpiresAt.Equal(adaUsed.ExpiresAt) {
		t.Errorf("used code's expiry changed to %v", c.ExpiresAt)
	}
	if _, err := e.RedeemAgeCode(ctx, adaUnused.Hash, newAgeToken("late", adaUnused, at(6*time.Minute))); err != verifyd.ErrCodeSpent {
		t.Errorf("redeeming the unused code after deletion: %v, want ErrCodeSpent", err)
	}
	if c, err := e.AgeCode(ctx, noAccount.Hash); err != nil {
		t.Errorf("code of no account: %v", err)
	} else {
		assertEqual(t, "code of no account", c, noAccount)
	}
	// Verifications: no customer left; the one under way ended as expired,
	// out of the review queue, with its purge job; the decided one keeps
	// its status (its purge job came with the decision).
	for _, id := range []string{review.ID, done.ID} {
		v, err := e.VerificationByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Customer.ID != "" || v.Customer.Email != "" {
			t.Errorf("%s keeps customer %+v", id, v.Customer)
		}
	}
	v, _ := e.VerificationByID(ctx, review.ID)
	if v.Status != verifyd.StatusExpired || v.Review != verifyd.ReviewDecided || !v.UpdatedAt.Equal(when) {
		t.Errorf("verification under way after deletion: status %s, review %s, updated %v", v.Status, v.Review, v.UpdatedAt)
	}
	events, err := e.StatusEvents(ctx, review.ID)
	if err != nil || len(events) == 0 {
		t.Fatalf("StatusEvents: %v, %v", events, err)
	}
	if last := events[len(events)-1]; last.From != verifyd.StatusStarted || last.To != verifyd.StatusExpired ||
		last.Cause != verifyd.CauseAccountDeleted || !last.At.Equal(when) {
		t.Errorf("last history entry %+v, want started → expired, account_deleted", last)
	}
	if v, _ := e.VerificationByID(ctx, done.ID); v.Status != verifyd.StatusApproved {
		t.Errorf("decided verification became %s", v.Status)
	}
	// A pipeline run that was under way when the account was deleted is
	// not recorded: the ended verification stays out of the review queue.
	assertLateRunRefused(t, ctx, e, "after the account's deletion", review.ID)
	if v, _ := e.VerificationByID(ctx, review.ID); v.Review != verifyd.ReviewDecided || v.Submissions != 1 {
		t.Errorf("ended verification after a late run: review %s, submissions %d", v.Review, v.Submissions)
	}
	jobs := e.purgeJobs()
	if len(jobs) != jobsBefore+1 || !slices.ContainsFunc(jobs, func(j Job) bool { return j.Subject == review.ID }) {
		t.Errorf("purge jobs %v, want one more for %s", jobs, review.ID)
	}
}

func testAgeDeleteUnknown(t *testing.T, ctx context.Context, e *env) {
	a := newAgeAccount("acct-1", verifyd.EnvProduction, "ada@example.com", clock)
	mustCreateAgeAccount(t, ctx, e, a)
	ws := ageSession(t, ctx, e, "ada", ageRealm, a.ID)
	for name, d := range map[string]verifyd.AgeAccountDeletion{
		"unknown id":        {Environment: verifyd.EnvProduction, AccountID: "acct-nobody", SessionRealm: ageRealm, At: clock},
		"other environment": {Environment: verifyd.EnvSandbox, AccountID: a.ID, SessionRealm: "age-sandbox", At: clock},
	} {
		if _, err := e.DeleteAgeAccount(ctx, d); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
			t.Errorf("%s: err = %v, want not found", name, err)
		}
	}
	if _, err := e.AgeAccount(ctx, verifyd.EnvProduction, a.ID); err != nil {
		t.Errorf("account after refused deletions: %v", err)
	}
	if _, err := e.Session(ctx, ws.TokenHash); err != nil {
		t.Errorf("session after refused deletions: %v", err)
	}
	// A second deletion of the same account finds nobody.
	d := verifyd.AgeAccountDeletion{Environment: verifyd.EnvProduction, AccountID: a.ID, SessionRealm: ageRealm, At: clock}
	if _, err := e.DeleteAgeAccount(ctx, d); err != nil {
		t.Fatalf("DeleteAgeAccount: %v", err)
	}
	if _, err := e.DeleteAgeAccount(ctx, d); verifyd.ErrorCodeOf(err) != verifyd.ENotFound {
		t.Errorf("second deletion: err = %v, want not found", err)
	}
}

func testAgeDeleteAddressFree(t *testing.T, ctx context.Context, e *env) {
	a := newAgeAccount("acct-old", verifyd.EnvProduction, "ada@example.com", clock)
	mustCreateAgeAccount(t, ctx, e, a)
	if _, err := e.DeleteAgeAccount(ctx, verifyd.AgeAccountDeletion{Environment: verifyd.EnvProduction, AccountID: a.ID,
		SessionRealm: ageRealm, At: clock}); err != nil {
		t.Fatalf("DeleteAgeAccount: %v", err)
	}
	b := newAgeAccount("acct-new", verifyd.EnvProduction, "ada@example.com", at(time.Hour))
	mustCreateAgeAccount(t, ctx, e, b)
	got, err := e.AgeAccountByEmail(ctx, verifyd.EnvProduction, "ada@example.com")
	if err != nil || got.ID != b.ID {
		t.Fatalf("account by e-mail after sign-up again: %+v, %v", got, err)
	}
}

// testAgeDeleteWithoutProof: an internal verification created for the
// account (its customer id is the account's) whose proof row is missing is
// found too, cleared and ended; the identity API's verifications with the
// same customer id, another environment's and another account's are not.
func testAgeDeleteWithoutProof(t *testing.T, ctx context.Context, e *env) {
	prod, sandbox := verificationFixture(t, ctx, e)
	ada := newAgeAccount("acct-ada", verifyd.EnvProduction, "ada@example.com", clock)
	bob := newAgeAccount("acct-bob", verifyd.EnvProduction, "bob@example.com", clock)
	mustCreateAgeAccount(t, ctx, e, ada)
	mustCreateAgeAccount(t, ctx, e, bob)
	internalFor := func(id string, cred verifyd.StoredCredential, a verifyd.AgeAccount) verifyd.Verification {
		v := internalVerification(id, cred, clock)
		v.Customer = verifyd.Customer{ID: a.ID, Email: a.Email}
		mustCreateVerification(t, ctx, e, v, nil)
		return v
	}

	// Ada's: one started and waiting for review, one still pending.
	started := internalFor("vrf_orphan_started", prod, ada)
	mustTransition(t, ctx, e, transition(started.ID, verifyd.StatusStarted, at(time.Second)), "evt_orphan_started")
	if _, err := e.RecordCheckRun(ctx, verifyd.CheckRun{VerificationID: started.ID, At: at(time.Minute), Outcome: "review",
		SealedResults: opaque("vrf_orphan_started/evidence", 300)}, verifyd.ReviewPending, nil); err != nil {
		t.Fatalf("RecordCheckRun: %v", err)
	}
	pending := internalFor("vrf_orphan_pending", prod, ada)

	// Not Ada's: the identity API's with her id as customer id, a sandbox
	// internal one with her id, and Bob's.
	api := pendingVerification("vrf_api_same_customer", prod, clock)
	api.Customer = verifyd.Customer{ID: ada.ID, Email: ada.Email}
	mustCreateVerification(t, ctx, e, api, nil)
	other := internalFor("vrf_sandbox_same_customer", sandbox, ada)
	bobs := internalFor("vrf_bob", prod, bob)
	jobsBefore := len(e.purgeJobs())

	when := at(5 * time.Minute)
	got, err := e.DeleteAgeAccount(ctx, verifyd.AgeAccountDeletion{Environment: verifyd.EnvProduction, AccountID: ada.ID,
		SessionRealm: ageRealm, At: when})
	if err != nil {
		t.Fatalf("DeleteAgeAccount: %v", err)
	}
	assertEqual(t, "deletion", got, verifyd.AgeAccountDeleted{
		Verifications: []string{pending.ID, started.ID}, Ended: 2})

	for _, c := range []struct {
		v      verifyd.Verification
		from   verifyd.Status
		review verifyd.ReviewState
	}{{started, verifyd.StatusStarted, verifyd.ReviewDecided}, {pending, verifyd.StatusPending, verifyd.ReviewNone}} {
		v, err := e.VerificationByID(ctx, c.v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Customer != (verifyd.Customer{}) {
			t.Errorf("%s keeps customer %+v", v.ID, v.Customer)
		}
		if v.Status != verifyd.StatusExpired || v.Review != c.review || !v.UpdatedAt.Equal(when) {
			t.Errorf("%s after deletion: status %s, review %s, updated %v", v.ID, v.Status, v.Review, v.UpdatedAt)
		}
		events := mustStatusEvents(t, ctx, e, v.ID)
		if last := events[len(events)-1]; last.From != c.from || last.To != verifyd.StatusExpired ||
			last.Cause != verifyd.CauseAccountDeleted || !last.At.Equal(when) {
			t.Errorf("%s: last history entry %+v, want %s → expired, account_deleted", v.ID, last, c.from)
		}
	}
	assertLateRunRefused(t, ctx, e, "after the account's deletion", started.ID)
	jobs := e.purgeJobs()
	for _, id := range []string{started.ID, pending.ID} {
		if !slices.ContainsFunc(jobs, func(j Job) bool { return j.Subject == id }) {
			t.Errorf("no purge job for %s: %v", id, jobs)
		}
	}
	if len(jobs) != jobsBefore+2 {
		t.Errorf("purge jobs %v, want two more", jobs)
	}
	for _, v := range []verifyd.Verification{api, other, bobs} {
		assertStored(t, ctx, e, "verification not of the deleted account", v)
	}
}
