package httpapi

import (
	"net/http"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/web/dashpages"
)

// mountRoutes lists every route served under one mount. Paths are SPEC.md's,
// relative to the mount's base URL. Each path is registered once with the
// methods it accepts, so a wrong method gets SPEC's JSON 405 body rather
// than net/http's plain-text one.
func (s *Server) mountRoutes(m Mount) *http.ServeMux {
	mux := http.NewServeMux()
	max, maxSubmission := s.cfg.MaxBodyBytes, s.cfg.MaxSubmissionBytes

	// C. Allowed redirect URLs, on both interfaces.
	redirectAuth := authOpts{unknownKey: errInvalidAuth, maxBody: max}
	mux.Handle("/v1/business/allowed-redirects", s.methods(map[string]http.Handler{
		http.MethodGet:    s.hmacAuth(redirectAuth, s.getRedirects),
		http.MethodPatch:  s.hmacAuth(redirectAuth, s.addRedirects),
		http.MethodPut:    s.hmacAuth(redirectAuth, s.replaceRedirects),
		http.MethodDelete: s.hmacAuth(redirectAuth, s.removeRedirects),
	}))

	switch m.Interface {
	case verifyd.InterfaceIdentity:
		// B. Identity verification.
		identityAuth := authOpts{unknownKey: errInvalidClient, maxBody: max}
		submissionAuth := authOpts{unknownKey: errInvalidClient, maxBody: maxSubmission}
		mux.Handle("/api/v1/identity-verification", s.methods(map[string]http.Handler{
			http.MethodPost: s.hmacAuth(identityAuth, s.createVerification), // B1
		}))
		mux.Handle("/api/v1/identity-verification/selfie-document-validation", s.methods(map[string]http.Handler{
			http.MethodPost: s.hmacAuth(submissionAuth, s.submitVerification), // B2
		}))
		mux.Handle("/api/v1/identity-verification/{id}", s.methods(map[string]http.Handler{
			http.MethodGet: s.hmacAuth(identityAuth, s.getVerification), // B3
		}))
		// Redaction (identity.go, docs/api.md "Retention and redaction").
		mux.Handle("/api/v1/identity-verification/{id}/redact", s.methods(map[string]http.Handler{
			http.MethodPost: s.hmacAuth(identityAuth, s.redactVerification),
		}))
		if m.Environment == verifyd.EnvSandbox {
			// Sandbox controls: drive a verification through its lifecycle.
			mux.Handle("/api/v1/sandbox/identity-verification/{id}/simulate", s.methods(map[string]http.Handler{
				http.MethodPost: s.hmacAuth(identityAuth, s.simulate),
			}))
			mux.Handle("/api/v1/sandbox/identity-verification/{id}/advance-time", s.methods(map[string]http.Handler{
				http.MethodPost: s.hmacAuth(identityAuth, s.advanceTime),
			}))
		}
		// The hosted page a B1 redirect_uri points at, and what it calls
		// (web/hosted, docs/hosted-flow.md).
		h := s.hosted
		mux.Handle("/verify/{token}", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(h.Page),
		}))
		mux.Handle("/verify/{token}/submission", s.methods(map[string]http.Handler{
			http.MethodPost: http.HandlerFunc(h.Submit),
		}))
		mux.Handle("/verify/{token}/liveness-challenge", s.methods(map[string]http.Handler{
			http.MethodPost: http.HandlerFunc(h.Challenge),
		}))
		mux.Handle("/verify/{token}/consent", s.methods(map[string]http.Handler{
			http.MethodPost: http.HandlerFunc(h.Consent),
		}))
		mux.Handle("/verify/{token}/logo", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(h.Logo),
		}))
		mux.Handle("/verify/{token}/brand.css", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(h.BrandCSS),
		}))
		mux.Handle("/verify/{token}/status", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(h.Status),
		}))
		mux.Handle("/verify/{token}/handoff.png", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(h.QR),
		}))
		if m.Environment == verifyd.EnvSandbox {
			mux.Handle("/verify/{token}/sandbox", s.methods(map[string]http.Handler{
				http.MethodPost: http.HandlerFunc(h.Sandbox),
			}))
		}
		mux.Handle("/verify-assets/{name}", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(h.Asset),
		}))
	case verifyd.InterfaceAge:
		// A. Age verification, the OAuth side (age.go, docs/age.md). A1
		// redirects to the hosted flow at /flow/{id}. /authorize and
		// /token are the same handlers at the paths VerifyMy's PHP age
		// client (verifymyage-oauth) calls (docs/integrations.md).
		authorize := s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(s.ageAuthorize), // A1
		})
		token := s.methods(map[string]http.Handler{
			http.MethodPost: http.HandlerFunc(s.ageToken), // A2
		})
		mux.Handle("/oauth/authorize", authorize)
		mux.Handle("/authorize", authorize)
		mux.Handle("/oauth/token", token)
		mux.Handle("/token", token)
		mux.Handle("/users/me", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(s.ageUser), // A3
		}))
		// RFC 8414 metadata, here and (dispatch, wellKnownAlias) at the
		// path RFC 8414 §3.1 derives from the issuer.
		mux.Handle(wellKnownOAuth, s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(s.ageMetadata),
		}))
		// The hosted flow A1 sends the person to (web/agepages): /flow/{id}
		// and its forms, /flow-assets/{name}, the account page /account,
		// its e-mail pages and the passkey ceremonies.
		if s.age != nil {
			s.ageFlowRoutes(mux, m)
		}
	}

	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, request.ErrRouteNotFound)
	}))
	return mux
}

