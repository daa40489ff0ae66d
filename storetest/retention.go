package storetest

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// retentionTests check the retention of the identity API's verifications
// (BusinessStore.SetRetentionDays, the purge job of TransitionVerification),
// RetentionStore.RedactVerification on them, and the AuditStore.
var retentionTests = map[string]func(*testing.T, context.Context, *env){
	"DecisionSchedulesThePurge":    testRetentionJobAtDecision,
	"SetRetentionDaysReschedules":  testSetRetentionDays,
	"PurgeOfAnIdentityAPIDecision": testPurgeIdentityAPI,
	"RedactDeletesForGood":         testRedact,
	"RedactAfterPurge":             testRedactAfterPurge,
	"AuditLog":                     testAuditLog,
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// errFailJobs is the error of a job queue that refuses jobs.
var errFailJobs = errors.New("storetest: job queue unavailable")

func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }

// testRetentionJobAtDecision: each terminal status of an identity-API
// verification enqueues its purge with the transition, due the retention
// after the decision (an expired one at once), in the business's setting
// at the time.
func testRetentionJobAtDecision(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	decided := at(time.Hour)
	for _, c := range []struct {
		to   verifyd.Status
		days int
		due  time.Time
	}{
		{verifyd.StatusApproved, verifyd.DefaultRetentionDays, decided.Add(days(verifyd.DefaultRetentionDays))},
		{verifyd.StatusFailed, 7, decided.Add(days(7))},
		{verifyd.StatusApproved, 0, decided},
		{verifyd.StatusExpired, 30, decided},
	} {
		if err := e.SetRetentionDays(ctx, prod.BusinessID, c.days); err != nil {
			t.Fatalf("SetRetentionDays(%d): %v", c.days, err)
		}
		id := "vrf_ret_" + string(c.to) + "_" + strconv.Itoa(c.days)
		mustCreateVerification(t, ctx, e, pendingVerification(id, prod, clock), newImages(id))
		mustTransition(t, ctx, e, transition(id, verifyd.StatusStarted, at(time.Second)), "evt_"+id+"_1")
		if jobs := jobsOfKind(e.jobsFor(id), JobPurgeVerification); len(jobs) != 0 {
			t.Errorf("%s: purge jobs before the decision: %v", id, jobs)
		}
		tr := transition(id, c.to, decided)
		mustTransition(t, ctx, e, tr, "evt_"+id+"_2")
		assertJobs(t, id, jobsOfKind(e.jobsFor(id), JobPurgeVerification),
			[]Job{{Kind: JobPurgeVerification, Subject: id, RunAt: c.due}}, time.Time{})
		assertImages(t, ctx, e, id, newImages(id))
	}
}

func jobsOfKind(jobs []Job, kind string) []Job {
	var out []Job
	for _, j := range jobs {
		if j.Kind == kind {
			out = append(out, j)
		}
	}
	return out
}

