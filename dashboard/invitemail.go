package dashboard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/mailer"
)

// Invitation e-mails (docs/dashboard.md "Invitations by e-mail"). With a
// mailer configured, an invitation's link goes to the invited address;
// without one, whoever invited is shown (dashboard) or printed (command
// line) the link and sends it. The link is the bearer secret of the
// invitation, so it is only ever sent to the invited address.

// invitationTexts are the e-mail's subject and body by language: the
// business's name, the role, the link and its expiry.
var invitationTexts = map[string][2]string{
	"en": {"Invitation to the %[1]s dashboard – verifyd",
		"Hello,\n\nyou are invited to join the verification dashboard of %[1]s as %[2]s.\n\nOpen this link to choose your name and password and set up an authenticator app:\n\n%[3]s\n\nThe link works once, until %[4]s (UTC). If you did not expect this invitation, ignore this e-mail.\n"},
	"de": {"Einladung zum Dashboard von %[1]s – verifyd",
		"Guten Tag,\n\nSie sind eingeladen, dem Verifikations-Dashboard von %[1]s als %[2]s beizutreten.\n\nÖffnen Sie diesen Link, um Ihren Namen und Ihr Passwort zu wählen und eine Authenticator-App einzurichten:\n\n%[3]s\n\nDer Link funktioniert einmal, bis %[4]s (UTC). Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie diese E-Mail.\n"},
	"fr": {"Invitation au tableau de bord de %[1]s – verifyd",
		"Bonjour,\n\nvous êtes invité à rejoindre le tableau de bord de vérification de %[1]s en tant que %[2]s.\n\nOuvrez ce lien pour choisir votre nom et votre mot de passe et configurer une application d’authentification :\n\n%[3]s\n\nLe lien fonctionne une fois, jusqu’au %[4]s (UTC). Si vous n’attendiez pas cette invitation, ignorez cet e-mail.\n"},
}

// roleNames are the roles as the e-mail names them.
var roleNames = map[string]map[verifyd.Role]string{
	"en": {verifyd.RoleOwner: "owner", verifyd.RoleDeveloper: "developer", verifyd.RoleViewer: "viewer"},
	"de": {verifyd.RoleOwner: "Inhaber", verifyd.RoleDeveloper: "Entwickler", verifyd.RoleViewer: "Betrachter"},
	"fr": {verifyd.RoleOwner: "propriétaire", verifyd.RoleDeveloper: "développeur", verifyd.RoleViewer: "lecteur"},
}

// ErrNoMailer refuses to e-mail an invitation when no mailer is
// configured.
var ErrNoMailer = errors.New("dashboard: no mailer is configured")

// MailOn reports whether invitations are e-mailed.
func (s *Service) MailOn() bool { return s.cfg.Mailer != nil }

// MailsInvitationsOf reports whether b's invitations are e-mailed: with a
// mailer, and never for a sandbox-only business. Anyone creates one of
// those when sign-up is open, so e-mailing its invitations would let
// anyone have the installation send mail to any address, under a business
// name of their choosing (spam, phishing); its owners are shown the link.
func (s *Service) MailsInvitationsOf(b verifyd.Business) bool { return s.MailOn() && !b.SandboxOnly }

// ErrSandboxOnlyMail refuses to e-mail an invitation of a sandbox-only
// business (MailsInvitationsOf).
var ErrSandboxOnlyMail = errors.New("dashboard: invitations of sandbox-only businesses are not e-mailed")

// InvitationMessage is the e-mail of an invitation whose link is link, in
// lang (en, de or fr; English otherwise), to the invited address.
func InvitationMessage(inv verifyd.Invitation, business verifyd.Business, link, lang string) mailer.Message {
	t, ok := invitationTexts[lang]
	if !ok {
		lang, t = "en", invitationTexts["en"]
	}
	role := roleNames[lang][inv.Role]
	if role == "" {
		role = string(inv.Role)
	}
	return mailer.Message{To: inv.Email, Subject: fmt.Sprintf(t[0], business.Name),
		Body: fmt.Sprintf(t[1], business.Name, role, link, inv.ExpiresAt.UTC().Format(time.DateTime))}
}

// MailInvitation e-mails an invitation's link (InvitationLink, or the
// link the page built) to the invited address in lang.
func (s *Service) MailInvitation(ctx context.Context, inv verifyd.Invitation, link, lang string) error {
	if s.cfg.Mailer == nil {
		return ErrNoMailer
	}
	b, err := s.store.Business(ctx, inv.BusinessID)
	if err != nil {
		return err
	}
	if !s.MailsInvitationsOf(b) {
		return ErrSandboxOnlyMail
	}
	return s.cfg.Mailer.Send(ctx, InvitationMessage(inv, b, link, lang))
}
