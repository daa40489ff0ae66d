package httpapi

import (
	"net/http"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/verifyd/verifyd"
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
		// (docs/hosted-flow.md).
		mux.Handle("/verify/{token}", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(s.hostedPage),
		}))
		mux.Handle("/verify/{token}/submission", s.methods(map[string]http.Handler{
			http.MethodPost: http.HandlerFunc(s.hostedSubmit),
		}))
		mux.Handle("/verify/{token}/liveness-challenge", s.methods(map[string]http.Handler{
			http.MethodPost: http.HandlerFunc(s.hostedChallenge), // liveness.go
		}))
		mux.Handle("/verify/{token}/status", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(s.hostedStatus),
		}))
		mux.Handle("/verify/{token}/handoff.png", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(s.hostedQR), // handoff.go
		}))
		if m.Environment == verifyd.EnvSandbox {
			mux.Handle("/verify/{token}/sandbox", s.methods(map[string]http.Handler{
				http.MethodPost: http.HandlerFunc(s.hostedSandbox),
			}))
		}
		mux.Handle("/verify-assets/{name}", s.methods(map[string]http.Handler{
			http.MethodGet: http.HandlerFunc(s.hostedAssetHandler),
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
		// The hosted flow A1 sends the person to (age_pages.go): /flow/{id}
		// and its forms, /flow-assets/{name}, and the account page
		// /account with POST /account/delete (age_account.go).
		s.ageFlowRoutes(mux, m)
	}

	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, request.ErrRouteNotFound)
	}))
	return mux
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
	if s.deps.Console != nil {
		// The review console, with its own routes below.
		console := s.consoleHandler(s.consoleRoutes())
		mux.Handle("/console", console)
		mux.Handle("/console/", console)
	}
	if d := s.deps.Dashboard; d != nil {
		// The business dashboard, with its own routes below.
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
	mux.HandleFunc("GET /dashboard/audit", d.Member(dashboard.ViewAudit, d.Audit))
	mux.HandleFunc("GET /dashboard/static/{file}", d.Static)
	mux.HandleFunc("/dashboard/", d.NotFound)
	return mux
}

// consoleRoutes are the review console's pages (console.go), at the root of
// the listener next to the operational endpoints. Pages need an operator's
// session (otherwise they redirect to the login page; images answer 403),
// and every POST checks the session's CSRF token.
func (s *Server) consoleRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /console", s.operatorPage(s.consoleQueue))
	mux.HandleFunc("GET /console/{$}", s.consoleRedirectHome)
	mux.HandleFunc("GET /console/login", s.consoleLoginForm)
	mux.HandleFunc("POST /console/login", s.consoleLogin)
	mux.HandleFunc("POST /console/logout", s.operatorPage(s.consoleLogout))
	mux.HandleFunc("GET /console/verifications/{id}", s.operatorPage(s.consoleItem))
	mux.HandleFunc("POST /console/verifications/{id}/decision", s.operatorPage(s.consoleDecide))
	mux.HandleFunc("GET /console/verifications/{id}/images/{kind}", s.operatorImage(s.consoleImage))
	mux.HandleFunc("GET /console/static/{file}", s.consoleStatic)
	mux.HandleFunc("/console/", s.consoleNotFound)
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
