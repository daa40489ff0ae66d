package dashboard_test

import (
	"context"
	"crypto/rand"
	"errors"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/tenant"
)

const password = "correct horse battery staple"

var client = netip.MustParseAddr("203.0.113.7")

// clock is a settable clock for one test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type fixture struct {
	svc     *dashboard.Service
	tenants *tenant.Service
	store   *sqlstore.DB
	clock   *clock
}

func setup(t *testing.T, dialect string, signUp bool) fixture {
	t.Helper()
	db, err := sqlstore.Open(t.Context(), testdb.URL(t, dialect), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	sealer, err := seal.New(key, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	tenants := tenant.New(db, sealer, rand.Reader, c.now)
	svc, err := dashboard.New(db, tenants, sealer, dashboard.Config{SignUp: signUp, Now: c.now, UserLimit: 3, ClientLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{svc: svc, tenants: tenants, store: db, clock: c}
}

func eachDialect(t *testing.T, test func(t *testing.T, dialect string)) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			test(t, d)
		})
	}
}

// enrol returns an enrollment with a fresh TOTP secret and its current
// code.
func (f fixture) enrol(t *testing.T, email string) dashboard.Enrollment {
	t.Helper()
	k, err := dashboard.NewTOTPKey(rand.Reader, email)
	if err != nil {
		t.Fatal(err)
	}
	return dashboard.Enrollment{Name: "Ada Lovelace", Password: password, TOTPSecret: k.Secret, Code: f.code(t, k.Secret)}
}

