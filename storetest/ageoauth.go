package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// --- age flow: authorize requests, codes, access tokens ---------------------

// ageOAuthTests are the AgeOAuthStore contract's tests.
var ageOAuthTests = map[string]func(*testing.T, context.Context, verifyd.Store){
	"RequestRoundTrip":          testAgeRequestRoundTrip,
	"RequestNotFound":           testAgeRequestNotFound,
	"CompleteStoresCode":        testAgeCompleteStoresCode,
	"CompleteOnce":              testAgeCompleteOnce,
	"CompleteUnknownOrExpired":  testAgeCompleteUnknownOrExpired,
	"ConcurrentCompleteOneWins": testAgeConcurrentComplete,
	"CodeNotFound":              testAgeCodeNotFound,
	"RedeemStoresToken":         testAgeRedeem,
	"RedeemOnce":                testAgeRedeemOnce,
	"RedeemExpiredOrUnknown":    testAgeRedeemExpiredOrUnknown,
	"ConcurrentRedeemOneWins":   testAgeConcurrentRedeem,
	"RevokeTokensOfCode":        testAgeRevokeTokens,
	"TokenNotFound":             testAgeTokenNotFound,
	"CreatePurgesExpired":       testAgePurge,
}

// ageFixture creates a business with its credentials and returns its age
// production credential.
func ageFixture(t *testing.T, ctx context.Context, s verifyd.Store, bizID string) verifyd.StoredCredential {
	t.Helper()
	_, creds := createBusiness(t, ctx, s, bizID, clock)
	for _, c := range creds {
		if c.Interface == verifyd.InterfaceAge && c.Environment == verifyd.EnvProduction {
			return c
		}
	}
	t.Fatal("no age production credential")
	return verifyd.StoredCredential{}
}

func newAgeRequest(id string, c verifyd.StoredCredential, created time.Time) verifyd.AgeAuthRequest {
	return verifyd.AgeAuthRequest{
		ID: id, BusinessID: c.BusinessID, Environment: c.Environment, ClientID: c.APIKey,
		RedirectURI: "https://shop.example/callback?from=verifyd&x=Ünïcode", State: "st/" + id + "?&=",
		UserID: "user-" + id, Country: "gb",
		CodeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", CodeChallengeMethod: "S256",
		CreatedAt: created, ExpiresAt: created.Add(30 * time.Minute),
	}
}

func newAgeCode(label string, r verifyd.AgeAuthRequest, created time.Time) verifyd.AgeCode {
	return verifyd.AgeCode{
		Hash: digest("code " + label), RequestID: r.ID, BusinessID: r.BusinessID, Environment: r.Environment,
		ClientID: r.ClientID, RedirectURI: r.RedirectURI, CodeChallenge: r.CodeChallenge,
		CodeChallengeMethod: r.CodeChallengeMethod, AgeVerified: true, VerificationID: "ver_" + label,
		Method: "document", CreatedAt: created, ExpiresAt: created.Add(10 * time.Minute),
	}
}

func newAgeToken(label string, c verifyd.AgeCode, created time.Time) verifyd.AgeToken {
	return verifyd.AgeToken{
		Hash: digest("token " + label), CodeHash: c.Hash, BusinessID: c.BusinessID, Environment: c.Environment,
		ClientID: c.ClientID, AgeVerified: c.AgeVerified, VerificationID: c.VerificationID,
		CreatedAt: created, ExpiresAt: created.Add(time.Hour),
	}
}

func mustCreateAgeRequest(t *testing.T, ctx context.Context, s verifyd.Store, r verifyd.AgeAuthRequest) {
	t.Helper()
	if err := s.CreateAgeAuthRequest(ctx, r, time.Time{}); err != nil { // purges nothing
		t.Fatalf("CreateAgeAuthRequest(%s): %v", r.ID, err)
	}
}

