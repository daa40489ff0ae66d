// Package consolepage is the review console's pages at /console:
// server-rendered pages without any script, so they work without
// JavaScript and under a CSP that allows nothing but this origin's
// stylesheet, images and form targets. Routes are in httpapi/routes.go
// (consoleRoutes); the use cases in package console; the shared page
// machinery (headers, rendering) in web/layout.
package consolepage

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/console"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/web/layout"
	"github.com/verifyd/verifyd/webauth"
)

// Pages are the console's handlers and what they need.
type Pages struct {
	Console *console.Service
	Logger  *slog.Logger
	// Dev is the server's --dev: sign-in over plain http is expected.
	Dev bool
}

// logger returns the logger with the request id attached.
func (cp *Pages) logger(r *http.Request) *slog.Logger { return request.Logger(cp.Logger, r) }

//go:embed pages/console_*.html
var consolePageFS embed.FS

//go:embed pages/console.css
var consoleCSS []byte

var consolePages = template.Must(template.ParseFS(consolePageFS, "pages/console_*.html"))

// consoleCSSPath names the stylesheet by its content, so it can be cached
// for a year and a new build is picked up at once.
var consoleCSSPath = func() string {
	sum := sha256.Sum256(consoleCSS)
	return "/console/static/console-" + hex.EncodeToString(sum[:6]) + ".css"
}()

// consoleCSP allows the page's own stylesheet, images and form targets and
// nothing else: no script at all, no inline style, no framing.
const consoleCSP = "default-src 'none'; img-src 'self'; style-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

// consoleMaxForm bounds console form bodies.
const consoleMaxForm = 64 << 10

// Protect wraps the console's routes: a cross-origin POST is refused
// before it reaches them (a second layer under the CSRF tokens), and the
// matched route is recorded for logs and metrics.
func (cp *Pages) Protect(mux http.Handler) http.Handler {
	return layout.Protect(mux, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cp.consoleMessage(w, r, http.StatusForbidden, "Request refused",
			"This request came from another site and was refused.")
	}))
}

// consolePage is what every console page shows.
type consolePage struct {
	Title    string
	CSS      string
	Operator string // the signed-in operator, "" on the login page
	CSRF     string
	Notice   string
	Error    string
}

func (cp *Pages) page(title string, oc *SignedIn) consolePage {
	p := consolePage{Title: title, CSS: consoleCSSPath}
	if oc != nil {
		p.Operator, p.CSRF = oc.op.Username, oc.sess.CSRFToken()
	}
	return p
}

// consoleHeaders are the console's security headers: consoleCSP, no
// referrer, isolated from other origins.
var consoleHeaders = layout.Headers{CSP: consoleCSP, Referrer: "no-referrer", Isolated: true}

// render writes a console page.
func (cp *Pages) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	if err := layout.Render(w, consolePages, name, status, consoleHeaders, data); err != nil {
		cp.logger(r).ErrorContext(r.Context(), "render console page", "page", name, "err", err)
	}
}

// consoleMessage shows a page with one message (errors, refusals).
func (cp *Pages) consoleMessage(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	cp.render(w, r, status, "console_message.html", struct {
		consolePage
		Message string
	}{consolePage{Title: title, CSS: consoleCSSPath}, message})
}

// consoleFailure answers an unexpected error: logged in full, shown as a
// generic message.
func (cp *Pages) consoleFailure(w http.ResponseWriter, r *http.Request, err error) {
	cp.logger(r).ErrorContext(r.Context(), "console request failed", "err", err)
	cp.consoleMessage(w, r, http.StatusInternalServerError, "Something went wrong",
		"The request failed. It was logged; try again, and tell the administrator if it keeps failing.")
}

// NotFound answers a console path that names no page.
func (cp *Pages) NotFound(w http.ResponseWriter, r *http.Request) {
	cp.consoleMessage(w, r, http.StatusNotFound, "Not found", "There is no such page.")
}

// RedirectHome sends /console/ to the queue at /console.
func (cp *Pages) RedirectHome(w http.ResponseWriter, r *http.Request) {
	consoleRedirect(w, r, "/console")
}

