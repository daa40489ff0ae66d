// Package tesswasm runs Tesseract's WebAssembly build from npm
// (tesseract.js-core, the LSTM-only builds tesseract-core-lstm.wasm and
// tesseract-core-simd-lstm.wasm) in pure Go with wazero, as an ocr.Engine.
//
// The Wasm module is an Emscripten build whose C++ API is reached through
// the plain C functions of Emscripten's WebIDL binder
// (emscripten_bind_TessBaseAPI_*); the export and import names are
// minified, so this package knows them for exactly one release of
// tesseract.js-core (CoreVersion) and refuses other Wasm files. The
// JavaScript glue's host side (an in-memory file system holding the trained
// data, clocks, heap growth, setjmp/longjmp) is reimplemented in host.go.
//
// scripts/tesseract-wasm-fetch downloads and verifies the pinned files.
//
// Speed (AMD EPYC, one thread, 1000×700 rendered page of 108 words, see
// compare_test.go): the SIMD build recognises it in about 1.2 s of CPU with
// the 4.0.0_best_int data, 0.73 s with Debian's tessdata_fast 4.1.0 data,
// 2.4× and 2.0× the CPU time of Debian's tesseract 5.3.0 CLI with the same
// data (about 2.6–3× once the CLI's 90 ms start-up is set aside), and the
// words are identical. The non-SIMD build is about 5 times slower (6.5 s).
// Compiling takes 1.5–3.5 s; with Config.CacheDir a later New takes about
// 0.1–0.4 s.
package tesswasm

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/verifyd/verifyd/ocr"
)

// Versions of the npm packages the engine is built for; keep in step with
// scripts/tesseract-wasm-fetch.
const (
	CoreVersion = "tesseract.js-core@7.0.0"
	DataVersion = "@tesseract.js-data/eng@1.0.0" // 4.0.0_best_int/eng.traineddata.gz
)

// Files (as named in the npm package) and their SHA-256, the builds whose
// minified names exports below describe.
var knownBuilds = map[string]string{
	"34e8d50cac216427d86bf397d610fdd9f49492539bbcdfbfccc4eda20c810bea": "tesseract-core-simd-lstm.wasm",
	"66b17df6e20c5329a17ffa9c202a47eaa3e32500b253d4c7f38e7f2bc01457c3": "tesseract-core-lstm.wasm",
}

// Minified export names of the two LSTM builds of tesseract.js-core 7.0.0,
// from the glue's `e._emscripten_bind_... = c.xx` assignments.
const (
	exCtors           = "U"  // __wasm_call_ctors
	exNew             = "Kc" // TessBaseAPI_TessBaseAPI_0
	exInit3           = "ad" // TessBaseAPI_Init_3(self, datapath, lang, oem)
	exSetPSM          = "gd" // TessBaseAPI_SetPageSegMode_1
	exSetVariable     = "Tc" // TessBaseAPI_SetVariable_2
	exSetImage        = "ld" // TessBaseAPI_SetImage_5(self, data, w, h, bpp, bpl, exif, angle f64)
	exRecognize       = "Ed" // TessBaseAPI_Recognize_1(self, monitor)
	exGetTSV          = "Ld" // TessBaseAPI_GetTSVText_1(self, page)
	exClear           = "Rd" // TessBaseAPI_Clear_0
	exEnd             = "Sd" // TessBaseAPI_End_0
	exDestroy         = "$d" // TessBaseAPI___destroy___0
	exFree            = "wf" // free
	exMalloc          = "xf" // malloc
	exMemalign        = "zf" // emscripten_builtin_memalign
	exSetThrew        = "Af" // setThrew
	exStackRestore    = "Bf" // _emscripten_stack_restore
	exStackGetCurrent = "Cf" // emscripten_stack_get_current
)

const (
	oemLSTMOnly = 1
	psmAuto     = 3
	dataDir     = "/tessdata"
	lang        = "eng"
)

// Config tunes an Engine.
type Config struct {
	// CacheDir, when not empty, is a directory for wazero's compilation
	// cache: compiling the module takes seconds, loading it from the cache
	// a fraction of that.
	CacheDir string
	// MaxInstances bounds the Wasm instances (each a TessBaseAPI with the
	// trained data loaded, about 20 MB of linear memory after a page) that
	// serve concurrent Words calls; 0 means 1: calls are serialised.
	MaxInstances int
}

// Engine recognises text with Tesseract in Wasm. It is safe for concurrent
// use: each call takes one of at most Config.MaxInstances instances, which
// are created on demand and reused.
type Engine struct {
	rt       wazero.Runtime
	cache    wazero.CompilationCache
	compiled wazero.CompiledModule
	data     []byte // eng.traineddata, decompressed
	build    string

	slots chan struct{}
	mu    sync.Mutex
	idle  []*instance
}