func mustCompleteAgeRequest(t *testing.T, ctx context.Context, s verifyd.Store, c verifyd.AgeCode) {
	t.Helper()
	if err := s.CompleteAgeAuthRequest(ctx, c.RequestID, c); err != nil {
		t.Fatalf("CompleteAgeAuthRequest(%s): %v", c.RequestID, err)
	}
}

func mustRedeem(t *testing.T, ctx context.Context, s verifyd.Store, tok verifyd.AgeToken) verifyd.AgeCode {
	t.Helper()
	c, err := s.RedeemAgeCode(ctx, tok.CodeHash, tok)
	if err != nil {
		t.Fatalf("RedeemAgeCode: %v", err)
	}
	return c
}

// completedRequest stores a request and completes it with a code.
func completedRequest(t *testing.T, ctx context.Context, s verifyd.Store, c verifyd.StoredCredential, id string, created time.Time) verifyd.AgeCode {
	t.Helper()
	r := newAgeRequest(id, c, created)
	mustCreateAgeRequest(t, ctx, s, r)
	code := newAgeCode(id, r, created.Add(time.Minute))
	mustCompleteAgeRequest(t, ctx, s, code)
	return code
}

func assertCodeSpent(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, verifyd.ErrCodeSpent) {
		t.Errorf("%s: got error %v, want verifyd.ErrCodeSpent", what, err)
	}
}

func testAgeRequestRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	r := newAgeRequest("areq_1", c, oddClock)
	mustCreateAgeRequest(t, ctx, s, r)
	got, err := s.AgeAuthRequest(ctx, r.ID)
	if err != nil {
		t.Fatalf("AgeAuthRequest: %v", err)
	}
	assertEqual(t, "AgeAuthRequest", got, r)

	// Without PKCE, state or user id: empty strings come back empty.
	bare := verifyd.AgeAuthRequest{ID: "areq_2", BusinessID: c.BusinessID, Environment: c.Environment,
		ClientID: c.APIKey, RedirectURI: "http://localhost:3000/cb", Country: "us",
		CreatedAt: clock, ExpiresAt: at(30 * time.Minute)}
	mustCreateAgeRequest(t, ctx, s, bare)
	got, err = s.AgeAuthRequest(ctx, bare.ID)
	if err != nil {
		t.Fatalf("AgeAuthRequest: %v", err)
	}
	assertEqual(t, "AgeAuthRequest without options", got, bare)

	if err := s.CreateAgeAuthRequest(ctx, r, clock); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Errorf("CreateAgeAuthRequest with an existing id: got %v, want an EConflict error", err)
	}
}

func testAgeRequestNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	_, err := s.AgeAuthRequest(ctx, "areq_absent")
	assertNotFound(t, "AgeAuthRequest of an unknown id", err)
}

func testAgeCompleteStoresCode(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	r := newAgeRequest("areq_1", c, clock)
	mustCreateAgeRequest(t, ctx, s, r)
	code := newAgeCode("one", r, oddClock)
	code.AgeVerified = false // a minor's outcome is stored as such
	mustCompleteAgeRequest(t, ctx, s, code)

	got, err := s.AgeCode(ctx, code.Hash)
	if err != nil {
		t.Fatalf("AgeCode: %v", err)
	}
	assertEqual(t, "AgeCode", got, code)
	stored, err := s.AgeAuthRequest(ctx, r.ID)
	if err != nil {
		t.Fatalf("AgeAuthRequest: %v", err)
	}
	done := code.CreatedAt
	r.CompletedAt = &done
	assertEqual(t, "completed AgeAuthRequest", stored, r)
}

func testAgeCompleteOnce(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	first := completedRequest(t, ctx, s, c, "areq_1", clock)
	again := newAgeCode("again", newAgeRequest("areq_1", c, clock), at(2*time.Minute))
	err := s.CompleteAgeAuthRequest(ctx, "areq_1", again)
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("second CompleteAgeAuthRequest: got %v, want an EConflict error", err)
	}
	_, err = s.AgeCode(ctx, again.Hash)
	assertNotFound(t, "code of the refused completion", err)
	if _, err := s.AgeCode(ctx, first.Hash); err != nil {
		t.Errorf("first code after a refused completion: %v", err)
	}
}