// consoleRedirect answers 303 See Other, with the console's headers.
func consoleRedirect(w http.ResponseWriter, r *http.Request, to string) {
	consoleHeaders.Set(w.Header())
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// Static serves the stylesheet under its content-addressed name.
func (cp *Pages) Static(w http.ResponseWriter, r *http.Request) {
	if "/console/static/"+r.PathValue("file") != consoleCSSPath {
		cp.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	_, _ = w.Write(consoleCSS)
}

// --- sign-in ----------------------------------------------------------------

// SignedIn is the signed-in operator of a request.
type SignedIn struct {
	op   verifyd.Operator
	sess webauth.Session
}

// signedIn returns the request's operator, or nil when there is no valid
// session of an active operator.
func (cp *Pages) signedIn(w http.ResponseWriter, r *http.Request) (*SignedIn, error) {
	c := cp.Console
	sess, err := c.Sessions.Get(r.Context(), r)
	if errors.Is(err, webauth.ErrNoSession) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	op, err := c.ActiveOperator(r.Context(), sess.Subject)
	if errors.Is(err, verifyd.ErrNotFound) {
		// Disabled since: the session ends.
		return nil, c.Sessions.End(r.Context(), w, r)
	}
	if err != nil {
		return nil, err
	}
	return &SignedIn{op: op, sess: sess}, nil
}

// OperatorPage serves a page to signed-in operators; others are sent to
// the login page. A POST must carry the session's CSRF token.
func (cp *Pages) OperatorPage(h func(http.ResponseWriter, *http.Request, *SignedIn)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		oc, err := cp.signedIn(w, r)
		if err != nil {
			cp.consoleFailure(w, r, err)
			return
		}
		if oc == nil {
			next := "/console"
			if r.Method == http.MethodGet {
				next = r.URL.Path
			}
			consoleRedirect(w, r, "/console/login?next="+url.QueryEscape(next))
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, consoleMaxForm)
			if !oc.sess.CheckCSRF(r) {
				cp.consoleMessage(w, r, http.StatusForbidden, "Request refused",
					"The form's security token is missing or wrong. Go back, reload the page and try again.")
				return
			}
		}
		h(w, r, oc)
	}
}

// OperatorImage serves images to signed-in operators only; others get 403
// (an image is never public, and a redirect would not help an <img>).
func (cp *Pages) OperatorImage(h func(http.ResponseWriter, *http.Request, *SignedIn)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		oc, err := cp.signedIn(w, r)
		if err != nil {
			cp.consoleFailure(w, r, err)
			return
		}
		if oc == nil {
			cp.consoleMessage(w, r, http.StatusForbidden, "Sign in first", "Images are shown to signed-in operators only.")
			return
		}
		h(w, r, oc)
	}
}

// safeNext keeps a post-login destination inside the console.
func safeNext(next string) string { return layout.SafeNext(next, "/console") }

type loginPage struct {
	consolePage
	Username string
	Next     string
}

func (cp *Pages) renderLogin(w http.ResponseWriter, r *http.Request, status int, username, message string) {
	token, err := cp.Console.Sessions.FormToken(w, r)
	if err != nil {
		cp.consoleFailure(w, r, err)
		return
	}
	p := loginPage{consolePage: consolePage{Title: "Sign in", CSS: consoleCSSPath, CSRF: token, Error: message},
		Username: username, Next: safeNext(r.FormValue("next"))}
	cp.render(w, r, status, "console_login.html", p)
}

// LoginForm shows the sign-in form (or sends a signed-in operator on).
func (cp *Pages) LoginForm(w http.ResponseWriter, r *http.Request) {
	oc, err := cp.signedIn(w, r)
	if err != nil {
		cp.consoleFailure(w, r, err)
		return
	}
	if oc != nil {
		consoleRedirect(w, r, safeNext(r.FormValue("next")))
		return
	}
	cp.renderLogin(w, r, http.StatusOK, "", "")
}

