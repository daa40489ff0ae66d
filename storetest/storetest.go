// Package storetest is the storage test suite every verifyd.Store
// implementation must pass, in the style of River's riverdrivertest. It
// checks the contract written on the Store interface in store.go, not an
// implementation's internals, so a new backend is proven by one call:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, storetest.Harness{
//			Open:     func(t *testing.T) verifyd.Store { return openEmptyStore(t) },
//			Jobs:     committedJobs,
//			FailJobs: makeQueueFail,
//		})
//	}
//
// The suite does not run a job queue: the harness gives each store a
// stand-in that records the jobs the store enqueues, so the suite can check
// that every change commits together with the jobs it causes.
package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// Job is a background job as the suite sees it: one that a store handed
// its job queue in a transaction that committed.
type Job struct {
	Kind    string // JobDeliverWebhook, JobExpireVerification, JobPurgeVerification, …
	Subject string // the webhook event id or the verification id
	RunAt   time.Time
}

// The job kinds of the LifecycleStore contract.
const (
	// JobDeliverWebhook delivers a webhook event; it is due at once (RunAt
	// zero, or not after the change that caused it).
	JobDeliverWebhook = "webhook_delivery"
	// JobExpireVerification expires a verification at RunAt if it is still
	// unfinished then.
	JobExpireVerification = "verification_expiry"
)

// Harness connects the suite to a store implementation.
type Harness struct {
	// Open returns a new, empty store each time it is called and closes it
	// when t ends; the subtests call it in parallel.
	Open func(t *testing.T) verifyd.Store
	// Jobs returns the jobs store s enqueued in transactions that
	// committed, in the order they were enqueued. A job enqueued in a
	// transaction that rolled back must not be listed.
	Jobs func(t *testing.T, s verifyd.Store) []Job
	// FailJobs makes the job queue of s refuse every job with err from now
	// on; a nil err makes it accept jobs again.
	FailJobs func(s verifyd.Store, err error)
}

// Run runs the suite.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Open == nil || h.Jobs == nil || h.FailJobs == nil {
		t.Fatal("storetest.Run: the Harness needs Open, Jobs and FailJobs")
	}
	open := h.Open
	// lifecycle adapts a test that also inspects the store's job queue.
	lifecycle := func(test func(*testing.T, context.Context, *env)) func(*testing.T, context.Context, verifyd.Store) {
		return func(t *testing.T, ctx context.Context, s verifyd.Store) {
			test(t, ctx, &env{Store: s, t: t, h: h})
		}
	}
	ageDelete := map[string]func(*testing.T, context.Context, verifyd.Store){}
	for name, test := range ageDeleteTests { // agedelete.go
		ageDelete[name] = lifecycle(test)
	}
	purge := map[string]func(*testing.T, context.Context, verifyd.Store){}
	for name, test := range purgeTests { // purge.go
		purge[name] = lifecycle(test)
	}
	dashboard := map[string]func(*testing.T, context.Context, verifyd.Store){}
	for name, test := range dashboardTests { // dashboard.go
		dashboard[name] = lifecycle(test)
	}
	retention := map[string]func(*testing.T, context.Context, verifyd.Store){}
	for name, test := range retentionTests { // retention.go
		retention[name] = lifecycle(test)
	}
	groups := []struct {
		name  string
		tests map[string]func(*testing.T, context.Context, verifyd.Store)
	}{
		{"Ping", map[string]func(*testing.T, context.Context, verifyd.Store){
			"Answers": testPing,
		}},
		{"Business", map[string]func(*testing.T, context.Context, verifyd.Store){
			"CreateWithCredentials":                testCreateBusinessWithCredentials,
			"CreateWithoutCredentials":             testCreateBusinessWithoutCredentials,
			"CreateDuplicateCredentialKeyIsAtomic": testCreateBusinessAtomic,
			"CreateDuplicateID":                    testCreateBusinessDuplicateID,
			"NotFound":                             testBusinessNotFound,
			"DirectLiveness":                       testDirectLiveness,
			"ListOldestFirst":                      testBusinessesOldestFirst,
		}},
		{"Credential", map[string]func(*testing.T, context.Context, verifyd.Store){
			"RoundTrip":             testCredentialRoundTrip,
			"CreateUnknownBusiness": testCreateCredentialUnknownBusiness,
			"CreateDuplicateKey":    testCreateCredentialDuplicateKey,
			"NotFound":              testCredentialNotFound,
			"ListOldestFirst":       testCredentialsOldestFirst,
			"Revoke":                testRevokeCredential,
			"RevokeUnknownKey":      testRevokeUnknownCredential,
		}},
		{"Redirects", map[string]func(*testing.T, context.Context, verifyd.Store){
			"EmptyListIsNonNil":         testRedirectsEmpty,
			"InsertionOrder":            testRedirectsInsertionOrder,
			"AddIgnoresDuplicates":      testAddRedirectsDuplicates,
			"AddUpToMax":                testAddRedirectsUpToMax,
			"AddOverMax":                testAddRedirectsOverMax,
			"ConcurrentAddsStayBounded": testAddRedirectsConcurrent,
			"Replace":                   testReplaceRedirects,
			"Remove":                    testRemoveRedirects,
			"AllowedIsExactMatch":       testRedirectAllowed,
			"ListsAreIsolated":          testRedirectIsolation,
		}},
		{"Verification", map[string]func(*testing.T, context.Context, verifyd.Store){
			"RoundTrip":                testVerificationRoundTrip,
			"OtherTenantGetsNotFound":  testVerificationNotFound,
			"Summary":                  testVerificationSummary,
			"ByHostedToken":            testVerificationByHostedToken,
			"Images":                   testImages,
			"DuplicateID":              testVerificationDuplicateID,
			"DuplicateHostedTokenHash": testVerificationDuplicateHostedToken,
		}},
		{"Lifecycle", map[string]func(*testing.T, context.Context, verifyd.Store){
			"CreateRecordsHistoryAndExpiry":    lifecycle(testCreateRecordsHistory),
			"TransitionFollowsStateMachine":    lifecycle(testTransitionStateMachine),
			"TransitionRecordsChange":          lifecycle(testTransitionRecordsChange),
			"TerminalStatusesAreFinal":         lifecycle(testTerminalStatusesAreFinal),
			"TransitionUnknownVerification":    lifecycle(testTransitionUnknown),
			"ConcurrentTransitionsOneWins":     lifecycle(testConcurrentTransitions),
			"FailedEnqueueCommitsNothing":      lifecycle(testFailedEnqueueCommitsNothing),
			"StatusEventsPerVerification":      lifecycle(testStatusEvents),
			"VerificationByIDAcrossBusinesses": lifecycle(testVerificationByID),
			"AdvanceClock":                     lifecycle(testAdvanceClock),
			"AdvanceClockByStatus":             lifecycle(testAdvanceClockByStatus),
			"RecordWebhookAttempt":             lifecycle(testRecordWebhookAttempt),
			"ConcurrentAttemptsAreNumbered":    lifecycle(testConcurrentAttempts),
			"ResendWebhook":                    lifecycle(testResendWebhook),
			"PendingBeforeKeepsEventsInOrder":  lifecycle(testPendingBefore),
			"WebhookEventsFilterAndCount":      lifecycle(testWebhookEventsFilter),
			"TransitionWithoutWebhook":         lifecycle(testTransitionWithoutWebhook), // ageaccounts.go
		}},
		{"Setting", map[string]func(*testing.T, context.Context, verifyd.Store){
			"FirstPutWins":        testPutSettingFirstWins,
			"NotFound":            testSettingNotFound,
			"BinaryValue":         testSettingBinaryValue,
			"ConcurrentPutsAgree": testPutSettingConcurrent,
		}},
		{"Operator", operatorTests},     // operators.go
		{"AgeAccount", ageAccountTests}, // ageaccounts.go
		{"AgeConsent", ageConsentTests}, // ageconsents.go
		{"AgePasskey", agePasskeyTests}, // agepasskeys.go
		{"AgeMail", ageMailTests},       // agemail.go
		{"AgeOAuth", ageOAuthTests},     // ageoauth.go
		{"AgeAccountDeletion", ageDelete},
		{"Purge", purge},
		{"Retention", retention},
		{"Dashboard", dashboard},
		{"Liveness", livenessTests},         // liveness.go
		{"BusinessUser", businessUserTests}, // businessusers.go
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, name := range sortedKeys(g.tests) {
				test := g.tests[name]
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					test(t, t.Context(), open(t))
				})
			}
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// --- fixtures ---------------------------------------------------------------

var (
	// clock is the suite's fixed "now"; it has whole microseconds.
	clock = time.Date(2026, 11, 21, 8, 0, 0, 123456000, time.UTC)
	// oddClock has sub-microsecond digits and a zone other than UTC. Stores
	// keep microseconds; the extra 400ns lie below half a microsecond so a
	// store that rounds and one that truncates both keep .654321.
	oddClock = time.Date(2026, 11, 21, 9, 30, 0, 654321400, time.FixedZone("UTC+2", 2*60*60))
)

// at returns the fixed clock moved by d.
func at(d time.Duration) time.Time { return clock.Add(d) }

// opaque returns deterministic bytes that look like ciphertext: they
// include NUL, high bytes and invalid UTF-8, which a store must keep as is.
func opaque(label string, size int) []byte {
	out := []byte{0x00, 0xff, 0xfe, 0x80, 0x00}
	for i := 0; len(out) < size; i++ {
		h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", label, i)))
		out = append(out, h[:]...)
	}
	return out[:size]
}

func digest(label string) []byte {
	h := sha256.Sum256([]byte(label))
	return h[:]
}

func keyOf(bizID string, i verifyd.Interface, e verifyd.Environment) string {
	return fmt.Sprintf("vdk_%s_%s_%s", e, i, bizID)
}

func newCredential(bizID string, i verifyd.Interface, e verifyd.Environment, created time.Time) verifyd.StoredCredential {
	key := keyOf(bizID, i, e)
	return verifyd.StoredCredential{
		Credential: verifyd.Credential{
			BusinessID: bizID, Interface: i, Environment: e, APIKey: key, CreatedAt: created,
		},
		SealedSecret: opaque("secret of "+key, 60),
	}
}

// fourCredentials returns one credential per interface and environment, one
// minute apart from created.
func fourCredentials(bizID string, created time.Time) []verifyd.StoredCredential {
	var out []verifyd.StoredCredential
	for _, i := range verifyd.Interfaces {
		for _, e := range verifyd.Environments {
			out = append(out, newCredential(bizID, i, e, created.Add(time.Duration(len(out))*time.Minute)))
		}
	}
	return out
}

func newBusiness(id string, created time.Time) verifyd.Business {
	return verifyd.Business{ID: id, Name: "Business " + id + " — Ünïcode & Co.", CreatedAt: created, DirectLiveness: verifyd.DirectLivenessAuto,
		RetentionDays: verifyd.DefaultRetentionDays}
}

// createBusiness stores a business with the four usual credentials.
func createBusiness(t *testing.T, ctx context.Context, s verifyd.Store, id string, created time.Time) (verifyd.Business, []verifyd.StoredCredential) {
	t.Helper()
	b := newBusiness(id, created)
	creds := fourCredentials(id, created)
	if err := s.CreateBusiness(ctx, b, creds); err != nil {
		t.Fatalf("CreateBusiness(%s): %v", id, err)
	}
	return b, creds
}

// hostedVerification is a verification created for the hosted page: every
// field that such a verification has is set.
func hostedVerification(id string, c verifyd.StoredCredential, created time.Time) verifyd.Verification {
	return verifyd.Verification{
		ID:          id,
		BusinessID:  c.BusinessID,
		Environment: c.Environment,
		APIKey:      c.APIKey,
		Customer: verifyd.Customer{
			ID:    "5b8e1a52-3c4f-4d2a-9e61-0f7c2d9b8a41",
			Email: "ada.lovelace+" + id + "@example.com",
			Phone: "+44 20 7946 0958",
		},
		RedirectURI:       "https://shop.example/return?order=42&lang=fr",
		Webhook:           "https://shop.example/hooks/verifyd",
		Flow:              verifyd.FlowHosted,
		Status:            verifyd.StatusStarted,
		Reason:            verifyd.ReasonNone,
		HostedTokenHash:   digest("hosted token of " + id),
		SealedHostedToken: opaque("sealed hosted token of "+id, 77),
		CreatedAt:         created,
		UpdatedAt:         created.Add(90 * time.Second),
		ExpiresAt:         created.Add(verifyd.VerificationLifetime),
	}
}

// directVerification is a verification submitted with images: it has a
// document, a failure reason, and no hosted token, phone or redirect.
func directVerification(id string, c verifyd.StoredCredential, created time.Time) verifyd.Verification {
	return verifyd.Verification{
		ID:          id,
		BusinessID:  c.BusinessID,
		Environment: c.Environment,
		APIKey:      c.APIKey,
		Customer: verifyd.Customer{
			ID:    "0d6f0c2e-7a1b-4e3c-8f5d-6a2b9c1e4f70",
			Email: "grace@example.org",
		},
		Webhook:   "http://localhost:8080/webhook",
		Flow:      verifyd.FlowDirect,
		Status:    verifyd.StatusFailed,
		Reason:    verifyd.ReasonPhotoMismatch,
		Document:  verifyd.DocumentInfo{Type: verifyd.DocPassport, Country: "fra"},
		CreatedAt: created,
		UpdatedAt: created.Add(3 * time.Second),
		ExpiresAt: created.Add(verifyd.VerificationLifetime),
	}
}

