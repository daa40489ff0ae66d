package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// The document method's biometric consent (agehosted StepBiometric,
// docs/age.md "Biometric consent"): nothing of the face is accepted before
// the person agreed; a no ends the attempt and offers the other methods
// and the way back.

// TestAgeBiometricConsent runs the question, its enforcement and both
// answers on each database.
func TestAgeBiometricConsent(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			testAgeBiometric(t, testserver.Start(t, d, testserver.Options{Dev: true}))
		})
	}
}

// documentAttempt is the internal verification of the account's latest
// document proof.
func documentAttempt(t *testing.T, ts *testserver.Server, env verifyd.Environment, email string) verifyd.Verification {
	t.Helper()
	ctx := context.Background()
	acct, err := ts.Store.AgeAccountByEmail(ctx, env, email)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := ts.Store.AgeProofs(ctx, env, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range proofs {
		if p.Method == verifyd.AgeMethodDocument {
			v, err := ts.Store.VerificationByID(ctx, p.IdentityVerificationID)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no document proof among %+v", proofs)
	return verifyd.Verification{}
}

func testAgeBiometric(t *testing.T, ts *testserver.Server) {
	f := newOAuth(t, ts, sbx)
	b := newFlowBrowser(t, f)
	b.biometric = false
	const email = "face@example.com"

	// The sandbox offers several methods in gb: the document asks first.
	b.authorize("gb")
	wantStatus(t, b.signUp(email), http.StatusSeeOther)
	b.wantStep("methods")
	wantStatus(t, b.post("/method", url.Values{"method": {"document"}}), http.StatusSeeOther)
	page := b.wantStep("biometric")
	wantBody(t, page, `id="bio-yes"`, `id="bio-no"`, "Do you agree to this processing of your face?",
		"Your selfie is compared with the photo on your document", "that the age read from it is yours",
		"deleted as soon as your age is decided", "choose another way to prove your age", `id="cancel"`)
	wantNotBody(t, page, `id="capture"`, `name="selfie"`)
	// Choosing the document again neither skips the question nor starts a
	// second attempt.
	wantStatus(t, b.post("/method", url.Values{"method": {"document"}}), http.StatusSeeOther)
	b.wantStep("biometric")

	// Enforced on the server: no photos, no liveness challenge before the
	// answer (409, as on the identity page), whatever a page sends.
	b.tokens["capture"] = b.token("/biometric")
	res := b.upload(goodPhotos(t))
	wantStatus(t, res, http.StatusConflict)
	wantBody(t, res, "answer the question about the processing of your face first")
	req, _ := http.NewRequest(http.MethodPost, b.page+"/liveness-challenge", nil)
	req.Header.Set("X-CSRF-Token", b.tokens["capture"])
	wantStatus(t, b.send(req), http.StatusConflict)
	if v := documentAttempt(t, ts, sbx, email); v.ConsentedAt != nil || v.HostedSubmissions != 0 {
		t.Fatalf("before the answer: consented %v, submissions %d", v.ConsentedAt, v.HostedSubmissions)
	}
	// Answers that are neither yes nor no, or without the session's token.
	wantStatus(t, b.post("/biometric", url.Values{"consent": {"maybe"}}), http.StatusUnprocessableEntity)
	wantStatus(t, b.post("/biometric", url.Values{"consent": {"yes"}, "csrf_token": {"forged"}}), http.StatusForbidden)
	b.wantStep("biometric")

	// No: the attempt ends (failed, idv_error, cause consent_declined), the
	// methods come back with why, the document among them.
	wantStatus(t, b.post("/biometric", url.Values{"consent": {"no"}}), http.StatusSeeOther)
	page = b.wantStep("methods")
	wantBody(t, page, "You did not agree to the processing of your face", `id="method-document"`,
		`id="method-credit_card"`, `id="cancel"`)
	declined := documentAttempt(t, ts, sbx, email)
	if declined.Status != verifyd.StatusFailed || declined.Reason != verifyd.ReasonIDVError || declined.ConsentedAt != nil {
		t.Fatalf("declined attempt: %s %s consented %v", declined.Status, declined.Reason, declined.ConsentedAt)
	}
	events, err := ts.Store.StatusEvents(context.Background(), declined.ID)
	if err != nil || len(events) == 0 || events[len(events)-1].Cause != verifyd.CauseConsentDeclined {
		t.Fatalf("history %+v, %v: want the last cause consent_declined", events, err)
	}

	// The document again: a new attempt asks again; yes records the time
	// on it and the capture form follows; the check then decides.
	wantStatus(t, b.post("/method", url.Values{"method": {"document"}}), http.StatusSeeOther)
	b.wantStep("biometric")
	wantStatus(t, b.post("/biometric", url.Values{"consent": {"yes"}}), http.StatusSeeOther)
	wantBody(t, b.wantStep("document"), `id="capture"`)
	agreed := documentAttempt(t, ts, sbx, email)
	if agreed.ID == declined.ID || agreed.ConsentedAt == nil {
		t.Fatalf("new attempt %s (declined %s), consented %v", agreed.ID, declined.ID, agreed.ConsentedAt)
	}
	// A second yes (another tab) changes nothing.
	wantStatus(t, b.post("/biometric", url.Values{"consent": {"yes"}, "csrf_token": {b.tokens["capture"]}}), http.StatusSeeOther)
	if again := documentAttempt(t, ts, sbx, email); !again.ConsentedAt.Equal(*agreed.ConsentedAt) {
		t.Fatalf("consent time moved: %v → %v", agreed.ConsentedAt, again.ConsentedAt)
	}
	wantStatus(t, b.upload(goodPhotos(t)), http.StatusAccepted)
	b.waitStep("done")
	if m := b.finish(); m["age_verified"] != true {
		t.Fatalf("after consent: users/me %v", m)
	}

	// Germany accepts the document only: the question comes at once; no
	// leaves the document and the way back, which answers not verified.
	d := newFlowBrowser(t, f)
	d.biometric = false
	d.authorize("de")
	wantStatus(t, d.signUp("nein@example.de"), http.StatusSeeOther)
	d.wantStep("biometric")
	wantStatus(t, d.post("/biometric", url.Values{"consent": {"no"}}), http.StatusSeeOther)
	page = d.wantStep("methods")
	wantBody(t, page, "You did not agree to the processing of your face", `id="method-document"`, `id="cancel"`)
	wantNotBody(t, page, `id="method-credit_card"`)
	if m := d.wantBack(d.post("/cancel", url.Values{})); m["age_verified"] != false {
		t.Fatalf("cancel after a decline: users/me %v", m)
	}
}
