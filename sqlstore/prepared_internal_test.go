package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/verifyd/verifyd"
)

// TestReadsArePrepared: SQLite reads are prepared once per query text and
// reused; beyond maxPrepared texts, queries still run (unprepared), and a
// query that does not prepare reports its error as before.
func TestReadsArePrepared(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 3 {
		if _, err := db.Verification(ctx, "b", verifyd.EnvProduction, "v"); !errors.Is(err, verifyd.ErrNotFound) {
			t.Fatalf("Verification of an unknown id: %v", err)
		}
	}
	if n := len(db.readStmts.m); n != 1 {
		t.Fatalf("%d statements prepared after three reads of one query, want 1", n)
	}
	for i := range maxPrepared + 10 {
		var got int
		if err := db.readRow(ctx, fmt.Sprintf("SELECT %d", i)).Scan(&got); err != nil || got != i {
			t.Fatalf("SELECT %d = %d, %v", i, got, err)
		}
	}
	if n := len(db.readStmts.m); n != maxPrepared {
		t.Errorf("%d statements prepared, want the bound %d", n, maxPrepared)
	}
	if err := db.readRow(ctx, "SELECT * FROM no_such_table").Scan(new(int)); err == nil {
		t.Error("a query of a missing table succeeded")
	}
}
