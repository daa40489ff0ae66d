package dashpages

import (
	"strings"

	"github.com/verifyd/verifyd/dashboard"
)

// navItem is one entry of the navigation: shown to the roles that have
// Need (everyone when "").
type navItem struct {
	Path string // under Base
	Key  string // catalog key of the label
	Need dashboard.Permission
}

// nav is the navigation, in order. A new page adds its entry here.
var nav = []navItem{
	{"/verifications", "nav_verifications", ""},
	{"/webhooks", "nav_webhooks", ""},
	{"/keys", "nav_keys", ""},
	{"/redirects", "nav_redirects", ""},
	{"/settings", "nav_settings", ""},
	{"/branding", "nav_branding", ""},
	{"/users", "nav_users", dashboard.ManageUsers},
	{"/audit", "nav_audit", dashboard.ViewAudit},
	{"/security", "nav_security", ""},
}

type navLink struct {
	URL, Key string
	Current  bool
}

// navFor is the navigation a member sees on the page at path.
func navFor(m dashboard.Member, path string) []navLink {
	var out []navLink
	for _, n := range nav {
		if n.Need != "" && !m.Can(n.Need) {
			continue
		}
		u := Base + n.Path
		out = append(out, navLink{URL: u, Key: n.Key, Current: path == u || strings.HasPrefix(path, u+"/")})
	}
	return out
}
