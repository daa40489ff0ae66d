package agepages

import (
	"crypto/hmac"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/web/hosted"
	"github.com/verifyd/verifyd/web/layout"
	"github.com/verifyd/verifyd/webauth"
)

// Pages are the age flow's handlers and what they need.
type Pages struct {
	Flow *agehosted.Service
	// Branding shows the business's branding and notice (nil: none).
	Branding *branding.Service
	Logger   *slog.Logger
	// Dev is the server's --dev: cookies without Secure on plain http.
	Dev bool
}

func (ap *Pages) logger(r *http.Request) *slog.Logger { return request.Logger(ap.Logger, r) }

func (ap *Pages) writeError(w http.ResponseWriter, r *http.Request, err error) {
	request.WriteError(w, r, ap.Logger, err)
}

//go:embed pages/age.html
var agePageFS embed.FS

var ageTemplates = template.Must(template.Must(layout.New().ParseFS(hosted.CaptureFS, "pages/capture.html")).ParseFS(agePageFS, "pages/age.html"))

// ageAssets are the flow's stylesheet and scripts: the capture form's
// (hosted.Script) and the passkey ceremonies'.
var ageAssets = layout.NewAssets(layout.Stylesheet, hosted.Script, layout.PasskeyScript)

// Asset serves the flow's CSS and scripts from this origin.
func (ap *Pages) Asset(w http.ResponseWriter, r *http.Request) {
	if !ageAssets.Serve(w, r, r.PathValue("name")) {
		ap.writeError(w, r, request.ErrRouteNotFound)
	}
}

// ageFormLimit bounds the flow's small forms.
const ageFormLimit = 16 << 10

// ageReq is what every flow handler works out first.
type ageReq struct {
	lang     string
	explicit bool // ?lang= chose the language
	mount    *request.Mounted
	id       string
	request  age.AuthRequest
	visitor  agehosted.Visitor
	session  *webauth.Session
	// notice is a confirmation the account page shows; loginError and
	// loginEmail a refused login on it.
	notice, loginError, loginEmail string
}

// query carries an explicitly chosen language on to links.
func (a *ageReq) query() string {
	if a.explicit {
		return "?lang=" + a.lang
	}
	return ""
}

func (a *ageReq) path(suffix string) string {
	return a.mount.Prefix() + "/flow/" + url.PathEscape(a.id) + suffix
}

