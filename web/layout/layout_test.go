package layout_test

import (
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/web/layout"
)

func TestLang(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		query, accept string
		want          string
		explicit      bool
	}{
		{"", "", "en", false},
		{"", "de-CH,de;q=0.9,en;q=0.8", "de", false},
		{"", "fr-BE", "fr", false},
		{"", "ja, zh;q=0.5", "en", false},
		{"de", "fr", "de", true},
		{"fr-CA", "", "fr", true},
		{"xx", "de", "de", false},
	} {
		r := httptest.NewRequest("GET", "/p?lang="+url.QueryEscape(c.query), nil)
		r.Header.Set("Accept-Language", c.accept)
		if got, explicit := layout.Lang(r); got != c.want || explicit != c.explicit {
			t.Errorf("Lang(lang=%q, Accept-Language %q) = %q, %v; want %q, %v", c.query, c.accept, got, explicit, c.want, c.explicit)
		}
	}
}

func TestLangLinks(t *testing.T) {
	t.Parallel()
	links := layout.LangLinks("de", layout.QueryLink("/verify/x"))
	if len(links) != 3 || links[1].Code != "de" || !links[1].Current || links[0].Current || links[2].URL != "/verify/x?lang=fr" {
		t.Fatalf("links = %+v", links)
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	c := layout.Merge(layout.Texts, layout.Catalog{"en": {"hello": "Hello %s"}, "de": {"hello": "Hallo %s"}})
	for _, tc := range []struct {
		lang, key, want string
		args            []any
	}{
		{"de", "hello", "Hallo Ada", []any{"Ada"}},
		{"fr", "hello", "Hello Ada", []any{"Ada"}}, // English when missing
		{"de", "missing", "missing", nil},
		{"fr", "lang_label", "Langue", nil},
	} {
		if got := c.Msg(tc.lang, tc.key, tc.args...); got != tc.want {
			t.Errorf("Msg(%s, %s) = %q, want %q", tc.lang, tc.key, got, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a key defined twice did not panic")
		}
	}()
	layout.Merge(layout.Texts, layout.Catalog{"en": {"lang_label": "again"}})
}

func TestAssets(t *testing.T) {
	t.Parallel()
	a := layout.NewAssets(layout.Stylesheet, layout.Asset{Name: "app.js", Body: []byte("console.log(1)")})
	js := a.Name("app.js")
	if !strings.HasPrefix(js, "app.") || !strings.HasSuffix(js, ".js") || len(js) != len("app..js")+10 {
		t.Fatalf("hashed name %q", js)
	}
	for _, c := range []struct {
		name, inm  string
		ok         bool
		status     int
		ctype      string
		bodyPrefix string
	}{
		{js, "", true, 200, "text/javascript; charset=utf-8", "console.log"},
		{a.Name("hosted.css"), "", true, 200, "text/css; charset=utf-8", ""},
		{js, `"` + strings.TrimSuffix(strings.TrimPrefix(js, "app."), ".js") + `"`, true, 304, "", ""},
		{"app.js", "", false, 0, "", ""},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/assets/"+c.name, nil)
		if c.inm != "" {
			r.Header.Set("If-None-Match", c.inm)
		}
		if ok := a.Serve(w, r, c.name); ok != c.ok {
			t.Fatalf("Serve(%s) = %v", c.name, ok)
		}
		if !c.ok {
			continue
		}
		if w.Code != c.status || w.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" || w.Header().Get("ETag") == "" {
			t.Errorf("%s: %d %v", c.name, w.Code, w.Header())
		}
		if c.status == 200 && (w.Header().Get("Content-Type") != c.ctype || !strings.HasPrefix(w.Body.String(), c.bodyPrefix) || w.Body.Len() == 0) {
			t.Errorf("%s: %v %q", c.name, w.Header(), w.Body.String())
		}
	}
}

func mounted(t *testing.T, base string) *request.Mounted {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return &request.Mounted{Mount: request.Mount{BaseURL: u}}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	m := mounted(t, "https://id.example.com/identity")
	for _, c := range []struct {
		site, origin string
		want         bool
	}{
		{"", "", true},
		{"same-origin", "https://id.example.com", true},
		{"none", "", true},
		{"cross-site", "", false},
		{"", "https://evil.example", false},
		{"", "null", false},
		{"", "http://internal:8080", true}, // the request's own host, behind a proxy
		{"", "https://internal:8080", false},
	} {
		r := httptest.NewRequest("POST", "http://internal:8080/identity/verify/x", nil)
		if c.site != "" {
			r.Header.Set("Sec-Fetch-Site", c.site)
		}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := layout.SameOrigin(r, m); got != c.want {
			t.Errorf("Sec-Fetch-Site %q, Origin %q: %v, want %v", c.site, c.origin, got, c.want)
		}
	}
}

// wrong changes the first character of a token (a fixed replacement would
// equal the token one time in 64).
func wrong(token string) string {
	if token[0] == 'x' {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}

func TestDoubleSubmit(t *testing.T) {
	t.Parallel()
	d := layout.DoubleSubmit{Cookie: "csrf", MaxAge: time.Hour}
	m := mounted(t, "https://id.example.com/identity")
	w := httptest.NewRecorder()
	token := d.Ensure(w, httptest.NewRequest("GET", "/identity/verify/x", nil), m, "/identity/verify/")
	cookies := w.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Value != token || !cookies[0].HttpOnly || !cookies[0].Secure ||
		cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Path != "/identity/verify/" || cookies[0].MaxAge != 3600 {
		t.Fatalf("cookie %+v for token %q", cookies, token)
	}
	// A request with the cookie keeps its token and sets none.
	again := httptest.NewRequest("GET", "/identity/verify/x", nil)
	again.AddCookie(cookies[0])
	w2 := httptest.NewRecorder()
	if got := d.Ensure(w2, again, m, "/identity/verify/"); got != token || len(w2.Result().Cookies()) != 0 {
		t.Fatalf("second Ensure = %q, cookies %v", got, w2.Result().Cookies())
	}
	for _, c := range []struct {
		name, form, header, origin string
		cookie                     bool
		want                       bool
	}{
		{"form field", token, "", "", true, true},
		{"header", "", token, "", true, true},
		{"no cookie", token, "", "", false, false},
		{"wrong token", wrong(token), "", "", true, false},
		{"other origin", token, "", "https://evil.example", true, false},
	} {
		r := httptest.NewRequest("POST", "/identity/verify/x/submission", nil)
		if c.cookie {
			r.AddCookie(cookies[0])
		}
		if c.header != "" {
			r.Header.Set("X-CSRF-Token", c.header)
		}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := d.Check(r, m, c.form); got != c.want {
			t.Errorf("%s: Check = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	tmpl := template.Must(layout.New().Parse(`{{define "ok"}}<p>{{.}}</p>{{end}}{{define "bad"}}{{.Missing}}{{end}}`))
	h := layout.Headers{CSP: "default-src 'none'", Referrer: "no-referrer", Permissions: "camera=()", Isolated: true}
	w := httptest.NewRecorder()
	if err := layout.Render(w, tmpl, "ok", http.StatusAccepted, h, "<b>"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Content-Security-Policy": "default-src 'none'", "Referrer-Policy": "no-referrer",
		"Permissions-Policy": "camera=()", "Cross-Origin-Opener-Policy": "same-origin", "Cache-Control": "no-store",
		"X-Frame-Options": "DENY", "Content-Type": "text/html; charset=utf-8"}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if w.Code != http.StatusAccepted || w.Body.String() != "<p>&lt;b&gt;</p>" {
		t.Fatalf("%d %q", w.Code, w.Body.String())
	}
	w = httptest.NewRecorder()
	if err := layout.Render(w, tmpl, "bad", http.StatusOK, h, "text"); err == nil || w.Code != 500 ||
		w.Body.String() != "Internal Server Error\n" || w.Header().Get("Content-Security-Policy") == "" {
		t.Fatalf("failed render: %v, %d %q", err, w.Code, w.Body.String())
	}
	// The frame is there for the page sets to fill.
	if layout.New().Lookup("page") == nil {
		t.Fatal(`no template "page"`)
	}
}
