package agepages

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/web/layout"
	"github.com/verifyd/verifyd/webauth"
)

// The age account page at {age base URL}/account: a signed-in person
// deletes their account (the right to erasure, docs/age.md). It is not
// tied to an authorize request, so it works after the flow's request has
// expired; the flow pages link to it with ?flow={id} so that it can lead
// back. Deleting asks for the password again (the login's limits apply),
// needs the session's CSRF token and this origin, and ends with the person
// signed out and a confirmation (303 to /account?deleted=1).

// Steps of the account page (data-phase on <main>).
const (
	ageStepAccountDelete  agehosted.Step = "account_delete"
	ageStepAccountDeleted agehosted.Step = "account_deleted"
	ageStepSignedOut      agehosted.Step = "account_signed_out"
)

// ageFlowID is a flow handle as A1 makes them (age.AuthRequest.Flow: af_
// and a sealed request in base64url); anything else in ?flow= is ignored,
// so the back link only ever leads to a flow page here.
// (age.Service.AuthRequest bounds the length).
var ageFlowID = regexp.MustCompile(`^af_[A-Za-z0-9_-]+$`)

// ageAccountReq reads the language, the flow to go back to and the
// signed-in account. A session whose account is gone is ended.
func (ap *Pages) ageAccountReq(w http.ResponseWriter, r *http.Request) (*ageReq, error) {
	lang, explicit := layout.Lang(r)
	a := &ageReq{lang: lang, explicit: explicit, mount: request.MountOf(r.Context())}
	if id := r.URL.Query().Get("flow"); len(id) <= 1<<14 && ageFlowID.MatchString(id) {
		a.id = id
	}
	svc, env := ap.Flow, a.mount.Environment
	sess, err := svc.Sessions(env).Get(r.Context(), r)
	if errors.Is(err, webauth.ErrNoSession) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	acct, err := svc.Account(r.Context(), env, sess.Subject)
	if errors.Is(err, verifyd.ErrNotFound) {
		return a, svc.Sessions(env).End(r.Context(), w, r)
	}
	if err != nil {
		return a, err
	}
	a.session, a.visitor = &sess, agehosted.Visitor{Account: &acct, SessionStart: sess.CreatedAt}
	return a, nil
}