// Login signs an operator in: the form's token, the password, the
// sign-in limits, then a session.
func (cp *Pages) Login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, consoleMaxForm)
	if err := r.ParseForm(); err != nil {
		cp.consoleMessage(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return
	}
	username := r.PostFormValue("username")
	if !cp.Console.Sessions.CheckFormToken(r) {
		if !cp.Dev && r.TLS == nil && r.Header.Get("X-Forwarded-Proto") != "https" {
			// Browsers drop Secure cookies on plain http (except localhost).
			cp.logger(r).WarnContext(r.Context(), "console sign-in over plain http: its cookies are Secure, "+
				"so serve the console over HTTPS (or use --dev for local development)")
		}
		cp.renderLogin(w, r, http.StatusForbidden, username, "The form expired. Please sign in again.")
		return
	}
	op, err := cp.Console.Authenticate(r.Context(), username, r.PostFormValue("password"), request.ClientAddr(r))
	var limited *console.RateLimitedError
	switch {
	case errors.As(err, &limited):
		cp.logger(r).WarnContext(r.Context(), "console sign-in rate limited", "username", verifyd.NormalizeUsername(username))
		w.Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter/time.Second)+1))
		cp.renderLogin(w, r, http.StatusTooManyRequests, username,
			fmt.Sprintf("Too many sign-in attempts. Try again in %s.", humanDuration(limited.RetryAfter+time.Minute)))
		return
	case errors.Is(err, console.ErrBadLogin):
		cp.logger(r).InfoContext(r.Context(), "console sign-in failed", "username", verifyd.NormalizeUsername(username))
		cp.renderLogin(w, r, http.StatusUnauthorized, username, console.ErrBadLogin.Message)
		return
	case err != nil:
		cp.consoleFailure(w, r, err)
		return
	}
	if _, err := cp.Console.Sessions.Start(r.Context(), w, r, op.Username); err != nil {
		cp.consoleFailure(w, r, err)
		return
	}
	cp.logger(r).InfoContext(r.Context(), "console sign-in", "operator", op.Username)
	consoleRedirect(w, r, safeNext(r.PostFormValue("next")))
}

// Logout ends the operator's session.
func (cp *Pages) Logout(w http.ResponseWriter, r *http.Request, oc *SignedIn) {
	if err := cp.Console.Sessions.End(r.Context(), w, r); err != nil {
		cp.consoleFailure(w, r, err)
		return
	}
	cp.logger(r).InfoContext(r.Context(), "console sign-out", "operator", oc.op.Username)
	consoleRedirect(w, r, "/console/login")
}

// --- queue ------------------------------------------------------------------

type queueRow struct {
	ID, Link, Business, BusinessID, Environment, Interface string
	Created                                                timeView
	Age                                                    string
	// Reason is why the checks asked for a person.
	Reason string
	// Deadline is when the person stops waiting; Left says how long that
	// is from now, Overdue that it has passed.
	Deadline timeView
	Left     string
	Overdue  bool
}

// queueFilterLink is one choice of the queue's filters.
type queueFilterLink struct {
	Label, URL string
	Current    bool
}

// queueFilters are the links that narrow the queue by interface and by
// environment, each keeping the other choice.
func queueFilters(f console.QueueFilter) (byInterface, byEnv []queueFilterLink) {
	link := func(i verifyd.Interface, e verifyd.Environment) string {
		q := url.Values{}
		if i != "" {
			q.Set("interface", string(i))
		}
		if e != "" {
			q.Set("environment", string(e))
		}
		if len(q) == 0 {
			return "/console"
		}
		return "/console?" + q.Encode()
	}
	for _, i := range []verifyd.Interface{"", verifyd.InterfaceIdentity, verifyd.InterfaceAge} {
		label := map[verifyd.Interface]string{"": "All", verifyd.InterfaceIdentity: "Identity", verifyd.InterfaceAge: "Age"}[i]
		byInterface = append(byInterface, queueFilterLink{label, link(i, f.Environment), i == f.Interface})
	}
	for _, e := range []verifyd.Environment{"", verifyd.EnvProduction, verifyd.EnvSandbox} {
		label := map[verifyd.Environment]string{"": "All", verifyd.EnvProduction: "Production", verifyd.EnvSandbox: "Sandbox"}[e]
		byEnv = append(byEnv, queueFilterLink{label, link(f.Interface, e), e == f.Environment})
	}
	return byInterface, byEnv
}

type timeView struct{ Text, ISO string }

func showTime(t time.Time) timeView {
	if t.IsZero() {
		return timeView{}
	}
	t = t.UTC()
	return timeView{Text: t.Format("2006-01-02 15:04:05 UTC"), ISO: t.Format(time.RFC3339)}
}

// humanDuration writes a duration the way a person would say it.
func humanDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%d days %d h", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

func itemLink(id string) string { return "/console/verifications/" + url.PathEscape(id) }

