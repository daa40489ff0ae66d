// Package app assembles verifyd from its parts: the store, the sealer, the
// use-case services, the job queue with its workers, the webhook sender and
// the HTTP handler. The server command and the test harness both build the
// service here, so tests run exactly what production runs.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/agehosted"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/console"
	"github.com/verifyd/verifyd/dashboard"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/httpapi"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/mailer"
	"github.com/verifyd/verifyd/netguard"
	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/queue"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/tenant"
	"github.com/verifyd/verifyd/webhook"
)

// Config is what the assembled service needs besides its database.
type Config struct {
	// BaseURLs maps mount names ("identity-production", …) to base URLs.
	BaseURLs map[string]string
	// Dev relaxes production rules: http webhooks in production and
	// webhooks to internal addresses.
	Dev      bool
	Now      func() time.Time
	Rand     io.Reader
	Logger   *slog.Logger
	Registry *prometheus.Registry
	Queue    queue.Config
	// Resolver resolves webhook hosts, at creation and at every delivery
	// attempt (nil: the system's).
	Resolver netguard.Resolver
	// WebhookTimeout bounds one delivery attempt (10 s when zero).
	WebhookTimeout time.Duration
	// Pipeline overrides the production verification pipeline (tests).
	Pipeline *engine.Pipeline
	// Faces, when set, runs the face checks of the production pipeline;
	// without it every verification with a selfie goes to review.
	Faces *FaceModels
	// FaceThresholds are the face checks' bands (zero: the defaults).
	FaceThresholds engine.FaceThresholds
	// OCR reads the printed data of documents (the visual zone, driver
	// licences); without it those verifications go to review.
	OCR ocr.Engine
	// MetricsToken guards /metrics on the service's listener
	// (httpapi.Config.MetricsToken).
	MetricsToken string
	// TrustedProxies are the reverse proxies whose forwarding headers are
	// believed (httpapi.Config.TrustedProxies).
	TrustedProxies []netip.Prefix
	// CredentialCacheTTL is how long an authenticated API credential is
	// kept in memory (tenant.Service.CacheCredentials): 10 s when zero,
	// none when negative. It is the longest a key revoked by another
	// process (the CLI, another replica) is still accepted by this one.
	CredentialCacheTTL time.Duration
	// Mailer sends the age accounts' e-mails and the dashboard's
	// invitations (nil: none).
	Mailer mailer.Sender
	// Processor names the installation on the hosted pages' notice.
	Processor branding.Processor
	// DashboardURL is the dashboard's public URL, for its passkeys; when
	// empty, /dashboard on the origin of the identity production base URL.
	DashboardURL string
	// DashboardSignUp lets anyone create a sandbox-only business on the
	// dashboard (serve --dashboard-signup).
	DashboardSignUp bool
}

// cachedCredentials bounds the credential cache: far more keys than any
// installation has in use at once.
const cachedCredentials = 10_000

// App is the assembled service.
type App struct {
	Store    *sqlstore.DB
	Tenants  *tenant.Service
	Identity *identity.Service
	Console  *console.Service
	// Dashboard is the business dashboard's use cases.
	Dashboard *dashboard.Service
	Age       *age.Service
	AgeFlow   *agehosted.Service
	Queue     *queue.Queue
	Sender    *webhook.Sender
	// Branding and WebhookTests serve the business dashboard and the
	// hosted pages' notice.
	Branding     *branding.Service
	WebhookTests *webhook.Tester
	Handler      http.Handler
}

