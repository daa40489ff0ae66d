package dashpages

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/webhook"
)

// Data are the services behind the verifications, webhooks and branding
// pages. The pages hand every call the signed-in member's business, so no
// page reaches another business's data; the routes (httpapi/routes.go)
// check the member's role.
type Data struct {
	Identity     *identity.Service
	Branding     *branding.Service
	WebhookTests *webhook.Tester
}

// verificationRow is one verification of the list.
type verificationRow struct {
	ID, CustomerID, Environment, Status, Reason string
	Created, Updated                            timeView
	Redacted                                    bool
}

type verificationsData struct {
	Rows []verificationRow
	// The filter as submitted, for the form.
	Status, Reason, Environment, From, To, Q string
	Statuses, Reasons                        []string
	Environments                             []string
	// Next is the link to the next (older) page, "" on the last.
	Next string
}

const dateForm = "2006-01-02"

// Verifications lists the business's verifications, newest first, with the
// filter of the query string: status, reason, environment, created from
// and to (dates, UTC, both included) and q (a verification id or a
// customer id, exactly).
func (p *Pages) Verifications(w http.ResponseWriter, r *Req) {
	q := r.URL.Query()
	d := verificationsData{Status: q.Get("status"), Reason: q.Get("reason"), Environment: q.Get("environment"),
		From: q.Get("from"), To: q.Get("to"), Q: strings.TrimSpace(q.Get("q"))}
	for _, s := range []verifyd.Status{verifyd.StatusPending, verifyd.StatusStarted, verifyd.StatusApproved, verifyd.StatusFailed, verifyd.StatusExpired} {
		d.Statuses = append(d.Statuses, string(s))
	}
	for _, reason := range verifyd.Reasons {
		d.Reasons = append(d.Reasons, string(reason))
	}
	for _, e := range r.Member.Environments() {
		d.Environments = append(d.Environments, string(e))
	}
	query := verifyd.VerificationQuery{Status: verifyd.Status(d.Status), Reason: verifyd.Reason(d.Reason),
		Environment: verifyd.Environment(d.Environment), Search: d.Q}
	v := p.memberView(w, r, "verifications_title")
	// A value the form does not offer is a filter nothing matches: say so
	// rather than ignore it.
	var bad []string
	if d.Status != "" && !contains(d.Statuses, d.Status) {
		bad = append(bad, "status")
	}
	if d.Reason != "" && !verifyd.Reason(d.Reason).Valid() {
		bad = append(bad, "reason")
	}
	if d.Environment != "" && !verifyd.Environment(d.Environment).Valid() {
		bad = append(bad, "environment")
	}
	if d.From != "" {
		t, err := time.Parse(dateForm, d.From)
		if err != nil {
			bad = append(bad, "from")
		}
		query.CreatedFrom = t
	}
	if d.To != "" {
		t, err := time.Parse(dateForm, d.To)
		if err != nil {
			bad = append(bad, "to")
		}
		query.CreatedBefore = t.Add(24 * time.Hour)
	}
	if after := q.Get("after"); after != "" {
		c, ok := parseCursor(after)
		if !ok {
			bad = append(bad, "after")
		}
		query.After = c
	}
	if len(bad) > 0 {
		v.Error = texts.Msg(r.Lang, "err_filter", strings.Join(bad, ", "))
		v.Data = d
		p.render(w, r.Request, http.StatusBadRequest, "verifications", v)
		return
	}
	page, err := p.data.Identity.List(r.Context(), r.Member.Business.ID, query)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	for _, vf := range page.Verifications {
		d.Rows = append(d.Rows, verificationRow{ID: vf.ID, CustomerID: vf.Customer.ID, Environment: string(vf.Environment),
			Status: string(vf.Status), Reason: string(vf.Reason), Created: showTime(vf.CreatedAt), Updated: showTime(vf.UpdatedAt),
			Redacted: vf.RedactedAt != nil})
	}
	if page.Next != nil {
		next := url.Values{}
		for _, k := range []string{"status", "reason", "environment", "from", "to", "q"} {
			if val := q.Get(k); val != "" {
				next.Set(k, val)
			}
		}
		next.Set("after", formatCursor(*page.Next))
		d.Next = Base + "/verifications?" + next.Encode()
	}
	v.Data = d
	p.render(w, r.Request, http.StatusOK, "verifications", v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A cursor is "MICROS.ID": where the previous page ended.
func formatCursor(c verifyd.VerificationCursor) string {
	return strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "." + c.ID
}

func parseCursor(s string) (*verifyd.VerificationCursor, bool) {
	micros, id, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || id == "" {
		return nil, false
	}
	return &verifyd.VerificationCursor{CreatedAt: time.UnixMicro(n).UTC(), ID: id}, true
}

type historyRow struct {
	At                             timeView
	From, To, Reason, Cause, Actor string
}

type attemptRow struct {
	Attempt    int
	At         timeView
	StatusCode int
	Latency    string
	Error      string
}

type eventRow struct {
	ID, VerificationID, Environment, State, URL, Status, Reason string
	Created                                                     timeView
	Attempts                                                    []attemptRow
}

type imageRow struct {
	Kind, URL, Alt string
	Width, Height  int
}

type verificationData struct {
	ID, CustomerID, Email, Environment, Flow, Status, Reason string
	Created, Updated, Expires, Consented, Redacted, Purged   timeView
	History                                                  []historyRow
	Events                                                   []eventRow
	Checks                                                   []string
	Images                                                   []imageRow
	// ImagesNote says why no images are shown ("" when they are).
	ImagesNote           string
	CanRedact, CanResend bool
	IsRedacted, Finished bool
}

// verificationView builds the detail page of verification id.
func (p *Pages) verificationView(w http.ResponseWriter, r *Req, id string) (view, error) {
	det, err := p.data.Identity.Detail(r.Context(), r.Member.Business.ID, id)
	if err != nil {
		return view{}, err
	}
	d := verificationData{ID: det.ID, CustomerID: det.Customer.ID, Email: det.Customer.Email,
		Environment: string(det.Environment), Flow: string(det.Flow), Status: string(det.Status), Reason: string(det.Reason),
		Created: showTime(det.CreatedAt), Updated: showTime(det.UpdatedAt), Expires: showTime(det.DueAt()),
		Finished:  det.Status.Terminal(),
		CanRedact: r.Member.Can(dashboard.Redact) && det.RedactedAt == nil,
		CanResend: r.Member.Can(dashboard.ManageWebhooks)}
	if det.ConsentedAt != nil {
		d.Consented = showTime(*det.ConsentedAt)
	}
	if det.RedactedAt != nil {
		d.Redacted = showTime(*det.RedactedAt)
	}
	if det.PurgedAt != nil {
		d.Purged = showTime(*det.PurgedAt)
	}
	for _, h := range det.History {
		d.History = append(d.History, historyRow{At: showTime(h.At), From: string(h.From), To: string(h.To),
			Reason: string(h.Reason), Cause: string(h.Cause), Actor: h.Actor})
	}
	d.Events = eventRows(det.Webhooks, det.Environment, r.Member.Can(dashboard.ManageWebhooks))
	for _, c := range det.Checks {
		line := c.Check + ": " + string(c.Outcome)
		if c.Reason != "" {
			line += " (" + string(c.Reason) + ")"
		}
		d.Checks = append(d.Checks, line)
	}
	switch {
	case !r.Member.Can(dashboard.ViewImages):
		d.ImagesNote = texts.Msg(r.Lang, "images_role")
	case det.RedactedAt != nil || det.PurgedAt != nil:
		d.ImagesNote = texts.Msg(r.Lang, "images_deleted")
	case len(det.Images) == 0:
		d.ImagesNote = texts.Msg(r.Lang, "images_none")
	default:
		for _, im := range det.Images {
			switch im.Kind {
			case verifyd.ImageSelfie, verifyd.ImageDocumentFront, verifyd.ImageDocumentBack:
			default:
				continue // the selfie's burst and challenge frames: the selfie says as much
			}
			d.Images = append(d.Images, imageRow{Kind: string(im.Kind),
				URL: Base + "/verifications/" + url.PathEscape(det.ID) + "/images/" + url.PathEscape(string(im.Kind)),
				Alt: texts.Msg(r.Lang, "image_"+string(im.Kind)), Width: im.Width, Height: im.Height})
		}
	}
	v := p.memberView(w, r, "verification_title")
	v.Data = d
	return v, nil
}

// eventRows are events as rows, their URLs whole only when wholeURL
// (shownURL).
func eventRows(events []identity.EventAttempts, env verifyd.Environment, wholeURL bool) []eventRow {
	var out []eventRow
	for _, ev := range events {
		row := eventRow{ID: ev.ID, VerificationID: ev.VerificationID, Environment: string(env), State: string(ev.State),
			URL: shownURL(ev.URL, wholeURL), Created: showTime(ev.CreatedAt)}
		var payload struct{ Status, Reason string }
		if err := json.Unmarshal(ev.Payload, &payload); err == nil {
			row.Status, row.Reason = payload.Status, payload.Reason
		}
		for _, a := range ev.AttemptLog {
			row.Attempts = append(row.Attempts, attemptRow{Attempt: a.Attempt, At: showTime(a.At), StatusCode: a.StatusCode,
				Latency: a.Latency.Round(time.Millisecond).String(), Error: a.Error})
		}
		out = append(out, row)
	}
	return out
}

// Verification shows one verification: its data, history, webhook events
// with their attempts, checks and, to roles that may see them, images.
func (p *Pages) Verification(w http.ResponseWriter, r *Req) {
	v, err := p.verificationView(w, r, r.PathValue("id"))
	if err != nil {
		p.notFoundOr(w, r, err)
		return
	}
	p.render(w, r.Request, http.StatusOK, "verification", v)
}

// notFoundOr answers an unknown (or another business's) verification with
// the not-found page, anything else as a failure.
func (p *Pages) notFoundOr(w http.ResponseWriter, r *Req, err error) {
	if verifyd.ErrorCodeOf(err) == verifyd.ENotFound {
		p.NotFound(w, r.Request)
		return
	}
	p.failure(w, r.Request, err)
}

// Image serves one image of a verification to roles with ViewImages; never
// after a redaction or the retention (identity.Service.Image).
func (p *Pages) Image(w http.ResponseWriter, r *Req) {
	im, err := p.data.Identity.Image(r.Context(), r.Member.Business.ID, r.PathValue("id"), verifyd.ImageKind(r.PathValue("kind")))
	if err != nil {
		p.notFoundOr(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/"+im.Format)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(im.Bytes)
}

// RedactForm asks for confirmation before a redaction.
func (p *Pages) RedactForm(w http.ResponseWriter, r *Req) {
	v, err := p.verificationView(w, r, r.PathValue("id"))
	if err != nil {
		p.notFoundOr(w, r, err)
		return
	}
	v.Title = "redact_title"
	p.render(w, r.Request, http.StatusOK, "redact", v)
}

// Redact deletes a verification's personal data for good (as the API's
// redact endpoint), recorded in the audit log with the member.
func (p *Pages) Redact(w http.ResponseWriter, r *Req) {
	id := r.PathValue("id")
	if r.PostFormValue("confirm") != "yes" {
		redirect(w, r.Request, Base+"/verifications/"+url.PathEscape(id)+"/redact")
		return
	}
	if _, err := p.data.Identity.RedactForBusiness(r.Member.Context(r.Context()), r.Member.Business.ID, id); err != nil {
		p.notFoundOr(w, r, err)
		return
	}
	done(w, r, Base+"/verifications/"+url.PathEscape(id), "redacted")
}
