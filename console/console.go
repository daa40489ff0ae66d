// Package console holds the use cases of the review console, where
// operators decide the verifications the engine sent to review: operator
// accounts and sign-in, the queue, everything known about one verification
// (images, every check's evidence, the history) and the decision, which is
// applied through identity.Service.Transition like any other so the
// integrator's webhook goes out as usual. web/consolepage is its HTTP
// side; docs/console.md describes it for operators.
package console

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/webauth"
)

// Realm is the session realm of operators.
const Realm = "console"

// Accounts manages operator accounts. The command line uses it directly;
// it needs only the store.
type Accounts struct {
	store verifyd.OperatorStore
	now   func() time.Time
}

// NewAccounts returns the account use cases on a store.
func NewAccounts(store verifyd.OperatorStore, now func() time.Time) *Accounts {
	if now == nil {
		now = time.Now
	}
	return &Accounts{store: store, now: now}
}

// CreateOperator stores a new operator with an argon2id hash of password.
func (a *Accounts) CreateOperator(ctx context.Context, username, password string) (verifyd.Operator, error) {
	name := verifyd.NormalizeUsername(username)
	if name == "" {
		return verifyd.Operator{}, verifyd.Errorf(verifyd.EInvalid,
			"a username has 1 to 64 characters among a-z, 0-9, '.', '_', '@' and '-', and starts with a letter or digit")
	}
	if err := webauth.CheckPassword(password); err != nil {
		return verifyd.Operator{}, verifyd.Errorf(verifyd.EInvalid, "%s", err.Error())
	}
	hash, err := webauth.HashPassword(password)
	if err != nil {
		return verifyd.Operator{}, err
	}
	o := verifyd.Operator{Username: name, PasswordHash: hash, CreatedAt: a.now().UTC().Truncate(time.Microsecond)}
	if err := a.store.CreateOperator(ctx, o); err != nil {
		return verifyd.Operator{}, err
	}
	return o, nil
}

// Operators lists every operator, oldest first.
func (a *Accounts) Operators(ctx context.Context) ([]verifyd.Operator, error) {
	return a.store.Operators(ctx)
}

// DisableOperator stops an operator from signing in and ends their
// sessions.
func (a *Accounts) DisableOperator(ctx context.Context, username string) (verifyd.Operator, error) {
	name := verifyd.NormalizeUsername(username)
	if name == "" {
		return verifyd.Operator{}, verifyd.ErrNotFound
	}
	o, err := a.store.DisableOperator(ctx, name, a.now().UTC())
	if err != nil {
		return verifyd.Operator{}, err
	}
	if _, err := a.store.DeleteSessions(ctx, Realm, name); err != nil {
		return o, err
	}
	return o, nil
}

// Config adjusts the console service.
type Config struct {
	// Insecure drops the Secure attribute of cookies (development over
	// plain http).
	Insecure bool
	Now      func() time.Time
	Rand     io.Reader
	// UserLimit and IPLimit are how many sign-in attempts a username and a
	// client address get per LimitWindow (defaults 5, 20 and 15 min).
	UserLimit, IPLimit int
	LimitWindow        time.Duration
	// SessionLifetime and IdleTimeout default to 12 h and 30 min.
	SessionLifetime, IdleTimeout time.Duration
}

// Service is the review console's use cases.
type Service struct {
	*Accounts
	store    verifyd.Store
	identity *identity.Service
	now      func() time.Time
	logins   *webauth.Logins
	// Sessions are the operators' browser sessions.
	Sessions *webauth.Sessions
}

// New returns the console service.
func New(store verifyd.Store, id *identity.Service, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{
		Accounts: NewAccounts(store, cfg.Now),
		store:    store, identity: id, now: cfg.Now,
		logins: webauth.NewLogins(webauth.LoginConfig{UserLimit: cfg.UserLimit, ClientLimit: cfg.IPLimit,
			Window: cfg.LimitWindow, Now: cfg.Now, BadLogin: ErrBadLogin,
			Limited: func(wait time.Duration) error { return &RateLimitedError{RetryAfter: wait} }}),
		Sessions: webauth.NewSessions(store, webauth.Config{Realm: Realm, Name: "verifyd_console",
			Insecure: cfg.Insecure, Lifetime: cfg.SessionLifetime, IdleTimeout: cfg.IdleTimeout,
			Now: cfg.Now, Rand: cfg.Rand}),
	}
}

// ErrBadLogin is the one answer to a wrong username or password, so the
// answer does not tell which was wrong.
var ErrBadLogin = verifyd.Errorf(verifyd.EUnauthorized, "Wrong username or password.")

// RateLimitedError refuses a sign-in attempt after too many.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("too many sign-in attempts; retry in %s", e.RetryAfter.Round(time.Second))
}

