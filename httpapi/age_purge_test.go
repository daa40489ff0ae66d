package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestAgePurgeAfterDecision: once the document method's internal
// verification is decided, the purge job deletes its photos and replaces
// its evidence with a summary (docs/age.md, data minimisation), before the
// age flow has even looked at the decision; the age result still comes out
// right through A3, and the review console shows what happened instead of
// failing. An identity-API verification keeps everything.
func TestAgePurgeAfterDecision(t *testing.T) {
	t.Parallel()
	check := &docCheck{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Pipeline: engine.NewPipeline(check)})
	f := newOAuth(t, ts, prd)
	good := goodPhotos(t)
	ctx := context.Background()

	for _, c := range []struct {
		email, birth string
		adult        bool
	}{
		{"adult@example.com", "1990-04-01", true},
		// Approved, but the MRZ says 17: only the age kept in the summary
		// can still tell, since the date of birth is gone by the time the
		// flow decides the proof.
		{"minor@example.com", time.Now().AddDate(-17, 0, 0).Format(time.DateOnly), false},
	} {
		check.set(engine.Passed("mrz read for "+c.birth, mrzEvidence(c.birth)))
		b := newFlowBrowser(t, f)
		b.authorize("gb")
		wantStatus(t, b.signUp(c.email), http.StatusSeeOther)
		b.wantStep("document")
		wantStatus(t, b.upload(good), http.StatusAccepted)

		// No page is opened until the purge is done: the flow decides the
		// proof from what the purge left.
		id := internalVerificationOf(t, ts, c.email)
		v, run := ts.WaitPurged(t, id)
		if v.Status != verifyd.StatusApproved || !v.Internal() || v.DocumentHash != nil {
			t.Fatalf("%s: purged verification %+v", c.email, v)
		}
		raw, err := ts.Sealer.Open(run.SealedResults, []byte("checks/"+id))
		if err != nil {
			t.Fatalf("open the summary: %v", err)
		}
		for _, secret := range []string{c.birth, "L01X00T47", "birth_date", "document_number", "mrz read", "evidence"} {
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("%s: the summary still holds %q: %s", c.email, secret, raw)
			}
		}
		var sum struct {
			Results []map[string]any `json:"results"`
			Purged  bool             `json:"purged"`
			Age     *int             `json:"age_at_decision"`
		}
		if err := json.Unmarshal(raw, &sum); err != nil || !sum.Purged || sum.Age == nil || (*sum.Age >= 18) != c.adult ||
			len(sum.Results) != 1 || sum.Results[0]["check"] != "document" || sum.Results[0]["outcome"] != "pass" {
			t.Errorf("%s: summary %s (%v), want the document check's pass and the age", c.email, raw, err)
		}
		if run.Outcome != "approved" {
			t.Errorf("%s: run outcome %q after the purge", c.email, run.Outcome)
		}

		// A3 answers as it would have without the purge.
		if m := b.finish(); m["age_verified"] != c.adult {
			t.Errorf("%s: users/me %v, want age_verified %v", c.email, m, c.adult)
		}
	}

	// The review console shows the purged verification and says why it has
	// no images; an image link answers 410.
	id := internalVerificationOf(t, ts, "adult@example.com")
	createOperator(t, ts, "reviewer", "correct horse battery staple")
	op := newOperatorBrowser(t, ts)
	op.login("reviewer", "correct horse battery staple").wantRedirect(t, "/console")
	page := op.get("/console/verifications/"+id).wantStatus(t, http.StatusOK)
	for _, want := range []string{"Images deleted after the decision (data minimisation).",
		"images deleted after the decision (data minimisation) on ", ">document<", ">pass<"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("console item lacks %q:\n%s", want, page.body)
		}
	}
	if strings.Contains(page.body, "No images were submitted") || strings.Contains(page.body, "L01X00T47") {
		t.Errorf("console item of a purged verification:\n%s", page.body)
	}
	img := op.get("/console/verifications/" + id + "/images/selfie")
	if img.status != http.StatusGone || !strings.Contains(img.body, "data minimisation") {
		t.Errorf("image of a purged verification: %d %s", img.status, img.body)
	}

	// The identity API's verifications are the integrator's: decided, they
	// keep their images.
	rc := newReceiver(t, ts.Credential(idp, prd))
	apiID := submitAs(t, newClient(t, ts, idp, prd), "ada@example.com", rc.url(), testPNG(t, 100, 120, false), testJPEG(t, 200, 120))
	deadline := time.Now().Add(20 * time.Second)
	for {
		v, err := ts.Store.VerificationByID(ctx, apiID)
		if err == nil && v.Status.Terminal() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("identity-API verification not decided: %+v %v", v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A purge asked for directly (as a stray job would) leaves it alone.
	if err := ts.Identity.Purge(ctx, apiID); err != nil {
		t.Fatalf("purge of an identity-API verification: %v", err)
	}
	v, err := ts.Store.VerificationByID(ctx, apiID)
	if images, ierr := ts.Store.Images(ctx, apiID); err != nil || ierr != nil || v.PurgedAt != nil || len(images) == 0 {
		t.Errorf("identity-API verification after its decision: purged %v, %d images (%v, %v)", v.PurgedAt, len(images), err, ierr)
	}
}

// internalVerificationOf returns the id of the internal verification of an
// account's latest document proof.
func internalVerificationOf(t *testing.T, ts *testserver.Server, email string) string {
	t.Helper()
	ctx := context.Background()
	acc, err := ts.Store.AgeAccountByEmail(ctx, verifyd.EnvProduction, email)
	if err != nil {
		t.Fatalf("account %s: %v", email, err)
	}
	proofs, err := ts.Store.AgeProofs(ctx, verifyd.EnvProduction, acc.ID)
	if err != nil || len(proofs) == 0 || proofs[0].IdentityVerificationID == "" {
		t.Fatalf("proofs of %s: %+v, %v", email, proofs, err)
	}
	return proofs[0].IdentityVerificationID
}
