package human

import (
	"errors"

	"github.com/verifyd/verifyd/tfjs"
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
type ModelFile = tfjs.ModelFile

// ModelFiles lists the files of the pinned tarball this package uses, with
// their sizes and SHA-256, so a models directory can be checked without
// the tarball. The package ships ~20 other models (BlazeFace, FaceMesh,
// body and hand models …); only these four are extracted.
var ModelFiles = []ModelFile{
	{Name: "antispoof.bin", Size: 853098, SHA256: "4490fecb2becdb6869edc7e60f5e59962be013a8def8719b1373afb0f905c094"},
	{Name: "antispoof.json", Size: 8713, SHA256: "7fd698ae1cebabbcad79d3b8b448587b0365eb7911987418231bdcf36583112a"},
	{Name: "liveness.bin", Size: 592976, SHA256: "fc6a6b6b3b9721bdb8bff67a457a15b7cbfd81715cfb27f3e65b757e81dd663e"},
	{Name: "liveness.json", Size: 17070, SHA256: "9e51c8acf83b80abbf329b2735309ab5c90611c66905ade8b1bd130d473df9c8"},
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
	return tfjs.PinnedFiles{
		Package: Package, Version: Version, Files: ModelFiles, ErrMissing: ErrMissing,
		Noun: "liveness model files", Models: "liveness models",
	}.Check(dir)
}
