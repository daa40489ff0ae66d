package dashpages_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"html"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

// TestViewerSeesWebhookURLsWithoutQuery checks, on both databases, that
// the webhooks and verification pages show a viewer a webhook URL without
// its query (where receivers often put a token), and owners and
// developers the whole URL.
func TestViewerSeesWebhookURLsWithoutQuery(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNoContent)
			}))
			t.Cleanup(receiver.Close)
			hook := receiver.URL + "/hooks?token=s3cret-hook-token"
			bare := receiver.URL + "/hooks"
			ts := testserver.Start(t, d, testserver.Options{Dev: true})

			// A verification with a webhook, so it has events.
			img := image.NewRGBA(image.Rect(0, 0, 240, 160))
			for y := 0; y < 160; y++ {
				for x := 0; x < 240; x++ {
					img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
				}
			}
			var b bytes.Buffer
			if err := jpeg.Encode(&b, img, nil); err != nil {
				t.Fatal(err)
			}
			photo := base64.StdEncoding.EncodeToString(b.Bytes())
			var in identity.SubmitInput
			in.Customer.Customer = verifyd.Customer{ID: "0b6e2a4c-3c1f-4b8e-9a51-6f0d2c7e8a13", Email: "someone+minor@example.com"}
			in.Customer.Selfie, in.Customer.Document.Front, in.Customer.Document.Country = photo, photo, "gbr"
			in.Webhook = hook
			v, err := ts.Identity.Submit(context.Background(), ts.Credential(verifyd.InterfaceIdentity, verifyd.EnvSandbox), in)
			if err != nil {
				t.Fatal(err)
			}

			owner, ocsrf, _ := join(t, ts, verifyd.RoleOwner, "owner@example.com")
			if res, page := owner.do("POST", "/dashboard/webhooks/test", url.Values{"url": {hook}, "environment": {"sandbox"},
				"csrf_token": {ocsrf}}); res.StatusCode != http.StatusOK || !strings.Contains(page, `id="test-result"`) {
				t.Fatalf("sending a test event: %s\n%s", res.Status, page)
			}
			developer, _, _ := join(t, ts, verifyd.RoleDeveloper, "dev@example.com")
			viewer, _, _ := join(t, ts, verifyd.RoleViewer, "viewer@example.com")

			verification := "/dashboard/verifications/" + v.ID
			// The submission's first event is written as it is processed.
			deadline := time.Now().Add(20 * time.Second)
			for {
				if _, page := owner.do("GET", verification, nil); strings.Contains(html.UnescapeString(page), hook) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no webhook event on the verification's page")
				}
				time.Sleep(100 * time.Millisecond)
			}
			for _, tc := range []struct {
				name  string
				c     *client
				whole bool
			}{{"owner", owner, true}, {"developer", developer, true}, {"viewer", viewer, false}} {
				for _, path := range []string{"/dashboard/webhooks", verification} {
					res, page := tc.c.do("GET", path, nil)
					page = html.UnescapeString(page)
					if res.StatusCode != http.StatusOK {
						t.Fatalf("%s %s: %s", tc.name, path, res.Status)
					}
					if got := strings.Contains(page, "s3cret-hook-token"); got != tc.whole {
						t.Errorf("%s %s: shows the query = %v, want %v", tc.name, path, got, tc.whole)
					}
					if !strings.Contains(page, "<code>"+bare) {
						t.Errorf("%s %s: no webhook URL %s in the page", tc.name, path, bare)
					}
				}
			}
		})
	}
}