// newImages returns the three images of a submission; the selfie is large,
// as real sealed photos are.
func newImages(label string) []verifyd.StoredImage {
	return []verifyd.StoredImage{
		{Kind: verifyd.ImageSelfie, Format: "jpeg", Width: 3024, Height: 4032,
			SHA256: digest(label + "/selfie"), Sealed: opaque(label+"/selfie", 2<<20+17)},
		{Kind: verifyd.ImageDocumentFront, Format: "png", Width: 1600, Height: 1010,
			SHA256: digest(label + "/front"), Sealed: opaque(label+"/front", 4099)},
		{Kind: verifyd.ImageDocumentBack, Format: "webp", Width: 1601, Height: 1009,
			SHA256: digest(label + "/back"), Sealed: opaque(label+"/back", 1)},
	}
}

// --- assertions -------------------------------------------------------------

// assertEqual reports every field where got differs from want. Times are
// compared as instants at microsecond precision; nil and empty byte slices
// are equal.
func assertEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	var diffs []string
	compare(&diffs, "", reflect.ValueOf(got), reflect.ValueOf(want))
	if len(diffs) > 0 {
		t.Errorf("%s differs from what was stored:\n\t%s", what, strings.Join(diffs, "\n\t"))
	}
}

var timeType = reflect.TypeFor[time.Time]()

func compare(diffs *[]string, path string, got, want reflect.Value) {
	mismatch := func() {
		name := path
		if name == "" {
			name = "value"
		}
		*diffs = append(*diffs, fmt.Sprintf("%s: got %s, want %s", name, show(got), show(want)))
	}
	if got.Type() == timeType {
		if !sameInstant(got.Interface().(time.Time), want.Interface().(time.Time)) {
			mismatch()
		}
		return
	}
	switch got.Kind() {
	case reflect.Struct:
		for i := range got.NumField() {
			f := got.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			p := path
			if !f.Anonymous {
				p = strings.TrimPrefix(path+"."+f.Name, ".")
			}
			compare(diffs, p, got.Field(i), want.Field(i))
		}
	case reflect.Pointer:
		if got.IsNil() || want.IsNil() {
			if got.IsNil() != want.IsNil() {
				mismatch()
			}
			return
		}
		compare(diffs, path, got.Elem(), want.Elem())
	case reflect.Slice:
		if got.Type().Elem().Kind() == reflect.Uint8 {
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				mismatch()
			}
			return
		}
		if got.Len() != want.Len() {
			mismatch()
			return
		}
		for i := range got.Len() {
			compare(diffs, fmt.Sprintf("%s[%d]", path, i), got.Index(i), want.Index(i))
		}
	default:
		if !reflect.DeepEqual(got.Interface(), want.Interface()) {
			mismatch()
		}
	}
}

func sameInstant(a, b time.Time) bool {
	return a.Truncate(time.Microsecond).Equal(b.Truncate(time.Microsecond))
}

func show(v reflect.Value) string {
	switch {
	case v.Type() == timeType:
		return v.Interface().(time.Time).UTC().Format(time.RFC3339Nano)
	case v.Kind() == reflect.Pointer && v.IsNil():
		return "nil"
	case v.Kind() == reflect.Pointer:
		return show(v.Elem())
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		b := v.Bytes()
		if b == nil {
			return "nil"
		}
		if len(b) > 24 {
			return fmt.Sprintf("%d bytes %x…", len(b), b[:24])
		}
		return fmt.Sprintf("%d bytes %x", len(b), b)
	case v.Kind() == reflect.String:
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprintf("%+v", v.Interface())
}

func assertNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, verifyd.ErrNotFound) {
		t.Errorf("%s: got error %v, want verifyd.ErrNotFound", what, err)
	}
}

// --- Ping -------------------------------------------------------------------

func testPing(t *testing.T, ctx context.Context, s verifyd.Store) {
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping on an open store: %v", err)
	}
}

// --- businesses -------------------------------------------------------------

func testCreateBusinessWithCredentials(t *testing.T, ctx context.Context, s verifyd.Store) {
	b, creds := createBusiness(t, ctx, s, "biz_a", oddClock)
	got, err := s.Business(ctx, b.ID)
	if err != nil {
		t.Fatalf("Business(%s): %v", b.ID, err)
	}
	assertEqual(t, "Business", got, b)
	list, err := s.Credentials(ctx, b.ID)
	if err != nil {
		t.Fatalf("Credentials(%s): %v", b.ID, err)
	}
	assertEqual(t, "Credentials after CreateBusiness", list, creds)
	for _, c := range creds {
		got, err := s.Credential(ctx, c.APIKey)
		if err != nil {
			t.Errorf("Credential(%s) stored by CreateBusiness: %v", c.APIKey, err)
			continue
		}
		assertEqual(t, "Credential "+c.APIKey, got, c)
	}
}

func testCreateBusinessWithoutCredentials(t *testing.T, ctx context.Context, s verifyd.Store) {
	b := newBusiness("biz_bare", clock)
	if err := s.CreateBusiness(ctx, b, nil); err != nil {
		t.Fatalf("CreateBusiness without credentials: %v", err)
	}
	got, err := s.Business(ctx, b.ID)
	if err != nil {
		t.Fatalf("Business: %v", err)
	}
	assertEqual(t, "Business", got, b)
	list, err := s.Credentials(ctx, b.ID)
	if err != nil {
		t.Fatalf("Credentials: %v", err)
	}
	if len(list) != 0 {
		t.Errorf("Credentials of a business created without any: got %d, want none", len(list))
	}
}

func testCreateBusinessAtomic(t *testing.T, ctx context.Context, s verifyd.Store) {
	// An existing business owns a key the failing calls reuse.
	other, otherCreds := createBusiness(t, ctx, s, "biz_other", clock)
	taken := otherCreds[0]

	tests := []struct {
		name  string
		creds func(id string) []verifyd.StoredCredential
	}{
		{"same key twice in the call", func(id string) []verifyd.StoredCredential {
			c := newCredential(id, verifyd.InterfaceAge, verifyd.EnvSandbox, at(time.Hour))
			first := newCredential(id, verifyd.InterfaceIdentity, verifyd.EnvProduction, at(time.Hour))
			return []verifyd.StoredCredential{first, c, c}
		}},
		{"key of another business", func(id string) []verifyd.StoredCredential {
			first := newCredential(id, verifyd.InterfaceIdentity, verifyd.EnvProduction, at(time.Hour))
			stolen := taken
			stolen.BusinessID = id
			stolen.SealedSecret = opaque("other secret", 60)
			return []verifyd.StoredCredential{first, stolen}
		}},
	}
	for i, tt := range tests {
		id := fmt.Sprintf("biz_failed_%d", i)
		creds := tt.creds(id)
		if err := s.CreateBusiness(ctx, newBusiness(id, at(time.Hour)), creds); err == nil {
			t.Errorf("%s: CreateBusiness succeeded, want an error", tt.name)
			continue
		}
		_, err := s.Business(ctx, id)
		assertNotFound(t, tt.name+": Business after the failed CreateBusiness", err)
		_, err = s.Credential(ctx, creds[0].APIKey)
		assertNotFound(t, tt.name+": first credential of the failed CreateBusiness", err)
		list, err := s.Credentials(ctx, id)
		if err != nil || len(list) != 0 {
			t.Errorf("%s: Credentials of the failed business: got %d, %v; want none", tt.name, len(list), err)
		}
	}

	got, err := s.Credential(ctx, taken.APIKey)
	if err != nil {
		t.Fatalf("Credential(%s): %v", taken.APIKey, err)
	}
	assertEqual(t, "credential whose key a failed CreateBusiness reused", got, taken)
	all, err := s.Businesses(ctx)
	if err != nil {
		t.Fatalf("Businesses: %v", err)
	}
	assertEqual(t, "Businesses after failed creations", all, []verifyd.Business{other})
}

func testCreateBusinessDuplicateID(t *testing.T, ctx context.Context, s verifyd.Store) {
	b, _ := createBusiness(t, ctx, s, "biz_dup", clock)
	again := verifyd.Business{ID: b.ID, Name: "Impostor", CreatedAt: at(time.Hour)}
	extra := newCredential("biz_dup2", verifyd.InterfaceAge, verifyd.EnvSandbox, at(time.Hour))
	extra.BusinessID = b.ID
	if err := s.CreateBusiness(ctx, again, []verifyd.StoredCredential{extra}); err == nil {
		t.Fatal("CreateBusiness with an existing id succeeded, want an error")
	}
	got, err := s.Business(ctx, b.ID)
	if err != nil {
		t.Fatalf("Business: %v", err)
	}
	assertEqual(t, "Business after a duplicate CreateBusiness", got, b)
	_, err = s.Credential(ctx, extra.APIKey)
	assertNotFound(t, "credential of the duplicate CreateBusiness", err)
}

// A business created without a direct submission policy gets "auto"; a
// changed policy is what Business and Businesses report, for that business
// only.
func testDirectLiveness(t *testing.T, ctx context.Context, s verifyd.Store) {
	b := verifyd.Business{ID: "biz_policy", Name: "Policy", CreatedAt: clock}
	if err := s.CreateBusiness(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	createBusiness(t, ctx, s, "biz_other", clock.Add(time.Second))
	if got, err := s.Business(ctx, b.ID); err != nil || got.DirectLiveness != verifyd.DirectLivenessAuto {
		t.Fatalf("new business: %+v, %v; want direct_liveness auto", got, err)
	}
	if err := s.SetDirectLiveness(ctx, b.ID, verifyd.DirectLivenessReview); err != nil {
		t.Fatal(err)
	}
	all, err := s.Businesses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]verifyd.DirectLiveness{}
	for _, x := range all {
		got[x.ID] = x.DirectLiveness
	}
	if got["biz_policy"] != verifyd.DirectLivenessReview || got["biz_other"] != verifyd.DirectLivenessAuto {
		t.Errorf("after setting review: %v", got)
	}
	assertNotFound(t, "SetDirectLiveness(missing)", s.SetDirectLiveness(ctx, "biz_missing", verifyd.DirectLivenessReview))
}

func testBusinessNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_exists", clock)
	for _, id := range []string{"biz_missing", "", "BIZ_EXISTS", "biz_exist"} {
		_, err := s.Business(ctx, id)
		assertNotFound(t, fmt.Sprintf("Business(%q)", id), err)
	}
}

func testBusinessesOldestFirst(t *testing.T, ctx context.Context, s verifyd.Store) {
	empty, err := s.Businesses(ctx)
	if err != nil {
		t.Fatalf("Businesses on an empty store: %v", err)
	}
	if len(empty) != 0 {
		t.Fatalf("Businesses on an empty store: got %d, want none", len(empty))
	}
	// Created out of order; ids sort differently from times.
	var want []verifyd.Business
	for _, c := range []struct {
		id  string
		age time.Duration
	}{{"biz_c", 2 * time.Hour}, {"biz_a", 3 * time.Hour}, {"biz_d", time.Microsecond}, {"biz_b", 0}} {
		b := newBusiness(c.id, at(c.age))
		if err := s.CreateBusiness(ctx, b, nil); err != nil {
			t.Fatalf("CreateBusiness(%s): %v", c.id, err)
		}
		want = append(want, b)
	}
	slices.SortFunc(want, func(a, b verifyd.Business) int { return a.CreatedAt.Compare(b.CreatedAt) })
	got, err := s.Businesses(ctx)
	if err != nil {
		t.Fatalf("Businesses: %v", err)
	}
	assertEqual(t, "Businesses (oldest first)", got, want)
}

// --- credentials ------------------------------------------------------------

func testCredentialRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_rt", clock)
	revoked := at(2 * time.Hour)
	tests := []struct {
		name string
		c    verifyd.StoredCredential
	}{
		{"active", verifyd.StoredCredential{
			Credential: verifyd.Credential{BusinessID: "biz_rt", Interface: verifyd.InterfaceIdentity,
				Environment: verifyd.EnvProduction, APIKey: "vdk_live_idv_extra1", CreatedAt: at(time.Hour)},
			SealedSecret: opaque("s1", 60),
		}},
		{"revoked when created", verifyd.StoredCredential{
			Credential: verifyd.Credential{BusinessID: "biz_rt", Interface: verifyd.InterfaceAge,
				Environment: verifyd.EnvSandbox, APIKey: "vdk_test_age_extra2", CreatedAt: at(time.Hour),
				RevokedAt: &revoked},
			SealedSecret: opaque("s2", 61),
		}},
		{"sub-microsecond time in another zone", verifyd.StoredCredential{
			Credential: verifyd.Credential{BusinessID: "biz_rt", Interface: verifyd.InterfaceAge,
				Environment: verifyd.EnvProduction, APIKey: "vdk_live_age_extra3", CreatedAt: oddClock},
			SealedSecret: opaque("s3", 200),
		}},
	}
	for _, tt := range tests {
		if err := s.CreateCredential(ctx, tt.c); err != nil {
			t.Errorf("%s: CreateCredential: %v", tt.name, err)
			continue
		}
		got, err := s.Credential(ctx, tt.c.APIKey)
		if err != nil {
			t.Errorf("%s: Credential: %v", tt.name, err)
			continue
		}
		assertEqual(t, tt.name+" credential", got, tt.c)
		if got.APISecret != "" {
			t.Errorf("%s: Credential returned a plaintext secret %q; stores keep only the sealed one", tt.name, got.APISecret)
		}
	}
}

