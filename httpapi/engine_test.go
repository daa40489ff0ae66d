package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"

	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mrz"
)

// submitAs submits a B2 passport with the given e-mail and images and
// returns its id.
func submitAs(t *testing.T, c *client, email, webhook string, selfie, front []byte) string {
	t.Helper()
	return submitDocument(t, c, email, webhook, "Passport", selfie, front, nil)
}

func submitDocument(t *testing.T, c *client, email, webhook, docType string, selfie, front, back []byte) string {
	t.Helper()
	doc := map[string]any{"type": docType, "country": "gbr", "front": b64(front)}
	if back != nil {
		doc["back"] = b64(back)
	}
	body := map[string]any{
		"customer": map[string]any{"id": newCustomerID(), "email": email, "selfie": b64(selfie), "document": doc},
		"webhook":  webhook,
	}
	res := c.send("POST", "/api/v1/identity-verification/selfie-document-validation", body)
	if res.status != 201 {
		t.Fatalf("B2: %d %s", res.status, res.raw)
	}
	return res.json(t)["id"].(string)
}

// TestSandboxSubmissionOutcomes: in the sandbox the e-mail tag picks the
// outcome of a direct submission, for every SPEC status and reason.
func TestSandboxSubmissionOutcomes(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	rc := newReceiver(t, ts.Credential(idp, sbx))
	c := newClient(t, ts, idp, sbx)
	selfie, front := testPNG(t, 100, 120, false), testJPEG(t, 200, 120)
	type want struct{ tag, webhooks, status string }
	cases := []want{
		{"", "started:,approved:", "approved"},
		{"+approved", "started:,approved:", "approved"},
		{"+started", "started:", "started"},
		{"+review", "started:", "started"},
	}
	for _, r := range verifyd.Reasons {
		cases = append(cases, want{"+" + string(r), "started:,failed:" + string(r), "failed"})
	}
	ids := map[string]want{}
	for _, w := range cases {
		ids[submitAs(t, c, "ada"+w.tag+"@example.com", rc.url(), selfie, front)] = w
	}
	pending := submitAs(t, c, "ada+pending@example.com", rc.url(), selfie, front)
	for id, w := range ids {
		rc.waitFor(w.tag+" "+w.webhooks, hasStatuses(id, strings.Split(w.webhooks, ",")...))
		if got := c.send("GET", "/api/v1/identity-verification/"+id, nil).json(t)["status"]; got != w.status {
			t.Errorf("%s: status %v, want %s", w.tag, got, w.status)
		}
	}
	queue, err := ts.Store.ReviewQueue(context.Background(), 10)
	if err != nil || len(queue) != 1 || queue[0].Customer.Email != "ada+review@example.com" {
		t.Fatalf("review queue: %v %+v", err, queue)
	}
	if got := statuses(rc.all(), pending); len(got) != 0 {
		t.Fatalf("+pending was processed: %v", got)
	}
}

func runsOf(t *testing.T, ts *testserver.Server, id string) []engine.Result {
	t.Helper()
	runs, err := ts.Store.CheckRuns(context.Background(), id)
	if err != nil || len(runs) == 0 {
		t.Fatalf("check runs: %v %d", err, len(runs))
	}
	results, _, err := ts.Identity.CheckResults(runs[len(runs)-1])
	if err != nil {
		t.Fatal(err)
	}
	return results
}

