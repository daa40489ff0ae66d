package layout

import (
	"fmt"
	"net/http"
	"net/mail"
	"strings"

	"github.com/verifyd/verifyd"
)

// Brand is a business's branding and data protection notice as the
// person-facing pages show them (package branding decides the values): the
// business's name and logo at the top of every page, its accent colour,
// and the notice before anything is collected. The frame (layout.html)
// shows it when the page data's Brand is not nil.
type Brand struct {
	// Controller is the business as customers know it: it decides about
	// their data.
	Controller string
	// LogoURL is the business's logo on this origin ("" without one).
	LogoURL string
	// CSSURL is the stylesheet that applies the accent colour ("" for the
	// default colours).
	CSSURL string
	// SupportEmail and PrivacyURL are the business's ("" when not set).
	SupportEmail string
	PrivacyURL   string
	// Processor names this installation, which processes the data for
	// the business; ProcessorContact is how to reach it ("" when not set).
	Processor        string
	ProcessorContact string
	// RetentionDays is how long photos and what was read from them are
	// kept after the decision (0: deleted at the decision).
	RetentionDays int
	// Age tells the age pages' notice (what is shared: only the answer)
	// from the identity page's (what is collected from the document).
	Age bool
}

// ContactURL turns ProcessorContact into a link: mailto: for an address,
// the URL itself for an https URL, "" otherwise (shown as text).
func (b Brand) ContactURL() string {
	c := b.ProcessorContact
	switch {
	case strings.HasPrefix(c, "https://"):
		return c
	case c != "":
		if a, err := mail.ParseAddress(c); err == nil && a.Address == c {
			return "mailto:" + c
		}
	}
	return ""
}

// SupportURL is the mailto: link of SupportEmail.
func (b Brand) SupportURL() string { return "mailto:" + b.SupportEmail }

// WriteLogo answers with a business's logo: the bytes verifyd re-encoded
// (package branding), with their own type, nosniff and a sandboxing CSP,
// and the given Cache-Control.
func WriteLogo(w http.ResponseWriter, logo verifyd.Logo, cache string) error {
	h := w.Header()
	h.Set("Content-Type", logo.ContentType())
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", cache)
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(logo.Bytes)
	return err
}

// BrandCSS is the stylesheet of an accent colour "#rrggbb" (validated by
// package branding for contrast with white text): it recolours what the
// shared stylesheet draws in its default blue. Served as a file of this
// origin because the pages' CSP allows no inline style.
func BrandCSS(accent string) []byte {
	return []byte(fmt.Sprintf(`a, .link-button { color: %[1]s; }
:focus-visible { outline-color: %[1]s; }
.primary, button.primary, a.button.primary { background: %[1]s; border-color: %[1]s; color: #fff; }
.button, button { border-color: %[1]s; color: %[1]s; }
.choice:has(input:checked) { border-color: %[1]s; box-shadow: inset 0 0 0 1px %[1]s; }
.choice input { accent-color: %[1]s; }
.notice-review, .notice-processing, .notice-consent { border-color: %[1]s; }
.brand { border-bottom-color: %[1]s; }
`, accent))
}

