package dashboard

import "github.com/verifyd/verifyd"

// Permission is something a role may or may not do. Every page may be read
// by every role; the permissions guard what changes data or shows more
// than the list of what exists.
type Permission string

// The permissions. docs/dashboard.md has them as a table.
const (
	// ManageKeys creates and revokes API keys (a new secret is shown).
	ManageKeys Permission = "manage_keys"
	// ManageRedirects changes the allowed-redirect lists.
	ManageRedirects Permission = "manage_redirects"
	// ManageWebhooks resends and tests webhooks.
	ManageWebhooks Permission = "manage_webhooks"
	// ViewImages shows a verification's images and identifying evidence.
	ViewImages Permission = "view_images"
	// Redact deletes a verification's personal data for good.
	Redact Permission = "redact"
	// ManageSettings changes the retention and the B2 live-capture policy.
	ManageSettings Permission = "manage_settings"
	// ManageUsers invites and removes users.
	ManageUsers Permission = "manage_users"
	// ViewAudit reads the business's audit log.
	ViewAudit Permission = "view_audit"
)

// grants lists what each role may do beyond reading.
var grants = map[verifyd.Role][]Permission{
	verifyd.RoleOwner:     {ManageKeys, ManageRedirects, ManageWebhooks, ViewImages, Redact, ManageSettings, ManageUsers, ViewAudit},
	verifyd.RoleDeveloper: {ManageKeys, ManageRedirects, ManageWebhooks, ViewImages, Redact},
	verifyd.RoleViewer:    {},
}

// Can reports whether role r has permission p. An unknown role has none.
func Can(r verifyd.Role, p Permission) bool {
	for _, g := range grants[r] {
		if g == p {
			return true
		}
	}
	return false
}

// ErrForbidden refuses what the user's role does not allow.
var ErrForbidden = verifyd.Errorf(verifyd.EForbidden, "your role does not allow this")
