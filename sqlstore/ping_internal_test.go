package sqlstore

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/verifyd/verifyd/internal/testdb"
)

// A database that answers but cannot write is not ready: Ping writes.
func TestPingFailsWhenWritesFail(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("a writable database: %v", err)
	}
	// The write pool has one connection: make it read-only, as a full
	// disk or a read-only file system would.
	if _, err := db.write.ExecContext(ctx, "PRAGMA query_only = ON"); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(ctx); err == nil {
		t.Fatal("Ping succeeded on a database that cannot write")
	}
}

// A SQLite database whose file system is nearly full is not ready, though
// its small probe write still succeeds: Ping compares the free space with
// the configured minimum. PostgreSQL's disk is the server's, so the
// minimum does not apply there.
func TestPingFailsWhenFreeSpaceIsLow(t *testing.T) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			db, err := Open(ctx, testdb.URL(t, dialect), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if dialect == "sqlite" && db.readyMinFree != DefaultReadyMinFree {
				t.Errorf("default minimum %d, want %d", db.readyMinFree, DefaultReadyMinFree)
			}
			var free int64
			if db.file != "" {
				if free, err = freeBytes(filepath.Dir(db.file)); err != nil {
					t.Fatal(err)
				}
			}
			for _, tc := range []struct {
				name    string
				minFree int64
				ready   bool
			}{
				{"no minimum", 0, true},
				{"one byte", 1, true},
				// More than the file system holds now, by far more than
				// the test's own writes change it.
				{"more than is free", free + 1<<40, dialect == "postgres"},
			} {
				db.SetReadyMinFree(tc.minFree)
				err := db.Ping(ctx)
				if (err == nil) != tc.ready {
					t.Errorf("%s: Ping = %v, want ready %v", tc.name, err, tc.ready)
				}
			}
		})
	}
}
