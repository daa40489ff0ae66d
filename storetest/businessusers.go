package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
)

// --- business users and invitations (the dashboard) --------------------------

// businessUserTests are the BusinessUserStore contract's tests.
var businessUserTests = map[string]func(*testing.T, context.Context, verifyd.Store){
	"InvitationRoundTrip":          testInvitationRoundTrip,
	"InvitationUnknownBusiness":    testInvitationUnknownBusiness,
	"AcceptCreatesUserOnce":        testAcceptInvitation,
	"AcceptExpiredRefused":         testAcceptExpiredInvitation,
	"AcceptTakesInvitationsValues": testAcceptUsesInvitation,
	"AcceptExistingEmailAtomic":    testAcceptExistingEmail,
	"ConcurrentAcceptOneWins":      testConcurrentAccept,
	"OpenInvitations":              testOpenInvitations,
	"DeleteInvitation":             testDeleteInvitation,
	"SetRole":                      testSetBusinessUserRole,
	"SignUpRoundTrip":              testCreateBusinessWithUser,
	"SignUpExistingEmailAtomic":    testCreateBusinessWithUserConflict,
	"UserNotFound":                 testBusinessUserNotFound,
	"UsersOfBusiness":              testBusinessUsersList,
	"DisableKeepsFirstTime":        testDisableBusinessUser,
	"DisableOtherBusinessRefused":  testDisableBusinessUserOtherBusiness,
	"TOTPStepOnlyForward":          testUseTOTPStep,
	"ConcurrentTOTPStepOneWins":    testConcurrentTOTPStep,
	"PasskeyRoundTrip":             testBusinessPasskeys,
	"PasskeyRefusalsAndDelete":     testBusinessPasskeyRefusals,
}

func newInvitation(bizID, label, email string, role verifyd.Role, created time.Time) verifyd.Invitation {
	return verifyd.Invitation{TokenHash: digest("invitation " + label), BusinessID: bizID, Email: email, Role: role,
		InvitedBy: verifyd.Actor{Kind: verifyd.ActorOperator, Name: "cli:root"}, CreatedAt: created,
		ExpiresAt: created.Add(7 * 24 * time.Hour)}
}

func newBusinessUser(id, bizID, email string, role verifyd.Role, created time.Time) verifyd.BusinessUser {
	return verifyd.BusinessUser{ID: id, BusinessID: bizID, Email: email, Name: "Näme " + id, Role: role,
		PasswordHash: testPHC + "/" + id, SealedTOTP: opaque("totp "+id, 60), CreatedAt: created}
}

func mustInvite(t *testing.T, ctx context.Context, s verifyd.Store, inv verifyd.Invitation) {
	t.Helper()
	if err := s.CreateInvitation(ctx, inv); err != nil {
		t.Fatalf("CreateInvitation(%s): %v", inv.Email, err)
	}
}

func testInvitationRoundTrip(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	inv := newInvitation("biz_a", "1", "ada@example.com", verifyd.RoleDeveloper, oddClock)
	mustInvite(t, ctx, s, inv)
	got, err := s.Invitation(ctx, inv.TokenHash)
	if err != nil {
		t.Fatalf("Invitation: %v", err)
	}
	assertEqual(t, "Invitation", got, inv)
	_, err = s.Invitation(ctx, digest("invitation 2"))
	assertNotFound(t, "Invitation of an unknown token", err)
}

func testInvitationUnknownBusiness(t *testing.T, ctx context.Context, s verifyd.Store) {
	err := s.CreateInvitation(ctx, newInvitation("biz_none", "1", "ada@example.com", verifyd.RoleOwner, clock))
	assertNotFound(t, "CreateInvitation for an unknown business", err)
}

