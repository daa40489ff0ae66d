package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
)

// TestInvitationMessage: the invitation e-mail names the business, the
// role and the expiry in the asked language (English for any other), and
// carries the link; it goes to the invited address only.
func TestInvitationMessage(t *testing.T) {
	t.Parallel()
	inv := verifyd.Invitation{Email: "ada@example.com", Role: verifyd.RoleViewer,
		ExpiresAt: time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)}
	b := verifyd.Business{Name: "Kino & Söhne"}
	const link = "https://dash.example/dashboard/invitations/tok"
	for _, tc := range []struct{ lang, subject, role string }{
		{"en", "Invitation to the Kino & Söhne dashboard – verifyd", "as viewer"},
		{"de", "Einladung zum Dashboard von Kino & Söhne – verifyd", "als Betrachter"},
		{"fr", "Invitation au tableau de bord de Kino & Söhne – verifyd", "en tant que lecteur"},
		{"xx", "Invitation to the Kino & Söhne dashboard – verifyd", "as viewer"},
	} {
		m := dashboard.InvitationMessage(inv, b, link, tc.lang)
		if m.To != inv.Email || m.Subject != tc.subject || !strings.Contains(m.Body, tc.role) ||
			!strings.Contains(m.Body, "\n"+link+"\n") || !strings.Contains(m.Body, "2026-03-08 12:00:00") {
			t.Errorf("%s: %+v", tc.lang, m)
		}
	}
}
