package dashpages

import (
	"net/http"

	"github.com/verifyd/verifyd"
)

// auditLimit is how many entries the audit page shows (the newest).
const auditLimit = 500

type auditRow struct {
	At                                        timeView
	ActorKind, Actor, Action, Subject, Detail string
}

// Audit shows the business's audit log, newest first. Business users are
// named by name and address, which the log itself does not keep.
func (p *Pages) Audit(w http.ResponseWriter, r *Req) {
	entries, err := p.svc.Audit(r.Context(), r.Member, auditLimit)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	users, _, err := p.svc.Users(r.Context(), r.Member)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	names := map[string]string{}
	for _, u := range users {
		names[u.ID] = u.Name + " <" + u.Email + ">"
	}
	rows := make([]auditRow, 0, len(entries))
	for n := len(entries) - 1; n >= 0; n-- {
		e := entries[n]
		actor := e.Actor.Name
		if e.Actor.Kind == verifyd.ActorBusinessUser && names[actor] != "" {
			actor = names[actor]
		}
		rows = append(rows, auditRow{At: showTime(e.At), ActorKind: string(e.Actor.Kind), Actor: actor,
			Action: e.Action, Subject: e.Subject, Detail: e.Detail})
	}
	v := p.memberView(w, r, "audit_title")
	v.Data = rows
	p.render(w, r.Request, http.StatusOK, "audit", v)
}