func testAcceptInvitation(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	inv := newInvitation("biz_a", "1", "ada@example.com", verifyd.RoleDeveloper, clock)
	mustInvite(t, ctx, s, inv)
	u := newBusinessUser("bu_1", "biz_a", "ada@example.com", verifyd.RoleDeveloper, at(time.Hour))
	if err := s.AcceptInvitation(ctx, inv.TokenHash, u); err != nil {
		t.Fatalf("AcceptInvitation: %v", err)
	}
	got, err := s.BusinessUser(ctx, "bu_1")
	if err != nil {
		t.Fatalf("BusinessUser: %v", err)
	}
	assertEqual(t, "BusinessUser", got, u)
	byEmail, err := s.BusinessUserByEmail(ctx, "ada@example.com")
	if err != nil {
		t.Fatalf("BusinessUserByEmail: %v", err)
	}
	assertEqual(t, "BusinessUserByEmail", byEmail, u)
	stored, err := s.Invitation(ctx, inv.TokenHash)
	if err != nil {
		t.Fatalf("Invitation: %v", err)
	}
	if stored.AcceptedAt == nil || !sameInstant(*stored.AcceptedAt, at(time.Hour)) {
		t.Errorf("AcceptedAt = %v, want %v", stored.AcceptedAt, at(time.Hour))
	}
	again := newBusinessUser("bu_2", "biz_a", "eve@example.com", verifyd.RoleDeveloper, at(2*time.Hour))
	assertNotFound(t, "AcceptInvitation a second time", s.AcceptInvitation(ctx, inv.TokenHash, again))
	_, err = s.BusinessUser(ctx, "bu_2")
	assertNotFound(t, "the user of a second acceptance", err)
}

func testAcceptExpiredInvitation(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	inv := newInvitation("biz_a", "1", "ada@example.com", verifyd.RoleViewer, clock)
	mustInvite(t, ctx, s, inv)
	u := newBusinessUser("bu_1", "biz_a", "ada@example.com", verifyd.RoleViewer, inv.ExpiresAt)
	assertNotFound(t, "AcceptInvitation at its expiry", s.AcceptInvitation(ctx, inv.TokenHash, u))
	_, err := s.BusinessUser(ctx, "bu_1")
	assertNotFound(t, "the user of an expired invitation", err)
	assertNotFound(t, "AcceptInvitation of an unknown token",
		s.AcceptInvitation(ctx, digest("nothing"), newBusinessUser("bu_2", "biz_a", "b@example.com", verifyd.RoleViewer, clock)))
}

// testAcceptUsesInvitation: the business, address and role are the
// invitation's, whatever the user record says, so a tampered request
// cannot choose its role.
func testAcceptUsesInvitation(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	createBusiness(t, ctx, s, "biz_b", clock)
	inv := newInvitation("biz_a", "1", "ada@example.com", verifyd.RoleViewer, clock)
	mustInvite(t, ctx, s, inv)
	u := newBusinessUser("bu_1", "biz_b", "root@example.com", verifyd.RoleOwner, at(time.Minute))
	if err := s.AcceptInvitation(ctx, inv.TokenHash, u); err != nil {
		t.Fatalf("AcceptInvitation: %v", err)
	}
	got, err := s.BusinessUser(ctx, "bu_1")
	if err != nil {
		t.Fatalf("BusinessUser: %v", err)
	}
	if got.BusinessID != "biz_a" || got.Email != "ada@example.com" || got.Role != verifyd.RoleViewer {
		t.Errorf("user = %s %s %s, want the invitation's biz_a ada@example.com viewer", got.BusinessID, got.Email, got.Role)
	}
}

func testAcceptExistingEmail(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	first := newInvitation("biz_a", "1", "ada@example.com", verifyd.RoleOwner, clock)
	second := newInvitation("biz_a", "2", "ada@example.com", verifyd.RoleViewer, clock)
	mustInvite(t, ctx, s, first)
	mustInvite(t, ctx, s, second)
	if err := s.AcceptInvitation(ctx, first.TokenHash, newBusinessUser("bu_1", "biz_a", "ada@example.com", verifyd.RoleOwner, at(time.Minute))); err != nil {
		t.Fatalf("AcceptInvitation: %v", err)
	}
	err := s.AcceptInvitation(ctx, second.TokenHash, newBusinessUser("bu_2", "biz_a", "ada@example.com", verifyd.RoleViewer, at(time.Minute)))
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("AcceptInvitation for an existing address: %v, want an EConflict error", err)
	}
	stored, err := s.Invitation(ctx, second.TokenHash)
	if err != nil {
		t.Fatalf("Invitation: %v", err)
	}
	if stored.AcceptedAt != nil {
		t.Error("the refused acceptance marked the invitation accepted")
	}
}

