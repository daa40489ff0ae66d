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
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/tfjs/faceapi"
)

// fakePackage builds an npm tarball holding the given model files plus
// some other files, and returns it with the pinned file list.
func fakePackage(t *testing.T, models map[string]string) ([]byte, []faceapi.ModelFile) {
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
	var files []faceapi.ModelFile
	for name, body := range models {
		add("package/model/"+name, body)
		sum := sha256.Sum256([]byte(body))
		files = append(files, faceapi.ModelFile{Name: name, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
	}
	add("package/model/extra.bin", "not pinned, not extracted")
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
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.EscapedPath() {
		case "/@scope%2Fpkg/1.2.3", "/@scope%2fpkg/1.2.3":
			json.NewEncoder(w).Encode(map[string]any{"name": "@scope/pkg", "version": "1.2.3",
				"dist": map[string]string{"tarball": srv.URL + "/@scope/pkg/-/pkg-1.2.3.tgz", "integrity": integrity}})
		case "/@scope/pkg/-/pkg-1.2.3.tgz":
			w.Write(tarball)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchModels(t *testing.T) {
	ctx := context.Background()
	tgz, files := fakePackage(t, map[string]string{"a-weights_manifest.json": "[]", "a.bin": "\x00\x01\x02"})
	srv := fakeRegistry(t, tgz, sri(tgz))
	src := modelSource{registry: srv.URL, pkg: "@scope/pkg", version: "1.2.3", integrity: sri(tgz), files: files}

	dir := filepath.Join(t.TempDir(), "models")
	n, err := fetchModels(ctx, srv.Client(), src, dir)
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
	if _, err := fetchModels(ctx, bad.Client(), src, t.TempDir()); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("tampered tarball: %v", err)
	}
	// So is a registry listing another integrity for the version.
	lying := fakeRegistry(t, other, sri(other))
	src.registry = lying.URL
	if _, err := fetchModels(ctx, lying.Client(), src, t.TempDir()); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Errorf("registry with another integrity: %v", err)
	}
	// A model file that is not the pinned one is refused and not written.
	src.registry = srv.URL
	src.files = append([]faceapi.ModelFile(nil), files...)
	for i := range src.files {
		if src.files[i].Name == "a.bin" {
			src.files[i].SHA256 = strings.Repeat("0", 64)
		}
	}
	empty := t.TempDir()
	if _, err := fetchModels(ctx, srv.Client(), src, empty); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("model file with another hash: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "a.bin")); err == nil {
		t.Error("a.bin written despite the hash mismatch")
	}
	// A pinned file the tarball lacks is an error.
	src.files = append(files, faceapi.ModelFile{Name: "missing.bin", Size: 1, SHA256: strings.Repeat("0", 64)})
	if _, err := fetchModels(ctx, srv.Client(), src, t.TempDir()); err == nil || !strings.Contains(err.Error(), "missing.bin") {
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
