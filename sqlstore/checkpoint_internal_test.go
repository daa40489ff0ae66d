package sqlstore

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The writer does not checkpoint inside its commits; the background loop
// copies the log into the database file within a few seconds.
func TestCheckpointsRunBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v.db")
	db, err := Open(ctx, "sqlite://"+path, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var auto int
	if err := db.write.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Errorf("the write connection checkpoints every %d pages itself, want 0 (never)", auto)
	}
	size := func() int64 {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	// Settle what Open wrote, then write far more than a checkpoint's
	// worth of pages (1,000) in small commits.
	time.Sleep(2 * checkpointEvery)
	before := size()
	blob := make([]byte, 2000)
	for i := range 3000 {
		if _, err := db.write.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)`, "ckpt"+string(rune('a'+i%26))+time.Now().Format(time.RFC3339Nano), blob); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for size() < before+3000*2000 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := size(); got < before+3000*2000 {
		t.Fatalf("database file %d bytes 10 s after writing 6 MB (was %d): the log was not checkpointed", got, before)
	}
	logFrames, copied, err := db.checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if copied != logFrames {
		t.Errorf("after the loop's checkpoints %d of %d log frames copied", copied, logFrames)
	}
}