func testCreateCredentialUnknownBusiness(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_known", clock)
	c := newCredential("biz_unknown", verifyd.InterfaceIdentity, verifyd.EnvProduction, clock)
	assertNotFound(t, "CreateCredential for an unknown business", s.CreateCredential(ctx, c))
	_, err := s.Credential(ctx, c.APIKey)
	assertNotFound(t, "Credential after CreateCredential for an unknown business", err)
}

func testCreateCredentialDuplicateKey(t *testing.T, ctx context.Context, s verifyd.Store) {
	_, creds := createBusiness(t, ctx, s, "biz_one", clock)
	createBusiness(t, ctx, s, "biz_two", clock)
	orig := creds[1]
	dup := orig
	dup.BusinessID = "biz_two"
	dup.SealedSecret = opaque("replacement", 60)
	dup.CreatedAt = at(time.Hour)
	if err := s.CreateCredential(ctx, dup); err == nil {
		t.Fatal("CreateCredential with an existing key succeeded, want an error")
	}
	got, err := s.Credential(ctx, orig.APIKey)
	if err != nil {
		t.Fatalf("Credential: %v", err)
	}
	assertEqual(t, "credential after a duplicate CreateCredential", got, orig)
}

func testCredentialNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	_, creds := createBusiness(t, ctx, s, "biz_cnf", clock)
	key := creds[0].APIKey
	for _, k := range []string{"vdk_live_idv_missing", "", strings.ToUpper(key), key[:len(key)-1], key + " "} {
		_, err := s.Credential(ctx, k)
		assertNotFound(t, fmt.Sprintf("Credential(%q)", k), err)
	}
}

func testCredentialsOldestFirst(t *testing.T, ctx context.Context, s verifyd.Store) {
	first := newCredential("biz_order", verifyd.InterfaceAge, verifyd.EnvSandbox, at(time.Hour))
	if err := s.CreateBusiness(ctx, newBusiness("biz_order", clock), []verifyd.StoredCredential{first}); err != nil {
		t.Fatalf("CreateBusiness: %v", err)
	}
	createBusiness(t, ctx, s, "biz_neighbour", at(30*time.Minute))
	want := []verifyd.StoredCredential{first}
	// Added after the first but with times before and after it, and keys
	// that sort differently from times.
	for _, c := range []struct {
		key string
		age time.Duration
	}{{"vdk_a", 3 * time.Hour}, {"vdk_z", 0}, {"vdk_m", 2 * time.Hour}, {"vdk_b", time.Hour + time.Microsecond}} {
		cred := newCredential("biz_order", verifyd.InterfaceIdentity, verifyd.EnvProduction, at(c.age))
		cred.APIKey = c.key
		if err := s.CreateCredential(ctx, cred); err != nil {
			t.Fatalf("CreateCredential(%s): %v", c.key, err)
		}
		want = append(want, cred)
	}
	slices.SortFunc(want, func(a, b verifyd.StoredCredential) int { return a.CreatedAt.Compare(b.CreatedAt) })
	got, err := s.Credentials(ctx, "biz_order")
	if err != nil {
		t.Fatalf("Credentials: %v", err)
	}
	assertEqual(t, "Credentials (oldest first, this business only)", got, want)

	none, err := s.Credentials(ctx, "biz_unknown")
	if err != nil || len(none) != 0 {
		t.Errorf("Credentials of an unknown business: got %d, %v; want none and no error", len(none), err)
	}
}

func testRevokeCredential(t *testing.T, ctx context.Context, s verifyd.Store) {
	_, creds := createBusiness(t, ctx, s, "biz_rev", clock)
	target, bystander := creds[2], creds[3]
	firstRevocation := oddClock.Add(time.Hour)

	got, err := s.RevokeCredential(ctx, target.APIKey, firstRevocation)
	if err != nil {
		t.Fatalf("RevokeCredential: %v", err)
	}
	want := target
	want.RevokedAt = &firstRevocation
	assertEqual(t, "credential returned by RevokeCredential", got, want)
	if got.Active() {
		t.Error("revoked credential is still Active")
	}
	stored, err := s.Credential(ctx, target.APIKey)
	if err != nil {
		t.Fatalf("Credential: %v", err)
	}
	assertEqual(t, "Credential after RevokeCredential", stored, want)

	// A later revocation keeps the first time.
	got, err = s.RevokeCredential(ctx, target.APIKey, firstRevocation.Add(24*time.Hour))
	if err != nil {
		t.Fatalf("second RevokeCredential: %v", err)
	}
	assertEqual(t, "credential returned by a second RevokeCredential", got, want)
	stored, err = s.Credential(ctx, target.APIKey)
	if err != nil {
		t.Fatalf("Credential: %v", err)
	}
	assertEqual(t, "Credential after a second RevokeCredential", stored, want)

	other, err := s.Credential(ctx, bystander.APIKey)
	if err != nil {
		t.Fatalf("Credential: %v", err)
	}
	assertEqual(t, "credential that was not revoked", other, bystander)

	list, err := s.Credentials(ctx, "biz_rev")
	if err != nil {
		t.Fatalf("Credentials: %v", err)
	}
	wantList := slices.Clone(creds)
	wantList[2] = want
	assertEqual(t, "Credentials after a revocation", list, wantList)
}

func testRevokeUnknownCredential(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_rnf", clock)
	_, err := s.RevokeCredential(ctx, "vdk_live_idv_missing", clock)
	assertNotFound(t, "RevokeCredential of an unknown key", err)
}

// --- redirects --------------------------------------------------------------

// redirectFixture creates a business and returns its identity/production
// list.
func redirectFixture(t *testing.T, ctx context.Context, s verifyd.Store) verifyd.RedirectList {
	t.Helper()
	createBusiness(t, ctx, s, "biz_redir", clock)
	return verifyd.RedirectList{BusinessID: "biz_redir", Interface: verifyd.InterfaceIdentity, Environment: verifyd.EnvProduction}
}

func urls(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://%s.example/cb/%03d", prefix, i)
	}
	return out
}

func mustRedirects(t *testing.T, ctx context.Context, s verifyd.Store, l verifyd.RedirectList) []string {
	t.Helper()
	got, err := s.Redirects(ctx, l)
	if err != nil {
		t.Fatalf("Redirects(%+v): %v", l, err)
	}
	return got
}

func assertRedirects(t *testing.T, ctx context.Context, s verifyd.Store, l verifyd.RedirectList, what string, want []string) {
	t.Helper()
	got := mustRedirects(t, ctx, s, l)
	if got == nil {
		t.Errorf("%s: Redirects returned a nil slice; want a non-nil one (it is sent as JSON)", what)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: Redirects(%s/%s/%s):\n\tgot  %q\n\twant %q", what, l.BusinessID, l.Interface, l.Environment, got, want)
	}
}

func mustAdd(t *testing.T, ctx context.Context, s verifyd.Store, l verifyd.RedirectList, u ...string) {
	t.Helper()
	if err := s.AddRedirects(ctx, l, u); err != nil {
		t.Fatalf("AddRedirects(%d URLs): %v", len(u), err)
	}
}

func testRedirectsEmpty(t *testing.T, ctx context.Context, s verifyd.Store) {
	l := redirectFixture(t, ctx, s)
	assertRedirects(t, ctx, s, l, "list never written", []string{})
	unknown := verifyd.RedirectList{BusinessID: "biz_unknown", Interface: verifyd.InterfaceAge, Environment: verifyd.EnvSandbox}
	assertRedirects(t, ctx, s, unknown, "list of an unknown business", []string{})
	ok, err := s.RedirectAllowed(ctx, l, "https://shop.example/cb")
	if err != nil || ok {
		t.Errorf("RedirectAllowed on an empty list: got %v, %v; want false, nil", ok, err)
	}
	mustAdd(t, ctx, s, l, "https://shop.example/cb")
	if err := s.RemoveRedirects(ctx, l, []string{"https://shop.example/cb"}); err != nil {
		t.Fatalf("RemoveRedirects: %v", err)
	}
	assertRedirects(t, ctx, s, l, "list emptied by RemoveRedirects", []string{})
}

func testRedirectsInsertionOrder(t *testing.T, ctx context.Context, s verifyd.Store) {
	l := redirectFixture(t, ctx, s)
	z, a, m, b := "https://z.example/cb", "https://a.example/cb", "https://m.example/cb", "http://b.example/cb"
	mustAdd(t, ctx, s, l, z, a, m)
	assertRedirects(t, ctx, s, l, "after one AddRedirects", []string{z, a, m})
	mustAdd(t, ctx, s, l, b)
	assertRedirects(t, ctx, s, l, "after a second AddRedirects", []string{z, a, m, b})
	if err := s.RemoveRedirects(ctx, l, []string{a}); err != nil {
		t.Fatalf("RemoveRedirects: %v", err)
	}
	mustAdd(t, ctx, s, l, a)
	assertRedirects(t, ctx, s, l, "a removed URL added again goes last", []string{z, m, b, a})
	if err := s.RemoveRedirects(ctx, l, []string{a}); err != nil {
		t.Fatalf("RemoveRedirects: %v", err)
	}
	c := "https://c.example/cb"
	mustAdd(t, ctx, s, l, c)
	assertRedirects(t, ctx, s, l, "after removing the last URL and adding another", []string{z, m, b, c})
}

func testAddRedirectsDuplicates(t *testing.T, ctx context.Context, s verifyd.Store) {
	l := redirectFixture(t, ctx, s)
	a, b, c := "https://a.example/cb", "https://b.example/cb", "https://c.example/cb"
	mustAdd(t, ctx, s, l, a, b)
	mustAdd(t, ctx, s, l, b, c, a, c)
	assertRedirects(t, ctx, s, l, "AddRedirects with present and repeated URLs", []string{a, b, c})
	mustAdd(t, ctx, s, l, c, b, a)
	assertRedirects(t, ctx, s, l, "AddRedirects with only present URLs", []string{a, b, c})
	mustAdd(t, ctx, s, l)
	assertRedirects(t, ctx, s, l, "AddRedirects with no URLs", []string{a, b, c})
}

func testAddRedirectsUpToMax(t *testing.T, ctx context.Context, s verifyd.Store) {
	l := redirectFixture(t, ctx, s)
	all := urls("full", verifyd.MaxRedirects)
	mustAdd(t, ctx, s, l, all[:verifyd.MaxRedirects-1]...)
	// One new URL and one present one: the list reaches exactly the limit.
	mustAdd(t, ctx, s, l, all[0], all[verifyd.MaxRedirects-1])
	assertRedirects(t, ctx, s, l, "list filled to MaxRedirects", all)
	// A full list still accepts URLs it already holds.
	mustAdd(t, ctx, s, l, all[5], all[verifyd.MaxRedirects-1])
	assertRedirects(t, ctx, s, l, "full list after adding present URLs", all)

	other := verifyd.RedirectList{BusinessID: l.BusinessID, Interface: l.Interface, Environment: verifyd.EnvSandbox}
	fresh := urls("fresh", verifyd.MaxRedirects)
	mustAdd(t, ctx, s, other, fresh...)
	assertRedirects(t, ctx, s, other, "MaxRedirects URLs in one call", fresh)
}

func testAddRedirectsOverMax(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_max", clock)
	tests := []struct {
		name    string
		initial []string
		add     []string
	}{
		{"empty list, one call over the limit", nil, urls("over", verifyd.MaxRedirects+1)},
		{"full list, one more", urls("full", verifyd.MaxRedirects), []string{"https://one-more.example/cb"}},
		{"full list, one more among present ones", urls("full", verifyd.MaxRedirects),
			[]string{"https://full.example/cb/000", "https://one-more.example/cb", "https://full.example/cb/001"}},
		{"partly full, batch crosses the limit", urls("part", 60), urls("batch", 41)},
	}
	for i, tt := range tests {
		l := verifyd.RedirectList{BusinessID: "biz_max", Interface: verifyd.Interfaces[i%2], Environment: verifyd.Environments[i/2]}
		if len(tt.initial) > 0 {
			mustAdd(t, ctx, s, l, tt.initial...)
		}
		err := s.AddRedirects(ctx, l, tt.add)
		if code := verifyd.ErrorCodeOf(err); code != verifyd.EBadRequest {
			t.Errorf("%s: AddRedirects: got error %v (code %q), want code %q", tt.name, err, code, verifyd.EBadRequest)
		}
		want := tt.initial
		if want == nil {
			want = []string{}
		}
		assertRedirects(t, ctx, s, l, tt.name+": list after the refused AddRedirects", want)
		ok, err := s.RedirectAllowed(ctx, l, tt.add[len(tt.add)/2])
		if err != nil || (ok != slices.Contains(tt.initial, tt.add[len(tt.add)/2])) {
			t.Errorf("%s: RedirectAllowed of a refused URL: got %v, %v", tt.name, ok, err)
		}
	}
}

