package hosted

import (
	"net/http"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
	"golang.org/x/text/unicode/norm"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/web/layout"
)

// defaultCountry guesses the document country from the browser's
// preferred language region (de-CH → che), or "" when unsure.
func defaultCountry(r *http.Request) string {
	tags, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	for _, t := range tags {
		region, conf := t.Region()
		if conf < language.High {
			continue
		}
		if c := strings.ToLower(region.ISO3()); verifyd.ValidDocumentCountry(c) {
			return c
		}
	}
	return ""
}

// country is one option of the issuing-country list.
type country struct {
	Code, Name string
}

// countryLists holds SPEC's document countries with their names in each
// page language, sorted by name.
var countryLists = func() map[string][]country {
	out := map[string][]country{}
	for _, tag := range layout.Tags() {
		names := display.Regions(tag)
		b, _ := tag.Base()
		var list []country
		for _, code := range verifyd.DocumentCountryCodes() {
			name := ""
			if region, err := language.ParseRegion(code); err == nil {
				name = names.Name(region)
			}
			if code == "rks" { // Kosovo has no ISO 3166 code; SPEC uses RKS as ICAO does.
				name = "Kosovo"
			}
			if name == "" {
				name = strings.ToUpper(code)
			}
			list = append(list, country{Code: code, Name: name})
		}
		slices.SortFunc(list, func(a, b country) int { return strings.Compare(sortKey(a.Name), sortKey(b.Name)) })
		out[b.String()] = list
	}
	return out
}()

