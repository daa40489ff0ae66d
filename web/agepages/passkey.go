package agepages

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/web/hosted"
	"github.com/verifyd/verifyd/web/layout"
)

// Passkeys on the age pages (agehosted/passkey.go, docs/age.md). The
// page's script (pages/passkey.js) runs each ceremony in two posts: begin
// answers the options for navigator.credentials.create or .get and sets a
// short-lived cookie holding the sealed ceremony; finish sends the
// browser's answer and, for a sign-up or a login, starts the session. The
// forms' rules stay: this origin only, the form token before sign-in
// (sign-up, login) and the session's token after (adding a passkey), both
// in X-CSRF-Token.

// agePasskeyLimit bounds a ceremony's JSON (an attestation is a few KiB).
const agePasskeyLimit = 64 << 10

func (ap *Pages) passkeyCookie(a *ageReq) string {
	if a.mount.Environment == verifyd.EnvSandbox {
		return "verifyd_age_passkey_sandbox"
	}
	return "verifyd_age_passkey"
}

func (ap *Pages) setPasskeyCookie(w http.ResponseWriter, a *ageReq, sealed []byte) {
	http.SetCookie(w, &http.Cookie{Name: ap.passkeyCookie(a), Value: base64.RawURLEncoding.EncodeToString(sealed),
		Path: a.mount.Prefix() + "/passkey/", MaxAge: int(agehosted.PasskeyTimeout / time.Second), HttpOnly: true,
		Secure: !ap.Dev, SameSite: http.SameSiteStrictMode})
}

// takePasskeyCookie reads the sealed ceremony and clears the cookie: a
// ceremony is finished once.
func (ap *Pages) takePasskeyCookie(w http.ResponseWriter, r *http.Request, a *ageReq) []byte {
	http.SetCookie(w, &http.Cookie{Name: ap.passkeyCookie(a), Value: "", Path: a.mount.Prefix() + "/passkey/", MaxAge: -1,
		HttpOnly: true, Secure: !ap.Dev, SameSite: http.SameSiteStrictMode})
	c, err := r.Cookie(ap.passkeyCookie(a))
	if err != nil {
		return nil
	}
	b, _ := base64.RawURLEncoding.DecodeString(c.Value)
	return b
}

// passkeyReq reads the account page's request (language, session) and
// checks the origin and the token: the session's when session is true,
// the form cookie's otherwise. It answers the refusal itself.
func (ap *Pages) passkeyReq(w http.ResponseWriter, r *http.Request, session bool) (*ageReq, bool) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.writeError(w, r, err)
		return nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, agePasskeyLimit)
	ok := layout.SameOrigin(r, a.mount)
	if session {
		ok = ok && a.session != nil && a.session.CheckCSRF(r)
	} else {
		ok = ok && ap.Flow.Sessions(a.mount.Environment).CheckFormToken(r)
	}
	if !ok {
		ap.passkeyFail(w, r, a, hosted.ErrCSRF)
		return nil, false
	}
	return a, true
}

// passkeyFail answers a refused ceremony in the page's language.
func (ap *Pages) passkeyFail(w http.ResponseWriter, r *http.Request, a *ageReq, err error) {
	var limited *agehosted.RateLimitedError
	var e *verifyd.Error
	status, key := http.StatusUnauthorized, "age_err_passkey"
	var problems []hosted.Problem
	switch {
	case errors.Is(err, hosted.ErrCSRF):
		status, key = http.StatusForbidden, "err_csrf"
	case errors.As(err, &limited):
		status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
		request.WriteJSON(w, status, hosted.ErrorBody{Message: msg(a.lang, "age_err_limited", int((limited.RetryAfter+time.Minute-1)/time.Minute)),
			StatusCode: status})
		return
	case errors.Is(err, agehosted.ErrPasskey):
		ap.logger(r).InfoContext(r.Context(), "age passkey refused", "err", err)
	case errors.Is(err, agehosted.ErrPasskeysOff):
		status, key = http.StatusConflict, "age_err_passkey"
	case errors.As(err, &e) && e.Code == verifyd.EInvalid:
		status, key = http.StatusUnprocessableEntity, "errors_title"
		for _, f := range e.Fields {
			problems = append(problems, hosted.Problem{Field: f.Field, Problem: f.Problem, Message: msg(a.lang, "age_err_"+f.Field+"_"+f.Problem)})
		}
		if len(problems) == 1 {
			key = "age_err_" + problems[0].Field + "_" + problems[0].Problem
		}
	default:
		ap.writeError(w, r, err)
		return
	}
	request.WriteJSON(w, status, hosted.ErrorBody{Message: msg(a.lang, key), StatusCode: status, Errors: problems})
}