func testAddRedirectsConcurrent(t *testing.T, ctx context.Context, s verifyd.Store) {
	l := redirectFixture(t, ctx, s)
	// Five batches of 30 race for a list of 100: exactly three fit.
	const batches, size = 5, 30
	var wg sync.WaitGroup
	errs := make([]error, batches)
	for i := range batches {
		wg.Go(func() { errs[i] = s.AddRedirects(ctx, l, urls(fmt.Sprintf("batch%d", i), size)) })
	}
	wg.Wait()
	got := mustRedirects(t, ctx, s, l)
	var applied int
	for i, err := range errs {
		batch := urls(fmt.Sprintf("batch%d", i), size)
		switch {
		case err == nil:
			applied++
			start := slices.Index(got, batch[0])
			if start < 0 || start+size > len(got) || !slices.Equal(got[start:start+size], batch) {
				t.Errorf("batch %d was accepted but is not on the list whole and in order", i)
			}
		case verifyd.ErrorCodeOf(err) != verifyd.EBadRequest:
			t.Errorf("batch %d: got error %v, want nil or code %q", i, err, verifyd.EBadRequest)
		default:
			for _, u := range batch {
				if slices.Contains(got, u) {
					t.Errorf("batch %d was refused but %s is on the list", i, u)
					break
				}
			}
		}
	}
	if len(got) > verifyd.MaxRedirects {
		t.Errorf("concurrent AddRedirects overshot the limit: %d URLs, MaxRedirects is %d", len(got), verifyd.MaxRedirects)
	}
	if want := verifyd.MaxRedirects / size; applied != want || len(got) != applied*size {
		t.Errorf("concurrent AddRedirects: %d batches accepted, list holds %d URLs; want %d batches, %d URLs",
			applied, len(got), want, want*size)
	}
}

func testReplaceRedirects(t *testing.T, ctx context.Context, s verifyd.Store) {
	l := redirectFixture(t, ctx, s)
	a, b, c, x := "https://a.example/cb", "https://b.example/cb", "https://c.example/cb", "https://x.example/cb"
	mustAdd(t, ctx, s, l, a, b, c)
	steps := []struct {
		name    string
		replace []string
		want    []string
	}{
		{"reorder, add, drop and repeat", []string{c, x, c, a}, []string{c, x, a}},
		{"same list", []string{c, x, a}, []string{c, x, a}},
		{"empty list", []string{}, []string{}},
		{"from empty", []string{b}, []string{b}},
		{"nil list", nil, []string{}},
		{"MaxRedirects URLs", urls("max", verifyd.MaxRedirects), urls("max", verifyd.MaxRedirects)},
	}
	for _, st := range steps {
		if err := s.ReplaceRedirects(ctx, l, st.replace); err != nil {
			t.Fatalf("%s: ReplaceRedirects: %v", st.name, err)
		}
		assertRedirects(t, ctx, s, l, "ReplaceRedirects "+st.name, st.want)
	}
	for _, u := range []string{a, b} {
		if ok, err := s.RedirectAllowed(ctx, l, u); err != nil || ok {
			t.Errorf("RedirectAllowed(%s) after it was replaced away: got %v, %v; want false", u, ok, err)
		}
	}
	if err := s.ReplaceRedirects(ctx, l, []string{b, a}); err != nil {
		t.Fatalf("ReplaceRedirects: %v", err)
	}
	mustAdd(t, ctx, s, l, c)
	assertRedirects(t, ctx, s, l, "AddRedirects after ReplaceRedirects appends", []string{b, a, c})
}

func testRemoveRedirects(t *testing.T, ctx context.Context, s verifyd.Store) {
	l := redirectFixture(t, ctx, s)
	a, b, c, d := "https://a.example/cb", "https://b.example/cb", "https://c.example/cb", "https://d.example/cb"
	mustAdd(t, ctx, s, l, a, b, c, d)
	steps := []struct {
		name   string
		remove []string
		want   []string
	}{
		{"present and absent URLs", []string{d, "https://absent.example/cb", b}, []string{a, c}},
		{"only absent URLs", []string{"https://absent.example/cb", b}, []string{a, c}},
		{"no URLs", nil, []string{a, c}},
		{"near miss", []string{"https://a.example/cb/", "https://A.example/cb", "https://a.example/CB"}, []string{a, c}},
		{"repeated URL", []string{c, c}, []string{a}},
		{"everything", []string{a}, []string{}},
		{"from an empty list", []string{a}, []string{}},
	}
	for _, st := range steps {
		if err := s.RemoveRedirects(ctx, l, st.remove); err != nil {
			t.Fatalf("%s: RemoveRedirects: %v", st.name, err)
		}
		assertRedirects(t, ctx, s, l, "RemoveRedirects "+st.name, st.want)
	}
}

