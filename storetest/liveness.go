package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/liveness"
)

// --- active liveness challenges ---------------------------------------------

// livenessTests are the LivenessStore contract's tests.
var livenessTests = map[string]func(*testing.T, context.Context, verifyd.Store){
	"RoundTrip":                testChallengeRoundTrip,
	"NotFound":                 testChallengeNotFound,
	"NewDrawReplacesUnused":    testChallengeReplacesUnused,
	"ConsumeOnce":              testChallengeConsumeOnce,
	"ConsumeExpired":           testChallengeConsumeExpired,
	"ConsumeWrongSubject":      testChallengeConsumeWrongSubject,
	"ConcurrentConsumeOneWins": testChallengeConcurrentConsume,
	"UsedForAttempt":           testChallengeUsedForAttempt,
	"EarlierDigests":           testChallengeEarlierDigests,
	"UnknownSubjectRefused":    testChallengeUnknownSubject,
}

// livenessFixture creates two hosted verifications to draw challenges for.
func livenessFixture(t *testing.T, ctx context.Context, s verifyd.Store) (v1, v2 string) {
	t.Helper()
	prod, _ := verificationFixture(t, ctx, s)
	mustCreateVerification(t, ctx, s, hostedVerification("v_live_1", prod, clock), nil)
	mustCreateVerification(t, ctx, s, hostedVerification("v_live_2", prod, clock), nil)
	return "v_live_1", "v_live_2"
}

func newChallenge(id, subject string, attempt int, issued time.Time) liveness.Challenge {
	return liveness.Challenge{ID: id, Subject: subject, Attempt: attempt,
		Steps: []liveness.Step{liveness.TurnLeft, liveness.Blink, liveness.Closer}, IssuedAt: issued,
		ExpiresAt: issued.Add(liveness.Lifetime)}
}

func mustCreateChallenge(t *testing.T, ctx context.Context, s verifyd.Store, c liveness.Challenge) {
	t.Helper()
	if err := s.CreateLivenessChallenge(ctx, c); err != nil {
		t.Fatalf("CreateLivenessChallenge(%s): %v", c.ID, err)
	}
}

func newFrames(label string, n int) []verifyd.LivenessFrame {
	out := make([]verifyd.LivenessFrame, n)
	for i := range out {
		out[i] = verifyd.LivenessFrame{At: time.Duration(250*i+7) * time.Millisecond, SHA256: digest(fmt.Sprintf("%s/frame %d", label, i))}
	}
	return out
}

func assertSpent(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, verifyd.ErrChallengeSpent) {
		t.Fatalf("%s: got %v, want ErrChallengeSpent", what, err)
	}
}

func testChallengeRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, _ := livenessFixture(t, ctx, s)
	c := newChallenge("lc_1", v1, 2, oddClock)
	mustCreateChallenge(t, ctx, s, c)
	got, err := s.LivenessChallenge(ctx, c.ID)
	if err != nil {
		t.Fatalf("LivenessChallenge: %v", err)
	}
	assertEqual(t, "LivenessChallenge", got, verifyd.StoredChallenge{Challenge: c})

	frames := newFrames("lc_1", 40)
	used := oddClock.Add(20 * time.Second)
	consumed, err := s.ConsumeLivenessChallenge(ctx, c.ID, verifyd.ChallengeUse{Subject: v1, Attempt: 2, At: used, Frames: frames,
		ManualStep: liveness.Blink})
	if err != nil {
		t.Fatalf("ConsumeLivenessChallenge: %v", err)
	}
	want := verifyd.StoredChallenge{Challenge: c, UsedAt: &used, Frames: frames, ManualStep: liveness.Blink}
	assertEqual(t, "the consumed challenge", consumed, want)
	got, err = s.LivenessChallenge(ctx, c.ID)
	if err != nil {
		t.Fatalf("LivenessChallenge after use: %v", err)
	}
	assertEqual(t, "LivenessChallenge after use", got, want)
}

func testChallengeNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, _ := livenessFixture(t, ctx, s)
	_, err := s.LivenessChallenge(ctx, "lc_absent")
	assertNotFound(t, "LivenessChallenge of an unknown id", err)
	_, err = s.UsedLivenessChallenge(ctx, v1, 1)
	assertNotFound(t, "UsedLivenessChallenge with none used", err)
	_, err = s.ConsumeLivenessChallenge(ctx, "lc_absent", verifyd.ChallengeUse{Subject: v1, Attempt: 1, At: clock})
	assertSpent(t, "ConsumeLivenessChallenge of an unknown id", err)
}