func testConcurrentAccept(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	inv := newInvitation("biz_a", "1", "ada@example.com", verifyd.RoleOwner, clock)
	mustInvite(t, ctx, s, inv)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = s.AcceptInvitation(ctx, inv.TokenHash,
				newBusinessUser(fmt.Sprintf("bu_%d", i), "biz_a", "ada@example.com", verifyd.RoleOwner, at(time.Minute)))
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case verifyd.ErrorCodeOf(err) != verifyd.ENotFound:
			t.Errorf("a losing AcceptInvitation: %v, want ErrNotFound", err)
		}
	}
	users, err := s.BusinessUsers(ctx, "biz_a")
	if err != nil {
		t.Fatalf("BusinessUsers: %v", err)
	}
	if ok != 1 || len(users) != 1 {
		t.Errorf("%d acceptances succeeded and %d users exist, want 1 and 1", ok, len(users))
	}
}

func testOpenInvitations(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	createBusiness(t, ctx, s, "biz_b", clock)
	old := newInvitation("biz_a", "old", "old@example.com", verifyd.RoleViewer, at(-8*24*time.Hour))
	accepted := newInvitation("biz_a", "accepted", "acc@example.com", verifyd.RoleViewer, at(time.Minute))
	open1 := newInvitation("biz_a", "open1", "one@example.com", verifyd.RoleDeveloper, at(2*time.Minute))
	open2 := newInvitation("biz_a", "open2", "two@example.com", verifyd.RoleOwner, at(3*time.Minute))
	other := newInvitation("biz_b", "other", "other@example.com", verifyd.RoleOwner, at(time.Minute))
	for _, inv := range []verifyd.Invitation{open2, old, accepted, open1, other} {
		mustInvite(t, ctx, s, inv)
	}
	if err := s.AcceptInvitation(ctx, accepted.TokenHash, newBusinessUser("bu_1", "biz_a", "acc@example.com", verifyd.RoleViewer, at(time.Hour))); err != nil {
		t.Fatalf("AcceptInvitation: %v", err)
	}
	got, err := s.Invitations(ctx, "biz_a", at(2*time.Hour))
	if err != nil {
		t.Fatalf("Invitations: %v", err)
	}
	assertEqual(t, "open invitations", got, []verifyd.Invitation{open1, open2})
	none, err := s.Invitations(ctx, "biz_none", clock)
	if err != nil || none == nil || len(none) != 0 {
		t.Errorf("Invitations of an unknown business = %v, %v; want an empty non-nil list", none, err)
	}
}

func testCreateBusinessWithUser(t *testing.T, ctx context.Context, s verifyd.Store) {
	b := newBusiness("biz_s", clock)
	b.SandboxOnly = true
	var creds []verifyd.StoredCredential
	for n, i := range verifyd.Interfaces {
		creds = append(creds, newCredential("biz_s", i, verifyd.EnvSandbox, at(time.Duration(n)*time.Minute)))
	}
	u := newBusinessUser("bu_1", "biz_s", "ada@example.com", verifyd.RoleOwner, clock)
	if err := s.CreateBusinessWithUser(ctx, b, creds, u); err != nil {
		t.Fatalf("CreateBusinessWithUser: %v", err)
	}
	gotB, err := s.Business(ctx, "biz_s")
	if err != nil {
		t.Fatalf("Business: %v", err)
	}
	assertEqual(t, "Business", gotB, b)
	gotU, err := s.BusinessUser(ctx, "bu_1")
	if err != nil {
		t.Fatalf("BusinessUser: %v", err)
	}
	assertEqual(t, "BusinessUser", gotU, u)
	gotC, err := s.Credentials(ctx, "biz_s")
	if err != nil {
		t.Fatalf("Credentials: %v", err)
	}
	assertEqual(t, "Credentials", gotC, creds)
}

func testCreateBusinessWithUserConflict(t *testing.T, ctx context.Context, s verifyd.Store) {
	b := newBusiness("biz_a", clock)
	if err := s.CreateBusinessWithUser(ctx, b, nil, newBusinessUser("bu_1", "biz_a", "ada@example.com", verifyd.RoleOwner, clock)); err != nil {
		t.Fatalf("CreateBusinessWithUser: %v", err)
	}
	err := s.CreateBusinessWithUser(ctx, newBusiness("biz_b", clock), fourCredentials("biz_b", clock),
		newBusinessUser("bu_2", "biz_b", "ada@example.com", verifyd.RoleOwner, clock))
	if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Fatalf("CreateBusinessWithUser with an existing address: %v, want an EConflict error", err)
	}
	_, err = s.Business(ctx, "biz_b")
	assertNotFound(t, "the business of a refused sign-up", err)
	_, err = s.Credential(ctx, keyOf("biz_b", verifyd.InterfaceAge, verifyd.EnvSandbox))
	assertNotFound(t, "a credential of a refused sign-up", err)
}

