package dashpages_test

import (
	"bytes"
	"context"
	"html"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
)

const password = "correct horse battery staple"

// client is a browser-like client of the dashboard: it keeps cookies and
// does not follow redirects, so each answer can be checked.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func newClient(t *testing.T, ts *testserver.Server) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: ts.HTTP.URL, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, form url.Values, header ...string) (*http.Response, string) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for n := 0; n+1 < len(header); n += 2 {
		req.Header.Set(header[n], header[n+1])
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

var (
	tokenField  = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	secretField = regexp.MustCompile(`name="totp_secret" value="([A-Z2-7]+)"`)
)

func field(t *testing.T, re *regexp.Regexp, page string) string {
	t.Helper()
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no %s in the page:\n%s", re, page)
	}
	return m[1]
}

// join accepts an invitation as role and returns the signed-in client and
// the session's CSRF token.
func join(t *testing.T, ts *testserver.Server, role verifyd.Role, email string) (*client, string, string) {
	t.Helper()
	return joinBusiness(t, ts, ts.Business.ID, role, email)
}

// joinBusiness is join for a business other than the test server's.
func joinBusiness(t *testing.T, ts *testserver.Server, businessID string, role verifyd.Role, email string) (*client, string, string) {
	t.Helper()
	_, token, err := ts.App.Dashboard.Invite(context.Background(), businessID, email, role)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, ts)
	_, page := c.do("GET", "/dashboard/invitations/"+token, nil)
	secret := field(t, secretField, page)
	code, err := dashboard.TOTPCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, _ := c.do("POST", "/dashboard/invitations/"+token, url.Values{"csrf_token": {field(t, tokenField, page)},
		"name": {"Some One"}, "password": {password}, "password_again": {password}, "totp_secret": {secret}, "code": {code}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/keys" {
		t.Fatalf("accepting the invitation: %s to %q", res.Status, res.Header.Get("Location"))
	}
	_, page = c.do("GET", "/dashboard/keys", nil)
	return c, field(t, tokenField, page), token
}

