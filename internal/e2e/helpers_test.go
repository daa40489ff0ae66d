package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/sdk"
)

// ---- the binary ----------------------------------------------------------

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	if path := os.Getenv(integrityEnv); path != "" {
		os.Exit(integrityMain(path))
	}
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// moduleRoot is the directory holding go.mod, two levels above this file.
func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("runtime.Caller failed")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	return root, nil
}

// verifydBinary builds ./cmd/verifyd once per test binary run.
func verifydBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		if buildDir, err = os.MkdirTemp("", "verifyd-e2e-"); err != nil {
			buildErr = err
			return
		}
		buildBin = filepath.Join(buildDir, "verifyd")
		cmd := exec.Command("go", "build", "-o", buildBin, "./cmd/verifyd")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/verifyd: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// childEnv is the test's environment without VERIFYD_* variables, so the
// subprocesses see only the flags given.
func childEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VERIFYD_") {
			out = append(out, kv)
		}
	}
	return out
}

// ---- a deployment: one database and one master key file ------------------

type deployment struct {
	bin     string
	dbURL   string
	keyFile string
	dir     string
	// serveWrap and runWrap prefix the command lines of servers and of
	// operator commands (such as unshare and nsenter, to run them in a
	// private mount namespace).
	serveWrap, runWrap []string
	// serveArgs are added to the servers' flags (the last of a flag given
	// twice wins).
	serveArgs []string
}

func newDeployment(t *testing.T, dialect string) *deployment {
	t.Helper()
	bin := verifydBinary(t)
	dir := t.TempDir()
	return &deployment{bin: bin, dbURL: testdb.URL(t, dialect), keyFile: filepath.Join(dir, "verifyd.key"), dir: dir}
}

func (d *deployment) storeFlags() []string {
	return []string{"--database", d.dbURL, "--master-key-file", d.keyFile}
}

