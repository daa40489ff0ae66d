package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/branding"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/httpapi"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/mailer"
	"github.com/verifyd/verifyd/queue"
	"github.com/verifyd/verifyd/tenant"
)

// mountFlags maps each mount to its flag and environment variable.
var mountFlags = []struct{ mount, flag, env string }{
	{"identity-production", "identity-url", "VERIFYD_IDENTITY_URL"},
	{"identity-sandbox", "sandbox-identity-url", "VERIFYD_SANDBOX_IDENTITY_URL"},
	{"age-production", "age-url", "VERIFYD_AGE_URL"},
	{"age-sandbox", "sandbox-age-url", "VERIFYD_SANDBOX_AGE_URL"},
}

const demoBusinessName = "Demo"

func (e *env) serve(ctx context.Context, args []string) error {
	fs := e.flags("serve", "serve [--listen ADDR] [--database URL] [--dev] [--demo] [options]",
		lines("Runs the verifyd HTTP service. Schema migrations run at start, and the pinned face and liveness",
			"models are fetched into --models-dir when they are absent (--models-fetch=false forbids it).",
			"By default the four interfaces share one listener under these base URLs:",
			"  http://ADDR/identity          identity, production",
			"  http://ADDR/sandbox/identity  identity, sandbox",
			"  http://ADDR/age               age, production",
			"  http://ADDR/sandbox/age       age, sandbox",
			"Give public base URLs (e.g. https://sandbox.example.com/identity) when verifyd runs behind a proxy;",
			"requests are routed by host and path prefix."))
	listen := fs.String("listen", e.envOr("VERIFYD_LISTEN", "127.0.0.1:8080"), "address to listen on (env VERIFYD_LISTEN)")
	dev := fs.Bool("dev", false, "development mode: allow http:// webhooks in production, human-readable logs")
	demo := fs.Bool("demo", false, `create a business named "Demo" if there is none, and print its credentials and the base URLs`)
	pollInterval := fs.Duration("queue-poll-interval", 100*time.Millisecond,
		"how often idle workers look for due jobs (webhook deliveries, expiries)")
	rescueAfter := fs.Duration("queue-rescue-after", 2*time.Minute,
		"how long a job may run before it is assumed lost with a crashed process and run again")
	credentialTTL := fs.Duration("credential-cache-ttl", 10*time.Second,
		"how long an authenticated API key and its secret are kept in memory (0: not at all); a key revoked by another process or replica is still accepted by this one for up to this long")
	metricsListen := fs.String("metrics-listen", e.getenv("VERIFYD_METRICS_LISTEN"),
		"serve /metrics on this separate address, e.g. 127.0.0.1:9090 (env VERIFYD_METRICS_LISTEN)")
	metricsToken := fs.String("metrics-token", e.getenv("VERIFYD_METRICS_TOKEN"),
		"serve /metrics on the main listener to requests with Authorization: Bearer TOKEN (env VERIFYD_METRICS_TOKEN)")
	trustedProxies := fs.String("trusted-proxy", e.getenv("VERIFYD_TRUSTED_PROXIES"),
		"comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For / Forwarded headers give the client's address (env VERIFYD_TRUSTED_PROXIES)")
	tlsCert := fs.String("tls-cert", e.getenv("VERIFYD_TLS_CERT"), "serve HTTPS with this PEM certificate (chain) file; needs --tls-key (env VERIFYD_TLS_CERT)")
	tlsKey := fs.String("tls-key", e.getenv("VERIFYD_TLS_KEY"), "the PEM private key of --tls-cert (env VERIFYD_TLS_KEY)")
	memoryLimit := fs.String("memory-limit", e.envOr("VERIFYD_MEMORY_LIMIT", "1GiB"),
		"soft limit of the Go heap (e.g. 1GiB, 512MiB; 0 for none): the collector works harder near it instead of growing the heap to twice what is live; GOMEMLIMIT, when set, wins (env VERIFYD_MEMORY_LIMIT)")
	smtpURL := fs.String("smtp-url", e.getenv("VERIFYD_SMTP_URL"),
		"SMTP server for the age accounts' e-mails (address confirmation, password reset, login codes, deletion links) and the dashboard's invitations: smtp://user:password@host:587 (STARTTLS, required) or smtps://…:465, optionally ?from=address; without it the pages offer none of these and the dashboard shows invitation links to the inviter (env VERIFYD_SMTP_URL)")
	readyMinFree := fs.String("ready-min-free", e.envOr("VERIFYD_READY_MIN_FREE", "64MiB"),
		"with SQLite, /readyz fails while the database's file system has less free space than this (e.g. 64MiB, 1GiB; 0: any), so a load balancer stops sending writes before they fail (env VERIFYD_READY_MIN_FREE)")
	processorName := fs.String("processor-name", e.getenv("VERIFYD_PROCESSOR_NAME"),
		"who runs this installation, named on the hosted pages' data protection notice as the processor acting for each business (default: the host of the identity production base URL) (env VERIFYD_PROCESSOR_NAME)")
	processorContact := fs.String("processor-contact", e.getenv("VERIFYD_PROCESSOR_CONTACT"),
		"how customers reach the processor about their data (an e-mail address or an https URL), shown on the notice (env VERIFYD_PROCESSOR_CONTACT)")
	dashboardSignUp := fs.Bool("dashboard-signup", e.getenv("VERIFYD_DASHBOARD_SIGNUP") == "true",
		"let anyone create a sandbox-only business (the public test workspace) at /dashboard/signup; invited users sign in at /dashboard either way (env VERIFYD_DASHBOARD_SIGNUP=true)")
	dashboardURL := fs.String("dashboard-url", e.getenv("VERIFYD_DASHBOARD_URL"),
		"public URL of the dashboard (default: /dashboard on --identity-url's origin), whose host name is its passkeys' relying party (env VERIFYD_DASHBOARD_URL)")
	logFormat := fs.String("log-format", e.envOr("VERIFYD_LOG_FORMAT", ""), "json or text (default json, text with --dev) (env VERIFYD_LOG_FORMAT)")
	bases := map[string]*string{}
	for _, m := range mountFlags {
		bases[m.mount] = fs.String(m.flag, e.getenv(m.env), fmt.Sprintf("public base URL of the %s interface (env %s)", m.mount, m.env))
	}
	modelsDir := e.modelsDirFlag(fs, "models-dir")
	fetchDefault, err := strconv.ParseBool(e.envOr("VERIFYD_MODELS_FETCH", "true"))
	if err != nil {
		fmt.Fprintf(e.stderr, "verifyd serve: VERIFYD_MODELS_FETCH: %v\n", err)
		return ErrUsage
	}
	modelsFetch := fs.Bool("models-fetch", fetchDefault,
		"at start, fetch the pinned face and liveness model files that --models-dir lacks, as verifyd models fetch does "+
			"(integrity-checked); false on air-gapped sites (env VERIFYD_MODELS_FETCH=false)")
	modelsRegistry := fs.String("models-registry", e.envOr("VERIFYD_NPM_REGISTRY", defaultRegistry),
		"npm registry the model files are fetched from (env VERIFYD_NPM_REGISTRY)")
	ocrMode := e.ocrFlag(fs)
	th := engine.DefaultFaceThresholds
	fs.Float64Var(&th.MatchDistance, "face-match-distance", th.MatchDistance,
		"selfie-to-document descriptor distance at or below which the faces match (docs/accuracy.md)")
	fs.Float64Var(&th.MismatchDistance, "face-mismatch-distance", th.MismatchDistance,
		"distance at or above which the verification fails with photo_mismatch; between the two: review")
	fs.Float64Var(&th.LivenessPass, "liveness-pass", th.LivenessPass, "liveness score at or above which the selfie passes")
	fs.Float64Var(&th.LivenessFail, "liveness-fail", th.LivenessFail,
		"liveness score below which the verification fails with liveness_error; between the two: review")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	logger := e.serverLogger(*logFormat, *dev)
	if err := th.Validate(); err != nil {
		return err
	}
	limit, err := parseBytes(*memoryLimit)
	if err != nil {
		fmt.Fprintf(e.stderr, "verifyd serve: --memory-limit: %v\n", err)
		return ErrUsage
	}
	minFree, err := parseBytes(*readyMinFree)
	if err != nil {
		fmt.Fprintf(e.stderr, "verifyd serve: --ready-min-free: %v\n", err)
		return ErrUsage
	}
	if limit > 0 && e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
	proxies, err := parsePrefixes(*trustedProxies)
	if err != nil {
		fmt.Fprintf(e.stderr, "verifyd serve: --trusted-proxy: %v\n", err)
		return ErrUsage
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		fmt.Fprintln(e.stderr, "verifyd serve: --tls-cert and --tls-key go together")
		return ErrUsage
	}
	var tlsConfig *tls.Config
	if *tlsCert != "" {
		// Loaded now, so that a wrong path or key fails the start, not the
		// first connection.
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("TLS certificate: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if *modelsFetch {
		fetchMissingModels(ctx, logger, &http.Client{Timeout: 10 * time.Minute}, serveSources(ctx, *ocrMode, *modelsRegistry), *modelsDir)
	}
	faces, err := loadFaceModels(logger, *modelsDir)
	if err != nil {
		return err
	}
	text, err := loadOCR(ctx, logger, *ocrMode, *modelsDir)
	if err != nil {
		return err
	}
	if c, ok := text.(io.Closer); ok {
		defer c.Close() // the programs kept running (ocr.Tesseract.Resident)
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	origin := "http://" + ln.Addr().String()
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
		origin = "https://" + ln.Addr().String()
	}
	defaults, err := httpapi.DefaultMounts(origin)
	if err != nil {
		return err
	}
	for name, v := range bases {
		if *v != "" {
			defaults[name] = strings.TrimSuffix(*v, "/")
		}
	}
	mounts, err := httpapi.ParseMounts(defaults)
	if err != nil {
		return err
	}

	db, sealer, err := e.openStore(ctx, sf, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetReadyMinFree(minFree)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var mail mailer.Sender
	if *smtpURL != "" {
		mc, err := mailer.ParseURL(*smtpURL)
		if err != nil {
			return err
		}
		if mail, err = mailer.NewSMTP(mc); err != nil {
			return err
		}
		logger.Info("age account e-mails are sent through SMTP", "host", mc.Host, "port", mc.Port, "tls", map[bool]string{true: "smtps", false: "starttls"}[mc.SSL], "from", mc.From)
	} else {
		logger.Warn("no --smtp-url: age accounts get no e-mail (no address confirmation, password reset, login code or deletion by e-mail link); the pages do not offer them; dashboard invitation links are shown to the inviter, not e-mailed")
	}
	a, err := app.New(ctx, db, sealer, app.Config{
		BaseURLs: defaults, Dev: *dev, Now: e.now, Rand: e.rand, Logger: logger, Registry: reg, Mailer: mail,
		Queue: queue.Config{PollInterval: *pollInterval, RescueAfter: *rescueAfter},
		Faces: faces, FaceThresholds: th, OCR: text, MetricsToken: *metricsToken, TrustedProxies: proxies,
		CredentialCacheTTL: cacheTTL(*credentialTTL), DashboardSignUp: *dashboardSignUp,
		DashboardURL: strings.TrimSuffix(*dashboardURL, "/"),
		Processor:    processor(*processorName, *processorContact, defaults),
	})
	if err != nil {
		return err
	}
	if *demo {
		if err := e.printDemo(ctx, a.Tenants, mounts); err != nil {
			return err
		}
	}
	if err := a.Start(ctx); err != nil {
		return fmt.Errorf("start job queue: %w", err)
	}
	srv := &http.Server{
		Handler:           a.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		// B2 bodies carry several images; slow mobile uplinks need time.
		ReadTimeout:    2 * time.Minute,
		WriteTimeout:   2 * time.Minute,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:    func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	logger.Info("verifyd listening", "addr", ln.Addr().String(), "database", string(db.Dialect()), "dev", *dev)
	fmt.Fprintf(e.stdout, "verifyd listening on %s\n", origin)

	if *metricsListen != "" {
		mln, err := net.Listen("tcp", *metricsListen)
		if err != nil {
			return fmt.Errorf("metrics listener: %w", err)
		}
		msrv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 10 * time.Second}
		go msrv.Serve(mln)
		defer msrv.Close()
		logger.Info("metrics listening", "addr", mln.Addr().String())
	} else if *metricsToken == "" && !*dev {
		logger.Info("metrics are not served: set --metrics-listen or --metrics-token")
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := a.Stop(shutdownCtx); err != nil {
		return fmt.Errorf("stop job queue: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (e *env) serverLogger(format string, dev bool) *slog.Logger {
	if format == "" {
		format = "json"
		if dev {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(e.stderr, nil))
	}
	return slog.New(slog.NewJSONHandler(e.stderr, nil))
}

// printDemo makes sure a demo business exists and prints what a new user
// needs to call the API: its keys and the base URLs.
func (e *env) printDemo(ctx context.Context, tenants *tenant.Service, mounts []httpapi.Mount) error {
	bs, err := tenants.Businesses(ctx)
	if err != nil {
		return err
	}
	var demo *verifyd.Business
	for n := range bs {
		if bs[n].Name == demoBusinessName {
			demo = &bs[n]
			break
		}
	}
	if demo == nil {
		b, _, err := tenants.CreateBusiness(ctx, demoBusinessName)
		if err != nil {
			return err
		}
		demo = &b
	}
	creds, err := tenants.RevealedKeys(ctx, demo.ID)
	if err != nil {
		return err
	}
	// The newest active key of each pair, in mount order.
	w := e.stdout
	fmt.Fprintf(w, "Demo business %q (%s)\n\n", demo.Name, demo.ID)
	for _, m := range mounts {
		fmt.Fprintf(w, "%s %s\n  base URL:   %s\n", m.Interface, m.Environment, m.BaseURL)
		for n := len(creds) - 1; n >= 0; n-- {
			c := creds[n]
			if c.Interface == m.Interface && c.Environment == m.Environment {
				fmt.Fprintf(w, "  api key:    %s\n  api secret: %s\n", c.APIKey, c.APISecret)
				break
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}

// parsePrefixes reads a comma-separated list of addresses and CIDRs (an
// address alone is its own /32 or /128).
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// parseBytes reads a size such as "1GiB", "512MiB", "300MB" or "0".
func parseBytes(v string) (int64, error) {
	v = strings.TrimSpace(v)
	units := []struct {
		suffix string
		n      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	mul := int64(1)
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			v, mul = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.n
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mul {
		return 0, fmt.Errorf("%q is not a size such as 1GiB or 512MiB", v)
	}
	return n * mul, nil
}

// cacheTTL maps --credential-cache-ttl to app.Config.CredentialCacheTTL,
// where zero means the default: 0 on the command line turns the cache off.
func cacheTTL(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

// processor is the installation as the hosted pages' notice names it: the
// operator's --processor-name, else the host its customers see.
func processor(name, contact string, bases map[string]string) branding.Processor {
	if name == "" {
		if u, err := url.Parse(bases["identity-production"]); err == nil {
			name = u.Hostname()
		}
	}
	return branding.Processor{Name: name, Contact: contact}
}
