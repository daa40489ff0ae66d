package agepages

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/web/hosted"
	"github.com/verifyd/verifyd/web/layout"
)

// E-mail on the age account pages (agehosted/mail.go, docs/age.md): ask
// for a password reset, a login code or a deletion link; open an e-mailed
// link (a page with a button or a form: mail scanners open links, so a GET
// never changes anything); log in with a code. Routes exist only when a
// mailer is configured; the pages link to them only then.

// Steps of the e-mail pages (data-phase).
const (
	ageStepMailRequest agehosted.Step = "account_mail_request"
	ageStepMailSent    agehosted.Step = "account_mail_sent"
	ageStepCode        agehosted.Step = "account_code"
	ageStepMailLink    agehosted.Step = "account_mail_link"
	ageStepMailDone    agehosted.Step = "account_mail_done"
	ageStepMailInvalid agehosted.Step = "account_mail_invalid"
)

// ageMailPurposes are those a person may ask for on the request page.
var ageMailPurposes = map[string]verifyd.AgeMailPurpose{"reset": verifyd.AgeMailReset, "code": verifyd.AgeMailCode,
	"delete": verifyd.AgeMailDelete}

// mailPage renders an e-mail page of the account area.
type mailPage struct {
	step            agehosted.Step
	status          int
	purpose, email  string
	token, notice   string
	banner, problem string
	problems        []hosted.Problem
}

func (ap *Pages) renderMail(w http.ResponseWriter, r *http.Request, a *ageReq, p mailPage) {
	d := ap.ageData(w, r, a)
	page := a.mount.Prefix() + "/account"
	d.PagePath, d.Query = page, a.accountQuery()
	d.Langs = layout.LangLinks(a.lang, func(lang string) string {
		lr := *a
		lr.lang, lr.explicit = lang, true
		q := lr.accountQuery()
		if p.step == ageStepMailRequest || p.step == ageStepCode {
			q = lr.accountQuery("purpose", p.purpose)
		}
		return page + "/email-request" + q
	})
	tok, err := ap.Flow.Sessions(a.mount.Environment).FormToken(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	d.Step, d.Banner, d.Notice, d.FormCSRF = p.step, p.banner, p.notice, tok
	d.MailPurpose, d.MailEmail, d.MailToken, d.MailProblem = p.purpose, p.email, p.token, p.problem
	d.MailRequestTo = page + "/email-request" + a.accountQuery()
	d.CodeTo = page + "/code" + a.accountQuery()
	d.MailLinkTo = page + "/email/" + p.purpose + a.accountQuery()
	d.AccountTo = page + a.accountQuery()
	d.noReferrer = p.step == ageStepMailLink || p.step == ageStepMailInvalid || p.step == ageStepMailDone
	d.SignupProblems = p.problems
	d.SignupErr = map[string]string{}
	for _, pr := range p.problems {
		d.SignupErr[pr.Field] = pr.Message
	}
	if a.id != "" {
		d.BackTo = a.path(a.query())
	}
	w.Header().Set("Cache-Control", "no-store")
	ap.writeAge(w, r, p.status, d)
}

// MailRequestPage asks for the address to send a reset link, a login
// code or a deletion link to.
func (ap *Pages) MailRequestPage(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	purpose := r.URL.Query().Get("purpose")
	if _, ok := ageMailPurposes[purpose]; !ok {
		purpose = "reset"
	}
	email := ""
	if a.visitor.Account != nil {
		email = a.visitor.Account.Email
	}
	ap.renderMail(w, r, a, mailPage{step: ageStepMailRequest, status: http.StatusOK, purpose: purpose, email: email})
}

// mailForm parses a small form of the e-mail pages and checks the origin
// and the form token; it answers a refusal itself.
func (ap *Pages) mailForm(w http.ResponseWriter, r *http.Request) (*ageReq, bool) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, ageFormLimit)
	if err := r.ParseForm(); err != nil {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusBadRequest, msg(a.lang, "err_generic"), "")
		return nil, false
	}
	if !layout.SameOrigin(r, a.mount) || !ap.Flow.Sessions(a.mount.Environment).CheckFormToken(r) {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusForbidden, msg(a.lang, "err_csrf"), "")
		return nil, false
	}
	return a, true
}