func testChallengeReplacesUnused(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, v2 := livenessFixture(t, ctx, s)
	mustCreateChallenge(t, ctx, s, newChallenge("lc_used", v1, 1, clock))
	if _, err := s.ConsumeLivenessChallenge(ctx, "lc_used", verifyd.ChallengeUse{Subject: v1, Attempt: 1, At: at(time.Second), Frames: newFrames("used", 3)}); err != nil {
		t.Fatal(err)
	}
	mustCreateChallenge(t, ctx, s, newChallenge("lc_first", v1, 2, at(time.Minute)))
	mustCreateChallenge(t, ctx, s, newChallenge("lc_other", v2, 2, at(time.Minute)))
	mustCreateChallenge(t, ctx, s, newChallenge("lc_second", v1, 2, at(2*time.Minute)))

	_, err := s.LivenessChallenge(ctx, "lc_first")
	assertNotFound(t, "the unused challenge a new draw replaced", err)
	_, err = s.ConsumeLivenessChallenge(ctx, "lc_first", verifyd.ChallengeUse{Subject: v1, Attempt: 2, At: at(3 * time.Minute)})
	assertSpent(t, "consuming the replaced challenge", err)
	for _, id := range []string{"lc_used", "lc_other", "lc_second"} {
		if _, err := s.LivenessChallenge(ctx, id); err != nil {
			t.Errorf("LivenessChallenge(%s) after another draw: %v; a used challenge and other subjects' stay", id, err)
		}
	}
}

func testChallengeConsumeOnce(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, _ := livenessFixture(t, ctx, s)
	mustCreateChallenge(t, ctx, s, newChallenge("lc_1", v1, 1, clock))
	first := newFrames("first", 5)
	if _, err := s.ConsumeLivenessChallenge(ctx, "lc_1", verifyd.ChallengeUse{Subject: v1, Attempt: 1, At: at(time.Second), Frames: first}); err != nil {
		t.Fatal(err)
	}
	_, err := s.ConsumeLivenessChallenge(ctx, "lc_1", verifyd.ChallengeUse{Subject: v1, Attempt: 1, At: at(2 * time.Second), Frames: newFrames("second", 4)})
	assertSpent(t, "second ConsumeLivenessChallenge", err)
	got, err := s.LivenessChallenge(ctx, "lc_1")
	if err != nil {
		t.Fatal(err)
	}
	used := at(time.Second)
	assertEqual(t, "the challenge after a refused second use", got,
		verifyd.StoredChallenge{Challenge: newChallenge("lc_1", v1, 1, clock), UsedAt: &used, Frames: first})
}

func testChallengeConsumeExpired(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, _ := livenessFixture(t, ctx, s)
	c := newChallenge("lc_1", v1, 1, clock)
	mustCreateChallenge(t, ctx, s, c)
	_, err := s.ConsumeLivenessChallenge(ctx, c.ID, verifyd.ChallengeUse{Subject: v1, Attempt: 1, At: c.ExpiresAt, Frames: newFrames("late", 2)}) // expiry is exclusive
	assertSpent(t, "ConsumeLivenessChallenge at the expiry", err)
	got, err := s.LivenessChallenge(ctx, c.ID)
	if err != nil || got.UsedAt != nil || len(got.Frames) != 0 {
		t.Fatalf("expired challenge after a refused use: %+v, %v; want it unchanged", got, err)
	}
	if _, err := s.ConsumeLivenessChallenge(ctx, c.ID, verifyd.ChallengeUse{Subject: v1, Attempt: 1, At: c.ExpiresAt.Add(-time.Microsecond)}); err != nil {
		t.Fatalf("ConsumeLivenessChallenge just before the expiry: %v", err)
	}
}

func testChallengeConsumeWrongSubject(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, v2 := livenessFixture(t, ctx, s)
	mustCreateChallenge(t, ctx, s, newChallenge("lc_1", v1, 2, clock))
	_, err := s.ConsumeLivenessChallenge(ctx, "lc_1", verifyd.ChallengeUse{Subject: v2, Attempt: 2, At: at(time.Second)})
	assertSpent(t, "ConsumeLivenessChallenge for another verification", err)
	_, err = s.ConsumeLivenessChallenge(ctx, "lc_1", verifyd.ChallengeUse{Subject: v1, Attempt: 3, At: at(time.Second)})
	assertSpent(t, "ConsumeLivenessChallenge for another attempt", err)
	if _, err := s.ConsumeLivenessChallenge(ctx, "lc_1", verifyd.ChallengeUse{Subject: v1, Attempt: 2, At: at(time.Second)}); err != nil {
		t.Fatalf("ConsumeLivenessChallenge after refused uses: %v", err)
	}
}