func (f fixture) code(t *testing.T, secret string) string {
	t.Helper()
	c, err := dashboard.TOTPCode(secret, f.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// invited creates a business and a user of it in role through an
// invitation, and returns the user and their TOTP secret.
func (f fixture) invited(t *testing.T, ctx context.Context, businessID, email string, role verifyd.Role) (verifyd.BusinessUser, string) {
	t.Helper()
	_, token, err := f.svc.Invite(ctx, businessID, email, role)
	if err != nil {
		t.Fatalf("Invite: %v", err)
	}
	e := f.enrol(t, email)
	u, err := f.svc.AcceptInvitation(ctx, token, e)
	if err != nil {
		t.Fatalf("AcceptInvitation: %v", err)
	}
	return u, e.TOTPSecret
}

func TestRoles(t *testing.T) {
	t.Parallel()
	all := []dashboard.Permission{dashboard.ManageKeys, dashboard.ManageRedirects, dashboard.ManageWebhooks,
		dashboard.ViewImages, dashboard.ManageSettings, dashboard.ManageUsers, dashboard.ViewAudit}
	want := map[verifyd.Role]map[dashboard.Permission]bool{
		verifyd.RoleOwner: {dashboard.ManageKeys: true, dashboard.ManageRedirects: true, dashboard.ManageWebhooks: true,
			dashboard.ViewImages: true, dashboard.ManageSettings: true, dashboard.ManageUsers: true, dashboard.ViewAudit: true},
		verifyd.RoleDeveloper: {dashboard.ManageKeys: true, dashboard.ManageRedirects: true, dashboard.ManageWebhooks: true,
			dashboard.ViewImages: true},
		verifyd.RoleViewer: {},
		"admin":            {},
	}
	for role, perms := range want {
		for _, p := range all {
			if got := dashboard.Can(role, p); got != perms[p] {
				t.Errorf("Can(%s, %s) = %v, want %v", role, p, got, perms[p])
			}
		}
	}
}

func TestInvitationAndSignIn(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, dialect string) {
		f := setup(t, dialect, false)
		ctx := verifyd.WithActor(t.Context(), verifyd.Actor{Kind: verifyd.ActorOperator, Name: "cli:root"})
		b, _, err := f.tenants.CreateBusiness(ctx, "Shop")
		if err != nil {
			t.Fatal(err)
		}
		_, token, err := f.svc.Invite(ctx, b.ID, " Ada@Example.com ", verifyd.RoleDeveloper)
		if err != nil {
			t.Fatalf("Invite: %v", err)
		}
		inv, gotB, err := f.svc.OpenInvitation(ctx, token)
		if err != nil || inv.Email != "ada@example.com" || gotB.ID != b.ID {
			t.Fatalf("OpenInvitation = %+v, %s, %v", inv, gotB.ID, err)
		}

		// Each part of the enrollment is checked.
		good := f.enrol(t, "ada@example.com")
		for name, c := range map[string]struct {
			change func(*dashboard.Enrollment)
			want   error
		}{
			"no name":        {func(e *dashboard.Enrollment) { e.Name = " " }, dashboard.ErrName},
			"short password": {func(e *dashboard.Enrollment) { e.Password = "short" }, dashboard.ErrPassword},
			"wrong code":     {func(e *dashboard.Enrollment) { e.Code = "000000" }, dashboard.ErrCode},
		} {
			e := good
			c.change(&e)
			if e.Code == good.Code && e.Code == "000000" {
				continue // the one chance in a million that the right code is 000000
			}
			if _, err := f.svc.AcceptInvitation(ctx, token, e); !errors.Is(err, c.want) {
				t.Errorf("%s: AcceptInvitation = %v, want %v", name, err, c.want)
			}
		}
		u, err := f.svc.AcceptInvitation(ctx, token, good)
		if err != nil {
			t.Fatalf("AcceptInvitation: %v", err)
		}
		if u.Role != verifyd.RoleDeveloper || u.BusinessID != b.ID || u.Email != "ada@example.com" {
			t.Errorf("user = %+v", u)
		}
		if _, err := f.svc.AcceptInvitation(ctx, token, good); !errors.Is(err, dashboard.ErrInvitation) {
			t.Errorf("second AcceptInvitation = %v, want ErrInvitation", err)
		}

		// The address is taken now: a new invitation for it is refused.
		if _, _, err := f.svc.Invite(ctx, b.ID, "ada@example.com", verifyd.RoleViewer); !errors.Is(err, dashboard.ErrTaken) {
			t.Errorf("inviting a user's address: %v, want ErrTaken", err)
		}

		// The enrolment's code is spent: it does not sign in.
		if _, err := f.svc.Authenticate(ctx, "ada@example.com", password, good.Code, client); !errors.Is(err, dashboard.ErrBadLogin) {
			t.Errorf("sign-in with the enrolment's code = %v, want ErrBadLogin", err)
		}
		f.clock.add(30 * time.Second)
		code := f.code(t, good.TOTPSecret)
		if _, err := f.svc.Authenticate(ctx, "ADA@example.com", password, code, client); err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
		// A code signs in once.
		if _, err := f.svc.Authenticate(ctx, "ada@example.com", password, code, client); !errors.Is(err, dashboard.ErrBadLogin) {
			t.Errorf("replayed code = %v, want ErrBadLogin", err)
		}

		// An expired invitation does not open.
		_, token2, err := f.svc.Invite(ctx, b.ID, "bob@example.com", verifyd.RoleViewer)
		if err != nil {
			t.Fatal(err)
		}
		f.clock.add(dashboard.InvitationLifetime)
		if _, _, err := f.svc.OpenInvitation(ctx, token2); !errors.Is(err, dashboard.ErrInvitation) {
			t.Errorf("OpenInvitation after its lifetime = %v, want ErrInvitation", err)
		}

		entries, err := f.store.AuditEntries(ctx, verifyd.AuditFilter{BusinessID: b.ID})
		if err != nil {
			t.Fatal(err)
		}
		var joined bool
		for _, e := range entries {
			if e.Action == verifyd.AuditUserJoin && e.Actor == (verifyd.Actor{Kind: verifyd.ActorBusinessUser, Name: u.ID}) {
				joined = true
			}
			if e.Action == verifyd.AuditUserInvite && e.Actor.Kind != verifyd.ActorOperator {
				t.Errorf("the operator's invitation was recorded as %+v", e.Actor)
			}
		}
		if !joined {
			t.Errorf("no user.join entry by the user in %+v", entries)
		}
	})
}

