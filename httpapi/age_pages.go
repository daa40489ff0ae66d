package httpapi

import (
	"crypto/hmac"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/web/layout"
	"github.com/verifyd/verifyd/webauth"
)

// The hosted age-verification pages at {age base URL}/flow/{request id},
// where /oauth/authorize (age.go) sends the person. They share the identity
// hosted page's machinery: its headers and CSP (pageHeaders), languages
// and catalog (hosted_i18n.go, age_i18n.go), origin check (layout.SameOrigin),
// page frame (pages/layout.html), capture form (pages/capture.html), script
// and stylesheet (served here under /flow-assets/). Accounts use webauth:
// sessions scoped to the mount, a form token before sign-in, the session's
// CSRF token after. The use cases are in package agehosted; docs/age.md
// describes the flow.

var ageTemplates = template.Must(layout.New().ParseFS(pageFS, "pages/age.html", "pages/capture.html"))

// ageFormLimit bounds the flow's small forms.
const ageFormLimit = 16 << 10

// ageFlowRoutes registers the flow's pages on an age mount (routes.go).
func (s *Server) ageFlowRoutes(mux *http.ServeMux, m Mount) {
	if s.deps.AgeFlow == nil {
		return
	}
	get := func(h http.HandlerFunc) http.Handler { return s.methods(map[string]http.Handler{http.MethodGet: h}) }
	post := func(h http.HandlerFunc) http.Handler { return s.methods(map[string]http.Handler{http.MethodPost: h}) }
	mux.Handle("/flow/{id}", get(s.ageFlowPage))
	mux.Handle("/flow/{id}/status", get(s.ageFlowStatus))
	mux.Handle("/flow/{id}/signup", post(s.ageSignUp))
	mux.Handle("/flow/{id}/login", post(s.ageLogIn))
	mux.Handle("/flow/{id}/logout", post(s.ageLogOut))
	mux.Handle("/flow/{id}/consent", post(s.ageConsent))
	mux.Handle("/flow/{id}/method", post(s.ageChooseMethod))
	mux.Handle("/flow/{id}/document", post(s.ageSubmitDocument))
	mux.Handle("/flow/{id}/liveness-challenge", post(s.ageChallenge)) // liveness.go
	mux.Handle("/flow/{id}/provider/{proof}", s.methods(map[string]http.Handler{
		http.MethodPost: http.HandlerFunc(s.ageProviderAnswer), // a simulation's form
		http.MethodGet:  http.HandlerFunc(s.ageProviderReturn), // a real provider sends the person back
	}))
	mux.Handle("/flow/{id}/cancel", post(s.ageCancel))
	if m.Environment == verifyd.EnvSandbox {
		mux.Handle("/flow/{id}/sandbox", post(s.ageSandbox))
	}
	mux.Handle("/flow-assets/{name}", get(s.hostedAssetHandler))
	s.ageAccountRoutes(mux) // age_account.go
	s.ageMailRoutes(mux)    // age_mail.go
	s.agePasskeyRoutes(mux) // age_passkey.go
}

// ageReq is what every flow handler works out first.
type ageReq struct {
	hostedReq
	id      string
	request age.AuthRequest
	visitor agehosted.Visitor
	session *webauth.Session
	// notice is a confirmation the account page shows; loginError and
	// loginEmail a refused login on it.
	notice, loginError, loginEmail string
}

func (a *ageReq) path(suffix string) string {
	return a.mount.Prefix() + "/flow/" + url.PathEscape(a.id) + suffix
}

// ageRequest finds the flow's authorize request and the signed-in account.
// A request of the other environment, an unknown or an expired one is
// ErrNotFound.
func (s *Server) ageRequest(w http.ResponseWriter, r *http.Request) (*ageReq, error) {
	lang, explicit := layout.Lang(r)
	a := &ageReq{hostedReq: hostedReq{lang: lang, explicit: explicit, mount: request.MountOf(r.Context())}, id: r.PathValue("id")}
	svc := s.deps.AgeFlow
	var err error
	if a.request, err = svc.Request(r.Context(), a.mount.Environment, a.id); err != nil {
		return a, err
	}
	if a.request.CompletedAt != nil {
		// Finished is finished, whoever asks: not the sign-up form to a
		// browser without the session.
		return a, age.ErrCompleted
	}
	sess, err := svc.Sessions(a.mount.Environment).Get(r.Context(), r)
	if errors.Is(err, webauth.ErrNoSession) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	acct, err := svc.Account(r.Context(), a.mount.Environment, sess.Subject)
	if errors.Is(err, verifyd.ErrNotFound) {
		return a, svc.Sessions(a.mount.Environment).End(r.Context(), w, r)
	}
	if err != nil {
		return a, err
	}
	a.session, a.visitor = &sess, agehosted.Visitor{Account: &acct, SessionStart: sess.CreatedAt}
	return a, nil
}

