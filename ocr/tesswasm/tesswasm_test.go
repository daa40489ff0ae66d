package tesswasm

import (
	"context"
	"errors"
	"image"
	"image/draw"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/textimage"
	"github.com/verifyd/verifyd/ocr"
)

// The Wasm and trained-data files come from scripts/tesseract-wasm-fetch,
// into models/tesseract or the directory $VERIFYD_TESSERACT_WASM_DIR.
const dirEnv = "VERIFYD_TESSERACT_WASM_DIR"

func modelDir() string {
	if d := os.Getenv(dirEnv); d != "" {
		return d
	}
	return filepath.Join("..", "..", "models", "tesseract")
}

// modelFiles returns the Wasm build (the SIMD one unless
// VERIFYD_TESSERACT_WASM=tesseract-core-lstm.wasm) and the trained data, or
// skips the test (fails under VERIFYD_TEST_REQUIRE_ALL=1) when absent.
func modelFiles(tb testing.TB) (wasm, data []byte) {
	tb.Helper()
	dir := modelDir()
	name := os.Getenv("VERIFYD_TESSERACT_WASM")
	if name == "" {
		name = "tesseract-core-simd-lstm.wasm"
	}
	var err error
	wasm, err = os.ReadFile(filepath.Join(dir, name))
	if err == nil {
		// VERIFYD_TESSERACT_DATA may name another eng.traineddata (such as
		// Debian's /usr/share/tesseract-ocr/5/tessdata/eng.traineddata).
		dataPath := os.Getenv("VERIFYD_TESSERACT_DATA")
		if dataPath == "" {
			dataPath = filepath.Join(dir, "eng.traineddata.gz")
		}
		data, err = os.ReadFile(dataPath)
	}
	if err != nil {
		msg := "Tesseract Wasm files absent (run scripts/tesseract-wasm-fetch, or set " + dirEnv + "): " + err.Error()
		if os.Getenv("VERIFYD_TEST_REQUIRE_ALL") != "" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return wasm, data
}

var (
	sharedOnce sync.Once
	shared     *Engine
	sharedErr  error
)

// engine returns an engine shared by the package's tests (compiled once,
// with the compilation cache in the user cache directory).
func engine(tb testing.TB) *Engine {
	tb.Helper()
	wasm, data := modelFiles(tb)
	sharedOnce.Do(func() {
		cfg := Config{MaxInstances: 2}
		if d, err := os.UserCacheDir(); err == nil {
			cfg.CacheDir = filepath.Join(d, "verifyd", "wazero")
		}
		shared, sharedErr = NewWithConfig(context.Background(), wasm, data, cfg)
	})
	if sharedErr != nil {
		tb.Fatal(sharedErr)
	}
	return shared
}

// render draws lines of text in Go Regular at size px on a white w×h page,
// starting at (x, y) with the given line spacing.
func render(tb testing.TB, w, h int, size float64, x, y, spacing int, lines []string) *image.Gray {
	tb.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for i, l := range lines {
		if err := textimage.Write(img, size, x, y+i*spacing, l); err != nil {
			tb.Fatal(err)
		}
	}
	return img
}

// docLines is a document-like page of 20 lines for the 1000×700 image.
var docLines = []string{
	"REPUBLIC OF EXAMPLE        IDENTITY CARD",
	"Surname: JOHNSON",
	"Given names: MARGARET ELEANOR",
	"Date of birth: 14 March 1987",
	"Place of birth: Springfield",
	"Nationality: Examplian",
	"Document number: X4829174",
	"Date of issue: 02 June 2021",
	"Date of expiry: 01 June 2031",
	"Issuing authority: Ministry of the Interior",
	"Address: 42 Willow Lane, Riverside",
	"The holder of this card is entitled to travel",
	"within the member states without a passport.",
	"Height: 168 cm   Eyes: green   Sex: F",
	"Signature of the holder appears overleaf.",
	"This document remains the property of the state.",
	"If found, please return it to the nearest office.",
	"Personal number: 870314-2268",
	"Card access number: 558201",
	"Version 3.2 printed on security paper.",
}

func docImage(tb testing.TB) *image.Gray {
	return render(tb, 1000, 700, 22, 40, 50, 32, docLines)
}

func wordSet(words []ocr.Word) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[strings.Trim(w.Text, ".,:;")] = true
	}
	return m
}