func testRedirectAllowed(t *testing.T, ctx context.Context, s verifyd.Store) {
	l := redirectFixture(t, ctx, s)
	mustAdd(t, ctx, s, l, "https://shop.example/callback", "http://localhost:3000/cb?step=2")
	tests := []struct {
		url  string
		want bool
	}{
		{"https://shop.example/callback", true},
		{"http://localhost:3000/cb?step=2", true},
		{"https://shop.example/callback/", false},
		{"https://shop.example/callback/extra", false},
		{"https://shop.example/call", false},
		{"https://shop.example/", false},
		{"https://shop.example", false},
		{"https://shop.example/Callback", false},
		{"https://shop.example/CALLBACK", false},
		{"https://shop.example/callback?x=1", false},
		{"http://shop.example/callback", false},
		{"https://shop.example.evil/callback", false},
		{"https://shop.example/callback ", false},
		{"http://localhost:3000/cb", false},
		{"http://localhost:3000/cb?step=3", false},
		{"http://localhost:3000/cb?step=2&x=1", false},
		{"https://shop.example/callback%", false},
		{"https://shop.example/callbac_", false},
		{"%", false},
		{"", false},
	}
	for _, tt := range tests {
		got, err := s.RedirectAllowed(ctx, l, tt.url)
		if err != nil {
			t.Errorf("RedirectAllowed(%q): %v", tt.url, err)
			continue
		}
		if got != tt.want {
			t.Errorf("RedirectAllowed(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func testRedirectIsolation(t *testing.T, ctx context.Context, s verifyd.Store) {
	const shared = "https://shared.example/cb"
	var lists []verifyd.RedirectList
	own := map[verifyd.RedirectList]string{}
	for _, biz := range []string{"biz_iso1", "biz_iso2"} {
		createBusiness(t, ctx, s, biz, clock)
		for _, i := range verifyd.Interfaces {
			for _, e := range verifyd.Environments {
				l := verifyd.RedirectList{BusinessID: biz, Interface: i, Environment: e}
				lists = append(lists, l)
				own[l] = fmt.Sprintf("https://%s.example/%s/%s", biz, i, e)
			}
		}
	}
	for _, l := range lists {
		mustAdd(t, ctx, s, l, own[l], shared)
	}
	check := func(step string, want func(verifyd.RedirectList) []string) {
		t.Helper()
		for _, l := range lists {
			assertRedirects(t, ctx, s, l, step, want(l))
			for _, m := range lists {
				if m == l {
					continue
				}
				if ok, err := s.RedirectAllowed(ctx, l, own[m]); err != nil || ok {
					t.Errorf("%s: RedirectAllowed(%+v, URL of %+v) = %v, %v; want false", step, l, m, ok, err)
				}
			}
		}
	}
	check("every list has its URL and the shared one", func(l verifyd.RedirectList) []string {
		return []string{own[l], shared}
	})

	// Changing one list leaves the seven others alone.
	replaced, removed, filled := lists[0], lists[5], lists[6]
	if err := s.ReplaceRedirects(ctx, replaced, nil); err != nil {
		t.Fatalf("ReplaceRedirects: %v", err)
	}
	if err := s.RemoveRedirects(ctx, removed, []string{shared}); err != nil {
		t.Fatalf("RemoveRedirects: %v", err)
	}
	many := urls("many", verifyd.MaxRedirects-2)
	mustAdd(t, ctx, s, filled, many...)
	check("after changing three lists", func(l verifyd.RedirectList) []string {
		switch l {
		case replaced:
			return []string{}
		case removed:
			return []string{own[l]}
		case filled:
			return append([]string{own[l], shared}, many...)
		}
		return []string{own[l], shared}
	})
	// The limit counts one list, not the business's.
	for _, l := range lists {
		if l != filled {
			mustAdd(t, ctx, s, l, many...)
		}
	}
}

// --- verifications ----------------------------------------------------------

// verificationFixture creates two businesses and returns the first's
// identity/production and identity/sandbox credentials.
func verificationFixture(t *testing.T, ctx context.Context, s verifyd.Store) (prod, sandbox verifyd.StoredCredential) {
	t.Helper()
	_, creds := createBusiness(t, ctx, s, "biz_v", clock)
	createBusiness(t, ctx, s, "biz_w", clock)
	return creds[0], creds[1]
}

func mustCreateVerification(t *testing.T, ctx context.Context, s verifyd.Store, v verifyd.Verification, images []verifyd.StoredImage) {
	t.Helper()
	if err := s.CreateVerification(ctx, v, images); err != nil {
		t.Fatalf("CreateVerification(%s): %v", v.ID, err)
	}
}

func assertImages(t *testing.T, ctx context.Context, s verifyd.Store, id string, want []verifyd.StoredImage) {
	t.Helper()
	got, err := s.Images(ctx, id)
	if err != nil {
		t.Fatalf("Images(%s): %v", id, err)
	}
	byKind := func(a, b verifyd.StoredImage) int { return strings.Compare(string(a.Kind), string(b.Kind)) }
	got = slices.Clone(got)
	want = slices.Clone(want)
	slices.SortFunc(got, byKind)
	slices.SortFunc(want, byKind)
	assertEqual(t, "Images("+id+")", got, want)
}

func testVerificationRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	prod, sandbox := verificationFixture(t, ctx, s)
	tests := []struct {
		name   string
		v      verifyd.Verification
		images []verifyd.StoredImage
	}{
		{"hosted, every field set", hostedVerification("vrf_hosted", prod, clock), nil},
		{"direct, with images", directVerification("vrf_direct", sandbox, clock), newImages("vrf_direct")},
		{"sub-microsecond times in another zone", func() verifyd.Verification {
			v := hostedVerification("vrf_odd", sandbox, oddClock)
			v.Status, v.Reason = verifyd.StatusApproved, verifyd.ReasonNone
			v.Document = verifyd.DocumentInfo{Type: verifyd.DocResidencePermit, Country: "deu"}
			return v
		}(), newImages("vrf_odd")[:1]},
	}
	for _, tt := range tests {
		if err := s.CreateVerification(ctx, tt.v, tt.images); err != nil {
			t.Errorf("%s: CreateVerification: %v", tt.name, err)
			continue
		}
		got, err := s.Verification(ctx, tt.v.BusinessID, tt.v.Environment, tt.v.ID)
		if err != nil {
			t.Errorf("%s: Verification: %v", tt.name, err)
			continue
		}
		assertEqual(t, tt.name+": Verification", got, tt.v)
		assertImages(t, ctx, s, tt.v.ID, tt.images)
	}
}

func testVerificationNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	prod, _ := verificationFixture(t, ctx, s)
	v := hostedVerification("vrf_private", prod, clock)
	mustCreateVerification(t, ctx, s, v, nil)
	tests := []struct {
		name     string
		business string
		env      verifyd.Environment
		id       string
	}{
		{"another business", "biz_w", v.Environment, v.ID},
		{"unknown business", "biz_unknown", v.Environment, v.ID},
		{"other environment", v.BusinessID, verifyd.EnvSandbox, v.ID},
		{"other business and environment", "biz_w", verifyd.EnvSandbox, v.ID},
		{"unknown id", v.BusinessID, v.Environment, "vrf_unknown"},
		{"id in other case", v.BusinessID, v.Environment, strings.ToUpper(v.ID)},
		{"empty id", v.BusinessID, v.Environment, ""},
	}
	for _, tt := range tests {
		_, err := s.Verification(ctx, tt.business, tt.env, tt.id)
		assertNotFound(t, fmt.Sprintf("%s: Verification(%q, %q, %q)", tt.name, tt.business, tt.env, tt.id), err)
	}
	if _, err := s.Verification(ctx, v.BusinessID, v.Environment, v.ID); err != nil {
		t.Errorf("Verification by its owner: %v", err)
	}
}

// summaryOf is the VerificationSummary of v: what VerificationSummary must
// return.
func summaryOf(v verifyd.Verification) verifyd.VerificationSummary {
	return verifyd.VerificationSummary{ID: v.ID, Environment: v.Environment, Customer: v.Customer,
		Webhook: v.Webhook, Status: v.Status, Reason: v.Reason, SealedHostedToken: v.SealedHostedToken}
}

// testVerificationSummary checks B3's projection: the same fields as
// Verification, the same ownership rule, and every status change visible
// in the next read.
func testVerificationSummary(t *testing.T, ctx context.Context, s verifyd.Store) {
	prod, sandbox := verificationFixture(t, ctx, s)
	hosted := withStatus(hostedVerification("vrf_sum_hosted", prod, clock), verifyd.StatusPending)
	direct := directVerification("vrf_sum_direct", sandbox, clock)
	mustCreateVerification(t, ctx, s, hosted, nil)
	mustCreateVerification(t, ctx, s, direct, newImages(direct.ID))
	for _, v := range []verifyd.Verification{hosted, direct} {
		got, err := s.VerificationSummary(ctx, v.BusinessID, v.Environment, v.ID)
		if err != nil {
			t.Errorf("VerificationSummary(%s): %v", v.ID, err)
			continue
		}
		assertEqual(t, "VerificationSummary("+v.ID+")", got, summaryOf(v))
		if v.SealedHostedToken == nil && got.SealedHostedToken != nil {
			t.Errorf("VerificationSummary(%s): sealed token %x, want nil", v.ID, got.SealedHostedToken)
		}
	}

	// Each change shows in the next read, with its reason.
	v := hosted
	for i, to := range []verifyd.Status{verifyd.StatusStarted, verifyd.StatusFailed} {
		v = mustTransition(t, ctx, s, transition(v.ID, to, at(time.Duration(i+1)*time.Minute)), fmt.Sprintf("evt_sum_%d", i))
		got, err := s.VerificationSummary(ctx, v.BusinessID, v.Environment, v.ID)
		if err != nil {
			t.Fatalf("VerificationSummary after → %s: %v", to, err)
		}
		if got.Status != to || got.Reason != v.Reason {
			t.Errorf("VerificationSummary after → %s: status %q reason %q, want %q %q", to, got.Status, got.Reason, to, v.Reason)
		}
	}

	tests := []struct {
		name     string
		business string
		env      verifyd.Environment
		id       string
	}{
		{"another business", "biz_w", hosted.Environment, hosted.ID},
		{"other environment", hosted.BusinessID, verifyd.EnvSandbox, hosted.ID},
		{"unknown id", hosted.BusinessID, hosted.Environment, "vrf_unknown"},
		{"id in other case", hosted.BusinessID, hosted.Environment, strings.ToUpper(hosted.ID)},
		{"empty id", hosted.BusinessID, hosted.Environment, ""},
	}
	for _, tt := range tests {
		_, err := s.VerificationSummary(ctx, tt.business, tt.env, tt.id)
		assertNotFound(t, fmt.Sprintf("%s: VerificationSummary(%q, %q, %q)", tt.name, tt.business, tt.env, tt.id), err)
	}
}

func testVerificationByHostedToken(t *testing.T, ctx context.Context, s verifyd.Store) {
	prod, sandbox := verificationFixture(t, ctx, s)
	one := hostedVerification("vrf_one", prod, clock)
	two := hostedVerification("vrf_two", sandbox, at(time.Minute))
	mustCreateVerification(t, ctx, s, one, nil)
	mustCreateVerification(t, ctx, s, two, nil)
	// Direct verifications have no token; several must coexist.
	mustCreateVerification(t, ctx, s, directVerification("vrf_direct1", prod, clock), nil)
	mustCreateVerification(t, ctx, s, directVerification("vrf_direct2", prod, clock), newImages("d2"))
	for _, v := range []verifyd.Verification{one, two} {
		got, err := s.VerificationByHostedToken(ctx, slices.Clone(v.HostedTokenHash))
		if err != nil {
			t.Errorf("VerificationByHostedToken(hash of %s): %v", v.ID, err)
			continue
		}
		assertEqual(t, "VerificationByHostedToken(hash of "+v.ID+")", got, v)
	}
	flipped := slices.Clone(one.HostedTokenHash)
	flipped[len(flipped)-1] ^= 1
	for name, hash := range map[string][]byte{
		"unknown hash":   digest("no such token"),
		"one bit off":    flipped,
		"prefix of hash": one.HostedTokenHash[:16],
		"nil hash":       nil,
		"empty hash":     {},
	} {
		_, err := s.VerificationByHostedToken(ctx, hash)
		assertNotFound(t, "VerificationByHostedToken("+name+")", err)
	}
}

func testImages(t *testing.T, ctx context.Context, s verifyd.Store) {
	prod, sandbox := verificationFixture(t, ctx, s)
	first := newImages("first")
	second := newImages("second")
	// The same photo submitted twice: the digest is kept so reuse can be
	// found, so equal digests must be storable.
	second[0].SHA256 = slices.Clone(first[0].SHA256)
	mustCreateVerification(t, ctx, s, directVerification("vrf_img1", prod, clock), first)
	mustCreateVerification(t, ctx, s, directVerification("vrf_img2", sandbox, clock), second)
	mustCreateVerification(t, ctx, s, directVerification("vrf_img3", prod, clock), second[1:2])
	mustCreateVerification(t, ctx, s, hostedVerification("vrf_noimg", prod, clock), nil)
	assertImages(t, ctx, s, "vrf_img1", first)
	assertImages(t, ctx, s, "vrf_img2", second)
	assertImages(t, ctx, s, "vrf_img3", second[1:2])
	assertImages(t, ctx, s, "vrf_noimg", nil)
}

func testVerificationDuplicateID(t *testing.T, ctx context.Context, s verifyd.Store) {
	prod, sandbox := verificationFixture(t, ctx, s)
	orig := hostedVerification("vrf_dup", prod, clock)
	origImages := newImages("orig")[:2]
	mustCreateVerification(t, ctx, s, orig, origImages)
	for name, v := range map[string]verifyd.Verification{
		"same business":    directVerification("vrf_dup", prod, at(time.Hour)),
		"other env":        directVerification("vrf_dup", sandbox, at(time.Hour)),
		"other business":   directVerification("vrf_dup", newCredential("biz_w", verifyd.InterfaceIdentity, verifyd.EnvProduction, clock), at(time.Hour)),
		"new hosted token": hostedVerification("vrf_dup", prod, at(time.Hour)),
	} {
		if name == "new hosted token" {
			v.HostedTokenHash = digest("a fresh token")
		}
		if err := s.CreateVerification(ctx, v, newImages("dup")); err == nil {
			t.Errorf("%s: CreateVerification with an existing id succeeded, want an error", name)
		}
	}
	got, err := s.Verification(ctx, orig.BusinessID, orig.Environment, orig.ID)
	if err != nil {
		t.Fatalf("Verification: %v", err)
	}
	assertEqual(t, "Verification after duplicate CreateVerification calls", got, orig)
	assertImages(t, ctx, s, orig.ID, origImages)
	_, err = s.VerificationByHostedToken(ctx, digest("a fresh token"))
	assertNotFound(t, "hosted token of a refused duplicate", err)
}

func testVerificationDuplicateHostedToken(t *testing.T, ctx context.Context, s verifyd.Store) {
	prod, _ := verificationFixture(t, ctx, s)
	orig := hostedVerification("vrf_tok1", prod, clock)
	mustCreateVerification(t, ctx, s, orig, nil)
	clash := hostedVerification("vrf_tok2", prod, clock)
	clash.HostedTokenHash = slices.Clone(orig.HostedTokenHash)
	if err := s.CreateVerification(ctx, clash, newImages("clash")); err == nil {
		t.Error("CreateVerification with another verification's hosted token hash succeeded; " +
			"VerificationByHostedToken could no longer name one verification")
	}
	got, err := s.VerificationByHostedToken(ctx, orig.HostedTokenHash)
	if err != nil {
		t.Fatalf("VerificationByHostedToken: %v", err)
	}
	assertEqual(t, "VerificationByHostedToken after a clashing CreateVerification", got, orig)
	_, err = s.Verification(ctx, clash.BusinessID, clash.Environment, clash.ID)
	assertNotFound(t, "refused verification", err)
	assertImages(t, ctx, s, clash.ID, nil)
}

// --- lifecycle --------------------------------------------------------------

// env is a store under test together with the jobs it enqueued.
type env struct {
	verifyd.Store
	t *testing.T
	h Harness
}

// jobs returns the jobs committed so far.
func (e *env) jobs() []Job { return e.h.Jobs(e.t, e.Store) }

// jobsFor returns the committed jobs about subject.
func (e *env) jobsFor(subject string) []Job {
	var out []Job
	for _, j := range e.jobs() {
		if j.Subject == subject {
			out = append(out, j)
		}
	}
	return out
}

// lifecycleJobs returns the committed delivery and expiry jobs (stores
// enqueue other kinds too, such as a submission's processing).
func (e *env) lifecycleJobs() []Job {
	var out []Job
	for _, j := range e.jobs() {
		if j.Kind == JobDeliverWebhook || j.Kind == JobExpireVerification {
			out = append(out, j)
		}
	}
	return out
}

// failJobs makes the store's job queue fail with err (nil: work again).
func (e *env) failJobs(err error) { e.h.FailJobs(e.Store, err) }

var allStatuses = []verifyd.Status{
	verifyd.StatusPending, verifyd.StatusStarted, verifyd.StatusExpired, verifyd.StatusFailed, verifyd.StatusApproved,
}

// pendingVerification is a hosted verification as the service creates it.
func pendingVerification(id string, c verifyd.StoredCredential, created time.Time) verifyd.Verification {
	v := hostedVerification(id, c, created)
	v.Status, v.UpdatedAt = verifyd.StatusPending, created
	return v
}

// withStatus returns v in status s. (The service creates verifications
// pending; other statuses at creation only set up a transition to test.)
func withStatus(v verifyd.Verification, s verifyd.Status) verifyd.Verification {
	v.Status = s
	return v
}

// transition returns a valid transition of id to status to at the given time.
func transition(id string, to verifyd.Status, at time.Time) verifyd.Transition {
	t := verifyd.Transition{VerificationID: id, To: to, At: at}
	switch to {
	case verifyd.StatusStarted:
		t.Cause = verifyd.CauseHostedOpened
	case verifyd.StatusFailed:
		t.Cause, t.Reason = verifyd.CauseEngine, verifyd.ReasonPhotoMismatch
	case verifyd.StatusApproved:
		t.Cause, t.Actor = verifyd.CauseReview, "ops@shop.example"
	case verifyd.StatusExpired:
		t.Cause = verifyd.CauseExpiry
	default:
		t.Cause = verifyd.CauseSandboxControl
	}
	return t
}

// applied returns v as tr leaves it.
func applied(v verifyd.Verification, tr verifyd.Transition) verifyd.Verification {
	v.Status, v.Reason, v.UpdatedAt = tr.To, tr.Reason, tr.At
	return v
}

// historyEntry is the entry tr appends to a verification in status from.
func historyEntry(seq int, from verifyd.Status, tr verifyd.Transition) verifyd.StatusEvent {
	return verifyd.StatusEvent{VerificationID: tr.VerificationID, Seq: seq, At: tr.At, From: from, To: tr.To,
		Reason: tr.Reason, Cause: tr.Cause, Actor: tr.Actor}
}

// createdEntry is the first history entry of v.
func createdEntry(v verifyd.Verification) verifyd.StatusEvent {
	return verifyd.StatusEvent{VerificationID: v.ID, Seq: 1, At: v.CreatedAt, From: "", To: v.Status,
		Reason: v.Reason, Cause: verifyd.CauseCreated}
}

// newEvent is the webhook event created by the transition that left v as
// it is and appended history entry seq.
func newEvent(id string, seq int, v verifyd.Verification, at time.Time) verifyd.WebhookEvent {
	return verifyd.WebhookEvent{ID: id, VerificationID: v.ID, Seq: seq, BusinessID: v.BusinessID, APIKey: v.APIKey,
		URL: v.Webhook, Payload: verifyd.WebhookPayload(v), State: verifyd.WebhookPending, CreatedAt: at}
}

func mustTransition(t *testing.T, ctx context.Context, s verifyd.Store, tr verifyd.Transition, eventID string) verifyd.Verification {
	t.Helper()
	v, err := s.TransitionVerification(ctx, tr, eventID)
	if err != nil {
		t.Fatalf("TransitionVerification(%s → %s, %s): %v", tr.VerificationID, tr.To, eventID, err)
	}
	return v
}

func mustStatusEvents(t *testing.T, ctx context.Context, s verifyd.Store, id string) []verifyd.StatusEvent {
	t.Helper()
	got, err := s.StatusEvents(ctx, id)
	if err != nil {
		t.Fatalf("StatusEvents(%s): %v", id, err)
	}
	return got
}

func mustWebhookEvent(t *testing.T, ctx context.Context, s verifyd.Store, id string) verifyd.WebhookEvent {
	t.Helper()
	got, err := s.WebhookEvent(ctx, id)
	if err != nil {
		t.Fatalf("WebhookEvent(%s): %v", id, err)
	}
	return got
}

func mustWebhookEvents(t *testing.T, ctx context.Context, s verifyd.Store, f verifyd.WebhookFilter) []verifyd.WebhookEvent {
	t.Helper()
	got, err := s.WebhookEvents(ctx, f)
	if err != nil {
		t.Fatalf("WebhookEvents(%+v): %v", f, err)
	}
	return got
}

func mustRecordAttempt(t *testing.T, ctx context.Context, s verifyd.Store, a verifyd.WebhookAttempt, state verifyd.WebhookState) {
	t.Helper()
	if err := s.RecordWebhookAttempt(ctx, a, state); err != nil {
		t.Fatalf("RecordWebhookAttempt(%s, %s): %v", a.EventID, state, err)
	}
}

// assertStored checks that VerificationByID returns want.
func assertStored(t *testing.T, ctx context.Context, s verifyd.Store, what string, want verifyd.Verification) {
	t.Helper()
	got, err := s.VerificationByID(ctx, want.ID)
	if err != nil {
		t.Errorf("%s: VerificationByID(%s): %v", what, want.ID, err)
		return
	}
	assertEqual(t, what+": stored verification", got, want)
}

func assertHistory(t *testing.T, ctx context.Context, s verifyd.Store, what, id string, want []verifyd.StatusEvent) {
	t.Helper()
	got := mustStatusEvents(t, ctx, s, id)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	assertEqual(t, what+": StatusEvents("+id+")", got, want)
}

// assertPayload checks that a webhook payload is exactly SPEC's four fields
// of v.
func assertPayload(t *testing.T, what string, payload []byte, v verifyd.Verification) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal(payload, &got); err != nil {
		t.Errorf("%s: payload %q is not a JSON object: %v", what, payload, err)
		return
	}
	want := map[string]any{"id": v.ID, "customer_id": v.Customer.ID, "status": string(v.Status), "reason": string(v.Reason)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: payload %s, want exactly the fields %v", what, payload, want)
	}
}

