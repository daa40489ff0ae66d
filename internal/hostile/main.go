// Command hostile runs the hostile-load suite of docs/reliability.md
// against a real `verifyd serve` process on loopback: decompression bombs
// at concurrency 16, large unauthenticated bodies, an anonymous A1 flood
// beside an integrator's B1 calls, and SIGKILL during webhook deliveries.
// It prints one JSON object of measurements. Run it with
// scripts/hostile-load, which builds the binary first.
//
// Everything is bounded (a fixed number of requests, seconds of flood)
// and stays on 127.0.0.1.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/verifyd/verifyd/sdk"
)

func main() {
	bin := flag.String("bin", "", "the verifyd binary")
	trials := flag.Int("kill-trials", 3, "SIGKILL trials")
	only := flag.String("only", "", "run only these scenarios (comma-separated: bombs, bodies, a1, sigkill, diskfull)")
	diskMiB := flag.Int("disk-mib", 96, "size of the disk-full scenario's file system, in MiB")
	flood := flag.String("flood", "", "internal: run an A1 flood against this URL and print its counts")
	floodClients := flag.Int("flood-clients", 32, "internal: concurrent flood clients")
	floodAddrs := flag.Int("flood-addrs", 1, "internal: loopback source addresses of the flood (127.0.0.2 on)")
	floodFor := flag.Duration("flood-for", 5*time.Second, "internal: how long the flood lasts")
	integrityOf := flag.String("integrity", "", "internal: print SQLite's integrity check of this database file")
	flag.Parse()
	if *integrityOf != "" {
		fmt.Println(integrity(*integrityOf))
		return
	}
	if *flood != "" {
		runFlood(*flood, *floodClients, *floodAddrs, *floodFor)
		return
	}
	want := func(string) bool { return true }
	if *only != "" {
		set := map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			set[strings.TrimSpace(n)] = true
		}
		want = func(n string) bool { return set[n] }
	}
	if err := run(*bin, *trials, *diskMiB, want); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

// server is one verifyd serve process.
type server struct {
	cmd    *exec.Cmd
	origin string
	dir    string
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func start(bin, dir, listen string) (*server, error) {
	return startIn(nil, bin, dir, listen)
}

// startIn starts the server, its command line prefixed by wrap (such as
// unshare and a shell that mounts a file system first).
func startIn(wrap []string, bin, dir, listen string) (*server, error) {
	cmd := exec.Command(bin, "serve", "--dev", "--listen", listen, "--database", "sqlite://"+filepath.Join(dir, "v.db"),
		"--master-key-file", filepath.Join(dir, "key"), "--models-dir", filepath.Join(dir, "no-models"), "--models-fetch=false", "--ocr", "off",
		"--queue-poll-interval", "50ms")
	if len(wrap) > 0 {
		cmd = exec.Command(wrap[0], append(wrap[1:], cmd.Args...)...)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	cmd.Env = append(os.Environ(), os.Getenv("HOSTILE_SERVER_ENV"))
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "verifyd listening on "); ok {
			go io.Copy(io.Discard, out)
			return &server{cmd: cmd, origin: rest, dir: dir}, nil
		}
	}
	return nil, fmt.Errorf("serve did not start")
}

// peakRSS is the process's high-water resident set, in MiB.
func (s *server) peakRSS() int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	return -1
}

func (s *server) rss() int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	return -1
}

// count is the number of rows of a table in the server's SQLite database
// (-1 when it cannot be read).
func (s *server) count(table string) int {
	out, err := exec.Command("sqlite3", filepath.Join(s.dir, "v.db"), "SELECT count(*) FROM "+table).Output()
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return -1
	}
	return n
}

// cpu is the CPU time the server process has used, in seconds.
func (s *server) cpu() float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	// Fields after the command name (which may hold spaces): utime and
	// stime are the 12th and 13th, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return (u + k) / 100
}

// ownCPU is the CPU time this process has used, in seconds.
func ownCPU() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func (s *server) alive() bool {
	return s.cmd.ProcessState == nil && s.cmd.Process.Signal(syscall.Signal(0)) == nil
}

type creds struct {
	Credentials []struct {
		Interface   string `json:"interface"`
		Environment string `json:"environment"`
		APIKey      string `json:"api_key"`
		APISecret   string `json:"api_secret"`
	} `json:"credentials"`
}