func TestWords(t *testing.T) {
	e := engine(t)
	img := render(t, 600, 160, 28, 20, 50, 50, []string{"The quick brown fox", "jumps over 1234 lazy dogs"})
	start := time.Now()
	words, err := e.Words(context.Background(), img, ocr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d words in %v", e.Build(), len(words), time.Since(start))
	got := wordSet(words)
	for _, w := range strings.Fields("The quick brown fox jumps over 1234 lazy dogs") {
		if !got[w] {
			t.Errorf("word %q not recognised; got %+v", w, words)
		}
	}
	for _, w := range words {
		if w.Conf < 0.5 || w.Conf > 1 {
			t.Errorf("word %q: confidence %v", w.Text, w.Conf)
		}
		if !w.Box.In(img.Bounds()) || w.Box.Empty() {
			t.Errorf("word %q: box %v", w.Text, w.Box)
		}
	}
	// Words on one line share (Block, Par, Line), and the two lines differ.
	line := func(text string) [3]int {
		for _, w := range words {
			if strings.Trim(w.Text, ".,") == text {
				return [3]int{w.Block, w.Par, w.Line}
			}
		}
		return [3]int{-1}
	}
	if line("quick") != line("fox") || line("quick") == line("lazy") || line("lazy") != line("dogs") {
		t.Errorf("line numbers: quick %v fox %v lazy %v dogs %v", line("quick"), line("fox"), line("lazy"), line("dogs"))
	}
}

func TestWordsSubImageAndOptions(t *testing.T) {
	e := engine(t)
	page := render(t, 700, 200, 30, 120, 130, 50, []string{"HELLO 2024 WORLD"})
	sub := page.SubImage(image.Rect(100, 90, 600, 150)).(*image.Gray)
	words, err := e.Words(context.Background(), sub, ocr.Options{PSM: 7, Whitelist: "0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	var digits []string
	for _, w := range words {
		digits = append(digits, w.Text)
		if !w.Box.In(sub.Bounds()) {
			t.Errorf("word %q: box %v outside the sub-image %v", w.Text, w.Box, sub.Bounds())
		}
	}
	if !strings.Contains(strings.Join(digits, " "), "2024") {
		t.Errorf("whitelisted digits: got %q", digits)
	}
	// The whitelist does not stick to the next call.
	words, err = e.Words(context.Background(), sub, ocr.Options{PSM: 7})
	if err != nil {
		t.Fatal(err)
	}
	if got := wordSet(words); !got["HELLO"] || !got["WORLD"] {
		t.Errorf("without whitelist: got %+v", words)
	}
}

func TestWordsConcurrentAndCancel(t *testing.T) {
	e := engine(t)
	img := render(t, 500, 100, 28, 20, 60, 40, []string{"Concurrent calls work"})
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			words, err := e.Words(context.Background(), img, ocr.Options{PSM: 7})
			if err == nil && !wordSet(words)["Concurrent"] {
				t.Errorf("got %+v", words)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A page takes over a second; the deadline ends the call during
	// recognition, within a word of it.
	page := docImage(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := e.Words(ctx, page, ocr.Options{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Words with a 300 ms deadline: err = %v", err)
	}
	if d := time.Since(start); d > 800*time.Millisecond {
		t.Errorf("Words with a 300 ms deadline took %v", d)
	}
	// The engine still works after a cancelled call.
	if words, err := e.Words(context.Background(), img, ocr.Options{PSM: 7}); err != nil || !wordSet(words)["work"] {
		t.Errorf("after cancel: %v %+v", err, words)
	}
}

func TestUnsupportedWasm(t *testing.T) {
	if _, err := New(context.Background(), []byte("\x00asm\x01\x00\x00\x00"), []byte("x")); err == nil || !strings.Contains(err.Error(), "unsupported") {
		t.Errorf("err = %v", err)
	}
}

func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t100\t50\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t10\t20\t30\t15\t96.5\tHello\n" +
		"5\t1\t1\t1\t1\t2\t45\t20\t30\t15\t12\t \n" +
		"5\t1\t1\t1\t2\t1\t10\t40\t30\t15\t-1\tworld\n"
	words, err := parseTSV(tsv, image.Pt(5, 7))
	if err != nil {
		t.Fatal(err)
	}
	want := []ocr.Word{
		{Text: "Hello", Conf: 0.965, Box: image.Rect(15, 27, 45, 42), Block: 1, Par: 1, Line: 1},
		{Text: "world", Conf: 0, Box: image.Rect(15, 47, 45, 62), Block: 1, Par: 1, Line: 2},
	}
	if len(words) != len(want) {
		t.Fatalf("got %+v", words)
	}
	for i := range want {
		if words[i] != want[i] {
			t.Errorf("word %d: got %+v, want %+v", i, words[i], want[i])
		}
	}
}
