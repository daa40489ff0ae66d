package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// JobPurgeVerification deletes the images and identifying evidence of a
// finished internal verification; it is due at once.
const JobPurgeVerification = "verification_purge"

// purgeTests check the RetentionStore contract and the purge job of
// TransitionVerification (data minimisation, docs/age.md).
var purgeTests = map[string]func(*testing.T, context.Context, *env){
	"TerminalInternalTransitionEnqueuesPurge": testPurgeJobEnqueued,
	"PurgeJobCommitsWithTheTransition":        testPurgeJobAtomic,
	"DeletesImagesAndEvidence":                testPurgeDeletes,
	"IsIdempotent":                            testPurgeIdempotent,
	"RefusesWhatIsNotAFinishedInternal":       testPurgeRefuses,
	"RunsMustMatch":                           testPurgeRunsMustMatch,
}

// internalVerification is an internal verification as identity's
// CreateInternal makes it: no webhook, no hosted token, no redirect.
func internalVerification(id string, c verifyd.StoredCredential, created time.Time) verifyd.Verification {
	v := pendingVerification(id, c, created)
	v.Webhook, v.RedirectURI, v.HostedTokenHash, v.SealedHostedToken = "", "", nil, nil
	return v
}

// withFrames adds a selfie burst to a submission's images.
func withFrames(label string, images []verifyd.StoredImage) []verifyd.StoredImage {
	for n := 1; n <= verifyd.MaxSelfieFrames; n++ {
		images = append(images, verifyd.StoredImage{Kind: verifyd.SelfieFrame(n), Format: "jpeg", Width: 480,
			Height: 640, SHA256: digest(label + "/frame"), Sealed: opaque(label+"/frame", 900+n)})
	}
	return images
}

func purgeJob(id string) Job { return Job{Kind: JobPurgeVerification, Subject: id} }

// purgeJobs returns the committed purge jobs.
func (e *env) purgeJobs() []Job {
	var out []Job
	for _, j := range e.jobs() {
		if j.Kind == JobPurgeVerification {
			out = append(out, j)
		}
	}
	return out
}

// decidedInternal stores an internal verification with a selfie burst and
// two check runs, and finishes it (approved) at at(time.Hour).
func decidedInternal(t *testing.T, ctx context.Context, e *env, id string) (verifyd.Verification, []verifyd.StoredImage, []verifyd.CheckRun) {
	t.Helper()
	prod, _ := verificationFixture(t, ctx, e)
	v := internalVerification(id, prod, clock)
	images := withFrames(id, newImages(id))
	mustCreateVerification(t, ctx, e, v, images)
	mustTransition(t, ctx, e, transition(id, verifyd.StatusStarted, at(time.Second)), "evt_"+id+"_started")
	var runs []verifyd.CheckRun
	for n, outcome := range []string{"failed", "approved"} {
		run, err := e.RecordCheckRun(ctx, verifyd.CheckRun{VerificationID: id, At: at(time.Duration(n+1) * time.Minute),
			Outcome: outcome, SealedResults: opaque(id+"/evidence/"+outcome, 300)}, verifyd.ReviewNone, digest(id+"/document"))
		if err != nil {
			t.Fatalf("RecordCheckRun: %v", err)
		}
		runs = append(runs, run)
	}
	v = mustTransition(t, ctx, e, transition(id, verifyd.StatusApproved, at(time.Hour)), "evt_"+id+"_approved")
	if !bytes.Equal(v.DocumentHash, digest(id+"/document")) {
		t.Fatalf("document hash before the purge = %x", v.DocumentHash)
	}
	return v, images, runs
}

// summaries returns runs with new sealed results, as the purge job makes.
func summaries(runs []verifyd.CheckRun, label string) []verifyd.CheckRun {
	out := make([]verifyd.CheckRun, len(runs))
	for n, r := range runs {
		r.SealedResults = opaque(label+"/summary", 40+n)
		out[n] = r
	}
	return out
}

func mustCheckRuns(t *testing.T, ctx context.Context, s verifyd.Store, id string) []verifyd.CheckRun {
	t.Helper()
	runs, err := s.CheckRuns(ctx, id)
	if err != nil {
		t.Fatalf("CheckRuns(%s): %v", id, err)
	}
	return runs
}