var _ ocr.Engine = (*Engine)(nil)

// New compiles wasmBytes (tesseract-core-simd-lstm.wasm or
// tesseract-core-lstm.wasm of CoreVersion), loads trainedData
// (eng.traineddata, gzip-compressed or not) into one instance, and returns
// an Engine with at most one instance and no compilation cache.
func New(ctx context.Context, wasmBytes, trainedData []byte) (*Engine, error) {
	return NewWithConfig(ctx, wasmBytes, trainedData, Config{})
}

// NewWithConfig is New with a Config.
func NewWithConfig(ctx context.Context, wasmBytes, trainedData []byte, cfg Config) (*Engine, error) {
	sum := sha256.Sum256(wasmBytes)
	build, ok := knownBuilds[hex.EncodeToString(sum[:])]
	if !ok {
		return nil, fmt.Errorf("tesswasm: unsupported Wasm file (sha256 %x): want tesseract-core-simd-lstm.wasm or tesseract-core-lstm.wasm of %s", sum, CoreVersion)
	}
	data, err := gunzipMaybe(trainedData)
	if err != nil {
		return nil, fmt.Errorf("tesswasm: trained data: %w", err)
	}
	if cfg.MaxInstances <= 0 {
		cfg.MaxInstances = 1
	}
	// Not WithCloseOnContextDone: see the clock (host "M") and monitorSize.
	rc := wazero.NewRuntimeConfig()
	e := &Engine{data: data, build: build, slots: make(chan struct{}, cfg.MaxInstances)}
	if cfg.CacheDir != "" {
		e.cache, err = wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("tesswasm: compilation cache: %w", err)
		}
		rc = rc.WithCompilationCache(e.cache)
	}
	e.rt = wazero.NewRuntimeWithConfig(ctx, rc)
	fail := func(err error) (*Engine, error) {
		e.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	e.compiled, err = e.rt.CompileModule(ctx, wasmBytes)
	if err != nil {
		return fail(fmt.Errorf("tesswasm: compile %s: %w", build, err))
	}
	if err := instantiateHost(ctx, e.rt, e.compiled); err != nil {
		return fail(err)
	}
	in, err := e.newInstance(ctx)
	if err != nil {
		return fail(err)
	}
	e.idle = append(e.idle, in)
	return e, nil
}

// Build names the Wasm file the engine runs.
func (e *Engine) Build() string { return e.build }

// Close releases the engine's instances and runtime. Calls in progress fail.
func (e *Engine) Close(ctx context.Context) error {
	var err error
	if e.rt != nil {
		err = e.rt.Close(ctx)
	}
	if e.cache != nil {
		err = errors.Join(err, e.cache.Close(ctx))
	}
	return err
}