// ageRequest finds the flow's authorize request and the signed-in account.
// A request of the other environment, an unknown or an expired one is
// ErrNotFound.
func (ap *Pages) ageRequest(w http.ResponseWriter, r *http.Request) (*ageReq, error) {
	lang, explicit := layout.Lang(r)
	a := &ageReq{lang: lang, explicit: explicit, mount: request.MountOf(r.Context()), id: r.PathValue("id")}
	svc := ap.Flow
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

// FlowPage shows the flow: the account forms, the methods, a check under
// way, or, once the outcome is known, sends the person back to the
// integrator with the code (303).
func (ap *Pages) FlowPage(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageRequest(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	if outcome := r.URL.Query().Get("sandbox"); outcome != "" && a.mount.Environment == verifyd.EnvSandbox {
		// The sandbox shortcut for integrators' automated tests.
		to, err := ap.Flow.SandboxComplete(r.Context(), a.request, outcome)
		if err != nil {
			ap.agePageError(w, r, a, err)
			return
		}
		ageRedirect(w, r, to)
		return
	}
	st, err := ap.Flow.State(r.Context(), a.request, a.visitor)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	if m, ok := agehosted.OnlyMethod(st); ok {
		// One accepted method: no page with one button. This creates the
		// method's check once per flow (the next view shows its step).
		if st, _, err = ap.Flow.ChooseMethod(r.Context(), a.request, a.visitor, m); err != nil {
			ap.agePageError(w, r, a, err)
			return
		}
	}
	ap.ageShow(w, r, a, st, http.StatusOK, nil)
}

// ageShow renders a state, or finishes a flow whose outcome is known.
func (ap *Pages) ageShow(w http.ResponseWriter, r *http.Request, a *ageReq, st agehosted.State, status int, res *ageFormResult) {
	if st.Step == agehosted.StepDone {
		to, err := ap.Flow.Complete(r.Context(), st)
		if err != nil {
			ap.agePageError(w, r, a, err)
			return
		}
		ageRedirect(w, r, to)
		return
	}
	ap.renderAge(w, r, a, st, status, res)
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
func (ap *Pages) agePageError(w http.ResponseWriter, r *http.Request, a *ageReq, err error) {
	status, key := http.StatusInternalServerError, "age_error"
	switch {
	case errors.Is(err, age.ErrCompleted):
		status, key = http.StatusConflict, "age_finished"
	case verifyd.ErrorCodeOf(err) == verifyd.ENotFound:
		status, key = http.StatusNotFound, "age_not_found"
	default:
		ap.logger(r).ErrorContext(r.Context(), "age flow page", "err", err)
	}
	d := ap.ageData(w, r, a)
	d.NotFound, d.Message, d.Step = true, msg(a.lang, key), agehosted.Step("error_"+strconv.Itoa(status))
	// Every error page leads somewhere: back to the site when the request
	// names it, to the account page always (which works without a flow).
	d.SiteTo = siteOf(a.request.RedirectURI)
	if status == http.StatusInternalServerError && a.id != "" && a.request.ID != "" {
		d.RetryTo = a.path(a.query())
	}
	d.AccountTo = a.mount.Prefix() + "/account" + a.accountQuery()
	ap.writeAge(w, r, status, d)
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
	problems    []hosted.Problem // sign-up problems, or the capture form's
	form        *identity.HostedSubmission
}

// agePageData is what pages/age.html renders. It embeds the hosted page's
// data, whose fields the shared capture form reads.
type agePageData struct {
	hosted.PageData
	Step              agehosted.Step
	Poll              string
	FormCSRF          string
	SessionCSRF       string
	SignedInAs        string
	Relogin           bool
	LoginTo, SignupTo string
	LogoutTo          string
	ConsentTo         string
	BiometricTo       string
	BusinessName      string
	MethodTo          string
	ProviderTo        string
	CancelTo          string
	LoginError        string
	LoginEmail        string
	SignupEmail       string
	SignupProblems    []hosted.Problem
	SignupErr         map[string]string
	RuleText          string
	Methods           []ageOption
	Failed            bool
	ProviderTitle     string
	Choices           []ageOption
	CanCancel         bool
	// The account page (account.go) and the flow pages' link to it.
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
	// E-mail (mail.go): offered when a mailer is configured.
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

// T returns the text of key in the page's language, from the age pages'
// catalog (which holds the hosted page's).
func (d agePageData) T(key string, args ...any) string { return msg(d.Lang, key, args...) }

// PrivacyText is the note under the document method's submit button.
func (d agePageData) PrivacyText() string { return msg(d.Lang, "age_doc_privacy") }

// ageData fills what every flow page shows.
func (ap *Pages) ageData(w http.ResponseWriter, r *http.Request, a *ageReq) agePageData {
	d := agePageData{PageData: hosted.PageData{Lang: a.lang, PagePath: a.path(""), Query: a.query(),
		CSS:     a.mount.Prefix() + "/flow-assets/" + ageAssets.Name("hosted.css"),
		JS:      a.mount.Prefix() + "/flow-assets/" + ageAssets.Name("hosted.js"),
		Sandbox: a.mount.Environment == verifyd.EnvSandbox, JSText: map[string]string{}},
		redirectURI: a.request.RedirectURI,
		PasskeysOn:  ap.Flow.PasskeysOn(a.mount.Environment), PasskeyBase: a.mount.Prefix() + "/passkey",
		PasskeyJS: a.mount.Prefix() + "/flow-assets/" + ageAssets.Name("passkey.js"), Next: a.path(a.query()),
		MailOn: ap.Flow.MailOn()}
	if d.MailOn {
		req := a.mount.Prefix() + "/account/email-request"
		d.ResetLink, d.CodeLink = req+a.accountQuery("purpose", "reset"), req+a.accountQuery("purpose", "code")
		d.DeleteLink = req + a.accountQuery("purpose", "delete")
	}
	d.Langs = layout.LangLinks(a.lang, layout.QueryLink(d.PagePath))
	if a.request.BusinessID != "" {
		// The age flow keeps no photos after the decision, whatever the
		// business's retention for its identity verifications.
		immediately := 0
		d.Brand = hosted.Brand(r.Context(), ap.Branding, a.request.BusinessID, a.path(""), &immediately)
		if d.Brand != nil {
			d.Brand.Age = true
		}
	}
	return d
}

// Logo serves the logo of the flow's business.
func (ap *Pages) Logo(w http.ResponseWriter, r *http.Request) { ap.brandFile(w, r, hosted.ServeLogo) }

// BrandCSS serves the accent colour's stylesheet of the flow's business.
func (ap *Pages) BrandCSS(w http.ResponseWriter, r *http.Request) {
	ap.brandFile(w, r, hosted.ServeBrandCSS)
}

func (ap *Pages) brandFile(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request, *branding.Service, string) error) {
	m := request.MountOf(r.Context())
	req, err := ap.Flow.Request(r.Context(), m.Environment, r.PathValue("id"))
	if err == nil {
		err = serve(w, r, ap.Branding, req.BusinessID)
	}
	if err != nil {
		request.WriteError(w, r, ap.Logger, err)
	}
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

func (ap *Pages) writeAge(w http.ResponseWriter, r *http.Request, status int, d agePageData) {
	p := hosted.Headers
	p.CSP = ageCSP(d.redirectURI)
	if d.noReferrer {
		p.Referrer = "no-referrer"
	}
	if err := layout.Render(w, ageTemplates, "age.html", status, p, d); err != nil {
		ap.logger(r).ErrorContext(r.Context(), "render age flow page", "err", err)
	}
}

// renderAge renders the page of a flow state.
func (ap *Pages) renderAge(w http.ResponseWriter, r *http.Request, a *ageReq, st agehosted.State, status int, res *ageFormResult) {
	d := ap.ageData(w, r, a)
	env := a.mount.Environment
	formCSRF, err := ap.Flow.Sessions(env).FormToken(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	q := a.query()
	d.Step, d.FormCSRF = st.Step, formCSRF
	d.StatusURL = a.path("/status")
	d.LoginTo, d.SignupTo, d.LogoutTo = a.path("/login"+q), a.path("/signup"+q), a.path("/logout"+q)
	d.ConsentTo, d.BiometricTo = a.path("/consent"+q), a.path("/biometric"+q)
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
			if st.Declined {
				// Not a failed check: the person said no to face matching.
				d.Detail = msg(a.lang, "age_bio_declined")
			} else if st.FailedReason != "" {
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
		var hres *hosted.FormResult
		if res != nil {
			hres = &hosted.FormResult{Problems: res.problems, Form: res.form}
		}
		hosted.FillCaptureForm(&d.PageData, r, a.lang, ds, hres)
		d.Problems = nil
		if res != nil {
			d.Problems = res.problems
		}
		d.JSText = hosted.JSText(a.lang)
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
	ap.writeAge(w, r, status, d)
}

// ageStatusBody is the page's polling answer.
type ageStatusBody struct {
	Phase agehosted.Step `json:"phase"`
}

// FlowStatus answers the page's polling while a check is under way.
func (ap *Pages) FlowStatus(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageRequest(w, r)
	if err != nil {
		ap.writeError(w, r, err)
		return
	}
	st, err := ap.Flow.State(r.Context(), a.request, a.visitor)
	if err != nil {
		ap.writeError(w, r, err)
		return
	}
	request.WriteJSON(w, http.StatusOK, ageStatusBody{Phase: st.Step})
}

// ageForm reads a small form and checks that it comes from this origin and
// carries the right token: the session's (session forms) or the form
// cookie's (forms shown before sign-in). A refusal renders the page again
// with a message (403).
func (ap *Pages) ageForm(w http.ResponseWriter, r *http.Request, a *ageReq, session bool) bool {
	r.Body = http.MaxBytesReader(w, r.Body, ageFormLimit)
	if err := r.ParseForm(); err != nil {
		ap.ageRefuse(w, r, a, http.StatusBadRequest, "err_generic")
		return false
	}
	ok := layout.SameOrigin(r, a.mount)
	if session {
		ok = ok && a.session != nil && a.session.CheckCSRF(r)
	} else {
		ok = ok && ap.Flow.Sessions(a.mount.Environment).CheckFormToken(r)
	}
	if !ok {
		ap.ageRefuse(w, r, a, http.StatusForbidden, "err_csrf")
	}
	return ok
}

// ageRefuse shows the flow's current state with a message.
func (ap *Pages) ageRefuse(w http.ResponseWriter, r *http.Request, a *ageReq, status int, key string) {
	st, err := ap.Flow.State(r.Context(), a.request, a.visitor)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	if st.Step == agehosted.StepDone {
		ap.ageShow(w, r, a, st, status, nil)
		return
	}
	ap.renderAge(w, r, a, st, status, &ageFormResult{banner: msg(a.lang, key)})
}

// flowHandler wraps a handler that needs the flow's request.
func (ap *Pages) flowHandler(w http.ResponseWriter, r *http.Request) (*ageReq, bool) {
	a, err := ap.ageRequest(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return nil, false
	}
	return a, true
}

// SignUp creates an account from the flow's sign-up form and signs it in.
func (ap *Pages) SignUp(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok || !ap.ageForm(w, r, a, false) {
		return
	}
	svc, env := ap.Flow, a.mount.Environment
	email := r.PostFormValue("email")
	acct, err := svc.SignUp(r.Context(), env, email, r.PostFormValue("password"), r.PostFormValue("password_again"), request.ClientAddr(r))
	if err != nil {
		ap.ageAccountFail(w, r, a, err, &ageFormResult{signupEmail: email})
		return
	}
	if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age account created", "account", acct.ID, "environment", env)
	ap.sendConfirmation(r, a, acct)
	backToFlow(w, r, a)
}

// sendConfirmation e-mails a new account the link that confirms its
// address, when e-mail is configured. A failure is logged, not shown: the
// account works without it, and the account page sends it again.
func (ap *Pages) sendConfirmation(r *http.Request, a *ageReq, acct verifyd.AgeAccount) {
	if !ap.Flow.MailOn() {
		return
	}
	if err := ap.Flow.SendConfirmation(r.Context(), a.mount.Environment, a.lang, acct); err != nil {
		ap.logger(r).ErrorContext(r.Context(), "age e-mail", "purpose", "confirm", "err", err)
	}
}

// LogIn signs an account in from the flow's login form.
func (ap *Pages) LogIn(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok || !ap.ageForm(w, r, a, false) {
		return
	}
	svc, env := ap.Flow, a.mount.Environment
	email := r.PostFormValue("email")
	acct, err := svc.LogIn(r.Context(), env, email, r.PostFormValue("password"), request.ClientAddr(r))
	if err != nil {
		ap.ageAccountFail(w, r, a, err, &ageFormResult{loginEmail: email})
		return
	}
	if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age login", "account", acct.ID, "environment", env)
	backToFlow(w, r, a)
}

// ageAccountFail shows the account forms again with what went wrong:
// field problems (sign-up), the one login error, or the rate limit (429).
func (ap *Pages) ageAccountFail(w http.ResponseWriter, r *http.Request, a *ageReq, err error, res *ageFormResult) {
	var limited *agehosted.RateLimitedError
	var e *verifyd.Error
	status := http.StatusUnprocessableEntity
	switch {
	case errors.As(err, &limited):
		status = http.StatusTooManyRequests
		minutes := int((limited.RetryAfter + time.Minute - 1) / time.Minute)
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
		res.banner = msg(a.lang, "age_err_limited", minutes)
		ap.logger(r).WarnContext(r.Context(), "age login or sign-up rate limited")
	case errors.Is(err, agehosted.ErrBadLogin):
		status, res.loginError = http.StatusUnauthorized, msg(a.lang, "age_err_login")
	case errors.As(err, &e) && e.Code == verifyd.EInvalid:
		for _, f := range e.Fields {
			res.problems = append(res.problems, hosted.Problem{Field: f.Field, Problem: f.Problem,
				Message: msg(a.lang, "age_err_"+f.Field+"_"+f.Problem)})
		}
	default:
		ap.agePageError(w, r, a, err)
		return
	}
	// The visitor stays who they were (a failed login signs nobody out).
	st, stErr := ap.Flow.State(r.Context(), a.request, a.visitor)
	if stErr != nil {
		ap.agePageError(w, r, a, stErr)
		return
	}
	if st.Step != agehosted.StepAccount {
		// A signed-in visitor tried to create or open another account.
		st.Step = agehosted.StepAccount
	}
	ap.renderAge(w, r, a, st, status, res)
}

// LogOut ends the session.
func (ap *Pages) LogOut(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok || !ap.ageForm(w, r, a, true) {
		return
	}
	if err := ap.Flow.Sessions(a.mount.Environment).End(r.Context(), w, r); err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	backToFlow(w, r, a)
}

// Consent records the answer to "<business> asks whether you are 18 or
// older. Share?": yes goes on with the flow, no sends the person back at
// once with a code saying age_verified false (agehosted.Service.Consent).
func (ap *Pages) Consent(w http.ResponseWriter, r *http.Request) {
	a, share, ok := ap.yesNoForm(w, r, "share")
	if !ok {
		return
	}
	to, err := ap.Flow.Consent(r.Context(), a.request, a.visitor, share)
	if err != nil {
		ap.ageStepFail(w, r, a, agehosted.State{}, err, nil)
		return
	}
	if share {
		ap.logger(r).InfoContext(r.Context(), "age consent granted", "account", a.visitor.Account.ID, "business", a.request.BusinessID)
		backToFlow(w, r, a)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age consent declined", "account", a.visitor.Account.ID, "business", a.request.BusinessID)
	ageRedirect(w, r, to)
}

// yesNoForm reads a signed-in flow form whose field is answered "yes" or
// "no"; any other answer is refused with 422. ok is false when the answer
// has been written.
func (ap *Pages) yesNoForm(w http.ResponseWriter, r *http.Request, field string) (a *ageReq, yes, ok bool) {
	a, ok = ap.flowHandler(w, r)
	if !ok || !ap.ageForm(w, r, a, true) {
		return nil, false, false
	}
	switch r.PostFormValue(field) {
	case "yes":
		return a, true, true
	case "no":
		return a, false, true
	}
	ap.ageRefuse(w, r, a, http.StatusUnprocessableEntity, "err_generic")
	return nil, false, false
}

// Biometric records the answer to the document method's question "Do you
// agree to this processing of your face?" (consent=yes|no, the session's
// CSRF token): yes leads to the capture form, no back to the methods with
// why (agehosted.Service.BiometricConsent).
func (ap *Pages) Biometric(w http.ResponseWriter, r *http.Request) {
	a, yes, ok := ap.yesNoForm(w, r, "consent")
	if !ok {
		return
	}
	st, err := ap.Flow.BiometricConsent(r.Context(), a.request, a.visitor, yes)
	switch {
	case errors.Is(err, agehosted.ErrBusy):
		// Answered twice (two tabs, a double click): the page shows
		// where the flow stands.
	case err != nil:
		ap.ageStepFail(w, r, a, st, err, nil)
		return
	default:
		ap.logger(r).InfoContext(r.Context(), "age biometric consent", "account", a.visitor.Account.ID, "agreed", yes)
	}
	backToFlow(w, r, a)
}

// ageStepFail shows the flow again after a refused step: a method the
// country does not accept (422), a check already under way (409), no
// session (back to the account forms).
func (ap *Pages) ageStepFail(w http.ResponseWriter, r *http.Request, a *ageReq, st agehosted.State, err error, res *ageFormResult) {
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
	case errors.Is(err, agehosted.ErrNoBiometricConsent):
		// The page asks the question again, with why (409, as the
		// identity page answers a submission without consent).
		res.banner = msg(a.lang, "age_err_bio_first")
	case errors.Is(err, agehosted.ErrBusy):
		res.banner = msg(a.lang, "age_err_busy")
	case verifyd.ErrorCodeOf(err) == verifyd.EInvalid && st.Step == agehosted.StepDocument:
		status = http.StatusUnprocessableEntity
		res.banner = msg(a.lang, "errors_title")
		var e *verifyd.Error
		if errors.As(err, &e) {
			res.problems = nil
			for _, f := range e.Fields {
				res.problems = append(res.problems, hosted.Problem{Field: f.Field, Problem: f.Problem, Message: hosted.ProblemText(a.lang, f.Field, f.Problem)})
			}
		}
	case verifyd.ErrorCodeOf(err) == verifyd.EInvalid:
		status, res.banner = http.StatusUnprocessableEntity, msg(a.lang, "err_generic")
	default:
		ap.agePageError(w, r, a, err)
		return
	}
	if st.Step == "" {
		var stErr error
		if st, stErr = ap.Flow.State(r.Context(), a.request, a.visitor); stErr != nil {
			ap.agePageError(w, r, a, stErr)
			return
		}
	}
	ap.ageShow(w, r, a, st, status, res)
}

// ChooseMethod starts the method the person chose: a step on this page,
// or a real provider's own pages.
func (ap *Pages) ChooseMethod(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok || !ap.ageForm(w, r, a, true) {
		return
	}
	st, step, err := ap.Flow.ChooseMethod(r.Context(), a.request, a.visitor, verifyd.AgeMethod(r.PostFormValue("method")))
	if err != nil {
		ap.ageStepFail(w, r, a, st, err, nil)
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

// SubmitDocument accepts the document method's capture form (the
// identity hosted page's multipart form, streamed by hosted.ReadForm). The
// page's script sends the session's CSRF token as X-CSRF-Token; a plain
// form in the csrf field.
func (ap *Pages) SubmitDocument(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok {
		return
	}
	in, csrf, err := hosted.ReadForm(w, r)
	if err != nil {
		ap.ageDocumentFail(w, r, a, agehosted.State{}, err, nil)
		return
	}
	if sent := r.Header.Get(webauth.CSRFHeader); sent != "" {
		csrf = sent
	}
	if !layout.SameOrigin(r, a.mount) || a.session == nil || !hmac.Equal([]byte(csrf), []byte(a.session.CSRFToken())) {
		ap.ageDocumentFail(w, r, a, agehosted.State{}, hosted.ErrCSRF, nil)
		return
	}
	st, err := ap.Flow.SubmitDocument(r.Context(), a.request, a.visitor, in)
	if err != nil {
		ap.ageDocumentFail(w, r, a, st, err, &in)
		return
	}
	if hosted.WantsJSON(r) {
		request.WriteJSON(w, http.StatusAccepted, ageStatusBody{Phase: st.Step})
		return
	}
	backToFlow(w, r, a)
}

// ageDocumentFail answers a refused capture form: JSON for the script (as
// the identity page does), the page again for a plain form.
func (ap *Pages) ageDocumentFail(w http.ResponseWriter, r *http.Request, a *ageReq, st agehosted.State, err error, form *identity.HostedSubmission) {
	if !hosted.WantsJSON(r) {
		if errors.Is(err, hosted.ErrCSRF) {
			ap.ageRefuse(w, r, a, http.StatusForbidden, "err_csrf")
			return
		}
		switch code := verifyd.ErrorCodeOf(err); code {
		case verifyd.ETooLarge:
			ap.ageRefuse(w, r, a, request.StatusOf(code), "err_too_large")
			return
		case verifyd.EMalformed:
			ap.ageRefuse(w, r, a, request.StatusOf(code), "err_generic")
			return
		}
		ap.ageStepFail(w, r, a, st, err, &ageFormResult{form: form})
		return
	}
	code := verifyd.ErrorCodeOf(err)
	status, key := request.StatusOf(code), "err_generic"
	switch {
	case errors.Is(err, hosted.ErrCSRF), errors.Is(err, agehosted.ErrNotSignedIn), errors.Is(err, agehosted.ErrNoConsent):
		status, key = http.StatusForbidden, "err_csrf"
	case errors.Is(err, agehosted.ErrNoBiometricConsent):
		key = "age_err_bio_first"
	case code == verifyd.EConflict:
		key = "err_conflict"
	case code == verifyd.ETooLarge:
		key = "err_too_large"
	case code == verifyd.EInvalid:
		key = "errors_title"
	case code == verifyd.EInternal:
		ap.writeError(w, r, err)
		return
	}
	var problems []hosted.Problem
	var e *verifyd.Error
	if errors.As(err, &e) {
		for _, f := range e.Fields {
			problems = append(problems, hosted.Problem{Field: f.Field, Problem: f.Problem, Message: hosted.ProblemText(a.lang, f.Field, f.Problem)})
		}
	}
	request.WriteJSON(w, status, hosted.ErrorBody{Message: msg(a.lang, key), StatusCode: status, Errors: problems})
}

// ProviderAnswer records a simulation's outcome (the tester's choice).
func (ap *Pages) ProviderAnswer(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok || !ap.ageForm(w, r, a, true) {
		return
	}
	st, err := ap.Flow.FinishProvider(r.Context(), a.request, a.visitor, r.PathValue("proof"), r.PostForm, false)
	if err != nil {
		ap.ageStepFail(w, r, a, st, err, nil)
		return
	}
	backToFlow(w, r, a)
}

// ProviderReturn is where a real provider sends the person back; the
// provider authenticates its answer (Provider.Finish). Simulations answer
// by the form only.
func (ap *Pages) ProviderReturn(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok {
		return
	}
	st, err := ap.Flow.FinishProvider(r.Context(), a.request, a.visitor, r.PathValue("proof"), r.URL.Query(), true)
	if err != nil {
		ap.ageStepFail(w, r, a, st, err, nil)
		return
	}
	backToFlow(w, r, a)
}

// Cancel sends the person back without proof of age.
func (ap *Pages) Cancel(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok || !ap.ageForm(w, r, a, false) {
		return
	}
	to, err := ap.Flow.Cancel(r.Context(), a.request, a.visitor)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	ageRedirect(w, r, to)
}

// Sandbox is the sandbox panel: finish at once as an adult or a minor.
// The route exists only on the sandbox mount, and SandboxComplete refuses
// production requests.
func (ap *Pages) Sandbox(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok || !ap.ageForm(w, r, a, false) {
		return
	}
	to, err := ap.Flow.SandboxComplete(r.Context(), a.request, r.PostFormValue("outcome"))
	if err != nil {
		ap.ageStepFail(w, r, a, agehosted.State{}, err, nil)
		return
	}
	ageRedirect(w, r, to)
}

// Challenge is the identity page's liveness challenge (hosted.Pages.Challenge) for the age flow's document method
// (POST /flow/{id}/liveness-challenge with the session's CSRF token in
// X-CSRF-Token).
func (ap *Pages) Challenge(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.flowHandler(w, r)
	if !ok {
		return
	}
	sent := r.Header.Get(webauth.CSRFHeader)
	if !layout.SameOrigin(r, a.mount) || a.session == nil || sent == "" || !hmac.Equal([]byte(sent), []byte(a.session.CSRFToken())) {
		ap.ageDocumentFail(w, r, a, agehosted.State{}, hosted.ErrCSRF, nil)
		return
	}
	c, err := ap.Flow.DocumentChallenge(r.Context(), a.request, a.visitor)
	if err != nil {
		ap.ageDocumentFail(w, r, a, agehosted.State{}, err, nil)
		return
	}
	request.WriteJSON(w, http.StatusCreated, hosted.NewChallengeBody(a.lang, c))
}