// testSetRetentionDays: the setting is validated and stored per business,
// and in the same transaction every finished, not yet purged identity-API
// verification of that business gets a purge job at its new due time;
// unfinished, purged, internal verifications and other businesses' do not.
func testSetRetentionDays(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	_, otherCreds := createBusiness(t, ctx, e, "biz_ret_other", clock)
	if b, err := e.Business(ctx, prod.BusinessID); err != nil || b.RetentionDays != verifyd.DefaultRetentionDays {
		t.Fatalf("a new business: retention %d, %v; want %d", b.RetentionDays, err, verifyd.DefaultRetentionDays)
	}
	for _, bad := range []int{-1, verifyd.MaxRetentionDays + 1} {
		if err := e.SetRetentionDays(ctx, prod.BusinessID, bad); verifyd.ErrorCodeOf(err) != verifyd.EInvalid {
			t.Errorf("SetRetentionDays(%d): err = %v, want invalid", bad, err)
		}
	}
	assertNotFound(t, "SetRetentionDays of an unknown business", e.SetRetentionDays(ctx, "biz_missing", 3))

	decide := func(id string, c verifyd.StoredCredential, to verifyd.Status) {
		t.Helper()
		mustCreateVerification(t, ctx, e, pendingVerification(id, c, clock), newImages(id))
		mustTransition(t, ctx, e, transition(id, verifyd.StatusStarted, at(time.Second)), "evt_"+id+"_1")
		mustTransition(t, ctx, e, transition(id, to, at(2*time.Hour)), "evt_"+id+"_2")
	}
	decide("vrf_set_approved", prod, verifyd.StatusApproved)
	decide("vrf_set_purged", prod, verifyd.StatusApproved)
	if _, err := e.PurgeVerification(ctx, "vrf_set_purged", nil, at(3*time.Hour)); err != nil {
		t.Fatalf("PurgeVerification: %v", err)
	}
	decide("vrf_set_other", otherCreds[0], verifyd.StatusApproved)
	mustCreateVerification(t, ctx, e, pendingVerification("vrf_set_pending", prod, clock), nil)
	v := internalVerification("vrf_set_internal", prod, clock)
	mustCreateVerification(t, ctx, e, v, newImages(v.ID))
	mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusStarted, at(time.Second)), "evt_si_1")
	mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusApproved, at(time.Minute)), "evt_si_2")
	before := map[string]int{}
	for _, id := range []string{"vrf_set_approved", "vrf_set_purged", "vrf_set_other", "vrf_set_pending", v.ID} {
		before[id] = len(e.jobsFor(id))
	}

	if err := e.SetRetentionDays(ctx, prod.BusinessID, 2); err != nil {
		t.Fatalf("SetRetentionDays: %v", err)
	}
	if b, err := e.Business(ctx, prod.BusinessID); err != nil || b.RetentionDays != 2 {
		t.Errorf("Business after SetRetentionDays(2): retention %d, %v", b.RetentionDays, err)
	}
	if b, err := e.Business(ctx, "biz_ret_other"); err != nil || b.RetentionDays != verifyd.DefaultRetentionDays {
		t.Errorf("the other business's retention: %d, %v", b.RetentionDays, err)
	}
	got := e.jobsFor("vrf_set_approved")[before["vrf_set_approved"]:]
	assertJobs(t, "rescheduled", got, []Job{{Kind: JobPurgeVerification, Subject: "vrf_set_approved",
		RunAt: at(2*time.Hour + days(2))}}, time.Time{})
	for _, id := range []string{"vrf_set_purged", "vrf_set_other", "vrf_set_pending", v.ID} {
		if n := len(e.jobsFor(id)); n != before[id] {
			t.Errorf("%s: SetRetentionDays enqueued %d jobs, want none", id, n-before[id])
		}
	}

	// When the queue refuses the jobs, the setting is not changed either.
	e.failJobs(errFailJobs)
	if err := e.SetRetentionDays(ctx, prod.BusinessID, 9); err == nil {
		t.Error("SetRetentionDays succeeded although its jobs could not be enqueued")
	}
	e.failJobs(nil)
	if b, _ := e.Business(ctx, prod.BusinessID); b.RetentionDays != 2 {
		t.Errorf("retention after the failed change = %d, want 2", b.RetentionDays)
	}
}

// decidedAPI stores a hosted identity-API verification with images and two
// check runs, and approves it at at(time.Hour).
func decidedAPI(t *testing.T, ctx context.Context, e *env, id string) (verifyd.Verification, []verifyd.CheckRun) {
	t.Helper()
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification(id, prod, clock)
	mustCreateVerification(t, ctx, e, v, withFrames(id, newImages(id)))
	mustTransition(t, ctx, e, transition(id, verifyd.StatusStarted, at(time.Second)), "evt_"+id+"_1")
	var runs []verifyd.CheckRun
	for n, outcome := range []string{"failed", "approved"} {
		run, err := e.RecordCheckRun(ctx, verifyd.CheckRun{VerificationID: id, At: at(time.Duration(n+1) * time.Minute),
			Outcome: outcome, SealedResults: opaque(id+"/evidence/"+outcome, 300)}, verifyd.ReviewNone, digest(id+"/document"))
		if err != nil {
			t.Fatalf("RecordCheckRun: %v", err)
		}
		runs = append(runs, run)
	}
	v = mustTransition(t, ctx, e, transition(id, verifyd.StatusApproved, at(time.Hour)), "evt_"+id+"_2")
	return v, runs
}

