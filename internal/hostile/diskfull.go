package main

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
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // the integrity check reads the server's file

	"github.com/verifyd/verifyd/sdk"
)

// diskFull runs verifyd on SQLite in a file system of mib MiB, fills that
// file system, and reports what clients get while it is full and how the
// service comes back once space is freed, without a restart.
//
// The file system is a tmpfs mounted in a private mount namespace of an
// unprivileged user namespace (`unshare -rm`): it needs no root on the host,
// leaves no mount behind when the server exits, and cannot fill any disk
// but its own. This process reaches the files through /proc/PID/root, the
// server's view of the file system.
func diskFull(bin string, mib int) (map[string]any, error) {
	if _, err := exec.LookPath("unshare"); err != nil {
		return nil, fmt.Errorf("the disk-full scenario needs unshare (util-linux): %w", err)
	}
	dir, err := os.MkdirTemp("", "hostile-diskfull")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	wrap := []string{"unshare", "-rm", "sh", "-c", `mount -t tmpfs -o size="$1"m tmpfs "$2" && shift 2 && exec "$@"`, "sh", strconv.Itoa(mib), dir}
	s, err := startIn(wrap, bin, dir, "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer func() {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}()
	// The same directory as the server sees it: the tmpfs. SQLite resolves
	// symbolic links, /proc/PID/root included, so SQLite programs enter
	// the server's namespaces instead (nsenter).
	seen := fmt.Sprintf("/proc/%d/root%s", s.cmd.Process.Pid, dir)
	inside := []string{"nsenter", "-t", strconv.Itoa(s.cmd.Process.Pid), "-U", "-m", "--preserve-credentials"}
	c, err := businessIn(inside, bin, dir)
	if err != nil {
		return nil, fmt.Errorf("business create: %w", err)
	}
	ctx := context.Background()
	prod := c.client(s.origin, "identity", "production")
	sandbox := c.client(s.origin, "identity", "sandbox")
	prodKey, prodSecret := c.secret("identity", "production")
	sandKey, sandSecret := c.secret("identity", "sandbox")
	rc := newReceiver()
	out := map[string]any{"filesystem_mib": mib}

	// Before: a few verifications, one of which is read back at the end.
	var kept []string
	for range 20 {
		v, err := sandbox.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: "d@example.com"}, Webhook: rc.url})
		if err != nil {
			return nil, fmt.Errorf("create before filling: %w", err)
		}
		kept = append(kept, v.ID)
	}
	out["ready_before"] = readyStatus(s.origin)

	// Fill the file system to the last byte.
	fill := filepath.Join(seen, "fill")
	filled, err := fillUp(fill)
	if err != nil {
		return nil, err
	}
	out["filled_mib"] = float64(filled) / (1 << 20)

	// While full: B1 creations, sandbox status changes (each one a history
	// row, a webhook event and a job), and B2 submissions with photos.
	answers := map[string]int{}
	notJSON, spec := 0, 0
	var refusal string
	record := func(status int, body []byte, ctype string) {
		answers[strconv.Itoa(status)]++
		if status < 500 && status >= 300 && refusal == "" {
			refusal = string(body)
		}
		var e struct {
			Message    string `json:"message"`
			StatusCode int    `json:"status_code"`
		}
		if ctype != "application/json" || json.Unmarshal(body, &e) != nil {
			notJSON++
			return
		}
		if status >= 500 && e.StatusCode == status && e.Message != "" {
			spec++
		}
	}
	photo := bigJPEG(640, 480)
	for i := range 30 {
		switch i % 3 {
		case 0:
			body, _ := json.Marshal(map[string]any{"customer": map[string]string{"id": uuid.NewString(), "email": "d@example.com"}, "webhook": rc.url})
			st, b, ct := signed(prodKey, prodSecret, s.origin+"/identity/api/v1/identity-verification", body)
			record(st, b, ct)
		case 1:
			body := []byte(`{"status":"started"}`)
			st, b, ct := signed(sandKey, sandSecret, s.origin+"/sandbox/identity/api/v1/sandbox/identity-verification/"+kept[i%len(kept)]+"/simulate", body)
			record(st, b, ct)
		case 2:
			body, _ := json.Marshal(sdk.SubmitRequest{Customer: sdk.SubmitCustomer{ID: uuid.NewString(), Email: "d@example.com",
				Selfie: sdk.EncodeImage(photo), Document: sdk.Document{Type: sdk.DocumentPassport, Country: "gbr", Front: sdk.EncodeImage(photo)}}, Webhook: rc.url})
			st, b, ct := signed(prodKey, prodSecret, s.origin+"/identity/api/v1/identity-verification/selfie-document-validation", body)
			record(st, b, ct)
		}
	}
	out["while_full"] = map[string]any{"requests": 30, "answers": answers, "spec_json_5xx": spec, "not_json": notJSON, "first_non_5xx_refusal": refusal,
		"ready": readyStatus(s.origin), "alive": s.alive()}

	// Free the space; the service must come back by itself.
	if err := os.Remove(fill); err != nil {
		return nil, err
	}
	freed := time.Now()
	for readyStatus(s.origin) != 200 && time.Since(freed) < time.Minute {
		time.Sleep(50 * time.Millisecond)
	}
	out["seconds_to_ready_after_freeing"] = time.Since(freed).Seconds()
	after := map[string]any{"ready": readyStatus(s.origin), "alive": s.alive()}
	if _, err := prod.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: "d@example.com"}, Webhook: rc.url}); err != nil {
		after["create"] = err.Error()
	} else {
		after["create"] = "201"
	}
	readBack := 0
	for _, id := range kept {
		if _, err := sandbox.Identity().Get(ctx, id); err == nil {
			readBack++
		}
	}
	after["earlier_verifications_read"] = fmt.Sprintf("%d of %d", readBack, len(kept))
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	check, err := exec.Command(inside[0], append(inside[1:], self, "-integrity", filepath.Join(dir, "v.db"))...).Output()
	if err != nil {
		return nil, fmt.Errorf("integrity check: %w", err)
	}
	after["integrity_check"] = strings.TrimSpace(string(check))
	out["after_freeing"] = after
	return out, nil
}

// fillUp writes zeros to path until the file system refuses, and returns
// how many bytes it took.
func fillUp(path string) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	var n int64
	for len(buf) > 0 {
		k, err := f.Write(buf)
		n += int64(k)
		if errors.Is(err, syscall.ENOSPC) {
			// The last pages may take smaller writes.
			buf = buf[:len(buf)/2]
			continue
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func readyStatus(origin string) int {
	r, err := http.Get(origin + "/readyz")
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return r.StatusCode
}

// signed posts body to url signed as SPEC.md says, and returns the answer
// as it came: status, body and content type.
func signed(key, secret, url string, body []byte) (int, []byte, string) {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Authorization", "hmac "+key+":"+hex.EncodeToString(mac.Sum(nil)))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, ""
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header.Get("Content-Type")
}

// integrity is SQLite's integrity check of the file ("ok" when sound).
func integrity(path string) string {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err.Error()
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		return err.Error()
	}
	return res
}

// secret is the API key and secret of the credential (iface, env).
func (c creds) secret(iface, env string) (string, string) {
	for _, k := range c.Credentials {
		if k.Interface == iface && k.Environment == env {
			return k.APIKey, k.APISecret
		}
	}
	panic("no credential")
}
