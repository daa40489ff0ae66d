package tfjs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ModelFile is one model file pinned by name, size and SHA-256, as the
// packages running TensorFlow.js models take them from an npm tarball.
type ModelFile struct {
	Name   string // file name in the models directory
	Size   int64
	SHA256 string // hex
}

// PinnedFiles is a set of model files taken from one pinned npm package
// version, with the words Check's errors use for them.
type PinnedFiles struct {
	Package, Version string
	Files            []ModelFile
	// ErrMissing is wrapped by Check's error when files are absent.
	ErrMissing error
	// Noun and Models name the files in Check's errors: "DIR has none of
	// the <Package> <Version> <Noun>" and "<Models> in DIR are not
	// <Package> <Version>".
	Noun, Models string
	// FetchDir, when not empty, is the models directory the hint names
	// (`verifyd models fetch --dir FetchDir`) for files kept in one of its
	// subdirectories.
	FetchDir string
}

// Check verifies that dir holds every file with its pinned size and
// SHA-256. Its error names the problem files, says how to fetch them and,
// when files are missing, wraps p.ErrMissing.
func (p PinnedFiles) Check(dir string) error {
	var missing, bad []string
	for _, f := range p.Files {
		path := filepath.Join(dir, f.Name)
		st, err := os.Stat(path)
		if err != nil {
			missing = append(missing, f.Name)
			continue
		}
		if st.Size() != f.Size {
			bad = append(bad, fmt.Sprintf("%s (%d bytes, want %d)", f.Name, st.Size(), f.Size))
			continue
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return err
		}
		if sum != f.SHA256 {
			bad = append(bad, f.Name+" (SHA-256 differs)")
		}
	}
	fetchDir := dir
	if p.FetchDir != "" {
		fetchDir = p.FetchDir
	}
	switch {
	case len(bad) > 0:
		// Altered files first: a missing one must not hide them.
		return fmt.Errorf("%s in %s are not %s %s: %s (run `verifyd models fetch --force --dir %s`)",
			p.Models, dir, p.Package, p.Version, strings.Join(bad, ", "), fetchDir)
	case len(missing) == len(p.Files):
		return fmt.Errorf("%w: %s has none of the %s %s %s (run `verifyd models fetch --dir %s`)",
			p.ErrMissing, dir, p.Package, p.Version, p.Noun, fetchDir)
	case len(missing) > 0:
		return fmt.Errorf("%w: %s lacks %s (run `verifyd models fetch --dir %s`)", p.ErrMissing, dir, strings.Join(missing, ", "), fetchDir)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
