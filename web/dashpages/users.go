package dashpages

import (
	"net/http"
	"strings"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
)

type userRow struct {
	ID, Name, Email, Role string
	Created, Disabled     timeView
	Active, Self          bool
}

type invitationRow struct {
	ID, Email, Role string
	Expires         timeView
}

type usersData struct {
	Users       []userRow
	Invitations []invitationRow
	Roles       []string
	// Link is the link of an invitation just made: shown once, unless it
	// was e-mailed to the invited address (Mailed); MailFailed says that
	// e-mailing it failed, so the link is shown instead.
	Link, LinkEmail    string
	Mailed, MailFailed bool
	// Email and Role are kept in the form after a refusal.
	Email, Role string
}

func (p *Pages) usersView(w http.ResponseWriter, r *Req) (view, error) {
	users, invs, err := p.svc.Users(r.Context(), r.Member)
	if err != nil {
		return view{}, err
	}
	d := usersData{}
	for _, role := range verifyd.Roles {
		d.Roles = append(d.Roles, string(role))
	}
	for _, u := range users {
		row := userRow{ID: u.ID, Name: u.Name, Email: u.Email, Role: string(u.Role), Created: showTime(u.CreatedAt),
			Active: u.Active(), Self: u.ID == r.Member.User.ID}
		if u.DisabledAt != nil {
			row.Disabled = showTime(*u.DisabledAt)
		}
		d.Users = append(d.Users, row)
	}
	for _, inv := range invs {
		d.Invitations = append(d.Invitations, invitationRow{ID: dashboard.InvitationID(inv), Email: inv.Email, Role: string(inv.Role), Expires: showTime(inv.ExpiresAt)})
	}
	v := p.memberView(w, r, "users_title")
	v.Data = d
	return v, nil
}

// Users lists the business's users and open invitations.
func (p *Pages) Users(w http.ResponseWriter, r *Req) {
	v, err := p.usersView(w, r)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	p.render(w, r.Request, http.StatusOK, "users", v)
}

// invitationLink is the absolute link of an invitation token: under the
// dashboard's configured URL, else on the origin the owner is using.
func (p *Pages) invitationLink(r *http.Request, token string) string {
	if link := p.svc.InvitationLink(token); link != "" {
		return link
	}
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host + Base + "/invitations/" + token
}

// InviteUser invites a person and shows the invitation link, once.
func (p *Pages) InviteUser(w http.ResponseWriter, r *Req) {
	email, role := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("role")
	inv, token, err := p.svc.InviteUser(r.Context(), r.Member, email, verifyd.Role(role))
	v, verr := p.usersView(w, r)
	if verr != nil {
		p.failure(w, r.Request, verr)
		return
	}
	d := v.Data.(usersData)
	if err != nil {
		d.Email, d.Role = email, role
		v.Data = d
		p.showError(w, r.Request, v, "users", err)
		return
	}
	d.Link, d.LinkEmail = p.invitationLink(r.Request, token), inv.Email
	if p.svc.MailsInvitationsOf(r.Member.Business) {
		// In the inviter's language: the only one the page knows.
		if err := p.svc.MailInvitation(r.Context(), inv, d.Link, v.Lang); err != nil {
			p.log.ErrorContext(r.Context(), "dashboard invitation e-mail", "err", err)
			d.MailFailed = true
		} else {
			// The link is a bearer secret: it went to the invited address
			// and is not shown here too.
			d.Mailed, d.Link = true, ""
		}
	}
	v.Data = d
	p.render(w, r.Request, http.StatusOK, "users", v)
}

// usersError shows the users page with a refused change's error.
func (p *Pages) usersError(w http.ResponseWriter, r *Req, err error) {
	v, verr := p.usersView(w, r)
	if verr != nil {
		p.failure(w, r.Request, verr)
		return
	}
	p.showError(w, r.Request, v, "users", err)
}

// RemoveUser removes a user of the business.
func (p *Pages) RemoveUser(w http.ResponseWriter, r *Req) {
	if _, err := p.svc.RemoveUser(r.Context(), r.Member, r.PathValue("id")); err != nil {
		p.usersError(w, r, err)
		return
	}
	done(w, r, Base+"/users", "user_removed")
}

// WithdrawInvitation deletes an open invitation.
func (p *Pages) WithdrawInvitation(w http.ResponseWriter, r *Req) {
	if err := p.svc.WithdrawInvitation(r.Context(), r.Member, r.PathValue("id")); err != nil {
		p.usersError(w, r, err)
		return
	}
	done(w, r, Base+"/users", "invitation_withdrawn")
}

// SetRole changes another user's role.
func (p *Pages) SetRole(w http.ResponseWriter, r *Req) {
	if _, err := p.svc.SetRole(r.Context(), r.Member, r.PathValue("id"), verifyd.Role(r.PostFormValue("role"))); err != nil {
		p.usersError(w, r, err)
		return
	}
	done(w, r, Base+"/users", "role_changed")
}
