package hosted

import (
	"embed"
	"errors"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/httpapi/request"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/web/layout"
)

// Pages are the identity hosted page's handlers and what they need.
type Pages struct {
	Identity *identity.Service
	// Branding shows the business's branding and the notice (nil: none;
	// the consent step then names nobody, which only tests do).
	Branding *branding.Service
	Logger   *slog.Logger
}

func (hp *Pages) logger(r *http.Request) *slog.Logger { return request.Logger(hp.Logger, r) }

func (hp *Pages) writeError(w http.ResponseWriter, r *http.Request, err error) {
	request.WriteError(w, r, hp.Logger, err)
}

//go:embed pages/*.html
var pageFS embed.FS

// CaptureFS holds capture.html, the template "capture": the capture form
// and camera dialog the age flow's document method shows too (with
// PageData's fields and Script).
var CaptureFS fs.FS = capture

//go:embed pages/capture.html
var capture embed.FS

//go:embed pages/hosted.js
var script []byte

// Script drives the capture form, the camera, the liveness challenge and
// the status polling, on this page and the age flow's.
var Script = layout.Asset{Name: "hosted.js", Body: script}

var hostedTemplates = template.Must(layout.New().ParseFS(pageFS, "pages/hosted.html", "pages/capture.html"))

// hostedAssets are the page's stylesheet and script.
var hostedAssets = layout.NewAssets(layout.Stylesheet, Script)

// Headers are the capture pages' security headers: layout.CSP, and the
// camera for this origin only.
var Headers = layout.Headers{CSP: layout.CSP, Referrer: "same-origin",
	Permissions: "camera=(self), microphone=(), geolocation=()"}

// Asset serves the page's CSS and script from this origin.
func (hp *Pages) Asset(w http.ResponseWriter, r *http.Request) {
	if !hostedAssets.Serve(w, r, r.PathValue("name")) {
		hp.writeError(w, r, request.ErrRouteNotFound)
	}
}

// Limits of a hosted submission: three images, the selfie burst, the
// frames of the liveness challenge, and a few short fields (with the
// frames' times). SubmissionLimit bounds the whole body.
const (
	fieldLimit      = 256
	SubmissionLimit = 3*(verifyd.MaxImageBytes+1) + verifyd.MaxSelfieFrames*(verifyd.MaxSelfieFrameSize+1) +
		verifyd.MaxLivenessFrames*(verifyd.MaxLivenessFrameBytes+1) + 1<<20
)

// hostedCSRF is the page's double-submit token, in a cookie scoped to the
// mount's hosted pages.
var hostedCSRF = layout.DoubleSubmit{Cookie: "verifyd_hosted_csrf", MaxAge: verifyd.VerificationLifetime + 24*time.Hour}

// hostedReq is what every hosted handler works out first.
type hostedReq struct {
	token    string
	lang     string
	explicit bool // ?lang= chose the language
	mount    *request.Mounted
}

func (hp *Pages) hostedRequest(r *http.Request) hostedReq {
	lang, explicit := layout.Lang(r)
	return hostedReq{token: r.PathValue("token"), lang: lang, explicit: explicit, mount: request.MountOf(r.Context())}
}

// pagePath is the page's path on this mount; suffix is appended.
func (h hostedReq) pagePath(suffix string) string {
	return h.mount.Prefix() + "/verify/" + url.PathEscape(h.token) + suffix
}

// query carries an explicitly chosen language on to links.
func (h hostedReq) query() string {
	if h.explicit {
		return "?lang=" + h.lang
	}
	return ""
}

// lookup finds the verification of the request's token on this mount: a
// token of the other environment is not found here.
func (hp *Pages) hostedLookup(r *http.Request, h hostedReq) error {
	v, err := hp.Identity.ByHostedToken(r.Context(), h.token)
	if err != nil {
		return err
	}
	if v.Environment != h.mount.Environment {
		return verifyd.ErrNotFound
	}
	return nil
}

// Page serves the page a B1 redirect_uri points at. Opening it moves
// the verification from pending to started; what it shows depends on the
// verification's phase (identity.HostedState).
func (hp *Pages) Page(w http.ResponseWriter, r *http.Request) {
	h := hp.hostedRequest(r)
	if err := hp.hostedLookup(r, h); err != nil {
		hp.hostedPageError(w, r, h, err)
		return
	}
	st, err := hp.Identity.OpenHostedState(r.Context(), h.token)
	if err != nil {
		hp.hostedPageError(w, r, h, err)
		return
	}
	hp.renderHosted(w, r, h, st, http.StatusOK, nil)
}