// TestHeadersTokensAndRoles checks over HTTP, on both databases, what a
// browser test sees only indirectly: the security headers, the hashed
// stylesheet, the refusal of forms without their token or from another
// site, and the role checks of the server itself.
func TestHeadersTokensAndRoles(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			var logs testserver.Buffer
			ts := testserver.Start(t, d, testserver.Options{Dev: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			anon := newClient(t, ts)
			res, page := anon.do("GET", "/dashboard/login", nil)
			h := res.Header
			if res.StatusCode != 200 || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") ||
				strings.Contains(h.Get("Content-Security-Policy"), "script-src") || h.Get("Cache-Control") != "no-store" ||
				h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("login page: %s %v", res.Status, h)
			}
			css := regexp.MustCompile(`href="(/dashboard/static/dashboard\.[0-9a-f]+\.css)"`).FindStringSubmatch(page)
			if css == nil {
				t.Fatalf("no stylesheet link in %s", page)
			}
			if res, _ := anon.do("GET", css[1], nil); res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
				t.Errorf("stylesheet: %s %v", res.Status, res.Header)
			}
			for _, path := range []string{"/dashboard/static/dashboard.css", "/dashboard/nothing", "/dashboard/signup"} {
				if res, _ := anon.do("GET", path, nil); res.StatusCode != 404 {
					t.Errorf("%s: %s, want 404", path, res.Status)
				}
			}
			// A login form without its token is refused before any check.
			if res, body := anon.do("POST", "/dashboard/login", url.Values{"email": {"a@example.com"}, "password": {password}, "code": {"123456"}}); res.StatusCode != 403 ||
				!strings.Contains(body, "The form expired") {
				t.Errorf("login without the form token: %s", res.Status)
			}
			// A body over the limit cannot be read: refused the same way.
			if res, body := anon.do("POST", "/dashboard/login", url.Values{"email": {strings.Repeat("a", 70<<10)}}); res.StatusCode != 403 ||
				!strings.Contains(body, "The form expired") {
				t.Errorf("an oversized login form: %s", res.Status)
			}
			// Pages need a session.
			if res, _ := anon.do("GET", "/dashboard/audit", nil); res.StatusCode != 303 || res.Header.Get("Location") != "/dashboard/login?next=%2Fdashboard%2Faudit" {
				t.Errorf("signed out: %s to %s", res.Status, res.Header.Get("Location"))
			}

			owner, csrf, token := join(t, ts, verifyd.RoleOwner, "owner@example.com")
			count := func() int {
				keys, err := ts.Tenants.Keys(context.Background(), ts.Business.ID)
				if err != nil {
					t.Fatal(err)
				}
				return len(keys)
			}
			create := url.Values{"kind": {"identity/sandbox"}}
			if res, _ := owner.do("POST", "/dashboard/keys", create); res.StatusCode != 403 {
				t.Errorf("a POST without the session's token: %s", res.Status)
			}
			withToken := url.Values{"kind": {"identity/sandbox"}, "csrf_token": {csrf}}
			if res, _ := owner.do("POST", "/dashboard/keys", withToken, "Sec-Fetch-Site", "cross-site"); res.StatusCode != 403 {
				t.Errorf("a cross-site POST: %s", res.Status)
			}
			if n := count(); n != 4 {
				t.Fatalf("%d keys after refused POSTs, want 4", n)
			}
			res, body := owner.do("POST", "/dashboard/keys", withToken)
			if res.StatusCode != 200 || !strings.Contains(body, `id="new-api-secret">vds_test_`) || count() != 5 {
				t.Errorf("creating a key: %s, %d keys", res.Status, count())
			}

			viewer, vcsrf, _ := join(t, ts, verifyd.RoleViewer, "viewer@example.com")
			for _, c := range []struct {
				method, path string
				form         url.Values
			}{
				{"POST", "/dashboard/keys", url.Values{"kind": {"identity/sandbox"}, "csrf_token": {vcsrf}}},
				{"POST", "/dashboard/settings", url.Values{"retention_days": {"1"}, "direct_liveness": {"auto"}, "csrf_token": {vcsrf}}},
				{"POST", "/dashboard/redirects/add", url.Values{"list": {"age/sandbox"}, "url": {"https://a.example/"}, "csrf_token": {vcsrf}}},
				{"GET", "/dashboard/users", nil},
				{"GET", "/dashboard/audit", nil},
				// Every other route that needs a permission, by URL: the
				// pages offer none of these to a viewer, so only the
				// server's check stands between them. Ids need not exist:
				// the role is checked first.
				{"POST", "/dashboard/keys/revoke", url.Values{"key": {"vd_test_x"}, "csrf_token": {vcsrf}}},
				{"POST", "/dashboard/redirects/remove", url.Values{"list": {"age/sandbox"}, "url": {"https://a.example/"}, "csrf_token": {vcsrf}}},
				{"POST", "/dashboard/users/invite", url.Values{"email": {"x@example.com"}, "role": {"owner"}, "csrf_token": {vcsrf}}},
				{"POST", "/dashboard/users/bu_x/remove", url.Values{"csrf_token": {vcsrf}}},
				{"POST", "/dashboard/users/bu_x/role", url.Values{"role": {"owner"}, "csrf_token": {vcsrf}}},
				{"POST", "/dashboard/invitations/00/withdraw", url.Values{"csrf_token": {vcsrf}}},
				{"GET", "/dashboard/verifications/v_x/images/selfie", nil},
				{"GET", "/dashboard/verifications/v_x/redact", nil},
				{"POST", "/dashboard/verifications/v_x/redact", url.Values{"confirm": {"yes"}, "csrf_token": {vcsrf}}},
				{"POST", "/dashboard/webhooks/e_x/resend", url.Values{"csrf_token": {vcsrf}}},
				{"POST", "/dashboard/webhooks/test", url.Values{"url": {"https://a.example/"}, "environment": {"sandbox"}, "csrf_token": {vcsrf}}},
				{"POST", "/dashboard/branding", url.Values{"display_name": {"Viewer's"}, "csrf_token": {vcsrf}}},
			} {
				if res, _ := viewer.do(c.method, c.path, c.form); res.StatusCode != 403 {
					t.Errorf("viewer %s %s: %s, want 403", c.method, c.path, res.Status)
				}
			}
			if n := count(); n != 5 {
				t.Errorf("%d keys after the viewer's POST, want 5", n)
			}
			// A developer manages keys and webhooks, but not the business:
			// settings, branding, users and the audit log are the owners'.
			developer, dcsrf, _ := join(t, ts, verifyd.RoleDeveloper, "developer@example.com")
			for _, c := range []struct {
				method, path string
				form         url.Values
			}{
				{"POST", "/dashboard/settings", url.Values{"retention_days": {"1"}, "direct_liveness": {"auto"}, "csrf_token": {dcsrf}}},
				{"POST", "/dashboard/branding", url.Values{"display_name": {"Developer's"}, "csrf_token": {dcsrf}}},
				{"GET", "/dashboard/users", nil},
				{"POST", "/dashboard/users/invite", url.Values{"email": {"x@example.com"}, "role": {"owner"}, "csrf_token": {dcsrf}}},
				{"GET", "/dashboard/audit", nil},
			} {
				if res, _ := developer.do(c.method, c.path, c.form); res.StatusCode != 403 {
					t.Errorf("developer %s %s: %s, want 403", c.method, c.path, res.Status)
				}
			}
			if b, err := ts.Store.Branding(context.Background(), ts.Business.ID); err != nil || b.DisplayName != "" {
				t.Errorf("branding after refused POSTs: %+v, %v", b, err)
			}
			// The owner removes the viewer: the viewer's session ends.
			u, err := ts.Store.BusinessUserByEmail(context.Background(), "viewer@example.com")
			if err != nil {
				t.Fatal(err)
			}
			if res, _ := owner.do("POST", "/dashboard/users/"+u.ID+"/remove", url.Values{"csrf_token": {csrf}}); res.StatusCode != 303 {
				t.Fatalf("removing the viewer: %s", res.Status)
			}
			if res, _ := viewer.do("GET", "/dashboard/keys", nil); res.StatusCode != 303 {
				t.Errorf("the removed viewer's session: %s, want a redirect to the login page", res.Status)
			}
			// The invitation link's token is a bearer secret: the request
			// log names its route, never the token.
			if !strings.Contains(logs.String(), "/dashboard/invitations/{token}") || strings.Contains(logs.String(), token) {
				t.Errorf("the request log and the invitation token:\n%s", logs.String())
			}
		})
	}
}