func TestWrongCodesAreLimited(t *testing.T) {
	t.Parallel()
	f := setup(t, "sqlite", false)
	ctx := t.Context()
	b, _, err := f.tenants.CreateBusiness(ctx, "Shop")
	if err != nil {
		t.Fatal(err)
	}
	_, secret := f.invited(t, ctx, b.ID, "ada@example.com", verifyd.RoleOwner)
	f.clock.add(time.Minute)
	right := f.code(t, secret)
	wrong := "123456"
	if wrong == right {
		wrong = "654321"
	}
	// The right password with wrong codes counts as failures (UserLimit 3)...
	for range 3 {
		if _, err := f.svc.Authenticate(ctx, "ada@example.com", password, wrong, client); !errors.Is(err, dashboard.ErrBadLogin) {
			t.Fatalf("wrong code: %v, want ErrBadLogin", err)
		}
	}
	// ...so that then even the right code is refused for a while.
	var limited *dashboard.RateLimitedError
	if _, err := f.svc.Authenticate(ctx, "ada@example.com", password, right, client); !errors.As(err, &limited) {
		t.Fatalf("right code after 3 wrong ones: %v, want RateLimitedError", err)
	}
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, dialect string) {
		f := setup(t, dialect, false)
		ctx := t.Context()
		b, creds, err := f.tenants.CreateBusiness(ctx, "Shop")
		if err != nil {
			t.Fatal(err)
		}
		other, otherCreds, err := f.tenants.CreateBusiness(ctx, "Other")
		if err != nil {
			t.Fatal(err)
		}
		member := func(email string, role verifyd.Role) dashboard.Member {
			u, _ := f.invited(t, ctx, b.ID, email, role)
			m, err := f.svc.ActiveMember(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		owner, dev, viewer := member("o@example.com", verifyd.RoleOwner), member("d@example.com", verifyd.RoleDeveloper),
			member("v@example.com", verifyd.RoleViewer)
		// A user of another business, whom b's owner must not reach by id.
		stranger := func() verifyd.BusinessUser {
			u, _ := f.invited(t, ctx, other.ID, "s@example.com", verifyd.RoleViewer)
			return u
		}()

		// The viewer reads but changes nothing.
		if keys, err := f.svc.Keys(ctx, viewer); err != nil || len(keys) != 4 {
			t.Errorf("viewer's Keys = %d keys, %v", len(keys), err)
		}
		forbidden := map[string]error{}
		_, forbidden["CreateKey"] = f.svc.CreateKey(ctx, viewer, verifyd.InterfaceAge, verifyd.EnvSandbox)
		_, forbidden["RevokeKey"] = f.svc.RevokeKey(ctx, viewer, creds[0].APIKey)
		forbidden["AddRedirect"] = f.svc.AddRedirect(ctx, viewer, verifyd.InterfaceAge, verifyd.EnvSandbox, "https://a.example/")
		_, forbidden["SetRetentionDays"] = f.svc.SetRetentionDays(ctx, viewer, 5)
		_, _, forbidden["Users"] = f.svc.Users(ctx, viewer)
		_, forbidden["Audit"] = f.svc.Audit(ctx, viewer, 10)
		// The developer manages keys and redirects but not settings, users
		// or the audit log.
		_, forbidden["dev SetDirectLiveness"] = f.svc.SetDirectLiveness(ctx, dev, verifyd.DirectLivenessReview)
		_, _, forbidden["dev InviteUser"] = f.svc.InviteUser(ctx, dev, "x@example.com", verifyd.RoleOwner)
		_, forbidden["dev RemoveUser"] = f.svc.RemoveUser(ctx, dev, viewer.User.ID)
		_, forbidden["dev Audit"] = f.svc.Audit(ctx, dev, 10)
		for what, err := range forbidden {
			if verifyd.ErrorCodeOf(err) != verifyd.EForbidden {
				t.Errorf("%s: %v, want EForbidden", what, err)
			}
		}

		k, err := f.svc.CreateKey(ctx, dev, verifyd.InterfaceIdentity, verifyd.EnvProduction)
		if err != nil || k.APISecret == "" {
			t.Fatalf("developer's CreateKey = %+v, %v", k, err)
		}
		if _, err := f.svc.RevokeKey(ctx, dev, otherCreds[0].APIKey); !errors.Is(err, verifyd.ErrNotFound) {
			t.Errorf("revoking another business's key: %v, want ErrNotFound", err)
		}
		if err := f.svc.AddRedirect(ctx, dev, verifyd.InterfaceAge, verifyd.EnvSandbox, "https://shop.example/done"); err != nil {
			t.Fatalf("AddRedirect: %v", err)
		}
		if err := f.svc.AddRedirect(ctx, dev, verifyd.InterfaceAge, verifyd.EnvSandbox, "not a url"); verifyd.ErrorCodeOf(err) != verifyd.EBadRequest {
			t.Errorf("AddRedirect of a bad URL: %v, want API C's EBadRequest", err)
		}
		allowed, err := f.tenants.RedirectAllowed(ctx, verifyd.RedirectList{BusinessID: b.ID, Interface: verifyd.InterfaceAge,
			Environment: verifyd.EnvSandbox}, "https://shop.example/done")
		if err != nil || !allowed {
			t.Errorf("the added URL is not allowed: %v %v", allowed, err)
		}
		if _, err := f.svc.SetRetentionDays(ctx, owner, 7); err != nil {
			t.Fatalf("owner's SetRetentionDays: %v", err)
		}
		if _, err := f.svc.RemoveUser(ctx, owner, owner.User.ID); !errors.Is(err, dashboard.ErrRemoveSelf) {
			t.Errorf("owner removing themselves: %v", err)
		}
		if _, err := f.svc.SetRole(ctx, dev, viewer.User.ID, verifyd.RoleOwner); verifyd.ErrorCodeOf(err) != verifyd.EForbidden {
			t.Errorf("a developer changing a role: %v, want EForbidden", err)
		}
		if _, err := f.svc.SetRole(ctx, owner, owner.User.ID, verifyd.RoleViewer); !errors.Is(err, dashboard.ErrChangeSelf) {
			t.Errorf("an owner changing their own role: %v", err)
		}
		if u, err := f.svc.SetRole(ctx, owner, viewer.User.ID, verifyd.RoleDeveloper); err != nil || u.Role != verifyd.RoleDeveloper {
			t.Fatalf("SetRole: %+v, %v", u, err)
		}
		if m, err := f.svc.ActiveMember(ctx, viewer.User.ID); err != nil || !m.Can(dashboard.ManageKeys) {
			t.Errorf("after the change the user cannot manage keys: %v", err)
		}
		// Another business's user, by id: not found, and unchanged.
		if _, err := f.svc.SetRole(ctx, owner, stranger.ID, verifyd.RoleOwner); !errors.Is(err, verifyd.ErrNotFound) {
			t.Errorf("SetRole of another business's user: %v, want ErrNotFound", err)
		}
		if _, err := f.svc.RemoveUser(ctx, owner, stranger.ID); !errors.Is(err, verifyd.ErrNotFound) {
			t.Errorf("RemoveUser of another business's user: %v, want ErrNotFound", err)
		}
		if m, err := f.svc.ActiveMember(ctx, stranger.ID); err != nil || m.User.Role != verifyd.RoleViewer || m.Business.ID != other.ID {
			t.Errorf("another business's user after the attempts: role %s in %s, %v", m.User.Role, m.Business.ID, err)
		}
		if users, _, err := f.svc.Users(ctx, owner); err != nil || len(users) != 3 {
			t.Errorf("owner's Users = %d users, %v; want the business's 3", len(users), err)
		}
		if _, err := f.svc.RemoveUser(ctx, owner, viewer.User.ID); err != nil {
			t.Fatalf("RemoveUser: %v", err)
		}
		if _, err := f.svc.ActiveMember(ctx, viewer.User.ID); !errors.Is(err, verifyd.ErrNotFound) {
			t.Errorf("a removed user is still a member: %v", err)
		}

		// Every change is in the audit log with its user as the actor.
		entries, err := f.svc.Audit(ctx, owner, 0)
		if err != nil {
			t.Fatal(err)
		}
		byAction := map[string]verifyd.Actor{}
		for _, e := range entries {
			byAction[e.Action] = e.Actor
		}
		for action, who := range map[string]dashboard.Member{verifyd.AuditKeyCreate: dev, verifyd.AuditRedirectsAdd: dev,
			verifyd.AuditBusinessSet: owner, verifyd.AuditUserRemove: owner, verifyd.AuditUserRole: owner} {
			if want := (verifyd.Actor{Kind: verifyd.ActorBusinessUser, Name: who.User.ID}); byAction[action] != want {
				t.Errorf("%s recorded by %+v, want %+v", action, byAction[action], want)
			}
		}
	})
}