// ageFlowPage shows the flow: the account forms, the methods, a check under
// way, or, once the outcome is known, sends the person back to the
// integrator with the code (303).
func (s *Server) ageFlowPage(w http.ResponseWriter, r *http.Request) {
	a, err := s.ageRequest(w, r)
	if err != nil {
		s.agePageError(w, r, a, err)
		return
	}
	if outcome := r.URL.Query().Get("sandbox"); outcome != "" && a.mount.Environment == verifyd.EnvSandbox {
		// The sandbox shortcut for integrators' automated tests.
		to, err := s.deps.AgeFlow.SandboxComplete(r.Context(), a.request, outcome)
		if err != nil {
			s.agePageError(w, r, a, err)
			return
		}
		ageRedirect(w, r, to)
		return
	}
	st, err := s.deps.AgeFlow.State(r.Context(), a.request, a.visitor)
	if err != nil {
		s.agePageError(w, r, a, err)
		return
	}
	if m, ok := agehosted.OnlyMethod(st); ok {
		// One accepted method: no page with one button. This creates the
		// method's check once per flow (the next view shows its step).
		if st, _, err = s.deps.AgeFlow.ChooseMethod(r.Context(), a.request, a.visitor, m); err != nil {
			s.agePageError(w, r, a, err)
			return
		}
	}
	s.ageShow(w, r, a, st, http.StatusOK, nil)
}

// ageShow renders a state, or finishes a flow whose outcome is known.
func (s *Server) ageShow(w http.ResponseWriter, r *http.Request, a *ageReq, st agehosted.State, status int, res *ageFormResult) {
	if st.Step == agehosted.StepDone {
		to, err := s.deps.AgeFlow.Complete(r.Context(), st)
		if err != nil {
			s.agePageError(w, r, a, err)
			return
		}
		ageRedirect(w, r, to)
		return
	}
	s.renderAge(w, r, a, st, status, res)
}

// ageRedirect sends the browser to the integrator's redirect_uri with the
// code. The Referrer-Policy keeps the flow's URL from the integrator.
func ageRedirect(w http.ResponseWriter, r *http.Request, to string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// backToFlow answers a plain form post with 303 to the flow page.
func backToFlow(w http.ResponseWriter, r *http.Request, a *ageReq) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, a.path(a.query()), http.StatusSeeOther)
}

// agePageError answers a request that failed with a page: unknown or
// expired flows 404, a flow finished before 409, others 500 (logged).
func (s *Server) agePageError(w http.ResponseWriter, r *http.Request, a *ageReq, err error) {
	status, key := http.StatusInternalServerError, "age_error"
	switch {
	case errors.Is(err, age.ErrCompleted):
		status, key = http.StatusConflict, "age_finished"
	case verifyd.ErrorCodeOf(err) == verifyd.ENotFound:
		status, key = http.StatusNotFound, "age_not_found"
	default:
		s.logger(r).ErrorContext(r.Context(), "age flow page", "err", err)
	}
	d := s.ageData(w, r, a)
	d.NotFound, d.Message, d.Step = true, msg(a.lang, key), agehosted.Step("error_"+strconv.Itoa(status))
	// Every error page leads somewhere: back to the site when the request
	// names it, to the account page always (which works without a flow).
	d.SiteTo = siteOf(a.request.RedirectURI)
	if status == http.StatusInternalServerError && a.id != "" && a.request.ID != "" {
		d.RetryTo = a.path(a.query())
	}
	d.AccountTo = a.mount.Prefix() + "/account" + a.accountQuery()
	s.writeAge(w, r, status, d)
}

