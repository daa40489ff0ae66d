// Package indepdocs runs scripts/indepdocs/gen.py, the document generator
// written independently of verifyd's Go code (Python, PIL, its own ICAO
// 9303 code and camera model), for the tests that measure the engine on
// documents it did not make.
package indepdocs

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/testdb"
)

// Today is the day the documents are generated for: their expiry dates and
// holders' ages are drawn relative to it, so a test decides them as of
// this day.
var Today = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// Generate writes the n cases drawn with seed (only those whose indexes
// are listed, if any: the same files a full run writes) into a temporary
// directory, with their manifest.json, and returns the directory. It
// skips the test (fails it under VERIFYD_TEST_REQUIRE_ALL) when Debian's
// python3 with PIL and numpy is missing.
func Generate(t testing.TB, seed, n int, only ...int) string {
	t.Helper()
	// Debian's python3, which its python3-pil and python3-numpy serve,
	// before whatever python3 comes first in PATH.
	py := ""
	for _, c := range []string{"/usr/bin/python3", "python3"} {
		if p, err := exec.LookPath(c); err == nil && exec.Command(p, "-c", "import PIL, numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		testdb.Skip(t, "the independent documents need python3 with PIL and numpy (Debian python3-pil python3-numpy)")
	}
	dir := t.TempDir()
	args := []string{filepath.Join(testdb.RepoRoot(t), "scripts", "indepdocs", "gen.py"),
		"--out", dir, "--seed", fmt.Sprint(seed), "--n", fmt.Sprint(n), "--today", Today.Format(time.DateOnly), "--quiet"}
	if len(only) > 0 {
		var s []string
		for _, i := range only {
			s = append(s, fmt.Sprint(i))
		}
		args = append(args, "--only", strings.Join(s, ","))
	}
	if out, err := exec.Command(py, args...).CombinedOutput(); err != nil {
		t.Fatalf("gen.py: %v\n%s", err, out)
	}
	return dir
}
