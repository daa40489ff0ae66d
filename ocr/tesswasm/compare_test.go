package tesswasm

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verifyd/verifyd/ocr"
)

// TestCompareNative measures the engine against Debian's tesseract CLI on
// the same rendered 1000×700 page and compares the words. It takes some
// 30 s, so it runs only with VERIFYD_TESSWASM_COMPARE=1:
//
//	VERIFYD_TESSWASM_COMPARE=1 go test ./ocr/tesswasm -run CompareNative -v
func TestCompareNative(t *testing.T) {
	if os.Getenv("VERIFYD_TESSWASM_COMPARE") == "" {
		t.Skip("set VERIFYD_TESSWASM_COMPARE=1 to measure against the tesseract CLI")
	}
	wasm, data := modelFiles(t)
	ctx := context.Background()

	// Compilation: without a cache, into an empty cache, from the cache.
	cache := t.TempDir()
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"no cache", Config{}}, {"cold cache", Config{CacheDir: cache}}, {"warm cache", Config{CacheDir: cache}}} {
		start := time.Now()
		e, err := NewWithConfig(ctx, wasm, data, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("New (%s, %s): %v (compile + instantiate + Init)", e.Build(), c.name, time.Since(start))
		e.Close(ctx)
	}

	e := engine(t)
	img := docImage(t)
	const runs = 5
	opt := ocr.Options{}
	if _, err := e.Words(ctx, img, opt); err != nil { // warm the instance
		t.Fatal(err)
	}
	// Wall time is at the mercy of other processes; CPU time of the thread
	// (Wasm runs on the calling goroutine's thread) much less so.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var wasmTimes, wasmCPU []time.Duration
	var words []ocr.Word
	for range runs {
		start, cpu0 := time.Now(), threadCPU(t)
		var err error
		words, err = e.Words(ctx, img, opt)
		if err != nil {
			t.Fatal(err)
		}
		wasmTimes = append(wasmTimes, time.Since(start))
		wasmCPU = append(wasmCPU, threadCPU(t)-cpu0)
	}
	slices.Sort(wasmTimes)
	slices.Sort(wasmCPU)
	e.mu.Lock()
	for _, in := range e.idle {
		t.Logf("instance linear memory after a page: %d MiB", in.mod.Memory().Size()>>20)
	}
	e.mu.Unlock()
	t.Logf("wasm %s: 1000×700 page, %d words, median %v wall (min %v, max %v), median %v CPU (min %v)", e.Build(), len(words), wasmTimes[runs/2], wasmTimes[0], wasmTimes[runs-1], wasmCPU[runs/2], wasmCPU[0])

	bin, err := exec.LookPath("tesseract")
	if err != nil {
		t.Skip("tesseract CLI not installed")
	}
	dir := t.TempDir()
	pngPath := filepath.Join(dir, "page.png")
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pngPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tiny := filepath.Join(dir, "tiny.png")
	buf.Reset()
	png.Encode(&buf, render(t, 40, 20, 10, 2, 14, 10, []string{"a"}))
	os.WriteFile(tiny, buf.Bytes(), 0o644)

	// The CLI runs with the trained data the engine runs with, and with
	// Debian's (tessdata_fast 4.1.0).
	tessdata := filepath.Join(dir, "tessdata")
	os.Mkdir(tessdata, 0o755)
	plain, err := gunzipMaybe(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tessdata, "eng.traineddata"), plain, 0o644); err != nil {
		t.Fatal(err)
	}
	// native returns the TSV and the median wall and CPU (user+system) times.
	native := func(threads, file string, extra ...string) (string, time.Duration, time.Duration) {
		var times, cpu []time.Duration
		var out []byte
		for range runs {
			cmd := exec.Command(bin, append([]string{file, "-", "--psm", "3", "--oem", "1", "-l", "eng", "-c", "tessedit_create_tsv=1"}, extra...)...)
			cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT="+threads)
			start := time.Now()
			out, err = cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			times = append(times, time.Since(start))
			cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
		slices.Sort(times)
		slices.Sort(cpu)
		return string(out), times[runs/2], cpu[runs/2]
	}
	tsv1, t1, c1 := native("1", pngPath, "--tessdata-dir", tessdata)
	_, tn, cn := native("2", pngPath, "--tessdata-dir", tessdata)
	_, t0, c0 := native("1", tiny, "--tessdata-dir", tessdata)
	_, td, cd := native("1", pngPath)
	t.Logf("native CLI, same trained data: median %v wall / %v CPU with 1 thread, %v / %v with 2 threads; a 40×20 image takes %v / %v (start-up and model load)", t1, c1, tn, cn, t0, c0)
	t.Logf("native CLI, Debian's trained data, 1 thread: %v wall / %v CPU", td, cd)
	t.Logf("ratio wasm/native, 1 thread, CPU: %.2f (%.2f excluding the CLI's start-up); wall: %.2f",
		float64(wasmCPU[runs/2])/float64(c1), float64(wasmCPU[runs/2])/float64(c1-c0), float64(wasmTimes[runs/2])/float64(t1))

	nw, err := parseTSV(tsv1, img.Bounds().Min)
	if err != nil {
		t.Fatal(err)
	}
	join := func(ws []ocr.Word) []string {
		var s []string
		for _, w := range ws {
			s = append(s, w.Text)
		}
		return s
	}
	a, b := join(words), join(nw)
	t.Logf("wasm words: %d, native words: %d", len(a), len(b))
	truth := strings.Fields(strings.Join(docLines, " "))
	t.Logf("truth words recognised exactly: wasm %d/%d, native %d/%d", countIn(truth, a), len(truth), countIn(truth, b), len(truth))
	if !slices.Equal(a, b) {
		for i := 0; i < max(len(a), len(b)); i++ {
			var x, y string
			if i < len(a) {
				x = a[i]
			}
			if i < len(b) {
				y = b[i]
			}
			if x != y {
				t.Logf("differ at word %d: wasm %q native %q", i, x, y)
			}
		}
	} else {
		t.Logf("wasm and native words are identical")
	}
}

// threadCPU returns the CPU time the calling OS thread has used.
func threadCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countIn counts the words of truth found in got (as a multiset).
func countIn(truth, got []string) int {
	m := map[string]int{}
	for _, g := range got {
		m[g]++
	}
	n := 0
	for _, w := range truth {
		if m[w] > 0 {
			m[w]--
			n++
		}
	}
	return n
}

func BenchmarkWordsPage(b *testing.B) {
	e := engine(b)
	img := docImage(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Words(ctx, img, ocr.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