func testAgeCompleteUnknownOrExpired(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	r := newAgeRequest("areq_1", c, clock)
	mustCreateAgeRequest(t, ctx, s, r)

	ghost := newAgeCode("ghost", verifyd.AgeAuthRequest{ID: "areq_absent", BusinessID: c.BusinessID,
		Environment: c.Environment, ClientID: c.APIKey}, at(time.Minute))
	assertNotFound(t, "CompleteAgeAuthRequest of an unknown request", s.CompleteAgeAuthRequest(ctx, "areq_absent", ghost))

	late := newAgeCode("late", r, r.ExpiresAt) // expiry is exclusive
	assertNotFound(t, "CompleteAgeAuthRequest at the expiry", s.CompleteAgeAuthRequest(ctx, r.ID, late))
	_, err := s.AgeCode(ctx, late.Hash)
	assertNotFound(t, "code of the expired request", err)
	got, err := s.AgeAuthRequest(ctx, r.ID)
	if err != nil || got.CompletedAt != nil {
		t.Errorf("expired request after a refused completion: %+v, %v; want it unchanged", got, err)
	}

	// Just before the expiry it still works.
	mustCompleteAgeRequest(t, ctx, s, newAgeCode("in time", r, r.ExpiresAt.Add(-time.Microsecond)))
}

func testAgeConcurrentComplete(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	r := newAgeRequest("areq_1", c, clock)
	mustCreateAgeRequest(t, ctx, s, r)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = s.CompleteAgeAuthRequest(ctx, r.ID, newAgeCode(fmt.Sprint(i), r, at(time.Minute)))
		})
	}
	wg.Wait()
	wins := 0
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
			if _, err := s.AgeCode(ctx, digest("code "+fmt.Sprint(i))); err != nil {
				t.Errorf("winner's code: %v", err)
			}
		case verifyd.ErrorCodeOf(err) != verifyd.EConflict:
			t.Errorf("completion %d: %v, want success or EConflict", i, err)
		default:
			if _, err := s.AgeCode(ctx, digest("code "+fmt.Sprint(i))); !errors.Is(err, verifyd.ErrNotFound) {
				t.Errorf("loser %d's code is stored (%v)", i, err)
			}
		}
	}
	if wins != 1 {
		t.Errorf("%d concurrent completions succeeded, want exactly 1", wins)
	}
}

func testAgeCodeNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	_, err := s.AgeCode(ctx, digest("absent"))
	assertNotFound(t, "AgeCode of an unknown hash", err)
}

func testAgeRedeem(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	code := completedRequest(t, ctx, s, c, "areq_1", clock)
	tok := newAgeToken("one", code, oddClock)
	got, err := s.RedeemAgeCode(ctx, code.Hash, verifyd.AgeToken{
		Hash: tok.Hash, BusinessID: tok.BusinessID, Environment: tok.Environment, ClientID: tok.ClientID,
		AgeVerified: tok.AgeVerified, VerificationID: tok.VerificationID, CreatedAt: tok.CreatedAt, ExpiresAt: tok.ExpiresAt,
	}) // CodeHash left empty: the store sets it
	if err != nil {
		t.Fatalf("RedeemAgeCode: %v", err)
	}
	used := tok.CreatedAt
	code.UsedAt = &used
	assertEqual(t, "redeemed AgeCode", got, code)
	stored, err := s.AgeCode(ctx, code.Hash)
	if err != nil {
		t.Fatalf("AgeCode: %v", err)
	}
	assertEqual(t, "AgeCode after redemption", stored, code)
	gotTok, err := s.AgeToken(ctx, tok.Hash)
	if err != nil {
		t.Fatalf("AgeToken: %v", err)
	}
	assertEqual(t, "AgeToken", gotTok, tok)
}

