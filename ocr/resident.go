package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A resident is a tesseract program kept running between recognitions:
// started with the options of one kind of reading and stream_filelist,
// it reads image file names from its standard input, one a line, and
// writes each one's TSV to its standard output as soon as it is read
// (Tesseract's own "stream a file list from stdin" mode). The program
// spends about 0.2–0.25 s of one core starting and loading its trained
// data, more than it takes to read a document page of 1600 px once that
// is done (about 0.2 s; docs/performance.md), and a decision reads up to
// a dozen pages and sets of spots: a resident pays the start once.
//
// Each image is followed by a blank sentinel image of a size no page has,
// whose page row closes the image's rows: Tesseract marks the end of a
// page in TSV only by the next page's first row. A resident serves one
// recognition at a time; one that fails (an error, a crash, a cancelled
// context) is killed and not reused, so a hostile image that crashes the
// program costs its own recognition only, as with a process per call.
type resident struct {
	key    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *tailWriter
	// idle stops the process after idleTimeout unused; nil while busy.
	idle *time.Timer
}

// sentinelW and sentinelH are the sentinel image's size: blank, so
// Tesseract reads no words on it and writes only its page row.
const sentinelW, sentinelH = 23, 17

// residentIdle is how long a resident waits unused before it is stopped,
// giving its memory (about 40 MB a process after a page) back: long
// enough for a service receiving a verification every few minutes to
// find its programs started.
const residentIdle = 5 * time.Minute

// residents is the pool of a Tesseract's resident processes, by the
// arguments they were started with.
type residents struct {
	mu     sync.Mutex
	idle   map[string][]*resident
	n      int // running: idle and busy
	dir    string
	seq    int
	closed bool
}

// pool returns t's resident pool, creating its directory for page files
// on first use.
func (t *Tesseract) pool() (*residents, error) {
	t.poolOnce.Do(func() {
		parent := pageParent()
		removeStale(parent)
		dir, err := os.MkdirTemp(parent, pagePrefix+strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			t.poolErr = fmt.Errorf("ocr: tesseract: %w", err)
			return
		}
		t.residents = &residents{idle: map[string][]*resident{}, dir: dir}
		if err := writePGM(filepath.Join(dir, "sentinel.pgm"), blank(sentinelW, sentinelH)); err != nil {
			t.poolErr = err
		}
	})
	return t.residents, t.poolErr
}

// pagePrefix begins the name of a page directory, followed by the
// process's id and a dash.
const pagePrefix = "verifyd-tesseract-"

// removeStale removes the page directories in parent of processes that
// no longer run: one killed while a page was being read leaves that page,
// a person's data, behind.
func removeStale(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, pagePrefix+"*"))
	for _, d := range dirs {
		pid, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), pagePrefix), "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 || n == os.Getpid() {
			continue
		}
		// Signal 0 tests that the process exists, and sends nothing.
		proc, err := os.FindProcess(n)
		if err != nil || errors.Is(proc.Signal(syscall.Signal(0)), os.ErrProcessDone) {
			os.RemoveAll(d)
		}
	}
}

// pageParent is where the page files go: a document's pages are a
// person's data, and /dev/shm, where Linux has it, keeps them in memory,
// never on a disk, for the moment each exists (a page file is removed as
// soon as it is read; the directory is private to the process's user).
func pageParent() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", ".verifyd-probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return os.TempDir()
}

// Close stops the resident processes and removes their page files. The
// Tesseract can still be used: it then runs one process per call.
func (t *Tesseract) Close() error {
	p := t.residents
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.closed = true
	var all []*resident
	for _, rs := range p.idle {
		all = append(all, rs...)
	}
	p.idle = map[string][]*resident{}
	p.mu.Unlock()
	for _, r := range all {
		r.stop()
	}
	return os.RemoveAll(p.dir)
}

// take returns an idle resident started with args, or a new one when the
// pool has room (stopping an idle one of other arguments to make it), or
// nil when every resident is busy: the caller then runs a process of its
// own.
func (t *Tesseract) take(path string, args []string) (r *resident, p *residents, reused bool, err error) {
	p, err = t.pool()
	if err != nil {
		return nil, nil, false, err
	}
	key := strings.Join(args, "\x00")
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, p, false, nil
	}
	if rs := p.idle[key]; len(rs) > 0 {
		r = rs[len(rs)-1]
		p.idle[key] = rs[:len(rs)-1]
		if r.idle.Stop() {
			r.idle = nil
			p.mu.Unlock()
			return r, p, true, nil
		}
		// Its idle timer fired and is stopping it, but found it gone
		// from the list: it is counted out here.
		p.n--
	}
	var evict *resident
	if p.n >= t.Resident {
		for k, rs := range p.idle {
			if len(rs) > 0 && rs[0].idle.Stop() {
				evict, p.idle[k] = rs[0], rs[1:]
				p.n--
				break
			}
		}
		if evict == nil {
			p.mu.Unlock()
			return nil, p, false, nil
		}
	}
	p.n++
	p.mu.Unlock()
	if evict != nil {
		evict.stop()
	}
	r, err = startResident(path, args, key)
	if err != nil {
		p.mu.Lock()
		p.n--
		p.mu.Unlock()
		return nil, p, false, err
	}
	return r, p, false, nil
}