func testChallengeConcurrentConsume(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, _ := livenessFixture(t, ctx, s)
	mustCreateChallenge(t, ctx, s, newChallenge("lc_1", v1, 1, clock))
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.ConsumeLivenessChallenge(ctx, "lc_1", verifyd.ChallengeUse{Subject: v1, Attempt: 1, At: at(time.Second), Frames: newFrames(fmt.Sprint(i), 3)})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, verifyd.ErrChallengeSpent):
			t.Errorf("concurrent ConsumeLivenessChallenge: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d concurrent uses succeeded, want exactly 1", won)
	}
	got, err := s.LivenessChallenge(ctx, "lc_1")
	if err != nil || len(got.Frames) != 3 {
		t.Fatalf("challenge after concurrent uses: %d frames, %v; want the winner's 3", len(got.Frames), err)
	}
}

func testChallengeUsedForAttempt(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, v2 := livenessFixture(t, ctx, s)
	for _, c := range []liveness.Challenge{newChallenge("lc_a1", v1, 1, clock), newChallenge("lc_b1", v2, 1, clock)} {
		mustCreateChallenge(t, ctx, s, c)
		if _, err := s.ConsumeLivenessChallenge(ctx, c.ID, verifyd.ChallengeUse{Subject: c.Subject, Attempt: 1, At: at(time.Second), Frames: newFrames(c.ID, 2)}); err != nil {
			t.Fatal(err)
		}
	}
	mustCreateChallenge(t, ctx, s, newChallenge("lc_a2", v1, 2, at(time.Minute))) // drawn, not used
	got, err := s.UsedLivenessChallenge(ctx, v1, 1)
	if err != nil || got.ID != "lc_a1" || len(got.Frames) != 2 {
		t.Fatalf("UsedLivenessChallenge(v1, 1) = %s with %d frames, %v; want lc_a1 with 2", got.ID, len(got.Frames), err)
	}
	_, err = s.UsedLivenessChallenge(ctx, v1, 2)
	assertNotFound(t, "UsedLivenessChallenge of an attempt whose challenge is unused", err)
}

func testChallengeEarlierDigests(t *testing.T, ctx context.Context, s verifyd.Store) {
	v1, v2 := livenessFixture(t, ctx, s)
	use := func(id, subject string, attempt int, label string, n int) []verifyd.LivenessFrame {
		t.Helper()
		mustCreateChallenge(t, ctx, s, newChallenge(id, subject, attempt, at(time.Duration(attempt)*time.Minute)))
		f := newFrames(label, n)
		if _, err := s.ConsumeLivenessChallenge(ctx, id, verifyd.ChallengeUse{Subject: subject, Attempt: attempt, At: at(time.Duration(attempt)*time.Minute + time.Second), Frames: f}); err != nil {
			t.Fatal(err)
		}
		return f
	}
	a1 := use("lc_a1", v1, 1, "a1", 3)
	a2 := use("lc_a2", v1, 2, "a2", 2)
	use("lc_a3", v1, 3, "a3", 2)
	use("lc_b1", v2, 1, "b1", 4)
	mustCreateChallenge(t, ctx, s, newChallenge("lc_a4", v1, 4, at(10*time.Minute))) // unused: no frames

	got, err := s.EarlierLivenessDigests(ctx, v1, 3)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for _, f := range append(a1, a2...) {
		want = append(want, f.SHA256)
	}
	assertEqual(t, "EarlierLivenessDigests(v1, 3)", got, want)
	if got, err := s.EarlierLivenessDigests(ctx, v1, 1); err != nil || len(got) != 0 {
		t.Fatalf("EarlierLivenessDigests(v1, 1) = %d digests, %v; want none", len(got), err)
	}
}

func testChallengeUnknownSubject(t *testing.T, ctx context.Context, s verifyd.Store) {
	// The challenge refers to its verification: one for an unknown
	// verification is refused, so nothing outlives what it was drawn for.
	livenessFixture(t, ctx, s)
	if err := s.CreateLivenessChallenge(ctx, newChallenge("lc_1", "v_absent", 1, clock)); err == nil {
		t.Fatal("CreateLivenessChallenge for an unknown verification succeeded")
	}
}