// limited answers a rate-limited e-mail step.
func (ap *Pages) mailLimited(w http.ResponseWriter, r *http.Request, a *ageReq, err error, p mailPage) bool {
	var limited *agehosted.RateLimitedError
	if !errors.As(err, &limited) {
		return false
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
	ap.logger(r).WarnContext(r.Context(), "age e-mail step rate limited")
	p.status, p.banner = http.StatusTooManyRequests, msg(a.lang, "age_err_limited", int((limited.RetryAfter+time.Minute-1)/time.Minute))
	ap.renderMail(w, r, a, p)
	return true
}

// MailRequest sends what was asked for when the address has an
// account; the answer is the same either way.
func (ap *Pages) MailRequest(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.mailForm(w, r)
	if !ok {
		return
	}
	purpose, email := r.PostFormValue("purpose"), r.PostFormValue("email")
	p, known := ageMailPurposes[purpose]
	if !known {
		ap.renderMail(w, r, a, mailPage{step: ageStepMailRequest, status: http.StatusUnprocessableEntity, purpose: "reset",
			email: email, banner: msg(a.lang, "err_generic")})
		return
	}
	page := mailPage{step: ageStepMailRequest, purpose: purpose, email: email}
	err := ap.Flow.RequestMail(r.Context(), a.mount.Environment, a.lang, p, email, request.ClientAddr(r))
	var e *verifyd.Error
	switch {
	case err == nil:
	case ap.mailLimited(w, r, a, err, page):
		return
	case errors.As(err, &e) && e.Code == verifyd.EInvalid:
		page.status, page.problem = http.StatusUnprocessableEntity, msg(a.lang, "age_err_email_invalid")
		ap.renderMail(w, r, a, page)
		return
	default:
		ap.logger(r).ErrorContext(r.Context(), "age e-mail", "purpose", purpose, "err", err)
		page.status, page.banner = http.StatusServiceUnavailable, msg(a.lang, "age_err_mail_send")
		ap.renderMail(w, r, a, page)
		return
	}
	if p == verifyd.AgeMailCode {
		ap.renderMail(w, r, a, mailPage{step: ageStepCode, status: http.StatusOK, purpose: purpose, email: verifyd.NormalizeEmail(email),
			notice: msg(a.lang, "age_mail_code_sent", verifyd.NormalizeEmail(email))})
		return
	}
	ap.renderMail(w, r, a, mailPage{step: ageStepMailSent, status: http.StatusOK, purpose: purpose,
		notice: msg(a.lang, "age_mail_sent_"+purpose, verifyd.NormalizeEmail(email))})
}

// CodeLogIn logs in with an e-mailed code, then goes back to the flow
// (when the request came from one) or to the account page.
func (ap *Pages) CodeLogIn(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.mailForm(w, r)
	if !ok {
		return
	}
	svc, env := ap.Flow, a.mount.Environment
	email := r.PostFormValue("email")
	page := mailPage{step: ageStepCode, purpose: "code", email: email}
	acct, err := svc.LogInWithCode(r.Context(), env, email, r.PostFormValue("code"), request.ClientAddr(r))
	switch {
	case err == nil:
	case ap.mailLimited(w, r, a, err, page):
		return
	case errors.Is(err, agehosted.ErrBadCode):
		page.status, page.problem = http.StatusUnauthorized, msg(a.lang, "age_err_code")
		ap.renderMail(w, r, a, page)
		return
	default:
		ap.agePageError(w, r, a, err)
		return
	}
	if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	ap.logger(r).InfoContext(r.Context(), "age login", "account", acct.ID, "environment", env, "with", "code")
	w.Header().Set("Cache-Control", "no-store")
	to := a.mount.Prefix() + "/account" + a.accountQuery()
	if a.id != "" {
		to = a.path(a.query())
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// ConfirmRequest sends the signed-in account's confirmation link again.
func (ap *Pages) ConfirmRequest(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, ageFormLimit)
	if r.ParseForm() != nil || !layout.SameOrigin(r, a.mount) || a.session == nil || !a.session.CheckCSRF(r) {
		ap.renderAgeAccount(w, r, a, ap.accountStep(a), http.StatusForbidden, msg(a.lang, "err_csrf"), "")
		return
	}
	err = ap.Flow.RequestMail(r.Context(), a.mount.Environment, a.lang, verifyd.AgeMailConfirm, a.visitor.Account.Email, request.ClientAddr(r))
	var limited *agehosted.RateLimitedError
	if errors.As(err, &limited) {
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
		ap.renderAgeAccount(w, r, a, ageStepAccountDelete, http.StatusTooManyRequests,
			msg(a.lang, "age_err_limited", int((limited.RetryAfter+time.Minute-1)/time.Minute)), "")
		return
	}
	if err != nil {
		ap.logger(r).ErrorContext(r.Context(), "age e-mail", "purpose", "confirm", "err", err)
		ap.renderAgeAccount(w, r, a, ageStepAccountDelete, http.StatusServiceUnavailable, msg(a.lang, "age_err_mail_send"), "")
		return
	}
	ap.renderAgeAccountNotice(w, r, a, msg(a.lang, "age_mail_sent_confirm", a.visitor.Account.Email))
}

// MailLinkPage shows what an e-mailed link does, with the button (or
// the new-password form) that does it.
func (ap *Pages) MailLinkPage(w http.ResponseWriter, r *http.Request) {
	a, err := ap.ageAccountReq(w, r)
	if err != nil {
		ap.agePageError(w, r, a, err)
		return
	}
	purpose, token := r.PathValue("purpose"), r.URL.Query().Get("t")
	p := verifyd.AgeMailPurpose(purpose)
	if p != verifyd.AgeMailConfirm && p != verifyd.AgeMailReset && p != verifyd.AgeMailDelete {
		ap.agePageError(w, r, a, verifyd.ErrNotFound)
		return
	}
	acct, err := ap.Flow.MailLink(r.Context(), a.mount.Environment, p, token)
	if err != nil {
		ap.mailLinkFail(w, r, a, purpose, err)
		return
	}
	// The link is a secret: no referrer leaves this page.
	w.Header().Set("Referrer-Policy", "no-referrer")
	ap.renderMail(w, r, a, mailPage{step: ageStepMailLink, status: http.StatusOK, purpose: purpose, token: token, email: acct.Email})
}

func (ap *Pages) mailLinkFail(w http.ResponseWriter, r *http.Request, a *ageReq, purpose string, err error) {
	if !errors.Is(err, agehosted.ErrMailLink) {
		ap.agePageError(w, r, a, err)
		return
	}
	if purpose == string(verifyd.AgeMailConfirm) {
		purpose = "reset"
	}
	ap.renderMail(w, r, a, mailPage{step: ageStepMailInvalid, status: http.StatusNotFound, purpose: purpose,
		banner: msg(a.lang, "age_mail_invalid")})
}

// MailLinkUse does what the link is for: confirm the address, set the
// new password (and log in), or delete the account.
func (ap *Pages) MailLinkUse(w http.ResponseWriter, r *http.Request) {
	a, ok := ap.mailForm(w, r)
	if !ok {
		return
	}
	svc, env := ap.Flow, a.mount.Environment
	purpose, token := r.PathValue("purpose"), r.PostFormValue("t")
	w.Header().Set("Referrer-Policy", "no-referrer")
	switch verifyd.AgeMailPurpose(purpose) {
	case verifyd.AgeMailConfirm:
		if err := svc.ConfirmEmail(r.Context(), env, token); err != nil {
			ap.mailLinkFail(w, r, a, purpose, err)
			return
		}
		ap.renderMail(w, r, a, mailPage{step: ageStepMailDone, status: http.StatusOK, purpose: purpose,
			notice: msg(a.lang, "age_mail_confirmed")})
	case verifyd.AgeMailReset:
		acct, err := svc.ResetPassword(r.Context(), env, token, r.PostFormValue("password"), r.PostFormValue("password_again"))
		var e *verifyd.Error
		switch {
		case err == nil:
		case errors.As(err, &e) && e.Code == verifyd.EInvalid:
			page := mailPage{step: ageStepMailLink, status: http.StatusUnprocessableEntity, purpose: purpose, token: token}
			for _, f := range e.Fields {
				page.problems = append(page.problems, hosted.Problem{Field: f.Field, Problem: f.Problem,
					Message: msg(a.lang, "age_err_"+f.Field+"_"+f.Problem)})
			}
			ap.renderMail(w, r, a, page)
			return
		default:
			ap.mailLinkFail(w, r, a, purpose, err)
			return
		}
		if _, err := svc.Sessions(env).Start(r.Context(), w, r, acct.ID); err != nil {
			ap.agePageError(w, r, a, err)
			return
		}
		ap.logger(r).InfoContext(r.Context(), "age password reset", "account", acct.ID, "environment", env)
		ap.renderMail(w, r, a, mailPage{step: ageStepMailDone, status: http.StatusOK, purpose: purpose,
			notice: msg(a.lang, "age_mail_reset_done")})
	case verifyd.AgeMailDelete:
		gone, err := svc.DeleteByMail(r.Context(), env, token)
		if err != nil {
			ap.mailLinkFail(w, r, a, purpose, err)
			return
		}
		if a.session != nil {
			if err := svc.Sessions(env).End(r.Context(), w, r); err != nil {
				ap.logger(r).ErrorContext(r.Context(), "end the deleted age account's session", "err", err)
			}
		}
		ap.logger(r).InfoContext(r.Context(), "age account deleted", "environment", env, "by", "e-mail link",
			"sessions", gone.Sessions, "proofs", gone.Proofs, "revoked_tokens", gone.RevokedTokens,
			"expired_codes", gone.ExpiredCodes, "verifications", len(gone.Verifications), "ended", gone.Ended)
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, a.mount.Prefix()+"/account"+a.accountQuery("deleted", "1"), http.StatusSeeOther)
	default:
		ap.agePageError(w, r, a, verifyd.ErrNotFound)
	}
}