// multipartForm encodes fields and one file as multipart/form-data, the
// csrf_token field first as a browser sends the branding form.
func multipartForm(t *testing.T, fields map[string]string, fileField string, file []byte) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, k := range []string{"csrf_token", "display_name", "accent_colour"} {
		if v, ok := fields[k]; ok {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	fw, err := mw.CreateFormFile(fileField, "logo.png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(file); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}

// postBranding posts the branding form as a browser does (multipart,
// fields and a logo file) and returns the answer and its body.
func (c *client) postBranding(fields map[string]string, logo []byte) (*http.Response, string) {
	c.t.Helper()
	ctype, body := multipartForm(c.t, fields, "logo", logo)
	req, err := http.NewRequest("POST", c.base+"/dashboard/branding", bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	page, _ := io.ReadAll(res.Body)
	return res, string(page)
}

// TestOversizedUploadIsNamed checks that a form over the route's body
// limit (a logo far over branding.MaxLogoBytes) is answered 413 with a
// message saying it is too large, not as a missing security token: the
// body cannot be read, but the person can act on "too large". Nothing is
// stored either way.
func TestOversizedUploadIsNamed(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			ts := testserver.Start(t, d, testserver.Options{Dev: true})
			owner, csrf, _ := join(t, ts, verifyd.RoleOwner, "owner@example.com")
			for _, c := range []struct {
				name   string
				size   int
				status int
				text   string
			}{
				// Within the body limit: the branding service judges the
				// file and names the field.
				{"over the logo limit, within the body limit", branding.MaxLogoBytes + 1, http.StatusUnprocessableEntity, "256 KiB"},
				// Over the body limit: the form cannot be read at all.
				{"over the body limit", 2 * branding.MaxLogoBytes, http.StatusRequestEntityTooLarge, "too large"},
			} {
				res, page := owner.postBranding(map[string]string{"csrf_token": csrf, "display_name": "Shop"},
					bytes.Repeat([]byte{0x89}, c.size))
				if res.StatusCode != c.status || !strings.Contains(page, c.text) {
					t.Errorf("%s: %s, want %d with %q:\n%s", c.name, res.Status, c.status, c.text, page)
				}
			}
			b, err := ts.Store.Branding(context.Background(), ts.Business.ID)
			if err != nil || b.DisplayName != "" || b.Logo != nil {
				t.Errorf("branding after refused uploads: %+v, %v", b, err)
			}
		})
	}
}

// TestLanguageCookieSecure checks that the remembered language is Secure
// whenever the session cookies are (not --dev), even over plain http as
// behind a TLS-terminating proxy, and only then.
func TestLanguageCookieSecure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		dev    bool
		header []string
		secure bool
	}{
		{"behind a proxy", false, []string{"X-Forwarded-Proto", "https"}, true},
		{"no proxy header", false, nil, true},
		{"dev", true, nil, false},
	} {
		for _, d := range testdb.Dialects {
			t.Run(tc.name+"/"+d, func(t *testing.T) {
				t.Parallel()
				ts := testserver.Start(t, d, testserver.Options{Dev: tc.dev})
				res, _ := newClient(t, ts).do("GET", "/dashboard/login?lang=de", nil, tc.header...)
				var found *http.Cookie
				for _, c := range res.Cookies() {
					if c.Name == "verifyd_dashboard_lang" {
						found = c
					}
				}
				if found == nil || found.Value != "de" {
					t.Fatalf("language cookie %v in %v", found, res.Header["Set-Cookie"])
				}
				if found.Secure != tc.secure {
					t.Errorf("language cookie Secure=%v, want %v", found.Secure, tc.secure)
				}
			})
		}
	}
}

// TestBrandingProblemsTranslated checks that the branding page names a
// refused value's problem in the reader's language, as the rest of the
// page (TestProblemTexts checks that every problem has its texts).
func TestBrandingProblemsTranslated(t *testing.T) {
	t.Parallel()
	ts := testserver.Start(t, "sqlite", testserver.Options{Dev: true})
	owner, csrf, _ := join(t, ts, verifyd.RoleOwner, "owner@example.com")
	for _, c := range []struct{ lang, want string }{
		{"fr", "est trop claire : un texte blanc dessus a un contraste de 1.04:1"},
		{"de", "ist zu hell: weißer Text darauf hat einen Kontrast von 1.04:1"},
		{"en", "is too light: white text on it has a contrast of 1.04:1"},
	} {
		owner.do("GET", "/dashboard/branding?lang="+c.lang, nil)
		res, page := owner.postBranding(map[string]string{"csrf_token": csrf, "accent_colour": "#fafafa"}, nil)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(page), c.want) {
			t.Errorf("%s: %s, want 422 with %q:\n%s", c.lang, res.Status, c.want, page)
		}
	}

}