// passkeyBegin answers a ceremony's options and keeps it in the cookie.
func (ap *Pages) passkeyBegin(w http.ResponseWriter, a *ageReq, opts any, sealed []byte) {
	ap.setPasskeyCookie(w, a, sealed)
	w.Header().Set("Cache-Control", "no-store")
	request.WriteJSON(w, http.StatusOK, opts)
}

// PasskeySignUpBegin starts creating an account with a passkey (the
// e-mail address in the JSON body).
func (ap *Pages) PasskeySignUpBegin(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.passkeyReq(w, r, false)
	if !ok {
		return
	}
	var in struct {
		Email string `json:"email"`
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = request.DecodeJSON(body, &in)
	}
	if err != nil {
		ap.passkeyFail(w, r, a, verifyd.InvalidFields([]verifyd.FieldError{{Field: agehosted.FieldEmail, Problem: agehosted.ProblemEmail}}))
		return
	}
	opts, sealed, err := ap.Flow.BeginPasskeySignUp(r.Context(), a.mount.Environment, in.Email, request.ClientAddr(r))
	if err != nil {
		ap.passkeyFail(w, r, a, err)
		return
	}
	ap.passkeyBegin(w, a, opts, sealed)
}

// PasskeySignUpFinish creates the account from the browser's answer and
// signs it in.
func (ap *Pages) PasskeySignUpFinish(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.passkeyReq(w, r, false)
	if !ok {
		return
	}
	svc, env := ap.Flow, a.mount.Environment
	acct, err := svc.FinishPasskeySignUp(r.Context(), env, ap.takePasskeyCookie(w, r, a), r)
	if err != nil {
		ap.passkeyFail(w, r, a, err)
		return
	}
	if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
		ap.writeError(w, r, err)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age account created", "account", acct.ID, "environment", env, "with", "passkey")
	ap.sendConfirmation(r, a, acct)
	request.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// PasskeyLogInBegin starts a login with a passkey.
func (ap *Pages) PasskeyLogInBegin(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.passkeyReq(w, r, false)
	if !ok {
		return
	}
	opts, sealed, err := ap.Flow.BeginPasskeyLogIn(a.mount.Environment, request.ClientAddr(r))
	if err != nil {
		ap.passkeyFail(w, r, a, err)
		return
	}
	ap.passkeyBegin(w, a, opts, sealed)
}

// PasskeyLogInFinish signs the passkey's account in.
func (ap *Pages) PasskeyLogInFinish(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.passkeyReq(w, r, false)
	if !ok {
		return
	}
	svc, env := ap.Flow, a.mount.Environment
	acct, err := svc.FinishPasskeyLogIn(r.Context(), env, ap.takePasskeyCookie(w, r, a), r)
	if err != nil {
		ap.passkeyFail(w, r, a, err)
		return
	}
	// A new session: where the country wants authentication at each use,
	// it began after the flow's request, as a password login's does.
	if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
		ap.writeError(w, r, err)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age login", "account", acct.ID, "environment", env, "with", "passkey")
	request.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// PasskeyAddBegin starts adding a passkey to the signed-in account.
func (ap *Pages) PasskeyAddBegin(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.passkeyReq(w, r, true)
	if !ok {
		return
	}
	opts, sealed, err := ap.Flow.BeginPasskeyAdd(r.Context(), a.mount.Environment, *a.visitor.Account)
	if err != nil {
		ap.passkeyFail(w, r, a, err)
		return
	}
	ap.passkeyBegin(w, a, opts, sealed)
}

// PasskeyAddFinish stores the new passkey.
func (ap *Pages) PasskeyAddFinish(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.passkeyReq(w, r, true)
	if !ok {
		return
	}
	env := a.mount.Environment
	if err := ap.Flow.FinishPasskeyAdd(r.Context(), env, *a.visitor.Account, ap.takePasskeyCookie(w, r, a), r); err != nil {
		ap.passkeyFail(w, r, a, err)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age passkey added", "account", a.visitor.Account.ID, "environment", env)
	request.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
}
