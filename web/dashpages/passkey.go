package dashpages

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/httpapi/request"
)

// Passkeys (dashboard/passkey.go): the security page adds one to the
// signed-in user, the login page signs in with one. The shared script
// (layout.PasskeyScript) runs each ceremony in two JSON posts: begin
// answers the options for navigator.credentials and sets a short-lived
// cookie holding the sealed ceremony; finish sends the browser's answer.
// Both carry the session's CSRF token, or before sign-in the form token,
// in X-CSRF-Token. Only these two pages allow the script in their CSP.

// passkeyLimit bounds a ceremony's JSON (an attestation is a few KiB).
const passkeyLimit = 64 << 10

const passkeyCookie = "verifyd_dashboard_passkey"

func (p *Pages) setCeremony(w http.ResponseWriter, sealed []byte) {
	http.SetCookie(w, &http.Cookie{Name: passkeyCookie, Value: base64.RawURLEncoding.EncodeToString(sealed),
		Path: Base + "/passkeys/", MaxAge: int(dashboard.PasskeyTimeout / time.Second), HttpOnly: true,
		Secure: !p.dev, SameSite: http.SameSiteStrictMode})
}

// takeCeremony reads the sealed ceremony and clears the cookie: a ceremony
// is finished once.
func (p *Pages) takeCeremony(w http.ResponseWriter, r *http.Request) []byte {
	http.SetCookie(w, &http.Cookie{Name: passkeyCookie, Value: "", Path: Base + "/passkeys/", MaxAge: -1,
		HttpOnly: true, Secure: !p.dev, SameSite: http.SameSiteStrictMode})
	c, err := r.Cookie(passkeyCookie)
	if err != nil {
		return nil
	}
	b, _ := base64.RawURLEncoding.DecodeString(c.Value)
	return b
}

// passkeyFail answers a refused ceremony as JSON in the page's language.
func (p *Pages) passkeyFail(w http.ResponseWriter, r *http.Request, err error) {
	l := p.lang(w, r)
	var limited *dashboard.RateLimitedError
	// The status comes from the one mapping (request.StatusOf); the
	// message is the page language's.
	status, key := request.StatusOf(verifyd.ErrorCodeOf(err)), "failure_text"
	switch {
	case errors.As(err, &limited):
		status, key = http.StatusTooManyRequests, "err_limited"
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
	case errors.Is(err, errFormExpired):
		key = "refused_token"
	case errors.Is(err, dashboard.ErrPasskey):
		key = "err_passkey"
		request.Logger(p.log, r).InfoContext(r.Context(), "dashboard passkey refused", "err", err)
	case errors.Is(err, dashboard.ErrPasskeysOff):
		key = "passkeys_off"
	default:
		request.Logger(p.log, r).ErrorContext(r.Context(), "dashboard passkey failed", "err", err)
		status = http.StatusInternalServerError
	}
	request.WriteJSON(w, status, request.ErrorBody{Message: texts.Msg(l, key), StatusCode: status})
}

func (p *Pages) ceremonyBegun(w http.ResponseWriter, opts any, sealed []byte) {
	p.setCeremony(w, sealed)
	w.Header().Set("Cache-Control", "no-store")
	request.WriteJSON(w, http.StatusOK, opts)
}

// PasskeyAddBegin starts adding a passkey to the signed-in user.
func (p *Pages) PasskeyAddBegin(w http.ResponseWriter, r *Req) {
	opts, sealed, err := p.svc.BeginPasskeyAdd(r.Context(), r.Member)
	if err != nil {
		p.passkeyFail(w, r.Request, err)
		return
	}
	p.ceremonyBegun(w, opts, sealed)
}

// PasskeyAddFinish stores the new passkey from the browser's answer.
func (p *Pages) PasskeyAddFinish(w http.ResponseWriter, r *Req) {
	r.Body = http.MaxBytesReader(w, r.Body, passkeyLimit)
	if err := p.svc.FinishPasskeyAdd(r.Context(), r.Member, p.takeCeremony(w, r.Request), r.Body); err != nil {
		p.passkeyFail(w, r.Request, err)
		return
	}
	request.WriteJSON(w, http.StatusOK, struct{}{})
}

// loginCeremony checks a sign-in ceremony's request: the login form's
// token in X-CSRF-Token.
func (p *Pages) loginCeremony(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, passkeyLimit)
	if !p.svc.Sessions.CheckFormToken(r) {
		p.passkeyFail(w, r, errFormExpired)
		return false
	}
	return true
}

// PasskeyLogInBegin starts a sign-in with a passkey.
func (p *Pages) PasskeyLogInBegin(w http.ResponseWriter, r *http.Request) {
	if !p.loginCeremony(w, r) {
		return
	}
	opts, sealed, err := p.svc.BeginPasskeyLogIn(request.ClientAddr(r))
	if err != nil {
		p.passkeyFail(w, r, err)
		return
	}
	p.ceremonyBegun(w, opts, sealed)
}

// PasskeyLogInFinish checks the passkey and starts the session.
func (p *Pages) PasskeyLogInFinish(w http.ResponseWriter, r *http.Request) {
	if !p.loginCeremony(w, r) {
		return
	}
	u, err := p.svc.FinishPasskeyLogIn(r.Context(), p.takeCeremony(w, r), r.Body)
	if err != nil {
		p.passkeyFail(w, r, err)
		return
	}
	if _, err := p.svc.Sessions.Start(r.Context(), w, r, u.ID); err != nil {
		p.passkeyFail(w, r, err)
		return
	}
	request.Logger(p.log, r).InfoContext(r.Context(), "dashboard sign-in with a passkey", "user", u.ID, "business", u.BusinessID)
	request.WriteJSON(w, http.StatusOK, struct{}{})
}

type passkeyRow struct {
	ID            string // base64url credential id
	Created, Used timeView
	N             int
}

type securityData struct {
	On       bool
	Passkeys []passkeyRow
}

// Security shows the user's passkeys and adds one.
func (p *Pages) Security(w http.ResponseWriter, r *Req) {
	keys, err := p.svc.Passkeys(r.Context(), r.Member)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	d := securityData{On: p.svc.PasskeysOn()}
	for n, k := range keys {
		row := passkeyRow{ID: base64.RawURLEncoding.EncodeToString(k.CredentialID), Created: showTime(k.CreatedAt), N: n + 1}
		if k.LastUsedAt != nil {
			row.Used = showTime(*k.LastUsedAt)
		}
		d.Passkeys = append(d.Passkeys, row)
	}
	v := p.memberView(w, r, "security_title")
	v.Data = d
	if d.On {
		v.JS = p.scriptPath()
	}
	p.render(w, r.Request, http.StatusOK, "security", v)
}

func (p *Pages) scriptPath() string { return Base + "/static/" + p.assets.Name("passkey.js") }

// RemovePasskey deletes one of the user's passkeys.
func (p *Pages) RemovePasskey(w http.ResponseWriter, r *Req) {
	id, err := base64.RawURLEncoding.DecodeString(r.PathValue("id"))
	if err == nil {
		err = p.svc.RemovePasskey(r.Context(), r.Member, id)
	}
	if err != nil {
		p.message(w, r.Request, http.StatusNotFound, "not_found_title", "not_found_text")
		return
	}
	done(w, r, Base+"/security", "passkey_removed")
}