func TestSignUp(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, dialect string) {
		closed := setup(t, dialect, false)
		ctx := t.Context()
		if _, _, err := closed.svc.SignUp(ctx, client, "Lab", "ada@example.com", closed.enrol(t, "ada@example.com")); !errors.Is(err, dashboard.ErrSignUpClosed) {
			t.Fatalf("SignUp when closed: %v", err)
		}
		f := setup(t, dialect, true)
		b, u, err := f.svc.SignUp(ctx, client, "Lab", "ada@example.com", f.enrol(t, "ada@example.com"))
		if err != nil {
			t.Fatalf("SignUp: %v", err)
		}
		if !b.SandboxOnly || u.Role != verifyd.RoleOwner || u.BusinessID != b.ID {
			t.Errorf("SignUp = %+v, %+v", b, u)
		}
		m, err := f.svc.ActiveMember(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := f.svc.Keys(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k.Environment != verifyd.EnvSandbox {
				t.Errorf("a sandbox-only business has key %s", k.APIKey)
			}
		}
		if len(keys) != 2 {
			t.Errorf("%d keys, want one sandbox key per interface", len(keys))
		}
		if _, err := f.svc.CreateKey(ctx, m, verifyd.InterfaceIdentity, verifyd.EnvProduction); !errors.Is(err, tenant.ErrSandboxOnly) {
			t.Errorf("a production key for a sandbox-only business: %v, want ErrSandboxOnly", err)
		}
		if _, err := f.svc.CreateKey(ctx, m, verifyd.InterfaceIdentity, verifyd.EnvSandbox); err != nil {
			t.Errorf("a sandbox key: %v", err)
		}
		if _, _, err := f.svc.SignUp(ctx, client, "Lab 2", "ADA@example.com", f.enrol(t, "ada@example.com")); !errors.Is(err, dashboard.ErrTaken) {
			t.Errorf("a second sign-up with the address: %v, want ErrTaken", err)
		}
	})
}

