package tesswasm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verifyd/verifyd/ocr"
	"github.com/verifyd/verifyd/tfjs"
)

// Files in a directory filled by `verifyd models fetch` (or scripts/tesseract-wasm-fetch).
const (
	WasmSIMD  = "tesseract-core-simd-lstm.wasm"
	WasmPlain = "tesseract-core-lstm.wasm"
	DataFile  = "eng.traineddata.gz"
)

// Subdir is the directory under the models directory that `verifyd models
// fetch` fills with the files above (and serve's --ocr looks in).
const Subdir = "tesseract"

// The npm packages the files come from, pinned by the Subresource
// Integrity npm's registry publishes for their tarballs (CoreVersion and
// DataVersion name the same versions; scripts/tesseract-wasm-fetch fetches
// them with npm instead).
const (
	CorePackage   = "tesseract.js-core"
	CoreRelease   = "7.0.0"
	CoreIntegrity = "sha512-WnNH518NzmbSq9zgTPeoF8c+xmilS8rFIl1YKbk/ptuuc7p6cLNELNuPAzcmsYw450ca6bLa8j3t0VAtq435Vw=="
	DataPackage   = "@tesseract.js-data/eng"
	DataRelease   = "1.0.0"
	DataIntegrity = "sha512-mbTumm6KQPUHyzTPQaF3ObXYnx0SqqfV2nabqFVQBwD6Kl7PhGSLSzOlfFTWy0P3BjghaSKA2W9GB19Jk+ZcTg=="
)

// CoreFiles are the files taken from tesseract.js-core's package root: the
// two LSTM builds New accepts and the package's licence (Apache-2.0).
var CoreFiles = []tfjs.ModelFile{
	{Name: WasmSIMD, Size: 2857601, SHA256: "34e8d50cac216427d86bf397d610fdd9f49492539bbcdfbfccc4eda20c810bea"},
	{Name: WasmPlain, Size: 2855361, SHA256: "66b17df6e20c5329a17ffa9c202a47eaa3e32500b253d4c7f38e7f2bc01457c3"},
	{Name: "LICENSE", Size: 11358, SHA256: "c6596eb7be8581c18be736c846fb9173b69eccf6ef94c5135893ec56bd92ba08"},
}

// DataFiles is the trained data taken from @tesseract.js-data/eng's
// 4.0.0_best_int directory (the integer LSTM model the engine was measured
// with).
var DataFiles = []tfjs.ModelFile{
	{Name: DataFile, Size: 2952873, SHA256: "45b4cb346724ac1774f1c36f42f182b887bcdb28ebe63e6fff90ac41f3fcff91"},
}

// Load builds an Engine from dir: the SIMD build (wazero runs Wasm SIMD on
// every platform it compiles for), the trained data, and a compilation
// cache in dir/cache so that later starts take a fraction of a second. An
// error wrapping ocr.ErrUnavailable means the files are not there.
func Load(ctx context.Context, dir string, instances int) (*Engine, error) {
	wasm, err := os.ReadFile(filepath.Join(dir, WasmSIMD))
	if errors.Is(err, os.ErrNotExist) {
		wasm, err = os.ReadFile(filepath.Join(dir, WasmPlain))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: tesseract wasm in %s: %v (run `verifyd models fetch`)", ocr.ErrUnavailable, dir, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, DataFile))
	if err != nil {
		return nil, fmt.Errorf("%w: tesseract trained data in %s: %v (run `verifyd models fetch`)", ocr.ErrUnavailable, dir, err)
	}
	return NewWithConfig(ctx, wasm, data, Config{CacheDir: filepath.Join(dir, "cache"), MaxInstances: instances})
}
