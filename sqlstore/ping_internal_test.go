package sqlstore

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
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
