package dashpages

import (
	"bytes"
	"encoding/base64"
	"errors"
	"html/template"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/web/layout"
)

// Sign-in, sign-out, invitation acceptance and sign-up: the pages before
// there is a session, whose forms carry webauth's double-submit form
// token instead of a session's.

// safeNext keeps a post-login destination inside the dashboard.
func safeNext(next string) string { return layout.SafeNext(next, Base) }

type loginData struct {
	Email, Next string
	SignUp      bool
	Passkeys    bool
}

func (p *Pages) renderLogin(w http.ResponseWriter, r *http.Request, status int, email, errText string) {
	token, err := p.svc.Sessions.FormToken(w, r)
	if err != nil {
		p.failure(w, r, err)
		return
	}
	v := p.newView(w, r, "login_title")
	v.CSRF, v.Data = token, loginData{Email: email, Next: safeNext(r.FormValue("next")), SignUp: p.svc.SignUpOpen(),
		Passkeys: p.svc.PasskeysOn()}
	if p.svc.PasskeysOn() {
		v.JS = p.scriptPath()
	}
	if errText != "" {
		v.Error = v.T(errText)
	}
	p.render(w, r, status, "login", v)
}

// LoginForm shows the sign-in form, or sends a signed-in user on.
func (p *Pages) LoginForm(w http.ResponseWriter, r *http.Request) {
	_, m, err := p.signedIn(w, r)
	if err != nil {
		p.failure(w, r, err)
		return
	}
	if m != nil {
		redirect(w, r, safeNext(r.FormValue("next")))
		return
	}
	p.renderLogin(w, r, http.StatusOK, "", "")
}

// checkForm reads a form posted before sign-in and checks its token; a
// body that cannot be read has no token either. The caller answers.
func (p *Pages) checkForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return false
	}
	if !p.svc.Sessions.CheckFormToken(r) {
		if !p.dev && r.TLS == nil && r.Header.Get("X-Forwarded-Proto") != "https" {
			// Browsers drop Secure cookies on plain http (except localhost).
			request.Logger(p.log, r).WarnContext(r.Context(), "dashboard form over plain http: its cookies are Secure, "+
				"so serve the dashboard over HTTPS (or use --dev for local development)")
		}
		return false
	}
	return true
}

// LogIn checks a sign-in and starts a session.
func (p *Pages) LogIn(w http.ResponseWriter, r *http.Request) {
	ok := p.checkForm(w, r)
	email := r.PostFormValue("email")
	if !ok {
		p.renderLogin(w, r, http.StatusForbidden, email, "err_form_expired")
		return
	}
	u, err := p.svc.Authenticate(r.Context(), email, r.PostFormValue("password"), r.PostFormValue("code"), request.ClientAddr(r))
	var limited *dashboard.RateLimitedError
	switch {
	case errors.As(err, &limited):
		request.Logger(p.log, r).WarnContext(r.Context(), "dashboard sign-in rate limited")
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
		p.renderLogin(w, r, http.StatusTooManyRequests, email, "err_limited")
		return
	case errors.Is(err, dashboard.ErrBadLogin):
		request.Logger(p.log, r).InfoContext(r.Context(), "dashboard sign-in failed")
		p.renderLogin(w, r, http.StatusUnauthorized, email, "err_login")
		return
	case err != nil:
		p.failure(w, r, err)
		return
	}
	if _, err := p.svc.Sessions.Start(r.Context(), w, r, u.ID); err != nil {
		p.failure(w, r, err)
		return
	}
	request.Logger(p.log, r).InfoContext(r.Context(), "dashboard sign-in", "user", u.ID, "business", u.BusinessID)
	redirect(w, r, safeNext(r.PostFormValue("next")))
}

// LogOut ends the session.
func (p *Pages) LogOut(w http.ResponseWriter, r *Req) {
	if err := p.svc.Sessions.End(r.Context(), w, r.Request); err != nil {
		p.failure(w, r.Request, err)
		return
	}
	redirect(w, r.Request, Base+"/login")
}

// enrolData is the enrolment part of the invitation and sign-up forms: a
// TOTP secret to add to an authenticator app, as a QR code and as text.
type enrolData struct {
	Secret string
	QR     template.URL
	// Account and fields kept on a failed attempt.
	Email, Name, BusinessName string
	// Invitation, for the invitation form.
	BusinessOfInvitation, Role string
}

// newEnrolment returns enrolment data for account with the secret the
// form sent back (a failed attempt keeps the secret the person's app has
// already), or a new one.
func (p *Pages) newEnrolment(r *http.Request, account string) (enrolData, error) {
	k, err := dashboard.TOTPKeyFor(account, r.PostFormValue("totp_secret"))
	if err != nil {
		if k, err = p.svc.NewTOTPKey(account); err != nil {
			return enrolData{}, err
		}
	}
	qr, err := qrDataURL(k.URL)
	if err != nil {
		return enrolData{}, err
	}
	return enrolData{Secret: k.Secret, QR: qr}, nil
}

// qrDataURL renders an otpauth URI as a PNG QR code in a data: URL, so
// the secret is never served under a URL of its own.
func qrDataURL(u string) (template.URL, error) {
	k, err := otp.NewKeyFromURL(u)
	if err != nil {
		return "", err
	}
	img, err := k.Image(200, 200)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	// A data: URL of a PNG we just encoded is safe to put in src.
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}