// run runs an operator command to completion and returns its stdout.
func (d *deployment) run(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	argv := append(append(append(d.runWrap[:len(d.runWrap):len(d.runWrap)], d.bin), args...), d.storeFlags()...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = childEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("verifyd %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

func (d *deployment) runJSON(t testing.TB, out any, args ...string) {
	t.Helper()
	b, err := d.run(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("verifyd %s: decode output: %v\n%s", strings.Join(args, " "), err, b)
	}
}

type credential struct {
	Interface   string `json:"interface"`
	Environment string `json:"environment"`
	APIKey      string `json:"api_key"`
	APISecret   string `json:"api_secret"`
}

type business struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Credentials []credential `json:"credentials"`
}

func (b business) cred(t testing.TB, iface, env string) credential {
	t.Helper()
	for _, c := range b.Credentials {
		if c.Interface == iface && c.Environment == env {
			return c
		}
	}
	t.Fatalf("business %s has no %s %s credential", b.ID, iface, env)
	return credential{}
}

func (d *deployment) createBusiness(t testing.TB, name string) business {
	t.Helper()
	var b business
	d.runJSON(t, &b, "business", "create", "--name", name)
	return b
}

type historyEntry struct {
	Seq    int    `json:"seq"`
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
	Cause  string `json:"cause"`
	Actor  string `json:"actor"`
}

type webhookEvent struct {
	ID             string `json:"id"`
	VerificationID string `json:"verification_id"`
	State          string `json:"state"`
	Attempts       int    `json:"attempts"`
	Payload        string `json:"payload"`
	LastError      string `json:"last_error"`
}

type verificationShow struct {
	Verification struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"verification"`
	History  []historyEntry `json:"history"`
	Webhooks []webhookEvent `json:"webhooks"`
}

func (d *deployment) showVerification(t testing.TB, id string) verificationShow {
	t.Helper()
	var out verificationShow
	d.runJSON(t, &out, "verification", "show", id, "--json")
	return out
}

func (d *deployment) webhooks(t testing.TB, state string) []webhookEvent {
	t.Helper()
	args := []string{"webhooks", "list", "--json", "--limit", "100000"}
	if state != "" {
		args = append(args, "--state", state)
	}
	var out []webhookEvent
	d.runJSON(t, &out, args...)
	return out
}

// ---- a server process ----------------------------------------------------

type server struct {
	name    string
	cmd     *exec.Cmd
	origin  string
	logPath string
	started time.Time
	done    chan struct{} // closed when the process has exited
	waitErr error
	// ending is set when the test stops or kills the server.
	ending atomic.Bool
}

// listenWriter is the server's stdout: it reports the listening line.
type listenWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	origin chan string
	sent   bool
}

func (w *listenWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent {
		sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "verifyd listening on "); ok {
				w.origin <- strings.TrimSpace(rest)
				w.sent = true
				break
			}
		}
	}
	return len(p), nil
}

func (w *listenWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startServer starts "verifyd serve" on the deployment's database and
// waits until it listens. Its JSON logs go to a file whose tail is printed
// if the test fails; the process is killed when the test ends.
func (d *deployment) startServer(t *testing.T, name string) *server {
	t.Helper()
	return d.startServerPoll(t, name, 50*time.Millisecond)
}

// startServerPoll is startServer with another --queue-poll-interval.
func (d *deployment) startServerPoll(t *testing.T, name string, poll time.Duration) *server {
	t.Helper()
	logPath := filepath.Join(d.dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"serve", "--dev", "--log-format", "json", "--listen", "127.0.0.1:0", "--models-fetch=false",
		"--queue-rescue-after", "3s", "--queue-poll-interval", poll.String()}, d.storeFlags()...)
	args = append(args, d.serveArgs...)
	argv := append(append(d.serveWrap[:len(d.serveWrap):len(d.serveWrap)], d.bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = childEnv()
	stdout := &listenWriter{origin: make(chan string, 1)}
	cmd.Stdout, cmd.Stderr = stdout, logFile
	s := &server{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{}), started: time.Now()}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("start server %s: %v", name, err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		logFile.Close()
		close(s.done)
	}()
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			t.Logf("---- last lines of server %s log (%s) ----\n%s", name, logPath, tail(logPath, 40))
		}
	})
	select {
	case s.origin = <-stdout.origin:
	case <-s.done:
		t.Fatalf("server %s exited before listening: %v\nstdout: %s\nlog:\n%s", name, s.waitErr, stdout, tail(logPath, 40))
	case <-time.After(60 * time.Second):
		t.Fatalf("server %s did not listen within 60 s\nlog:\n%s", name, tail(logPath, 40))
	}
	return s
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// kill crashes the server: SIGKILL, no chance to finish anything.
func (s *server) kill() {
	s.ending.Store(true)
	if s.exited() {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// stop shuts the server down gracefully (SIGTERM), killing it if it takes
// longer than 30 s.
func (s *server) stop(t testing.TB) {
	t.Helper()
	s.checkAlive(t)
	s.ending.Store(true)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		if s.waitErr != nil {
			t.Errorf("server %s: graceful stop: %v", s.name, s.waitErr)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("server %s did not stop within 30 s of SIGTERM; killing it", s.name)
		s.kill()
	}
}

// checkAlive fails the test at once if the server has exited without the
// test stopping it.
func (s *server) checkAlive(t testing.TB) {
	t.Helper()
	if s.exited() && !s.ending.Load() {
		t.Fatalf("server %s exited unexpectedly after %s: %v\nlog:\n%s", s.name,
			time.Since(s.started).Round(time.Millisecond), s.waitErr, tail(s.logPath, 20))
	}
}

func (s *server) identityClient(t testing.TB, c credential) *sdk.Client {
	t.Helper()
	cl, err := sdk.New(s.origin+"/sandbox/identity", c.APIKey, c.APISecret)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// logLines returns the server's JSON log records with the given message.
func (s *server) logLines(t testing.TB, msg string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for line := range strings.Lines(string(b)) {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ---- the webhook receiver ------------------------------------------------

// delivery is one webhook request the receiver got with a valid signature.
type delivery struct {
	EventID        string
	VerificationID string
	CustomerID     string
	Status         string
	Reason         string
	Attempt        int
	// Outcome: "ok" (answered 2xx), "500" (answered 500 on purpose) or
	// "aborted" (the sender went away while the receiver was slow).
	Outcome string
}

// receiver is the integrator's webhook endpoint. Every request must carry
// a valid signature; it can answer slowly, and fail first attempts.
type receiver struct {
	srv     *httptest.Server
	secrets map[string]string

	// delay is the longest an answer waits (nanoseconds); each event waits
	// a fixed part of it, between a quarter and all of it.
	delay atomic.Int64
	// failing makes the first request of about half of the events (by a
	// hash of their id) fail with 500 at once.
	failing  atomic.Bool
	inFlight atomic.Int32
	// gate, while set, holds every request until it is closed (or the
	// sender goes away).
	gate atomic.Pointer[chan struct{}]

	mu         sync.Mutex
	deliveries []delivery
	problems   []string
	requests   map[string]int // requests per event id
}

func newReceiver(t *testing.T, creds ...credential) *receiver {
	r := &receiver{secrets: map[string]string{}, requests: map[string]int{}}
	for _, c := range creds {
		r.secrets[c.APIKey] = c.APISecret
	}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(func() {
		r.srv.CloseClientConnections()
		r.srv.Close()
		for _, p := range r.problemList() {
			t.Errorf("webhook receiver: %s", p)
		}
	})
	return r
}

func (r *receiver) url() string { return r.srv.URL + "/hook" }

func (r *receiver) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

func (r *receiver) problemList() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.problems...)
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.inFlight.Add(1)
	defer r.inFlight.Add(-1)
	ev, err := sdk.VerifyWebhook(req, func(key string) (string, bool) {
		s, ok := r.secrets[key]
		return s, ok
	})
	if err != nil {
		r.problem("request rejected: %v (Authorization %q)", err, req.Header.Get("Authorization"))
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	d := delivery{EventID: req.Header.Get("Webhook-Id"), VerificationID: ev.ID, CustomerID: ev.CustomerID,
		Status: string(ev.Status), Reason: string(ev.Reason)}
	if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" {
		r.problem("event %s: %s with Content-Type %q", d.EventID, req.Method, req.Header.Get("Content-Type"))
	}
	if d.EventID == "" || req.Header.Get("Webhook-Timestamp") == "" {
		r.problem("verification %s: missing Webhook-Id or Webhook-Timestamp", ev.ID)
	}
	if d.Attempt, err = strconv.Atoi(req.Header.Get("Webhook-Attempt")); err != nil || d.Attempt < 1 {
		r.problem("event %s: bad Webhook-Attempt %q", d.EventID, req.Header.Get("Webhook-Attempt"))
	}
	r.mu.Lock()
	r.requests[d.EventID]++
	first := r.requests[d.EventID] == 1
	r.mu.Unlock()

	h := fnv.New32a()
	h.Write([]byte(d.EventID))
	sum := h.Sum32()
	if first && r.failing.Load() && sum/1000%2 == 1 {
		d.Outcome = "500"
		r.record(d)
		http.Error(w, "try again later", http.StatusInternalServerError)
		return
	}
	if gate := r.gate.Load(); gate != nil {
		select {
		case <-*gate:
		case <-req.Context().Done():
			d.Outcome = "aborted"
			r.record(d)
			return
		}
	}
	if delay := time.Duration(r.delay.Load()); delay > 0 {
		delay = delay/4 + time.Duration(sum%1000)*(delay*3/4)/1000
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
			d.Outcome = "aborted"
			r.record(d)
			return
		}
	}
	d.Outcome = "ok"
	r.record(d)
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) record(d delivery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deliveries = append(r.deliveries, d)
}

func (r *receiver) snapshot() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.deliveries...)
}

// okStatuses returns, per verification, the statuses that were answered
// 2xx at least once.
func (r *receiver) okStatuses() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, d := range r.snapshot() {
		if d.Outcome != "ok" {
			continue
		}
		if out[d.VerificationID] == nil {
			out[d.VerificationID] = map[string]bool{}
		}
		out[d.VerificationID][d.Status] = true
	}
	return out
}

// ---- expectations --------------------------------------------------------

// expected is a verification and the status changes it went through.
type expected struct {
	id         string
	customerID string
	final      string
	reason     string
	// statuses are the statuses it was moved to, in order.
	statuses []string
}

// countReached counts the expected status changes the receiver has
// answered 2xx for.
func countReached(exp []expected, got map[string]map[string]bool) (reached, total int) {
	for _, e := range exp {
		for _, s := range e.statuses {
			total++
			if got[e.id][s] {
				reached++
			}
		}
	}
	return reached, total
}

// waitFor polls cond every interval until it is true or timeout passes.
func waitFor(timeout, interval time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
}

// checkDeliveries checks what the receiver got against the expected status
// changes: per verification exactly one distinct event id per status
// change, with the right payload, each answered 2xx at least once. It
// returns the duplicate deliveries (event id → 2xx answers beyond the
// first: at-least-once allows them) and the event ids seen (→ verification).
func checkDeliveries(t *testing.T, exp []expected, got []delivery) (duplicates map[string]int, eventIDs map[string]string) {
	t.Helper()
	eventIDs = map[string]string{} // event id → verification id
	type key struct{ vid, status string }
	idsFor := map[key]map[string]bool{}
	eventOf := map[string]delivery{}
	okCount := map[string]int{}
	for _, d := range got {
		if prev, ok := eventOf[d.EventID]; ok {
			if prev.VerificationID != d.VerificationID || prev.Status != d.Status || prev.Reason != d.Reason ||
				prev.CustomerID != d.CustomerID {
				t.Errorf("event %s delivered with different payloads: %+v and %+v", d.EventID, prev, d)
			}
		} else {
			eventOf[d.EventID] = d
		}
		eventIDs[d.EventID] = d.VerificationID
		k := key{d.VerificationID, d.Status}
		if idsFor[k] == nil {
			idsFor[k] = map[string]bool{}
		}
		idsFor[k][d.EventID] = true
		if d.Outcome == "ok" {
			okCount[d.EventID]++
		}
	}
	duplicates = map[string]int{}
	known := map[string]expected{}
	for _, e := range exp {
		known[e.id] = e
		for _, s := range e.statuses {
			ids := idsFor[key{e.id, s}]
			if len(ids) != 1 {
				t.Errorf("verification %s: %d distinct event ids for status %s, want 1: %v", e.id, len(ids), s, ids)
			}
			for id := range ids {
				d := eventOf[id]
				wantReason := ""
				if s == e.final {
					wantReason = e.reason
				}
				if d.Reason != wantReason || d.CustomerID != e.customerID {
					t.Errorf("event %s: payload %+v, want status %s reason %q customer %s", id, d, s, wantReason, e.customerID)
				}
				if okCount[id] == 0 {
					t.Errorf("event %s (%s → %s) never answered 2xx", id, e.id, s)
				}
				if okCount[id] > 1 {
					duplicates[id] = okCount[id] - 1
				}
			}
		}
		for k, ids := range idsFor {
			if k.vid == e.id && !contains(e.statuses, k.status) {
				t.Errorf("verification %s: unexpected status %s event(s) %v", e.id, k.status, ids)
			}
		}
	}
	for id, vid := range eventIDs {
		if _, ok := known[vid]; !ok {
			t.Errorf("event %s for unknown verification %s", id, vid)
		}
	}
	return duplicates, eventIDs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// outcomes counts the receiver's deliveries by outcome.
func outcomes(ds []delivery) map[string]int {
	out := map[string]int{}
	for _, d := range ds {
		out[d.Outcome]++
	}
	return out
}