// ageFlowRoutes are the age flow's pages on an age mount (web/agepages,
// docs/age.md).
func (s *Server) ageFlowRoutes(mux *http.ServeMux, m Mount) {
	a := s.age
	get := func(h http.HandlerFunc) http.Handler { return s.methods(map[string]http.Handler{http.MethodGet: h}) }
	post := func(h http.HandlerFunc) http.Handler { return s.methods(map[string]http.Handler{http.MethodPost: h}) }
	mux.Handle("/flow/{id}", get(a.FlowPage))
	mux.Handle("/flow/{id}/status", get(a.FlowStatus))
	mux.Handle("/flow/{id}/signup", post(a.SignUp))
	mux.Handle("/flow/{id}/login", post(a.LogIn))
	mux.Handle("/flow/{id}/logout", post(a.LogOut))
	mux.Handle("/flow/{id}/consent", post(a.Consent))
	mux.Handle("/flow/{id}/logo", get(a.Logo))
	mux.Handle("/flow/{id}/brand.css", get(a.BrandCSS))
	mux.Handle("/flow/{id}/method", post(a.ChooseMethod))
	mux.Handle("/flow/{id}/biometric", post(a.Biometric))
	mux.Handle("/flow/{id}/document", post(a.SubmitDocument))
	mux.Handle("/flow/{id}/liveness-challenge", post(a.Challenge))
	mux.Handle("/flow/{id}/provider/{proof}", s.methods(map[string]http.Handler{
		http.MethodPost: http.HandlerFunc(a.ProviderAnswer), // a simulation's form
		http.MethodGet:  http.HandlerFunc(a.ProviderReturn), // a real provider sends the person back
	}))
	mux.Handle("/flow/{id}/cancel", post(a.Cancel))
	if m.Environment == verifyd.EnvSandbox {
		mux.Handle("/flow/{id}/sandbox", post(a.Sandbox))
	}
	mux.Handle("/flow-assets/{name}", get(a.Asset))

	// The account page: not tied to a flow, so it works after the flow's
	// request has expired.
	mux.Handle("/account", get(a.AccountPage))
	mux.Handle("/account/delete", post(a.DeleteAccount))
	mux.Handle("/account/login", post(a.AccountLogIn))
	mux.Handle("/account/consents/revoke", post(a.RevokeConsent))

	// E-mail pages, only when a mailer is configured.
	if s.deps.AgeFlow.MailOn() {
		mux.Handle("/account/email-request", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(a.MailRequestPage), http.MethodPost: http.HandlerFunc(a.MailRequest)}))
		mux.Handle("/account/code", post(a.CodeLogIn))
		mux.Handle("/account/confirm-request", post(a.ConfirmRequest))
		mux.Handle("/account/email/{purpose}", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(a.MailLinkPage), http.MethodPost: http.HandlerFunc(a.MailLinkUse)}))
	}

	// The passkey ceremonies, two posts each.
	mux.Handle("/passkey/signup/begin", post(a.PasskeySignUpBegin))
	mux.Handle("/passkey/signup/finish", post(a.PasskeySignUpFinish))
	mux.Handle("/passkey/login/begin", post(a.PasskeyLogInBegin))
	mux.Handle("/passkey/login/finish", post(a.PasskeyLogInFinish))
	mux.Handle("/passkey/add/begin", post(a.PasskeyAddBegin))
	mux.Handle("/passkey/add/finish", post(a.PasskeyAddFinish))
}

