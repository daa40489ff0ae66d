// Package dashpages is the HTTP side of the business dashboard (package
// dashboard): server-rendered pages at /dashboard that work without
// JavaScript under a CSP that allows nothing but this origin's stylesheet,
// images and form targets (passkeys, on two pages, add this origin's
// script). It uses web/layout for
// languages (English, German, French), hashed assets and security headers,
// and webauth for sessions, CSRF tokens and sign-in limits.
//
// Every route is listed in httpapi/routes.go (dashboardRoutes). A page is
// a handler method of Pages taking the signed-in Member, wrapped by
// Pages.Member with the permission it needs, and a template in pages/
// named after it that defines "content" (see keys.go and keys.html).
//
// Adding a page: write NAME.go (the handler, a method of Pages taking
// *Req) and pages/NAME.html (its template, defining "content"; the frame,
// navigation, language links, notice and error come with it), add its
// texts in English, German and French to catalog in texts.go, add its
// navigation entry to nav in nav.go with the permission that shows it,
// and list its routes in httpapi/routes.go (dashboardRoutes) wrapped by
// Member with the permission each needs. The pages render with the
// frame's CSP (no script); a page that needs the passkey script sets
// view.JS, which adds script-src 'self' for that response only.
package dashpages

import (
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/tenant"
	"github.com/verifyd/verifyd/web/layout"
	"github.com/verifyd/verifyd/webauth"
)

// Base is the path the dashboard is mounted at.
const Base = "/dashboard"

//go:embed pages/*.html
var pageFS embed.FS

//go:embed pages/dashboard.css
var stylesheet []byte

// csp allows the page's own stylesheet and form targets, and data: images
// (the TOTP QR code is inlined, so the secret never has a URL of its own).
// No script at all, no framing.
const csp = "default-src 'none'; img-src 'self' data:; style-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

var headers = layout.Headers{CSP: csp, Referrer: "no-referrer", Isolated: true}

// scriptHeaders are those of the two pages that run passkey ceremonies:
// this origin's script and fetches to it, nothing more.
var scriptHeaders = layout.Headers{CSP: csp + "; script-src 'self'; connect-src 'self'", Referrer: "no-referrer", Isolated: true}

// maxForm bounds form bodies.
const maxForm = 64 << 10

// Config adjusts the pages.
type Config struct {
	// Data are the services of the verifications, webhooks and branding
	// pages (verifications.go, webhooks.go, branding.go).
	Data   Data
	Logger *slog.Logger
	// Dev tells that plain http is expected (no warning about Secure
	// cookies that browsers would drop).
	Dev bool
}

// Pages serves the dashboard.
type Pages struct {
	svc    *dashboard.Service
	data   Data
	log    *slog.Logger
	dev    bool
	assets *layout.Assets
	pages  map[string]*template.Template
}

// New returns the dashboard's pages on svc.
func New(svc *dashboard.Service, cfg Config) *Pages {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Pages{svc: svc, data: cfg.Data, log: cfg.Logger, dev: cfg.Dev,
		assets: layout.NewAssets(layout.Asset{Name: "dashboard.css", Body: stylesheet}, layout.PasskeyScript),
		pages:  map[string]*template.Template{}}
	// The frame and the partials (part_*.html) go into every page's set.
	frame := template.Must(template.New("frame.html").Funcs(template.FuncMap{"events": eventsArgs}).
		ParseFS(pageFS, "pages/frame.html", "pages/part_*.html"))
	names, err := pageFS.ReadDir("pages")
	if err != nil {
		panic(err)
	}
	for _, f := range names {
		name := f.Name()
		if !strings.HasSuffix(name, ".html") || name == "frame.html" || strings.HasPrefix(name, "part_") {
			continue
		}
		p.pages[strings.TrimSuffix(name, ".html")] = template.Must(template.Must(frame.Clone()).ParseFS(pageFS, "pages/"+name))
	}
	return p
}

// Handler wraps the dashboard's routes: a cross-origin POST is refused
// before it reaches them (a second layer under the CSRF tokens), and the
// matched route is recorded for logs and metrics.
func (p *Pages) Handler(mux *http.ServeMux) http.Handler {
	return layout.Protect(mux, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.message(w, r, http.StatusForbidden, "refused_title", "refused_cross_site")
	}))
}

// view is what every page's template gets.
type view struct {
	Lang  string
	Title string // catalog key
	CSS   string
	// JS is the passkey script's path on the pages that run ceremonies.
	JS     string
	Langs  []layout.LangLink
	Nav    []navLink
	Member *dashboard.Member
	CSRF   string
	Notice string
	Error  string
	// Data is the page's own.
	Data any
}

// T translates key into the page's language.
func (v view) T(key string, args ...any) string { return texts.Msg(v.Lang, key, args...) }

// Req is a signed-in request: the member, their session and the page's
// language.
type Req struct {
	*http.Request
	Member  dashboard.Member
	Session webauth.Session
	Lang    string
}