// Authenticate checks an operator's password. Attempts are limited per
// username and per client address; unknown usernames cost as much time as
// wrong passwords.
func (s *Service) Authenticate(ctx context.Context, username, password string, client netip.Addr) (verifyd.Operator, error) {
	name := verifyd.NormalizeUsername(username)
	var o verifyd.Operator
	err := s.logins.LogIn("user:"+name, client, password, func() (webauth.Credential, error) {
		if name == "" {
			return webauth.Credential{}, verifyd.ErrNotFound
		}
		var err error
		o, err = s.store.Operator(ctx, name)
		return webauth.Credential{PasswordHash: o.PasswordHash, Disabled: !o.Active(), Name: "operator " + name}, err
	})
	if err != nil {
		return verifyd.Operator{}, err
	}
	return o, nil
}

// ActiveOperator returns a signed-in operator, or ErrNotFound when the
// account was disabled or removed since.
func (s *Service) ActiveOperator(ctx context.Context, username string) (verifyd.Operator, error) {
	o, err := s.store.Operator(ctx, username)
	if err == nil && !o.Active() {
		err = verifyd.ErrNotFound
	}
	return o, err
}

// QueueItem is one verification waiting for review.
type QueueItem struct {
	verifyd.Verification
	Business verifyd.Business
	// Interface is the API the verification belongs to: identity, or age
	// for the age flow's document method (an internal verification).
	Interface verifyd.Interface
	// Deadline is when the person who submitted stops waiting: the
	// verification's expiry, or for the age flow the end of its request
	// (age.RequestLifetime after the document method began, at the latest).
	Deadline time.Time
	// ReviewReason is what the latest run's checks that asked for a
	// person said ("" when its evidence cannot be opened).
	ReviewReason string
}

// QueueLimit is how many items the queue page shows.
const QueueLimit = 200

// QueueFilter narrows the queue; an empty field matches everything.
type QueueFilter struct {
	Interface   verifyd.Interface
	Environment verifyd.Environment
}

