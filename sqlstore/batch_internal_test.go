package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Concurrent write transactions on SQLite are committed in groups, and each
// still succeeds or fails alone: a failing one leaves nothing, its
// neighbours in the same commit are kept, and a panic reaches its own
// caller only.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 300
	errFail := errors.New("refused")
	var wg sync.WaitGroup
	results := make([]error, n)
	panics := make([]any, n)
	// Transaction 0 holds the writer until every other one is waiting
	// for it, so that the rest queue up whatever the machine's scheduling.
	holding, release := make(chan struct{}), make(chan struct{})
	for i := range n {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			results[i] = db.inTx(ctx, func(tx *sql.Tx) error {
				if i == 0 {
					close(holding)
					<-release
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)`, fmt.Sprint("g", i), []byte("x")); err != nil {
					return err
				}
				switch i % 10 {
				case 3:
					return errFail
				case 7:
					panic(fmt.Sprint("boom ", i))
				}
				return nil
			})
		})
		if i == 0 {
			<-holding
		}
	}
	for db.batches.waiting.Load() < n-1 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	for i := range n {
		var got int
		if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM settings WHERE name = $1`, fmt.Sprint("g", i)).Scan(&got); err != nil {
			t.Fatal(err)
		}
		switch i % 10 {
		case 3:
			if !errors.Is(results[i], errFail) || got != 0 {
				t.Errorf("%d: failing transaction returned %v and left %d rows, want its error and 0", i, results[i], got)
			}
		case 7:
			if panics[i] != fmt.Sprint("boom ", i) || got != 0 {
				t.Errorf("%d: panicking transaction raised %v and left %d rows, want its panic and 0", i, panics[i], got)
			}
		default:
			if results[i] != nil || panics[i] != nil || got != 1 {
				t.Errorf("%d: transaction returned %v (panic %v) and left %d rows, want nil and 1", i, results[i], panics[i], got)
			}
		}
	}
	if db.batches.shared.Load() == 0 {
		t.Error("no transaction was committed together with another")
	}
	t.Logf("%d of %d transactions committed in shared batches", db.batches.shared.Load(), n)

	// After Close, writes are refused instead of waiting for ever.
	db.Close()
	if err := db.inTx(ctx, func(*sql.Tx) error { return nil }); !errors.Is(err, errClosed) {
		t.Errorf("write after Close: %v, want errClosed", err)
	}
}