// hostedPageError answers a page request that found no verification (or
// failed) with a page rather than JSON: a person reads it.
func (hp *Pages) hostedPageError(w http.ResponseWriter, r *http.Request, h hostedReq, err error) {
	status, key := http.StatusInternalServerError, "err_generic"
	if verifyd.ErrorCodeOf(err) == verifyd.ENotFound {
		status, key = http.StatusNotFound, "not_found"
	} else {
		hp.logger(r).ErrorContext(r.Context(), "hosted page", "err", err)
	}
	d := hp.hostedData(w, r, h)
	d.NotFound, d.Message = true, msg(h.lang, key)
	if status == http.StatusNotFound {
		// The link is unknown, so is the site it came from: say where to go.
		d.NextStep = msg(h.lang, "next_not_found")
	}
	if err := layout.Render(w, hostedTemplates, "hosted.html", status, Headers, d); err != nil {
		hp.logger(r).ErrorContext(r.Context(), "render hosted page", "err", err)
	}
}

// ensureCSRF returns the request's double-submit token (hostedCSRF).
func (hp *Pages) ensureCSRF(w http.ResponseWriter, r *http.Request, h hostedReq) string {
	return hostedCSRF.Ensure(w, r, h.mount, h.mount.Prefix()+"/verify/")
}

// checkCSRF accepts a state-changing request only with the page's token
// from this origin (hostedCSRF).
func checkCSRF(r *http.Request, h hostedReq, formToken string) bool {
	return hostedCSRF.Check(r, h.mount, formToken)
}

// WantsJSON tells the page's script (which asks for JSON) from a plain form
// post (which gets pages and redirects).
func WantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// Problem is a field problem with its text in the page's language.
type Problem struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
	Message string `json:"message"`
}

// ErrorBody is the JSON error of the hosted endpoints: SPEC's two
// fields (message in the page's language) plus the field problems.
type ErrorBody struct {
	Message    string    `json:"message"`
	StatusCode int       `json:"status_code"`
	Errors     []Problem `json:"errors,omitempty"`
}

// ProblemText is a field problem of a capture form, in lang, as the
// person can act on it.
func ProblemText(lang, field, problem string) string {
	if livenessField(field) {
		// The person cannot fix a frame; they can repeat the movements.
		if field == identity.FieldLivenessChallenge && strings.Contains(problem, "perform a new") {
			return msg(lang, "err_liveness_spent")
		}
		return msg(lang, "err_liveness_frames")
	}
	label := msg(lang, "field_"+field)
	switch field {
	case identity.FieldFront, identity.FieldBack, identity.FieldSelfie:
		switch {
		case problem == "is required":
			return msg(lang, "err_image_required", label)
		case strings.Contains(problem, "larger than"):
			return msg(lang, "err_image_too_large", label)
		case strings.Contains(problem, "smaller than"):
			return msg(lang, "err_image_too_small", label)
		case strings.Contains(problem, "too many pixels"):
			return msg(lang, "err_image_too_big", label)
		}
		return msg(lang, "err_image_format", label)
	}
	if problem == "is required" {
		return msg(lang, "err_required", label)
	}
	return msg(lang, "err_invalid", label)
}

// hostedFail answers a refused hosted request: JSON for the script, a page
// (or the page's current state) for a plain form.
func (hp *Pages) hostedFail(w http.ResponseWriter, r *http.Request, h hostedReq, err error, form *identity.HostedSubmission) {
	code := verifyd.ErrorCodeOf(err)
	if code == verifyd.EInternal {
		if WantsJSON(r) {
			hp.writeError(w, r, err)
		} else {
			hp.hostedPageError(w, r, h, err)
		}
		return
	}
	status := request.StatusOf(code)
	var problems []Problem
	var e *verifyd.Error
	if errors.As(err, &e) {
		for _, f := range e.Fields {
			problems = append(problems, Problem{Field: f.Field, Problem: f.Problem, Message: ProblemText(h.lang, f.Field, f.Problem)})
		}
	}
	key := "err_generic"
	switch code {
	case verifyd.EConflict:
		key = "err_conflict"
	case verifyd.ETooLarge:
		key = "err_too_large"
	case verifyd.ENotFound:
		key = "not_found"
	case verifyd.EInvalid:
		// The error summary above the form carries this heading; a plain
		// form's page shows no banner besides it.
		key = ""
	case verifyd.EUnauthorized:
		status, key = http.StatusForbidden, "err_csrf"
	}
	if WantsJSON(r) {
		if key == "" {
			key = "errors_title"
		}
		request.WriteJSON(w, status, ErrorBody{Message: msg(h.lang, key), StatusCode: status, Errors: problems})
		return
	}
	if code == verifyd.ENotFound {
		hp.hostedPageError(w, r, h, err)
		return
	}
	st, stErr := hp.Identity.HostedState(r.Context(), h.token)
	if stErr != nil {
		hp.hostedPageError(w, r, h, stErr)
		return
	}
	res := &FormResult{Problems: problems, Form: form}
	if key != "" {
		res.banner = msg(h.lang, key)
	}
	hp.renderHosted(w, r, h, st, status, res)
}