// give returns r to the pool after a recognition; a resident that failed
// (ok false) is stopped instead.
func (p *residents) give(r *resident, ok bool) {
	p.mu.Lock()
	if !ok || p.closed {
		p.n--
		p.mu.Unlock()
		r.stop()
		return
	}
	r.idle = time.AfterFunc(residentIdle, func() {
		p.mu.Lock()
		rs := p.idle[r.key]
		for i, x := range rs {
			if x == r {
				p.idle[r.key] = append(rs[:i:i], rs[i+1:]...)
				p.n--
				break
			}
		}
		p.mu.Unlock()
		r.stop()
	})
	p.idle[r.key] = append(p.idle[r.key], r)
	p.mu.Unlock()
}

func startResident(path string, args []string, key string) (*resident, error) {
	// Not CommandContext: the process outlives the call that starts it;
	// each recognition kills it on its own context's end (read).
	cmd := exec.Command(path, append([]string{"-", "-", "-c", "stream_filelist=1"}, args...)...)
	cmd.Env = append(cmd.Environ(), "OMP_THREAD_LIMIT=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// Tesseract writes a line per page ("Page 3 : …") and its warnings
	// there: only the last of it is kept, for errors.
	tail := &tailWriter{max: 4096}
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ocr: tesseract: %w", err)
	}
	return &resident{key: key, cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 64<<10), stderr: tail}, nil
}

// stop ends the process: closing its input lets it finish and exit; it
// is killed too, for one busy on a page.
func (r *resident) stop() {
	r.stdin.Close()
	r.cmd.Process.Kill()
	r.cmd.Wait()
}

// read recognises the image in the file named page and returns its TSV
// rows after a header line, killing the process when ctx ends first.
func (r *resident) read(ctx context.Context, page string) ([]byte, error) {
	stop := context.AfterFunc(ctx, func() { r.cmd.Process.Kill() })
	defer stop()
	if _, err := fmt.Fprintf(r.stdin, "%s\n%s\n", page, filepath.Join(filepath.Dir(page), "sentinel.pgm")); err != nil {
		return nil, r.failed(ctx, err)
	}
	var rows bytes.Buffer
	rows.WriteString("level\n") // for parseTSV: rows without a word are TSV too
	// The page's rows begin with its own page row (level 1). What comes
	// before it is the previous sentinel's: blank as it is, single-line
	// mode (PSM 7) reads a word "a" across it, whose rows follow the
	// sentinel's page row and so came first in the next page's reading.
	inPage := false
	for {
		line, err := r.out.ReadBytes('\n')
		if err != nil {
			return nil, r.failed(ctx, err)
		}
		if bytes.HasPrefix(line, []byte("level\t")) {
			continue // the header, once, before the first page
		}
		if isSentinelRow(line) {
			return rows.Bytes(), nil // no page has its size (recognise)
		}
		if !inPage {
			if !bytes.HasPrefix(line, []byte("1\t")) {
				continue
			}
			inPage = true
		}
		rows.Write(line)
	}
}

// failed describes a resident's failure: the context's end, or the
// program's, with what it last wrote to its standard error.
func (r *resident) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("ocr: tesseract (resident): %v: %s", err, strings.TrimSpace(r.stderr.String()))
}

// isSentinelRow reports the page row (level 1) of a sentinel image.
func isSentinelRow(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("1\t")) {
		return false // a word's or a line's row: most of them
	}
	f := strings.Split(strings.TrimRight(string(line), "\r\n"), "\t")
	return len(f) >= 10 && f[0] == "1" && f[8] == strconv.Itoa(sentinelW) && f[9] == strconv.Itoa(sentinelH)
}

// recognise reads each of imgs on a resident started with args, and
// returns each one's TSV rows; ok is false when the caller must run a
// process of its own: the pool had no room, or a resident that had served
// before failed (it may have died meanwhile; a fresh process tells a
// failure of the image from one of the resident).
func (t *Tesseract) recognise(ctx context.Context, path string, args []string, imgs []*image.Gray) ([][]byte, bool, error) {
	for _, img := range imgs {
		if img.Rect.Dx() == sentinelW && img.Rect.Dy() == sentinelH {
			return nil, false, nil // its page row would be taken for the sentinel's
		}
	}
	r, p, reused, err := t.take(path, args)
	if err != nil || r == nil {
		// No room, or no resident could be started (no page directory,
		// a program that will not start): a process of its own, which
		// needs neither and reports the program's failure.
		return nil, false, nil
	}
	out := make([][]byte, len(imgs))
	for i, img := range imgs {
		p.mu.Lock()
		p.seq++
		name := filepath.Join(p.dir, "p"+strconv.Itoa(p.seq)+".pgm")
		p.mu.Unlock()
		if err := writePGM(name, img); err != nil {
			p.give(r, true)
			return nil, false, nil // a full /dev/shm: through a pipe instead
		}
		out[i], err = r.read(ctx, name)
		os.Remove(name)
		if err != nil {
			p.give(r, false)
			if reused && ctx.Err() == nil {
				return nil, false, nil
			}
			return nil, true, err
		}
	}
	p.give(r, true)
	return out, true, nil
}

// writePGM writes img as a binary PGM (P5) file, which Tesseract's image
// library reads without decoding anything.
func writePGM(name string, img *image.Gray) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("ocr: tesseract: %w", err)
	}
	// Row by row from the image: no copy of the whole page first.
	w := bufio.NewWriterSize(f, 64<<10)
	b := img.Bounds()
	fmt.Fprintf(w, "P5\n%d %d\n255\n", b.Dx(), b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		i := img.PixOffset(b.Min.X, y)
		w.Write(img.Pix[i : i+b.Dx()])
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("ocr: tesseract: %w", err)
	}
	return nil
}

func blank(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	return img
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = append(w.b[:0], w.b[len(w.b)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}
