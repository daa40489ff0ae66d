// Package testdb gives tests a fresh, empty database of each dialect.
//
// SQLite always runs (a file in the test's temporary directory). PostgreSQL
// runs when VERIFYD_TEST_DATABASE_URL names a server the tests may create
// databases on; each test gets its own database, dropped afterwards. When the
// variable is unset the PostgreSQL variants are skipped with a message that
// says so, unless VERIFYD_TEST_REQUIRE_ALL=1 (set by .ci/run), which turns
// every such skip into a failure.
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// Dialects lists the dialect names tests iterate over.
var Dialects = []string{"sqlite", "postgres"}

// RequireAll reports whether skipping a test for a missing dependency is a
// failure (CI sets VERIFYD_TEST_REQUIRE_ALL=1).
func RequireAll() bool { return os.Getenv("VERIFYD_TEST_REQUIRE_ALL") == "1" }

// Skip skips the test because a dependency is missing, or fails it when
// RequireAll is set.
func Skip(t testing.TB, why string) {
	t.Helper()
	if RequireAll() {
		t.Fatalf("VERIFYD_TEST_REQUIRE_ALL=1 but %s", why)
	}
	t.Skipf("SKIPPED: %s", why)
}

// RepoRoot returns the directory holding go.mod above the working
// directory (tests run in their package's directory).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// URL returns the URL of a new empty database of the given dialect.
func URL(t testing.TB, dialect string) string {
	t.Helper()
	switch dialect {
	case "sqlite":
		return "sqlite://" + filepath.Join(t.TempDir(), "verifyd.db")
	case "postgres":
		return postgresURL(t)
	}
	t.Fatalf("unknown dialect %q", dialect)
	return ""
}

func postgresURL(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("VERIFYD_TEST_DATABASE_URL")
	if admin == "" {
		Skip(t, "PostgreSQL tests need VERIFYD_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)")
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("VERIFYD_TEST_DATABASE_URL: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatalf("open %s: %v", u.Redacted(), err)
	}
	defer db.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "verifyd_test_" + hex.EncodeToString(b[:])
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database on %s: %v", u.Redacted(), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		db, err := sql.Open("pgx", admin)
		if err != nil {
			return
		}
		defer db.Close()
		_, _ = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u.Path = "/" + name
	return u.String()
}