// wellKnownOAuth is RFC 8414's well-known suffix.
const wellKnownOAuth = "/.well-known/oauth-authorization-server"

// wellKnownAlias maps RFC 8414 §3.1's metadata URL of an issuer with a
// path, /.well-known/oauth-authorization-server/sandbox/age, to the path
// the mount serves, /sandbox/age/.well-known/oauth-authorization-server
// (both are in use: openid-client's discovery with algorithm "oauth2"
// builds the first, other clients append to the base URL). ok is false
// for any other path.
func wellKnownAlias(path string) (mountPath string, ok bool) {
	issuerPath, ok := strings.CutPrefix(path, wellKnownOAuth)
	if !ok || !strings.HasPrefix(issuerPath, "/") || strings.HasSuffix(issuerPath, "/") {
		return "", false
	}
	return issuerPath + wellKnownOAuth, true
}

// opsRoutes are the operational endpoints, outside every mount.
func (s *Server) opsRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	if s.deps.Registry != nil && (s.cfg.Dev || s.cfg.MetricsToken != "") {
		mux.Handle("GET /metrics", s.metricsGuard(promhttp.HandlerFor(s.deps.Registry, promhttp.HandlerOpts{})))
	}
	if s.console != nil {
		// The review console (web/consolepage), with its own routes below.
		console := s.console.Protect(s.consoleRoutes())
		mux.Handle("/console", console)
		mux.Handle("/console/", console)
	}
	if d := s.dashboard; d != nil {
		// The business dashboard (web/dashpages), with its own routes below.
		dashboard := d.Handler(dashboardRoutes(d))
		mux.Handle("/dashboard", dashboard)
		mux.Handle("/dashboard/", dashboard)
	}
	return mux
}

