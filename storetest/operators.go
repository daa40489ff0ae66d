package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// --- operators and sessions -------------------------------------------------

// operatorTests are the OperatorStore contract's tests.
var operatorTests = map[string]func(*testing.T, context.Context, verifyd.Store){
	"RoundTrip":               testOperatorRoundTrip,
	"DuplicateUsername":       testOperatorDuplicate,
	"NotFound":                testOperatorNotFound,
	"ListOldestFirst":         testOperatorsOldestFirst,
	"DisableKeepsFirstTime":   testDisableOperator,
	"DisableUnknown":          testDisableUnknownOperator,
	"ConcurrentCreateOneWins": testOperatorConcurrentCreate,
	"SessionRoundTrip":        testSessionRoundTrip,
	"SessionTouchOnlyForward": testSessionTouch,
	"SessionDelete":           testSessionDelete,
	"SessionsOfSubject":       testSessionsOfSubject,
	"ExpiredSessionsPurged":   testExpiredSessionsPurged,
}

// testPHC looks like an argon2id hash; stores keep it as opaque text.
const testPHC = "$argon2id$v=19$m=65536,t=2,p=2$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"

func newOperator(name string, created time.Time) verifyd.Operator {
	return verifyd.Operator{Username: name, PasswordHash: testPHC + "/" + name, CreatedAt: created}
}

func mustCreateOperator(t *testing.T, ctx context.Context, s verifyd.Store, o verifyd.Operator) {
	t.Helper()
	if err := s.CreateOperator(ctx, o); err != nil {
		t.Fatalf("CreateOperator(%s): %v", o.Username, err)
	}
}

func testOperatorRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	o := newOperator("ada", oddClock)
	mustCreateOperator(t, ctx, s, o)
	got, err := s.Operator(ctx, "ada")
	if err != nil {
		t.Fatalf("Operator: %v", err)
	}
	assertEqual(t, "Operator", got, o)
	if !got.Active() {
		t.Error("a new operator is not active")
	}
}

func testOperatorDuplicate(t *testing.T, ctx context.Context, s verifyd.Store) {
	o := newOperator("ada", clock)
	mustCreateOperator(t, ctx, s, o)
	again := newOperator("ada", at(time.Hour))
	again.PasswordHash = "$argon2id$impostor"
	err := s.CreateOperator(ctx, again)
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("CreateOperator with an existing username: %v, want an EConflict error", err)
	}
	got, err := s.Operator(ctx, "ada")
	if err != nil {
		t.Fatalf("Operator: %v", err)
	}
	assertEqual(t, "Operator after a duplicate CreateOperator", got, o)
}

func testOperatorNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	mustCreateOperator(t, ctx, s, newOperator("ada", clock))
	for _, name := range []string{"bob", "", "ADA", "ad"} {
		_, err := s.Operator(ctx, name)
		assertNotFound(t, fmt.Sprintf("Operator(%q)", name), err)
	}
}

func testOperatorsOldestFirst(t *testing.T, ctx context.Context, s verifyd.Store) {
	empty, err := s.Operators(ctx)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("Operators on an empty store = %v, %v; want an empty non-nil list", empty, err)
	}
	want := []verifyd.Operator{newOperator("carol", at(-time.Hour)), newOperator("ada", clock), newOperator("bob", at(time.Minute))}
	for _, n := range []int{1, 2, 0} {
		mustCreateOperator(t, ctx, s, want[n])
	}
	got, err := s.Operators(ctx)
	if err != nil {
		t.Fatalf("Operators: %v", err)
	}
	assertEqual(t, "Operators", got, want)
}

func testDisableOperator(t *testing.T, ctx context.Context, s verifyd.Store) {
	o := newOperator("ada", clock)
	mustCreateOperator(t, ctx, s, o)
	mustCreateOperator(t, ctx, s, newOperator("bob", clock))
	first := at(time.Hour)
	got, err := s.DisableOperator(ctx, "ada", first)
	if err != nil {
		t.Fatalf("DisableOperator: %v", err)
	}
	o.DisabledAt = &first
	assertEqual(t, "DisableOperator's result", got, o)
	if got.Active() {
		t.Error("a disabled operator is active")
	}
	again, err := s.DisableOperator(ctx, "ada", at(2*time.Hour))
	if err != nil {
		t.Fatalf("second DisableOperator: %v", err)
	}
	assertEqual(t, "second DisableOperator's result", again, o)
	stored, err := s.Operator(ctx, "ada")
	if err != nil {
		t.Fatalf("Operator: %v", err)
	}
	assertEqual(t, "disabled Operator", stored, o)
	other, err := s.Operator(ctx, "bob")
	if err != nil || !other.Active() {
		t.Errorf("disabling ada changed bob: %+v, %v", other, err)
	}
}

func testDisableUnknownOperator(t *testing.T, ctx context.Context, s verifyd.Store) {
	_, err := s.DisableOperator(ctx, "nobody", clock)
	assertNotFound(t, "DisableOperator(nobody)", err)
}