func testBusinessUserNotFound(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	_, err := s.BusinessUser(ctx, "bu_none")
	assertNotFound(t, "BusinessUser", err)
	_, err = s.BusinessUserByEmail(ctx, "nobody@example.com")
	assertNotFound(t, "BusinessUserByEmail", err)
	_, err = s.DisableBusinessUser(ctx, "biz_a", "bu_none", clock)
	assertNotFound(t, "DisableBusinessUser", err)
	assertNotFound(t, "UseTOTPStep", s.UseTOTPStep(ctx, "bu_none", 5))
}

// signUp creates a business with its owner, and returns the owner.
func signUp(t *testing.T, ctx context.Context, s verifyd.Store, bizID, userID, email string) verifyd.BusinessUser {
	t.Helper()
	u := newBusinessUser(userID, bizID, email, verifyd.RoleOwner, clock)
	if err := s.CreateBusinessWithUser(ctx, newBusiness(bizID, clock), nil, u); err != nil {
		t.Fatalf("CreateBusinessWithUser(%s): %v", bizID, err)
	}
	return u
}

func testBusinessUsersList(t *testing.T, ctx context.Context, s verifyd.Store) {
	owner := signUp(t, ctx, s, "biz_a", "bu_1", "owner@example.com")
	signUp(t, ctx, s, "biz_b", "bu_9", "other@example.com")
	inv := newInvitation("biz_a", "1", "dev@example.com", verifyd.RoleDeveloper, clock)
	mustInvite(t, ctx, s, inv)
	dev := newBusinessUser("bu_2", "biz_a", "dev@example.com", verifyd.RoleDeveloper, at(time.Hour))
	if err := s.AcceptInvitation(ctx, inv.TokenHash, dev); err != nil {
		t.Fatalf("AcceptInvitation: %v", err)
	}
	got, err := s.BusinessUsers(ctx, "biz_a")
	if err != nil {
		t.Fatalf("BusinessUsers: %v", err)
	}
	assertEqual(t, "BusinessUsers", got, []verifyd.BusinessUser{owner, dev})
}

func testDisableBusinessUser(t *testing.T, ctx context.Context, s verifyd.Store) {
	signUp(t, ctx, s, "biz_a", "bu_1", "owner@example.com")
	u, err := s.DisableBusinessUser(ctx, "biz_a", "bu_1", at(time.Hour))
	if err != nil {
		t.Fatalf("DisableBusinessUser: %v", err)
	}
	if u.Active() || !sameInstant(*u.DisabledAt, at(time.Hour)) {
		t.Fatalf("DisabledAt = %v, want %v", u.DisabledAt, at(time.Hour))
	}
	u, err = s.DisableBusinessUser(ctx, "biz_a", "bu_1", at(2*time.Hour))
	if err != nil {
		t.Fatalf("DisableBusinessUser again: %v", err)
	}
	if !sameInstant(*u.DisabledAt, at(time.Hour)) {
		t.Errorf("a second DisableBusinessUser moved DisabledAt to %v", u.DisabledAt)
	}
}

func testDisableBusinessUserOtherBusiness(t *testing.T, ctx context.Context, s verifyd.Store) {
	signUp(t, ctx, s, "biz_a", "bu_1", "owner@example.com")
	signUp(t, ctx, s, "biz_b", "bu_2", "other@example.com")
	_, err := s.DisableBusinessUser(ctx, "biz_b", "bu_1", at(time.Hour))
	assertNotFound(t, "DisableBusinessUser of another business's user", err)
	u, err := s.BusinessUser(ctx, "bu_1")
	if err != nil || !u.Active() {
		t.Errorf("the other business's user: %+v, %v; want active", u, err)
	}
}