// New assembles the service on an open store. It migrates the job queue's
// tables and connects the store to the queue.
func New(ctx context.Context, db *sqlstore.DB, sealer *seal.Sealer, cfg Config) (*App, error) {
	mounts, err := httpapi.ParseMounts(cfg.BaseURLs)
	if err != nil {
		return nil, err
	}
	if err := queue.Migrate(ctx, db); err != nil {
		return nil, err
	}
	guard := netguard.New(cfg.Dev, cfg.Resolver)
	a := &App{Store: db}
	if cfg.CredentialCacheTTL == 0 {
		cfg.CredentialCacheTTL = 10 * time.Second
	}
	a.Tenants = tenant.New(db, sealer, cfg.Rand, cfg.Now).CacheCredentials(cfg.CredentialCacheTTL, cachedCredentials)
	if cfg.Pipeline == nil {
		cfg.Pipeline = ProductionPipeline(db, sealer, cfg.Faces, cfg.FaceThresholds, cfg.OCR)
	}
	a.Identity = identity.New(db, sealer, cfg.Rand, cfg.Now, identity.Config{
		AllowHTTPWebhooks: cfg.Dev,
		HostedBaseURL:     func(e verifyd.Environment) string { return cfg.BaseURLs["identity-"+string(e)] },
		Guard:             guard,
		Pipeline:          cfg.Pipeline,
	})
	a.Sender = webhook.New(db, a.Tenants, webhook.Config{Guard: guard, Resolver: cfg.Resolver,
		Timeout: cfg.WebhookTimeout, Now: cfg.Now, Logger: cfg.Logger, Registry: cfg.Registry})
	a.WebhookTests = webhook.NewTester(a.Sender, db, a.Tenants, cfg.Rand, cfg.Dev)
	a.Branding = branding.New(db, cfg.Now, cfg.Processor)
	qcfg := cfg.Queue
	qcfg.Logger = cfg.Logger
	a.Queue, err = queue.New(db, qcfg, &queue.Handlers{
		Deliver: a.Sender.Deliver, Expire: a.Identity.ExpireDue, Process: a.Identity.Process,
		Purge: a.Identity.Purge,
	})
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	db.SetEnqueuer(a.Queue)
	if cfg.Registry != nil {
		cfg.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "verifyd_webhook_queue_depth",
			Help: "Webhook events not yet delivered (waiting for their first attempt or a retry).",
		}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			n, err := db.CountWebhookEvents(ctx, verifyd.WebhookPending)
			if err != nil {
				return -1
			}
			return float64(n)
		}))
	}
	// The review console's cookies are Secure unless --dev (plain http).
	a.Console = console.New(db, a.Identity, console.Config{Insecure: cfg.Dev, Now: cfg.Now, Rand: cfg.Rand})
	// The OAuth side of the age interface; its hosted flow is at
	// {age base URL}/flow/{the sealed request}.
	a.Age = age.New(db, a.Tenants, cfg.Rand, cfg.Now, age.Config{
		FlowBaseURL: func(e verifyd.Environment) string { return cfg.BaseURLs["age-"+string(e)] },
		Sealer:      sealer,
	})
	// The hosted age-verification pages: accounts, country rules, methods.
	// Production has no provider besides the document method yet; the
	// sandbox simulates the others. Cookies are Secure unless --dev.
	a.AgeFlow, err = agehosted.New(db, a.Identity, a.Age, sealer, agehosted.Config{
		BaseURL:  func(e verifyd.Environment) string { return cfg.BaseURLs["age-"+string(e)] },
		Insecure: cfg.Dev, Now: cfg.Now, Rand: cfg.Rand, Mailer: cfg.Mailer,
		Providers: agehosted.SandboxSimulations(),
	})
	if err != nil {
		return nil, fmt.Errorf("age flow: %w", err)
	}
	// The business dashboard; its cookies are Secure unless --dev.
	dashURL := cfg.DashboardURL
	if dashURL == "" {
		if u, err := url.Parse(cfg.BaseURLs["identity-production"]); err == nil && u.Host != "" {
			dashURL = u.Scheme + "://" + u.Host + "/dashboard"
		}
	}
	a.Dashboard, err = dashboard.New(db, a.Tenants, sealer, dashboard.Config{SignUp: cfg.DashboardSignUp, Insecure: cfg.Dev,
		Now: cfg.Now, Rand: cfg.Rand, BaseURL: dashURL, Mailer: cfg.Mailer})
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	a.Handler = httpapi.New(httpapi.Config{Mounts: mounts, Dev: cfg.Dev, MetricsToken: cfg.MetricsToken,
		TrustedProxies: cfg.TrustedProxies, Now: cfg.Now}, httpapi.Deps{
		Tenants: a.Tenants, Identity: a.Identity, Ready: db, Logger: cfg.Logger, Registry: cfg.Registry,
		Console: a.Console, Age: a.Age, AgeFlow: a.AgeFlow, Branding: a.Branding, WebhookTests: a.WebhookTests,
		Dashboard: a.Dashboard,
	})
	return a, nil
}

// ProductionPipeline is the chain of checks that decides production
// submissions. Without a database (db nil, as in "verifyd inspect") the
// consistency check, which compares with other customers, is left out.
// Without face models (faces nil) nobody has compared the selfie with the
// document, so the face check sends every verification to review.
func ProductionPipeline(db *sqlstore.DB, sealer *seal.Sealer, faces *FaceModels, th engine.FaceThresholds, text ocr.Engine) *engine.Pipeline {
	return engine.NewPipeline(ProductionChecks(db, sealer, faces, th, text)...)
}

// ProductionChecks are ProductionPipeline's checks, in order (tests wrap
// them to watch each result).
//
// Without an OCR engine (text nil) nobody has compared the printed data
// with the MRZ, so documents with an MRZ go to review and driver licences
// are not read.
func ProductionChecks(db *sqlstore.DB, sealer *seal.Sealer, faces *FaceModels, th engine.FaceThresholds, text ocr.Engine) []engine.Check {
	var licence *engine.DriverLicence
	if text != nil {
		licence = &engine.DriverLicence{OCR: text}
	}
	checks := []engine.Check{
		engine.DecodeCheck{Budget: engine.NewDecodeBudget(engine.DefaultDecodeBudget)},
		engine.DocumentCheck{Reader: mrzReader(), Quality: engine.NewQualityCheck(), Licence: licence},
		engine.VisualZoneCheck{OCR: text},
	}
	if db != nil {
		checks = append(checks, engine.ConsistencyCheck{Lookup: db, DocumentHash: identity.DocumentHasher(sealer)})
	}
	if th == (engine.FaceThresholds{}) {
		th = engine.DefaultFaceThresholds
	}
	if faces == nil {
		return append(checks, engine.FaceUnavailableCheck{})
	}
	checks = append(checks, engine.FaceMatchCheck{Faces: faces, Thresholds: th})
	if faces.liveness != nil {
		checks = append(checks, engine.LivenessCheck{Scorer: faces, Faces: faces, Thresholds: th})
	} else {
		checks = append(checks, engine.LivenessUnavailableCheck{})
	}
	// The hosted pages' active challenge (identity page and the age flow's
	// document method, which runs this same pipeline); direct submissions
	// pass through it.
	return append(checks, engine.ActiveLivenessCheck{Faces: faces, Landmarks: faces, Thresholds: th})
}

// Start starts the background workers.
func (a *App) Start(ctx context.Context) error { return a.Queue.Start(ctx) }

// Stop stops the workers, waiting for running jobs until ctx is done.
func (a *App) Stop(ctx context.Context) error {
	if err := a.Queue.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// Enqueuer returns an insert-only queue for command-line tools that change
// state next to a running server (e.g. resending a webhook).
func Enqueuer(ctx context.Context, db *sqlstore.DB) error {
	if err := queue.Migrate(ctx, db); err != nil {
		return err
	}
	q, err := queue.New(db, queue.Config{}, nil)
	if err != nil {
		return err
	}
	db.SetEnqueuer(q)
	return nil
}