// NoticeTexts are the notice's texts (brand.html); a page set that shows
// the notice merges them into its catalog.
var NoticeTexts = Catalog{
	"en": {
		"notice_what_age":   "What %s receives: only whether you are old enough (yes or no), never your name, your documents or your photos.",
		"notice_why_age":    "Why: %s must check the age of its users before it lets them in.",
		"notice_keep_age":   "How long: if you prove your age with a document, its photos and what was read from them are deleted as soon as your age is decided; your account keeps the answer until you delete it.",
		"notice_title":      "Before you start: your data",
		"notice_controller": "%s asks you to verify. %s decides what happens to your data (it is the controller).",
		"notice_processor":  "%s runs this verification service for them and processes your data only on their behalf (it is the processor).",
		"notice_contact":    "Contact of %s:",
		"notice_what":       "What is collected: photos of your identity document, a selfie and a few seconds of your face following movements on screen, and what is printed on the document (name, date of birth, document number, expiry).",
		"notice_why":        "Why: to check that the document is genuine and valid, that you are the person it shows, and that you are present in front of the camera.",
		"notice_keep":       "How long: the photos and what was read from them are deleted %d days after the decision; %s keeps the result.",
		"notice_keep_now":   "How long: the photos and what was read from them are deleted as soon as the decision is made; %s keeps the result.",
		"notice_privacy":    "Privacy policy of %s",
		"notice_support":    "Questions:",
		"consent_biometric": "Your face is biometric data. Your selfie is compared with the photo on your document, and the movements of your face are checked to tell a live person from a photo or a screen.",
		"consent_question":  "Do you agree to this processing of your face?",
		"consent_yes":       "I agree",
		"consent_no":        "I do not agree",
		"consent_no_hint":   "If you do not agree, the verification ends here and nothing is collected.",
		"consent_declined":  "You did not agree, so the verification has ended and nothing was collected. If you change your mind, ask %s for a new verification.",
		"notice_logo_alt":   "%s logo",
	},
	"de": {
		"notice_what_age":   "Was %s erhält: nur, ob Sie alt genug sind (ja oder nein), nie Ihren Namen, Ihre Dokumente oder Ihre Fotos.",
		"notice_why_age":    "Wozu: %s muss das Alter seiner Nutzer prüfen, bevor es sie einlässt.",
		"notice_keep_age":   "Wie lange: Wenn Sie Ihr Alter mit einem Dokument nachweisen, werden dessen Fotos und die daraus gelesenen Angaben gelöscht, sobald Ihr Alter feststeht; Ihr Konto behält die Antwort, bis Sie es löschen.",
		"notice_title":      "Bevor Sie beginnen: Ihre Daten",
		"notice_controller": "%s bittet Sie um eine Überprüfung. %s entscheidet über Ihre Daten (Verantwortlicher).",
		"notice_processor":  "%s betreibt diesen Prüfdienst für sie und verarbeitet Ihre Daten nur in ihrem Auftrag (Auftragsverarbeiter).",
		"notice_contact":    "Kontakt von %s:",
		"notice_what":       "Was erfasst wird: Fotos Ihres Ausweisdokuments, ein Selfie und wenige Sekunden Ihres Gesichts, das Bewegungen auf dem Bildschirm folgt, sowie die Angaben auf dem Dokument (Name, Geburtsdatum, Dokumentnummer, Ablaufdatum).",
		"notice_why":        "Wozu: um zu prüfen, dass das Dokument echt und gültig ist, dass Sie die abgebildete Person sind und dass Sie vor der Kamera anwesend sind.",
		"notice_keep":       "Wie lange: Die Fotos und die daraus gelesenen Angaben werden %d Tage nach der Entscheidung gelöscht; %s behält das Ergebnis.",
		"notice_keep_now":   "Wie lange: Die Fotos und die daraus gelesenen Angaben werden gelöscht, sobald entschieden ist; %s behält das Ergebnis.",
		"notice_privacy":    "Datenschutzerklärung von %s",
		"notice_support":    "Fragen:",
		"consent_biometric": "Ihr Gesicht ist ein biometrisches Merkmal. Ihr Selfie wird mit dem Foto auf Ihrem Dokument verglichen, und die Bewegungen Ihres Gesichts werden geprüft, um eine lebende Person von einem Foto oder Bildschirm zu unterscheiden.",
		"consent_question":  "Sind Sie mit dieser Verarbeitung Ihres Gesichts einverstanden?",
		"consent_yes":       "Ich bin einverstanden",
		"consent_no":        "Ich bin nicht einverstanden",
		"consent_no_hint":   "Wenn Sie nicht einverstanden sind, endet die Überprüfung hier und es wird nichts erfasst.",
		"consent_declined":  "Sie waren nicht einverstanden; die Überprüfung ist beendet und es wurde nichts erfasst. Wenn Sie es sich anders überlegen, bitten Sie %s um eine neue Überprüfung.",
		"notice_logo_alt":   "Logo von %s",
	},
	"fr": {
		"notice_what_age":   "Ce que %s reçoit : seulement si vous avez l’âge requis (oui ou non), jamais votre nom, vos documents ou vos photos.",
		"notice_why_age":    "Pourquoi : %s doit vérifier l’âge de ses utilisateurs avant de les laisser entrer.",
		"notice_keep_age":   "Combien de temps : si vous prouvez votre âge avec un document, ses photos et ce qui en a été lu sont supprimés dès que votre âge est établi ; votre compte garde la réponse jusqu’à ce que vous le supprimiez.",
		"notice_title":      "Avant de commencer : vos données",
		"notice_controller": "%s vous demande une vérification. %s décide de l’usage de vos données (responsable du traitement).",
		"notice_processor":  "%s exploite ce service de vérification pour son compte et ne traite vos données que sur ses instructions (sous-traitant).",
		"notice_contact":    "Contact de %s :",
		"notice_what":       "Ce qui est recueilli : des photos de votre pièce d’identité, un selfie et quelques secondes de votre visage suivant des mouvements à l’écran, ainsi que ce qui est imprimé sur le document (nom, date de naissance, numéro, date d’expiration).",
		"notice_why":        "Pourquoi : vérifier que le document est authentique et valide, que vous êtes la personne qu’il montre et que vous êtes présent devant la caméra.",
		"notice_keep":       "Combien de temps : les photos et ce qui en a été lu sont supprimés %d jours après la décision ; %s conserve le résultat.",
		"notice_keep_now":   "Combien de temps : les photos et ce qui en a été lu sont supprimés dès la décision ; %s conserve le résultat.",
		"notice_privacy":    "Politique de confidentialité de %s",
		"notice_support":    "Questions :",
		"consent_biometric": "Votre visage est une donnée biométrique. Votre selfie est comparé à la photo de votre document, et les mouvements de votre visage sont contrôlés pour distinguer une personne réelle d’une photo ou d’un écran.",
		"consent_question":  "Acceptez-vous ce traitement de votre visage ?",
		"consent_yes":       "J’accepte",
		"consent_no":        "Je refuse",
		"consent_no_hint":   "Si vous refusez, la vérification s’arrête ici et rien n’est recueilli.",
		"consent_declined":  "Vous avez refusé : la vérification est terminée et rien n’a été recueilli. Si vous changez d’avis, demandez une nouvelle vérification à %s.",
		"notice_logo_alt":   "Logo de %s",
	},
}
