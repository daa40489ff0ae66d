package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/tfjs"
	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// fakePackage builds an npm tarball holding the given model files in
// package/model/ plus some other files, and returns it with the pinned file
// list.
func fakePackage(t *testing.T, models map[string]string) ([]byte, []modelFile) {
	return fakePackageIn(t, "package/model/", models)
}

// fakePackageIn is fakePackage with the model files in tarDir.
func fakePackageIn(t *testing.T, tarDir string, models map[string]string) ([]byte, []modelFile) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(name, body string) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	add("package/package.json", `{"name":"x"}`)
	add("package/demo/sample1.jpg", "not a model")
	var files []modelFile
	for name, body := range models {
		add(tarDir+name, body)
		sum := sha256.Sum256([]byte(body))
		files = append(files, modelFile{Name: name, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
	}
	add(tarDir+"extra.bin", "not pinned, not extracted")
	tw.Close()
	gz.Close()
	return buf.Bytes(), files
}

func sri(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// fakeRegistry serves one package version's metadata and tarball.
func fakeRegistry(t *testing.T, tarball []byte, integrity string) *httptest.Server {
	t.Helper()
	return fakeRegistryOf(t, map[string]fakeDist{"pkg": {tarball, integrity}})
}

// fakeDist is a tarball and the integrity the registry lists for it.
type fakeDist struct {
	tarball   []byte
	integrity string
}

// fakeRegistryOf serves version 1.2.3 of the packages @scope/NAME.
func fakeRegistryOf(t *testing.T, pkgs map[string]fakeDist) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath()
		for name, d := range pkgs {
			switch p {
			case "/@scope%2F" + name + "/1.2.3", "/@scope%2f" + name + "/1.2.3":
				json.NewEncoder(w).Encode(map[string]any{"name": "@scope/" + name, "version": "1.2.3",
					"dist": map[string]string{"tarball": srv.URL + "/@scope/" + name + "/-/" + name + "-1.2.3.tgz", "integrity": d.integrity}})
				return
			case "/@scope/" + name + "/-/" + name + "-1.2.3.tgz":
				w.Write(d.tarball)
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchModels(t *testing.T) {
	ctx := context.Background()
	tgz, files := fakePackage(t, map[string]string{"a-weights_manifest.json": "[]", "a.bin": "\x00\x01\x02"})
	srv := fakeRegistry(t, tgz, sri(tgz))
	src := modelSource{registry: srv.URL, pkg: "@scope/pkg", version: "1.2.3", integrity: sri(tgz), tarDir: "package/model/", files: files}

	dir := filepath.Join(t.TempDir(), "models")
	n, err := fetchModels(ctx, srv.Client(), src, dir, nil)
	if err != nil || n != 2 {
		t.Fatalf("fetch: n=%d err=%v", n, err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "a-weights_manifest.json a.bin" {
		t.Errorf("directory holds %v, want only the two pinned model files", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.bin")); string(b) != "\x00\x01\x02" {
		t.Errorf("a.bin = %q", b)
	}

	// A tarball whose hash is not the pinned one is refused, whatever the
	// registry says.
	other := append([]byte(nil), tgz...)
	other[len(other)-1] ^= 1
	bad := fakeRegistry(t, other, sri(tgz))
	src.registry = bad.URL
	if _, err := fetchModels(ctx, bad.Client(), src, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("tampered tarball: %v", err)
	}
	// So is a registry listing another integrity for the version.
	lying := fakeRegistry(t, other, sri(other))
	src.registry = lying.URL
	if _, err := fetchModels(ctx, lying.Client(), src, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Errorf("registry with another integrity: %v", err)
	}
	// A model file that is not the pinned one is refused and not written.
	src.registry = srv.URL
	src.files = append([]modelFile(nil), files...)
	for i := range src.files {
		if src.files[i].Name == "a.bin" {
			src.files[i].SHA256 = strings.Repeat("0", 64)
		}
	}
	empty := t.TempDir()
	if _, err := fetchModels(ctx, srv.Client(), src, empty, nil); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("model file with another hash: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "a.bin")); err == nil {
		t.Error("a.bin written despite the hash mismatch")
	}
	// A pinned file the tarball lacks is an error.
	src.files = append(files, modelFile{Name: "missing.bin", Size: 1, SHA256: strings.Repeat("0", 64)})
	if _, err := fetchModels(ctx, srv.Client(), src, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "missing.bin") {
		t.Errorf("missing file: %v", err)
	}
}

func TestModelsCheckCommand(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"models", "check", "--dir", dir}, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "verifyd models fetch") {
		t.Errorf("check of an empty directory: %v", err)
	}
}

// TestModelSourcesPinned checks what `models fetch` installs: face-api's
// model/ directory and, from human, exactly the four liveness files of its
// models/ directory.
func TestModelSourcesPinned(t *testing.T) {
	srcs := modelSources("https://registry.example")
	if len(srcs) != 4 {
		t.Fatalf("%d model sources, want 4", len(srcs))
	}
	face, live := srcs[0], srcs[1]
	// Tesseract's WebAssembly build and data, into models/tesseract where
	// tesswasm.Load looks: exactly the builds tesswasm accepts.
	for i, want := range []struct{ pkg, version, integrity, tarDir, files string }{
		{"tesseract.js-core", "7.0.0", "sha512-WnNH518NzmbSq9zgTPeoF8c+xmilS8rFIl1YKbk/ptuuc7p6cLNELNuPAzcmsYw450ca6bLa8j3t0VAtq435Vw==",
			"package/", "tesseract-core-simd-lstm.wasm tesseract-core-lstm.wasm LICENSE"},
		{"@tesseract.js-data/eng", "1.0.0", "sha512-mbTumm6KQPUHyzTPQaF3ObXYnx0SqqfV2nabqFVQBwD6Kl7PhGSLSzOlfFTWy0P3BjghaSKA2W9GB19Jk+ZcTg==",
			"package/4.0.0_best_int/", "eng.traineddata.gz"},
	} {
		src := srcs[2+i]
		var names []string
		for _, f := range src.files {
			names = append(names, f.Name)
		}
		if src.pkg != want.pkg || src.version != want.version || src.integrity != want.integrity || src.tarDir != want.tarDir ||
			src.subdir != "tesseract" || !src.ocr || strings.Join(names, " ") != want.files {
			t.Errorf("OCR source %d: %s@%s %s %s into %q (ocr %v): %v", i, src.pkg, src.version, src.integrity, src.tarDir, src.subdir, src.ocr, names)
		}
	}
	if face.pkg != faceapi.Package || face.version != faceapi.Version || face.integrity != faceapi.TarballIntegrity ||
		face.tarDir != "package/model/" || len(face.files) != len(faceapi.ModelFiles) {
		t.Errorf("face source: %s@%s %s, %d files", face.pkg, face.version, face.tarDir, len(face.files))
	}
	if live.pkg != "@vladmandic/human" || live.version != "3.3.6" ||
		live.integrity != "sha512-Nr5mPfq1gQ+uKeXY5uM3Fj8UxvF5CEh2s6txM5wRThqaW0mF9huooOuZSrT8hhGho0hGaXLFdAwfD/2+teCv6A==" ||
		live.tarDir != "package/models/" || live.registry != "https://registry.example" {
		t.Errorf("liveness source: %s@%s %s %s from %s", live.pkg, live.version, live.integrity, live.tarDir, live.registry)
	}
	var names []string
	for _, f := range live.files {
		if f.Size <= 0 || len(f.SHA256) != 64 {
			t.Errorf("%s pinned with size %d, SHA-256 %q", f.Name, f.Size, f.SHA256)
		}
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "antispoof.bin antispoof.json liveness.bin liveness.json" {
		t.Errorf("liveness files %s", got)
	}
}

// checkFiles is a source's check for test sources: every file present
// with its pinned SHA-256.
func checkFiles(files []modelFile) func(string) error {
	return func(dir string) error {
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, f.Name))
			if err != nil {
				return err
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.SHA256 {
				return errors.New(f.Name + " differs")
			}
		}
		return nil
	}
}

// TestFetchSourcesWithLiveness runs the fetch of both packages into one
// directory, as `models fetch` does: the face package's model/ files and
// only the pinned files of the liveness package's models/ directory (human
// ships ~20 other models there).
func TestFetchSourcesWithLiveness(t *testing.T) {
	ctx := context.Background()
	faceTgz, faceFiles := fakePackage(t, map[string]string{"a-weights_manifest.json": "[]", "a.bin": "\x00\x01"})
	liveTgz, liveFiles := fakePackageIn(t, "package/models/", map[string]string{
		"antispoof.json": `{"format":"graph-model"}`, "antispoof.bin": "\x03", "liveness.json": "{}", "liveness.bin": "\x04\x05",
	})
	srv := fakeRegistryOf(t, map[string]fakeDist{"face": {faceTgz, sri(faceTgz)}, "human": {liveTgz, sri(liveTgz)}})
	srcs := []modelSource{
		{label: "face models", registry: srv.URL, pkg: "@scope/face", version: "1.2.3", integrity: sri(faceTgz),
			tarDir: "package/model/", files: faceFiles, check: checkFiles(faceFiles)},
		{label: "liveness models", registry: srv.URL, pkg: "@scope/human", version: "1.2.3", integrity: sri(liveTgz),
			tarDir: "package/models/", files: liveFiles, check: checkFiles(liveFiles)},
	}
	dir := filepath.Join(t.TempDir(), "models")
	var out bytes.Buffer
	e := &env{stdout: &out}
	if err := e.fetchSources(ctx, srv.Client(), srcs, dir, false); err != nil {
		t.Fatal(err)
	}
	want := "fetched @scope/face@1.2.3 (integrity verified): 2 model files in " + dir + "\n" +
		"fetched @scope/human@1.2.3 (integrity verified): 4 model files in " + dir + "\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "a-weights_manifest.json a.bin antispoof.bin antispoof.json liveness.bin liveness.json" {
		t.Errorf("directory holds %s", got)
	}

	// A second run finds both present and downloads nothing.
	out.Reset()
	if err := e.fetchSources(ctx, srv.Client(), srcs, dir, false); err != nil {
		t.Fatal(err)
	}
	want = "face models @scope/face@1.2.3 already present in " + dir + "\n" +
		"liveness models @scope/human@1.2.3 already present in " + dir + "\n"
	if out.String() != want {
		t.Errorf("second run:\n%s\nwant:\n%s", out.String(), want)
	}

	// An altered liveness file: check reports it, the face line is still
	// printed, and fetch replaces only the liveness package's files.
	if err := os.WriteFile(filepath.Join(dir, "liveness.bin"), []byte("xx"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := e.checkSources(srcs, dir, nil); err == nil || !strings.Contains(err.Error(), "liveness.bin") {
		t.Errorf("check with an altered liveness.bin: %v", err)
	}
	if want := "face models @scope/face@1.2.3 present in " + dir + "\n"; out.String() != want {
		t.Errorf("check output %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := e.fetchSources(ctx, srv.Client(), srcs, dir, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "face models @scope/face@1.2.3 already present") ||
		!strings.Contains(out.String(), "fetched @scope/human@1.2.3") {
		t.Errorf("refetch output:\n%s", out.String())
	}
	if err := checkFiles(liveFiles)(dir); err != nil {
		t.Errorf("after refetch: %v", err)
	}

	// A liveness tarball that is not the pinned one stops the fetch with
	// the package named.
	other := append([]byte(nil), liveTgz...)
	other[len(other)-1] ^= 1
	bad := fakeRegistryOf(t, map[string]fakeDist{"face": {faceTgz, sri(faceTgz)}, "human": {other, sri(liveTgz)}})
	for i := range srcs {
		srcs[i].registry = bad.URL
	}
	err := e.fetchSources(ctx, bad.Client(), srcs, t.TempDir(), false)
	if err == nil || !strings.Contains(err.Error(), "@scope/human@1.2.3") || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("tampered liveness tarball: %v", err)
	}
}

// TestLogFaceModels checks the start-up log names each model set.
func TestLogFaceModels(t *testing.T) {
	var buf bytes.Buffer
	m, err := loadFaceModels(slog.New(slog.NewTextHandler(&buf, nil)), t.TempDir())
	if m != nil || err != nil {
		t.Fatalf("empty models directory: %v, %v", m, err)
	}
	out := buf.String()
	if !strings.Contains(out, "level=WARN msg=\"face models unavailable") {
		t.Errorf("log for an empty models directory:\n%s", out)
	}
}

// TestFetchSourcesIntoSubdir: a source with a subdirectory (Tesseract's
// files) is fetched into, checked in and reported from DIR/SUBDIR, and a
// missing file's hint names DIR, the directory to pass to models fetch.
func TestFetchSourcesIntoSubdir(t *testing.T) {
	ctx := context.Background()
	tgz, files := fakePackageIn(t, "package/", map[string]string{"engine.wasm": "\x00asm", "LICENSE": "Apache-2.0"})
	srv := fakeRegistryOf(t, map[string]fakeDist{"core": {tgz, sri(tgz)}})
	src := modelSource{label: "OCR engine", registry: srv.URL, pkg: "@scope/core", version: "1.2.3", integrity: sri(tgz),
		tarDir: "package/", subdir: "tesseract", files: files, ocr: true}
	src.check = func(dir string) error {
		return tfjs.PinnedFiles{Package: src.pkg, Version: src.version, Files: files, ErrMissing: ocr.ErrUnavailable,
			Noun: "OCR files", Models: "OCR files", FetchDir: filepath.Dir(dir)}.Check(dir)
	}
	dir := filepath.Join(t.TempDir(), "models")
	if err := src.check(src.into(dir)); err == nil || !strings.Contains(err.Error(), "models fetch --dir "+dir+"`") {
		t.Errorf("check before the fetch: %v", err)
	}
	var out bytes.Buffer
	e := &env{stdout: &out}
	if err := e.fetchSources(ctx, srv.Client(), []modelSource{src}, dir, false); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "tesseract")
	if want := "fetched @scope/core@1.2.3 (integrity verified): 2 model files in " + sub + "\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if b, err := os.ReadFile(filepath.Join(sub, "engine.wasm")); err != nil || string(b) != "\x00asm" {
		t.Errorf("engine.wasm: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "engine.wasm")); err == nil {
		t.Error("the file was also written to the models directory itself")
	}
	out.Reset()
	if err := e.checkSources([]modelSource{src}, dir, nil); err != nil || !strings.Contains(out.String(), "present in "+sub) {
		t.Errorf("check after the fetch: %v, %q", err, out.String())
	}
}

// TestServeSources: serve's first start fetches Tesseract's WebAssembly
// build only when it would use it.
func TestServeSources(t *testing.T) {
	ctx := context.Background()
	installed := true
	defer func(f func(context.Context) bool) { tesseractAvailable = f }(tesseractAvailable)
	tesseractAvailable = func(context.Context) bool { return installed }
	for _, tt := range []struct {
		mode      string
		installed bool
		withOCR   bool
	}{
		{ocrOff, true, false},
		{ocrOff, false, false},
		{ocrTesseract, true, false},
		{ocrWasm, true, true},
		{ocrAuto, true, false}, // the program, when installed, is the engine
		{ocrAuto, false, true},
	} {
		installed = tt.installed
		var pkgs []string
		hasOCR := false
		for _, src := range serveSources(ctx, tt.mode, "https://registry.example") {
			pkgs = append(pkgs, src.pkg)
			hasOCR = hasOCR || src.ocr
		}
		if hasOCR != tt.withOCR || len(pkgs) < 2 || pkgs[0] != "@vladmandic/face-api" || pkgs[1] != "@vladmandic/human" {
			t.Errorf("--ocr %s, program installed %v: fetches %v, want OCR files %v", tt.mode, tt.installed, pkgs, tt.withOCR)
		}
	}
}
