package hosted

import (
	"context"
	"net/http"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/web/layout"
)

// The business's branding and the consent step (docs/hosted-flow.md
// "Consent"). Before the capture form the page shows the notice
// (layout.Brand: controller, processor, what, why, how long, the privacy
// policy) and asks for consent to the processing of the face; the answer
// is POST /verify/{token}/consent with answer=yes or answer=no. The logo
// and the accent colour's stylesheet are served from the page's own path,
// by token, so the page names no business id and its CSP stays 'self'.

// Brand returns the branding and notice of a business as the pages show
// them; logo and stylesheet are under base (a page's path). A business
// whose branding cannot be read gets none: the page still works.
func Brand(ctx context.Context, b *branding.Service, businessID, base string, retentionDays *int) *layout.Brand {
	if b == nil {
		return nil
	}
	n, err := b.Notice(ctx, businessID)
	if err != nil {
		return nil
	}
	out := &layout.Brand{Controller: n.Controller, SupportEmail: n.SupportEmail, PrivacyURL: n.PrivacyURL,
		Processor: n.Processor.Name, ProcessorContact: n.Processor.Contact, RetentionDays: n.RetentionDays}
	if retentionDays != nil {
		out.RetentionDays = *retentionDays
	}
	if n.LogoVersion != "" {
		out.LogoURL = base + "/logo?v=" + n.LogoVersion
	}
	if n.AccentColour != "" {
		out.CSSURL = base + "/brand.css?v=" + strings.TrimPrefix(n.AccentColour, "#")
	}
	return out
}

// ServeLogo writes a business's logo: the bytes verifyd re-encoded, with
// their own type, nosniff, and a long cache (the URL changes with the logo).
func ServeLogo(w http.ResponseWriter, r *http.Request, b *branding.Service, businessID string) error {
	if b == nil {
		return verifyd.ErrNotFound
	}
	logo, err := b.Logo(r.Context(), businessID)
	if err != nil {
		return err
	}
	return layout.WriteLogo(w, logo, "private, max-age=86400")
}

// ServeBrandCSS writes the stylesheet of a business's accent colour.
func ServeBrandCSS(w http.ResponseWriter, r *http.Request, b *branding.Service, businessID string) error {
	if b == nil {
		return verifyd.ErrNotFound
	}
	br, err := b.Get(r.Context(), businessID)
	if err != nil {
		return err
	}
	if br.AccentColour == "" {
		return verifyd.ErrNotFound
	}
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, max-age=86400")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(layout.BrandCSS(br.AccentColour))
	return err
}

// Logo serves the logo of the page's business.
func (hp *Pages) Logo(w http.ResponseWriter, r *http.Request) {
	hp.brandFile(w, r, ServeLogo)
}

// BrandCSS serves the accent colour's stylesheet of the page's business.
func (hp *Pages) BrandCSS(w http.ResponseWriter, r *http.Request) {
	hp.brandFile(w, r, ServeBrandCSS)
}

func (hp *Pages) brandFile(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request, *branding.Service, string) error) {
	h := hp.hostedRequest(r)
	v, err := hp.Identity.ByHostedToken(r.Context(), h.token)
	if err == nil && v.Environment != h.mount.Environment {
		err = verifyd.ErrNotFound
	}
	if err == nil {
		err = serve(w, r, hp.Branding, v.BusinessID)
	}
	if err != nil {
		hp.writeError(w, r, err)
	}
}

// Consent records the answer to the consent step (form: csrf, answer=yes
// or no) and shows the page again: the capture form after a yes, the end
// after a no (identity.DeclineHosted).
func (hp *Pages) Consent(w http.ResponseWriter, r *http.Request) {
	h, ok := hp.smallForm(w, r)
	if !ok {
		return
	}
	var err error
	switch r.PostForm.Get("answer") {
	case "yes":
		_, err = hp.Identity.ConsentHosted(r.Context(), h.token)
	case "no":
		_, err = hp.Identity.DeclineHosted(r.Context(), h.token)
	default:
		err = verifyd.InvalidFields([]verifyd.FieldError{{Field: "answer", Problem: "must be yes or no"}})
	}
	// Answered twice (two tabs, a double click): the page shows where it
	// stands.
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		err = nil
	}
	if err != nil {
		hp.hostedFail(w, r, h, err, nil)
		return
	}
	http.Redirect(w, r, h.pagePath(h.query()), http.StatusSeeOther)
}

// fillConsent sets what the consent step and the branding need.
func (hp *Pages) fillConsent(r *http.Request, d *PageData, h hostedReq, st identity.HostedState) {
	d.Brand = Brand(r.Context(), hp.Branding, st.BusinessID, h.pagePath(""), nil)
	d.NeedsConsent = st.NeedsConsent()
	d.ConsentTo = h.pagePath("/consent" + h.query())
	if st.Declined && d.Brand != nil {
		d.Detail = msg(h.lang, "consent_declined", d.Brand.Controller)
		d.NextStep = ""
	}
}
