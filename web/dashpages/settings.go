package dashpages

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
)

type settingsData struct {
	RetentionDays, MaxRetentionDays int
	DirectLiveness                  string
	SandboxOnly, CanManage          bool
}

func (p *Pages) settingsView(w http.ResponseWriter, r *Req) view {
	b := r.Member.Business
	v := p.memberView(w, r, "settings_title")
	v.Data = settingsData{RetentionDays: b.RetentionDays, MaxRetentionDays: verifyd.MaxRetentionDays,
		DirectLiveness: string(b.DirectLiveness), SandboxOnly: b.SandboxOnly, CanManage: r.Member.Can(dashboard.ManageSettings)}
	return v
}

// Settings shows the business's retention and live-capture policy.
func (p *Pages) Settings(w http.ResponseWriter, r *Req) {
	p.render(w, r.Request, http.StatusOK, "settings", p.settingsView(w, r))
}

// errRetention refuses a retention that is not a number of days in range.
var errRetention = verifyd.Errorf(verifyd.EInvalid, "retention")

// SaveSettings changes the settings that differ from the stored ones.
func (p *Pages) SaveSettings(w http.ResponseWriter, r *Req) {
	days, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("retention_days")))
	if err != nil || !verifyd.ValidRetentionDays(days) {
		p.showError(w, r.Request, p.settingsView(w, r), "settings", errRetention)
		return
	}
	b := r.Member.Business
	if days != b.RetentionDays {
		if b, err = p.svc.SetRetentionDays(r.Context(), r.Member, days); err != nil {
			p.showError(w, r.Request, p.settingsView(w, r), "settings", err)
			return
		}
	}
	if dl := verifyd.DirectLiveness(r.PostFormValue("direct_liveness")); dl != b.DirectLiveness {
		if _, err = p.svc.SetDirectLiveness(r.Context(), r.Member, dl); err != nil {
			p.showError(w, r.Request, p.settingsView(w, r), "settings", err)
			return
		}
	}
	done(w, r, Base+"/settings", "settings_saved")
}