// langCookie remembers a language chosen with ?lang=, so links need not
// carry it.
const langCookie = "verifyd_dashboard_lang"

// lang picks the page's language: ?lang= (remembered), the remembered
// choice, then Accept-Language.
func (p *Pages) lang(w http.ResponseWriter, r *http.Request) string {
	l, explicit := layout.Lang(r)
	if explicit {
		// Secure follows the session and passkey cookies (Secure unless
		// --dev), not r.TLS: behind a TLS-terminating proxy the request
		// reaching us is plain http while the browser's is https.
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: l, Path: Base, MaxAge: 365 * 24 * 3600,
			HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: !p.dev})
		return l
	}
	if c, err := r.Cookie(langCookie); err == nil {
		for _, known := range layout.Languages {
			if c.Value == known.Code {
				return c.Value
			}
		}
	}
	return l
}

func (p *Pages) newView(w http.ResponseWriter, r *http.Request, title string) view {
	l := p.lang(w, r)
	return view{Lang: l, Title: title, CSS: Base + "/static/" + p.assets.Name("dashboard.css"),
		Langs: layout.LangLinks(l, layout.QueryLink(r.URL.Path))}
}

func (p *Pages) memberView(w http.ResponseWriter, r *Req, title string) view {
	v := p.newView(w, r.Request, title)
	v.Member, v.CSRF = &r.Member, r.Session.CSRFToken()
	v.Nav = navFor(r.Member, r.URL.Path)
	v.Notice = noticeOf(r)
	return v
}

// render writes page name with v.
func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	t, ok := p.pages[name]
	if !ok {
		p.log.ErrorContext(r.Context(), "no dashboard page", "page", name)
		t, status = p.pages["message"], http.StatusInternalServerError
	}
	h := headers
	if v.JS != "" {
		h = scriptHeaders
	}
	if err := layout.Render(w, t, "frame", status, h, v); err != nil {
		request.Logger(p.log, r).ErrorContext(r.Context(), "render dashboard page", "page", name, "err", err)
	}
}

// message shows a page with one message (errors, refusals).
func (p *Pages) message(w http.ResponseWriter, r *http.Request, status int, title, text string) {
	v := p.newView(w, r, title)
	v.Data = text
	p.render(w, r, status, "message", v)
}

// failure answers an unexpected error: logged in full, shown as a generic
// message.
func (p *Pages) failure(w http.ResponseWriter, r *http.Request, err error) {
	request.Logger(p.log, r).ErrorContext(r.Context(), "dashboard request failed", "err", err)
	p.message(w, r, http.StatusInternalServerError, "failure_title", "failure_text")
}

// NotFound answers a path the dashboard does not have.
func (p *Pages) NotFound(w http.ResponseWriter, r *http.Request) {
	p.message(w, r, http.StatusNotFound, "not_found_title", "not_found_text")
}

// Home sends a signed-in user to the first page.
func (p *Pages) Home(w http.ResponseWriter, r *Req) { redirect(w, r.Request, Base+"/keys") }

// Static serves the stylesheet under its content-addressed name.
func (p *Pages) Static(w http.ResponseWriter, r *http.Request) {
	if !p.assets.Serve(w, r, r.PathValue("file")) {
		p.NotFound(w, r)
	}
}

// redirect answers 303 See Other, with the dashboard's headers.
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	headers.Set(w.Header())
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// done redirects to a page after a change, naming the change for the
// notice the page shows (noticeOf).
func done(w http.ResponseWriter, r *Req, page, notice string) {
	redirect(w, r.Request, page+"?done="+url.QueryEscape(notice))
}

// notices are the keys ?done= may name.
var notices = map[string]bool{"key_revoked": true, "redirect_added": true, "redirect_removed": true,
	"settings_saved": true, "user_removed": true, "passkey_removed": true,
	"invitation_withdrawn": true, "role_changed": true, "redacted": true, "webhook_resent": true, "branding_saved": true}

func noticeOf(r *Req) string {
	if d := r.URL.Query().Get("done"); notices[d] {
		return texts.Msg(r.Lang, "done_"+d)
	}
	return ""
}

// Member serves a page to signed-in users whose role has need (any role
// when need is ""); others are sent to the login page, or refused. A POST
// must carry the session's CSRF token.
func (p *Pages) Member(need dashboard.Permission, h func(http.ResponseWriter, *Req)) http.HandlerFunc {
	return p.member(need, maxForm, h)
}

// Upload is Member for a form that carries a file of up to limit bytes
// (the branding page's logo).
func (p *Pages) Upload(need dashboard.Permission, limit int64, h func(http.ResponseWriter, *Req)) http.HandlerFunc {
	return p.member(need, limit+maxForm, h)
}