// testPurgeIdentityAPI: the retention's purge deletes the images and
// evidence of an identity-API verification and keeps what B3 shows.
func testPurgeIdentityAPI(t *testing.T, ctx context.Context, e *env) {
	v, runs := decidedAPI(t, ctx, e, "vrf_ret_purge")
	history := mustStatusEvents(t, ctx, e, v.ID)
	sums := summaries(runs, "ret")
	purgedAt := at(days(30) + time.Hour)
	got, err := e.PurgeVerification(ctx, v.ID, sums, purgedAt)
	if err != nil {
		t.Fatalf("PurgeVerification: %v", err)
	}
	want := v
	want.DocumentHash, want.PurgedAt = nil, &purgedAt
	assertEqual(t, "purged verification", got, want)
	assertStored(t, ctx, e, "purged verification", want)
	assertImages(t, ctx, e, v.ID, nil)
	assertEqual(t, "runs after the purge", mustCheckRuns(t, ctx, e, v.ID), sums)
	assertHistory(t, ctx, e, "after the purge", v.ID, history)
	// The hosted page still finds it (it shows the outcome).
	if byToken, err := e.VerificationByHostedToken(ctx, v.HostedTokenHash); err != nil || byToken.ID != v.ID {
		t.Errorf("VerificationByHostedToken after the purge: %v, %v", byToken.ID, err)
	}
}

// testRedact: a redaction deletes images, evidence, contact details, the
// declared document and the hosted page's token, keeps status, reason,
// times, history and the runs' outcomes, and a second one changes nothing.
func testRedact(t *testing.T, ctx context.Context, e *env) {
	v, runs := decidedAPI(t, ctx, e, "vrf_redact")
	history := mustStatusEvents(t, ctx, e, v.ID)
	sums := summaries(runs, "redact")
	when := oddClock.Add(5 * time.Hour)
	got, err := e.RedactVerification(ctx, v.ID, sums, when)
	if err != nil {
		t.Fatalf("RedactVerification: %v", err)
	}
	want := v
	want.DocumentHash, want.PurgedAt, want.RedactedAt = nil, &when, &when
	want.Customer.Email, want.Customer.Phone, want.Document = "", "", verifyd.DocumentInfo{}
	want.HostedTokenHash, want.SealedHostedToken = nil, nil
	assertEqual(t, "redacted verification", got, want)
	assertStored(t, ctx, e, "redacted verification", want)
	assertImages(t, ctx, e, v.ID, nil)
	assertEqual(t, "runs after the redaction", mustCheckRuns(t, ctx, e, v.ID), sums)
	assertHistory(t, ctx, e, "after the redaction", v.ID, history)
	_, err = e.VerificationByHostedToken(ctx, v.HostedTokenHash)
	assertNotFound(t, "VerificationByHostedToken after the redaction", err)
	assertLateRunRefused(t, ctx, e, "after the redaction", v.ID)

	again, err := e.RedactVerification(ctx, v.ID, summaries(runs, "again"), when.Add(time.Hour))
	if err != nil {
		t.Fatalf("second RedactVerification: %v", err)
	}
	assertEqual(t, "second redaction", again, want)
	assertEqual(t, "runs after the second redaction", mustCheckRuns(t, ctx, e, v.ID), sums)
	// A later purge (the retention job) leaves it alone too.
	if purged, err := e.PurgeVerification(ctx, v.ID, nil, when.Add(2*time.Hour)); err != nil {
		t.Errorf("PurgeVerification of a redacted verification: %v", err)
	} else {
		assertEqual(t, "purge after the redaction", purged, want)
	}
}

