package cli_test

import (
	"bufio"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/cli"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/tfjs/faceapi"
	"github.com/verifyd/verifyd/tfjs/human"
)

// localRegistry serves the pinned model packages' metadata and tarballs as
// the npm registry does, from the files scripts/model-tarballs-fetch keeps
// in .cache/model-tarballs. The metadata lists the integrity of the file
// served, so a file that is not the pinned tarball is refused by the
// client's own check. tamper, when set, changes one byte of that package's
// tarball after its metadata was answered (a registry or mirror that lies).
type localRegistry struct {
	*httptest.Server
	requests atomic.Int64
}

func newLocalRegistry(t *testing.T, tamper string) *localRegistry {
	t.Helper()
	dir := filepath.Join(testdb.RepoRoot(t), ".cache", "model-tarballs")
	files := map[string][]byte{}
	for _, p := range []struct{ pkg, version string }{{faceapi.Package, faceapi.Version}, {human.Package, human.Version}} {
		name := strings.ReplaceAll(strings.TrimPrefix(p.pkg, "@"), "/", "-") + "-" + p.version + ".tgz"
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			testdb.Skip(t, "the first-start fetch test needs the pinned model tarballs: run scripts/model-tarballs-fetch ("+err.Error()+")")
		}
		files[p.pkg+"@"+p.version] = b
	}
	r := &localRegistry{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		for id, b := range files {
			pkg, version, _ := strings.Cut(id[1:], "@")
			pkg = "@" + pkg
			escaped := strings.Replace(pkg, "/", "%2F", 1)
			switch req.URL.EscapedPath() {
			case "/" + escaped + "/" + version, "/" + strings.ToLower(escaped) + "/" + version:
				sum := sha512.Sum512(b)
				json.NewEncoder(w).Encode(map[string]any{"name": pkg, "version": version, "dist": map[string]string{
					"tarball":   r.URL + "/" + pkg + "/-/tarball-" + version + ".tgz",
					"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:]),
				}})
				return
			case "/" + pkg + "/-/tarball-" + version + ".tgz":
				if pkg == tamper {
					b = append([]byte(nil), b...)
					b[len(b)/2] ^= 1
				}
				w.Header().Set("Content-Length", strconv.Itoa(len(b)))
				w.Write(b)
				return
			}
		}
		http.NotFound(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// servedLogs starts `verifyd serve` in-process with args, waits until it
// listens, stops it, and returns its JSON log lines.
func servedLogs(t *testing.T, env map[string]string, args ...string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, logs testserver.Buffer
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--log-format", "json", "--ocr", "off"}, args...),
			func(k string) string { return env[k] }, nil, &out, &logs)
	}()
	deadline := time.After(3 * time.Minute)
	for !strings.Contains(out.String(), "verifyd listening on ") {
		select {
		case err := <-done:
			t.Fatalf("serve exited before listening: %v\n%s", err, logs.String())
		case <-deadline:
			t.Fatalf("serve did not listen within 3 minutes:\n%s", logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, logs.String())
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		lines = append(lines, m)
	}
	return lines
}

// logged returns the log lines whose message begins with prefix.
func logged(lines []map[string]any, prefix string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if msg, _ := l["msg"].(string); strings.HasPrefix(msg, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func messages(lines []map[string]any) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l["level"].(string) + " " + l["msg"].(string) + "\n")
	}
	return b.String()
}

