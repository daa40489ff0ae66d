package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// dashboardTests check what the business dashboard reads and writes:
// VerificationStore.ListVerifications and RecordConsent, the business
// filter of LifecycleStore.WebhookEvents, BrandingStore and
// WebhookTestStore.
var dashboardTests = map[string]func(*testing.T, context.Context, *env){
	"ListVerificationsFilters":         testListVerificationsFilters,
	"ListVerificationsPages":           testListVerificationsPages,
	"RecordConsentKeepsTheFirst":       testRecordConsent,
	"WebhookEventsOfABusiness":         testWebhookEventsOfBusiness,
	"BrandingRoundTrip":                testBrandingRoundTrip,
	"BrandingOfAnUnknownBusiness":      testBrandingUnknownBusiness,
	"WebhookTestsNewestFirstPerTenant": testWebhookTests,
}

func ids(vs []verifyd.Verification) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.ID)
	}
	return out
}

// dashboardFixture creates, for business biz_v, verifications one minute
// apart (so newest first is the reverse of this order) in both
// environments and statuses, one internal verification, and one
// verification of biz_w; it returns biz_v's production credential.
//
//	vrf_a production pending   customer c1
//	vrf_b production approved  customer c2
//	vrf_c sandbox    failed    customer c1 (photo_mismatch)
//	vrf_d production failed    customer c3 (minor)
//	vrf_i production internal (never listed)
//	vrf_w biz_w      pending   customer c1
func dashboardFixture(t *testing.T, ctx context.Context, e *env) verifyd.StoredCredential {
	t.Helper()
	prod, sandbox := verificationFixture(t, ctx, e)
	_, otherCreds := createBusiness(t, ctx, e, "biz_x", clock)
	const c1, c2, c3 = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"
	make := func(id string, cred verifyd.StoredCredential, n int, customer string) {
		v := pendingVerification(id, cred, clock.Add(time.Duration(n)*time.Minute))
		v.Customer.ID = customer
		mustCreateVerification(t, ctx, e, v, nil)
	}
	make("vrf_a", prod, 0, c1)
	make("vrf_b", prod, 1, c2)
	make("vrf_c", sandbox, 2, c1)
	make("vrf_d", prod, 3, c3)
	iv := internalVerification("vrf_i", prod, clock.Add(4*time.Minute))
	mustCreateVerification(t, ctx, e, iv, nil)
	make("vrf_w", otherCreds[0], 5, c1)
	for _, id := range []string{"vrf_b", "vrf_c", "vrf_d"} {
		mustTransition(t, ctx, e, transition(id, verifyd.StatusStarted, at(time.Hour)), "evt_"+id+"_1")
	}
	mustTransition(t, ctx, e, transition("vrf_b", verifyd.StatusApproved, at(2*time.Hour)), "evt_vrf_b_2")
	mustTransition(t, ctx, e, transition("vrf_c", verifyd.StatusFailed, at(2*time.Hour)), "evt_vrf_c_2")
	minor := transition("vrf_d", verifyd.StatusFailed, at(2*time.Hour))
	minor.Reason = verifyd.ReasonMinor
	mustTransition(t, ctx, e, minor, "evt_vrf_d_2")
	return prod
}

