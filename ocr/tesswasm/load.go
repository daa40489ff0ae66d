package tesswasm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verifyd/verifyd/ocr"
)

// Files in a directory filled by scripts/tesseract-wasm-fetch.
const (
	WasmSIMD  = "tesseract-core-simd-lstm.wasm"
	WasmPlain = "tesseract-core-lstm.wasm"
	DataFile  = "eng.traineddata.gz"
)

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
		return nil, fmt.Errorf("%w: tesseract wasm in %s: %v (run scripts/tesseract-wasm-fetch)", ocr.ErrUnavailable, dir, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, DataFile))
	if err != nil {
		return nil, fmt.Errorf("%w: tesseract trained data in %s: %v (run scripts/tesseract-wasm-fetch)", ocr.ErrUnavailable, dir, err)
	}
	return NewWithConfig(ctx, wasm, data, Config{CacheDir: filepath.Join(dir, "cache"), MaxInstances: instances})
}
