// Package testserver runs the real verifyd HTTP handler on a real database
// behind an httptest server, with one business and its credentials, for
// tests of the HTTP contract, the SDK and the benchmarks.
package testserver

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"github.com/verifyd/verifyd/ocr"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/age"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/httpapi"
	"github.com/verifyd/verifyd/identity"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mailer"
	"github.com/verifyd/verifyd/netguard"
	"github.com/verifyd/verifyd/queue"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/tenant"
)

// Options adjust the server.
type Options struct {
	// Dev is the server's --dev flag.
	Dev bool
	// Mailer sends the age accounts' e-mails (nil: none).
	Mailer mailer.Sender
	// Localhost names the server http://localhost:PORT instead of its
	// loopback address: browsers offer passkeys (WebAuthn) only on a
	// domain, never on an IP address.
	Localhost bool
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logger receives the server's logs; discarded when nil.
	Logger *slog.Logger
	// Resolver resolves webhook hosts at creation; the system's when nil.
	Resolver netguard.Resolver
	// RescueAfter is the queue's stuck-job rescue delay (default if zero).
	RescueAfter time.Duration
	// MaxAttempts is the webhook attempt budget (default if zero).
	MaxAttempts int
	// WebhookTimeout bounds one delivery attempt (default if zero).
	WebhookTimeout time.Duration
	// Pipeline replaces the production verification pipeline.
	Pipeline *engine.Pipeline
	// MetricsToken is the server's --metrics-token.
	MetricsToken string
	// TrustedProxies is the server's --trusted-proxy.
	TrustedProxies []netip.Prefix
	// Faces runs the production pipeline's face checks (see
	// internal/facetest); without it they go to review.
	Faces *app.FaceModels
	// OCR reads documents' printed data in the production pipeline (nil:
	// those verifications go to review).
	OCR ocr.Engine
	// DashboardSignUp is the server's --dashboard-signup.
	DashboardSignUp bool
	// Observe, when set (and Pipeline is not), is called with every
	// result of the production pipeline's checks as it is produced: the
	// evidence a test wants to log is gone once an internal verification
	// is purged. The pipeline decides exactly as without it.
	Observe func(verificationID string, r engine.Result)
	// CheckTimeout, when set (and Pipeline is not), replaces the
	// production pipeline's per-check timeout: tests that run the face
	// models on many frames share two cores with the rest of the suite,
	// and a timeout there tests the machine's load, not the decision.
	CheckTimeout time.Duration
	// Processor names the installation on the hosted pages' notice
	// (serve --processor-name, --processor-contact).
	Processor branding.Processor
}

// FastBackoff is the retry delay of test servers: 50 ms doubling to at
// most 1 s, so retry behaviour is observable within a test.
func FastBackoff(attempt int) time.Duration {
	return min(50*time.Millisecond<<min(attempt-1, 5), time.Second)
}

// Server is a running verifyd with one business.
type Server struct {
	HTTP     *httptest.Server
	Store    *sqlstore.DB
	Sealer   *seal.Sealer
	Tenants  *tenant.Service
	Identity *identity.Service
	// Age is the OAuth side of the age interface; tests stand in for the
	// hosted flow by calling Age.Complete.
	Age      *age.Service
	Registry *prometheus.Registry
	App      *app.App
	Business verifyd.Business
	// Credentials holds the business's four credentials with secrets.
	Credentials []verifyd.Credential
	// BaseURLs maps "identity-production" etc. to the mount's base URL.
	BaseURLs map[string]string
	// DatabaseURL and MasterKey let command-line tools open the same data.
	DatabaseURL string
	MasterKey   string
}

