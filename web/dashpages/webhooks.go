package dashpages

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/dashboard"
)

// webhookLimit is how many events the webhooks page shows (the newest).
const webhookLimit = 100

type testRow struct {
	ID, Environment, URL, Error, Latency, Actor string
	At                                          timeView
	StatusCode                                  int
	Delivered                                   bool
}

type webhooksData struct {
	Events       []eventRow
	Tests        []testRow
	Environment  string
	State        string
	Environments []string
	States       []string
	CanManage    bool
	// The test form as last submitted, and the test just sent.
	TestURL, TestEnvironment string
	Sent                     *testRow
}

func (p *Pages) webhooksView(w http.ResponseWriter, r *Req) (view, error) {
	q := r.URL.Query()
	d := webhooksData{Environment: q.Get("environment"), State: q.Get("state"), CanManage: r.Member.Can(dashboard.ManageWebhooks)}
	for _, e := range r.Member.Environments() {
		d.Environments = append(d.Environments, string(e))
	}
	d.States = []string{string(verifyd.WebhookPending), string(verifyd.WebhookDelivered), string(verifyd.WebhookFailed)}
	f := verifyd.WebhookFilter{Limit: webhookLimit}
	if verifyd.Environment(d.Environment).Valid() {
		f.Environment = verifyd.Environment(d.Environment)
	} else {
		d.Environment = ""
	}
	if contains(d.States, d.State) {
		f.State = verifyd.WebhookState(d.State)
	} else {
		d.State = ""
	}
	events, err := p.data.Identity.WebhookEvents(r.Context(), r.Member.Business.ID, f)
	if err != nil {
		return view{}, err
	}
	// Each event names its verification; the environment is the filter's
	// or, unfiltered, left out of the rows.
	d.Events = eventRows(events, f.Environment, d.CanManage)
	tests, err := p.data.WebhookTests.Tests(r.Context(), r.Member.Business.ID, 20)
	if err != nil {
		return view{}, err
	}
	for _, t := range tests {
		d.Tests = append(d.Tests, showTest(t, d.CanManage))
	}
	d.TestEnvironment = string(verifyd.EnvSandbox)
	v := p.memberView(w, r, "webhooks_title")
	v.Data = d
	return v, nil
}

func showTest(t verifyd.WebhookTest, wholeURL bool) testRow {
	return testRow{ID: t.ID, Environment: string(t.Environment), URL: shownURL(t.URL, wholeURL), Error: t.Error,
		Latency: t.Latency.Round(time.Millisecond).String(), At: showTime(t.At), StatusCode: t.StatusCode, Delivered: t.Delivered()}
}

// Webhooks lists the business's webhook events, newest first, with every
// delivery attempt (status, latency, error), filtered by environment and
// state; and the test events sent from here.
func (p *Pages) Webhooks(w http.ResponseWriter, r *Req) {
	v, err := p.webhooksView(w, r)
	if err != nil {
		p.failure(w, r.Request, err)
		return
	}
	p.render(w, r.Request, http.StatusOK, "webhooks", v)
}

// ResendWebhook sends an event of the business again.
func (p *Pages) ResendWebhook(w http.ResponseWriter, r *Req) {
	id := r.PathValue("id")
	if _, err := p.data.Identity.ResendWebhook(r.Member.Context(r.Context()), r.Member.Business.ID, id); err != nil {
		p.notFoundOr(w, r, err)
		return
	}
	back := Base + "/webhooks"
	if to := r.PostFormValue("back"); strings.HasPrefix(to, Base+"/verifications/") && !strings.ContainsAny(to, "?#\\") {
		back = to // resent from a verification's page
	}
	done(w, r, back, "webhook_resent")
}

// TestWebhook sends a test event (webhook.Tester) and shows its outcome.
func (p *Pages) TestWebhook(w http.ResponseWriter, r *Req) {
	env := verifyd.Environment(r.PostFormValue("environment"))
	target := strings.TrimSpace(r.PostFormValue("url"))
	sent, err := p.data.WebhookTests.Send(r.Member.Context(r.Context()), r.Member.Business.ID, env, target)
	v, verr := p.webhooksView(w, r)
	if verr != nil {
		p.failure(w, r.Request, verr)
		return
	}
	d := v.Data.(webhooksData)
	d.TestURL, d.TestEnvironment = target, string(env)
	if err != nil {
		v.Data = d
		p.showError(w, r.Request, v, "webhooks", err)
		return
	}
	row := showTest(sent, true) // only who manages webhooks sends tests
	d.Sent = &row
	v.Data = d
	p.render(w, r.Request, http.StatusOK, "webhooks", v)
}

// shownURL is a webhook URL as a page shows it: whole to who manages
// webhooks (wholeURL), else only its scheme, host and path, because a
// receiver's query (or, in URLs stored before credentials were refused,
// its userinfo) may carry the token that lets anyone post to it.
func shownURL(raw string, wholeURL bool) string {
	if wholeURL {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "" // stored URLs were parsed when accepted; show nothing rather than the raw text
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String()
}