func gunzipMaybe(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		if len(b) == 0 {
			return nil, errors.New("empty")
		}
		return b, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// instance is one Wasm instance with an initialised TessBaseAPI.
type instance struct {
	st  *instState
	mod api.Module
	api uint64 // TessBaseAPI*

	setPSM, setVariable, setImage, recognize, getTSV, clear, malloc, free api.Function

	psm       int
	whitelist string
	// threshold is the thresholding_method set (0, Tesseract's default, until changed).
	threshold int
	// dpi is the user_defined_dpi set (0, none, until changed).
	dpi     int
	monitor uint64 // ETEXT_DESC* passed to Recognize
}

// ETEXT_DESC (tesseract/ocrclass.h) on wasm32: int16 count, int16 progress,
// int8 more_to_come, ocr_alive, err_code, then the pointers cancel@8,
// progress_callback@12, progress_callback2@16, cancel_this@20, the
// steady_clock time_point end_time (int64 ns)@24 and EANYCODE_CHAR text[1].
// A zeroed one with end_time far in the future makes Recognize check its
// deadline, reading the clock, once a word, without ever reaching it; the
// clock then ends calls whose context is done.
const (
	monitorSize    = 64
	monitorEndTime = 24
)

func (e *Engine) newInstance(ctx context.Context) (*instance, error) {
	st := &instState{fs: newFS()}
	ictx := context.WithValue(ctx, stateKey{}, st)
	mod, err := e.rt.InstantiateModule(ictx, e.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return nil, fmt.Errorf("tesswasm: instantiate: %w", err)
	}
	st.mod = mod
	in := &instance{st: st, mod: mod, psm: -1}
	fn := func(name string) api.Function {
		f := mod.ExportedFunction(name)
		if f == nil && err == nil {
			err = fmt.Errorf("tesswasm: export %q missing", name)
		}
		return f
	}
	ctors := fn(exCtors)
	newAPI, init3 := fn(exNew), fn(exInit3)
	in.setPSM, in.setVariable, in.setImage = fn(exSetPSM), fn(exSetVariable), fn(exSetImage)
	in.recognize, in.getTSV, in.clear = fn(exRecognize), fn(exGetTSV), fn(exClear)
	in.malloc, in.free = fn(exMalloc), fn(exFree)
	st.memalign, st.setThrew = fn(exMemalign), fn(exSetThrew)
	st.stackRestore, st.stackSave = fn(exStackRestore), fn(exStackGetCurrent)
	if err != nil {
		mod.Close(ctx)
		return nil, err
	}
	st.fs.create(dataDir+"/"+lang+".traineddata", e.data)

	err = in.run(ctx, func(ctx context.Context) error {
		if _, err := ctors.Call(ctx); err != nil {
			return err
		}
		r, err := newAPI.Call(ctx)
		if err != nil {
			return err
		}
		in.api = r[0]
		dir, err := in.cstr(ctx, dataDir)
		if err != nil {
			return err
		}
		defer in.free.Call(ctx, dir)
		l, err := in.cstr(ctx, lang)
		if err != nil {
			return err
		}
		defer in.free.Call(ctx, l)
		r, err = in.malloc.Call(ctx, monitorSize)
		if err != nil {
			return err
		}
		in.monitor = r[0]
		mem := in.mod.Memory()
		if in.monitor == 0 || !mem.Write(uint32(in.monitor), make([]byte, monitorSize)) ||
			!mem.WriteUint64Le(uint32(in.monitor)+monitorEndTime, math.MaxInt64) {
			return errors.New("cannot allocate the progress monitor")
		}
		r, err = init3.Call(ctx, in.api, dir, l, oemLSTMOnly)
		if err != nil {
			return err
		}
		if int32(r[0]) != 0 {
			return fmt.Errorf("TessBaseAPI::Init failed (%d)", int32(r[0]))
		}
		return in.setVar(ctx, "tessedit_do_invert", ocr.DoInvert)
	})
	if err != nil {
		mod.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	// Init keeps its own copy; the file system need not.
	delete(st.fs.files, dataDir+"/"+lang+".traineddata")
	return in, nil
}

// run calls f with the caller's context carrying the instance state and
// turns a failure into an error with the engine's output.
func (in *instance) run(ctx context.Context, f func(ctx context.Context) error) (err error) {
	ctx = context.WithValue(ctx, stateKey{}, in.st)
	if err = f(ctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("tesswasm: %w", ctx.Err())
		}
		if out := in.st.fs.log.String(); out != "" {
			err = fmt.Errorf("%w; engine output: %s", err, out)
		}
		return fmt.Errorf("tesswasm: %w", err)
	}
	return nil
}

// cstr copies s into a malloc'd NUL-terminated string.
func (in *instance) cstr(ctx context.Context, s string) (uint64, error) {
	r, err := in.malloc.Call(ctx, uint64(len(s)+1))
	if err != nil {
		return 0, err
	}
	if r[0] == 0 {
		return 0, errors.New("malloc failed")
	}
	if !in.mod.Memory().Write(uint32(r[0]), append([]byte(s), 0)) {
		return 0, errors.New("string out of memory range")
	}
	return r[0], nil
}

// goString reads the NUL-terminated string at p.
func (in *instance) goString(p uint32) (string, error) {
	mem := in.mod.Memory()
	b, ok := mem.Read(p, mem.Size()-p)
	if !ok {
		return "", errors.New("string out of memory range")
	}
	n := bytes.IndexByte(b, 0)
	if n < 0 {
		return "", errors.New("unterminated string")
	}
	return string(b[:n]), nil
}

func (e *Engine) acquire(ctx context.Context) (*instance, error) {
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	e.mu.Lock()
	if n := len(e.idle); n > 0 {
		in := e.idle[n-1]
		e.idle = e.idle[:n-1]
		e.mu.Unlock()
		return in, nil
	}
	e.mu.Unlock()
	in, err := e.newInstance(ctx)
	if err != nil {
		<-e.slots
		return nil, err
	}
	return in, nil
}

func (e *Engine) release(in *instance, ok bool) {
	if ok {
		e.mu.Lock()
		e.idle = append(e.idle, in)
		e.mu.Unlock()
	} else {
		// A failed or cancelled call may leave the instance in any state.
		in.mod.Close(context.Background())
	}
	<-e.slots
}

// Words recognises the words in img. Boxes are in img's coordinates.
// opt.PSM 0 means 3 (automatic layout analysis without orientation
// detection, which this LSTM-only build lacks). A done ctx ends the call
// while words are recognised (checked once a word) but not during layout
// analysis (a fraction of the time); the instance is then discarded.
func (e *Engine) Words(ctx context.Context, img *image.Gray, opt ocr.Options) ([]ocr.Word, error) {
	b := img.Bounds()
	if b.Empty() {
		return nil, nil
	}
	psm := opt.PSM
	if psm == 0 {
		psm = psmAuto
	}
	if psm < 1 || psm > 13 {
		return nil, fmt.Errorf("tesswasm: page segmentation mode %d not supported", opt.PSM)
	}
	in, err := e.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("tesswasm: %w", err)
	}
	var tsv string
	err = in.run(ctx, func(ctx context.Context) error {
		var err error
		tsv, err = in.words(ctx, img, psm, opt.Whitelist, opt.Threshold, opt.DPI)
		return err
	})
	e.release(in, err == nil)
	if err != nil {
		return nil, err
	}
	return parseTSV(tsv, b.Min)
}

