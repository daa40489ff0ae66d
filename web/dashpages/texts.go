package dashpages

import "github.com/verifyd/verifyd/web/layout"

// texts are the dashboard's texts with the layout's own (language links).
var texts = layout.Merge(layout.Texts, catalog)

// catalog holds the dashboard's texts by language then key.
var catalog = layout.Catalog{
	"en": {
		"app_name": "verifyd dashboard", "skip_link": "Skip to the content", "nav_label": "Dashboard",
		"signed_in_as": "Signed in as %s, %s of %s.", "logout": "Sign out",
		"sandbox_only_banner": "Sandbox-only workspace: test keys only, no production.",
		"nav_keys":            "API keys", "nav_redirects": "Redirect URLs", "nav_settings": "Settings", "nav_users": "Users", "nav_audit": "Audit log",

		"refused_title": "Request refused", "refused_cross_site": "This request came from another site and was refused.",
		"refused_token":   "The form's security token is missing or wrong. Go back, reload the page and try again.",
		"forbidden_title": "Not allowed", "forbidden_text": "Your role does not allow this. Ask an owner of your business.",
		"failure_title": "Something went wrong", "failure_text": "The request failed. It was logged; try again, and tell the administrator if it keeps failing.",
		"not_found_title": "Not found", "not_found_text": "There is no such page.",
		"bad_request_title": "Bad request", "bad_request_text": "The form could not be read.",

		"login_title": "Sign in", "email": "E-mail address", "password": "Password", "code": "Code from your authenticator app",
		"code_hint": "Six digits, changing every 30 seconds.", "login_submit": "Sign in",
		"signup_link":      "No account? Create a free sandbox workspace.",
		"err_form_expired": "The form expired. Please try again.", "err_limited": "Too many attempts. Please try again in 15 minutes.",
		"err_login": "Wrong e-mail address, password or code.",

		"invitation_title": "Join the dashboard", "invitation_intro": "You are invited to the dashboard of %s as %s, with the address %s.",
		"name": "Your name", "password_again": "Repeat the password", "password_hint": "At least 12 characters.",
		"totp_title": "Authenticator app", "totp_intro": "Scan this code with an authenticator app (such as FreeOTP, Aegis or Google Authenticator), or type in the key below. Then enter the six-digit code the app shows.",
		"totp_secret_label": "Key", "qr_alt": "QR code of the key for an authenticator app",
		"accept_submit": "Join", "err_invitation": "This invitation link is unknown, used or expired. Ask for a new one.",
		"err_name": "Name: enter 1 to 200 characters.", "err_password": "Password: use 12 to 1024 characters.",
		"err_password_again": "The two passwords are not the same.", "err_code": "Code: it does not match. Check the app and the key, and enter the current code.",
		"err_email": "E-mail address: enter an address such as name@example.com.", "err_business": "Business name: enter 1 to 200 characters.",
		"err_taken": "A user with this e-mail address exists. Sign in instead.", "err_role": "Choose a role.",

		"signup_title": "Create a sandbox workspace", "signup_intro": "A sandbox workspace has test keys for both interfaces. It cannot have production keys; ask the operator of this service for those.",
		"business_name": "Business name", "signup_submit": "Create workspace",

		"keys_title": "API keys", "keys_intro": "Each key signs requests to one interface in one environment. Create a new key before revoking an old one to rotate without downtime.",
		"col_interface": "Interface", "col_environment": "Environment", "col_key": "API key", "col_created": "Created", "col_status": "Status",
		"status_active": "active", "status_revoked": "revoked", "revoke": "Revoke", "revoke_label": "Revoke %s",
		"create_key_title": "Create a key", "create_key_kind": "Interface and environment", "create_submit": "Create key",
		"new_key_title": "New key", "new_key_secret_once": "Copy the secret now: it is shown only this once.",
		"api_key": "API key", "api_secret": "API secret", "done_key_revoked": "The key was revoked.",
		"env_production": "production", "env_sandbox": "sandbox", "iface_identity": "identity", "iface_age": "age",
		"read_only_note": "Your role can read this page but not change it.", "err_sandbox_only": "This workspace is sandbox-only: it cannot have production keys.",

		"redirects_title": "Redirect URLs", "redirects_intro": "Customers are sent back only to URLs on these lists, matched exactly (as with the allowed-redirects API).",
		"list_caption": "%s, %s", "no_urls": "No URLs yet.", "url_label": "URL to add", "add_submit": "Add", "remove": "Remove", "remove_label": "Remove %s",
		"done_redirect_added": "The URL was added.", "done_redirect_removed": "The URL was removed.",

		"settings_title": "Settings", "retention_label": "Retention (days)",
		"retention_hint": "How long after the decision images and identifying evidence of identity verifications are kept; 0 deletes them at once.",
		"direct_label":   "Direct submissions without live capture (production)", "direct_auto": "Decide automatically",
		"direct_review": "Send to review by a person", "save_submit": "Save", "done_settings_saved": "The settings were saved.",
		"err_retention": "Retention: enter a number of days from 0 to 3650.",

		"users_title": "Users", "col_name": "Name", "col_role": "Role", "col_since": "Since", "remove_user": "Remove", "remove_user_label": "Remove %s",
		"you": "you", "status_removed": "removed", "invitations_title": "Open invitations", "no_invitations": "None.", "col_expires": "Expires",
		"invite_title": "Invite someone", "role_label": "Role", "invite_submit": "Invite",
		"invitation_link_title": "Invitation link", "invitation_link_text": "Send this link to %s. It works once, for 7 days, and is not shown again.",
		"done_user_removed": "The user was removed and signed out.", "err_remove_self": "You cannot remove yourself.",
		"role_owner": "owner", "role_developer": "developer", "role_viewer": "viewer",

		"audit_title": "Audit log", "audit_intro": "Who changed what in this business, newest first (the latest 500 entries).",
		"col_time": "Time", "col_actor": "Who", "col_action": "Action", "col_subject": "Subject", "col_detail": "Detail", "no_entries": "No entries yet.",
	},
	"de": {
		"app_name": "verifyd-Dashboard", "skip_link": "Zum Inhalt springen", "nav_label": "Dashboard",
		"signed_in_as": "Angemeldet als %s, %s von %s.", "logout": "Abmelden",
		"sandbox_only_banner": "Reiner Sandbox-Arbeitsbereich: nur Testschlüssel, keine Produktion.",
		"nav_keys":            "API-Schlüssel", "nav_redirects": "Weiterleitungs-URLs", "nav_settings": "Einstellungen", "nav_users": "Benutzer", "nav_audit": "Protokoll",

		"refused_title": "Anfrage abgelehnt", "refused_cross_site": "Diese Anfrage kam von einer anderen Website und wurde abgelehnt.",
		"refused_token":   "Das Sicherheitstoken des Formulars fehlt oder ist falsch. Gehen Sie zurück, laden Sie die Seite neu und versuchen Sie es erneut.",
		"forbidden_title": "Nicht erlaubt", "forbidden_text": "Ihre Rolle erlaubt das nicht. Fragen Sie eine Inhaberin oder einen Inhaber Ihres Unternehmens.",
		"failure_title": "Etwas ist schiefgegangen", "failure_text": "Die Anfrage ist fehlgeschlagen. Sie wurde protokolliert; versuchen Sie es erneut und informieren Sie den Administrator, wenn es weiter fehlschlägt.",
		"not_found_title": "Nicht gefunden", "not_found_text": "Diese Seite gibt es nicht.",
		"bad_request_title": "Ungültige Anfrage", "bad_request_text": "Das Formular konnte nicht gelesen werden.",

		"login_title": "Anmelden", "email": "E-Mail-Adresse", "password": "Passwort", "code": "Code aus Ihrer Authenticator-App",
		"code_hint": "Sechs Ziffern, alle 30 Sekunden neu.", "login_submit": "Anmelden",
		"signup_link":      "Kein Konto? Legen Sie einen kostenlosen Sandbox-Arbeitsbereich an.",
		"err_form_expired": "Das Formular ist abgelaufen. Bitte versuchen Sie es erneut.", "err_limited": "Zu viele Versuche. Bitte versuchen Sie es in 15 Minuten erneut.",
		"err_login": "E-Mail-Adresse, Passwort oder Code ist falsch.",

		"invitation_title": "Dem Dashboard beitreten", "invitation_intro": "Sie sind zum Dashboard von %s eingeladen, als %s, mit der Adresse %s.",
		"name": "Ihr Name", "password_again": "Passwort wiederholen", "password_hint": "Mindestens 12 Zeichen.",
		"totp_title": "Authenticator-App", "totp_intro": "Scannen Sie diesen Code mit einer Authenticator-App (etwa FreeOTP, Aegis oder Google Authenticator) oder tippen Sie den Schlüssel unten ein. Geben Sie dann den sechsstelligen Code der App ein.",
		"totp_secret_label": "Schlüssel", "qr_alt": "QR-Code des Schlüssels für eine Authenticator-App",
		"accept_submit": "Beitreten", "err_invitation": "Dieser Einladungslink ist unbekannt, benutzt oder abgelaufen. Bitten Sie um einen neuen.",
		"err_name": "Name: 1 bis 200 Zeichen eingeben.", "err_password": "Passwort: 12 bis 1024 Zeichen verwenden.",
		"err_password_again": "Die beiden Passwörter sind nicht gleich.", "err_code": "Code: er passt nicht. Prüfen Sie App und Schlüssel und geben Sie den aktuellen Code ein.",
		"err_email": "E-Mail-Adresse: eine Adresse wie name@example.com eingeben.", "err_business": "Unternehmensname: 1 bis 200 Zeichen eingeben.",
		"err_taken": "Es gibt bereits einen Benutzer mit dieser E-Mail-Adresse. Melden Sie sich an.", "err_role": "Wählen Sie eine Rolle.",

		"signup_title": "Sandbox-Arbeitsbereich anlegen", "signup_intro": "Ein Sandbox-Arbeitsbereich hat Testschlüssel für beide Schnittstellen. Produktionsschlüssel kann er nicht haben; die erhalten Sie vom Betreiber dieses Dienstes.",
		"business_name": "Name des Unternehmens", "signup_submit": "Arbeitsbereich anlegen",

		"keys_title": "API-Schlüssel", "keys_intro": "Jeder Schlüssel signiert Anfragen an eine Schnittstelle in einer Umgebung. Legen Sie einen neuen Schlüssel an, bevor Sie einen alten widerrufen, um ohne Ausfall zu wechseln.",
		"col_interface": "Schnittstelle", "col_environment": "Umgebung", "col_key": "API-Schlüssel", "col_created": "Angelegt", "col_status": "Status",
		"status_active": "aktiv", "status_revoked": "widerrufen", "revoke": "Widerrufen", "revoke_label": "%s widerrufen",
		"create_key_title": "Schlüssel anlegen", "create_key_kind": "Schnittstelle und Umgebung", "create_submit": "Schlüssel anlegen",
		"new_key_title": "Neuer Schlüssel", "new_key_secret_once": "Kopieren Sie das Geheimnis jetzt: Es wird nur dieses eine Mal angezeigt.",
		"api_key": "API-Schlüssel", "api_secret": "API-Geheimnis", "done_key_revoked": "Der Schlüssel wurde widerrufen.",
		"env_production": "Produktion", "env_sandbox": "Sandbox", "iface_identity": "Identität", "iface_age": "Alter",
		"read_only_note": "Ihre Rolle kann diese Seite lesen, aber nicht ändern.", "err_sandbox_only": "Dieser Arbeitsbereich ist nur Sandbox: Er kann keine Produktionsschlüssel haben.",

		"redirects_title": "Weiterleitungs-URLs", "redirects_intro": "Kunden werden nur zu URLs auf diesen Listen zurückgeschickt, bei exakter Übereinstimmung (wie bei der Allowed-Redirects-API).",
		"list_caption": "%s, %s", "no_urls": "Noch keine URLs.", "url_label": "Neue URL", "add_submit": "Hinzufügen", "remove": "Entfernen", "remove_label": "%s entfernen",
		"done_redirect_added": "Die URL wurde hinzugefügt.", "done_redirect_removed": "Die URL wurde entfernt.",

		"settings_title": "Einstellungen", "retention_label": "Aufbewahrung (Tage)",
		"retention_hint": "Wie lange nach der Entscheidung Bilder und identifizierende Nachweise von Identitätsprüfungen aufbewahrt werden; 0 löscht sie sofort.",
		"direct_label":   "Direkte Einreichungen ohne Live-Aufnahme (Produktion)", "direct_auto": "Automatisch entscheiden",
		"direct_review": "Einer Person zur Prüfung vorlegen", "save_submit": "Speichern", "done_settings_saved": "Die Einstellungen wurden gespeichert.",
		"err_retention": "Aufbewahrung: eine Zahl von 0 bis 3650 Tagen eingeben.",

		"users_title": "Benutzer", "col_name": "Name", "col_role": "Rolle", "col_since": "Seit", "remove_user": "Entfernen", "remove_user_label": "%s entfernen",
		"you": "Sie", "status_removed": "entfernt", "invitations_title": "Offene Einladungen", "no_invitations": "Keine.", "col_expires": "Läuft ab",
		"invite_title": "Jemanden einladen", "role_label": "Rolle", "invite_submit": "Einladen",
		"invitation_link_title": "Einladungslink", "invitation_link_text": "Senden Sie diesen Link an %s. Er funktioniert einmal, 7 Tage lang, und wird nicht noch einmal angezeigt.",
		"done_user_removed": "Der Benutzer wurde entfernt und abgemeldet.", "err_remove_self": "Sie können sich nicht selbst entfernen.",
		"role_owner": "Inhaber", "role_developer": "Entwickler", "role_viewer": "Betrachter",

		"audit_title": "Protokoll", "audit_intro": "Wer in diesem Unternehmen was geändert hat, neueste zuerst (die letzten 500 Einträge).",
		"col_time": "Zeit", "col_actor": "Wer", "col_action": "Aktion", "col_subject": "Objekt", "col_detail": "Detail", "no_entries": "Noch keine Einträge.",
	},
	"fr": {
		"app_name": "Tableau de bord verifyd", "skip_link": "Aller au contenu", "nav_label": "Tableau de bord",
		"signed_in_as": "Connecté en tant que %s, %s de %s.", "logout": "Se déconnecter",
		"sandbox_only_banner": "Espace sandbox uniquement : clés de test seulement, pas de production.",
		"nav_keys":            "Clés d’API", "nav_redirects": "URL de redirection", "nav_settings": "Paramètres", "nav_users": "Utilisateurs", "nav_audit": "Journal d’audit",

		"refused_title": "Requête refusée", "refused_cross_site": "Cette requête venait d’un autre site et a été refusée.",
		"refused_token":   "Le jeton de sécurité du formulaire manque ou est faux. Revenez en arrière, rechargez la page et réessayez.",
		"forbidden_title": "Non autorisé", "forbidden_text": "Votre rôle ne le permet pas. Demandez à un propriétaire de votre entreprise.",
		"failure_title": "Une erreur s’est produite", "failure_text": "La requête a échoué. Elle a été journalisée ; réessayez et prévenez l’administrateur si cela continue.",
		"not_found_title": "Introuvable", "not_found_text": "Cette page n’existe pas.",
		"bad_request_title": "Requête invalide", "bad_request_text": "Le formulaire n’a pas pu être lu.",

		"login_title": "Connexion", "email": "Adresse e-mail", "password": "Mot de passe", "code": "Code de votre application d’authentification",
		"code_hint": "Six chiffres, renouvelés toutes les 30 secondes.", "login_submit": "Se connecter",
		"signup_link":      "Pas de compte ? Créez un espace sandbox gratuit.",
		"err_form_expired": "Le formulaire a expiré. Veuillez réessayer.", "err_limited": "Trop de tentatives. Réessayez dans 15 minutes.",
		"err_login": "Adresse e-mail, mot de passe ou code incorrect.",

		"invitation_title": "Rejoindre le tableau de bord", "invitation_intro": "Vous êtes invité au tableau de bord de %s en tant que %s, avec l’adresse %s.",
		"name": "Votre nom", "password_again": "Répétez le mot de passe", "password_hint": "Au moins 12 caractères.",
		"totp_title": "Application d’authentification", "totp_intro": "Scannez ce code avec une application d’authentification (comme FreeOTP, Aegis ou Google Authenticator), ou saisissez la clé ci-dessous. Entrez ensuite le code à six chiffres affiché par l’application.",
		"totp_secret_label": "Clé", "qr_alt": "Code QR de la clé pour une application d’authentification",
		"accept_submit": "Rejoindre", "err_invitation": "Ce lien d’invitation est inconnu, déjà utilisé ou expiré. Demandez-en un nouveau.",
		"err_name": "Nom : saisissez 1 à 200 caractères.", "err_password": "Mot de passe : utilisez 12 à 1024 caractères.",
		"err_password_again": "Les deux mots de passe ne sont pas identiques.", "err_code": "Code : il ne correspond pas. Vérifiez l’application et la clé, puis saisissez le code actuel.",
		"err_email": "Adresse e-mail : saisissez une adresse comme nom@example.com.", "err_business": "Nom de l’entreprise : saisissez 1 à 200 caractères.",
		"err_taken": "Un utilisateur avec cette adresse e-mail existe déjà. Connectez-vous.", "err_role": "Choisissez un rôle.",

		"signup_title": "Créer un espace sandbox", "signup_intro": "Un espace sandbox a des clés de test pour les deux interfaces. Il ne peut pas avoir de clés de production ; demandez-les à l’opérateur de ce service.",
		"business_name": "Nom de l’entreprise", "signup_submit": "Créer l’espace",

		"keys_title": "Clés d’API", "keys_intro": "Chaque clé signe les requêtes vers une interface dans un environnement. Créez une nouvelle clé avant de révoquer l’ancienne pour changer sans interruption.",
		"col_interface": "Interface", "col_environment": "Environnement", "col_key": "Clé d’API", "col_created": "Créée", "col_status": "État",
		"status_active": "active", "status_revoked": "révoquée", "revoke": "Révoquer", "revoke_label": "Révoquer %s",
		"create_key_title": "Créer une clé", "create_key_kind": "Interface et environnement", "create_submit": "Créer la clé",
		"new_key_title": "Nouvelle clé", "new_key_secret_once": "Copiez le secret maintenant : il n’est affiché que cette fois.",
		"api_key": "Clé d’API", "api_secret": "Secret d’API", "done_key_revoked": "La clé a été révoquée.",
		"env_production": "production", "env_sandbox": "sandbox", "iface_identity": "identité", "iface_age": "âge",
		"read_only_note": "Votre rôle peut lire cette page mais pas la modifier.", "err_sandbox_only": "Cet espace est uniquement sandbox : il ne peut pas avoir de clés de production.",

		"redirects_title": "URL de redirection", "redirects_intro": "Les clients ne sont renvoyés que vers les URL de ces listes, à l’identique (comme avec l’API des redirections autorisées).",
		"list_caption": "%s, %s", "no_urls": "Aucune URL pour l’instant.", "url_label": "URL à ajouter", "add_submit": "Ajouter", "remove": "Retirer", "remove_label": "Retirer %s",
		"done_redirect_added": "L’URL a été ajoutée.", "done_redirect_removed": "L’URL a été retirée.",

		"settings_title": "Paramètres", "retention_label": "Conservation (jours)",
		"retention_hint": "Durée de conservation, après la décision, des images et preuves identifiantes des vérifications d’identité ; 0 les supprime aussitôt.",
		"direct_label":   "Soumissions directes sans capture en direct (production)", "direct_auto": "Décider automatiquement",
		"direct_review": "Envoyer en revue à une personne", "save_submit": "Enregistrer", "done_settings_saved": "Les paramètres ont été enregistrés.",
		"err_retention": "Conservation : saisissez un nombre de jours de 0 à 3650.",

		"users_title": "Utilisateurs", "col_name": "Nom", "col_role": "Rôle", "col_since": "Depuis", "remove_user": "Retirer", "remove_user_label": "Retirer %s",
		"you": "vous", "status_removed": "retiré", "invitations_title": "Invitations en cours", "no_invitations": "Aucune.", "col_expires": "Expire",
		"invite_title": "Inviter quelqu’un", "role_label": "Rôle", "invite_submit": "Inviter",
		"invitation_link_title": "Lien d’invitation", "invitation_link_text": "Envoyez ce lien à %s. Il fonctionne une fois, pendant 7 jours, et n’est plus affiché ensuite.",
		"done_user_removed": "L’utilisateur a été retiré et déconnecté.", "err_remove_self": "Vous ne pouvez pas vous retirer vous-même.",
		"role_owner": "propriétaire", "role_developer": "développeur", "role_viewer": "lecteur",

		"audit_title": "Journal d’audit", "audit_intro": "Qui a modifié quoi dans cette entreprise, du plus récent au plus ancien (les 500 dernières entrées).",
		"col_time": "Date", "col_actor": "Qui", "col_action": "Action", "col_subject": "Objet", "col_detail": "Détail", "no_entries": "Aucune entrée pour l’instant.",
	},
}