// Queue lists the verifications waiting for review that match f, oldest
// first: at most QueueLimit of the oldest waiting, filtered.
func (s *Service) Queue(ctx context.Context, f QueueFilter) ([]QueueItem, error) {
	vs, err := s.store.ReviewQueue(ctx, QueueLimit)
	if err != nil {
		return nil, err
	}
	businesses := map[string]verifyd.Business{}
	out := make([]QueueItem, 0, len(vs))
	for _, v := range vs {
		it := QueueItem{Verification: v, Interface: verifyd.InterfaceIdentity, Deadline: v.DueAt()}
		if v.Internal() {
			it.Interface = verifyd.InterfaceAge
			if end := v.CreatedAt.Add(age.RequestLifetime); end.Before(it.Deadline) {
				it.Deadline = end
			}
		}
		if (f.Interface != "" && f.Interface != it.Interface) || (f.Environment != "" && f.Environment != v.Environment) {
			continue
		}
		b, ok := businesses[v.BusinessID]
		if !ok {
			if b, err = s.store.Business(ctx, v.BusinessID); err != nil {
				return nil, err
			}
			businesses[v.BusinessID] = b
		}
		it.Business = b
		if it.ReviewReason, err = s.reviewReason(ctx, v.ID); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// reviewReason is what the checks of the verification's latest run that
// asked for a person said, joined.
func (s *Service) reviewReason(ctx context.Context, id string) (string, error) {
	runs, err := s.store.CheckRuns(ctx, id)
	if err != nil || len(runs) == 0 {
		return "", err
	}
	results, _, err := s.identity.CheckResults(runs[len(runs)-1])
	if err != nil {
		return "", nil // shown as unknown; the item page says why
	}
	var why, all []string
	for _, r := range results {
		all = append(all, r.Check+": "+r.Detail)
		if r.Outcome == engine.Review {
			why = append(why, r.Check+": "+r.Detail)
		}
	}
	if len(why) == 0 {
		// The decision itself asked for a person (the sandbox's tag, a
		// check that errored): what every check said.
		why = all
	}
	return strings.Join(why, "; "), nil
}

// Run is one pipeline run with its evidence opened.
type Run struct {
	verifyd.CheckRun
	Results []engine.Result
	// Error is the run's error, when a check errored.
	Error string
	// Unreadable is set when the sealed evidence did not open.
	Unreadable bool
}

// Item is everything the console shows about a verification.
type Item struct {
	Verification verifyd.Verification
	Business     verifyd.Business
	// Images lists the submitted images (without their bytes).
	Images  []verifyd.StoredImage
	Runs    []Run
	History []verifyd.StatusEvent
}

// Decidable reports whether an operator may decide the verification now.
func (it Item) Decidable() bool { return decidable(it.Verification) }

func decidable(v verifyd.Verification) bool {
	return v.Review == verifyd.ReviewPending && v.Status == verifyd.StatusStarted
}

// imageOrder shows the selfie first, then the document, then the selfie's
// burst frames and the liveness challenge's frames in recording order (an
// operator deciding a manual check watches the movements).
var imageOrder = func() []verifyd.ImageKind {
	order := []verifyd.ImageKind{verifyd.ImageSelfie, verifyd.ImageDocumentFront, verifyd.ImageDocumentBack}
	for n := 1; n <= verifyd.MaxSelfieFrames; n++ {
		order = append(order, verifyd.SelfieFrame(n))
	}
	for n := 1; n <= verifyd.MaxLivenessFrames; n++ {
		order = append(order, verifyd.LivenessFrameImage(n))
	}
	return order
}()

// Item returns a verification of any business with its images, evidence
// and history.
func (s *Service) Item(ctx context.Context, id string) (Item, error) {
	v, err := s.store.VerificationByID(ctx, id)
	if err != nil {
		return Item{}, err
	}
	it := Item{Verification: v}
	if it.Business, err = s.store.Business(ctx, v.BusinessID); err != nil {
		return Item{}, err
	}
	images, err := s.store.Images(ctx, id)
	if err != nil {
		return Item{}, err
	}
	for _, im := range images {
		im.Sealed = nil
		it.Images = append(it.Images, im)
	}
	slices.SortFunc(it.Images, func(a, b verifyd.StoredImage) int {
		return slices.Index(imageOrder, a.Kind) - slices.Index(imageOrder, b.Kind)
	})
	runs, err := s.store.CheckRuns(ctx, id)
	if err != nil {
		return Item{}, err
	}
	for _, r := range runs {
		results, runErr, err := s.identity.CheckResults(r)
		run := Run{CheckRun: r, Results: results, Error: runErr, Unreadable: err != nil}
		run.SealedResults = nil
		it.Runs = append(it.Runs, run)
	}
	if it.History, err = s.store.StatusEvents(ctx, id); err != nil {
		return Item{}, err
	}
	return it, nil
}

// Image returns one decrypted image of a verification, or ErrNotFound.
func (s *Service) Image(ctx context.Context, id string, kind verifyd.ImageKind) (engine.Image, error) {
	v, err := s.store.VerificationByID(ctx, id)
	if err != nil {
		return engine.Image{}, err
	}
	return s.identity.ImageOf(ctx, v, kind)
}

// Decision is what an operator decided.
type Decision struct {
	Approve bool
	// Reason is required to fail, and must be empty to approve.
	Reason verifyd.Reason
}

// Decide applies an operator's decision through the normal transition, so
// the history records the operator (actor) and time, and the integrator's
// webhook is sent. Only a verification waiting for review can be decided;
// when two operators decide at once, one gets an EConflict error.
func (s *Service) Decide(ctx context.Context, operator, id string, d Decision) (verifyd.Verification, error) {
	t := verifyd.Transition{VerificationID: id, To: verifyd.StatusApproved, Cause: verifyd.CauseReview, Actor: operator}
	if !d.Approve {
		if !d.Reason.Valid() {
			return verifyd.Verification{}, verifyd.Errorf(verifyd.EInvalid, "Choose the reason of the failure.")
		}
		t.To, t.Reason = verifyd.StatusFailed, d.Reason
	}
	v, err := s.store.VerificationByID(ctx, id)
	if err != nil {
		return verifyd.Verification{}, err
	}
	if !decidable(v) {
		return verifyd.Verification{}, errNotWaiting(v)
	}
	v, err = s.identity.Transition(ctx, t)
	if verifyd.ErrorCodeOf(err) == verifyd.EConflict {
		// Decided, or expired, in between.
		if now, err2 := s.store.VerificationByID(ctx, id); err2 == nil {
			return verifyd.Verification{}, errNotWaiting(now)
		}
	}
	if err != nil {
		return v, err
	}
	// The decision is committed; a failure to record it in the audit log
	// must not report it as failed (the operator would decide again).
	_ = s.store.AppendAudit(ctx, verifyd.AuditEntry{At: s.now().UTC(), BusinessID: v.BusinessID,
		Actor: verifyd.Actor{Kind: verifyd.ActorOperator, Name: operator}, Action: verifyd.AuditDecision,
		Subject: id, Detail: strings.TrimSpace(string(t.To) + " " + string(t.Reason))})
	return v, nil
}

func errNotWaiting(v verifyd.Verification) error {
	return verifyd.Errorf(verifyd.EConflict, "This verification is not waiting for review: it is %s.", v.Status)
}

// Verification returns a verification of any business.
func (s *Service) Verification(ctx context.Context, id string) (verifyd.Verification, error) {
	return s.store.VerificationByID(ctx, id)
}

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now() }