// testPurgeJobEnqueued: every terminal status of an internal verification
// enqueues one purge job with the transition; other transitions, and the
// identity API's verifications, enqueue none.
func testPurgeJobEnqueued(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	for _, to := range []verifyd.Status{verifyd.StatusApproved, verifyd.StatusFailed, verifyd.StatusExpired} {
		id := "vrf_purge_" + string(to)
		mustCreateVerification(t, ctx, e, internalVerification(id, prod, clock), nil)
		mustTransition(t, ctx, e, transition(id, verifyd.StatusStarted, at(time.Second)), "evt_"+id+"_1")
		for _, j := range e.purgeJobs() {
			if j.Subject == id {
				t.Errorf("%s: a purge job after the start: %v", id, j)
			}
		}
		mustTransition(t, ctx, e, transition(id, to, at(time.Minute)), "evt_"+id+"_2")
	}
	// Expired straight from pending counts too.
	mustCreateVerification(t, ctx, e, internalVerification("vrf_purge_pending", prod, clock), nil)
	mustTransition(t, ctx, e, transition("vrf_purge_pending", verifyd.StatusExpired, at(time.Minute)), "evt_pp")

	// The identity API's verifications (hosted with a token and webhook)
	// get theirs when the business's retention is over (retention.go).
	api := pendingVerification("vrf_api", prod, clock)
	mustCreateVerification(t, ctx, e, api, newImages("api"))
	mustTransition(t, ctx, e, transition(api.ID, verifyd.StatusStarted, at(time.Second)), "evt_api_1")
	mustTransition(t, ctx, e, transition(api.ID, verifyd.StatusApproved, at(time.Minute)), "evt_api_2")

	assertJobs(t, "purge jobs", e.purgeJobs(), []Job{
		purgeJob("vrf_purge_approved"), purgeJob("vrf_purge_failed"), purgeJob("vrf_purge_expired"),
		purgeJob("vrf_purge_pending"),
		{Kind: JobPurgeVerification, Subject: api.ID, RunAt: at(time.Minute + verifyd.DefaultRetentionDays*24*time.Hour)},
	}, at(time.Minute))
	assertImages(t, ctx, e, api.ID, newImages("api"))
}

// testPurgeJobAtomic: when the purge job cannot be enqueued the terminal
// transition is not committed either (so a crash never leaves a decided
// verification without its purge).
func testPurgeJobAtomic(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := internalVerification("vrf_purge_atomic", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	v = mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusStarted, at(time.Second)), "evt_atomic_1")
	e.failJobs(errors.New("storetest: job queue unavailable"))
	if _, err := e.TransitionVerification(ctx, transition(v.ID, verifyd.StatusApproved, at(time.Minute)), "evt_atomic_2"); err == nil {
		t.Error("an internal verification was approved although its purge job could not be enqueued")
	}
	e.failJobs(nil)
	assertStored(t, ctx, e, "after the failed approval", v)
	if jobs := e.purgeJobs(); len(jobs) != 0 {
		t.Errorf("purge jobs after the failed approval: %v", jobs)
	}
	if history := mustStatusEvents(t, ctx, e, v.ID); len(history) != 2 {
		t.Errorf("history after the failed approval has %d entries, want 2", len(history))
	}
	mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusApproved, at(time.Minute)), "evt_atomic_2")
	assertJobs(t, "purge jobs", e.purgeJobs(), []Job{purgeJob(v.ID)}, at(time.Minute))
}

// testPurgeDeletes: images (burst frames too) are gone, each run's sealed
// results are the summaries, the document hash is cleared, PurgedAt is set,
// and the decision (status, times, history, the runs' outcomes) is kept.
func testPurgeDeletes(t *testing.T, ctx context.Context, e *env) {
	v, _, runs := decidedInternal(t, ctx, e, "vrf_purge_del")
	history := mustStatusEvents(t, ctx, e, v.ID)
	// A run arriving after the decision but before the purge (a pipeline
	// run that was under way) is refused too: it would put the decided
	// verification back in review and keep evidence the purge job may
	// already have passed.
	assertLateRunRefused(t, ctx, e, "before the purge", v.ID)
	assertEqual(t, "runs after the late run before the purge", mustCheckRuns(t, ctx, e, v.ID), runs)
	assertStored(t, ctx, e, "after the late run before the purge", v)
	sums := summaries(runs, "del")
	purgedAt := oddClock.Add(2 * time.Hour)
	got, err := e.PurgeVerification(ctx, v.ID, sums, purgedAt)
	if err != nil {
		t.Fatalf("PurgeVerification: %v", err)
	}
	want := v
	want.DocumentHash = nil
	want.PurgedAt = &purgedAt
	assertEqual(t, "purged verification", got, want)
	assertStored(t, ctx, e, "purged verification", want)
	assertImages(t, ctx, e, v.ID, nil)
	assertEqual(t, "runs after the purge", mustCheckRuns(t, ctx, e, v.ID), sums)
	assertHistory(t, ctx, e, "after the purge", v.ID, history)

	// A run arriving after the purge (a pipeline run that was under way) is
	// refused: its evidence would outlive the purge.
	assertLateRunRefused(t, ctx, e, "after the purge", v.ID)
	assertEqual(t, "runs after the late run", mustCheckRuns(t, ctx, e, v.ID), sums)
	assertStored(t, ctx, e, "after the late run", want)
}