func testUseTOTPStep(t *testing.T, ctx context.Context, s verifyd.Store) {
	signUp(t, ctx, s, "biz_a", "bu_1", "owner@example.com")
	if err := s.UseTOTPStep(ctx, "bu_1", 100); err != nil {
		t.Fatalf("UseTOTPStep(100): %v", err)
	}
	for _, step := range []int64{100, 99} {
		if err := s.UseTOTPStep(ctx, "bu_1", step); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
			t.Errorf("UseTOTPStep(%d) after 100: %v, want an EConflict error", step, err)
		}
	}
	if err := s.UseTOTPStep(ctx, "bu_1", 101); err != nil {
		t.Fatalf("UseTOTPStep(101): %v", err)
	}
	u, err := s.BusinessUser(ctx, "bu_1")
	if err != nil || u.TOTPStep != 101 {
		t.Errorf("TOTPStep = %d (%v), want 101", u.TOTPStep, err)
	}
}

func testConcurrentTOTPStep(t *testing.T, ctx context.Context, s verifyd.Store) {
	signUp(t, ctx, s, "biz_a", "bu_1", "owner@example.com")
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = s.UseTOTPStep(ctx, "bu_1", 7) })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if verifyd.ErrorCodeOf(err) != verifyd.EConflict {
			t.Errorf("a losing UseTOTPStep: %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d of %d concurrent uses of one code succeeded, want 1", ok, n)
	}
}

func testBusinessPasskeys(t *testing.T, ctx context.Context, s verifyd.Store) {
	signUp(t, ctx, s, "biz_a", "bu_1", "owner@example.com")
	signUp(t, ctx, s, "biz_b", "bu_2", "other@example.com")
	second := verifyd.BusinessPasskey{CredentialID: opaque("cred 2", 32), UserID: "bu_1", Credential: []byte(`{"n":2}`), CreatedAt: at(time.Hour)}
	first := verifyd.BusinessPasskey{CredentialID: opaque("cred 1", 16), UserID: "bu_1", Credential: []byte(`{"n":1}`), CreatedAt: oddClock}
	other := verifyd.BusinessPasskey{CredentialID: opaque("cred 3", 16), UserID: "bu_2", Credential: []byte(`{"n":3}`), CreatedAt: clock}
	for _, p := range []verifyd.BusinessPasskey{second, first, other} {
		if err := s.AddBusinessPasskey(ctx, p); err != nil {
			t.Fatalf("AddBusinessPasskey: %v", err)
		}
	}
	got, err := s.BusinessPasskey(ctx, first.CredentialID)
	if err != nil {
		t.Fatalf("BusinessPasskey: %v", err)
	}
	assertEqual(t, "BusinessPasskey", got, first)
	list, err := s.BusinessPasskeys(ctx, "bu_1")
	if err != nil {
		t.Fatalf("BusinessPasskeys: %v", err)
	}
	assertEqual(t, "BusinessPasskeys", list, []verifyd.BusinessPasskey{first, second})
	if err := s.UseBusinessPasskey(ctx, first.CredentialID, []byte(`{"n":10}`), at(2*time.Hour)); err != nil {
		t.Fatalf("UseBusinessPasskey: %v", err)
	}
	got, err = s.BusinessPasskey(ctx, first.CredentialID)
	if err != nil || string(got.Credential) != `{"n":10}` || got.LastUsedAt == nil || !sameInstant(*got.LastUsedAt, at(2*time.Hour)) {
		t.Errorf("after UseBusinessPasskey: %+v, %v", got, err)
	}
	none, err := s.BusinessPasskeys(ctx, "bu_none")
	if err != nil || none == nil || len(none) != 0 {
		t.Errorf("BusinessPasskeys of an unknown user = %v, %v; want an empty non-nil list", none, err)
	}
}