func testAgeRedeemOnce(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	code := completedRequest(t, ctx, s, c, "areq_1", clock)
	first := newAgeToken("first", code, at(2*time.Minute))
	mustRedeem(t, ctx, s, first)
	second := newAgeToken("second", code, at(3*time.Minute))
	_, err := s.RedeemAgeCode(ctx, code.Hash, second)
	assertCodeSpent(t, "second RedeemAgeCode", err)
	_, err = s.AgeToken(ctx, second.Hash)
	assertNotFound(t, "token of the refused redemption", err)
	stored, err := s.AgeCode(ctx, code.Hash)
	if err != nil || stored.UsedAt == nil || !sameInstant(*stored.UsedAt, first.CreatedAt) {
		t.Errorf("code after a refused redemption: used at %v (%v), want the first redemption's time", stored.UsedAt, err)
	}
}

func testAgeRedeemExpiredOrUnknown(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	code := completedRequest(t, ctx, s, c, "areq_1", clock)
	late := newAgeToken("late", code, code.ExpiresAt) // expiry is exclusive
	_, err := s.RedeemAgeCode(ctx, code.Hash, late)
	assertCodeSpent(t, "RedeemAgeCode at the expiry", err)
	_, err = s.AgeToken(ctx, late.Hash)
	assertNotFound(t, "token of the expired code", err)
	if stored, err := s.AgeCode(ctx, code.Hash); err != nil || stored.UsedAt != nil {
		t.Errorf("expired code after a refused redemption: %+v, %v; want it unused", stored, err)
	}

	ghost := newAgeToken("ghost", verifyd.AgeCode{Hash: digest("absent"), BusinessID: c.BusinessID,
		Environment: c.Environment, ClientID: c.APIKey}, at(time.Minute))
	_, err = s.RedeemAgeCode(ctx, ghost.CodeHash, ghost)
	assertCodeSpent(t, "RedeemAgeCode of an unknown code", err)

	// Just before the expiry it still works.
	mustRedeem(t, ctx, s, newAgeToken("in time", code, code.ExpiresAt.Add(-time.Microsecond)))
}

// testAgeConcurrentRedeem exchanges one code from many goroutines at once:
// exactly one gets its token stored.
func testAgeConcurrentRedeem(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	code := completedRequest(t, ctx, s, c, "areq_1", clock)
	const n = 20
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = s.RedeemAgeCode(ctx, code.Hash, newAgeToken(fmt.Sprint(i), code, at(2*time.Minute)))
		})
	}
	close(start)
	wg.Wait()
	wins := 0
	for i, err := range errs {
		_, tokErr := s.AgeToken(ctx, digest("token "+fmt.Sprint(i)))
		switch {
		case err == nil:
			wins++
			if tokErr != nil {
				t.Errorf("winner %d's token: %v", i, tokErr)
			}
		case !errors.Is(err, verifyd.ErrCodeSpent):
			t.Errorf("redemption %d: %v, want success or ErrCodeSpent", i, err)
		case !errors.Is(tokErr, verifyd.ErrNotFound):
			t.Errorf("loser %d's token is stored (%v)", i, tokErr)
		}
	}
	if wins != 1 {
		t.Errorf("%d of %d concurrent redemptions succeeded, want exactly 1", wins, n)
	}
}