// ErrCSRF is how a failed CSRF check travels to hostedFail (answered 403).
var ErrCSRF = &verifyd.Error{Code: verifyd.EUnauthorized, Message: "forbidden"}

// Submit accepts the capture form (multipart/form-data: csrf,
// document_type, document_country, front, back, selfie).
func (hp *Pages) Submit(w http.ResponseWriter, r *http.Request) {
	h := hp.hostedRequest(r)
	if err := hp.hostedLookup(r, h); err != nil {
		hp.hostedFail(w, r, h, err, nil)
		return
	}
	in, csrf, err := ReadForm(w, r)
	if err != nil {
		hp.hostedFail(w, r, h, err, nil)
		return
	}
	if !checkCSRF(r, h, csrf) {
		hp.hostedFail(w, r, h, ErrCSRF, nil)
		return
	}
	st, err := hp.Identity.SubmitHosted(r.Context(), h.token, in)
	if err != nil {
		hp.hostedFail(w, r, h, err, &in)
		return
	}
	if WantsJSON(r) {
		request.WriteJSON(w, http.StatusAccepted, statusBody(h, st))
		return
	}
	http.Redirect(w, r, h.pagePath(h.query()), http.StatusSeeOther)
}

// ReadForm streams the multipart body, keeping at most one byte more
// than the limit of each image so an oversized one is reported as such.
func ReadForm(w http.ResponseWriter, r *http.Request) (identity.HostedSubmission, string, error) {
	var in identity.HostedSubmission
	var csrf string
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" {
		return in, "", request.ErrMalformed
	}
	if r.ContentLength > SubmissionLimit {
		return in, "", request.ErrTooLarge
	}
	r.Body = http.MaxBytesReader(w, r.Body, SubmissionLimit)
	mr, err := r.MultipartReader()
	if err != nil {
		return in, "", request.ErrMalformed
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return in, "", request.BodyError(err)
		}
		var dst *[]byte
		var text *string
		limit := int64(fieldLimit)
		switch part.FormName() {
		case "csrf":
			text = &csrf
		case identity.FieldDocumentType:
			text = &in.DocumentType
		case identity.FieldDocumentCountry:
			text = &in.Country
		case identity.FieldFront:
			dst = &in.Front
		case identity.FieldBack:
			dst = &in.Back
		case identity.FieldSelfie:
			dst = &in.Selfie
		case identity.FieldSelfieFrame:
			// Up to one frame more than allowed is kept, so too many
			// frames are reported rather than silently dropped.
			if len(in.Frames) <= verifyd.MaxSelfieFrames {
				in.Frames = append(in.Frames, nil)
				dst = &in.Frames[len(in.Frames)-1]
			}
		case identity.FieldLivenessChallenge:
			text = &in.Challenge
		case identity.FieldLivenessManual:
			text = &in.ManualStep
		case identity.FieldLivenessFrame:
			if len(in.LivenessFrames) <= verifyd.MaxLivenessFrames {
				in.LivenessFrames = append(in.LivenessFrames, nil)
				dst = &in.LivenessFrames[len(in.LivenessFrames)-1]
			}
		case identity.FieldLivenessFrameMs:
			if len(in.LivenessFrameMs) <= verifyd.MaxLivenessFrames {
				in.LivenessFrameMs = append(in.LivenessFrameMs, "")
				text = &in.LivenessFrameMs[len(in.LivenessFrameMs)-1]
			}
		}
		if dst != nil {
			limit = verifyd.MaxImageBytes + 1
			switch part.FormName() {
			case identity.FieldSelfieFrame:
				limit = verifyd.MaxSelfieFrameSize + 1
			case identity.FieldLivenessFrame:
				limit = verifyd.MaxLivenessFrameBytes + 1
			}
		}
		b, err := readPart(part, limit)
		if err != nil {
			return in, "", request.BodyError(err)
		}
		switch {
		case dst != nil:
			*dst = b
		case text != nil:
			*text = strings.TrimSpace(string(b))
		}
	}
	return in, csrf, nil
}