func business(bin, dir string) (creds, error) {
	return businessIn(nil, bin, dir)
}

// businessIn creates the business with the command line prefixed by wrap.
func businessIn(wrap []string, bin, dir string) (creds, error) {
	var c creds
	args := append(append(wrap[:len(wrap):len(wrap)], bin), "business", "create", "--name", "Hostile", "--database", "sqlite://"+filepath.Join(dir, "v.db"),
		"--master-key-file", filepath.Join(dir, "key"))
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(out, &c)
}

// key is the API key of a credential.
func (c creds) key(iface, env string) string {
	for _, k := range c.Credentials {
		if k.Interface == iface && k.Environment == env {
			return k.APIKey
		}
	}
	panic("no credential")
}

// clientAt is a client of the credential (iface, env) on base.
func (c creds) clientAt(base, iface, env string) *sdk.Client {
	for _, k := range c.Credentials {
		if k.Interface == iface && k.Environment == env {
			cl, err := sdk.New(base, k.APIKey, k.APISecret)
			if err != nil {
				panic(err)
			}
			return cl
		}
	}
	panic("no credential")
}

func (c creds) client(origin, iface, env string) *sdk.Client {
	prefix := map[string]string{"identity-production": "/identity", "identity-sandbox": "/sandbox/identity"}[iface+"-"+env]
	for _, k := range c.Credentials {
		if k.Interface == iface && k.Environment == env {
			cl, err := sdk.New(origin+prefix, k.APIKey, k.APISecret)
			if err != nil {
				panic(err)
			}
			return cl
		}
	}
	panic("no credential")
}

// receiver counts webhook deliveries by verification and status.
type receiver struct {
	mu   sync.Mutex
	seen map[string]time.Time // "id status" → first arrival
	srv  *http.Server
	url  string
}

func newReceiver() *receiver {
	r := &receiver{seen: map[string]time.Time{}}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	r.url = "http://" + l.Addr().String() + "/hook"
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		var ev struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		_ = json.NewDecoder(q.Body).Decode(&ev)
		r.mu.Lock()
		if _, ok := r.seen[ev.ID+" "+ev.Status]; !ok {
			r.seen[ev.ID+" "+ev.Status] = time.Now()
		}
		r.mu.Unlock()
	})}
	go r.srv.Serve(l)
	return r
}

func (r *receiver) count(status string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for k := range r.seen {
		if strings.HasSuffix(k, " "+status) {
			n++
		}
	}
	return n
}

// gradient is a smooth image: it compresses to little and decodes to much.
func gradient16(w, h int) []byte {
	img := image.NewNRGBA64(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += 1 {
		for x := 0; x < w; x++ {
			img.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 7), uint16(y * 7), 30000, 65535})
		}
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// bigJPEG is a baseline JPEG with an EXIF orientation of 6 (turn right):
// decoding it and turning it takes two copies.
func bigJPEG(w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i / 97)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 50}); err != nil {
		panic(err)
	}
	raw := b.Bytes()
	// APP1 Exif with one IFD entry: Orientation (0x0112) = 6.
	tiffData := []byte("MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00\x00\x00\x00\x00")
	seg := append([]byte("Exif\x00\x00"), tiffData...)
	app1 := append([]byte{0xFF, 0xE1, byte((len(seg) + 2) >> 8), byte(len(seg) + 2)}, seg...)
	return append(append(append([]byte{}, raw[:2]...), app1...), raw[2:]...)
}

