package agehosted

import (
	"fmt"

	"github.com/verifyd/verifyd"
)

// The e-mails' texts in English, German and French: a subject and a body
// around the link or the code.
var mailTexts = map[string]map[verifyd.AgeMailPurpose][2]string{
	"en": {
		verifyd.AgeMailConfirm: {"Confirm your e-mail address – verifyd",
			"Hello,\n\nplease confirm that %[2]s is your address for your verifyd age-verification account by opening this link (valid for 24 hours):\n\n%[1]s\n\nIf you did not create an account, ignore this e-mail.\n"},
		verifyd.AgeMailReset: {"Choose a new password – verifyd",
			"Hello,\n\nsomeone asked to choose a new password for the verifyd account of %[2]s. Open this link within one hour to choose it:\n\n%[1]s\n\nIf it was not you, ignore this e-mail: your password stays as it is.\n"},
		verifyd.AgeMailCode: {"Your login code – verifyd",
			"Hello,\n\nyour code to log in to your verifyd account (%[2]s) is:\n\n%[1]s\n\nIt is valid for 10 minutes and once. If you did not ask for it, ignore this e-mail.\n"},
		verifyd.AgeMailDelete: {"Delete your verifyd account",
			"Hello,\n\nsomeone asked to delete the verifyd account of %[2]s. Open this link within one hour to delete it:\n\n%[1]s\n\nThe page asks you to confirm. If it was not you, ignore this e-mail: nothing is deleted.\n"},
	},
	"de": {
		verifyd.AgeMailConfirm: {"Bestätigen Sie Ihre E-Mail-Adresse – verifyd",
			"Guten Tag,\n\nbitte bestätigen Sie, dass %[2]s Ihre Adresse für Ihr verifyd-Konto zur Altersverifikation ist, indem Sie diesen Link öffnen (24 Stunden gültig):\n\n%[1]s\n\nWenn Sie kein Konto erstellt haben, ignorieren Sie diese E-Mail.\n"},
		verifyd.AgeMailReset: {"Neues Passwort wählen – verifyd",
			"Guten Tag,\n\njemand möchte ein neues Passwort für das verifyd-Konto von %[2]s wählen. Öffnen Sie diesen Link innerhalb einer Stunde, um es zu wählen:\n\n%[1]s\n\nWenn Sie es nicht waren, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist.\n"},
		verifyd.AgeMailCode: {"Ihr Anmeldecode – verifyd",
			"Guten Tag,\n\nIhr Code zur Anmeldung bei Ihrem verifyd-Konto (%[2]s) lautet:\n\n%[1]s\n\nEr gilt 10 Minuten und nur einmal. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.\n"},
		verifyd.AgeMailDelete: {"Ihr verifyd-Konto löschen",
			"Guten Tag,\n\njemand möchte das verifyd-Konto von %[2]s löschen. Öffnen Sie diesen Link innerhalb einer Stunde, um es zu löschen:\n\n%[1]s\n\nDie Seite fragt Sie noch einmal. Wenn Sie es nicht waren, ignorieren Sie diese E-Mail: Es wird nichts gelöscht.\n"},
	},
	"fr": {
		verifyd.AgeMailConfirm: {"Confirmez votre adresse e-mail – verifyd",
			"Bonjour,\n\nveuillez confirmer que %[2]s est votre adresse pour votre compte verifyd de vérification de l’âge en ouvrant ce lien (valable 24 heures) :\n\n%[1]s\n\nSi vous n’avez pas créé de compte, ignorez cet e-mail.\n"},
		verifyd.AgeMailReset: {"Choisir un nouveau mot de passe – verifyd",
			"Bonjour,\n\nquelqu’un a demandé à choisir un nouveau mot de passe pour le compte verifyd de %[2]s. Ouvrez ce lien dans l’heure pour le choisir :\n\n%[1]s\n\nSi ce n’était pas vous, ignorez cet e-mail : votre mot de passe ne change pas.\n"},
		verifyd.AgeMailCode: {"Votre code de connexion – verifyd",
			"Bonjour,\n\nvotre code pour vous connecter à votre compte verifyd (%[2]s) est :\n\n%[1]s\n\nIl est valable 10 minutes et une seule fois. Si vous ne l’avez pas demandé, ignorez cet e-mail.\n"},
		verifyd.AgeMailDelete: {"Supprimer votre compte verifyd",
			"Bonjour,\n\nquelqu’un a demandé la suppression du compte verifyd de %[2]s. Ouvrez ce lien dans l’heure pour le supprimer :\n\n%[1]s\n\nLa page vous demande de confirmer. Si ce n’était pas vous, ignorez cet e-mail : rien n’est supprimé.\n"},
	},
}

// mailText is an e-mail's subject and body in a language (English when
// the language has none).
func mailText(lang string, purpose verifyd.AgeMailPurpose, secret, email string) (string, string) {
	t, ok := mailTexts[lang][purpose]
	if !ok {
		t = mailTexts["en"][purpose]
	}
	return t[0], fmt.Sprintf(t[1], secret, email)
}
