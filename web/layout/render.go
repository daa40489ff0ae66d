package layout

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
)

//go:embed layout.html brand.html
var layoutFS embed.FS

// base is layout.html parsed once; New hands out clones.
var base = template.Must(template.ParseFS(layoutFS, "layout.html", "brand.html"))

// New returns a template set holding the base frame, template "page", to
// which a page set adds its templates (ParseFS). The frame's data needs
// Lang, CSS, JS, Sandbox, Langs ([]LangLink), NotFound, Message, NextStep,
// Brand (*Brand, nil for none), JSText and a method T(key string, args ...any) string whose catalog has
// the keys of Texts; a page defines "title", "head-refresh", "main-open"
// and "content" (layout.html says what each is).
func New() *template.Template {
	return template.Must(base.Clone())
}

// CSP is the person-facing pages' policy: only their own script and style
// (no inline code), photos previewed from blob: URLs, the camera stream,
// and fetches and forms to their own origin; no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; " +
	"connect-src 'self'; media-src 'self' blob:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Headers are the security headers of a page set's responses. Every page
// is also sent with Cache-Control: no-store (it shows one person's data)
// and X-Frame-Options: DENY (for browsers without frame-ancestors).
type Headers struct {
	// CSP is the Content-Security-Policy.
	CSP string
	// Referrer is the Referrer-Policy.
	Referrer string
	// Permissions is the Permissions-Policy (none when "").
	Permissions string
	// Isolated adds Cross-Origin-Opener-Policy and
	// Cross-Origin-Resource-Policy: same-origin.
	Isolated bool
}

// Set writes the headers into h.
func (p Headers) Set(h http.Header) {
	h.Set("Content-Security-Policy", p.CSP)
	h.Set("Referrer-Policy", p.Referrer)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	if p.Permissions != "" {
		h.Set("Permissions-Policy", p.Permissions)
	}
	if p.Isolated {
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
	}
}

// Render executes template name of t with data and answers it with status
// and the page set's headers. The page is rendered into a buffer first so
// that a template failure answers a plain 500 instead of half a page; the
// error is returned for the caller to log.
func Render(w http.ResponseWriter, t *template.Template, name string, status int, p Headers, data any) error {
	var buf bytes.Buffer
	err := t.ExecuteTemplate(&buf, name, data)
	if err != nil {
		status, buf = http.StatusInternalServerError, bytes.Buffer{}
		buf.WriteString("Internal Server Error\n")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	p.Set(w.Header())
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return err
}