// dashboardRoutes are the business dashboard's pages (web/dashpages), at
// the root of the listener next to the console. Pages need a business
// user's session (otherwise they redirect to the login page) and, where
// named, a permission of the user's role (otherwise 403); every POST
// checks the session's CSRF token, or before sign-in the form token.
func dashboardRoutes(d *dashpages.Pages) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /dashboard", d.Member("", d.Home))
	mux.HandleFunc("GET /dashboard/{$}", d.Member("", d.Home))
	mux.HandleFunc("GET /dashboard/login", d.LoginForm)
	mux.HandleFunc("POST /dashboard/login", d.LogIn)
	mux.HandleFunc("POST /dashboard/logout", d.Member("", d.LogOut))
	mux.HandleFunc("GET /dashboard/invitations/{token}", d.InvitationForm)
	mux.HandleFunc("POST /dashboard/invitations/{token}", d.AcceptInvitation)
	mux.HandleFunc("POST /dashboard/invitations/{id}/withdraw", d.Member(dashboard.ManageUsers, d.WithdrawInvitation))
	mux.HandleFunc("GET /dashboard/signup", d.SignUpForm)
	mux.HandleFunc("POST /dashboard/signup", d.SignUp)
	mux.HandleFunc("GET /dashboard/keys", d.Member("", d.Keys))
	mux.HandleFunc("POST /dashboard/keys", d.Member(dashboard.ManageKeys, d.CreateKey))
	mux.HandleFunc("POST /dashboard/keys/revoke", d.Member(dashboard.ManageKeys, d.RevokeKey))
	mux.HandleFunc("GET /dashboard/redirects", d.Member("", d.Redirects))
	mux.HandleFunc("POST /dashboard/redirects/add", d.Member(dashboard.ManageRedirects, d.AddRedirect))
	mux.HandleFunc("POST /dashboard/redirects/remove", d.Member(dashboard.ManageRedirects, d.RemoveRedirect))
	mux.HandleFunc("GET /dashboard/settings", d.Member("", d.Settings))
	mux.HandleFunc("POST /dashboard/settings", d.Member(dashboard.ManageSettings, d.SaveSettings))
	mux.HandleFunc("GET /dashboard/users", d.Member(dashboard.ManageUsers, d.Users))
	mux.HandleFunc("POST /dashboard/users/invite", d.Member(dashboard.ManageUsers, d.InviteUser))
	mux.HandleFunc("POST /dashboard/users/{id}/remove", d.Member(dashboard.ManageUsers, d.RemoveUser))
	mux.HandleFunc("POST /dashboard/users/{id}/role", d.Member(dashboard.ManageUsers, d.SetRole))
	mux.HandleFunc("GET /dashboard/audit", d.Member(dashboard.ViewAudit, d.Audit))
	mux.HandleFunc("GET /dashboard/security", d.Member("", d.Security))
	mux.HandleFunc("POST /dashboard/passkeys/add/begin", d.Member("", d.PasskeyAddBegin))
	mux.HandleFunc("POST /dashboard/passkeys/add/finish", d.Member("", d.PasskeyAddFinish))
	mux.HandleFunc("POST /dashboard/passkeys/{id}/remove", d.Member("", d.RemovePasskey))
	mux.HandleFunc("POST /dashboard/passkeys/login/begin", d.PasskeyLogInBegin)
	mux.HandleFunc("POST /dashboard/passkeys/login/finish", d.PasskeyLogInFinish)
	// Verifications, webhooks and branding (verifications.go, webhooks.go,
	// branding.go).
	mux.HandleFunc("GET /dashboard/verifications", d.Member("", d.Verifications))
	mux.HandleFunc("GET /dashboard/verifications/{id}", d.Member("", d.Verification))
	mux.HandleFunc("GET /dashboard/verifications/{id}/images/{kind}", d.Member(dashboard.ViewImages, d.Image))
	mux.HandleFunc("GET /dashboard/verifications/{id}/redact", d.Member(dashboard.Redact, d.RedactForm))
	mux.HandleFunc("POST /dashboard/verifications/{id}/redact", d.Member(dashboard.Redact, d.Redact))
	mux.HandleFunc("GET /dashboard/webhooks", d.Member("", d.Webhooks))
	mux.HandleFunc("POST /dashboard/webhooks/{id}/resend", d.Member(dashboard.ManageWebhooks, d.ResendWebhook))
	mux.HandleFunc("POST /dashboard/webhooks/test", d.Member(dashboard.ManageWebhooks, d.TestWebhook))
	mux.HandleFunc("GET /dashboard/branding", d.Member("", d.Branding))
	mux.HandleFunc("POST /dashboard/branding", d.Upload(dashboard.ManageSettings, branding.MaxLogoBytes, d.SaveBranding))
	mux.HandleFunc("GET /dashboard/branding/logo", d.Member("", d.Logo))
	mux.HandleFunc("GET /dashboard/static/{file}", d.Static)
	mux.HandleFunc("/dashboard/", d.NotFound)
	return mux
}

// consoleRoutes are the review console's pages (web/consolepage), at the
// root of the listener next to the operational endpoints. Pages need an
// operator's session (otherwise they redirect to the login page; images
// answer 403), and every POST checks the session's CSRF token.
func (s *Server) consoleRoutes() *http.ServeMux {
	c := s.console
	mux := http.NewServeMux()
	mux.HandleFunc("GET /console", c.OperatorPage(c.Queue))
	mux.HandleFunc("GET /console/{$}", c.RedirectHome)
	mux.HandleFunc("GET /console/login", c.LoginForm)
	mux.HandleFunc("POST /console/login", c.Login)
	mux.HandleFunc("POST /console/logout", c.OperatorPage(c.Logout))
	mux.HandleFunc("GET /console/verifications/{id}", c.OperatorPage(c.Item))
	mux.HandleFunc("POST /console/verifications/{id}/decision", c.OperatorPage(c.Decide))
	mux.HandleFunc("GET /console/verifications/{id}/images/{kind}", c.OperatorImage(c.Image))
	mux.HandleFunc("GET /console/static/{file}", c.Static)
	mux.HandleFunc("/console/", c.NotFound)
	return mux
}

// methods dispatches on the request method and answers others with 405 and
// an Allow header.
func (s *Server) methods(byMethod map[string]http.Handler) http.Handler {
	allowed := make([]string, 0, len(byMethod))
	for m := range byMethod {
		allowed = append(allowed, m)
	}
	sort.Strings(allowed)
	allow := strings.Join(allowed, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := byMethod[r.Method]; ok {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Allow", allow)
		s.writeError(w, r, request.ErrMethodNotAllowed)
	})
}