// Start starts a server on a fresh database of the given dialect ("sqlite"
// or "postgres"). Everything is closed when the test ends.
func Start(t testing.TB, dialect string, opts Options) *Server {
	t.Helper()
	ctx := context.Background()
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Resolver == nil {
		// Tests never query real DNS: names resolve only as the test says.
		opts.Resolver = StaticResolver{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dbURL := testdb.URL(t, dialect)
	db, err := sqlstore.Open(ctx, dbURL, opts.Logger)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	sealer, err := seal.New(key, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if err := sealer.Verify(ctx, db); err != nil {
		t.Fatal(err)
	}
	s := &Server{Store: db, Sealer: sealer, Registry: prometheus.NewRegistry(),
		DatabaseURL: dbURL, MasterKey: base64.StdEncoding.EncodeToString(key)}
	s.HTTP = httptest.NewUnstartedServer(nil)
	host := s.HTTP.Listener.Addr().String()
	if opts.Localhost {
		_, port, _ := net.SplitHostPort(host)
		host = "localhost:" + port
	}
	s.BaseURLs, err = httpapi.DefaultMounts("http://" + host)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Pipeline == nil && (opts.Observe != nil || opts.CheckTimeout > 0) {
		checks := app.ProductionChecks(db, sealer, opts.Faces, engine.FaceThresholds{}, opts.OCR)
		if opts.Observe != nil {
			for n, c := range checks {
				checks[n] = observed{c, opts.Observe}
			}
		}
		opts.Pipeline = engine.NewPipeline(checks...)
		if opts.CheckTimeout > 0 {
			opts.Pipeline.Timeout = opts.CheckTimeout
		}
	}
	a, err := app.New(ctx, db, sealer, app.Config{
		BaseURLs: s.BaseURLs, Dev: opts.Dev, Mailer: opts.Mailer, Now: opts.Now, Rand: rand.Reader, Logger: opts.Logger,
		Registry: s.Registry, Resolver: opts.Resolver, WebhookTimeout: opts.WebhookTimeout, Pipeline: opts.Pipeline,
		Faces: opts.Faces, OCR: opts.OCR, MetricsToken: opts.MetricsToken, TrustedProxies: opts.TrustedProxies,
		Processor:       opts.Processor,
		DashboardSignUp: opts.DashboardSignUp,
		Queue: queue.Config{PollInterval: 20 * time.Millisecond, RescueAfter: opts.RescueAfter,
			MaxAttempts: opts.MaxAttempts, Backoff: FastBackoff, ProcessBackoff: FastBackoff},
	})
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	s.App, s.Tenants, s.Identity, s.Age = a, a.Tenants, a.Identity, a.Age
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start queue: %v", err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Stop(stopCtx)
	})
	s.HTTP.Config.Handler = a.Handler
	s.HTTP.Start()
	t.Cleanup(s.HTTP.Close)
	s.Business, s.Credentials, err = s.Tenants.CreateBusiness(ctx, "Test business")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Credential returns the business's credential for an interface and
// environment.
func (s *Server) Credential(i verifyd.Interface, e verifyd.Environment) verifyd.Credential {
	for _, c := range s.Credentials {
		if c.Interface == i && c.Environment == e {
			return c
		}
	}
	panic("no credential for " + string(i) + " " + string(e))
}

// BaseURL returns the base URL of a mount.
func (s *Server) BaseURL(i verifyd.Interface, e verifyd.Environment) string {
	return s.BaseURLs[string(i)+"-"+string(e)]
}

// WaitPurged waits for the purge job to have run on a decided internal
// verification (data minimisation) and checks what the purge leaves in any
// case: no images and the one check run, its results now a summary. It
// returns the verification and that run for the test's own assertions.
func (s *Server) WaitPurged(t testing.TB, id string) (verifyd.Verification, verifyd.CheckRun) {
	t.Helper()
	ctx := context.Background()
	// Generous: with the real face models the decision itself can take a
	// while on a loaded machine.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		v, err := s.Store.VerificationByID(ctx, id)
		if err == nil && v.PurgedAt != nil {
			if images, err := s.Store.Images(ctx, id); err != nil || len(images) != 0 {
				t.Fatalf("verification %s: images after the purge: %d (%v)", id, len(images), err)
			}
			runs, err := s.Store.CheckRuns(ctx, id)
			if err != nil || len(runs) != 1 {
				t.Fatalf("verification %s: runs after the purge %+v, %v", id, runs, err)
			}
			return v, runs[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("verification %s not purged: %+v, %v", id, v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StaticResolver resolves host names from a map, so tests control DNS
// without network traffic. Unknown names do not resolve.
type StaticResolver map[string][]netip.Addr

// LookupNetIP implements netguard.Resolver.
func (r StaticResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if addrs, ok := r[host]; ok {
		return addrs, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// observed is a check that reports its results to a test.
type observed struct {
	engine.Check
	observe func(string, engine.Result)
}

func (o observed) Run(ctx context.Context, in *engine.Input) engine.Result {
	start := time.Now()
	r := o.Check.Run(ctx, in)
	r.Check, r.Millis = o.Name(), time.Since(start).Milliseconds()
	o.observe(in.VerificationID, r)
	return r
}

// OCR returns the tesseract program as the OCR engine, or skips the test
// (fails it under VERIFYD_TEST_REQUIRE_ALL=1) when it is not installed.
func OCR(t testing.TB) ocr.Engine {
	t.Helper()
	tess := &ocr.Tesseract{Resident: 4}
	if _, err := tess.Available(context.Background()); err != nil {
		testdb.Skip(t, err.Error())
	}
	t.Cleanup(func() { tess.Close() })
	return tess
}