func (p *Pages) member(need dashboard.Permission, maxBody int64, h func(http.ResponseWriter, *Req)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, m, err := p.signedIn(w, r)
		if err != nil {
			p.failure(w, r, err)
			return
		}
		if m == nil {
			p.lang(w, r) // remembers a ?lang= for the login page
			next := Base
			if r.Method == http.MethodGet {
				next = r.URL.Path
			}
			redirect(w, r, Base+"/login?next="+url.QueryEscape(next))
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			// A body over the limit cannot be read, so it has no token
			// either; but "too large" is what the person can act on (a
			// logo far over branding.MaxLogoBytes), so it is said first.
			// Nothing is done with an unread form.
			if tooLarge(readForm(r, maxBody)) {
				p.message(w, r, http.StatusRequestEntityTooLarge, "too_large_title", "too_large_text")
				return
			}
			if !sess.CheckCSRF(r) {
				p.message(w, r, http.StatusForbidden, "refused_title", "refused_token")
				return
			}
		}
		if need != "" && !m.Can(need) {
			p.message(w, r, http.StatusForbidden, "forbidden_title", "forbidden_text")
			return
		}
		h(w, &Req{Request: r, Member: *m, Session: sess, Lang: p.lang(w, r)})
	}
}

// readForm parses a posted form, multipart or not, keeping files of up to
// maxMemory bytes in memory (the body is bounded by then). A body that is
// neither is left for the handler (the passkeys' JSON).
func readForm(r *http.Request, maxMemory int64) error {
	err := r.ParseMultipartForm(maxMemory)
	if errors.Is(err, http.ErrNotMultipart) {
		return nil // ParseForm has run and succeeded
	}
	return err
}

// tooLarge reports whether err is the failure of a body over its
// http.MaxBytesReader limit.
func tooLarge(err error) bool {
	var e *http.MaxBytesError
	return errors.As(err, &e)
}

// signedIn returns the request's session and member, or a nil member when
// there is no valid session of an active user.
func (p *Pages) signedIn(w http.ResponseWriter, r *http.Request) (webauth.Session, *dashboard.Member, error) {
	sess, err := p.svc.Sessions.Get(r.Context(), r)
	if errors.Is(err, webauth.ErrNoSession) {
		return webauth.Session{}, nil, nil
	}
	if err != nil {
		return webauth.Session{}, nil, err
	}
	m, err := p.svc.ActiveMember(r.Context(), sess.Subject)
	if errors.Is(err, verifyd.ErrNotFound) {
		// Removed since: the session ends.
		return webauth.Session{}, nil, p.svc.Sessions.End(r.Context(), w, r)
	}
	if err != nil {
		return webauth.Session{}, nil, err
	}
	return sess, &m, nil
}

// showError answers a domain error on page name: a refusal the user can
// act on is shown with the page (status from the one error mapping),
// anything else is a failure.
func (p *Pages) showError(w http.ResponseWriter, r *http.Request, v view, name string, err error) {
	var e *verifyd.Error
	if !errors.As(err, &e) || e.Code == verifyd.EInternal {
		p.failure(w, r, err)
		return
	}
	v.Error = errorText(v.Lang, e)
	p.render(w, r, request.StatusOf(e.Code), name, v)
}

// errorKeys are the catalog keys of the errors the pages translate.
var errorKeys = []struct {
	err error
	key string
}{
	{dashboard.ErrName, "err_name"}, {dashboard.ErrPassword, "err_password"}, {errPasswordAgain, "err_password_again"},
	{dashboard.ErrCode, "err_code"}, {dashboard.ErrEmail, "err_email"}, {dashboard.ErrBusiness, "err_business"},
	{dashboard.ErrTaken, "err_taken"}, {dashboard.ErrInvitation, "err_invitation"}, {dashboard.ErrRole, "err_role"},
	{dashboard.ErrRemoveSelf, "err_remove_self"}, {dashboard.ErrChangeSelf, "err_change_self"}, {dashboard.ErrSignUpClosed, "not_found_text"},
	{tenant.ErrSandboxOnly, "err_sandbox_only"}, {errFormExpired, "err_form_expired"}, {errLimited, "err_limited"},
	{errRetention, "err_retention"}, {dashboard.ErrForbidden, "forbidden_text"},
}

// errorText translates the domain's errors the catalog has, and shows
// others' safe message (API C's redirect rules, for instance, in English).
func errorText(lang string, e *verifyd.Error) string {
	for _, k := range errorKeys {
		if errors.Is(e, k.err) {
			return texts.Msg(lang, k.key)
		}
	}
	switch e.Code {
	case verifyd.EForbidden:
		return texts.Msg(lang, "forbidden_text")
	case verifyd.ENotFound:
		return texts.Msg(lang, "not_found_text")
	}
	return e.Message
}

// timeView is a time for a <time> element.
type timeView struct{ Text, ISO string }

func showTime(t time.Time) timeView {
	if t.IsZero() {
		return timeView{}
	}
	t = t.UTC()
	return timeView{Text: t.Format("2006-01-02 15:04 UTC"), ISO: t.Format(time.RFC3339)}
}