// readPart reads up to limit bytes of a part and discards the rest.
func readPart(p *multipart.Part, limit int64) ([]byte, error) {
	defer p.Close()
	b, err := io.ReadAll(io.LimitReader(p, limit))
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, p)
	return b, err
}

// hostedStatusBody is the page's polling answer.
type hostedStatusBody struct {
	Status       verifyd.Status `json:"status"`
	Reason       verifyd.Reason `json:"reason"`
	Phase        identity.Phase `json:"phase"`
	Processing   bool           `json:"processing"`
	CanRetry     bool           `json:"can_retry"`
	AttemptsLeft int            `json:"attempts_left"`
	MessageKey   string         `json:"message_key"`
	Message      string         `json:"message"`
	ReturnURL    string         `json:"return_url"`
}

func statusBody(h hostedReq, st identity.HostedState) hostedStatusBody {
	b := hostedStatusBody{Status: st.Status, Reason: st.Reason, Phase: st.Phase,
		Processing: st.Phase == identity.PhaseProcessing, CanRetry: st.Phase == identity.PhaseRetry && st.AttemptsLeft > 0,
		AttemptsLeft: st.AttemptsLeft, MessageKey: "state_" + string(st.Phase)}
	b.Message = msg(h.lang, b.MessageKey)
	if st.Done() {
		b.ReturnURL = st.RedirectURI
	}
	return b
}

// Status answers the page's polling with a small JSON document.
func (hp *Pages) Status(w http.ResponseWriter, r *http.Request) {
	h, st, ok := hp.stateOrError(w, r)
	if !ok {
		return
	}
	request.WriteJSON(w, http.StatusOK, statusBody(h, st))
}

// stateOrError finds the page's verification and its state for the
// page's script endpoints, answering SPEC's JSON error when it cannot (ok
// false).
func (hp *Pages) stateOrError(w http.ResponseWriter, r *http.Request) (hostedReq, identity.HostedState, bool) {
	h := hp.hostedRequest(r)
	if err := hp.hostedLookup(r, h); err != nil {
		hp.writeError(w, r, err)
		return h, identity.HostedState{}, false
	}
	st, err := hp.Identity.HostedState(r.Context(), h.token)
	if err != nil {
		hp.writeError(w, r, err)
		return h, identity.HostedState{}, false
	}
	return h, st, true
}

// Sandbox applies the outcome chosen in the sandbox panel. The route
// exists only on sandbox mounts, and identity.SandboxHosted refuses
// production verifications, so production answers 404.
func (hp *Pages) Sandbox(w http.ResponseWriter, r *http.Request) {
	h, ok := hp.smallForm(w, r)
	if !ok {
		return
	}
	st, err := hp.Identity.SandboxHosted(r.Context(), h.token, r.PostForm.Get("outcome"))
	if err != nil {
		hp.hostedFail(w, r, h, err, nil)
		return
	}
	if WantsJSON(r) {
		request.WriteJSON(w, http.StatusOK, statusBody(h, st))
		return
	}
	http.Redirect(w, r, h.pagePath(h.query()), http.StatusSeeOther)
}

// smallForm reads a short form posted from the page (the sandbox panel,
// the consent step): the verification must be on this mount, the body
// small and the CSRF token the page's. It answers the refusal itself and
// then reports false.
func (hp *Pages) smallForm(w http.ResponseWriter, r *http.Request) (hostedReq, bool) {
	h := hp.hostedRequest(r)
	if err := hp.hostedLookup(r, h); err != nil {
		hp.hostedFail(w, r, h, err, nil)
		return h, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		hp.hostedFail(w, r, h, request.BodyError(err), nil)
		return h, false
	}
	if !checkCSRF(r, h, r.PostForm.Get("csrf")) {
		hp.hostedFail(w, r, h, ErrCSRF, nil)
		return h, false
	}
	return h, true
}