// assertJobs checks jobs against want. A wanted job with a zero RunAt is due
// at once: the store may leave RunAt zero or set it no later than dueBy.
func assertJobs(t *testing.T, what string, got, want []Job, dueBy time.Time) {
	t.Helper()
	got = slices.Clone(got)
	for i := range got {
		if i < len(want) && want[i].RunAt.IsZero() && !got[i].RunAt.After(dueBy) {
			got[i].RunAt = time.Time{}
		}
	}
	if len(got) == 0 && len(want) == 0 {
		return
	}
	assertEqual(t, what+": jobs", got, want)
}

func deliveryJob(eventID string) Job { return Job{Kind: JobDeliverWebhook, Subject: eventID} }

func expiryJob(v verifyd.Verification, at time.Time) Job {
	return Job{Kind: JobExpireVerification, Subject: v.ID, RunAt: at}
}

func testCreateRecordsHistory(t *testing.T, ctx context.Context, e *env) {
	prod, sandbox := verificationFixture(t, ctx, e)
	tests := []struct {
		name string
		v    verifyd.Verification
	}{
		{"pending, sub-microsecond time in another zone", pendingVerification("vrf_new", prod, oddClock)},
		{"started", hostedVerification("vrf_started", sandbox, clock)},
		{"short lifetime", func() verifyd.Verification {
			v := pendingVerification("vrf_short", prod, at(time.Hour))
			v.ExpiresAt = at(time.Hour + 90*time.Second + 7*time.Microsecond)
			return v
		}()},
	}
	for _, tt := range tests {
		mustCreateVerification(t, ctx, e, tt.v, nil)
		assertHistory(t, ctx, e, tt.name, tt.v.ID, []verifyd.StatusEvent{createdEntry(tt.v)})
		assertJobs(t, tt.name+": CreateVerification", e.jobsFor(tt.v.ID),
			[]Job{expiryJob(tt.v, tt.v.DueAt())}, time.Time{})
		if events := mustWebhookEvents(t, ctx, e, verifyd.WebhookFilter{VerificationID: tt.v.ID}); len(events) != 0 {
			t.Errorf("%s: creating a verification created %d webhook events, want none", tt.name, len(events))
		}
	}
	if n := len(e.lifecycleJobs()); n != len(tests) {
		t.Errorf("%d verifications created, %d delivery and expiry jobs enqueued; want one expiry job each", len(tests), n)
	}
}

func testTransitionStateMachine(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	when := at(time.Hour + 250*time.Microsecond)
	for _, from := range allStatuses {
		for _, to := range allStatuses {
			name := fmt.Sprintf("%s → %s", from, to)
			v := withStatus(pendingVerification(fmt.Sprintf("vrf_%s_%s", from, to), prod, clock), from)
			mustCreateVerification(t, ctx, e, v, nil)
			eventID := "evt_" + v.ID
			tr := transition(v.ID, to, when)
			got, err := e.TransitionVerification(ctx, tr, eventID)

			if !verifyd.CanTransition(from, to) {
				if code := verifyd.ErrorCodeOf(err); code != verifyd.EConflict {
					t.Errorf("%s: TransitionVerification: got error %v (code %q), want code %q", name, err, code, verifyd.EConflict)
				}
				assertStored(t, ctx, e, name+" (refused)", v)
				assertHistory(t, ctx, e, name+" (refused)", v.ID, []verifyd.StatusEvent{createdEntry(v)})
				_, err := e.WebhookEvent(ctx, eventID)
				assertNotFound(t, name+" (refused): WebhookEvent", err)
				if events := mustWebhookEvents(t, ctx, e, verifyd.WebhookFilter{VerificationID: v.ID}); len(events) != 0 {
					t.Errorf("%s (refused): %d webhook events, want none", name, len(events))
				}
				assertJobs(t, name+" (refused)", e.jobsFor(eventID), nil, when)
				continue
			}
			if err != nil {
				t.Errorf("%s: TransitionVerification: %v", name, err)
				continue
			}
			want := applied(v, tr)
			assertEqual(t, name+": verification returned by TransitionVerification", got, want)
			assertStored(t, ctx, e, name, want)
			assertHistory(t, ctx, e, name, v.ID, []verifyd.StatusEvent{createdEntry(v), historyEntry(2, from, tr)})
			event, err := e.WebhookEvent(ctx, eventID)
			if err != nil {
				t.Errorf("%s: WebhookEvent: %v", name, err)
			} else {
				assertEqual(t, name+": webhook event", event, newEvent(eventID, 2, want, when))
			}
			assertJobs(t, name, e.jobsFor(eventID), []Job{deliveryJob(eventID)}, when)
		}
	}
}

func testTransitionRecordsChange(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_path", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	history := []verifyd.StatusEvent{createdEntry(v)}
	steps := []struct {
		tr      verifyd.Transition
		eventID string
	}{
		{transition(v.ID, verifyd.StatusStarted, oddClock), "evt_path_started"},
		{func() verifyd.Transition {
			tr := transition(v.ID, verifyd.StatusFailed, oddClock.Add(42*time.Second))
			tr.Reason, tr.Cause, tr.Actor = verifyd.ReasonIDScanError, verifyd.CauseReview, "reviewer@ops.example"
			return tr
		}(), "evt_path_failed"},
	}
	for i, st := range steps {
		name := fmt.Sprintf("step %d (%s → %s)", i+1, v.Status, st.tr.To)
		from := v.Status
		got := mustTransition(t, ctx, e, st.tr, st.eventID)
		v = applied(v, st.tr)
		assertEqual(t, name+": returned verification", got, v)
		assertStored(t, ctx, e, name, v)
		history = append(history, historyEntry(i+2, from, st.tr))
		assertHistory(t, ctx, e, name, v.ID, history)

		event := mustWebhookEvent(t, ctx, e, st.eventID)
		assertEqual(t, name+": webhook event", event, newEvent(st.eventID, i+2, v, st.tr.At))
		assertPayload(t, name, event.Payload, v)
		if event.URL != v.Webhook || event.APIKey != prod.APIKey {
			t.Errorf("%s: event goes to %q signed with %q; want %q and %q", name, event.URL, event.APIKey, v.Webhook, prod.APIKey)
		}
		assertJobs(t, name, e.jobsFor(st.eventID), []Job{deliveryJob(st.eventID)}, st.tr.At)
	}
	// Every event is kept, newest first.
	events := mustWebhookEvents(t, ctx, e, verifyd.WebhookFilter{VerificationID: v.ID})
	if ids := eventIDs(events); !slices.Equal(ids, []string{"evt_path_failed", "evt_path_started"}) {
		t.Errorf("WebhookEvents of the verification = %q, want both events, newest first", ids)
	}
	// The expiry job of creation plus one delivery per transition.
	if n := len(e.lifecycleJobs()); n != 1+len(steps) {
		t.Errorf("%d delivery and expiry jobs enqueued, want %d", n, 1+len(steps))
	}
}

func eventIDs(events []verifyd.WebhookEvent) []string {
	ids := make([]string, len(events))
	for i, ev := range events {
		ids[i] = ev.ID
	}
	return ids
}

func testTerminalStatusesAreFinal(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	for p, path := range [][]verifyd.Status{
		{verifyd.StatusStarted, verifyd.StatusApproved},
		{verifyd.StatusStarted, verifyd.StatusFailed},
		{verifyd.StatusExpired},
		{verifyd.StatusStarted, verifyd.StatusExpired},
	} {
		final := fmt.Sprint(path)
		v := pendingVerification(fmt.Sprintf("vrf_final_%d", p), prod, clock)
		mustCreateVerification(t, ctx, e, v, nil)
		for i, to := range path {
			v = mustTransition(t, ctx, e, transition(v.ID, to, at(time.Duration(i+1)*time.Minute)), fmt.Sprintf("evt_%s_%d", v.ID, i))
		}
		history := mustStatusEvents(t, ctx, e, v.ID)
		jobs := len(e.jobs())
		for _, to := range allStatuses {
			name := fmt.Sprintf("%s → %s", final, to)
			eventID := "evt_late_" + v.ID + "_" + string(to)
			_, err := e.TransitionVerification(ctx, transition(v.ID, to, at(time.Hour)), eventID)
			if code := verifyd.ErrorCodeOf(err); code != verifyd.EConflict {
				t.Errorf("%s: got error %v (code %q), want code %q", name, err, code, verifyd.EConflict)
			}
			_, err = e.WebhookEvent(ctx, eventID)
			assertNotFound(t, name+": webhook event of a refused transition", err)
		}
		assertStored(t, ctx, e, final+" after refused transitions", v)
		assertHistory(t, ctx, e, final+" after refused transitions", v.ID, history)
		if n := len(e.jobs()); n != jobs {
			t.Errorf("%s: refused transitions enqueued %d jobs, want none", final, n-jobs)
		}
	}
}

func testTransitionUnknown(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_known", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	for _, id := range []string{"vrf_unknown", "", "VRF_KNOWN"} {
		_, err := e.TransitionVerification(ctx, transition(id, verifyd.StatusStarted, at(time.Minute)), "evt_ghost")
		assertNotFound(t, fmt.Sprintf("TransitionVerification(%q)", id), err)
	}
	_, err := e.WebhookEvent(ctx, "evt_ghost")
	assertNotFound(t, "webhook event of a transition of an unknown verification", err)
	assertJobs(t, "transitions of unknown verifications", e.jobsFor("evt_ghost"), nil, clock)
	assertStored(t, ctx, e, "bystander", v)
}

func testConcurrentTransitions(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_race", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	history := []verifyd.StatusEvent{createdEntry(v)}
	rounds := []struct {
		name    string
		targets []verifyd.Status
	}{
		// Replicas opening the hosted page at once.
		{"pending → started", slices.Repeat([]verifyd.Status{verifyd.StatusStarted}, 8)},
		// A result, a review and the expiry racing each other.
		{"started → approved | failed | expired", slices.Repeat([]verifyd.Status{
			verifyd.StatusApproved, verifyd.StatusFailed, verifyd.StatusExpired}, 3)},
	}
	for r, round := range rounds {
		n := len(round.targets)
		trs := make([]verifyd.Transition, n)
		results := make([]verifyd.Verification, n)
		errs := make([]error, n)
		eventID := func(i int) string { return fmt.Sprintf("evt_race_%d_%d", r, i) }
		var wg sync.WaitGroup
		for i, to := range round.targets {
			trs[i] = transition(v.ID, to, at(time.Duration(r+1)*time.Hour+time.Duration(i)*time.Second))
			wg.Go(func() { results[i], errs[i] = e.TransitionVerification(ctx, trs[i], eventID(i)) })
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Errorf("%s: transitions %d and %d both succeeded", round.name, winner, i)
			case err == nil:
				winner = i
			case verifyd.ErrorCodeOf(err) != verifyd.EConflict:
				t.Errorf("%s: transition %d: got error %v, want nil or code %q", round.name, i, err, verifyd.EConflict)
			}
		}
		if winner < 0 {
			t.Fatalf("%s: no transition succeeded", round.name)
		}
		from := v.Status
		v = applied(v, trs[winner])
		assertEqual(t, round.name+": winner's verification", results[winner], v)
		assertStored(t, ctx, e, round.name, v)
		history = append(history, historyEntry(len(history)+1, from, trs[winner]))
		assertHistory(t, ctx, e, round.name, v.ID, history)
		var delivered []Job
		for i := range n {
			_, err := e.WebhookEvent(ctx, eventID(i))
			if i == winner && err != nil {
				t.Errorf("%s: winner's webhook event: %v", round.name, err)
			} else if i != winner {
				assertNotFound(t, fmt.Sprintf("%s: loser %d's webhook event", round.name, i), err)
			}
			delivered = append(delivered, e.jobsFor(eventID(i))...)
		}
		assertJobs(t, round.name, delivered, []Job{deliveryJob(eventID(winner))}, trs[winner].At)
	}
	if events := mustWebhookEvents(t, ctx, e, verifyd.WebhookFilter{VerificationID: v.ID}); len(events) != len(rounds) {
		t.Errorf("%d webhook events after %d contested changes, want one each", len(events), len(rounds))
	}
}

