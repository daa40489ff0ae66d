package human

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The pinned npm package the liveness models come from. Integrity is the
// registry's dist.integrity (Subresource Integrity, sha512) of the tarball:
// `npm view @vladmandic/human@3.3.6 dist.integrity`.
const (
	Package          = "@vladmandic/human"
	Version          = "3.3.6"
	TarballIntegrity = "sha512-Nr5mPfq1gQ+uKeXY5uM3Fj8UxvF5CEh2s6txM5wRThqaW0mF9huooOuZSrT8hhGho0hGaXLFdAwfD/2+teCv6A=="
	// TarballDir is the directory of the tarball the model files are in
	// (face-api's are in package/model/, human's in package/models/).
	TarballDir = "package/models/"
)

// ModelFile is one model file taken from the package's models/ directory.
type ModelFile struct {
	Name   string // file name inside models/ and in the models directory
	Size   int64
	SHA256 string // hex
}

// ModelFiles lists the files of the pinned tarball this package uses, with
// their sizes and SHA-256, so a models directory can be checked without
// the tarball. The package ships ~20 other models (BlazeFace, FaceMesh,
// body and hand models …); only these four are extracted.
var ModelFiles = []ModelFile{
	{"antispoof.bin", 853098, "4490fecb2becdb6869edc7e60f5e59962be013a8def8719b1373afb0f905c094"},
	{"antispoof.json", 8713, "7fd698ae1cebabbcad79d3b8b448587b0365eb7911987418231bdcf36583112a"},
	{"liveness.bin", 592976, "fc6a6b6b3b9721bdb8bff67a457a15b7cbfd81715cfb27f3e65b757e81dd663e"},
	{"liveness.json", 17070, "9e51c8acf83b80abbf329b2735309ab5c90611c66905ade8b1bd130d473df9c8"},
}

// Model file names of the two graph models.
const (
	AntispoofModel = "antispoof.json"
	LivenessModel  = "liveness.json"
)

// ErrMissing is wrapped by Check's error when files are absent.
var ErrMissing = errors.New("liveness models missing")

// Check verifies that dir holds every model file with the pinned size and
// SHA-256. Its error names the problem files and, when files are missing,
// wraps ErrMissing.
func Check(dir string) error {
	var missing, bad []string
	for _, f := range ModelFiles {
		p := filepath.Join(dir, f.Name)
		st, err := os.Stat(p)
		if err != nil {
			missing = append(missing, f.Name)
			continue
		}
		if st.Size() != f.Size {
			bad = append(bad, fmt.Sprintf("%s (%d bytes, want %d)", f.Name, st.Size(), f.Size))
			continue
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return err
		}
		if sum != f.SHA256 {
			bad = append(bad, f.Name+" (SHA-256 differs)")
		}
	}
	switch {
	case len(missing) == len(ModelFiles):
		return fmt.Errorf("%w: %s has none of the %s %s liveness model files (run `verifyd models fetch --dir %s`)",
			ErrMissing, dir, Package, Version, dir)
	case len(missing) > 0:
		return fmt.Errorf("%w: %s lacks %s (run `verifyd models fetch --dir %s`)", ErrMissing, dir, strings.Join(missing, ", "), dir)
	case len(bad) > 0:
		return fmt.Errorf("liveness models in %s are not %s %s: %s (run `verifyd models fetch --force --dir %s`)",
			dir, Package, Version, strings.Join(bad, ", "), dir)
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