// TestPasskeysOnlyOnAHostName: WebAuthn has no relying party on an IP
// address, so passkeys are offered only when the dashboard's URL names a
// host; a URL that is not one fails the start.
func TestPasskeysOnlyOnAHostName(t *testing.T) {
	t.Parallel()
	f := setup(t, "sqlite", false)
	for _, c := range []struct {
		url     string
		on, bad bool
	}{
		{"", false, false},
		{"http://127.0.0.1:8080/dashboard", false, false},
		{"http://[::1]:8080/dashboard", false, false},
		{"https://dash.example.com/dashboard", true, false},
		{"http://localhost:8080/dashboard", true, false},
		{"not a url", false, true},
	} {
		svc, err := dashboard.New(f.store, f.tenants, nil, dashboard.Config{BaseURL: c.url})
		if (err != nil) != c.bad {
			t.Errorf("New with %q: %v", c.url, err)
			continue
		}
		if err == nil && svc.PasskeysOn() != c.on {
			t.Errorf("PasskeysOn with %q = %v, want %v", c.url, svc.PasskeysOn(), c.on)
		}
		if err == nil && !c.on {
			if _, _, err := svc.BeginPasskeyLogIn(client); !errors.Is(err, dashboard.ErrPasskeysOff) {
				t.Errorf("BeginPasskeyLogIn with %q: %v, want ErrPasskeysOff", c.url, err)
			}
		}
	}
}