// accountQuery is the account page's query: the language when chosen, the
// flow to go back to, and extra parameters.
func (a *ageReq) accountQuery(extra ...string) string {
	q := url.Values{}
	if a.explicit {
		q.Set("lang", a.lang)
	}
	if a.id != "" {
		q.Set("flow", a.id)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// accountLink is the flow pages' link to the account page.
func (a *ageReq) accountLink() string {
	return a.mount.Prefix() + "/account" + a.accountQuery()
}

// renderAgeAccount renders the account page in one of its steps.
func (ap *Pages) renderAgeAccount(w http.ResponseWriter, r *http.Request, a *ageReq, step agehosted.Step, status int, banner, deleteErr string) {
	d := ap.ageData(w, r, a)
	page := a.mount.Prefix() + "/account"
	d.PagePath, d.Query = page, a.accountQuery()
	d.Langs = layout.LangLinks(a.lang, func(lang string) string {
		lr := *a
		lr.lang, lr.explicit = lang, true
		return page + lr.accountQuery()
	})
	d.Step, d.Banner, d.DeleteError, d.Notice = step, banner, deleteErr, a.notice
	d.DeleteTo = page + "/delete" + a.accountQuery()
	if a.id != "" {
		d.BackTo = a.path(a.query())
	}
	d.Next = page + a.accountQuery()
	if step == ageStepSignedOut || (step == ageStepAccountDelete && d.PasskeysOn) {
		// Signed out, the page logs in: deleting or managing an account
		// needs no site's flow. Signed in, a passkey login confirms a
		// passkey-only account's deletion.
		tok, err := ap.Flow.Sessions(a.mount.Environment).FormToken(w, r)
		if err != nil {
			ap.agePageError(w, r, a, err)
			return
		}
		d.FormCSRF, d.LoginTo, d.LoginError, d.LoginEmail = tok, page+"/login"+a.accountQuery(), a.loginError, a.loginEmail
	}
	if a.session != nil && step == ageStepAccountDelete {
		d.SessionCSRF = a.session.CSRFToken()
		d.AccountEmail = a.visitor.Account.Email
		consents, err := ap.Flow.Consents(r.Context(), a.mount.Environment, a.visitor.Account.ID)
		if err != nil {
			ap.agePageError(w, r, a, err)
			return
		}
		d.ShowConsents, d.RevokeTo = true, page+"/consents/revoke"+a.accountQuery()
		keys, err := ap.Flow.Passkeys(r.Context(), a.mount.Environment, a.visitor.Account.ID)
		if err != nil {
			ap.agePageError(w, r, a, err)
			return
		}
		d.Passkeys, d.PasswordLess = len(keys), a.visitor.Account.PasswordHash == ""
		d.EmailConfirmed = a.visitor.Account.EmailConfirmedAt != nil
		d.ConfirmRequestTo = page + "/confirm-request" + a.accountQuery()
		d.NeedsReauth = d.PasswordLess && !ap.Flow.RecentLogin(a.visitor.SessionStart)
		for _, c := range consents {
			d.Consents = append(d.Consents, ageConsentRow{BusinessID: c.BusinessID, Name: c.BusinessName,
				Since: msg(a.lang, "age_consent_since", c.GrantedAt.UTC().Format("2006-01-02")),
				Stop:  msg(a.lang, "age_consent_stop", c.BusinessName)})
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	ap.writeAge(w, r, status, d)
}

// AccountPage shows the deletion form to a signed-in person, the
// confirmation after a deletion, or how to reach the page when signed out.
func (ap *Pages) AccountPage(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	switch {
	case a.session != nil:
		ap.renderAgeAccount(w, r, a, ageStepAccountDelete, http.StatusOK, "", "")
	case r.URL.Query().Get("deleted") == "1":
		ap.renderAgeAccount(w, r, a, ageStepAccountDeleted, http.StatusOK, "", "")
	default:
		ap.renderAgeAccount(w, r, a, ageStepSignedOut, http.StatusOK, "", "")
	}
}

// DeleteAccount deletes the signed-in account after checking the
// session's CSRF token, the origin and the password.
func (ap *Pages) DeleteAccount(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, ageFormLimit)
	if err := r.ParseForm(); err != nil {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusBadRequest, msg(a.lang, "err_generic"), "")
		return
	}
	if !layout.SameOrigin(r, a.mount) || a.session == nil || !a.session.CheckCSRF(r) {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusForbidden, msg(a.lang, "err_csrf"), "")
		return
	}
	svc, env := ap.Flow, a.mount.Environment
	gone, err := svc.DeleteAccount(r.Context(), env, *a.visitor.Account, r.PostFormValue("password"), request.ClientAddr(r),
		a.visitor.SessionStart)
	var limited *agehosted.RateLimitedError
	switch {
	case errors.As(err, &limited):
		minutes := int((limited.RetryAfter + time.Minute - 1) / time.Minute)
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
		ap.logger(r).WarnContext(r.Context(), "age account deletion rate limited")
		ap.renderAgeAccount(w, r, a, ageStepAccountDelete, http.StatusTooManyRequests, msg(a.lang, "age_err_limited", minutes), "")
		return
	case errors.Is(err, agehosted.ErrBadLogin):
		ap.renderAgeAccount(w, r, a, ageStepAccountDelete, http.StatusUnauthorized, "", msg(a.lang, "age_err_delete_password"))
		return
	case errors.Is(err, agehosted.ErrReauth):
		ap.renderAgeAccount(w, r, a, ageStepAccountDelete, http.StatusUnauthorized, "", msg(a.lang, "age_err_delete_reauth"))
		return
	case err != nil:
		ap.agePageError(w, r, a, err)
		return
	}
	// The store deleted the session rows; this clears the cookie.
	if err := svc.Sessions(env).End(r.Context(), w, r); err != nil {
		ap.logger(r).ErrorContext(r.Context(), "end the deleted age account's session", "err", err)
	}
	ap.logger(r).InfoContext(r.Context(), "age account deleted", "account", a.visitor.Account.ID, "environment", env,
		"sessions", gone.Sessions, "proofs", gone.Proofs, "revoked_tokens", gone.RevokedTokens,
		"expired_codes", gone.ExpiredCodes, "verifications", len(gone.Verifications), "ended", gone.Ended)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, a.mount.Prefix()+"/account"+a.accountQuery("deleted", "1"), http.StatusSeeOther)
}