// docPhoto is a mildly degraded photo of a generated identity card.
func docPhoto(t *testing.T, seed uint64) []byte {
	t.Helper()
	gen := docgen.NewGenerator(seed, time.Now())
	spec := gen.Spec(mrz.TD1)
	doc, err := docgen.Render(spec)
	if errors.Is(err, docgen.ErrNoFont) {
		testdb.Skip(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	ph, err := docgen.Photograph(doc, docgen.Mild(), seed)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, ph.Image, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestProductionSubmissionDecisions(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	rc := newReceiver(t, ts.Credential(idp, prd))
	c := newClient(t, ts, idp, prd)
	selfie, front := testJPEG(t, 320, 400), docPhoto(t, 1)

	// A photo too small to read fails with poor_id_scan_error.
	small := submitAs(t, c, "a@example.com", rc.url(), testJPEG(t, 321, 400), testJPEG(t, 320, 200))
	rc.waitFor("poor scan", hasStatuses(small, "started:", "failed:poor_id_scan_error"))

	// A driver licence has no MRZ and nobody compared the faces yet: it is
	// not approved silently but waits for review with every check's evidence.
	ok := submitDocument(t, c, "b@example.com", rc.url(), "DriverLicense", selfie, front, docPhoto(t, 2))
	rc.waitFor("started", hasStatuses(ok, "started:"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		q, _ := ts.Store.ReviewQueue(context.Background(), 10)
		if len(q) == 1 && q[0].ID == ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not in the review queue: %+v", q)
		}
		time.Sleep(20 * time.Millisecond)
	}
	results := runsOf(t, ts, ok)
	// decode, document (review: a licence without OCR), visual_zone
	// (nothing to compare), consistency, face (review: no models).
	if len(results) != 5 || results[1].Check != "document" || results[1].Outcome != engine.Review ||
		results[2].Check != "visual_zone" || results[4].Check != "face" || results[4].Outcome != engine.Review {
		t.Fatalf("results: %+v", results)
	}

	// The selfie is the document photo itself.
	same := submitDocument(t, c, "c@example.com", rc.url(), "DriverLicense", front, front, docPhoto(t, 3))
	rc.waitFor("fraud", hasStatuses(same, "started:", "failed:potential_fraud"))
	// Another customer's selfie.
	reused := submitDocument(t, c, "d@example.com", rc.url(), "DriverLicense", selfie, docPhoto(t, 4), docPhoto(t, 5))
	rc.waitFor("reused selfie", hasStatuses(reused, "started:", "failed:potential_fraud"))
}

type flaky struct{ calls *int }

func (flaky) Name() string { return "flaky" }
func (f flaky) Run(context.Context, *engine.Input) engine.Result {
	*f.calls++
	return engine.Errored(fmt.Errorf("crash number %d", *f.calls), nil)
}

// TestOurFailuresAreNotTheCustomers: a check that keeps erroring is
// retried, then fails the verification with idv_error; a missing
// component fails it with server_error_unavailable at once.
func TestOurFailuresAreNotTheCustomers(t *testing.T) {
	t.Parallel()
	calls := 0
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Pipeline: engine.NewPipeline(engine.DecodeCheck{}, flaky{&calls})})
	rc := newReceiver(t, ts.Credential(idp, prd))
	c := newClient(t, ts, idp, prd)
	id := submitAs(t, c, "a@example.com", rc.url(), testJPEG(t, 320, 400), testJPEG(t, 900, 600))
	rc.waitFor("idv_error", hasStatuses(id, "started:", "failed:idv_error"))
	runs, _ := ts.Store.CheckRuns(context.Background(), id)
	if len(runs) < 2 || runs[len(runs)-1].Outcome != "error" {
		t.Fatalf("runs: %+v", runs)
	}
	_, runErr, _ := ts.Identity.CheckResults(runs[0])
	if !strings.Contains(runErr, "crash number 1") {
		t.Fatalf("the cause is not visible to operators: %q", runErr)
	}
	// The pipeline ran MaxPipelineRuns times; the next attempt failed the
	// verification without running it (as after runs the process died in).
	if calls != identity.MaxPipelineRuns {
		t.Errorf("the pipeline ran %d times, want %d", calls, identity.MaxPipelineRuns)
	}
	if _, last, _ := ts.Identity.CheckResults(runs[len(runs)-1]); !strings.Contains(last, "started 3 times") {
		t.Errorf("the last run's error: %q", last)
	}

	missing := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Pipeline: engine.NewPipeline(unavailable{})})
	rc2 := newReceiver(t, missing.Credential(idp, prd))
	id = submitAs(t, newClient(t, missing, idp, prd), "a@example.com", rc2.url(), testJPEG(t, 320, 400), testJPEG(t, 900, 600))
	rc2.waitFor("unavailable", hasStatuses(id, "started:", "failed:server_error_unavailable"))
}

type unavailable struct{}

func (unavailable) Name() string { return "models" }
func (unavailable) Run(context.Context, *engine.Input) engine.Result {
	return engine.Errored(fmt.Errorf("face models: %w", engine.ErrUnavailable), nil)
}

// directPolicy is a check that fails (with a reason nobody else uses)
// when the engine is asked to review direct submissions, and passes
// otherwise: what the liveness check does with a live selfie.
type directPolicy struct{}

func (directPolicy) Name() string { return "direct_policy" }
func (directPolicy) Run(_ context.Context, in *engine.Input) engine.Result {
	if in.DirectReview {
		return engine.Failed(verifyd.ReasonLivenessError, "DirectReview set", nil)
	}
	return engine.Passed("DirectReview unset", nil)
}

// TestDirectLivenessPolicy: a business's direct_liveness policy reaches
// the engine for its production direct submissions (and only after it
// changed), so that the liveness check can send them to review.
func TestDirectLivenessPolicy(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Pipeline: engine.NewPipeline(engine.DecodeCheck{}, directPolicy{})})
	cred := ts.Credential(idp, prd)
	rc := newReceiver(t, cred)
	c := newClient(t, ts, idp, prd)
	id := submitAs(t, c, "a@example.com", rc.url(), testJPEG(t, 320, 400), testJPEG(t, 900, 600))
	rc.waitFor("auto", hasStatuses(id, "started:", "approved:"))
	if err := ts.Store.SetDirectLiveness(context.Background(), cred.BusinessID, verifyd.DirectLivenessReview); err != nil {
		t.Fatal(err)
	}
	id = submitAs(t, c, "b@example.com", rc.url(), testJPEG(t, 320, 400), testJPEG(t, 900, 600))
	rc.waitFor("review", hasStatuses(id, "started:", "failed:liveness_error"))
}