func testOperatorConcurrentCreate(t *testing.T, ctx context.Context, s verifyd.Store) {
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			o := newOperator("ada", clock)
			o.PasswordHash = fmt.Sprintf("hash %d", i)
			errs[i] = s.CreateOperator(ctx, o)
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch verifyd.ErrorCodeOf(err) {
		case "":
			won++
		case verifyd.EConflict:
		default:
			t.Errorf("CreateOperator %d: %v, want nil or an EConflict error", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent creations of one username succeeded, want 1", won)
	}
}

func newSession(label, realm, subject string, created time.Time) verifyd.WebSession {
	return verifyd.WebSession{TokenHash: digest("session " + label), Realm: realm, Subject: subject,
		CreatedAt: created, LastSeenAt: created, ExpiresAt: created.Add(12 * time.Hour)}
}

func mustCreateSession(t *testing.T, ctx context.Context, s verifyd.Store, w verifyd.WebSession) {
	t.Helper()
	if err := s.CreateSession(ctx, w); err != nil {
		t.Fatalf("CreateSession(%s): %v", w.Subject, err)
	}
}

func mustSession(t *testing.T, ctx context.Context, s verifyd.Store, hash []byte) verifyd.WebSession {
	t.Helper()
	got, err := s.Session(ctx, hash)
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	return got
}

func testSessionRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	w := newSession("a", "console", "ada", oddClock)
	w.TokenHash = opaque("token hash", 32) // NUL and high bytes
	mustCreateSession(t, ctx, s, w)
	assertEqual(t, "Session", mustSession(t, ctx, s, w.TokenHash), w)
	_, err := s.Session(ctx, digest("unknown"))
	assertNotFound(t, "Session(unknown hash)", err)
	if err := s.CreateSession(ctx, w); err == nil {
		t.Error("CreateSession with an existing token hash succeeded, want an error")
	}
}

func testSessionTouch(t *testing.T, ctx context.Context, s verifyd.Store) {
	w := newSession("a", "console", "ada", clock)
	mustCreateSession(t, ctx, s, w)
	if err := s.TouchSession(ctx, w.TokenHash, at(10*time.Minute)); err != nil {
		t.Fatalf("TouchSession: %v", err)
	}
	// A slower replica's older touch must not move it back.
	if err := s.TouchSession(ctx, w.TokenHash, at(5*time.Minute)); err != nil {
		t.Fatalf("TouchSession (older): %v", err)
	}
	w.LastSeenAt = at(10 * time.Minute)
	assertEqual(t, "touched Session", mustSession(t, ctx, s, w.TokenHash), w)
	if err := s.TouchSession(ctx, digest("unknown"), at(time.Hour)); err != nil {
		t.Errorf("TouchSession of an unknown session: %v, want nil", err)
	}
}

func testSessionDelete(t *testing.T, ctx context.Context, s verifyd.Store) {
	a, b := newSession("a", "console", "ada", clock), newSession("b", "console", "ada", clock)
	mustCreateSession(t, ctx, s, a)
	mustCreateSession(t, ctx, s, b)
	if err := s.DeleteSession(ctx, a.TokenHash); err != nil {
		t.Fatalf("DeleteSession: %v", err)
	}
	_, err := s.Session(ctx, a.TokenHash)
	assertNotFound(t, "deleted Session", err)
	assertEqual(t, "other Session", mustSession(t, ctx, s, b.TokenHash), b)
	if err := s.DeleteSession(ctx, a.TokenHash); err != nil {
		t.Errorf("DeleteSession of a deleted session: %v, want nil", err)
	}
}

func testSessionsOfSubject(t *testing.T, ctx context.Context, s verifyd.Store) {
	ada1, ada2 := newSession("1", "console", "ada", clock), newSession("2", "console", "ada", at(time.Minute))
	bob := newSession("3", "console", "bob", clock)
	otherRealm := newSession("4", "age", "ada", clock)
	for _, w := range []verifyd.WebSession{ada1, ada2, bob, otherRealm} {
		mustCreateSession(t, ctx, s, w)
	}
	n, err := s.DeleteSessions(ctx, "console", "ada")
	if err != nil || n != 2 {
		t.Fatalf("DeleteSessions(console, ada) = %d, %v; want 2, nil", n, err)
	}
	for _, w := range []verifyd.WebSession{ada1, ada2} {
		_, err := s.Session(ctx, w.TokenHash)
		assertNotFound(t, "Session of a subject whose sessions were deleted", err)
	}
	assertEqual(t, "another subject's Session", mustSession(t, ctx, s, bob.TokenHash), bob)
	assertEqual(t, "another realm's Session", mustSession(t, ctx, s, otherRealm.TokenHash), otherRealm)
	if n, err := s.DeleteSessions(ctx, "console", "nobody"); err != nil || n != 0 {
		t.Errorf("DeleteSessions(console, nobody) = %d, %v; want 0, nil", n, err)
	}
}

func testExpiredSessionsPurged(t *testing.T, ctx context.Context, s verifyd.Store) {
	old := newSession("old", "console", "ada", clock)
	old.ExpiresAt = at(time.Hour)
	live := newSession("live", "console", "bob", clock)
	mustCreateSession(t, ctx, s, old)
	mustCreateSession(t, ctx, s, live)
	// A session created after old expired removes it; live stays.
	mustCreateSession(t, ctx, s, newSession("new", "console", "carol", at(2*time.Hour)))
	_, err := s.Session(ctx, old.TokenHash)
	assertNotFound(t, "expired Session after a new one was created", err)
	assertEqual(t, "unexpired Session", mustSession(t, ctx, s, live.TokenHash), live)
}