func testFailedEnqueueCommitsNothing(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	queueDown := errors.New("storetest: job queue unavailable")
	v := pendingVerification("vrf_nojob", prod, clock)
	images := newImages("nojob")

	e.failJobs(queueDown)
	if err := e.CreateVerification(ctx, v, images); err == nil {
		t.Error("CreateVerification succeeded although its expiry job could not be enqueued")
	}
	_, err := e.VerificationByID(ctx, v.ID)
	assertNotFound(t, "verification whose expiry job failed", err)
	_, err = e.VerificationByHostedToken(ctx, v.HostedTokenHash)
	assertNotFound(t, "hosted token of a verification whose expiry job failed", err)
	assertHistory(t, ctx, e, "failed CreateVerification", v.ID, nil)
	assertImages(t, ctx, e, v.ID, nil)
	e.failJobs(nil)
	mustCreateVerification(t, ctx, e, v, images) // nothing of the failed call is in the way
	assertImages(t, ctx, e, v.ID, images)

	eventID := "evt_nojob"
	tr := transition(v.ID, verifyd.StatusStarted, at(time.Minute))
	e.failJobs(queueDown)
	if _, err := e.TransitionVerification(ctx, tr, eventID); err == nil {
		t.Error("TransitionVerification succeeded although its delivery job could not be enqueued")
	}
	assertStored(t, ctx, e, "after the failed transition", v)
	assertHistory(t, ctx, e, "after the failed transition", v.ID, []verifyd.StatusEvent{createdEntry(v)})
	_, err = e.WebhookEvent(ctx, eventID)
	assertNotFound(t, "webhook event of the failed transition", err)
	if n, err := e.CountWebhookEvents(ctx, verifyd.WebhookPending); err != nil || n != 0 {
		t.Errorf("CountWebhookEvents(pending) after the failed transition = %d, %v; want 0", n, err)
	}

	if _, err := e.AdvanceClock(ctx, v.ID, time.Hour, at(time.Minute)); err == nil {
		t.Error("AdvanceClock succeeded although its expiry job could not be enqueued")
	}
	assertStored(t, ctx, e, "after the failed AdvanceClock", v)

	e.failJobs(nil)
	v = mustTransition(t, ctx, e, tr, eventID) // the same event id is still free
	mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: eventID, At: at(2 * time.Minute),
		StatusCode: 200, Latency: time.Millisecond}, verifyd.WebhookDelivered)
	delivered := mustWebhookEvent(t, ctx, e, eventID)
	e.failJobs(queueDown)
	if _, err := e.ResendWebhook(ctx, eventID); err == nil {
		t.Error("ResendWebhook succeeded although its delivery job could not be enqueued")
	}
	assertEqual(t, "webhook event after the failed ResendWebhook", mustWebhookEvent(t, ctx, e, eventID), delivered)
	e.failJobs(nil)

	assertJobs(t, "committed changes only", e.lifecycleJobs(), []Job{
		expiryJob(v, v.DueAt()), deliveryJob(eventID),
	}, at(time.Minute))
}

func testStatusEvents(t *testing.T, ctx context.Context, e *env) {
	prod, sandbox := verificationFixture(t, ctx, e)
	a := pendingVerification("vrf_hist_a", prod, clock)
	b := pendingVerification("vrf_hist_b", sandbox, oddClock)
	mustCreateVerification(t, ctx, e, a, nil)
	mustCreateVerification(t, ctx, e, b, nil)
	want := map[string][]verifyd.StatusEvent{a.ID: {createdEntry(a)}, b.ID: {createdEntry(b)}}
	status := map[string]verifyd.Status{a.ID: a.Status, b.ID: b.Status}
	// Interleaved changes of both verifications.
	for i, step := range []struct {
		id string
		to verifyd.Status
	}{
		{a.ID, verifyd.StatusStarted}, {b.ID, verifyd.StatusStarted},
		{b.ID, verifyd.StatusApproved}, {a.ID, verifyd.StatusFailed},
	} {
		tr := transition(step.id, step.to, oddClock.Add(time.Duration(i+1)*time.Minute+time.Duration(i)*time.Microsecond))
		mustTransition(t, ctx, e, tr, fmt.Sprintf("evt_hist_%d", i))
		want[step.id] = append(want[step.id], historyEntry(len(want[step.id])+1, status[step.id], tr))
		status[step.id] = step.to
	}
	for _, id := range []string{a.ID, b.ID} {
		assertHistory(t, ctx, e, "interleaved changes", id, want[id])
	}
	for _, id := range []string{"vrf_unknown", "", "VRF_HIST_A"} {
		if got := mustStatusEvents(t, ctx, e, id); len(got) != 0 {
			t.Errorf("StatusEvents(%q) = %d entries, want none", id, len(got))
		}
	}
}

func testVerificationByID(t *testing.T, ctx context.Context, e *env) {
	prod, sandbox := verificationFixture(t, ctx, e)
	other := newCredential("biz_w", verifyd.InterfaceAge, verifyd.EnvSandbox, clock)
	vs := []verifyd.Verification{
		pendingVerification("vrf_by_id_1", prod, clock),
		directVerification("vrf_by_id_2", sandbox, oddClock),
		pendingVerification("vrf_by_id_3", other, at(time.Hour)),
	}
	for _, v := range vs {
		mustCreateVerification(t, ctx, e, v, nil)
	}
	for _, v := range vs {
		assertStored(t, ctx, e, "VerificationByID of business "+v.BusinessID, v)
	}
	moved := mustTransition(t, ctx, e, transition(vs[2].ID, verifyd.StatusStarted, at(2*time.Hour)), "evt_by_id")
	assertStored(t, ctx, e, "VerificationByID after a transition", moved)
	for _, id := range []string{"vrf_unknown", "", "VRF_BY_ID_1", "vrf_by_id_"} {
		_, err := e.VerificationByID(ctx, id)
		assertNotFound(t, fmt.Sprintf("VerificationByID(%q)", id), err)
	}
}

func testAdvanceClock(t *testing.T, ctx context.Context, e *env) {
	_, sandbox := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_clock", sandbox, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	wantJobs := []Job{expiryJob(v, v.DueAt())}
	steps := []struct {
		by  time.Duration
		now time.Time
	}{
		{2 * 24 * time.Hour, at(time.Hour)},
		{36*time.Hour + 250*time.Microsecond, at(2 * time.Hour)},
		// Past the expiry: the check is due at once, not in the past.
		{2 * 24 * time.Hour, at(3 * time.Hour)},
		{time.Hour, at(4*time.Hour + 17*time.Microsecond)},
	}
	for i, st := range steps {
		name := fmt.Sprintf("AdvanceClock %d by %s", i+1, st.by)
		before := v.DueAt()
		got, err := e.AdvanceClock(ctx, v.ID, st.by, st.now)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v.ClockOffset += st.by
		assertEqual(t, name+": returned verification", got, v)
		assertStored(t, ctx, e, name, v)
		if !got.DueAt().Before(before) {
			t.Errorf("%s: due at %s, was %s; advancing the clock must bring it closer", name, got.DueAt(), before)
		}
		due := v.DueAt()
		if due.Before(st.now) {
			due = st.now
		}
		wantJobs = append(wantJobs, expiryJob(v, due))
		assertJobs(t, name, e.jobsFor(v.ID), wantJobs, time.Time{})
	}
	// Advancing the clock is not a status change.
	assertHistory(t, ctx, e, "after AdvanceClock", v.ID, []verifyd.StatusEvent{createdEntry(v)})
	if events := mustWebhookEvents(t, ctx, e, verifyd.WebhookFilter{VerificationID: v.ID}); len(events) != 0 {
		t.Errorf("AdvanceClock created %d webhook events, want none", len(events))
	}

	_, err := e.AdvanceClock(ctx, "vrf_unknown", time.Hour, clock)
	assertNotFound(t, "AdvanceClock of an unknown verification", err)
	assertJobs(t, "AdvanceClock of an unknown verification", e.jobsFor("vrf_unknown"), nil, time.Time{})
}

func testAdvanceClockByStatus(t *testing.T, ctx context.Context, e *env) {
	_, sandbox := verificationFixture(t, ctx, e)
	now := at(time.Hour)
	for _, status := range allStatuses {
		v := withStatus(pendingVerification("vrf_clock_"+string(status), sandbox, clock), status)
		mustCreateVerification(t, ctx, e, v, nil)
		got, err := e.AdvanceClock(ctx, v.ID, 3*time.Hour, now)
		if err != nil {
			t.Errorf("AdvanceClock of a %s verification: %v", status, err)
			continue
		}
		assertStored(t, ctx, e, "AdvanceClock of a "+string(status)+" verification", got)
		if got.Status != status {
			t.Errorf("AdvanceClock changed the status from %s to %s", status, got.Status)
		}
		want := []Job{expiryJob(v, v.DueAt())}
		if !status.Terminal() {
			v.ClockOffset = 3 * time.Hour
			assertEqual(t, "AdvanceClock of a "+string(status)+" verification", got, v)
			want = append(want, expiryJob(v, v.DueAt()))
		} else {
			// A finished one gets its retention rescheduled on the
			// advanced clock (an expired one is due at once).
			due, _ := got.RetentionDue(verifyd.DefaultRetentionDays)
			want = append(want, Job{Kind: JobPurgeVerification, Subject: v.ID, RunAt: later(due, now)})
		}
		assertJobs(t, "AdvanceClock of a "+string(status)+" verification", e.jobsFor(v.ID), want, time.Time{})
	}
}

func testRecordWebhookAttempt(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_hook", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	v = mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusStarted, at(time.Minute)), "evt_hook")
	// A bystander event must not change.
	w := pendingVerification("vrf_bystander", prod, clock)
	mustCreateVerification(t, ctx, e, w, nil)
	w = mustTransition(t, ctx, e, transition(w.ID, verifyd.StatusStarted, at(time.Minute)), "evt_bystander")
	bystander := mustWebhookEvent(t, ctx, e, "evt_bystander")

	event := newEvent("evt_hook", 2, v, at(time.Minute))
	var attempts []verifyd.WebhookAttempt
	var deliveredAt *time.Time
	steps := []struct {
		name    string
		a       verifyd.WebhookAttempt
		state   verifyd.WebhookState
		want    verifyd.WebhookState
		lastErr bool
	}{
		{"HTTP 500, will retry", verifyd.WebhookAttempt{Attempt: 7, At: at(2 * time.Minute), StatusCode: 500,
			Latency: 1500*time.Microsecond + 400*time.Nanosecond, Error: "HTTP 500 Internal Server Error"},
			verifyd.WebhookPending, verifyd.WebhookPending, true},
		{"connection refused, will retry", verifyd.WebhookAttempt{At: oddClock.Add(time.Hour),
			Latency: 10 * time.Second, Error: "dial tcp 192.0.2.1:443: connect: connection refused"},
			verifyd.WebhookPending, verifyd.WebhookPending, true},
		{"delivered", verifyd.WebhookAttempt{Attempt: 1, At: at(2 * time.Hour), StatusCode: 204,
			Latency: 87654 * time.Microsecond}, verifyd.WebhookDelivered, verifyd.WebhookDelivered, true},
		{"a late failure after delivery", verifyd.WebhookAttempt{At: at(3 * time.Hour), StatusCode: 503,
			Latency: 3 * time.Millisecond, Error: "HTTP 503"}, verifyd.WebhookFailed, verifyd.WebhookDelivered, false},
		{"a late retry after delivery", verifyd.WebhookAttempt{At: at(4 * time.Hour), StatusCode: 502,
			Latency: time.Microsecond, Error: "HTTP 502"}, verifyd.WebhookPending, verifyd.WebhookDelivered, false},
	}
	for i, st := range steps {
		a := st.a
		a.EventID = event.ID
		mustRecordAttempt(t, ctx, e, a, st.state)
		a.Attempt = i + 1 // numbered by the store, whatever the caller said
		a.Latency = a.Latency.Truncate(time.Microsecond)
		attempts = append(attempts, a)

		got := mustWebhookEvent(t, ctx, e, event.ID)
		if st.state == verifyd.WebhookDelivered {
			if got.DeliveredAt == nil {
				t.Fatalf("%s: DeliveredAt not set", st.name)
			}
			if got.DeliveredAt.Before(a.At.Truncate(time.Microsecond)) || got.DeliveredAt.After(a.At.Add(a.Latency)) {
				t.Errorf("%s: DeliveredAt %s, want between the attempt's start %s and its answer %s",
					st.name, got.DeliveredAt, a.At, a.At.Add(a.Latency))
			}
			deliveredAt = got.DeliveredAt
		}
		event.State, event.Attempts, event.DeliveredAt = st.want, i+1, deliveredAt
		if st.lastErr {
			event.LastError = a.Error
		} else {
			event.LastError = got.LastError
		}
		assertEqual(t, st.name+": webhook event", got, event)
		gotAttempts, err := e.WebhookAttempts(ctx, event.ID)
		if err != nil {
			t.Fatalf("%s: WebhookAttempts: %v", st.name, err)
		}
		assertEqual(t, st.name+": WebhookAttempts", gotAttempts, attempts)
	}
	if n, err := e.CountWebhookEvents(ctx, verifyd.WebhookDelivered); err != nil || n != 1 {
		t.Errorf("CountWebhookEvents(delivered) = %d, %v; want 1", n, err)
	}

	err := e.RecordWebhookAttempt(ctx, verifyd.WebhookAttempt{EventID: "evt_unknown", At: clock, StatusCode: 200},
		verifyd.WebhookDelivered)
	assertNotFound(t, "RecordWebhookAttempt of an unknown event", err)
	if got, err := e.WebhookAttempts(ctx, "evt_unknown"); err != nil || len(got) != 0 {
		t.Errorf("WebhookAttempts of an unknown event = %d, %v; want none", len(got), err)
	}
	assertEqual(t, "bystander event", mustWebhookEvent(t, ctx, e, bystander.ID), bystander)
	if got, err := e.WebhookAttempts(ctx, bystander.ID); err != nil || len(got) != 0 {
		t.Errorf("WebhookAttempts of the bystander = %d, %v; want none", len(got), err)
	}
	// Recording attempts enqueues nothing: retries are the queue's business.
	assertJobs(t, "RecordWebhookAttempt", e.jobsFor(event.ID), []Job{deliveryJob(event.ID)}, at(time.Minute))
}

