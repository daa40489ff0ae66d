package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/sdk"
	"github.com/verifyd/verifyd/sqlstore"
)

// TestCrashLoopIsBounded: a submission whose processing kills the process
// each time (here SIGKILL as soon as its job is running, as an
// out-of-memory kill would) is started identity.MaxPipelineRuns times;
// after the next restart the rescued job fails the verification with
// idv_error without running the pipeline, and the server stays up.
// Without the bound the job ran again on every restart.
func TestCrashLoopIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := newDeployment(t, "sqlite")
	biz := d.createBusiness(t, "crashloop")
	cred := biz.cred(t, "identity", "production")
	rcv := newReceiver(t, cred)
	srv := d.startServer(t, "run1")
	cl, err := sdk.New(srv.origin+"/identity", cred.APIKey, cred.APISecret)
	if err != nil {
		t.Fatal(err)
	}
	// A large photo, so the pipeline is still decoding it when the job
	// is seen running.
	big := grayJPEG(t, 6000, 4500)
	v, err := cl.Identity().SubmitImages(ctx, sdk.SubmitImagesRequest{
		Customer: sdk.Customer{ID: uuid.NewString(), Email: "loop@example.com"}, DocumentCountry: "gbr",
		Selfie: big, DocumentFront: big, Webhook: rcv.url()})
	if err != nil {
		t.Fatal(err)
	}
	_, path, err := sqlstore.ParseURL(d.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	job := func() (attempt int, state string) {
		err := db.QueryRow(`SELECT attempt, state FROM river_job WHERE kind = 'verification_process'`).Scan(&attempt, &state)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Logf("read the job: %v", err)
		}
		return attempt, state
	}
	for run := 1; run <= identity.MaxPipelineRuns; run++ {
		deadline := time.Now().Add(time.Minute)
		for {
			if a, st := job(); a == run && st == "running" {
				break
			} else if st == "completed" || st == "discarded" {
				t.Fatalf("run %d: the job is %s at attempt %d before it could be killed (the photo decoded too fast)", run, st, a)
			}
			if time.Now().After(deadline) {
				a, st := job()
				t.Fatalf("run %d: the job did not start (attempt %d, %s)", run, a, st)
			}
			time.Sleep(2 * time.Millisecond)
		}
		srv.kill()
		srv = d.startServer(t, fmt.Sprint("run", run+1))
	}
	deadline := time.Now().Add(time.Minute)
	for {
		show := d.showVerification(t, v.ID)
		if show.Verification.Status == "failed" {
			if show.Verification.Reason != "idv_error" {
				t.Fatalf("failed with %q, want idv_error", show.Verification.Reason)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not decided a minute after the last restart: %+v", show.Verification)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The job ends just after the decision it made.
	a, st := job()
	for end := time.Now().Add(10 * time.Second); st == "running" && time.Now().Before(end); a, st = job() {
		time.Sleep(10 * time.Millisecond)
	}
	if a != identity.MaxPipelineRuns+1 || st != "completed" {
		t.Errorf("the job: attempt %d, %s; want attempt %d, completed", a, st, identity.MaxPipelineRuns+1)
	}
	srv.checkAlive(t)
}

// grayJPEG is a smooth grey JPEG: small to send, large to decode.
func grayJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i / 97)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 50}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