// Queue shows the verifications waiting for an operator, oldest first.
func (cp *Pages) Queue(w http.ResponseWriter, r *http.Request, oc *SignedIn) {
	c := cp.Console
	// Unknown filter values are ignored, as a link that names none.
	var f console.QueueFilter
	if i := verifyd.Interface(r.URL.Query().Get("interface")); slices.Contains(verifyd.Interfaces, i) {
		f.Interface = i
	}
	if e := verifyd.Environment(r.URL.Query().Get("environment")); e.Valid() {
		f.Environment = e
	}
	items, err := c.Queue(r.Context(), f)
	if err != nil {
		cp.consoleFailure(w, r, err)
		return
	}
	now := c.Now()
	rows := make([]queueRow, len(items))
	for n, it := range items {
		rows[n] = queueRow{ID: it.ID, Link: itemLink(it.ID), Business: it.Business.Name, BusinessID: it.BusinessID,
			Environment: string(it.Environment), Interface: string(it.Interface), Created: showTime(it.CreatedAt),
			Age: humanDuration(now.Sub(it.CreatedAt)), Reason: orDash(it.ReviewReason), Deadline: showTime(it.Deadline),
			Overdue: !now.Before(it.Deadline)}
		if rows[n].Overdue {
			rows[n].Left = "passed"
		} else {
			rows[n].Left = "in " + humanDuration(it.Deadline.Sub(now))
		}
	}
	p := struct {
		consolePage
		Rows               []queueRow
		Limit              int
		Full               bool
		Filtered           bool
		ByInterface, ByEnv []queueFilterLink
	}{consolePage: cp.page("Review queue", oc), Rows: rows, Limit: console.QueueLimit, Full: len(items) == console.QueueLimit,
		Filtered: f != (console.QueueFilter{})}
	p.ByInterface, p.ByEnv = queueFilters(f)
	// After a decision the queue says what was decided, from the store
	// (never from text in the URL).
	if id := r.URL.Query().Get("decided"); id != "" {
		if v, err := c.Verification(r.Context(), id); err == nil && v.Status.Terminal() {
			p.Notice = fmt.Sprintf("Verification %s is now %s.", v.ID, statusText(v.Status, v.Reason))
		}
	}
	cp.render(w, r, http.StatusOK, "console_queue.html", p)
}

func statusText(st verifyd.Status, reason verifyd.Reason) string {
	if reason != "" {
		return string(st) + " (" + string(reason) + ")"
	}
	return string(st)
}

// --- one verification -------------------------------------------------------

type field struct{ Label, Value string }

type imageView struct {
	URL, Caption, Alt string
	Width, Height     int
}

type checkView struct {
	Check, Outcome, Reason, Detail, Millis string
	Evidence                               []field
}

type runView struct {
	Title, Outcome, Reason, Error string
	At                            timeView
	Unreadable                    bool
	Checks                        []checkView
}

type historyView struct {
	Seq                            int
	At                             timeView
	From, To, Reason, Cause, Actor string
	Decision                       bool
}

type itemPage struct {
	consolePage
	ID      string
	Summary []field
	Images  []imageView
	Runs    []runView
	History []historyView
	// ImagesDeleted: the images and evidence were purged after the decision
	// (an internal verification, data minimisation).
	ImagesDeleted bool
	Decidable     bool
	// Decided describes the operator decision, when there was one.
	Decided string
	Action  string
	Reasons []string
	// Chosen is the reason selected before an error.
	Chosen string
}

var imageLabels = map[verifyd.ImageKind]string{
	verifyd.ImageSelfie:        "Selfie",
	verifyd.ImageDocumentFront: "Document, front",
	verifyd.ImageDocumentBack:  "Document, back",
	verifyd.SelfieFrame(1):     "Selfie burst, frame 1",
	verifyd.SelfieFrame(2):     "Selfie burst, frame 2",
	verifyd.SelfieFrame(3):     "Selfie burst, frame 3",
}

func init() {
	// The liveness challenge's frames, shown to operators in order.
	for n := 1; n <= verifyd.MaxLivenessFrames; n++ {
		imageLabels[verifyd.LivenessFrameImage(n)] = fmt.Sprintf("Liveness challenge, frame %d", n)
	}
}

