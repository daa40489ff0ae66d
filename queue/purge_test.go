package queue_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/queue"
	"github.com/verifyd/verifyd/sqlstore"
)

// TestPurgeJob checks the purge of decided internal verifications (data
// minimisation) with the real queue on both dialects.
func TestPurgeJob(t *testing.T) {
	t.Parallel()
	tests := map[string]func(*testing.T, *sqlstore.DB){
		"CommittedWithTheTerminalTransition": testPurgeJobCommitted,
		"WorkedAndRetried":                   testPurgeJobWorked,
		"SnoozedUntilDue":                    testPurgeJobSnoozes,
	}
	runOnDialects(t, tests)
}

// seedInternal creates a started internal verification (no webhook, no
// hosted token: the age flow's document method).
func seedInternal(t *testing.T, db *sqlstore.DB, id string) verifyd.Verification {
	t.Helper()
	v := seed(t, db, id, time.Now().Add(time.Hour))
	// seed makes an identity-API verification; make a second, internal one
	// of the same business.
	v.ID, v.Webhook, v.Status = id+"_internal", "", verifyd.StatusPending
	if err := db.CreateVerification(bounded(t), v, nil); err != nil {
		t.Fatalf("CreateVerification: %v", err)
	}
	if _, err := db.TransitionVerification(bounded(t), start(v.ID), "evt_"+id+"_start"); err != nil {
		t.Fatalf("start: %v", err)
	}
	return v
}

func approve(t *testing.T, db *sqlstore.DB, id string) {
	t.Helper()
	if _, err := db.TransitionVerification(bounded(t), verifyd.Transition{VerificationID: id, To: verifyd.StatusApproved,
		Cause: verifyd.CauseEngine, At: time.Now()}, "evt_"+id+"_approved"); err != nil {
		t.Fatalf("approve %s: %v", id, err)
	}
}

// testPurgeJobCommitted: the purge job row is in River's table as soon as
// the transition that finished the verification has committed — nothing
// runs in between that a crash could lose — and only for the terminal
// transition of an internal verification.
func testPurgeJobCommitted(t *testing.T, db *sqlstore.DB) {
	newQueue(t, db, queue.Config{}, nil) // insert-only: nothing works the job
	v := seedInternal(t, db, "vrf_pj")
	if got := riverJobs(t, db, "verification_purge"); len(got) != 0 {
		t.Fatalf("purge jobs before the decision: %+v", got)
	}
	approve(t, db, v.ID)
	want := []riverJob{{Kind: "verification_purge", Queue: "lifecycle", State: "available",
		Args: map[string]any{"verification_id": v.ID}, MaxAttempts: queue.PurgeAttempts}}
	if got := riverJobs(t, db, "verification_purge"); !reflect.DeepEqual(got, want) {
		t.Errorf("purge jobs right after the approval committed:\n\tgot  %+v\n\twant %+v", got, want)
	}
	// The identity API's verification of the same business gets one
	// scheduled for the end of the business's retention (30 days).
	if _, err := db.TransitionVerification(bounded(t), start("vrf_pj"), "evt_pj_api_start"); err != nil {
		t.Fatal(err)
	}
	approve(t, db, "vrf_pj")
	want = append(want, riverJob{Kind: "verification_purge", Queue: "lifecycle", State: "scheduled",
		Args: map[string]any{"verification_id": "vrf_pj"}, MaxAttempts: queue.PurgeAttempts})
	if got := riverJobs(t, db, "verification_purge"); !reflect.DeepEqual(got, want) {
		t.Errorf("purge jobs after an identity-API approval:\n\tgot  %+v\n\twant %+v", got, want)
	}
}

// testPurgeJobSnoozes: a purge that is not due yet (the retention was
// lengthened) is run again when it is, without using up an attempt.
func testPurgeJobSnoozes(t *testing.T, db *sqlstore.DB) {
	var purges calls
	h := handlers(&calls{}, &calls{}, nil, nil)
	h.Purge = func(_ context.Context, id string) error {
		if n := purges.add(call{subject: id}); n == 1 {
			return notDue{until: time.Now().Add(300 * time.Millisecond)}
		}
		return nil
	}
	newQueue(t, db, fast, h)
	v := seedInternal(t, db, "vrf_ps")
	approve(t, db, v.ID)
	got := purges.wait(t, 2, 30*time.Second)
	assertCalls(t, "purge", got, []call{{subject: v.ID}, {subject: v.ID}})
	job := jobState(t, db, "verification_purge", "completed", 10*time.Second)
	if job.Errors {
		t.Errorf("purge job %+v: a snooze recorded an error", job)
	}
}

// testPurgeJobWorked: the worker calls the purge handler with the
// verification id; a failing purge is retried until it succeeds.
func testPurgeJobWorked(t *testing.T, db *sqlstore.DB) {
	var purges calls
	h := handlers(&calls{}, &calls{}, nil, nil)
	h.Purge = func(_ context.Context, id string) error {
		if n := purges.add(call{subject: id}); n == 1 {
			return errors.New("database hiccup")
		}
		return nil
	}
	newQueue(t, db, fast, h)
	v := seedInternal(t, db, "vrf_pw")
	approve(t, db, v.ID)
	got := purges.wait(t, 2, 30*time.Second)
	assertCalls(t, "purge", got, []call{{subject: v.ID}, {subject: v.ID}})
	job := jobState(t, db, "verification_purge", "completed", 10*time.Second)
	if job.Attempt != 2 || !job.Errors {
		t.Errorf("purge job %+v: want completed at attempt 2 with the first error recorded", job)
	}
}