func testBusinessPasskeyRefusals(t *testing.T, ctx context.Context, s verifyd.Store) {
	signUp(t, ctx, s, "biz_a", "bu_1", "owner@example.com")
	signUp(t, ctx, s, "biz_b", "bu_2", "other@example.com")
	p := verifyd.BusinessPasskey{CredentialID: opaque("cred", 16), UserID: "bu_1", Credential: []byte(`{}`), CreatedAt: clock}
	if err := s.AddBusinessPasskey(ctx, p); err != nil {
		t.Fatalf("AddBusinessPasskey: %v", err)
	}
	again := p
	again.UserID = "bu_2"
	if err := s.AddBusinessPasskey(ctx, again); verifyd.ErrorCodeOf(err) != verifyd.EConflict {
		t.Errorf("the same credential for another user: %v, want an EConflict error", err)
	}
	got, err := s.BusinessPasskey(ctx, p.CredentialID)
	if err != nil || got.UserID != "bu_1" {
		t.Errorf("after a duplicate: %+v, %v", got, err)
	}
	nobody := verifyd.BusinessPasskey{CredentialID: opaque("other", 16), UserID: "bu_none", Credential: []byte(`{}`), CreatedAt: clock}
	assertNotFound(t, "AddBusinessPasskey for an unknown user", s.AddBusinessPasskey(ctx, nobody))
	_, err = s.BusinessPasskey(ctx, nobody.CredentialID)
	assertNotFound(t, "BusinessPasskey", err)
	assertNotFound(t, "UseBusinessPasskey", s.UseBusinessPasskey(ctx, nobody.CredentialID, []byte(`{}`), clock))
	// Only its user deletes a passkey, once.
	assertNotFound(t, "DeleteBusinessPasskey by another user", s.DeleteBusinessPasskey(ctx, "bu_2", p.CredentialID))
	if err := s.DeleteBusinessPasskey(ctx, "bu_1", p.CredentialID); err != nil {
		t.Fatalf("DeleteBusinessPasskey: %v", err)
	}
	_, err = s.BusinessPasskey(ctx, p.CredentialID)
	assertNotFound(t, "a deleted passkey", err)
	assertNotFound(t, "DeleteBusinessPasskey again", s.DeleteBusinessPasskey(ctx, "bu_1", p.CredentialID))
}

func testDeleteInvitation(t *testing.T, ctx context.Context, s verifyd.Store) {
	createBusiness(t, ctx, s, "biz_a", clock)
	createBusiness(t, ctx, s, "biz_b", clock)
	open := newInvitation("biz_a", "open", "one@example.com", verifyd.RoleViewer, clock)
	accepted := newInvitation("biz_a", "accepted", "two@example.com", verifyd.RoleViewer, clock)
	mustInvite(t, ctx, s, open)
	mustInvite(t, ctx, s, accepted)
	if err := s.AcceptInvitation(ctx, accepted.TokenHash, newBusinessUser("bu_1", "biz_a", "two@example.com", verifyd.RoleViewer, at(time.Minute))); err != nil {
		t.Fatalf("AcceptInvitation: %v", err)
	}
	assertNotFound(t, "DeleteInvitation by another business", s.DeleteInvitation(ctx, "biz_b", open.TokenHash))
	assertNotFound(t, "DeleteInvitation of an accepted one", s.DeleteInvitation(ctx, "biz_a", accepted.TokenHash))
	if err := s.DeleteInvitation(ctx, "biz_a", open.TokenHash); err != nil {
		t.Fatalf("DeleteInvitation: %v", err)
	}
	_, err := s.Invitation(ctx, open.TokenHash)
	assertNotFound(t, "a deleted invitation", err)
	if _, err := s.Invitation(ctx, accepted.TokenHash); err != nil {
		t.Errorf("the accepted invitation: %v", err)
	}
	assertNotFound(t, "DeleteInvitation again", s.DeleteInvitation(ctx, "biz_a", open.TokenHash))
}

func testSetBusinessUserRole(t *testing.T, ctx context.Context, s verifyd.Store) {
	owner := signUp(t, ctx, s, "biz_a", "bu_1", "owner@example.com")
	signUp(t, ctx, s, "biz_b", "bu_2", "other@example.com")
	u, err := s.SetBusinessUserRole(ctx, "biz_a", "bu_1", verifyd.RoleViewer)
	if err != nil {
		t.Fatalf("SetBusinessUserRole: %v", err)
	}
	owner.Role = verifyd.RoleViewer
	assertEqual(t, "the user with a new role", u, owner)
	_, err = s.SetBusinessUserRole(ctx, "biz_a", "bu_2", verifyd.RoleViewer)
	assertNotFound(t, "SetBusinessUserRole of another business's user", err)
	if _, err := s.DisableBusinessUser(ctx, "biz_a", "bu_1", at(time.Hour)); err != nil {
		t.Fatal(err)
	}
	_, err = s.SetBusinessUserRole(ctx, "biz_a", "bu_1", verifyd.RoleOwner)
	assertNotFound(t, "SetBusinessUserRole of a removed user", err)
	if got, err := s.BusinessUser(ctx, "bu_2"); err != nil || got.Role != verifyd.RoleOwner {
		t.Errorf("the other business's user: %+v, %v", got, err)
	}
}