// evidenceText shows one evidence value: text and numbers as they are,
// anything structured as compact JSON.
func evidenceText(v any) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	// Not json.Marshal: it writes < > & as \u003c…, and an MRZ is full
	// of <. The template escapes the text for HTML.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func (cp *Pages) itemPage(w http.ResponseWriter, r *http.Request, oc *SignedIn, status int, message, chosen string) {
	it, err := cp.Console.Item(r.Context(), r.PathValue("id"))
	if errors.Is(err, verifyd.ErrNotFound) {
		cp.consoleMessage(w, r, http.StatusNotFound, "Not found", "There is no verification with this id.")
		return
	}
	if err != nil {
		cp.consoleFailure(w, r, err)
		return
	}
	v := it.Verification
	p := itemPage{consolePage: cp.page("Verification "+v.ID, oc), ID: v.ID, Decidable: it.Decidable(),
		Action: itemLink(v.ID) + "/decision", Chosen: chosen}
	p.Error = message
	doc := "—"
	if v.Document.Type != "" {
		doc = string(v.Document.Type) + ", " + strings.ToUpper(v.Document.Country)
	}
	review := map[verifyd.ReviewState]string{verifyd.ReviewNone: "not needed", verifyd.ReviewPending: "waiting for an operator",
		verifyd.ReviewDecided: "decided by an operator"}[v.Review]
	p.Summary = []field{
		{"Status", statusText(v.Status, v.Reason)},
		{"Review", review},
		{"Business", it.Business.Name + " (" + it.Business.ID + ")"},
		{"Environment", string(v.Environment)},
		{"Flow", string(v.Flow)},
		{"Customer id", v.Customer.ID},
		{"Customer e-mail", v.Customer.Email},
		{"Customer phone", orDash(v.Customer.Phone)},
		{"Document declared", doc},
		{"Submissions", strconv.Itoa(v.Submissions)},
		{"Created", showTime(v.CreatedAt).Text},
		{"Updated", showTime(v.UpdatedAt).Text},
		{"Expires", showTime(v.ExpiresAt).Text},
	}
	if v.PurgedAt != nil {
		p.ImagesDeleted = true
		p.Summary = append(p.Summary, field{"Images and evidence",
			purgedText + " on " + showTime(*v.PurgedAt).Text})
	}
	if v.RedactedAt != nil {
		p.Summary = append(p.Summary, field{"Redacted",
			"by the integrator on " + showTime(*v.RedactedAt).Text + " (e-mail, phone and document deleted too)"})
	}
	for _, im := range it.Images {
		label := imageLabels[im.Kind]
		if label == "" {
			label = string(im.Kind)
		}
		p.Images = append(p.Images, imageView{URL: itemLink(v.ID) + "/images/" + url.PathEscape(string(im.Kind)),
			Caption: fmt.Sprintf("%s (%s, %d × %d)", label, strings.ToUpper(im.Format), im.Width, im.Height),
			Alt:     label + " submitted by the customer", Width: im.Width, Height: im.Height})
	}
	for _, run := range it.Runs {
		rv := runView{Title: fmt.Sprintf("Run %d", run.Run), Outcome: run.Outcome, Reason: string(run.Reason),
			Error: run.Error, At: showTime(run.At), Unreadable: run.Unreadable}
		for _, res := range run.Results {
			cv := checkView{Check: res.Check, Outcome: string(res.Outcome), Reason: orDash(string(res.Reason)),
				Detail: orDash(res.Detail), Millis: strconv.FormatInt(res.Millis, 10)}
			keys := make([]string, 0, len(res.Evidence))
			for k := range res.Evidence {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				cv.Evidence = append(cv.Evidence, field{k, evidenceText(res.Evidence[k])})
			}
			rv.Checks = append(rv.Checks, cv)
		}
		p.Runs = append(p.Runs, rv)
	}
	for _, e := range it.History {
		h := historyView{Seq: e.Seq, At: showTime(e.At), From: orDash(string(e.From)), To: string(e.To),
			Reason: orDash(string(e.Reason)), Cause: string(e.Cause), Actor: orDash(e.Actor), Decision: e.Cause == verifyd.CauseReview}
		if h.Decision {
			p.Decided = fmt.Sprintf("%s by %s at %s", statusText(e.To, e.Reason), e.Actor, h.At.Text)
		}
		p.History = append(p.History, h)
	}
	for _, reason := range verifyd.Reasons {
		p.Reasons = append(p.Reasons, string(reason))
	}
	cp.render(w, r, status, "console_item.html", p)
}

// Item shows one verification: its data, images, check runs and history.
func (cp *Pages) Item(w http.ResponseWriter, r *http.Request, oc *SignedIn) {
	cp.itemPage(w, r, oc, http.StatusOK, "", "")
}

