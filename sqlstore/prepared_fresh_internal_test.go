package sqlstore

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
)

// TestPreparedReadsSeeWrites: a prepared read sees what was committed
// after its previous use (it holds no snapshot between calls), for single
// rows and for row sets.
func TestPreparedReadsSeeWrites(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE fresh (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 20; i++ {
		if _, err := db.write.ExecContext(ctx, `INSERT INTO fresh (n) VALUES ($1)`, i); err != nil {
			t.Fatal(err)
		}
		var count int
		if err := db.readRow(ctx, `SELECT count(*) FROM fresh`).Scan(&count); err != nil || count != i {
			t.Fatalf("after %d inserts the prepared count reads %d, %v", i, count, err)
		}
		rows, err := db.readRows(ctx, `SELECT n FROM fresh ORDER BY n`)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for rows.Next() {
			seen++
		}
		rows.Close()
		if seen != i {
			t.Fatalf("after %d inserts the prepared row set has %d rows", i, seen)
		}
	}
}