// sortKey folds case and accents so that "Österreich" sorts with O.
func sortKey(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// hostedTexts are the hosted page's strings, by language then key. The
// page's script receives the keys it needs (jsKeys) as JSON.
var hostedTexts = layout.Catalog{
	"en": {
		"title":                  "Identity verification",
		"intro":                  "To confirm your identity, photograph your identity document and take a selfie. It takes about two minutes.",
		"expires":                "This link is valid until %s (UTC).",
		"step_document":          "Your document",
		"doc_type_legend":        "Type of document",
		"doc_IdCard":             "Identity card",
		"doc_DriverLicense":      "Driving licence",
		"doc_Passport":           "Passport",
		"doc_ResidencePermit":    "Residence permit",
		"country_label":          "Issuing country",
		"country_choose":         "Choose a country",
		"step_front":             "Front of the document",
		"front_hint":             "For a passport: the page with your photo.",
		"step_back":              "Back of the document",
		"back_hint":              "Needed for identity cards, driving licences and residence permits, not for passports.",
		"step_selfie":            "Selfie",
		"doc_tips":               "Place the document on a dark, plain surface. All four corners must be visible, without glare or blur.",
		"selfie_tips":            "Look straight into the camera, with your face uncovered and well lit.",
		"file_front":             "Photo of the front",
		"file_back":              "Photo of the back",
		"file_selfie":            "Photo of your face",
		"file_hint":              "JPEG, PNG or WebP, at most 10 MB.",
		"use_camera":             "Take a photo",
		"retake":                 "Take again",
		"choose_another":         "Choose another file",
		"expires_local":          "This link is valid until %s.",
		"choose_again":           "Your browser does not keep chosen files when the page reloads. Please choose these photos again: %s.",
		"next_failed":            "If you think this is a mistake, contact the organisation that sent you here: only they can start a new verification.",
		"next_not_found":         "If you came here from a shop or a service, go back to it and start the verification again: it gives you a new link. If it keeps failing, contact its support.",
		"kept_photo":             "Kept from your previous attempt: you only need to take it again if you want to.",
		"upload_progress":        "Upload progress",
		"uploading":              "Sending your photos… %d%%",
		"camera_capture":         "Capture",
		"camera_cancel":          "Cancel",
		"camera_doc":             "Fit the document inside the frame and hold still.",
		"camera_face":            "Place your face inside the oval.",
		"camera_hold":            "Hold still for a moment…",
		"handoff_title":          "Continue on your phone",
		"handoff_intro":          "Scan this code with your phone’s camera, or open the link below on your phone: the same verification continues there, with its camera.",
		"handoff_qr_alt":         "QR code of the link to this verification",
		"handoff_link":           "Link to this verification",
		"handoff_copy":           "Copy link",
		"handoff_copied":         "Link copied.",
		"handoff_follow":         "Keep this page open: it shows the result as soon as your phone has sent the photos. Do not share the link: it gives access to this verification.",
		"guide_outside":          "Move the document into the frame: all four edges must be inside it.",
		"guide_blur":             "The picture is blurred: hold the phone still and let it focus.",
		"guide_glare":            "Light is reflected on the document: tilt it slightly or avoid direct light.",
		"guide_dark":             "It is too dark: move to a brighter place.",
		"guide_face_none":        "Place your face inside the oval.",
		"guide_face_light":       "Your face is too dark or lit from behind: face the light.",
		"guide_face_ok":          "Good. Press Capture when you are ready.",
		"camera_starting":        "Starting the camera…",
		"camera_unavailable":     "The camera is not available (there is none, or permission was denied). Please upload a photo instead.",
		"photo_taken":            "%s: photo taken.",
		"photo_chosen":           "%s: photo chosen.",
		"preview_alt":            "Preview: %s",
		"submit":                 "Send for verification",
		"sending":                "Sending your photos…",
		"privacy":                "Your photos are stored encrypted and used only to verify your identity.",
		"field_front":            "Front of the document",
		"field_back":             "Back of the document",
		"field_selfie":           "Selfie",
		"field_document_type":    "Type of document",
		"field_document_country": "Issuing country",

		"state_capture":                   "Photograph your document and take a selfie.",
		"state_processing":                "We are checking your photos. This usually takes less than a minute; this page updates by itself.",
		"refresh":                         "Refresh",
		"state_retry":                     "We could not use your photos. Please try again.",
		"state_review":                    "Thank you. Your verification is being reviewed by our team. The organisation that sent you here will receive the result. You can close this page.",
		"state_approved":                  "Thank you. Your identity has been verified.",
		"state_failed":                    "Your identity could not be verified.",
		"state_expired":                   "This verification link has expired. Please ask the organisation that sent you here for a new one.",
		"attempts_left":                   "Attempts left: %d",
		"fix_blur":                        "The photo was blurred. Hold the phone still, let the camera focus, and make sure there is enough light.",
		"fix_glare":                       "Light was reflected on the document. Avoid direct light and tilt the document slightly.",
		"fix_light":                       "The photo was too dark or too bright. Move to an evenly lit place.",
		"fix_small":                       "The document was too small in the photo. Move the camera closer so that the document fills the frame.",
		"fix_cutoff":                      "Part of the document was cut off or covered. Keep all four corners inside the frame and your fingers off the document.",
		"fix_unreadable":                  "The information on the document could not be read. Take a sharp photo straight from above, with all the text readable.",
		"fix_image_document_front":        "This concerns the front of the document.",
		"fix_image_document_back":         "This concerns the back of the document.",
		"fix_image_selfie":                "This concerns the selfie.",
		"live_title":                      "Follow the movements",
		"live_intro":                      "Now follow the movements shown here, one after the other. This shows that a real person is in front of the camera.",
		"live_lead_in":                    "Look straight at the camera.",
		"live_turn_left":                  "Turn your head to your left.",
		"live_turn_right":                 "Turn your head to your right.",
		"live_look_up":                    "Look up.",
		"live_blink":                      "Blink.",
		"live_closer":                     "Move your face closer to the camera.",
		"live_progress":                   "Movement %d of %d",
		"live_manual":                     "I can’t do this movement – ask for a manual check",
		"live_manual_done":                "A person will check your selfie instead of the movements.",
		"live_done":                       "Done. Thank you.",
		"live_failed":                     "The movement check could not start. Take the selfie again, or upload a photo: a person will then check it.",
		"err_liveness_spent":              "The movement check expired or was already used. Please take the selfie again.",
		"err_liveness_frames":             "The recorded movements could not be used. Please take the selfie again.",
		"fix_liveness":                    "We could not confirm the movements. Take the selfie again and follow each prompt as it appears, with your whole face in the frame and enough light.",
		"reason_expired_id":               "The document has expired.",
		"reason_id_scan_error":            "The information on the document could not be read.",
		"reason_idv_error":                "The verification could not be completed.",
		"reason_invalid_id":               "This document is not supported or not valid.",
		"reason_liveness_error":           "The selfie check did not succeed.",
		"reason_minor":                    "You must be at least 18 years old.",
		"reason_partial_id":               "Part of the document was covered or cut off.",
		"reason_photo_mismatch":           "The selfie does not match the photo on the document.",
		"reason_poor_id_scan_error":       "The photos were not good enough to read the document.",
		"reason_potential_fraud":          "The verification could not be accepted.",
		"reason_server_error_unavailable": "The service is temporarily unavailable.",
		"continue":                        "Continue",
		"continue_hint":                   "Return to the site that sent you here.",

		"errors_title":        "Please correct the following:",
		"err_required":        "%s: this is required.",
		"err_invalid":         "%s: choose one of the options in the list.",
		"err_image_required":  "%s: please add a photo.",
		"err_image_too_large": "%s: the photo is larger than 10 MB.",
		"err_image_format":    "%s: the file must be a JPEG, PNG or WebP image.",
		"err_image_too_small": "%s: the photo is too small (at least 64 pixels on each side).",
		"err_image_too_big":   "%s: the photo has too many pixels (at most 50 megapixels).",
		"err_conflict":        "This verification cannot take photos right now. The page shows its current state.",
		"err_csrf":            "This page has expired in your browser. Please reload it and try again.",
		"err_too_large":       "The photos are too large together (at most 10 MB each). Please use smaller photos.",
		"err_network":         "Your photos could not be sent. Check your connection and try again.",
		"err_generic":         "Something went wrong. Please try again.",
		"not_found":           "This verification link is not valid. Please check the link or ask the organisation that sent you here for a new one.",

		"sandbox_title":    "Sandbox: choose the outcome",
		"sandbox_intro":    "This is a sandbox verification: no real checks run. A submission gets the outcome tagged in the customer's e-mail address (name+TAG@…, e.g. +review or +minor); here you can choose one instead. The integrator receives the same webhooks as in production. Production pages never show this panel.",
		"sandbox_outcome":  "Outcome",
		"sandbox_approved": "Approved",
		"sandbox_review":   "Needs review",
		"sandbox_failed":   "Failed: %s",
		"sandbox_apply":    "Apply outcome",
	},
	"de": {
		"title":                  "Identitätsprüfung",
		"intro":                  "Um Ihre Identität zu bestätigen, fotografieren Sie Ihr Ausweisdokument und machen ein Selfie. Das dauert etwa zwei Minuten.",
		"expires":                "Dieser Link ist bis %s (UTC) gültig.",
		"step_document":          "Ihr Dokument",
		"doc_type_legend":        "Art des Dokuments",
		"doc_IdCard":             "Personalausweis",
		"doc_DriverLicense":      "Führerschein",
		"doc_Passport":           "Reisepass",
		"doc_ResidencePermit":    "Aufenthaltstitel",
		"country_label":          "Ausstellungsland",
		"country_choose":         "Land auswählen",
		"step_front":             "Vorderseite des Dokuments",
		"front_hint":             "Beim Reisepass: die Seite mit Ihrem Foto.",
		"step_back":              "Rückseite des Dokuments",
		"back_hint":              "Erforderlich für Personalausweis, Führerschein und Aufenthaltstitel, nicht für den Reisepass.",
		"step_selfie":            "Selfie",
		"doc_tips":               "Legen Sie das Dokument auf eine dunkle, einfarbige Fläche. Alle vier Ecken müssen zu sehen sein; das Foto sollte scharf und frei von Spiegelungen sein.",
		"selfie_tips":            "Schauen Sie direkt in die Kamera; Ihr Gesicht sollte unverdeckt und gut beleuchtet sein.",
		"file_front":             "Foto der Vorderseite",
		"file_back":              "Foto der Rückseite",
		"file_selfie":            "Foto Ihres Gesichts",
		"file_hint":              "JPEG, PNG oder WebP, höchstens 10 MB.",
		"use_camera":             "Foto aufnehmen",
		"retake":                 "Neu aufnehmen",
		"choose_another":         "Andere Datei wählen",
		"expires_local":          "Dieser Link ist bis %s gültig.",
		"choose_again":           "Ihr Browser behält ausgewählte Dateien nicht, wenn die Seite neu geladen wird. Bitte wählen Sie diese Fotos erneut aus: %s.",
		"next_failed":            "Wenn Sie das für einen Fehler halten, wenden Sie sich an die Organisation, die Sie hierher geschickt hat: nur sie kann eine neue Prüfung starten.",
		"next_not_found":         "Wenn Sie von einem Shop oder Dienst kommen, kehren Sie dorthin zurück und starten Sie die Prüfung erneut: Sie erhalten dann einen neuen Link. Wenn es weiterhin nicht klappt, wenden Sie sich an dessen Support.",
		"kept_photo":             "Aus Ihrem vorigen Versuch übernommen: Sie müssen es nur neu aufnehmen, wenn Sie möchten.",
		"upload_progress":        "Fortschritt des Hochladens",
		"uploading":              "Ihre Fotos werden gesendet… %d %%",
		"camera_capture":         "Auslösen",
		"camera_cancel":          "Abbrechen",
		"camera_doc":             "Richten Sie das Dokument im Rahmen aus und halten Sie still.",
		"camera_face":            "Bringen Sie Ihr Gesicht in das Oval.",
		"camera_hold":            "Bitte kurz stillhalten …",
		"handoff_title":          "Auf dem Smartphone fortfahren",
		"handoff_intro":          "Scannen Sie diesen Code mit der Kamera Ihres Smartphones oder öffnen Sie den Link unten auf dem Smartphone: Dieselbe Prüfung geht dort weiter, mit seiner Kamera.",
		"handoff_qr_alt":         "QR-Code des Links zu dieser Prüfung",
		"handoff_link":           "Link zu dieser Prüfung",
		"handoff_copy":           "Link kopieren",
		"handoff_copied":         "Link kopiert.",
		"handoff_follow":         "Lassen Sie diese Seite geöffnet: Sie zeigt das Ergebnis, sobald Ihr Smartphone die Fotos gesendet hat. Geben Sie den Link nicht weiter: Er öffnet diese Prüfung.",
		"guide_outside":          "Bringen Sie das Dokument in den Rahmen: alle vier Kanten müssen darin liegen.",
		"guide_blur":             "Das Bild ist unscharf: Halten Sie das Telefon still und lassen Sie es scharfstellen.",
		"guide_glare":            "Licht spiegelt sich auf dem Dokument: Neigen Sie es leicht oder meiden Sie direktes Licht.",
		"guide_dark":             "Es ist zu dunkel: Gehen Sie an einen helleren Ort.",
		"guide_face_none":        "Bringen Sie Ihr Gesicht in das Oval.",
		"guide_face_light":       "Ihr Gesicht ist zu dunkel oder von hinten beleuchtet: Wenden Sie sich dem Licht zu.",
		"guide_face_ok":          "Gut. Tippen Sie auf Auslösen, wenn Sie bereit sind.",
		"camera_starting":        "Kamera wird gestartet …",
		"camera_unavailable":     "Die Kamera ist nicht verfügbar (keine Kamera vorhanden oder Zugriff verweigert). Bitte laden Sie stattdessen ein Foto hoch.",
		"photo_taken":            "%s: Foto aufgenommen.",
		"photo_chosen":           "%s: Foto ausgewählt.",
		"preview_alt":            "Vorschau: %s",
		"submit":                 "Zur Prüfung senden",
		"sending":                "Ihre Fotos werden gesendet …",
		"privacy":                "Ihre Fotos werden verschlüsselt gespeichert und nur zur Prüfung Ihrer Identität verwendet.",
		"field_front":            "Vorderseite des Dokuments",
		"field_back":             "Rückseite des Dokuments",
		"field_selfie":           "Selfie",
		"field_document_type":    "Art des Dokuments",
		"field_document_country": "Ausstellungsland",

		"state_capture":                   "Fotografieren Sie Ihr Dokument und machen Sie ein Selfie.",
		"state_processing":                "Wir prüfen Ihre Fotos. Das dauert meist weniger als eine Minute; diese Seite aktualisiert sich von selbst.",
		"refresh":                         "Aktualisieren",
		"state_retry":                     "Wir konnten Ihre Fotos nicht verwenden. Bitte versuchen Sie es noch einmal.",
		"state_review":                    "Vielen Dank. Ihre Verifizierung wird von unserem Team geprüft. Die Organisation, die Sie hierher geschickt hat, erhält das Ergebnis. Sie können diese Seite schließen.",
		"state_approved":                  "Vielen Dank. Ihre Identität wurde bestätigt.",
		"state_failed":                    "Ihre Identität konnte nicht bestätigt werden.",
		"state_expired":                   "Dieser Verifizierungslink ist abgelaufen. Bitte fordern Sie bei der Organisation, die Sie hierher geschickt hat, einen neuen an.",
		"attempts_left":                   "Verbleibende Versuche: %d",
		"fix_blur":                        "Das Foto war unscharf. Halten Sie das Telefon ruhig, lassen Sie die Kamera scharf stellen und sorgen Sie für genügend Licht.",
		"fix_glare":                       "Auf dem Dokument hat sich Licht gespiegelt. Vermeiden Sie direktes Licht und kippen Sie das Dokument leicht.",
		"fix_light":                       "Das Foto war zu dunkel oder zu hell. Suchen Sie einen gleichmäßig beleuchteten Ort.",
		"fix_small":                       "Das Dokument war auf dem Foto zu klein. Gehen Sie mit der Kamera näher heran, bis das Dokument den Rahmen ausfüllt.",
		"fix_cutoff":                      "Ein Teil des Dokuments war abgeschnitten oder verdeckt. Alle vier Ecken müssen im Rahmen liegen, und Ihre Finger dürfen nichts verdecken.",
		"fix_unreadable":                  "Die Angaben auf dem Dokument waren nicht lesbar. Fotografieren Sie es scharf und gerade von oben, sodass der gesamte Text lesbar ist.",
		"fix_image_document_front":        "Das betrifft die Vorderseite des Dokuments.",
		"fix_image_document_back":         "Das betrifft die Rückseite des Dokuments.",
		"fix_image_selfie":                "Das betrifft das Selfie.",
		"live_title":                      "Folgen Sie den Bewegungen",
		"live_intro":                      "Folgen Sie jetzt nacheinander den angezeigten Bewegungen. So zeigen Sie, dass ein echter Mensch vor der Kamera ist.",
		"live_lead_in":                    "Schauen Sie direkt in die Kamera.",
		"live_turn_left":                  "Drehen Sie den Kopf nach links.",
		"live_turn_right":                 "Drehen Sie den Kopf nach rechts.",
		"live_look_up":                    "Schauen Sie nach oben.",
		"live_blink":                      "Blinzeln Sie.",
		"live_closer":                     "Gehen Sie mit dem Gesicht näher an die Kamera.",
		"live_progress":                   "Bewegung %d von %d",
		"live_manual":                     "Ich kann diese Bewegung nicht machen – manuelle Prüfung anfordern",
		"live_manual_done":                "Statt der Bewegungen prüft eine Person Ihr Selfie.",
		"live_done":                       "Fertig. Vielen Dank.",
		"live_failed":                     "Die Bewegungsprüfung konnte nicht starten. Nehmen Sie das Selfie erneut auf oder laden Sie ein Foto hoch: Dann prüft es eine Person.",
		"err_liveness_spent":              "Die Bewegungsprüfung ist abgelaufen oder wurde schon verwendet. Bitte nehmen Sie das Selfie erneut auf.",
		"err_liveness_frames":             "Die aufgenommenen Bewegungen konnten nicht verwendet werden. Bitte nehmen Sie das Selfie erneut auf.",
		"fix_liveness":                    "Wir konnten die Bewegungen nicht bestätigen. Nehmen Sie das Selfie erneut auf und folgen Sie jeder Anweisung, sobald sie erscheint – mit dem ganzen Gesicht im Bild und bei genügend Licht.",
		"reason_expired_id":               "Das Dokument ist abgelaufen.",
		"reason_id_scan_error":            "Die Angaben auf dem Dokument konnten nicht gelesen werden.",
		"reason_idv_error":                "Die Verifizierung konnte nicht abgeschlossen werden.",
		"reason_invalid_id":               "Dieses Dokument wird nicht unterstützt oder ist ungültig.",
		"reason_liveness_error":           "Die Selfie-Prüfung war nicht erfolgreich.",
		"reason_minor":                    "Sie müssen mindestens 18 Jahre alt sein.",
		"reason_partial_id":               "Ein Teil des Dokuments war verdeckt oder abgeschnitten.",
		"reason_photo_mismatch":           "Das Selfie stimmt nicht mit dem Foto auf dem Dokument überein.",
		"reason_poor_id_scan_error":       "Die Fotos waren nicht gut genug, um das Dokument zu lesen.",
		"reason_potential_fraud":          "Die Verifizierung konnte nicht akzeptiert werden.",
		"reason_server_error_unavailable": "Der Dienst ist vorübergehend nicht verfügbar.",
		"continue":                        "Weiter",
		"continue_hint":                   "Zurück zur Website, die Sie hierher geschickt hat.",

		"errors_title":        "Bitte korrigieren Sie Folgendes:",
		"err_required":        "%s: Bitte ausfüllen.",
		"err_invalid":         "%s: Bitte wählen Sie eine Option aus der Liste.",
		"err_image_required":  "%s: Bitte fügen Sie ein Foto hinzu.",
		"err_image_too_large": "%s: Das Foto ist größer als 10 MB.",
		"err_image_format":    "%s: Die Datei muss ein JPEG-, PNG- oder WebP-Bild sein.",
		"err_image_too_small": "%s: Das Foto ist zu klein (mindestens 64 Pixel pro Seite).",
		"err_image_too_big":   "%s: Das Foto hat zu viele Pixel (höchstens 50 Megapixel).",
		"err_conflict":        "Diese Verifizierung kann gerade keine Fotos annehmen. Die Seite zeigt den aktuellen Stand.",
		"err_csrf":            "Diese Seite ist in Ihrem Browser abgelaufen. Bitte laden Sie sie neu und versuchen Sie es noch einmal.",
		"err_too_large":       "Die Fotos sind zusammen zu groß (höchstens 10 MB pro Foto). Bitte verwenden Sie kleinere Fotos.",
		"err_network":         "Ihre Fotos konnten nicht gesendet werden. Prüfen Sie Ihre Verbindung und versuchen Sie es noch einmal.",
		"err_generic":         "Etwas ist schiefgelaufen. Bitte versuchen Sie es noch einmal.",
		"not_found":           "Dieser Verifizierungslink ist ungültig. Bitte prüfen Sie den Link oder fordern Sie bei der Organisation, die Sie hierher geschickt hat, einen neuen an.",

		"sandbox_title":    "Sandbox: Ergebnis wählen",
		"sandbox_intro":    "Dies ist eine Sandbox-Verifizierung: Es laufen keine echten Prüfungen. Eine Einreichung erhält das Ergebnis, das in der E-Mail-Adresse des Kunden markiert ist (name+TAG@…, z. B. +review oder +minor); hier können Sie stattdessen eines wählen. Der Integrator erhält dieselben Webhooks wie in der Produktion. Produktionsseiten zeigen diesen Bereich nie.",
		"sandbox_outcome":  "Ergebnis",
		"sandbox_approved": "Bestätigt",
		"sandbox_review":   "Manuelle Prüfung",
		"sandbox_failed":   "Abgelehnt: %s",
		"sandbox_apply":    "Ergebnis anwenden",
	},
	"fr": {
		"title":                  "Vérification d’identité",
		"intro":                  "Pour confirmer votre identité, photographiez votre pièce d’identité et prenez un selfie. Cela prend environ deux minutes.",
		"expires":                "Ce lien est valable jusqu’au %s (UTC).",
		"step_document":          "Votre document",
		"doc_type_legend":        "Type de document",
		"doc_IdCard":             "Carte d’identité",
		"doc_DriverLicense":      "Permis de conduire",
		"doc_Passport":           "Passeport",
		"doc_ResidencePermit":    "Titre de séjour",
		"country_label":          "Pays de délivrance",
		"country_choose":         "Choisissez un pays",
		"step_front":             "Recto du document",
		"front_hint":             "Pour un passeport : la page avec votre photo.",
		"step_back":              "Verso du document",
		"back_hint":              "Nécessaire pour la carte d’identité, le permis de conduire et le titre de séjour, pas pour le passeport.",
		"step_selfie":            "Selfie",
		"doc_tips":               "Posez le document sur une surface sombre et unie. Les quatre coins doivent être visibles, sans reflet ni flou.",
		"selfie_tips":            "Regardez droit vers l’objectif, le visage découvert et bien éclairé.",
		"file_front":             "Photo du recto",
		"file_back":              "Photo du verso",
		"file_selfie":            "Photo de votre visage",
		"file_hint":              "JPEG, PNG ou WebP, 10 Mo au maximum.",
		"use_camera":             "Prendre une photo",
		"retake":                 "Reprendre",
		"choose_another":         "Choisir un autre fichier",
		"expires_local":          "Ce lien est valable jusqu’au %s.",
		"choose_again":           "Votre navigateur ne conserve pas les fichiers choisis quand la page se recharge. Veuillez choisir à nouveau ces photos : %s.",
		"next_failed":            "Si vous pensez qu’il s’agit d’une erreur, contactez l’organisation qui vous a envoyé ici : elle seule peut lancer une nouvelle vérification.",
		"next_not_found":         "Si vous venez d’une boutique ou d’un service, retournez-y et relancez la vérification : vous recevrez un nouveau lien. Si le problème persiste, contactez son support.",
		"kept_photo":             "Conservée de votre tentative précédente : reprenez-la seulement si vous le souhaitez.",
		"upload_progress":        "Progression de l’envoi",
		"uploading":              "Envoi de vos photos… %d %%",
		"camera_capture":         "Déclencher",
		"camera_cancel":          "Annuler",
		"camera_doc":             "Cadrez le document dans le rectangle et ne bougez plus.",
		"camera_face":            "Placez votre visage dans l’ovale.",
		"camera_hold":            "Ne bougez pas un instant…",
		"handoff_title":          "Continuer sur votre téléphone",
		"handoff_intro":          "Scannez ce code avec l’appareil photo de votre téléphone, ou ouvrez le lien ci-dessous sur votre téléphone : la même vérification s’y poursuit, avec son appareil photo.",
		"handoff_qr_alt":         "Code QR du lien vers cette vérification",
		"handoff_link":           "Lien vers cette vérification",
		"handoff_copy":           "Copier le lien",
		"handoff_copied":         "Lien copié.",
		"handoff_follow":         "Gardez cette page ouverte : elle affiche le résultat dès que votre téléphone a envoyé les photos. Ne partagez pas le lien : il donne accès à cette vérification.",
		"guide_outside":          "Placez le document dans le cadre : ses quatre bords doivent y être.",
		"guide_blur":             "L’image est floue : tenez le téléphone immobile et laissez-le faire la mise au point.",
		"guide_glare":            "La lumière se reflète sur le document : inclinez-le légèrement ou évitez la lumière directe.",
		"guide_dark":             "Il fait trop sombre : allez dans un endroit plus éclairé.",
		"guide_face_none":        "Placez votre visage dans l’ovale.",
		"guide_face_light":       "Votre visage est trop sombre ou éclairé de dos : tournez-vous vers la lumière.",
		"guide_face_ok":          "Bien. Appuyez sur Capturer quand vous êtes prêt.",
		"camera_starting":        "Démarrage de l’appareil photo…",
		"camera_unavailable":     "L’appareil photo n’est pas disponible (aucune caméra, ou autorisation refusée). Veuillez plutôt importer une photo.",
		"photo_taken":            "%s : photo prise.",
		"photo_chosen":           "%s : photo choisie.",
		"preview_alt":            "Aperçu : %s",
		"submit":                 "Envoyer pour vérification",
		"sending":                "Envoi de vos photos…",
		"privacy":                "Vos photos sont stockées chiffrées et utilisées uniquement pour vérifier votre identité.",
		"field_front":            "Recto du document",
		"field_back":             "Verso du document",
		"field_selfie":           "Selfie",
		"field_document_type":    "Type de document",
		"field_document_country": "Pays de délivrance",

		"state_capture":                   "Photographiez votre document et prenez un selfie.",
		"state_processing":                "Nous vérifions vos photos. Cela prend généralement moins d’une minute ; cette page se met à jour d’elle-même.",
		"refresh":                         "Actualiser",
		"state_retry":                     "Nous n’avons pas pu utiliser vos photos. Veuillez réessayer.",
		"state_review":                    "Merci. Votre vérification est en cours d’examen par notre équipe. L’organisation qui vous a envoyé ici en recevra le résultat. Vous pouvez fermer cette page.",
		"state_approved":                  "Merci. Votre identité a été vérifiée.",
		"state_failed":                    "Votre identité n’a pas pu être vérifiée.",
		"state_expired":                   "Ce lien de vérification a expiré. Veuillez en demander un nouveau à l’organisation qui vous a envoyé ici.",
		"attempts_left":                   "Tentatives restantes : %d",
		"fix_blur":                        "La photo était floue. Tenez le téléphone immobile, laissez l’appareil faire la mise au point et assurez-vous qu’il y a assez de lumière.",
		"fix_glare":                       "La lumière se reflétait sur le document. Évitez la lumière directe et inclinez légèrement le document.",
		"fix_light":                       "La photo était trop sombre ou trop claire. Placez-vous dans un endroit uniformément éclairé.",
		"fix_small":                       "Le document était trop petit sur la photo. Rapprochez l’appareil pour que le document remplisse le cadre.",
		"fix_cutoff":                      "Une partie du document était coupée ou masquée. Gardez les quatre coins dans le cadre et vos doigts hors du document.",
		"fix_unreadable":                  "Les informations du document n’ont pas pu être lues. Photographiez-le net, bien de face, de sorte que tout le texte soit lisible.",
		"fix_image_document_front":        "Cela concerne le recto du document.",
		"fix_image_document_back":         "Cela concerne le verso du document.",
		"fix_image_selfie":                "Cela concerne le selfie.",
		"live_title":                      "Suivez les mouvements",
		"live_intro":                      "Suivez maintenant, l’un après l’autre, les mouvements affichés. Cela montre qu’une vraie personne se trouve devant la caméra.",
		"live_lead_in":                    "Regardez droit vers la caméra.",
		"live_turn_left":                  "Tournez la tête vers votre gauche.",
		"live_turn_right":                 "Tournez la tête vers votre droite.",
		"live_look_up":                    "Levez les yeux vers le haut.",
		"live_blink":                      "Clignez des yeux.",
		"live_closer":                     "Rapprochez votre visage de la caméra.",
		"live_progress":                   "Mouvement %d sur %d",
		"live_manual":                     "Je ne peux pas faire ce mouvement – demander une vérification manuelle",
		"live_manual_done":                "Une personne vérifiera votre selfie à la place des mouvements.",
		"live_done":                       "Terminé. Merci.",
		"live_failed":                     "La vérification des mouvements n’a pas pu démarrer. Reprenez le selfie, ou téléversez une photo : une personne la vérifiera.",
		"err_liveness_spent":              "La vérification des mouvements a expiré ou a déjà été utilisée. Veuillez reprendre le selfie.",
		"err_liveness_frames":             "Les mouvements enregistrés n’ont pas pu être utilisés. Veuillez reprendre le selfie.",
		"fix_liveness":                    "Nous n’avons pas pu confirmer les mouvements. Reprenez le selfie et suivez chaque consigne dès qu’elle apparaît, avec tout votre visage dans le cadre et assez de lumière.",
		"reason_expired_id":               "Le document est expiré.",
		"reason_id_scan_error":            "Les informations du document n’ont pas pu être lues.",
		"reason_idv_error":                "La vérification n’a pas pu aboutir.",
		"reason_invalid_id":               "Ce document n’est pas pris en charge ou n’est pas valide.",
		"reason_liveness_error":           "La vérification du selfie n’a pas abouti.",
		"reason_minor":                    "Vous devez avoir au moins 18 ans.",
		"reason_partial_id":               "Une partie du document était masquée ou coupée.",
		"reason_photo_mismatch":           "Le selfie ne correspond pas à la photo du document.",
		"reason_poor_id_scan_error":       "Les photos n’étaient pas assez bonnes pour lire le document.",
		"reason_potential_fraud":          "La vérification n’a pas pu être acceptée.",
		"reason_server_error_unavailable": "Le service est temporairement indisponible.",
		"continue":                        "Continuer",
		"continue_hint":                   "Revenir au site qui vous a envoyé ici.",

		"errors_title":        "Veuillez corriger les points suivants :",
		"err_required":        "%s : ce champ est obligatoire.",
		"err_invalid":         "%s : choisissez une option de la liste.",
		"err_image_required":  "%s : veuillez ajouter une photo.",
		"err_image_too_large": "%s : la photo dépasse 10 Mo.",
		"err_image_format":    "%s : le fichier doit être une image JPEG, PNG ou WebP.",
		"err_image_too_small": "%s : la photo est trop petite (au moins 64 pixels de côté).",
		"err_image_too_big":   "%s : la photo comporte trop de pixels (50 mégapixels au maximum).",
		"err_conflict":        "Cette vérification ne peut pas recevoir de photos pour le moment. La page affiche son état actuel.",
		"err_csrf":            "Cette page a expiré dans votre navigateur. Veuillez la recharger et réessayer.",
		"err_too_large":       "Les photos sont trop volumineuses ensemble (10 Mo au maximum chacune). Veuillez utiliser des photos plus petites.",
		"err_network":         "Vos photos n’ont pas pu être envoyées. Vérifiez votre connexion et réessayez.",
		"err_generic":         "Une erreur s’est produite. Veuillez réessayer.",
		"not_found":           "Ce lien de vérification n’est pas valide. Vérifiez le lien ou demandez-en un nouveau à l’organisation qui vous a envoyé ici.",

		"sandbox_title":    "Sandbox : choisissez le résultat",
		"sandbox_intro":    "Ceci est une vérification sandbox : aucun contrôle réel n’est effectué. Un envoi reçoit le résultat indiqué par l’étiquette de l’adresse e-mail du client (nom+TAG@…, p. ex. +review ou +minor) ; vous pouvez aussi en choisir un ici. L’intégrateur reçoit les mêmes webhooks qu’en production. Les pages de production n’affichent jamais ce panneau.",
		"sandbox_outcome":  "Résultat",
		"sandbox_approved": "Approuvée",
		"sandbox_review":   "Examen manuel",
		"sandbox_failed":   "Refusée : %s",
		"sandbox_apply":    "Appliquer le résultat",
	},
}

// jsKeys are the strings the page's script needs.
var jsKeys = []string{
	"use_camera", "retake", "choose_another", "expires_local", "kept_photo", "upload_progress", "uploading", "camera_capture", "camera_cancel", "camera_doc", "camera_face",
	"camera_hold", "handoff_copied", "guide_outside", "guide_blur", "guide_glare", "guide_dark", "guide_face_none",
	"guide_face_light", "guide_face_ok", "camera_starting", "camera_unavailable", "photo_taken", "photo_chosen", "preview_alt", "sending",
	"field_front", "field_back", "field_selfie", "errors_title", "err_network", "err_generic", "err_csrf",
	"err_too_large", "err_conflict", "err_image_required",
	"state_capture", "state_processing", "state_retry", "state_review", "state_approved", "state_failed", "state_expired",
	"live_title", "live_intro", "live_progress", "live_manual", "live_manual_done", "live_done", "live_failed",
	"err_liveness_spent",
}

// Catalog is every text of the hosted page: the frame's (layout.Texts)
// and the page's. The age flow's document method shares the capture
// form's texts, so its catalog merges this one.
var Catalog = layout.Merge(layout.Texts, layout.NoticeTexts, hostedTexts)

// msg returns the text of key in lang (layout.Catalog.Msg).
func msg(lang, key string, args ...any) string { return Catalog.Msg(lang, key, args...) }

// JSText is what the page's script needs of the catalog (jsKeys), in lang.
func JSText(lang string) map[string]string {
	out := make(map[string]string, len(jsKeys))
	for _, k := range jsKeys {
		out[k] = msg(lang, k)
	}
	return out
}