// Decide records an operator's decision, after a confirmation page.
func (cp *Pages) Decide(w http.ResponseWriter, r *http.Request, oc *SignedIn) {
	id := r.PathValue("id")
	reason := r.PostFormValue("reason")
	var d console.Decision
	switch r.PostFormValue("decision") {
	case "approve":
		d.Approve = true
	case "fail":
		d.Reason = verifyd.Reason(reason)
	default:
		cp.itemPage(w, r, oc, http.StatusUnprocessableEntity, "Choose approve or fail.", reason)
		return
	}
	if r.PostFormValue("confirm") != "yes" && (d.Approve || d.Reason.Valid()) {
		// A decision is final and notifies the integrator: it is asked
		// for once more. (An incomplete one goes on to be refused.)
		cp.confirmDecision(w, r, oc, id, d)
		return
	}
	_, err := cp.Console.Decide(r.Context(), oc.op.Username, id, d)
	switch code := verifyd.ErrorCodeOf(err); {
	case err == nil:
		cp.logger(r).InfoContext(r.Context(), "review decision", "operator", oc.op.Username, "verification", id,
			"approve", d.Approve, "reason", string(d.Reason))
		consoleRedirect(w, r, "/console?decided="+url.QueryEscape(id))
	case code == verifyd.ENotFound:
		cp.consoleMessage(w, r, http.StatusNotFound, "Not found", "There is no verification with this id.")
	case code == verifyd.EInvalid || code == verifyd.EConflict:
		status := http.StatusUnprocessableEntity
		if code == verifyd.EConflict {
			status = http.StatusConflict
		}
		var e *verifyd.Error
		errors.As(err, &e)
		cp.itemPage(w, r, oc, status, e.Message, reason)
	default:
		cp.consoleFailure(w, r, err)
	}
}

// confirmDecision shows the decision about to be made, with a button that
// makes it and a way back.
func (cp *Pages) confirmDecision(w http.ResponseWriter, r *http.Request, oc *SignedIn, id string, d console.Decision) {
	v, err := cp.Console.Verification(r.Context(), id)
	if errors.Is(err, verifyd.ErrNotFound) {
		cp.consoleMessage(w, r, http.StatusNotFound, "Not found", "There is no verification with this id.")
		return
	}
	if err != nil {
		cp.consoleFailure(w, r, err)
		return
	}
	p := struct {
		consolePage
		ID, Link, Action, Decision, Reason, Customer, Outcome string
		Approve                                               bool
	}{consolePage: cp.page("Confirm the decision", oc), ID: v.ID, Link: itemLink(v.ID), Action: itemLink(v.ID) + "/decision",
		Decision: "approve", Reason: string(d.Reason), Customer: v.Customer.Email, Outcome: "approved", Approve: d.Approve}
	if !d.Approve {
		p.Decision, p.Outcome = "fail", statusText(verifyd.StatusFailed, d.Reason)
	}
	cp.render(w, r, http.StatusOK, "console_confirm.html", p)
}

// purgedText says what happened to a purged verification's images.
const purgedText = "images deleted after the decision (data minimisation)"

// imageTypes are the media types of the formats submissions may have.
var imageTypes = map[string]string{"jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp"}

// Image serves one submitted image to a signed-in operator.
func (cp *Pages) Image(w http.ResponseWriter, r *http.Request, oc *SignedIn) {
	kind := verifyd.ImageKind(r.PathValue("kind"))
	if _, ok := imageLabels[kind]; !ok {
		cp.NotFound(w, r)
		return
	}
	im, err := cp.Console.Image(r.Context(), r.PathValue("id"), kind)
	if errors.Is(err, verifyd.ErrNotFound) {
		if v, err := cp.Console.Verification(r.Context(), r.PathValue("id")); err == nil && v.PurgedAt != nil {
			cp.consoleMessage(w, r, http.StatusGone, "Image deleted", "The "+purgedText+".")
			return
		}
		cp.NotFound(w, r)
		return
	}
	if err != nil {
		cp.consoleFailure(w, r, err)
		return
	}
	h := w.Header()
	consoleHeaders.Set(h)
	h.Set("Content-Security-Policy", "default-src 'none'")
	if ct, ok := imageTypes[im.Format]; ok {
		h.Set("Content-Type", ct)
		h.Set("Content-Disposition", "inline")
	} else {
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Disposition", "attachment")
	}
	h.Set("Content-Length", strconv.Itoa(len(im.Bytes)))
	_, _ = w.Write(im.Bytes)
}