// TestServeFetchesModels: the README's `verifyd serve` on a machine without
// the face models fetches the pinned packages at first start, with the
// download's progress in the log, and runs with face matching and liveness
// on; the next start finds them; --models-fetch=false leaves an empty
// directory empty with today's warning; a tarball that is not the pinned
// one is refused and that model set goes to review. The fetch, the
// integrity checks, the extraction and the loading are the real ones; only
// the registry is local (serving the real tarballs).
func TestServeFetchesModels(t *testing.T) {
	t.Parallel()
	reg := newLocalRegistry(t, "")
	env := testEnv(t, "sqlite")
	delete(env, "VERIFYD_MODELS_FETCH") // the default: fetch
	dir := filepath.Join(t.TempDir(), "models")

	// First start: both packages are fetched, with progress, then loaded.
	lines := servedLogs(t, env, "--models-dir", dir, "--models-registry", reg.URL)
	for _, label := range []string{"face models", "liveness models"} {
		if len(logged(lines, label+" absent: fetching")) != 1 || len(logged(lines, label+" fetched")) != 1 {
			t.Errorf("%s: no fetch in the log:\n%s", label, messages(lines))
		}
		progress := logged(lines, "downloading "+label)
		if len(progress) < 5 || progress[len(progress)-1]["percent"] != float64(100) {
			t.Errorf("%s: %d progress lines, last %v", label, len(progress), progress[len(progress)-1])
		}
		for i := 1; i < len(progress); i++ {
			if progress[i]["bytes"].(float64) <= progress[i-1]["bytes"].(float64) {
				t.Errorf("%s: progress goes back: %v then %v", label, progress[i-1], progress[i])
			}
		}
	}
	if len(logged(lines, "face models loaded")) != 1 || len(logged(lines, "liveness models loaded")) != 1 {
		t.Fatalf("models not loaded after the fetch:\n%s", messages(lines))
	}
	// With --ocr off serve does not fetch Tesseract's WebAssembly files;
	// models check needs them only where the tesseract program is missing.
	_, programErr := (&ocr.Tesseract{}).Available(context.Background())
	if _, _, err := run(t, nil, "models", "check", "--dir", dir); (err != nil) != (programErr != nil) ||
		err != nil && !strings.Contains(err.Error(), "OCR files") {
		t.Fatalf("models check after the first start (tesseract program: %v): %v", programErr, err)
	}

	// Second start: nothing to fetch, the registry is not asked.
	before := reg.requests.Load()
	lines = servedLogs(t, env, "--models-dir", dir, "--models-registry", reg.URL)
	if reg.requests.Load() != before || len(logged(lines, "face models absent")) != 0 || len(logged(lines, "liveness models loaded")) != 1 {
		t.Errorf("second start: %d registry requests; log:\n%s", reg.requests.Load()-before, messages(lines))
	}

	// Air-gapped: --models-fetch=false (or VERIFYD_MODELS_FETCH=false)
	// asks nobody and says what goes to review.
	for _, off := range [][]string{{"--models-fetch=false"}, nil} {
		offEnv := env
		if off == nil {
			offEnv = testEnv(t, "sqlite")
		}
		empty := filepath.Join(t.TempDir(), "models")
		lines = servedLogs(t, offEnv, append([]string{"--models-dir", empty, "--models-registry", reg.URL}, off...)...)
		if reg.requests.Load() != before || len(logged(lines, "face models unavailable: face checks go to manual review")) != 1 {
			t.Errorf("fetch off %v: %d registry requests; log:\n%s", off, reg.requests.Load()-before, messages(lines))
		}
		if _, err := os.Stat(empty); !os.IsNotExist(err) {
			t.Errorf("fetch off %v: %s was created (%v)", off, empty, err)
		}
	}

	// A tampered liveness tarball is refused: face matching runs, liveness
	// goes to review, and no liveness file is left behind.
	bad := newLocalRegistry(t, human.Package)
	dir = filepath.Join(t.TempDir(), "models")
	lines = servedLogs(t, env, "--models-dir", dir, "--models-registry", bad.URL)
	failed := logged(lines, "liveness models could not be fetched")
	if len(failed) != 1 || failed[0]["level"] != "ERROR" || !strings.Contains(failed[0]["error"].(string), "refusing") {
		t.Errorf("tampered tarball: %v\n%s", failed, messages(lines))
	}
	if len(logged(lines, "face models loaded")) != 1 || len(logged(lines, "liveness models unavailable")) != 1 {
		t.Errorf("tampered liveness tarball:\n%s", messages(lines))
	}
	for _, f := range human.ModelFiles {
		if _, err := os.Stat(filepath.Join(dir, f.Name)); !os.IsNotExist(err) {
			t.Errorf("%s is in the models directory after a refused tarball (%v)", f.Name, err)
		}
	}
}
