package ocr_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/ocr"
)

// residentTesseract returns a Tesseract keeping up to n programs running,
// stopped at the test's end, or skips the test without the program.
func residentTesseract(t *testing.T, n int) *ocr.Tesseract {
	t.Helper()
	tess := &ocr.Tesseract{Resident: n}
	if _, err := tess.Available(context.Background()); err != nil {
		testdb.Skip(t, err.Error())
	}
	t.Cleanup(func() { tess.Close() })
	return tess
}

// TestTesseractResident: a program kept running reads every page as a
// program started for it does, word for word — with each set of options
// the document readings use, and single-line mode without a whitelist,
// which reads a word "a" on the blank sentinel that used to begin the next
// page's words —, pages read one after another on the same process,
// blank pages and sub-images included — and the pool keeps at
// most its size of programs, reusing them.
func TestTesseractResident(t *testing.T) {
	once := &ocr.Tesseract{}
	if _, err := once.Available(context.Background()); err != nil {
		testdb.Skip(t, err.Error())
	}
	tess := residentTesseract(t, 2)
	full := page(t, image.Point{}, 900, 300, 40, 3, "DATE OF BIRTH", "23 AUG 1974")
	imgs := []*image.Gray{
		page(t, image.Point{}, 601, 151, 48, 1, "MULLER"),
		page(t, image.Point{}, 333, 97, 30, 0),
		full.SubImage(image.Rect(0, 100, 700, 300)).(*image.Gray),
		page(t, image.Pt(40, 25), 777, 201, 36, 4, "C01X00T47", "12.03.2031"),
		page(t, image.Point{}, 1200, 500, 44, 5, "SURNAME / NOM", "ROSSI", "DATE OF EXPIRY 01.02.2030"),
	}
	ctx := context.Background()
	wantOf := make([][]ocr.Word, len(imgs))
	opts := []ocr.Options{{PSM: 11, Threshold: 2, DPI: 300}, {PSM: 6, Threshold: 2, DPI: 300}, {PSM: 11, DPI: 300}, {PSM: 6, DPI: 300},
		{PSM: 7, Whitelist: "0123456789<", DPI: 300}, {PSM: 7, DPI: 300}}
	for _, opt := range opts {
		for i, img := range imgs {
			want, err := once.Words(ctx, img, opt)
			if err != nil {
				t.Fatal(err)
			}
			// Twice: the second time on the program the first started.
			for round := range 2 {
				got, err := tess.Words(ctx, img, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%+v, page %d, reading %d: resident read %+v; a program of its own %+v", opt, i, round, got, want)
				}
			}
			wantOf[i] = want
		}
		pages, err := tess.WordsOfPages(ctx, imgs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pages, wantOf) {
			t.Errorf("%+v, pages read together: %+v, want %+v", opt, pages, wantOf)
		}
		if pids, n := tess.ResidentPIDs(); n > 2 || len(pids) != n {
			t.Fatalf("%+v: %d programs running, %d idle; want at most 2, all idle", opt, n, len(pids))
		}
	}
	before, _ := tess.ResidentPIDs()
	if _, err := tess.Words(ctx, imgs[0], opts[len(opts)-1]); err != nil {
		t.Fatal(err)
	}
	after, _ := tess.ResidentPIDs()
	slices.Sort(before)
	slices.Sort(after)
	if len(before) != 2 || !reflect.DeepEqual(before, after) {
		t.Errorf("programs %v before a reading with the last options, %v after: not reused", before, after)
	}
}