func testConcurrentAttempts(t *testing.T, ctx context.Context, e *env) {
	// A resend's attempt can run while a retry's does.
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_attempts", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusStarted, at(time.Minute)), "evt_attempts")
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = e.RecordWebhookAttempt(ctx, verifyd.WebhookAttempt{EventID: "evt_attempts", Attempt: 1,
				At: at(time.Duration(i) * time.Second), StatusCode: 500, Latency: time.Duration(i+1) * time.Millisecond,
				Error: fmt.Sprintf("attempt by worker %d", i)}, verifyd.WebhookPending)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent RecordWebhookAttempt %d: %v", i, err)
		}
	}
	attempts, err := e.WebhookAttempts(ctx, "evt_attempts")
	if err != nil {
		t.Fatalf("WebhookAttempts: %v", err)
	}
	workers := map[string]bool{}
	for i, a := range attempts {
		if a.Attempt != i+1 {
			t.Errorf("attempt %d of the list is numbered %d, want %d", i, a.Attempt, i+1)
		}
		workers[a.Error] = true
	}
	if len(attempts) != n || len(workers) != n {
		t.Errorf("%d concurrent attempts recorded as %d rows from %d workers, want %d", n, len(attempts), len(workers), n)
	}
	if got := mustWebhookEvent(t, ctx, e, "evt_attempts"); got.Attempts != n {
		t.Errorf("event counts %d attempts, want %d", got.Attempts, n)
	}
}

func testResendWebhook(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_resend", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	v = mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusExpired, at(time.Minute)), "evt_resend")
	want := newEvent("evt_resend", 2, v, at(time.Minute))
	wantJobs := []Job{deliveryJob(want.ID)}
	states := []verifyd.WebhookState{verifyd.WebhookDelivered, verifyd.WebhookFailed, verifyd.WebhookPending}
	for i, state := range states {
		name := fmt.Sprintf("resend of a %s event", state)
		mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: want.ID, At: at(time.Duration(i+2) * time.Minute),
			StatusCode: 200, Latency: time.Millisecond}, state)
		before := mustWebhookEvent(t, ctx, e, want.ID)
		if (before.DeliveredAt != nil) != (state == verifyd.WebhookDelivered) {
			t.Errorf("%s: DeliveredAt before the resend = %v", name, before.DeliveredAt)
		}
		got, err := e.ResendWebhook(ctx, want.ID)
		if err != nil {
			t.Fatalf("%s: ResendWebhook: %v", name, err)
		}
		want.Attempts, want.LastError = i+1, before.LastError
		assertEqual(t, name+": event returned by ResendWebhook", got, want)
		assertEqual(t, name+": stored event", mustWebhookEvent(t, ctx, e, want.ID), want)
		wantJobs = append(wantJobs, deliveryJob(want.ID))
		assertJobs(t, name, e.jobsFor(want.ID), wantJobs, time.Now().Add(time.Minute))
		// The attempts stay on record.
		if attempts, err := e.WebhookAttempts(ctx, want.ID); err != nil || len(attempts) != i+1 {
			t.Errorf("%s: WebhookAttempts = %d, %v; want %d", name, len(attempts), err, i+1)
		}
		if n, err := e.CountWebhookEvents(ctx, verifyd.WebhookPending); err != nil || n != 1 {
			t.Errorf("%s: CountWebhookEvents(pending) = %d, %v; want 1", name, n, err)
		}
	}
	// After a resend, the next delivery is recorded as usual.
	mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: want.ID, At: at(time.Hour), StatusCode: 200,
		Latency: time.Millisecond}, verifyd.WebhookDelivered)
	if got := mustWebhookEvent(t, ctx, e, want.ID); got.State != verifyd.WebhookDelivered ||
		got.DeliveredAt == nil || got.Attempts != len(states)+1 {
		t.Errorf("delivery after resends: state %s, delivered at %v, %d attempts; want delivered, set, %d",
			got.State, got.DeliveredAt, got.Attempts, len(states)+1)
	}

	_, err := e.ResendWebhook(ctx, "evt_unknown")
	assertNotFound(t, "ResendWebhook of an unknown event", err)
	assertJobs(t, "ResendWebhook of an unknown event", e.jobsFor("evt_unknown"), nil, time.Time{})
}

func testPendingBefore(t *testing.T, ctx context.Context, e *env) {
	prod, _ := verificationFixture(t, ctx, e)
	v := pendingVerification("vrf_order", prod, clock)
	w := pendingVerification("vrf_order_other", prod, clock)
	mustCreateVerification(t, ctx, e, v, nil)
	mustCreateVerification(t, ctx, e, w, nil)
	// The other verification's pending event must not hold v's back.
	mustTransition(t, ctx, e, transition(w.ID, verifyd.StatusStarted, at(time.Second)), "evt_other")
	ids := []string{"evt_order_started", "evt_order_approved"}
	mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusStarted, at(time.Minute)), ids[0])
	mustTransition(t, ctx, e, transition(v.ID, verifyd.StatusApproved, at(2*time.Minute)), ids[1])
	first, second := mustWebhookEvent(t, ctx, e, ids[0]), mustWebhookEvent(t, ctx, e, ids[1])
	if first.Seq != 2 || second.Seq != 3 {
		t.Fatalf("events report history entries %d and %d, want 2 and 3", first.Seq, second.Seq)
	}
	check := func(step string, ev verifyd.WebhookEvent, want bool) {
		t.Helper()
		got, err := e.PendingBefore(ctx, ev)
		if err != nil {
			t.Fatalf("%s: PendingBefore(%s): %v", step, ev.ID, err)
		}
		if got != want {
			t.Errorf("%s: PendingBefore(%s) = %v, want %v", step, ev.ID, got, want)
		}
	}
	check("first event, both pending", first, false)
	check("second event, first pending", second, true)
	mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: ids[0], At: at(3 * time.Minute), StatusCode: 500,
		Error: "HTTP 500"}, verifyd.WebhookPending)
	check("second event, first being retried", second, true)
	mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: ids[0], At: at(4 * time.Minute), StatusCode: 200},
		verifyd.WebhookDelivered)
	check("second event, first delivered", second, false)
	if _, err := e.ResendWebhook(ctx, ids[0]); err != nil {
		t.Fatalf("ResendWebhook: %v", err)
	}
	check("second event, first resent", second, true)
	mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: ids[0], At: at(5 * time.Minute), StatusCode: 410,
		Error: "HTTP 410"}, verifyd.WebhookFailed)
	check("second event, first given up", second, false)
	// The second event's own state does not matter.
	mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: ids[1], At: at(6 * time.Minute), StatusCode: 200},
		verifyd.WebhookDelivered)
	check("first event, second delivered", first, false)
}

func testWebhookEventsFilter(t *testing.T, ctx context.Context, e *env) {
	prod, sandbox := verificationFixture(t, ctx, e)
	a := pendingVerification("vrf_ev_a", prod, clock)
	b := pendingVerification("vrf_ev_b", sandbox, clock)
	c := pendingVerification("vrf_ev_c", newCredential("biz_w", verifyd.InterfaceIdentity, verifyd.EnvProduction, clock), clock)
	for _, v := range []verifyd.Verification{a, b, c} {
		mustCreateVerification(t, ctx, e, v, nil)
	}
	// Made out of time order; ids sort differently from times.
	for _, step := range []struct {
		id, event string
		to        verifyd.Status
		at        time.Duration
	}{
		{a.ID, "evt_5", verifyd.StatusStarted, time.Minute},
		{b.ID, "evt_1", verifyd.StatusStarted, 2 * time.Minute},
		{c.ID, "evt_4", verifyd.StatusExpired, 5 * time.Minute},
		{a.ID, "evt_2", verifyd.StatusFailed, 3 * time.Minute},
		{b.ID, "evt_3", verifyd.StatusApproved, 4*time.Minute + time.Microsecond},
	} {
		mustTransition(t, ctx, e, transition(step.id, step.to, at(step.at)), step.event)
	}
	mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: "evt_5", At: at(time.Hour), StatusCode: 200}, verifyd.WebhookDelivered)
	mustRecordAttempt(t, ctx, e, verifyd.WebhookAttempt{EventID: "evt_1", At: at(time.Hour), StatusCode: 410,
		Error: "HTTP 410"}, verifyd.WebhookFailed)

	all := mustWebhookEvents(t, ctx, e, verifyd.WebhookFilter{})
	for _, ev := range all {
		assertEqual(t, "WebhookEvents entry "+ev.ID, ev, mustWebhookEvent(t, ctx, e, ev.ID))
	}
	tests := []struct {
		f    verifyd.WebhookFilter
		want []string
	}{
		{verifyd.WebhookFilter{}, []string{"evt_4", "evt_3", "evt_2", "evt_1", "evt_5"}},
		{verifyd.WebhookFilter{State: verifyd.WebhookPending}, []string{"evt_4", "evt_3", "evt_2"}},
		{verifyd.WebhookFilter{State: verifyd.WebhookDelivered}, []string{"evt_5"}},
		{verifyd.WebhookFilter{State: verifyd.WebhookFailed}, []string{"evt_1"}},
		{verifyd.WebhookFilter{VerificationID: a.ID}, []string{"evt_2", "evt_5"}},
		{verifyd.WebhookFilter{VerificationID: b.ID}, []string{"evt_3", "evt_1"}},
		{verifyd.WebhookFilter{VerificationID: a.ID, State: verifyd.WebhookPending}, []string{"evt_2"}},
		{verifyd.WebhookFilter{VerificationID: a.ID, State: verifyd.WebhookDelivered}, []string{"evt_5"}},
		{verifyd.WebhookFilter{VerificationID: a.ID, State: verifyd.WebhookFailed}, []string{}},
		{verifyd.WebhookFilter{Limit: 2}, []string{"evt_4", "evt_3"}},
		{verifyd.WebhookFilter{Limit: 1, VerificationID: b.ID}, []string{"evt_3"}},
		{verifyd.WebhookFilter{Limit: 2, State: verifyd.WebhookPending}, []string{"evt_4", "evt_3"}},
		{verifyd.WebhookFilter{Limit: 50}, []string{"evt_4", "evt_3", "evt_2", "evt_1", "evt_5"}},
		{verifyd.WebhookFilter{VerificationID: "vrf_unknown"}, []string{}},
		{verifyd.WebhookFilter{State: "unknown"}, []string{}},
	}
	for _, tt := range tests {
		got := eventIDs(mustWebhookEvents(t, ctx, e, tt.f))
		if !slices.Equal(got, tt.want) {
			t.Errorf("WebhookEvents(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
	for state, want := range map[verifyd.WebhookState]int{
		verifyd.WebhookPending: 3, verifyd.WebhookDelivered: 1, verifyd.WebhookFailed: 1, "unknown": 0,
	} {
		if n, err := e.CountWebhookEvents(ctx, state); err != nil || n != want {
			t.Errorf("CountWebhookEvents(%q) = %d, %v; want %d", state, n, err, want)
		}
	}
}

// --- settings ---------------------------------------------------------------

func testPutSettingFirstWins(t *testing.T, ctx context.Context, s verifyd.Store) {
	first, second := []byte("first value"), []byte("second value")
	steps := []struct {
		name, setting string
		put, want     []byte
	}{
		{"first put", "key_check", first, first},
		{"second put", "key_check", second, first},
		{"put of the stored value", "key_check", first, first},
		{"another name", "other", second, second},
	}
	for _, st := range steps {
		got, err := s.PutSettingIfAbsent(ctx, st.setting, st.put)
		if err != nil {
			t.Fatalf("%s: PutSettingIfAbsent(%s): %v", st.name, st.setting, err)
		}
		if !bytes.Equal(got, st.want) {
			t.Errorf("%s: PutSettingIfAbsent(%s, %q) returned %q, want %q", st.name, st.setting, st.put, got, st.want)
		}
	}
	for name, want := range map[string][]byte{"key_check": first, "other": second} {
		got, err := s.Setting(ctx, name)
		if err != nil {
			t.Errorf("Setting(%s): %v", name, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("Setting(%s) = %q, want %q", name, got, want)
		}
	}
}

func testSettingNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	if _, err := s.PutSettingIfAbsent(ctx, "present", []byte("v")); err != nil {
		t.Fatalf("PutSettingIfAbsent: %v", err)
	}
	for _, name := range []string{"absent", "", "PRESENT", "presen"} {
		_, err := s.Setting(ctx, name)
		assertNotFound(t, fmt.Sprintf("Setting(%q)", name), err)
	}
}

func testSettingBinaryValue(t *testing.T, ctx context.Context, s verifyd.Store) {
	value := opaque("check value", 4096)
	got, err := s.PutSettingIfAbsent(ctx, "binary", value)
	if err != nil {
		t.Fatalf("PutSettingIfAbsent: %v", err)
	}
	if !bytes.Equal(got, value) {
		t.Errorf("PutSettingIfAbsent returned %d bytes that differ from the %d put", len(got), len(value))
	}
	got, err = s.Setting(ctx, "binary")
	if err != nil {
		t.Fatalf("Setting: %v", err)
	}
	if !bytes.Equal(got, value) {
		t.Errorf("Setting returned %d bytes that differ from the %d stored", len(got), len(value))
	}
}

func testPutSettingConcurrent(t *testing.T, ctx context.Context, s verifyd.Store) {
	// Replicas starting together each propose a value; all must end up
	// with the same one.
	const n = 8
	results := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = s.PutSettingIfAbsent(ctx, "race", fmt.Appendf(nil, "value %d", i))
		})
	}
	wg.Wait()
	stored, err := s.Setting(ctx, "race")
	if err != nil {
		t.Fatalf("Setting: %v", err)
	}
	if !bytes.HasPrefix(stored, []byte("value ")) {
		t.Fatalf("Setting = %q, want one of the values put", stored)
	}
	for i := range n {
		if errs[i] != nil {
			t.Errorf("PutSettingIfAbsent %d: %v", i, errs[i])
		} else if !bytes.Equal(results[i], stored) {
			t.Errorf("PutSettingIfAbsent %d returned %q, but %q is stored", i, results[i], stored)
		}
	}
}