// siteOf is the origin of a redirect_uri, where an error page leads back
// to: the callback itself would be called without a code. "" when the URI
// is not a plain http(s) address.
func siteOf(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !cspHost.MatchString(u.Host) {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/"
}

// ageFormResult is a refused form shown again.
type ageFormResult struct {
	banner      string
	loginError  string
	loginEmail  string
	signupEmail string
	problems    []hostedProblem // sign-up problems, or the capture form's
	form        *identity.HostedSubmission
}

// agePageData is what pages/age.html renders. It embeds the hosted page's
// data, whose fields the shared capture form reads.
type agePageData struct {
	hostedPageData
	Step              agehosted.Step
	Poll              string
	FormCSRF          string
	SessionCSRF       string
	SignedInAs        string
	Relogin           bool
	LoginTo, SignupTo string
	LogoutTo          string
	ConsentTo         string
	BusinessName      string
	MethodTo          string
	ProviderTo        string
	CancelTo          string
	LoginError        string
	LoginEmail        string
	SignupEmail       string
	SignupProblems    []hostedProblem
	SignupErr         map[string]string
	RuleText          string
	Methods           []ageOption
	Failed            bool
	ProviderTitle     string
	Choices           []ageOption
	CanCancel         bool
	// The account page (age_account.go) and the flow pages' link to it.
	AccountTo    string
	AccountEmail string
	DeleteTo     string
	BackTo       string
	DeleteError  string
	// The account page's consents (sites the person shares with).
	ShowConsents bool
	Consents     []ageConsentRow
	RevokeTo     string
	Notice       string
	// Passkeys: offered when the service has them; their ceremonies'
	// base path, the script, and where to go after one.
	PasskeysOn  bool
	PasskeyBase string
	PasskeyJS   string
	Next        string
	// The account page: a passkey-only account confirms a deletion with
	// a recent passkey login instead of a password; Passkeys counts them.
	PasswordLess, NeedsReauth bool
	Passkeys                  int
	// E-mail (age_mail.go): offered when a mailer is configured.
	MailOn                                         bool
	MailPurpose, MailEmail, MailToken, MailProblem string
	MailRequestTo, CodeTo, MailLinkTo              string
	ResetLink, CodeLink, DeleteLink                string
	EmailConfirmed                                 bool
	ConfirmRequestTo                               string
	// Error pages' ways out: the site's origin, the flow again (500).
	SiteTo, RetryTo string
	// noReferrer keeps a page's address (an e-mailed secret) from any
	// request it leads to.
	noReferrer bool
	// redirectURI is the request's, whose origin forms may lead to.
	redirectURI string
}

// ageConsentRow is a consent on the account page.
type ageConsentRow struct{ BusinessID, Name, Since, Stop string }

// ageOption is a method or an outcome button.
type ageOption struct{ Value, Label, Hint string }

// PhaseTitle names the page's phase for the document title, so that a
// screen-reader user or a tab strip tells the steps apart.
func (d agePageData) PhaseTitle() string {
	key := "age_phase_" + string(d.Step)
	if d.Relogin && d.Step == agehosted.StepAccount {
		key = "age_relogin_title"
	}
	if t := msg(d.Lang, key); t != key {
		return t
	}
	return msg(d.Lang, "age_phase_error_500")
}

// HasErrors reports whether the page shows a refused form or an error;
// the document title then starts with "Error:".
func (d agePageData) HasErrors() bool {
	return d.NotFound || d.Banner != "" || d.LoginError != "" || len(d.SignupProblems) > 0 || d.DeleteError != "" ||
		len(d.Problems) > 0
}

// PrivacyText is the note under the document method's submit button.
func (d agePageData) PrivacyText() string { return msg(d.Lang, "age_doc_privacy") }

// ageData fills what every flow page shows.
func (s *Server) ageData(w http.ResponseWriter, r *http.Request, a *ageReq) agePageData {
	d := agePageData{hostedPageData: hostedPageData{Lang: a.lang, PagePath: a.path(""), Query: a.query(),
		CSS:     a.mount.Prefix() + "/flow-assets/" + hostedAssets.Name("hosted.css"),
		JS:      a.mount.Prefix() + "/flow-assets/" + hostedAssets.Name("hosted.js"),
		Sandbox: a.mount.Environment == verifyd.EnvSandbox, JSText: map[string]string{}},
		redirectURI: a.request.RedirectURI,
		PasskeysOn:  s.deps.AgeFlow.PasskeysOn(a.mount.Environment), PasskeyBase: a.mount.Prefix() + "/passkey",
		PasskeyJS: a.mount.Prefix() + "/flow-assets/" + hostedAssets.Name("passkey.js"), Next: a.path(a.query()),
		MailOn: s.deps.AgeFlow.MailOn()}
	if d.MailOn {
		req := a.mount.Prefix() + "/account/email-request"
		d.ResetLink, d.CodeLink = req+a.accountQuery("purpose", "reset"), req+a.accountQuery("purpose", "code")
		d.DeleteLink = req + a.accountQuery("purpose", "delete")
	}
	d.Langs = layout.LangLinks(a.lang, layout.QueryLink(d.PagePath))
	return d
}

// ageCSP is the hosted page's policy, except that forms may also lead to
// the integrator's origin: a form post whose answer ends the flow is
// redirected (through the flow page) to the redirect_uri, and Chromium
// applies form-action to every redirect of a form's navigation.
func ageCSP(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !cspHost.MatchString(u.Host) {
		return layout.CSP
	}
	return strings.Replace(layout.CSP, "form-action 'self'", "form-action 'self' "+u.Scheme+"://"+u.Host, 1)
}

// cspHost is a host (and port) that is safe in a CSP source expression.
var cspHost = regexp.MustCompile(`^[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$`)

func (s *Server) writeAge(w http.ResponseWriter, r *http.Request, status int, d agePageData) {
	p := pageHeaders
	p.CSP = ageCSP(d.redirectURI)
	if d.noReferrer {
		p.Referrer = "no-referrer"
	}
	if err := layout.Render(w, ageTemplates, "age.html", status, p, d); err != nil {
		s.logger(r).ErrorContext(r.Context(), "render age flow page", "err", err)
	}
}

// renderAge renders the page of a flow state.
func (s *Server) renderAge(w http.ResponseWriter, r *http.Request, a *ageReq, st agehosted.State, status int, res *ageFormResult) {
	d := s.ageData(w, r, a)
	env := a.mount.Environment
	formCSRF, err := s.deps.AgeFlow.Sessions(env).FormToken(w, r)
	if err != nil {
		s.agePageError(w, r, a, err)
		return
	}
	q := a.query()
	d.Step, d.FormCSRF = st.Step, formCSRF
	d.StatusURL = a.path("/status")
	d.LoginTo, d.SignupTo, d.LogoutTo = a.path("/login"+q), a.path("/signup"+q), a.path("/logout"+q)
	d.ConsentTo = a.path("/consent" + q)
	d.MethodTo, d.CancelTo, d.SandboxTo = a.path("/method"+q), a.path("/cancel"+q), a.path("/sandbox"+q)
	d.ShowSandbox = d.Sandbox
	d.CanCancel = true
	d.Relogin = st.Relogin
	if a.session != nil {
		d.SessionCSRF = a.session.CSRFToken()
		d.SignedInAs = a.visitor.Account.Email
		d.LoginEmail = a.visitor.Account.Email
		d.AccountTo = a.accountLink()
	}
	d.RuleText = msg(a.lang, "age_rule_"+st.Country.Code)
	for _, m := range st.Methods {
		d.Methods = append(d.Methods, ageOption{Value: string(m), Label: msg(a.lang, "age_method_"+string(m)),
			Hint: msg(a.lang, "age_method_"+string(m)+"_hint")})
	}
	switch st.Step {
	case agehosted.StepConsent:
		// "No" on this page is the way back; a second one would confuse.
		d.BusinessName, d.CanCancel = st.BusinessName, false
	case agehosted.StepMethods:
		if st.Failed != nil {
			d.Failed = true
			if st.FailedReason != "" {
				d.Detail = msg(a.lang, "reason_"+string(st.FailedReason))
			}
		}
	case agehosted.StepDocument:
		ds := *st.Document
		d.CSRF = d.SessionCSRF
		d.Submit = a.path("/document" + q)
		d.Challenge = a.path("/liveness-challenge" + q)
		d.Message = msg(a.lang, "age_doc_intro")
		d.AttemptsLeft = ds.AttemptsLeft
		if ds.Phase == identity.PhaseRetry {
			d.Message = msg(a.lang, "state_retry")
			d.Fix = msg(a.lang, "fix_"+ds.Fix.Problem)
			if ds.Fix.Image != "" {
				d.FixImage = msg(a.lang, "fix_image_"+string(ds.Fix.Image))
			}
		}
		var hres *hostedFormResult
		if res != nil {
			hres = &hostedFormResult{problems: res.problems, form: res.form}
		}
		s.fillCaptureForm(&d.hostedPageData, r, a.hostedReq, ds, hres)
		d.Problems = nil
		if res != nil {
			d.Problems = res.problems
		}
		for _, k := range jsKeys {
			d.JSText[k] = msg(a.lang, k)
		}
	case agehosted.StepProcessing:
		d.Poll = "1500"
	case agehosted.StepReview:
		d.Poll = "5000"
	case agehosted.StepProvider:
		d.ProviderTitle = msg(a.lang, "age_method_"+string(st.Proof.Method))
		d.ProviderTo = a.path("/provider/" + url.PathEscape(st.Proof.ID) + q)
		for _, c := range st.Choices {
			d.Choices = append(d.Choices, ageOption{Value: string(c), Label: msg(a.lang, "age_outcome_"+string(c))})
		}
	}
	if res != nil {
		d.Banner, d.LoginError = res.banner, res.loginError
		if res.loginEmail != "" {
			d.LoginEmail = res.loginEmail
		}
		d.SignupEmail = res.signupEmail
		if st.Step == agehosted.StepAccount {
			d.SignupProblems = res.problems
			d.SignupErr = map[string]string{}
			for _, p := range res.problems {
				d.SignupErr[p.Field] = p.Message
			}
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	s.writeAge(w, r, status, d)
}

// ageStatusBody is the page's polling answer.
type ageStatusBody struct {
	Phase agehosted.Step `json:"phase"`
}

// ageFlowStatus answers the page's polling while a check is under way.
func (s *Server) ageFlowStatus(w http.ResponseWriter, r *http.Request) {
	a, err := s.ageRequest(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := s.deps.AgeFlow.State(r.Context(), a.request, a.visitor)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	request.WriteJSON(w, http.StatusOK, ageStatusBody{Phase: st.Step})
}

// ageForm reads a small form and checks that it comes from this origin and
// carries the right token: the session's (session forms) or the form
// cookie's (forms shown before sign-in). A refusal renders the page again
// with a message (403).
func (s *Server) ageForm(w http.ResponseWriter, r *http.Request, a *ageReq, session bool) bool {
	r.Body = http.MaxBytesReader(w, r.Body, ageFormLimit)
	if err := r.ParseForm(); err != nil {
		s.ageRefuse(w, r, a, http.StatusBadRequest, "err_generic")
		return false
	}
	ok := layout.SameOrigin(r, a.mount)
	if session {
		ok = ok && a.session != nil && a.session.CheckCSRF(r)
	} else {
		ok = ok && s.deps.AgeFlow.Sessions(a.mount.Environment).CheckFormToken(r)
	}
	if !ok {
		s.ageRefuse(w, r, a, http.StatusForbidden, "err_csrf")
	}
	return ok
}

// ageRefuse shows the flow's current state with a message.
func (s *Server) ageRefuse(w http.ResponseWriter, r *http.Request, a *ageReq, status int, key string) {
	st, err := s.deps.AgeFlow.State(r.Context(), a.request, a.visitor)
	if err != nil {
		s.agePageError(w, r, a, err)
		return
	}
	if st.Step == agehosted.StepDone {
		s.ageShow(w, r, a, st, status, nil)
		return
	}
	s.renderAge(w, r, a, st, status, &ageFormResult{banner: msg(a.lang, key)})
}

// flowHandler wraps a handler that needs the flow's request.
func (s *Server) flowHandler(w http.ResponseWriter, r *http.Request) (*ageReq, bool) {
	a, err := s.ageRequest(w, r)
	if err != nil {
		s.agePageError(w, r, a, err)
		return nil, false
	}
	return a, true
}

func (s *Server) ageSignUp(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok || !s.ageForm(w, r, a, false) {
		return
	}
	svc, env := s.deps.AgeFlow, a.mount.Environment
	email := r.PostFormValue("email")
	acct, err := svc.SignUp(r.Context(), env, email, r.PostFormValue("password"), r.PostFormValue("password_again"), request.ClientAddr(r))
	if err != nil {
		s.ageAccountFail(w, r, a, err, &ageFormResult{signupEmail: email})
		return
	}
	if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
		s.agePageError(w, r, a, err)
		return
	}
	s.logger(r).InfoContext(r.Context(), "age account created", "account", acct.ID, "environment", env)
	s.sendConfirmation(r, a, acct)
	backToFlow(w, r, a)
}

// sendConfirmation e-mails a new account the link that confirms its
// address, when e-mail is configured. A failure is logged, not shown: the
// account works without it, and the account page sends it again.
func (s *Server) sendConfirmation(r *http.Request, a *ageReq, acct verifyd.AgeAccount) {
	if !s.deps.AgeFlow.MailOn() {
		return
	}
	if err := s.deps.AgeFlow.SendConfirmation(r.Context(), a.mount.Environment, a.lang, acct); err != nil {
		s.logger(r).ErrorContext(r.Context(), "age e-mail", "purpose", "confirm", "err", err)
	}
}

func (s *Server) ageLogIn(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok || !s.ageForm(w, r, a, false) {
		return
	}
	svc, env := s.deps.AgeFlow, a.mount.Environment
	email := r.PostFormValue("email")
	acct, err := svc.LogIn(r.Context(), env, email, r.PostFormValue("password"), request.ClientAddr(r))
	if err != nil {
		s.ageAccountFail(w, r, a, err, &ageFormResult{loginEmail: email})
		return
	}
	if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
		s.agePageError(w, r, a, err)
		return
	}
	s.logger(r).InfoContext(r.Context(), "age login", "account", acct.ID, "environment", env)
	backToFlow(w, r, a)
}

// ageAccountFail shows the account forms again with what went wrong:
// field problems (sign-up), the one login error, or the rate limit (429).
func (s *Server) ageAccountFail(w http.ResponseWriter, r *http.Request, a *ageReq, err error, res *ageFormResult) {
	var limited *agehosted.RateLimitedError
	var e *verifyd.Error
	status := http.StatusUnprocessableEntity
	switch {
	case errors.As(err, &limited):
		status = http.StatusTooManyRequests
		minutes := int((limited.RetryAfter + time.Minute - 1) / time.Minute)
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
		res.banner = msg(a.lang, "age_err_limited", minutes)
		s.logger(r).WarnContext(r.Context(), "age login or sign-up rate limited")
	case errors.Is(err, agehosted.ErrBadLogin):
		status, res.loginError = http.StatusUnauthorized, msg(a.lang, "age_err_login")
	case errors.As(err, &e) && e.Code == verifyd.EInvalid:
		for _, f := range e.Fields {
			res.problems = append(res.problems, hostedProblem{Field: f.Field, Problem: f.Problem,
				Message: msg(a.lang, "age_err_"+f.Field+"_"+f.Problem)})
		}
	default:
		s.agePageError(w, r, a, err)
		return
	}
	// The visitor stays who they were (a failed login signs nobody out).
	st, stErr := s.deps.AgeFlow.State(r.Context(), a.request, a.visitor)
	if stErr != nil {
		s.agePageError(w, r, a, stErr)
		return
	}
	if st.Step != agehosted.StepAccount {
		// A signed-in visitor tried to create or open another account.
		st.Step = agehosted.StepAccount
	}
	s.renderAge(w, r, a, st, status, res)
}

func (s *Server) ageLogOut(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok || !s.ageForm(w, r, a, true) {
		return
	}
	if err := s.deps.AgeFlow.Sessions(a.mount.Environment).End(r.Context(), w, r); err != nil {
		s.agePageError(w, r, a, err)
		return
	}
	backToFlow(w, r, a)
}

// ageConsent records the answer to "<business> asks whether you are 18 or
// older. Share?": yes goes on with the flow, no sends the person back at
// once with a code saying age_verified false (agehosted.Service.Consent).
func (s *Server) ageConsent(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok || !s.ageForm(w, r, a, true) {
		return
	}
	var share bool
	switch r.PostFormValue("share") {
	case "yes":
		share = true
	case "no":
	default:
		s.ageRefuse(w, r, a, http.StatusUnprocessableEntity, "err_generic")
		return
	}
	to, err := s.deps.AgeFlow.Consent(r.Context(), a.request, a.visitor, share)
	if err != nil {
		s.ageStepFail(w, r, a, agehosted.State{}, err, nil)
		return
	}
	if share {
		s.logger(r).InfoContext(r.Context(), "age consent granted", "account", a.visitor.Account.ID, "business", a.request.BusinessID)
		backToFlow(w, r, a)
		return
	}
	s.logger(r).InfoContext(r.Context(), "age consent declined", "account", a.visitor.Account.ID, "business", a.request.BusinessID)
	ageRedirect(w, r, to)
}

// ageStepFail shows the flow again after a refused step: a method the
// country does not accept (422), a check already under way (409), no
// session (back to the account forms).
func (s *Server) ageStepFail(w http.ResponseWriter, r *http.Request, a *ageReq, st agehosted.State, err error, res *ageFormResult) {
	if res == nil {
		res = &ageFormResult{}
	}
	status := http.StatusConflict
	switch {
	case errors.Is(err, agehosted.ErrNotSignedIn), errors.Is(err, agehosted.ErrNoConsent):
		// The page asks for what is missing.
		backToFlow(w, r, a)
		return
	case errors.Is(err, agehosted.ErrMethodNotOffered):
		status, res.banner = http.StatusUnprocessableEntity, msg(a.lang, "age_err_method")
	case errors.Is(err, agehosted.ErrBusy):
		res.banner = msg(a.lang, "age_err_busy")
	case verifyd.ErrorCodeOf(err) == verifyd.EInvalid && st.Step == agehosted.StepDocument:
		status = http.StatusUnprocessableEntity
		res.banner = msg(a.lang, "errors_title")
		var e *verifyd.Error
		if errors.As(err, &e) {
			res.problems = nil
			for _, f := range e.Fields {
				res.problems = append(res.problems, hostedProblem{Field: f.Field, Problem: f.Problem, Message: problemText(a.lang, f.Field, f.Problem)})
			}
		}
	case verifyd.ErrorCodeOf(err) == verifyd.EInvalid:
		status, res.banner = http.StatusUnprocessableEntity, msg(a.lang, "err_generic")
	default:
		s.agePageError(w, r, a, err)
		return
	}
	if st.Step == "" {
		var stErr error
		if st, stErr = s.deps.AgeFlow.State(r.Context(), a.request, a.visitor); stErr != nil {
			s.agePageError(w, r, a, stErr)
			return
		}
	}
	s.ageShow(w, r, a, st, status, res)
}

func (s *Server) ageChooseMethod(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok || !s.ageForm(w, r, a, true) {
		return
	}
	st, step, err := s.deps.AgeFlow.ChooseMethod(r.Context(), a.request, a.visitor, verifyd.AgeMethod(r.PostFormValue("method")))
	if err != nil {
		s.ageStepFail(w, r, a, st, err, nil)
		return
	}
	if step.RedirectURL != "" {
		// A real provider's own pages.
		w.Header().Set("Referrer-Policy", "no-referrer")
		http.Redirect(w, r, step.RedirectURL, http.StatusSeeOther)
		return
	}
	backToFlow(w, r, a)
}

// ageSubmitDocument accepts the document method's capture form (the
// identity hosted page's multipart form, streamed by readHostedForm). The
// page's script sends the session's CSRF token as X-CSRF-Token; a plain
// form in the csrf field.
func (s *Server) ageSubmitDocument(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok {
		return
	}
	in, csrf, err := readHostedForm(w, r)
	if err != nil {
		s.ageDocumentFail(w, r, a, agehosted.State{}, err, nil)
		return
	}
	if sent := r.Header.Get(webauth.CSRFHeader); sent != "" {
		csrf = sent
	}
	if !layout.SameOrigin(r, a.mount) || a.session == nil || !hmac.Equal([]byte(csrf), []byte(a.session.CSRFToken())) {
		s.ageDocumentFail(w, r, a, agehosted.State{}, errCSRF, nil)
		return
	}
	st, err := s.deps.AgeFlow.SubmitDocument(r.Context(), a.request, a.visitor, in)
	if err != nil {
		s.ageDocumentFail(w, r, a, st, err, &in)
		return
	}
	if wantsJSON(r) {
		request.WriteJSON(w, http.StatusAccepted, ageStatusBody{Phase: st.Step})
		return
	}
	backToFlow(w, r, a)
}

// ageDocumentFail answers a refused capture form: JSON for the script (as
// the identity page does), the page again for a plain form.
func (s *Server) ageDocumentFail(w http.ResponseWriter, r *http.Request, a *ageReq, st agehosted.State, err error, form *identity.HostedSubmission) {
	if !wantsJSON(r) {
		if errors.Is(err, errCSRF) {
			s.ageRefuse(w, r, a, http.StatusForbidden, "err_csrf")
			return
		}
		switch code := verifyd.ErrorCodeOf(err); code {
		case verifyd.ETooLarge:
			s.ageRefuse(w, r, a, request.StatusOf(code), "err_too_large")
			return
		case verifyd.EMalformed:
			s.ageRefuse(w, r, a, request.StatusOf(code), "err_generic")
			return
		}
		s.ageStepFail(w, r, a, st, err, &ageFormResult{form: form})
		return
	}
	code := verifyd.ErrorCodeOf(err)
	status, key := request.StatusOf(code), "err_generic"
	switch {
	case errors.Is(err, errCSRF), errors.Is(err, agehosted.ErrNotSignedIn), errors.Is(err, agehosted.ErrNoConsent):
		status, key = http.StatusForbidden, "err_csrf"
	case code == verifyd.EConflict:
		key = "err_conflict"
	case code == verifyd.ETooLarge:
		key = "err_too_large"
	case code == verifyd.EInvalid:
		key = "errors_title"
	case code == verifyd.EInternal:
		s.writeError(w, r, err)
		return
	}
	var problems []hostedProblem
	var e *verifyd.Error
	if errors.As(err, &e) {
		for _, f := range e.Fields {
			problems = append(problems, hostedProblem{Field: f.Field, Problem: f.Problem, Message: problemText(a.lang, f.Field, f.Problem)})
		}
	}
	request.WriteJSON(w, status, hostedErrorBody{Message: msg(a.lang, key), StatusCode: status, Errors: problems})
}

// ageProviderAnswer records a simulation's outcome (the tester's choice).
func (s *Server) ageProviderAnswer(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok || !s.ageForm(w, r, a, true) {
		return
	}
	st, err := s.deps.AgeFlow.FinishProvider(r.Context(), a.request, a.visitor, r.PathValue("proof"), r.PostForm, false)
	if err != nil {
		s.ageStepFail(w, r, a, st, err, nil)
		return
	}
	backToFlow(w, r, a)
}

// ageProviderReturn is where a real provider sends the person back; the
// provider authenticates its answer (Provider.Finish). Simulations answer
// by the form only.
func (s *Server) ageProviderReturn(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok {
		return
	}
	st, err := s.deps.AgeFlow.FinishProvider(r.Context(), a.request, a.visitor, r.PathValue("proof"), r.URL.Query(), true)
	if err != nil {
		s.ageStepFail(w, r, a, st, err, nil)
		return
	}
	backToFlow(w, r, a)
}

// ageCancel sends the person back without proof of age.
func (s *Server) ageCancel(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok || !s.ageForm(w, r, a, false) {
		return
	}
	to, err := s.deps.AgeFlow.Cancel(r.Context(), a.request, a.visitor)
	if err != nil {
		s.agePageError(w, r, a, err)
		return
	}
	ageRedirect(w, r, to)
}

// ageSandbox is the sandbox panel: finish at once as an adult or a minor.
// The route exists only on the sandbox mount, and SandboxComplete refuses
// production requests.
func (s *Server) ageSandbox(w http.ResponseWriter, r *http.Request) {
	a, ok := s.flowHandler(w, r)
	if !ok || !s.ageForm(w, r, a, false) {
		return
	}
	to, err := s.deps.AgeFlow.SandboxComplete(r.Context(), a.request, r.PostFormValue("outcome"))
	if err != nil {
		s.ageStepFail(w, r, a, agehosted.State{}, err, nil)
		return
	}
	ageRedirect(w, r, to)
}