// TestTesseractResidentFailures: a resident program that died while idle
// costs nothing (the call runs a program of its own and succeeds), one
// whose context ends is killed and not kept, and Close stops them all and
// removes their page files.
func TestTesseractResidentFailures(t *testing.T) {
	tess := residentTesseract(t, 2)
	ctx := context.Background()
	img := page(t, image.Point{}, 700, 200, 40, 2, "23 AUG 1974")
	opt := ocr.Options{PSM: 6, DPI: 300}
	want, err := tess.Words(ctx, img, opt)
	if err != nil || len(want) == 0 {
		t.Fatalf("%v, %v", want, err)
	}
	pids, _ := tess.ResidentPIDs()
	if len(pids) != 1 {
		t.Fatalf("idle programs %v, want one", pids)
	}
	if proc, err := os.FindProcess(pids[0]); err != nil || proc.Kill() != nil {
		t.Fatalf("killing resident %d: %v", pids[0], err)
	}
	time.Sleep(50 * time.Millisecond)
	got, err := tess.Words(ctx, img, opt)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after the resident died: %v, %v; want %v", got, err, want)
	}
	if _, n := tess.ResidentPIDs(); n != 0 {
		t.Errorf("%d programs counted after the dead one was dropped, want 0", n)
	}
	// Started afresh on the next call.
	if _, err := tess.Words(ctx, img, opt); err != nil {
		t.Fatal(err)
	}
	if pids, n := tess.ResidentPIDs(); n != 1 || len(pids) != 1 {
		t.Fatalf("%d running, idle %v: want one", n, pids)
	}

	big := page(t, image.Point{}, 3000, 2400, 40, 7, "A PAGE THAT TAKES A WHILE", "TO READ 0123456789", "AND MORE LINES")
	short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if _, err := tess.Words(short, big, ocr.Options{PSM: 11, DPI: 300}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a reading past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if pids, n := tess.ResidentPIDs(); n != 1 || len(pids) != 1 {
		t.Errorf("after a cancelled reading: %d running, idle %v; want only the earlier one", n, pids)
	}

	pids, _ = tess.ResidentPIDs()
	dir := tess.ResidentDir()
	// Pages are a person's data: in memory where Linux offers it.
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() && !strings.HasPrefix(dir, "/dev/shm/") {
		t.Errorf("page files in %s, not in /dev/shm", dir)
	}
	if err := tess.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("page files' directory %s after Close: %v", dir, err)
	}
	if running(pids[0]) {
		t.Errorf("resident %d still running after Close", pids[0])
	}
	// Still usable, a program per call.
	if got, err := tess.Words(ctx, img, opt); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after Close: %v, %v", got, err)
	}
}

// TestTesseractResidentConcurrent: readings from several goroutines at
// once, with more sets of options than residents, each get their own
// page's words (a resident serves one reading at a time; the others find
// another, start one, or run a program of their own), and afterwards no
// more programs run than the pool's size.
func TestTesseractResidentConcurrent(t *testing.T) {
	tess := residentTesseract(t, 2)
	ctx := context.Background()
	imgs := []*image.Gray{
		page(t, image.Point{}, 700, 200, 40, 2, "23 AUG 1974"),
		page(t, image.Point{}, 700, 200, 40, 3, "ERIKSSON"),
		page(t, image.Point{}, 700, 200, 40, 4, "C01X00T47"),
	}
	opts := []ocr.Options{{PSM: 6, DPI: 300}, {PSM: 11, Threshold: 2, DPI: 300}, {PSM: 7, DPI: 300}}
	want := make([][][]ocr.Word, len(imgs))
	for i, img := range imgs {
		for _, opt := range opts {
			w, err := (&ocr.Tesseract{}).Words(ctx, img, opt)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = append(want[i], w)
		}
	}
	errs := make(chan error, 24)
	for g := range 6 {
		go func() {
			for k := range 4 {
				i, o := (g+k)%len(imgs), (g*k+g)%len(opts)
				got, err := tess.Words(ctx, imgs[i], opts[o])
				if err == nil && !reflect.DeepEqual(got, want[i][o]) {
					err = fmt.Errorf("page %d, options %+v: %+v, want %+v", i, opts[o], got, want[i][o])
				}
				errs <- err
			}
		}()
	}
	for range 24 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if pids, n := tess.ResidentPIDs(); n == 0 || n > 2 || len(pids) != n {
		t.Errorf("%d programs running, %d idle, after the readings: want 1 or 2, all idle", n, len(pids))
	}
}

// running reports whether process pid exists (signal 0 sends nothing).
func running(pid int) bool {
	proc, err := os.FindProcess(pid)
	return err == nil && proc.Signal(syscall.Signal(0)) == nil
}

// TestTesseractResidentStalePages: the page directory a process killed
// while reading left behind (a page of a person's document in it) is
// removed by the next process's first resident; another running
// process's directory is kept.
func TestTesseractResidentStalePages(t *testing.T) {
	tess := residentTesseract(t, 1)
	// A process that ran and is gone: its id is free.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true program:", err)
	}
	parent := filepath.Dir(func() string {
		probe := &ocr.Tesseract{Resident: 1}
		defer probe.Close()
		if _, err := probe.Words(context.Background(), page(t, image.Point{}, 200, 60, 30, 0, "A"), ocr.Options{PSM: 7}); err != nil {
			t.Fatal(err)
		}
		return probe.ResidentDir()
	}())
	stale := filepath.Join(parent, fmt.Sprintf("verifyd-tesseract-%d-x", gone.Process.Pid))
	live := filepath.Join(parent, fmt.Sprintf("verifyd-tesseract-%d-y", os.Getppid()))
	for _, d := range []string{stale, live} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "p1.pgm"), []byte("P5\n1 1\n255\n\xff"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(stale); os.RemoveAll(live) })
	if _, err := tess.Words(context.Background(), page(t, image.Point{}, 200, 60, 30, 0, "B"), ocr.Options{PSM: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a gone process's page directory %s: %v, want removed", stale, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a running process's page directory %s: %v, want kept", live, err)
	}
}