// RevokeConsent stops sharing with a business (a consent of the
// signed-in account), then shows the account page again with a notice.
func (ap *Pages) RevokeConsent(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, ageFormLimit)
	if err := r.ParseForm(); err != nil {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusBadRequest, msg(a.lang, "err_generic"), "")
		return
	}
	if !layout.SameOrigin(r, a.mount) || a.session == nil || !a.session.CheckCSRF(r) {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusForbidden, msg(a.lang, "err_csrf"), "")
		return
	}
	svc, env, biz := ap.Flow, a.mount.Environment, r.PostFormValue("business")
	consents, err := svc.Consents(r.Context(), env, a.visitor.Account.ID)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	name := ""
	for _, c := range consents {
		if c.BusinessID == biz {
			name = c.BusinessName
		}
	}
	if err := svc.RevokeConsent(r.Context(), env, a.visitor.Account.ID, biz); errors.Is(err, verifyd.ErrNotFound) {
		// Revoked meanwhile (another tab): the page shows what is left.
		ap.renderAgeAccount(w, r, a, ageStepAccountDelete, http.StatusOK, "", "")
		return
	} else if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age consent revoked", "account", a.visitor.Account.ID, "business", biz)
	ap.renderAgeAccountNotice(w, r, a, msg(a.lang, "age_consent_stopped", name))
}

// AccountLogIn logs in from the account page (the flow's login, with
// its limits), then shows the signed-in account page.
func (ap *Pages) AccountLogIn(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, ageFormLimit)
	if err := r.ParseForm(); err != nil {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusBadRequest, msg(a.lang, "err_generic"), "")
		return
	}
	svc, env := ap.Flow, a.mount.Environment
	if !layout.SameOrigin(r, a.mount) || !svc.Sessions(env).CheckFormToken(r) {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusForbidden, msg(a.lang, "err_csrf"), "")
		return
	}
	email := r.PostFormValue("email")
	acct, err := svc.LogIn(r.Context(), env, email, r.PostFormValue("password"), request.ClientAddr(r))
	var limited *agehosted.RateLimitedError
	switch {
	case errors.As(err, &limited):
		minutes := int((limited.RetryAfter + time.Minute - 1) / time.Minute)
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
		ap.logger(r).WarnContext(r.Context(), "age login rate limited")
		a.loginEmail = email
		ap.renderAgeAccount(w, r, a, ageStepSignedOut, http.StatusTooManyRequests, msg(a.lang, "age_err_limited", minutes), "")
		return
	case errors.Is(err, agehosted.ErrBadLogin):
		a.loginEmail, a.loginError = email, msg(a.lang, "age_err_login")
		ap.renderAgeAccount(w, r, a, ageStepSignedOut, http.StatusUnauthorized, "", "")
		return
	case err != nil:
		ap.agePageError(w, r, a, err)
		return
	}
	if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age login", "account", acct.ID, "environment", env, "from", "account page")
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, a.mount.Prefix()+"/account"+a.accountQuery(), http.StatusSeeOther)
}

// renderAgeAccountNotice shows the signed-in account page with a notice.
func (ap *Pages) renderAgeAccountNotice(w http.ResponseWriter, r *http.Request, a *ageReq, notice string) {
	a.notice = notice
	ap.renderAgeAccount(w, r, a, ageStepAccountDelete, http.StatusOK, "", "")
}

// accountStep is the account page's step for who is signed in.
func (ap *Pages) accountStep(a *ageReq) agehosted.Step {
	if a.session != nil {
		return ageStepAccountDelete
	}
	return ageStepSignedOut
}
