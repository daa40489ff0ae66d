// Package noderef runs the Node reference implementations tests compare
// the Go face and liveness models with: TensorFlow.js's WASM backend
// driven by a script in scripts/ (face-reference.mjs,
// liveness-reference.mjs) on the npm packages scripts/npm-face-install
// puts in .cache/npm-face. Tests skip (fail under
// VERIFYD_TEST_REQUIRE_ALL=1) when Node or the packages are absent.
//
// It depends on nothing of this module but internal/testdb, so the
// in-package tests of tfjs/faceapi and tfjs/human can use it.
package noderef

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
)

// Reference is the Node installation and one driver script.
type Reference struct {
	NpmDir  string // .cache/npm-face: the job's "npmDir"
	Script  string // the driver script
	Samples string // the sample photos of @vladmandic/face-api (demo/)
}

// Find returns the reference running scripts/script. It skips the test
// when node is not on PATH, or when the TensorFlow.js WASM backend or any
// of files (paths under node_modules, e.g.
// "@vladmandic/human/package.json") is not installed. need begins the
// skip messages: "face parity tests need".
func Find(t testing.TB, need, script string, files ...string) Reference {
	t.Helper()
	root := testdb.RepoRoot(t)
	npm := filepath.Join(root, ".cache", "npm-face")
	r := Reference{
		NpmDir:  npm,
		Script:  filepath.Join(root, "scripts", script),
		Samples: filepath.Join(npm, "node_modules", "@vladmandic", "face-api", "demo"),
	}
	if _, err := exec.LookPath("node"); err != nil {
		testdb.Skip(t, need+" Node.js (node on PATH) for the reference implementation")
	}
	for _, f := range append([]string{"@tensorflow/tfjs-backend-wasm/package.json"}, files...) {
		if _, err := os.Stat(filepath.Join(npm, "node_modules", filepath.FromSlash(f))); err != nil {
			testdb.Skip(t, need+" the npm packages: run scripts/npm-face-install ("+err.Error()+")")
		}
	}
	return r
}

// Output is what the driver scripts print: the versions and backend they
// ran on and one result per job item.
type Output[R any] struct {
	Versions map[string]string `json:"versions"`
	Backend  string            `json:"backend"`
	SIMD     bool              `json:"simd"`
	Results  []R               `json:"results"`
}

// Run runs r's script on job (marshalled to JSON in a file the script
// reads) and decodes its output. It fails the test unless the script ran
// on the WASM backend and returned one result for each of the job's
// items (n of them).
func Run[R any](t testing.TB, r Reference, job any, n int) Output[R] {
	t.Helper()
	b, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	jobFile := filepath.Join(t.TempDir(), "job.json")
	if err := os.WriteFile(jobFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", r.Script, jobFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s", r.Script, err, stderr.String())
	}
	var out Output[R]
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("reference output: %v\n%s", err, stderr.String())
	}
	if out.Backend != "wasm" || len(out.Results) != n {
		t.Fatalf("reference ran on backend %q with %d results for %d items", out.Backend, len(out.Results), n)
	}
	return out
}