// FormResult is a refused plain-form submission shown on the page.
type FormResult struct {
	banner   string
	Problems []Problem
	Form     *identity.HostedSubmission
}

// PageData is what pages/hosted.html renders.
type PageData struct {
	Lang     string
	CSS, JS  string
	PagePath string
	Query    string
	Submit   string
	// Challenge is where the script asks for a liveness challenge.
	Challenge string
	StatusURL string
	SandboxTo string
	CSRF      string
	Langs     []layout.LangLink

	NotFound bool
	Sandbox  bool
	Phase    identity.Phase
	Message  string
	// Detail explains a failure; Fix and FixImage what to do on a retry.
	Detail string
	// NextStep tells a person who cannot go on here what to do instead.
	NextStep     string
	Fix          string
	FixImage     string
	AttemptsLeft int
	ShowAttempts bool
	ExpiresAt    string
	// ExpiresISO is ExpiresAt in RFC 3339, for the script to show in the
	// person's language and time zone.
	ExpiresISO string
	// ChooseAgain lists the photos a refused plain form lost: a browser
	// does not keep file inputs across a POST.
	ChooseAgain string
	ReturnURL   string
	CanSubmit   bool
	ShowSandbox bool

	Banner    string
	Problems  []Problem
	DocTypes  []Option
	Countries []Option
	Images    []Image
	FieldErr  map[string]string
	Outcomes  []Option
	JSText    map[string]string

	// HandoffURL and HandoffQR hand the verification to a phone: the
	// page's absolute link and its QR code (handoff.go).
	HandoffURL, HandoffQR string

	// Brand is the business's branding and notice (nil: none).
	Brand *layout.Brand
	// NeedsConsent shows the notice and the consent step instead of the
	// capture form; ConsentTo is where it posts.
	NeedsConsent bool
	ConsentTo    string
}

// T returns the text of key in the page's language.
func (d PageData) T(key string, args ...any) string { return msg(d.Lang, key, args...) }

// PrivacyText is the note under the capture form's submit button.
func (d PageData) PrivacyText() string { return msg(d.Lang, "privacy") }

// Option is a choice of a list: a document type, a country, an outcome.
type Option struct {
	Value, Label string
	Selected     bool
}

// Image is one photo section of the capture form.
type Image struct {
	Field, Heading, Hint, Tips, FileLabel, Label string
	// Facing is the camera to use (environment or user); Guide the frame
	// overlay (document or face).
	Facing, Guide string
	Required      bool
	Optional      bool
	Error         string
	// Kept: a retry may leave this photo out; the last one is kept.
	Kept bool
}

// hostedData fills what every hosted page shows.
func (hp *Pages) hostedData(w http.ResponseWriter, r *http.Request, h hostedReq) PageData {
	d := PageData{Lang: h.lang, PagePath: h.pagePath(""), Query: h.query(),
		CSS: h.mount.Prefix() + "/verify-assets/" + hostedAssets.Name("hosted.css"),
		JS:  h.mount.Prefix() + "/verify-assets/" + hostedAssets.Name("hosted.js")}
	d.Langs = layout.LangLinks(h.lang, layout.QueryLink(d.PagePath))
	return d
}