func run(bin string, trials, diskMiB int, want func(string) bool) error {
	if bin == "" {
		return fmt.Errorf("-bin is required")
	}
	out := map[string]any{}
	dir, err := os.MkdirTemp("", "hostile")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := start(bin, dir, "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer s.cmd.Process.Kill()
	c, err := business(bin, dir)
	if err != nil {
		return err
	}
	prod := c.client(s.origin, "identity", "production")
	rc := newReceiver()
	ctx := context.Background()

	if want("bombs") {
		// 1. Bombs at concurrency 16.
		refused := gradient16(6000, 6000) // 288 MiB to decode: refused at submission
		accepted := gradient16(4000, 4000)
		huge := bigJPEG(8000, 6000)
		out["bomb_sizes_kib"] = map[string]int{"png16_6000": len(refused) >> 10, "png16_4000": len(accepted) >> 10, "jpeg_48mp_exif6": len(huge) >> 10}
		var wg sync.WaitGroup
		var ok422, ok201, other atomic.Int32
		t0 := time.Now()
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				front := accepted
				if i%4 == 0 {
					front = refused
				}
				_, err := prod.Identity().SubmitImages(ctx, sdk.SubmitImagesRequest{
					Customer: sdk.Customer{ID: uuid.NewString(), Email: "bomb@example.com"}, DocumentCountry: "gbr",
					Selfie: huge, DocumentFront: front, Webhook: rc.url})
				var ae *sdk.APIError
				switch {
				case err == nil:
					ok201.Add(1)
				case errors.As(err, &ae) && ae.StatusCode == 422:
					ok422.Add(1)
				default:
					other.Add(1)
				}
			}()
		}
		wg.Wait()
		for time.Since(t0) < 5*time.Minute && rc.count("failed")+rc.count("approved") < int(ok201.Load()) {
			time.Sleep(200 * time.Millisecond)
		}
		out["bombs"] = map[string]any{"submitted": 16, "accepted": ok201.Load(), "refused_422": ok422.Load(), "other": other.Load(),
			"decided": rc.count("failed") + rc.count("approved"), "seconds": time.Since(t0).Seconds(), "alive": s.alive(), "peak_rss_mib": s.peakRSS()}

	}
	if want("bodies") {
		// 2. 16 unauthenticated 40 MiB bodies at once.
		before := s.rss()
		statuses := make(chan int, 16)
		for range 16 {
			go func() {
				body := io.LimitReader(zeros{}, 40<<20)
				req, _ := http.NewRequest("POST", s.origin+"/identity/api/v1/identity-verification/selfie-document-validation", body)
				req.ContentLength = 40 << 20
				req.Header.Set("Authorization", "hmac nobody:"+strings.Repeat("0", 64))
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					statuses <- 0
					return
				}
				res.Body.Close()
				statuses <- res.StatusCode
			}()
		}
		all401 := true
		for range 16 {
			if <-statuses != 401 {
				all401 = false
			}
		}
		out["unauthenticated_40mib"] = map[string]any{"all_401": all401, "rss_growth_mib": s.rss() - before}

	}
	if want("a1") {
		// 3. B1 alone, then beside 32 anonymous A1 clients. The flood runs
		// in its own process, as an attacker would: sharing this
		// process's scheduler would slow the integrator's client, not the
		// server. It uses a real client_id and an allowed redirect, so
		// every request the limits let through is a valid A1.
		ageKey := c.key("age", "production")
		if err := c.clientAt(s.origin+"/age", "age", "production").Redirects().Add(ctx, []string{"https://x.example/cb"}); err != nil {
			return err
		}
		authorize := s.origin + "/age/oauth/authorize?client_id=" + ageKey + "&scope=adult&country=gb&response_type=code&redirect_uri=https://x.example/cb"
		for _, variant := range []struct {
			name  string
			addrs int
		}{{"a1_flood", 1}, {"a1_flood_32_addresses", 32}} {
			sand := c.client(s.origin, "identity", "production")
			b1 := func(d time.Duration) float64 {
				n := 0
				end := time.Now().Add(d)
				for time.Now().Before(end) {
					if _, err := sand.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: "a@example.com"}, Webhook: rc.url}); err == nil {
						n++
					}
				}
				return float64(n) / d.Seconds()
			}
			rows0 := s.count("age_auth_requests")
			srvCPU0 := s.cpu()
			alone := b1(5 * time.Second)
			srvCPU1 := s.cpu()
			flood, err := startFlood(authorize, 32, variant.addrs, 5*time.Second)
			if err != nil {
				return err
			}
			flooded := b1(5 * time.Second)
			fl, err := flood.wait()
			if err != nil {
				return err
			}
			srvCPU2 := s.cpu()
			// Server CPU seconds per wall second, out of nproc cores.
			out[variant.name] = map[string]any{"flood_clients": 32, "flood_addresses": variant.addrs,
				"b1_alone_per_s": alone, "b1_flooded_per_s": flooded, "drop_percent": 100 * (1 - flooded/alone),
				"a1_requests": fl.Requests, "a1_limited": fl.Limited, "a1_accepted": fl.Found, "flood_cores": fl.Cores,
				"a1_rows_written":    s.count("age_auth_requests") - rows0,
				"server_cores_alone": (srvCPU1 - srvCPU0) / 5, "server_cores_flooded": (srvCPU2 - srvCPU1) / 5}
		}
	}
	if want("sigkill") {
		// 4. SIGKILL during deliveries, then restart on the same database.
		sandbox := c.client(s.origin, "identity", "sandbox")
		var worst float64
		var each []float64
		events := 0
		for trial := range trials {
			var ids []string
			for range 10 {
				v, err := sandbox.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: "k@example.com"}, Webhook: rc.url})
				if err != nil {
					return fmt.Errorf("trial %d: %w", trial, err)
				}
				ids = append(ids, v.ID)
			}
			for _, id := range ids {
				go sandbox.Sandbox().Simulate(ctx, id, sdk.StatusStarted, "")
			}
			time.Sleep(30 * time.Millisecond)
			addr := strings.TrimPrefix(s.origin, "http://")
			s.cmd.Process.Kill()
			s.cmd.Wait()
			restart := time.Now()
			if s, err = start(bin, dir, addr); err != nil {
				return err
			}
			sandbox = c.client(s.origin, "identity", "sandbox")
			// Only the simulations the kill did not interrupt became
			// events: those whose verification is started now.
			var committed []string
			for _, id := range ids {
				if v, err := sandbox.Identity().Get(ctx, id); err == nil && v.Status == sdk.StatusStarted {
					committed = append(committed, id)
				}
			}
			events += len(committed)
			for time.Since(restart) < 5*time.Minute {
				done := 0
				for _, id := range committed {
					rc.mu.Lock()
					_, got := rc.seen[id+" started"]
					rc.mu.Unlock()
					if got {
						done++
					}
				}
				if done == len(committed) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			took := time.Since(restart).Seconds()
			each = append(each, took)
			worst = max(worst, took)
		}
		out["sigkill"] = map[string]any{"trials": trials, "worst_seconds_to_all_delivered": worst, "seconds_per_trial": each, "events_waited_for": events,
			"note": "events of the simulations committed before the kill (the verification is started after the restart); one the kill interrupted never became an event and is not waited for"}
	}
	if want("diskfull") {
		r, err := diskFull(bin, diskMiB)
		if err != nil {
			return fmt.Errorf("diskfull: %w", err)
		}
		out["diskfull"] = r
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Println(string(b))
	return nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// floodResult is what a flood process reports.
type floodResult struct {
	Requests, Limited, Found int64
	// Cores is the flood process's CPU seconds per wall second.
	Cores float64
}

type floodProc struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

// startFlood runs this program again as the flood process.
func startFlood(url string, clients, addrs int, d time.Duration) (*floodProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	f := &floodProc{cmd: exec.Command(self, "-flood", url, "-flood-clients", strconv.Itoa(clients),
		"-flood-addrs", strconv.Itoa(addrs), "-flood-for", d.String())}
	f.cmd.Stdout, f.cmd.Stderr = &f.out, os.Stderr
	return f, f.cmd.Start()
}

func (f *floodProc) wait() (floodResult, error) {
	var r floodResult
	if err := f.cmd.Wait(); err != nil {
		return r, fmt.Errorf("flood: %w", err)
	}
	return r, json.Unmarshal(f.out.Bytes(), &r)
}

// runFlood sends GET url from clients goroutines, each on its own
// keep-alive connection from one of addrs loopback addresses, as fast as
// the answers come, for d; then prints a floodResult.
func runFlood(url string, clients, addrs int, d time.Duration) {
	var wg sync.WaitGroup
	var res floodResult
	var n, limited, found atomic.Int64
	end := time.Now().Add(d)
	cpu0 := ownCPU()
	for i := range clients {
		local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%addrs))}
		tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: local}).DialContext, MaxIdleConnsPerHost: 1}
		cl := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				r, err := cl.Get(url)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
				n.Add(1)
				switch r.StatusCode {
				case http.StatusTooManyRequests:
					limited.Add(1)
				case http.StatusFound:
					found.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	res.Requests, res.Limited, res.Found = n.Load(), limited.Load(), found.Load()
	res.Cores = (ownCPU() - cpu0) / d.Seconds()
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
}
