package dashpages

import (
	"net/http"

	"github.com/verifyd/verifyd/dashboard"
)

type redirectsData struct {
	Lists     []listView
	CanManage bool
	// URL is a rejected URL, kept in its field.
	URL string
}

type listView struct {
	Kind, Interface, Environment string
	URLs                         []string
}

func (p *Pages) redirectsView(w http.ResponseWriter, r *Req) (view, error) {
	lists, err := p.svc.Redirects(r.Context(), r.Member)
	if err != nil {
		return view{}, err
	}
	d := redirectsData{CanManage: r.Member.Can(dashboard.ManageRedirects)}
	for _, l := range lists {
		d.Lists = append(d.Lists, listView{Kind: string(l.Interface) + "/" + string(l.Environment),
			Interface: string(l.Interface), Environment: string(l.Environment), URLs: l.URLs})
	}
	v := p.memberView(w, r, "redirects_title")
	v.Data = d
	return v, nil
}

// Redirects shows the allowed-redirect lists, one per interface and
// environment.
func (p *Pages) Redirects(w http.ResponseWriter, r *Req) {
	v, err := p.redirectsView(w, r)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	p.render(w, r.Request, http.StatusOK, "redirects", v)
}

// AddRedirect adds a URL to a list, with API C's rules.
func (p *Pages) AddRedirect(w http.ResponseWriter, r *Req) {
	i, e := splitPair(r.PostFormValue("list"))
	if err := p.svc.AddRedirect(r.Context(), r.Member, i, e, r.PostFormValue("url")); err != nil {
		v, verr := p.redirectsView(w, r)
		if verr != nil {
			p.failure(w, r.Request, verr)
			return
		}
		d := v.Data.(redirectsData)
		d.URL = r.PostFormValue("url")
		v.Data = d
		p.showError(w, r.Request, v, "redirects", err)
		return
	}
	done(w, r, Base+"/redirects", "redirect_added")
}

// RemoveRedirect removes a URL from a list.
func (p *Pages) RemoveRedirect(w http.ResponseWriter, r *Req) {
	i, e := splitPair(r.PostFormValue("list"))
	if err := p.svc.RemoveRedirect(r.Context(), r.Member, i, e, r.PostFormValue("url")); err != nil {
		v, verr := p.redirectsView(w, r)
		if verr != nil {
			p.failure(w, r.Request, verr)
			return
		}
		p.showError(w, r.Request, v, "redirects", err)
		return
	}
	done(w, r, Base+"/redirects", "redirect_removed")
}