// enrolment reads an enrolment from a posted form; a mismatched repeat of
// the password is reported as ErrPasswordAgain.
func enrolment(r *http.Request) (dashboard.Enrollment, error) {
	e := dashboard.Enrollment{Name: r.PostFormValue("name"), Password: r.PostFormValue("password"),
		TOTPSecret: r.PostFormValue("totp_secret"), Code: r.PostFormValue("code")}
	if r.PostFormValue("password_again") != e.Password {
		return e, errPasswordAgain
	}
	return e, nil
}

var errPasswordAgain = verifyd.Errorf(verifyd.EInvalid, "password_again")

func (p *Pages) renderInvitation(w http.ResponseWriter, r *http.Request, status int, token string, err error) {
	inv, b, ierr := p.svc.OpenInvitation(r.Context(), token)
	if errors.Is(ierr, dashboard.ErrInvitation) {
		p.message(w, r, http.StatusNotFound, "invitation_title", "err_invitation")
		return
	}
	if ierr != nil {
		p.failure(w, r, ierr)
		return
	}
	p.renderEnrolment(w, r, status, "invitation", inv.Email, func(d *enrolData) {
		d.Email, d.Name, d.BusinessOfInvitation, d.Role = inv.Email, r.PostFormValue("name"), b.Name, string(inv.Role)
	}, err)
}

// renderEnrolment shows page ("invitation", "signup") with a form token,
// the enrolment of account (the secret the form sent back, or a new one)
// as fill completes it, and err when an attempt was refused.
func (p *Pages) renderEnrolment(w http.ResponseWriter, r *http.Request, status int, page, account string, fill func(*enrolData), err error) {
	form, ferr := p.svc.Sessions.FormToken(w, r)
	if ferr != nil {
		p.failure(w, r, ferr)
		return
	}
	d, derr := p.newEnrolment(r, account)
	if derr != nil {
		p.failure(w, r, derr)
		return
	}
	fill(&d)
	v := p.newView(w, r, page+"_title")
	v.CSRF, v.Data = form, d
	if err != nil {
		p.showError(w, r, v, page, err)
		return
	}
	p.render(w, r, status, page, v)
}

// InvitationForm shows an invitation: the person chooses a name and a
// password and enrols an authenticator app.
func (p *Pages) InvitationForm(w http.ResponseWriter, r *http.Request) {
	p.renderInvitation(w, r, http.StatusOK, r.PathValue("token"), nil)
}

// AcceptInvitation creates the invited user and signs them in.
func (p *Pages) AcceptInvitation(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	if !p.checkForm(w, r) {
		p.renderInvitation(w, r, http.StatusForbidden, token, errFormExpired)
		return
	}
	e, err := enrolment(r)
	if err != nil {
		p.renderInvitation(w, r, http.StatusUnprocessableEntity, token, err)
		return
	}
	u, err := p.svc.AcceptInvitation(r.Context(), token, e)
	if err != nil {
		p.renderInvitation(w, r, http.StatusOK, token, err)
		return
	}
	p.enter(w, r, u, "dashboard invitation accepted")
}

// enter signs in a person who has just joined (an accepted invitation or a
// sign-up) and takes them to their keys.
func (p *Pages) enter(w http.ResponseWriter, r *http.Request, u verifyd.BusinessUser, event string) {
	if _, err := p.svc.Sessions.Start(r.Context(), w, r, u.ID); err != nil {
		p.failure(w, r, err)
		return
	}
	request.Logger(p.log, r).InfoContext(r.Context(), event, "user", u.ID, "business", u.BusinessID)
	redirect(w, r, Base+"/keys")
}

var errFormExpired = verifyd.Errorf(verifyd.EForbidden, "form_expired")

func (p *Pages) renderSignUp(w http.ResponseWriter, r *http.Request, status int, err error) {
	p.renderEnrolment(w, r, status, "signup", "new account", func(d *enrolData) {
		d.Email, d.Name, d.BusinessName = strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("name"), r.PostFormValue("business")
	}, err)
}

// SignUpForm shows the sign-up form when sign-up is enabled.
func (p *Pages) SignUpForm(w http.ResponseWriter, r *http.Request) {
	if !p.svc.SignUpOpen() {
		p.NotFound(w, r)
		return
	}
	p.renderSignUp(w, r, http.StatusOK, nil)
}

// SignUp creates a sandbox-only business with its first user and signs
// them in.
func (p *Pages) SignUp(w http.ResponseWriter, r *http.Request) {
	if !p.svc.SignUpOpen() {
		p.NotFound(w, r)
		return
	}
	if !p.checkForm(w, r) {
		p.renderSignUp(w, r, http.StatusForbidden, errFormExpired)
		return
	}
	e, err := enrolment(r)
	if err != nil {
		p.renderSignUp(w, r, http.StatusUnprocessableEntity, err)
		return
	}
	_, u, err := p.svc.SignUp(r.Context(), request.ClientAddr(r), r.PostFormValue("business"), r.PostFormValue("email"), e)
	var limited *dashboard.RateLimitedError
	if errors.As(err, &limited) {
		err = errLimited
	}
	if err != nil {
		p.renderSignUp(w, r, http.StatusOK, err)
		return
	}
	p.enter(w, r, u, "dashboard sign-up")
}

var errLimited = verifyd.Errorf(verifyd.ETooManyRequests, "limited")