// assertLateRunRefused records a run (asking for review) for a finished
// verification and expects the conflict that refuses it.
func assertLateRunRefused(t *testing.T, ctx context.Context, e *env, what, id string) {
	t.Helper()
	_, err := e.RecordCheckRun(ctx, verifyd.CheckRun{VerificationID: id, At: at(3 * time.Hour), Outcome: "review",
		SealedResults: opaque("late evidence", 50)}, verifyd.ReviewPending, digest("late document"))
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Errorf("RecordCheckRun(%s) %s: err = %v, want a conflict", id, what, err)
	}
}

// testPurgeIdempotent: a second purge (the job ran again) changes nothing.
func testPurgeIdempotent(t *testing.T, ctx context.Context, e *env) {
	v, _, runs := decidedInternal(t, ctx, e, "vrf_purge_twice")
	first := summaries(runs, "first")
	once, err := e.PurgeVerification(ctx, v.ID, first, at(2*time.Hour))
	if err != nil {
		t.Fatalf("PurgeVerification: %v", err)
	}
	twice, err := e.PurgeVerification(ctx, v.ID, summaries(runs, "second"), at(3*time.Hour))
	if err != nil {
		t.Fatalf("second PurgeVerification: %v", err)
	}
	assertEqual(t, "verification after the second purge", twice, once)
	assertStored(t, ctx, e, "after the second purge", once)
	assertEqual(t, "runs after the second purge", mustCheckRuns(t, ctx, e, v.ID), first)
}

// testPurgeRefuses: unfinished verifications, internal or of the identity
// API, are refused and keep everything; an unknown id is not found.
func testPurgeRefuses(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	started := internalVerification("vrf_purge_started", prod, clock)
	mustCreateVerification(t, ctx, e, started, newImages("started"))
	started = mustTransition(t, ctx, e, transition(started.ID, verifyd.StatusStarted, at(time.Second)), "evt_ps")

	hosted := pendingVerification("vrf_purge_hosted", prod, clock)
	mustCreateVerification(t, ctx, e, hosted, newImages("hosted"))
	hosted = mustTransition(t, ctx, e, transition(hosted.ID, verifyd.StatusStarted, at(time.Second)), "evt_ph1")

	direct := directVerification("vrf_purge_direct", prod, clock)
	direct.Status, direct.Reason = verifyd.StatusPending, verifyd.ReasonNone
	mustCreateVerification(t, ctx, e, direct, newImages("direct"))

	for _, c := range []struct {
		v      verifyd.Verification
		images []verifyd.StoredImage
	}{{started, newImages("started")}, {hosted, newImages("hosted")}, {direct, newImages("direct")}} {
		for name, del := range map[string]func(context.Context, string, []verifyd.CheckRun, time.Time) (verifyd.Verification, error){
			"PurgeVerification": e.PurgeVerification, "RedactVerification": e.RedactVerification,
		} {
			_, err := del(ctx, c.v.ID, nil, at(time.Hour))
			if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
				t.Errorf("%s(%s, %s): err = %v, want a conflict", name, c.v.ID, c.v.Status, err)
			}
			assertStored(t, ctx, e, "refused "+name+" of "+c.v.ID, c.v)
			assertImages(t, ctx, e, c.v.ID, c.images)
		}
	}
	_, err := e.PurgeVerification(ctx, "vrf_nobody", nil, at(time.Hour))
	assertNotFound(t, "PurgeVerification of an unknown id", err)
	_, err = e.RedactVerification(ctx, "vrf_nobody", nil, at(time.Hour))
	assertNotFound(t, "RedactVerification of an unknown id", err)
}

// testPurgeRunsMustMatch: summaries that miss a run, or name one that does
// not exist, are refused and change nothing.
func testPurgeRunsMustMatch(t *testing.T, ctx context.Context, e *env) {
	v, images, runs := decidedInternal(t, ctx, e, "vrf_purge_runs")
	extra := append(summaries(runs, "extra"), verifyd.CheckRun{VerificationID: v.ID, Run: 3, SealedResults: []byte("x")})
	for what, given := range map[string][]verifyd.CheckRun{
		"a run missing":  summaries(runs[:1], "missing"),
		"no runs":        nil,
		"a run too many": extra,
	} {
		_, err := e.PurgeVerification(ctx, v.ID, given, at(2*time.Hour))
		if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
			t.Errorf("%s: err = %v, want a conflict", what, err)
		}
		assertStored(t, ctx, e, what, v)
		assertImages(t, ctx, e, v.ID, images)
		assertEqual(t, what+": runs", mustCheckRuns(t, ctx, e, v.ID), runs)
	}
}
