package dashpages

import (
	"errors"
	"io"
	"net/http"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/web/layout"
)

type brandingData struct {
	DisplayName, AccentColour, SupportEmail, PrivacyURL string
	HasLogo                                             bool
	LogoURL                                             string
	LogoWidth, LogoHeight                               int
	CanManage                                           bool
	MaxLogoKiB, MaxLogoSide                             int
}

func (p *Pages) brandingView(w http.ResponseWriter, r *Req) (view, error) {
	b, err := p.data.Branding.Get(r.Context(), r.Member.Business.ID)
	if err != nil {
		return view{}, err
	}
	d := brandingData{DisplayName: b.DisplayName, AccentColour: b.AccentColour, SupportEmail: b.SupportEmail,
		PrivacyURL: b.PrivacyURL, CanManage: r.Member.Can(dashboard.ManageSettings),
		MaxLogoKiB: branding.MaxLogoBytes >> 10, MaxLogoSide: branding.MaxLogoSide}
	if b.Logo != nil {
		d.HasLogo, d.LogoWidth, d.LogoHeight = true, b.Logo.Width, b.Logo.Height
		d.LogoURL = Base + "/branding/logo?v=" + b.UpdatedAt.Format("20060102150405.000000")
	}
	v := p.memberView(w, r, "branding_title")
	v.Data = d
	return v, nil
}

// Branding shows the branding the hosted pages show the business's
// customers, and lets owners change it.
func (p *Pages) Branding(w http.ResponseWriter, r *Req) {
	v, err := p.brandingView(w, r)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	p.render(w, r.Request, http.StatusOK, "branding", v)
}

// errLogoRead is a logo upload that could not be read (the form is not
// multipart, or the upload broke off).
var errLogoRead = verifyd.Problems{{Field: "logo", Problem: "could not be read", Code: "logo_read"}}.Err()

// SaveBranding validates and stores the branding form (multipart: the
// text fields, an optional logo file, remove_logo).
func (p *Pages) SaveBranding(w http.ResponseWriter, r *Req) {
	in := branding.Input{DisplayName: r.PostFormValue("display_name"), AccentColour: r.PostFormValue("accent_colour"),
		SupportEmail: r.PostFormValue("support_email"), PrivacyURL: r.PostFormValue("privacy_url"),
		RemoveLogo: r.PostFormValue("remove_logo") == "yes"}
	f, _, err := r.FormFile("logo")
	switch {
	case errors.Is(err, http.ErrMissingFile):
	case err != nil:
		p.brandingError(w, r, in, errLogoRead)
		return
	default:
		// One byte over the limit is enough for CheckLogo to refuse it.
		in.Logo, err = io.ReadAll(io.LimitReader(f, branding.MaxLogoBytes+1))
		f.Close()
		if err != nil {
			p.brandingError(w, r, in, errLogoRead)
			return
		}
	}
	if _, err := p.data.Branding.Set(r.Member.Context(r.Context()), r.Member.Business.ID, in); err != nil {
		p.brandingError(w, r, in, err)
		return
	}
	done(w, r, Base+"/branding", "branding_saved")
}

// brandingError shows the form again with what was typed and each bad
// field named.
func (p *Pages) brandingError(w http.ResponseWriter, r *Req, in branding.Input, err error) {
	v, verr := p.brandingView(w, r)
	if verr != nil {
		p.failure(w, r.Request, verr)
		return
	}
	d := v.Data.(brandingData)
	d.DisplayName, d.AccentColour, d.SupportEmail, d.PrivacyURL = in.DisplayName, in.AccentColour, in.SupportEmail, in.PrivacyURL
	v.Data = d
	var e *verifyd.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		msg := ""
		for n, f := range e.Fields {
			if n > 0 {
				msg += " "
			}
			msg += texts.Msg(r.Lang, "field_"+f.Field) + ": " + problemText(r.Lang, f) + "."
		}
		v.Error = msg
		p.render(w, r.Request, http.StatusUnprocessableEntity, "branding", v)
		return
	}
	p.showError(w, r.Request, v, "branding", err)
}

// problemText is a field's problem in lang: its catalog text when it has
// a code, else the English text the API sends (the privacy URL's rules
// are shared with the API's URL checks and have no codes).
func problemText(lang string, f verifyd.FieldError) string {
	switch {
	case f.Code == "":
		return f.Problem
	case f.Arg == "":
		return texts.Msg(lang, "problem_"+f.Code)
	}
	return texts.Msg(lang, "problem_"+f.Code, f.Arg)
}

// Logo serves the business's logo as the hosted pages serve it.
func (p *Pages) Logo(w http.ResponseWriter, r *Req) {
	logo, err := p.data.Branding.Logo(r.Context(), r.Member.Business.ID)
	if err != nil {
		p.notFoundOr(w, r, err)
		return
	}
	_ = layout.WriteLogo(w, logo, "private, no-cache")
}