// testListVerificationsFilters: each filter alone and combined, against the
// fixture; another business's and internal verifications never appear.
func testListVerificationsFilters(t *testing.T, ctx context.Context, e *env) {
	prod := dashboardFixture(t, ctx, e)
	biz := prod.BusinessID
	for _, c := range []struct {
		name string
		q    verifyd.VerificationQuery
		want []string
	}{
		{"all, newest first", verifyd.VerificationQuery{}, []string{"vrf_d", "vrf_c", "vrf_b", "vrf_a"}},
		{"production", verifyd.VerificationQuery{Environment: verifyd.EnvProduction}, []string{"vrf_d", "vrf_b", "vrf_a"}},
		{"sandbox", verifyd.VerificationQuery{Environment: verifyd.EnvSandbox}, []string{"vrf_c"}},
		{"failed", verifyd.VerificationQuery{Status: verifyd.StatusFailed}, []string{"vrf_d", "vrf_c"}},
		{"reason minor", verifyd.VerificationQuery{Reason: verifyd.ReasonMinor}, []string{"vrf_d"}},
		{"failed in production", verifyd.VerificationQuery{Status: verifyd.StatusFailed, Environment: verifyd.EnvProduction}, []string{"vrf_d"}},
		{"pending", verifyd.VerificationQuery{Status: verifyd.StatusPending}, []string{"vrf_a"}},
		{"created from minute 1", verifyd.VerificationQuery{CreatedFrom: at(time.Minute)}, []string{"vrf_d", "vrf_c", "vrf_b"}},
		{"created before minute 2", verifyd.VerificationQuery{CreatedBefore: at(2 * time.Minute)}, []string{"vrf_b", "vrf_a"}},
		{"created in minute 1", verifyd.VerificationQuery{CreatedFrom: at(time.Minute), CreatedBefore: at(2 * time.Minute)}, []string{"vrf_b"}},
		{"search by id", verifyd.VerificationQuery{Search: "vrf_b"}, []string{"vrf_b"}},
		{"search by customer id", verifyd.VerificationQuery{Search: "11111111-1111-4111-8111-111111111111"}, []string{"vrf_c", "vrf_a"}},
		{"search is exact", verifyd.VerificationQuery{Search: "vrf_"}, []string{}},
		{"search another business's id", verifyd.VerificationQuery{Search: "vrf_w"}, []string{}},
		{"search an internal id", verifyd.VerificationQuery{Search: "vrf_i"}, []string{}},
		{"limit", verifyd.VerificationQuery{Limit: 2}, []string{"vrf_d", "vrf_c"}},
	} {
		c.q.BusinessID = biz
		got, err := e.ListVerifications(ctx, c.q)
		if err != nil {
			t.Fatalf("%s: ListVerifications: %v", c.name, err)
		}
		if !reflect.DeepEqual(ids(got), c.want) {
			t.Errorf("%s: ListVerifications = %v, want %v", c.name, ids(got), c.want)
		}
	}
	// The rows are whole verifications, as Verification reads them.
	got, err := e.ListVerifications(ctx, verifyd.VerificationQuery{BusinessID: biz, Search: "vrf_d"})
	if err != nil || len(got) != 1 {
		t.Fatalf("ListVerifications(vrf_d) = %v, %v", ids(got), err)
	}
	want, err := e.Verification(ctx, biz, verifyd.EnvProduction, "vrf_d")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("listed vrf_d = %+v, want %+v", got[0], want)
	}
	if got[0].Status != verifyd.StatusFailed || got[0].Reason != verifyd.ReasonMinor {
		t.Errorf("listed vrf_d is %s/%s, want failed/minor", got[0].Status, got[0].Reason)
	}
	other, err := e.ListVerifications(ctx, verifyd.VerificationQuery{BusinessID: "biz_nobody"})
	if err != nil || len(other) != 0 {
		t.Errorf("ListVerifications(unknown business) = %v, %v; want nothing", ids(other), err)
	}
}

// testListVerificationsPages: walking with the cursor visits every
// verification once, also when several share a creation time.
func testListVerificationsPages(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	var want []string
	for n := 0; n < 7; n++ {
		id := fmt.Sprintf("vrf_page_%d", n)
		// Pairs share a time: the id breaks the tie.
		mustCreateVerification(t, ctx, e, pendingVerification(id, prod, clock.Add(time.Duration(n/2)*time.Second)), nil)
		want = append([]string{id}, want...)
	}
	var got []string
	q := verifyd.VerificationQuery{BusinessID: prod.BusinessID, Limit: 3}
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatalf("more pages than rows: %v", got)
		}
		page, err := e.ListVerifications(ctx, q)
		if err != nil {
			t.Fatalf("ListVerifications: %v", err)
		}
		got = append(got, ids(page)...)
		if len(page) < q.Limit {
			break
		}
		last := page[len(page)-1]
		q.After = &verifyd.VerificationCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages = %v, want %v", got, want)
	}
}