// renderHosted renders the page for a verification's state; res carries a
// refused plain-form submission.
func (hp *Pages) renderHosted(w http.ResponseWriter, r *http.Request, h hostedReq, st identity.HostedState, status int, res *FormResult) {
	d := hp.hostedData(w, r, h)
	d.CSRF = hp.ensureCSRF(w, r, h)
	d.Submit, d.StatusURL, d.SandboxTo = h.pagePath("/submission"+h.query()), h.pagePath("/status"), h.pagePath("/sandbox"+h.query())
	d.Challenge = h.pagePath("/liveness-challenge" + h.query())
	d.Sandbox, d.Phase = st.Sandbox(), st.Phase
	d.Message = msg(h.lang, "state_"+string(st.Phase))
	d.ExpiresAt = st.DueAt().UTC().Format("2006-01-02 15:04")
	d.ExpiresISO = st.DueAt().UTC().Format(time.RFC3339)
	d.CanSubmit = st.CanSubmit()
	d.ShowSandbox = st.Sandbox() && !st.Status.Terminal()
	d.AttemptsLeft = st.AttemptsLeft
	d.ShowAttempts = st.Phase == identity.PhaseRetry
	if st.Done() {
		d.ReturnURL = st.RedirectURI
	}
	switch st.Phase {
	case identity.PhaseFailed:
		d.Detail = msg(h.lang, "reason_"+string(st.Reason))
		d.NextStep = msg(h.lang, "next_failed")
	case identity.PhaseRetry:
		d.Fix = msg(h.lang, "fix_"+st.Fix.Problem)
		if st.Fix.Image != "" {
			d.FixImage = msg(h.lang, "fix_image_"+string(st.Fix.Image))
		}
	}
	if d.ShowSandbox {
		for _, o := range identity.SandboxOutcomes() {
			label := msg(h.lang, "sandbox_"+o)
			if verifyd.Reason(o).Valid() {
				label = msg(h.lang, "sandbox_failed", o)
			}
			d.Outcomes = append(d.Outcomes, Option{Value: o, Label: label})
		}
	}
	hp.fillConsent(r, &d, h, st)
	if d.CanSubmit && !d.NeedsConsent {
		FillCaptureForm(&d, r, h.lang, st, res)
		d.HandoffURL, d.HandoffQR = h.pageURL(), h.pagePath("/handoff.png"+h.query())
	}
	d.JSText = JSText(h.lang)
	if res != nil {
		d.Banner, d.Problems = res.banner, res.Problems
	}
	if err := layout.Render(w, hostedTemplates, "hosted.html", status, Headers, d); err != nil {
		hp.logger(r).ErrorContext(r.Context(), "render hosted page", "err", err)
	}
}

// FillCaptureForm prepares the capture form of d in lang: choices
// preselected from a refused submission (res), else the previous
// submission, else the browser's language.
func FillCaptureForm(d *PageData, r *http.Request, lang string, st identity.HostedState, res *FormResult) {
	docType, country := string(st.Document.Type), st.Document.Country
	if res != nil && res.Form != nil {
		docType, country = res.Form.DocumentType, res.Form.Country
	}
	if country == "" {
		country = defaultCountry(r)
	}
	for _, t := range verifyd.DocumentTypes {
		d.DocTypes = append(d.DocTypes, Option{Value: string(t), Label: msg(lang, "doc_"+string(t)), Selected: string(t) == docType})
	}
	for _, c := range countryLists[lang] {
		d.Countries = append(d.Countries, Option{Value: c.Code, Label: c.Name + " (" + strings.ToUpper(c.Code) + ")", Selected: c.Code == country})
	}
	fieldErr := map[string]string{}
	if res != nil {
		for _, p := range res.Problems {
			fieldErr[p.Field] = p.Message
		}
	}
	d.Images = []Image{
		{Field: identity.FieldFront, Heading: msg(lang, "step_front"), Hint: msg(lang, "front_hint"),
			Tips: msg(lang, "doc_tips"), FileLabel: msg(lang, "file_front"), Facing: "environment", Guide: "document", Required: true},
		{Field: identity.FieldBack, Heading: msg(lang, "step_back"), Hint: msg(lang, "back_hint"),
			Tips: msg(lang, "doc_tips"), FileLabel: msg(lang, "file_back"), Facing: "environment", Guide: "document", Optional: true},
		{Field: identity.FieldSelfie, Heading: msg(lang, "step_selfie"),
			Tips: msg(lang, "selfie_tips"), FileLabel: msg(lang, "file_selfie"), Facing: "user", Guide: "face", Required: true},
	}
	kinds := map[string]verifyd.ImageKind{identity.FieldFront: verifyd.ImageDocumentFront,
		identity.FieldBack: verifyd.ImageDocumentBack, identity.FieldSelfie: verifyd.ImageSelfie}
	for n := range d.Images {
		im := &d.Images[n]
		im.Label = msg(lang, "field_"+im.Field)
		im.Error = fieldErr[im.Field]
		// The photo the server asked to fix is taken again; the others
		// may stay as they were.
		if st.Keeps(kinds[im.Field]) && im.Error == "" {
			im.Kept, im.Required = true, false
		}
	}
	d.FieldErr = fieldErr
	if res != nil && res.Form != nil {
		// Photos that were sent without a problem are lost all the same.
		var again []string
		for _, im := range d.Images {
			if len(res.Form.Image(im.Field)) > 0 && im.Error == "" {
				again = append(again, im.Label)
			}
		}
		if len(again) > 0 {
			d.ChooseAgain = msg(lang, "choose_again", strings.Join(again, ", "))
		}
	}
}
