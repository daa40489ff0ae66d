package tfjs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPinnedFilesCheck(t *testing.T) {
	errMissing := errors.New("test models missing")
	sum := sha256.Sum256([]byte("abc"))
	p := PinnedFiles{
		Package: "@example/models", Version: "1.0.0", ErrMissing: errMissing,
		Noun: "test model files", Models: "test models",
		Files: []ModelFile{
			{Name: "a.bin", Size: 3, SHA256: hex.EncodeToString(sum[:])},
			{Name: "b.bin", Size: 3, SHA256: hex.EncodeToString(sum[:])},
		},
	}
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, wantMissing bool, want string) {
		t.Helper()
		err := p.Check(dir)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
			return
		}
		if err == nil || err.Error() != want || errors.Is(err, errMissing) != wantMissing {
			t.Errorf("%s: %v, want %q (wrapping ErrMissing: %v)", what, err, want, wantMissing)
		}
	}
	check("empty directory", true, "test models missing: "+dir+" has none of the @example/models 1.0.0 test model files (run `verifyd models fetch --dir "+dir+"`)")
	write("a.bin", "abc")
	check("one file", true, "test models missing: "+dir+" lacks b.bin (run `verifyd models fetch --dir "+dir+"`)")
	write("b.bin", "abcd")
	check("wrong size", false, "test models in "+dir+" are not @example/models 1.0.0: b.bin (4 bytes, want 3) (run `verifyd models fetch --force --dir "+dir+"`)")
	write("b.bin", "abd")
	check("wrong contents", false, "test models in "+dir+" are not @example/models 1.0.0: b.bin (SHA-256 differs) (run `verifyd models fetch --force --dir "+dir+"`)")
	write("b.bin", "abc")
	check("all present", false, "")
}