func (in *instance) words(ctx context.Context, img *image.Gray, psm int, whitelist string, threshold, dpi int) (string, error) {
	if dpi != in.dpi {
		// What the program's --dpi sets; 0 restores "none given".
		if err := in.setVar(ctx, "user_defined_dpi", strconv.Itoa(dpi)); err != nil {
			return "", err
		}
		in.dpi = dpi
	}
	if threshold != in.threshold {
		if err := in.setVar(ctx, "thresholding_method", strconv.Itoa(threshold)); err != nil {
			return "", err
		}
		in.threshold = threshold
	}
	if psm != in.psm {
		if _, err := in.setPSM.Call(ctx, in.api, uint64(psm)); err != nil {
			return "", err
		}
		in.psm = psm
	}
	if whitelist != in.whitelist {
		if err := in.setVar(ctx, "tessedit_char_whitelist", whitelist); err != nil {
			return "", err
		}
		in.whitelist = whitelist
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	r, err := in.malloc.Call(ctx, uint64(w*h))
	if err != nil {
		return "", err
	}
	if r[0] == 0 {
		return "", errors.New("malloc failed for the image")
	}
	p := uint32(r[0])
	defer in.free.Call(ctx, uint64(p))
	dst, ok := in.mod.Memory().Read(p, uint32(w*h))
	if !ok {
		return "", errors.New("image buffer out of memory range")
	}
	for y := 0; y < h; y++ {
		o := img.PixOffset(b.Min.X, b.Min.Y+y)
		copy(dst[y*w:(y+1)*w], img.Pix[o:o+w])
	}
	// SetImage copies the pixels into a Pix; exif orientation 1 is upright.
	if _, err := in.setImage.Call(ctx, in.api, uint64(p), uint64(w), uint64(h), 1, uint64(w), 1, math.Float64bits(0)); err != nil {
		return "", err
	}
	defer in.clear.Call(ctx, in.api)
	r, err = in.recognize.Call(ctx, in.api, in.monitor)
	if err != nil {
		return "", err
	}
	if int32(r[0]) != 0 {
		return "", fmt.Errorf("Recognize failed (%d)", int32(r[0]))
	}
	r, err = in.getTSV.Call(ctx, in.api, 0)
	if err != nil {
		return "", err
	}
	if r[0] == 0 {
		return "", nil
	}
	defer in.free.Call(ctx, r[0])
	return in.goString(uint32(r[0]))
}

func (in *instance) setVar(ctx context.Context, name, value string) error {
	n, err := in.cstr(ctx, name)
	if err != nil {
		return err
	}
	defer in.free.Call(ctx, n)
	v, err := in.cstr(ctx, value)
	if err != nil {
		return err
	}
	defer in.free.Call(ctx, v)
	r, err := in.setVariable.Call(ctx, in.api, n, v)
	if err != nil {
		return err
	}
	if r[0] == 0 {
		return fmt.Errorf("SetVariable(%s) refused", name)
	}
	return nil
}

// parseTSV returns the words (level 5 rows) of Tesseract's TSV output,
// offsetting boxes by off.
func parseTSV(tsv string, off image.Point) ([]ocr.Word, error) {
	var words []ocr.Word
	for line := range strings.SplitSeq(tsv, "\n") {
		f := strings.Split(strings.TrimRight(line, "\r"), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		var n [9]int
		for i := range n {
			v, err := strconv.Atoi(f[1+i])
			if err != nil {
				return nil, fmt.Errorf("tesswasm: bad TSV row %q", line)
			}
			n[i] = v
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			return nil, fmt.Errorf("tesswasm: bad TSV confidence in %q", line)
		}
		text := strings.TrimSpace(strings.Join(f[11:], "\t"))
		if text == "" {
			continue
		}
		x, y, w, h := n[5], n[6], n[7], n[8]
		words = append(words, ocr.Word{
			Text:  text,
			Conf:  min(max(conf/100, 0), 1),
			Box:   image.Rect(x, y, x+w, y+h).Add(off),
			Block: n[1], Par: n[2], Line: n[3],
		})
	}
	return words, nil
}
