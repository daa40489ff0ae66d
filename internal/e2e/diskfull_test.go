package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // integrityMain's driver

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/sdk"
)

// integrityEnv names the database file the test binary checks when it is
// run again inside the server's namespaces (integrityMain).
const integrityEnv = "VERIFYD_E2E_INTEGRITY_OF"

// TestDiskFullRecovers runs `verifyd serve` on SQLite in a 96 MiB file
// system, fills it, and checks what the docs/reliability.md promises:
// while it is full every write is answered with SPEC's JSON 5xx body, the
// process stays up and /readyz says not ready; once space is freed the same
// process is ready again and writes succeed, and the database is sound.
//
// The file system is a tmpfs in a private mount namespace of an
// unprivileged user namespace (unshare -rm): no root needed, and the mount
// disappears with the server. The test reaches it through
// /proc/PID/root for plain files and through nsenter for SQLite, which
// resolves that symbolic link and would open the host's path instead.
func TestDiskFullRecovers(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"unshare", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			testdb.Skip(t, tool+" (util-linux) is not installed")
		}
	}
	if out, err := exec.Command("unshare", "-rm", "true").CombinedOutput(); err != nil {
		testdb.Skip(t, fmt.Sprintf("user and mount namespaces are not available: %v %s", err, out))
	}
	ctx := context.Background()
	mnt := t.TempDir()
	d := &deployment{bin: verifydBinary(t), dbURL: "sqlite://" + filepath.Join(mnt, "v.db"),
		keyFile: filepath.Join(mnt, "verifyd.key"), dir: t.TempDir(),
		serveWrap: []string{"unshare", "-rm", "sh", "-c", `mount -t tmpfs -o size=96m tmpfs "$1" && shift && exec "$@"`, "sh", mnt}}
	srv := d.startServer(t, "full")
	pid := strconv.Itoa(srv.cmd.Process.Pid)
	d.runWrap = []string{"nsenter", "-t", pid, "-U", "-m", "--preserve-credentials"}
	cred := d.createBusiness(t, "full").cred(t, "identity", "sandbox")
	cl := srv.identityClient(t, cred)

	var kept []string
	for i := range 5 {
		v, err := cl.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: fmt.Sprintf("f%d@example.com", i)}, Webhook: "http://127.0.0.1:9/hook"})
		if err != nil {
			t.Fatalf("create before filling: %v", err)
		}
		kept = append(kept, v.ID)
	}
	if st, _ := getReady(t, srv.origin); st != http.StatusOK {
		t.Fatalf("/readyz before filling: %d, want 200", st)
	}

	fill := filepath.Join("/proc", pid, "root", mnt, "fill")
	if err := fillUp(fill); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		body string
	}{
		{"B1", "/api/v1/identity-verification", `{"customer":{"id":"` + uuid.NewString() + `","email":"x@example.com"},"webhook":"http://127.0.0.1:9/hook"}`},
		{"simulate", "/api/v1/sandbox/identity-verification/" + kept[0] + "/simulate", `{"status":"started"}`},
	} {
		st, ctype, body := postSigned(t, srv.origin+"/sandbox/identity"+tc.path, cred, tc.body)
		var e struct {
			Message    string `json:"message"`
			StatusCode int    `json:"status_code"`
		}
		if st < 500 || ctype != "application/json" || json.Unmarshal(body, &e) != nil || e.StatusCode != st || e.Message == "" {
			t.Errorf("%s on a full disk: %d %s %q, want SPEC's JSON 5xx", tc.name, st, ctype, body)
		}
	}
	if st, body := getReady(t, srv.origin); st != http.StatusServiceUnavailable || !json.Valid(body) {
		t.Errorf("/readyz on a full disk: %d %q, want 503 with a JSON body", st, body)
	}
	srv.checkAlive(t)

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	if !waitFor(10*time.Second, 50*time.Millisecond, func() bool { st, _ := getReady(t, srv.origin); return st == http.StatusOK }) {
		t.Fatal("/readyz not ready 10 s after space was freed")
	}
	t.Logf("ready %s after space was freed", time.Since(freed).Round(time.Millisecond))
	if _, err := cl.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: "after@example.com"}, Webhook: "http://127.0.0.1:9/hook"}); err != nil {
		t.Errorf("create after freeing space: %v", err)
	}
	if v, err := cl.Sandbox().Simulate(ctx, kept[1], sdk.StatusStarted, ""); err != nil || v.Status != sdk.StatusStarted {
		t.Errorf("simulate after freeing space: %v", err)
	}
	for _, id := range kept {
		if _, err := cl.Identity().Get(ctx, id); err != nil {
			t.Errorf("read %s after freeing space: %v", id, err)
		}
	}
	srv.checkAlive(t)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	check := exec.Command(d.runWrap[0], append(d.runWrap[1:], self)...)
	check.Env = append(childEnv(), integrityEnv+"="+filepath.Join(mnt, "v.db"))
	out, err := check.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "integrity_check: ok\n") {
		t.Errorf("integrity check: %v\n%s", err, out)
	}
}

// integrityMain is what the test binary does when TestMain finds
// integrityEnv set: TestDiskFullRecovers runs it inside the server's
// namespaces to read the database that only they can see. It prints
// SQLite's integrity check and returns the exit code.
func integrityMain(path string) int {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("integrity_check: %s\n", res)
	return 0
}

// fillUp writes to path until its file system refuses with ENOSPC.
func fillUp(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for len(buf) > 0 {
		_, err := f.Write(buf)
		if errors.Is(err, syscall.ENOSPC) {
			buf = buf[:len(buf)/2]
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func getReady(t *testing.T, origin string) (int, []byte) {
	t.Helper()
	res, err := http.Get(origin + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// postSigned posts body signed as SPEC.md says and returns the answer as
// it came, so that the test sees a plain-text body if one is sent.
func postSigned(t *testing.T, url string, c credential, body string) (int, string, []byte) {
	t.Helper()
	mac := hmac.New(sha256.New, []byte(c.APISecret))
	mac.Write([]byte(body))
	req, err := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "hmac "+c.APIKey+":"+hex.EncodeToString(mac.Sum(nil)))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), b
}