// testRecordConsent: the first consent is kept; a finished verification
// takes none; an unknown one is not found.
func testRecordConsent(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_consent", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	if got, err := e.Verification(ctx, prod.BusinessID, prod.Environment, v.ID); err != nil || got.ConsentedAt != nil {
		t.Fatalf("before consent: ConsentedAt = %v, %v; want nil", got.ConsentedAt, err)
	}
	got, err := e.RecordConsent(ctx, v.ID, oddClock)
	if err != nil {
		t.Fatalf("RecordConsent: %v", err)
	}
	first := oddClock.Truncate(time.Microsecond).UTC()
	if got.ConsentedAt == nil || !got.ConsentedAt.Equal(first) {
		t.Fatalf("RecordConsent returned ConsentedAt %v, want %v", got.ConsentedAt, first)
	}
	if again, err := e.RecordConsent(ctx, v.ID, oddClock.Add(time.Hour)); err != nil || !again.ConsentedAt.Equal(first) {
		t.Errorf("second RecordConsent = %v, %v; want the first time %v kept", again.ConsentedAt, err, first)
	}
	read, err := e.Verification(ctx, prod.BusinessID, prod.Environment, v.ID)
	if err != nil || read.ConsentedAt == nil || !read.ConsentedAt.Equal(first) {
		t.Errorf("Verification after consent: ConsentedAt = %v, %v; want %v", read.ConsentedAt, err, first)
	}
	if read.Status != verifyd.StatusPending {
		t.Errorf("consent changed the status to %s", read.Status)
	}
	if _, err := e.RecordConsent(ctx, "vrf_unknown", clock); !errors.Is(err, verifyd.ErrNotFound) {
		t.Errorf("RecordConsent(unknown) = %v, want ErrNotFound", err)
	}
	done := pendingVerification("vrf_done", prod, clock)
	mustCreateVerification(t, ctx, e, done, nil)
	mustTransition(t, ctx, e, transition(done.ID, verifyd.StatusExpired, at(time.Hour)), "evt_done")
	if _, err := e.RecordConsent(ctx, done.ID, clock); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Errorf("RecordConsent(expired) = %v, want EConflict", err)
	}
	if read, _ := e.VerificationByID(ctx, done.ID); read.ConsentedAt != nil {
		t.Errorf("an expired verification got a consent: %v", read.ConsentedAt)
	}
}

