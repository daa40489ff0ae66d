package dashpages

import (
	"net/http"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
)

// keyRow is one API key on the keys page.
type keyRow struct {
	Interface, Environment, APIKey string
	Created, Revoked               timeView
	Active                         bool
}

type keysData struct {
	Keys      []keyRow
	CanManage bool
	// Choices are the interface × environment pairs a key can be created
	// for (sandbox only for a sandbox-only business).
	Choices []keyChoice
	// New is a key just created, with its secret: shown on this response
	// only, never again.
	New *verifyd.Credential
}

type keyChoice struct{ Value, Interface, Environment string }

func (p *Pages) keysView(w http.ResponseWriter, r *Req) (view, error) {
	keys, err := p.svc.Keys(r.Context(), r.Member)
	if err != nil {
		return view{}, err
	}
	d := keysData{CanManage: r.Member.Can(dashboard.ManageKeys)}
	for _, k := range keys {
		row := keyRow{Interface: string(k.Interface), Environment: string(k.Environment), APIKey: k.APIKey,
			Created: showTime(k.CreatedAt), Active: k.Active()}
		if k.RevokedAt != nil {
			row.Revoked = showTime(*k.RevokedAt)
		}
		d.Keys = append(d.Keys, row)
	}
	for _, i := range verifyd.Interfaces {
		for _, e := range r.Member.Environments() {
			d.Choices = append(d.Choices, keyChoice{Value: string(i) + "/" + string(e), Interface: string(i), Environment: string(e)})
		}
	}
	v := p.memberView(w, r, "keys_title")
	v.Data = d
	return v, nil
}

// Keys lists the business's API keys.
func (p *Pages) Keys(w http.ResponseWriter, r *Req) {
	v, err := p.keysView(w, r)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	p.render(w, r.Request, http.StatusOK, "keys", v)
}

// splitPair reads "identity/sandbox".
func splitPair(s string) (verifyd.Interface, verifyd.Environment) {
	for _, i := range verifyd.Interfaces {
		for _, e := range verifyd.Environments {
			if s == string(i)+"/"+string(e) {
				return i, e
			}
		}
	}
	return "", ""
}

// CreateKey creates a key and shows its secret, once: the answer is the
// keys page itself (not a redirect), sent with no-store.
func (p *Pages) CreateKey(w http.ResponseWriter, r *Req) {
	i, e := splitPair(r.PostFormValue("kind"))
	c, err := p.svc.CreateKey(r.Context(), r.Member, i, e)
	v, verr := p.keysView(w, r)
	if verr != nil {
		p.failure(w, r.Request, verr)
		return
	}
	if err != nil {
		p.showError(w, r.Request, v, "keys", err)
		return
	}
	d := v.Data.(keysData)
	d.New = &c
	v.Data = d
	p.render(w, r.Request, http.StatusOK, "keys", v)
}

// RevokeKey revokes a key of the business.
func (p *Pages) RevokeKey(w http.ResponseWriter, r *Req) {
	if _, err := p.svc.RevokeKey(r.Context(), r.Member, r.PostFormValue("key")); err != nil {
		v, verr := p.keysView(w, r)
		if verr != nil {
			p.failure(w, r.Request, verr)
			return
		}
		p.showError(w, r.Request, v, "keys", err)
		return
	}
	done(w, r, Base+"/keys", "key_revoked")
}