func testAgeRevokeTokens(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	code := completedRequest(t, ctx, s, c, "areq_1", clock)
	other := completedRequest(t, ctx, s, c, "areq_2", clock)
	tok := newAgeToken("one", code, at(2*time.Minute))
	mustRedeem(t, ctx, s, tok)
	kept := newAgeToken("other", other, at(2*time.Minute))
	mustRedeem(t, ctx, s, kept)

	if n, err := s.RevokeAgeTokens(ctx, code.Hash, oddClock); err != nil || n != 1 {
		t.Fatalf("RevokeAgeTokens = %d, %v; want 1", n, err)
	}
	revokedAt := oddClock
	tok.RevokedAt = &revokedAt
	got, err := s.AgeToken(ctx, tok.Hash)
	if err != nil {
		t.Fatalf("AgeToken: %v", err)
	}
	assertEqual(t, "revoked AgeToken", got, tok)
	// Revoking again keeps the first time and counts nothing.
	if n, err := s.RevokeAgeTokens(ctx, code.Hash, at(time.Hour)); err != nil || n != 0 {
		t.Errorf("second RevokeAgeTokens = %d, %v; want 0", n, err)
	}
	got, _ = s.AgeToken(ctx, tok.Hash)
	assertEqual(t, "AgeToken revoked twice", got, tok)
	// Other codes' tokens are untouched; a code without tokens is no error.
	got, _ = s.AgeToken(ctx, kept.Hash)
	assertEqual(t, "token of another code", got, kept)
	if n, err := s.RevokeAgeTokens(ctx, digest("absent"), clock); err != nil || n != 0 {
		t.Errorf("RevokeAgeTokens of an unknown code = %d, %v; want 0", n, err)
	}
}

func testAgeTokenNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	_, err := s.AgeToken(ctx, digest("absent"))
	assertNotFound(t, "AgeToken of an unknown hash", err)
}

// testAgePurge checks that creating a request deletes what expired at or
// before purgeBefore, children first, and keeps everything still referenced.
func testAgePurge(t *testing.T, ctx context.Context, s verifyd.Store) {
	c := ageFixture(t, ctx, s, "biz_age")
	// Old: request, code and token all expired long ago.
	oldCode := completedRequest(t, ctx, s, c, "areq_old", clock)
	oldTok := newAgeToken("old", oldCode, at(2*time.Minute))
	mustRedeem(t, ctx, s, oldTok)
	// An old request that was never completed.
	mustCreateAgeRequest(t, ctx, s, newAgeRequest("areq_abandoned", c, clock))
	// An old code whose token was issued late and is still valid at the purge.
	keptCode := completedRequest(t, ctx, s, c, "areq_kept", clock)
	keptTok := newAgeToken("kept", keptCode, at(9*time.Minute))
	keptTok.ExpiresAt = at(5 * time.Hour)
	mustRedeem(t, ctx, s, keptTok)
	// A recent request.
	mustCreateAgeRequest(t, ctx, s, newAgeRequest("areq_recent", c, at(3*time.Hour)))

	purgeBefore := at(3 * time.Hour)
	if err := s.CreateAgeAuthRequest(ctx, newAgeRequest("areq_new", c, at(4*time.Hour)), purgeBefore); err != nil {
		t.Fatalf("CreateAgeAuthRequest: %v", err)
	}
	_, err := s.AgeToken(ctx, oldTok.Hash)
	assertNotFound(t, "expired token", err)
	_, err = s.AgeCode(ctx, oldCode.Hash)
	assertNotFound(t, "expired code", err)
	_, err = s.AgeAuthRequest(ctx, "areq_old")
	assertNotFound(t, "expired completed request", err)
	_, err = s.AgeAuthRequest(ctx, "areq_abandoned")
	assertNotFound(t, "expired abandoned request", err)

	if _, err := s.AgeToken(ctx, keptTok.Hash); err != nil {
		t.Errorf("valid token purged: %v", err)
	}
	if _, err := s.AgeCode(ctx, keptCode.Hash); err != nil {
		t.Errorf("expired code with a valid token purged: %v", err)
	}
	if _, err := s.AgeAuthRequest(ctx, "areq_kept"); err != nil {
		t.Errorf("request of a kept code purged: %v", err)
	}
	for _, id := range []string{"areq_recent", "areq_new"} {
		if _, err := s.AgeAuthRequest(ctx, id); err != nil {
			t.Errorf("unexpired request %s: %v", id, err)
		}
	}
}