// testWebhookEventsOfBusiness: the business and environment filters keep
// one tenant's events.
func testWebhookEventsOfBusiness(t *testing.T, ctx context.Context, e *env) {
	prod := dashboardFixture(t, ctx, e)
	// vrf_w of biz_x gets an event too.
	mustTransition(t, ctx, e, transition("vrf_w", verifyd.StatusStarted, at(3*time.Hour)), "evt_vrf_w_1")
	for _, c := range []struct {
		name string
		f    verifyd.WebhookFilter
		want []string
	}{
		{"business", verifyd.WebhookFilter{BusinessID: prod.BusinessID},
			[]string{"evt_vrf_d_2", "evt_vrf_c_2", "evt_vrf_b_2", "evt_vrf_d_1", "evt_vrf_c_1", "evt_vrf_b_1"}},
		{"business in sandbox", verifyd.WebhookFilter{BusinessID: prod.BusinessID, Environment: verifyd.EnvSandbox},
			[]string{"evt_vrf_c_2", "evt_vrf_c_1"}},
		{"other business", verifyd.WebhookFilter{BusinessID: "biz_x"}, []string{"evt_vrf_w_1"}},
		{"business and verification", verifyd.WebhookFilter{BusinessID: "biz_x", VerificationID: "vrf_b"}, []string{}},
	} {
		got, err := e.WebhookEvents(ctx, c.f)
		if err != nil {
			t.Fatalf("%s: WebhookEvents: %v", c.name, err)
		}
		gotIDs := []string{}
		for _, ev := range got {
			gotIDs = append(gotIDs, ev.ID)
		}
		// Events of one instant are ordered by id, descending.
		if !sameSet(gotIDs, c.want) {
			t.Errorf("%s: WebhookEvents = %v, want %v", c.name, gotIDs, c.want)
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// testBrandingRoundTrip: text fields and logo are set apart and each keeps
// the other; the logo's bytes come back exactly and only from Logo.
func testBrandingRoundTrip(t *testing.T, ctx context.Context, e *env) {
	createBusiness(t, ctx, e, "biz_brand", clock)
	createBusiness(t, ctx, e, "biz_plain", clock)
	got, err := e.Branding(ctx, "biz_brand")
	if err != nil {
		t.Fatalf("Branding before any: %v", err)
	}
	if want := (verifyd.Branding{BusinessID: "biz_brand"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Branding before any = %+v, want %+v", got, want)
	}
	if _, err := e.Logo(ctx, "biz_brand"); !errors.Is(err, verifyd.ErrNotFound) {
		t.Errorf("Logo before any = %v, want ErrNotFound", err)
	}
	b := verifyd.Branding{BusinessID: "biz_brand", DisplayName: "Schöne Grüße GmbH", AccentColour: "#0a5c36",
		SupportEmail: "help@shop.example", PrivacyURL: "https://shop.example/privacy?lang=de", UpdatedAt: at(time.Minute)}
	if err := e.SetBranding(ctx, b, verifyd.LogoChange{}); err != nil {
		t.Fatalf("SetBranding: %v", err)
	}
	if got, err := e.Branding(ctx, "biz_brand"); err != nil || !reflect.DeepEqual(got, b) {
		t.Errorf("Branding = %+v, %v; want %+v", got, err, b)
	}
	logo := verifyd.Logo{Format: "png", Width: 320, Height: 96, SHA256: digest("logo"), Bytes: opaque("logo", 70_000)}
	b.UpdatedAt = at(2 * time.Minute)
	if err := e.SetBranding(ctx, b, verifyd.LogoChange{Set: &logo}); err != nil {
		t.Fatalf("SetBranding with a logo: %v", err)
	}
	withLogo := b
	withLogo.Logo = &verifyd.Logo{Format: "png", Width: 320, Height: 96, SHA256: digest("logo")}
	withLogo.UpdatedAt = at(2 * time.Minute)
	if got, err := e.Branding(ctx, "biz_brand"); err != nil || !reflect.DeepEqual(got, withLogo) {
		t.Errorf("Branding with a logo = %+v, %v; want %+v (no bytes)", got, err, withLogo)
	}
	if got, err := e.Logo(ctx, "biz_brand"); err != nil || !bytes.Equal(got.Bytes, logo.Bytes) || !reflect.DeepEqual(got, logo) {
		t.Errorf("Logo = %v (%d bytes), want the stored one", err, len(got.Bytes))
	}
	// New text keeps the logo.
	b2 := verifyd.Branding{BusinessID: "biz_brand", DisplayName: "Shop", UpdatedAt: at(3 * time.Minute)}
	if err := e.SetBranding(ctx, b2, verifyd.LogoChange{}); err != nil {
		t.Fatalf("SetBranding again: %v", err)
	}
	got, err = e.Branding(ctx, "biz_brand")
	if err != nil || got.DisplayName != "Shop" || got.AccentColour != "" || got.PrivacyURL != "" || got.Logo == nil {
		t.Errorf("Branding after new text = %+v, %v; want the new text and the logo kept", got, err)
	}
	// Removing the logo keeps the text.
	b2.UpdatedAt = at(4 * time.Minute)
	if err := e.SetBranding(ctx, b2, verifyd.LogoChange{Remove: true}); err != nil {
		t.Fatalf("SetBranding removing the logo: %v", err)
	}
	got, err = e.Branding(ctx, "biz_brand")
	if err != nil || got.Logo != nil || got.DisplayName != "Shop" || !got.UpdatedAt.Equal(at(4*time.Minute)) {
		t.Errorf("Branding after removing the logo = %+v, %v", got, err)
	}
	if _, err := e.Logo(ctx, "biz_brand"); !errors.Is(err, verifyd.ErrNotFound) {
		t.Errorf("Logo after removal = %v, want ErrNotFound", err)
	}
	// A logo set first, without text, reads with empty text.
	if err := e.SetBranding(ctx, verifyd.Branding{BusinessID: "biz_plain", UpdatedAt: at(time.Minute)}, verifyd.LogoChange{Set: &logo}); err != nil {
		t.Fatalf("SetBranding(biz_plain): %v", err)
	}
	got, err = e.Branding(ctx, "biz_plain")
	if err != nil || got.DisplayName != "" || got.Logo == nil || got.Logo.Width != 320 {
		t.Errorf("Branding(biz_plain) = %+v, %v", got, err)
	}
}

func testBrandingUnknownBusiness(t *testing.T, ctx context.Context, e *env) {
	if _, err := e.Branding(ctx, "biz_nobody"); !errors.Is(err, verifyd.ErrNotFound) {
		t.Errorf("Branding(unknown) = %v, want ErrNotFound", err)
	}
	if err := e.SetBranding(ctx, verifyd.Branding{BusinessID: "biz_nobody", DisplayName: "x", UpdatedAt: clock}, verifyd.LogoChange{}); !errors.Is(err, verifyd.ErrNotFound) {
		t.Errorf("SetBranding(unknown) = %v, want ErrNotFound", err)
	}
	logo := verifyd.Logo{Format: "jpeg", Width: 1, Height: 1, SHA256: digest("l"), Bytes: []byte{1}}
	if err := e.SetBranding(ctx, verifyd.Branding{BusinessID: "biz_nobody", UpdatedAt: clock}, verifyd.LogoChange{Set: &logo}); !errors.Is(err, verifyd.ErrNotFound) {
		t.Errorf("SetBranding(unknown, a logo) = %v, want ErrNotFound", err)
	}
}

// testWebhookTests: test events round-trip, per business, newest first;
// an id is used once.
func testWebhookTests(t *testing.T, ctx context.Context, e *env) {
	createBusiness(t, ctx, e, "biz_t", clock)
	createBusiness(t, ctx, e, "biz_u", clock)
	mk := func(id, biz string, n int) verifyd.WebhookTest {
		return verifyd.WebhookTest{ID: id, BusinessID: biz, Environment: verifyd.EnvSandbox,
			APIKey: keyOf(biz, verifyd.InterfaceIdentity, verifyd.EnvSandbox), URL: "https://hooks.example/" + id,
			Payload: []byte(`{"id":"` + id + `"}`), At: at(time.Duration(n) * time.Minute), StatusCode: 200 + n,
			Latency: time.Duration(n) * time.Millisecond, Actor: "owner@shop.example"}
	}
	failed := mk("wht_2", "biz_t", 2)
	failed.StatusCode, failed.Error = 0, "dial tcp: connection refused"
	all := []verifyd.WebhookTest{mk("wht_1", "biz_t", 1), failed, mk("wht_3", "biz_u", 3), mk("wht_4", "biz_t", 4)}
	for _, w := range all {
		if err := e.RecordWebhookTest(ctx, w); err != nil {
			t.Fatalf("RecordWebhookTest(%s): %v", w.ID, err)
		}
	}
	if err := e.RecordWebhookTest(ctx, mk("wht_1", "biz_t", 9)); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Errorf("RecordWebhookTest(existing id) = %v, want EConflict", err)
	}
	got, err := e.WebhookTests(ctx, "biz_t", 0)
	if err != nil {
		t.Fatalf("WebhookTests: %v", err)
	}
	want := []verifyd.WebhookTest{all[3], all[1], all[0]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WebhookTests(biz_t) =\n%+v\nwant\n%+v", got, want)
	}
	if got[1].Delivered() || !got[0].Delivered() {
		t.Errorf("Delivered: %v, %v; want false for the refused one, true for HTTP 204", got[1].Delivered(), got[0].Delivered())
	}
	if got, err := e.WebhookTests(ctx, "biz_t", 1); err != nil || len(got) != 1 || got[0].ID != "wht_4" {
		t.Errorf("WebhookTests(limit 1) = %v, %v; want wht_4", got, err)
	}
	if got, err := e.WebhookTests(ctx, "biz_u", 0); err != nil || len(got) != 1 || got[0].ID != "wht_3" {
		t.Errorf("WebhookTests(biz_u) = %v, %v; want wht_3 only", got, err)
	}
}