// testRedactAfterPurge: redacting a purged verification keeps the purge's
// time and summaries and deletes the contact details.
func testRedactAfterPurge(t *testing.T, ctx context.Context, e *env) {
	v, runs := decidedAPI(t, ctx, e, "vrf_redact_purged")
	sums := summaries(runs, "purge")
	purgedAt := at(2 * time.Hour)
	if _, err := e.PurgeVerification(ctx, v.ID, sums, purgedAt); err != nil {
		t.Fatalf("PurgeVerification: %v", err)
	}
	when := at(3 * time.Hour)
	got, err := e.RedactVerification(ctx, v.ID, nil, when)
	if err != nil {
		t.Fatalf("RedactVerification: %v", err)
	}
	want := v
	want.DocumentHash, want.PurgedAt, want.RedactedAt = nil, &purgedAt, &when
	want.Customer.Email, want.Customer.Phone, want.Document = "", "", verifyd.DocumentInfo{}
	want.HostedTokenHash, want.SealedHostedToken = nil, nil
	assertEqual(t, "redacted after the purge", got, want)
	assertStored(t, ctx, e, "redacted after the purge", want)
	assertEqual(t, "runs", mustCheckRuns(t, ctx, e, v.ID), sums)
}

// testAuditLog: entries come back oldest first, filtered by business and
// time, the newest Limit of them, with every field kept.
func testAuditLog(t *testing.T, ctx context.Context, e *env) {
	if got, err := e.AuditEntries(ctx, verifyd.AuditFilter{}); err != nil || len(got) != 0 || got == nil {
		t.Errorf("AuditEntries of an empty log = %#v, %v; want an empty, non-nil list", got, err)
	}
	entries := []verifyd.AuditEntry{
		{At: at(time.Minute), BusinessID: "biz_a", Actor: verifyd.Actor{Kind: verifyd.ActorOperator, Name: "cli:root"},
			Action: verifyd.AuditBusinessSet, Subject: "biz_a", Detail: "retention_days=7"},
		{At: at(2 * time.Minute), BusinessID: "biz_b", Actor: verifyd.Actor{Kind: verifyd.ActorAPIKey, Name: "vdk_live_idv_x"},
			Action: verifyd.AuditRedact, Subject: "vrf_1", Detail: "status approved"},
		// Same instant as the next: insertion order decides.
		{At: at(3 * time.Minute), BusinessID: "biz_a", Actor: verifyd.Actor{Kind: verifyd.ActorOperator, Name: "alice"},
			Action: verifyd.AuditDecision, Subject: "vrf_2", Detail: "failed potential_fraud"},
		{At: at(3 * time.Minute), Actor: verifyd.Actor{Kind: verifyd.ActorSystem, Name: "verifyd"},
			Action: verifyd.AuditKeyRevoke, Subject: "vdk_live_age_y"},
	}
	for _, en := range entries {
		if err := e.AppendAudit(ctx, en); err != nil {
			t.Fatalf("AppendAudit: %v", err)
		}
	}
	list := func(f verifyd.AuditFilter) []verifyd.AuditEntry {
		t.Helper()
		got, err := e.AuditEntries(ctx, f)
		if err != nil {
			t.Fatalf("AuditEntries(%+v): %v", f, err)
		}
		for n := range got {
			if got[n].ID == 0 || (n > 0 && got[n].ID <= got[n-1].ID && got[n].At.Equal(got[n-1].At)) {
				t.Errorf("entry %d has id %d", n, got[n].ID)
			}
			got[n].ID = 0
		}
		return got
	}
	for _, c := range []struct {
		name string
		f    verifyd.AuditFilter
		want []verifyd.AuditEntry
	}{
		{"all", verifyd.AuditFilter{}, entries},
		{"one business", verifyd.AuditFilter{BusinessID: "biz_a"}, []verifyd.AuditEntry{entries[0], entries[2]}},
		{"since", verifyd.AuditFilter{Since: at(2 * time.Minute)}, entries[1:]},
		{"the newest two", verifyd.AuditFilter{Limit: 2}, entries[2:]},
		{"business, since and limit", verifyd.AuditFilter{BusinessID: "biz_a", Since: at(time.Minute), Limit: 1},
			entries[2:3]},
	} {
		assertEqual(t, "AuditEntries "+c.name, list(c.f), c.want)
	}
}
