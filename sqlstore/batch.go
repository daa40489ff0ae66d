package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Group commit for SQLite.
//
// SQLite has one writer, so every write transaction of the store waits for
// the one write connection, and each commit appends the pages it changed to
// the write-ahead log: two write system calls per page. Profiled at 64
// concurrent B1 creations after the statement cache, those writes were 37 %
// of all CPU, and the commit's time is time every other writer waits.
// Consecutive inserts change mostly the same pages (the last leaf of each
// table and index), so committing the transactions that queued up while
// the previous commit ran as one transaction writes each such page once.
//
// Each caller's function runs inside its own savepoint: a function that
// fails is rolled back to it alone, as its own transaction would have
// been, and the others go on. Callers learn their outcome only after the
// shared commit; if the commit fails, every caller whose function
// succeeded gets that error, so nobody is told a write was kept that was
// not. One caller's context ending while its statement runs interrupts
// SQLite, which then rolls back the whole shared transaction: everyone in
// that batch gets an error (never a false success) and may retry. No delay is added to wait for company: a batch is what queued while
// the writer was busy, so a lone request commits at once. This is written
// here because database/sql and the SQLite driver have no group commit, and
// it needs the store's transaction function to be split at savepoints.

// maxBatch bounds the transactions committed together, which bounds how
// long the first of them waits for the last.
const maxBatch = 64

// batcher runs the write transactions of a SQLite store.
type batcher struct {
	db    *DB
	queue chan *batchReq
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	// shared counts the transactions committed in a batch of more than
	// one (for tests and curiosity).
	shared atomic.Int64
	// waiting counts the callers not yet handed to the writer, so that a
	// test can hold the writer until others have queued behind it.
	waiting atomic.Int64
}

type batchReq struct {
	ctx context.Context
	fn  func(*sql.Tx) error
	// result is sent the outcome; panicked holds a panic of fn, raised
	// again in the caller's goroutine.
	result   chan error
	panicked any
}

// errClosed answers writes after Close.
var errClosed = errors.New("sqlstore: database closed")

func newBatcher(db *DB) *batcher {
	b := &batcher{db: db, queue: make(chan *batchReq), stop: make(chan struct{}), done: make(chan struct{})}
	go b.loop()
	return b
}

// run runs fn in a transaction, perhaps shared, and returns once it is
// committed or rolled back. A caller whose context ends before its turn
// is not run.
func (b *batcher) run(ctx context.Context, fn func(*sql.Tx) error) error {
	r := &batchReq{ctx: ctx, fn: fn, result: make(chan error, 1)}
	b.waiting.Add(1)
	select {
	case b.queue <- r:
		b.waiting.Add(-1)
	case <-ctx.Done():
		b.waiting.Add(-1)
		return ctx.Err()
	case <-b.stop:
		b.waiting.Add(-1)
		return errClosed
	}
	// Once handed over, wait for the outcome even if ctx ends: the write
	// may already be in the shared transaction, and the caller must not be
	// told it failed when it is committed.
	err := <-r.result
	if r.panicked != nil {
		panic(r.panicked)
	}
	return err
}

func (b *batcher) loop() {
	defer close(b.done)
	for {
		var first *batchReq
		select {
		case first = <-b.queue:
		case <-b.stop:
			return
		}
		reqs := []*batchReq{first}
	collect:
		for len(reqs) < maxBatch {
			select {
			case r := <-b.queue:
				reqs = append(reqs, r)
			default:
				break collect
			}
		}
		b.commit(reqs)
	}
}

// commit runs reqs in one transaction and reports each outcome.
func (b *batcher) commit(reqs []*batchReq) {
	if len(reqs) == 1 {
		r := reqs[0]
		r.result <- b.guard(r, func() error { return b.db.inOwnTx(r.ctx, r.fn) })
		return
	}
	errs := make([]error, len(reqs))
	fail := func(err error) {
		for i, r := range reqs {
			if errs[i] == nil {
				errs[i] = err
			}
			r.result <- errs[i]
		}
	}
	// The transaction is not bound to any one caller's context: one caller
	// going away must not roll back the others.
	tx, err := b.db.write.BeginTx(context.Background(), nil)
	if err != nil {
		fail(fmt.Errorf("begin: %w", err))
		return
	}
	for i, r := range reqs {
		if err := r.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if _, err := tx.Exec(`SAVEPOINT store_batch`); err != nil {
			_ = tx.Rollback()
			fail(fmt.Errorf("savepoint: %w", err))
			return
		}
		if errs[i] = b.guard(r, func() error { return r.fn(tx) }); errs[i] != nil {
			// Undo this caller's writes only. If SQLite already rolled the
			// whole transaction back (some errors, such as a full disk, do),
			// this fails and so does everyone.
			if _, err := tx.Exec(`ROLLBACK TO store_batch`); err != nil {
				_ = tx.Rollback()
				fail(fmt.Errorf("roll back to savepoint: %w", err))
				return
			}
		}
		if _, err := tx.Exec(`RELEASE store_batch`); err != nil {
			_ = tx.Rollback()
			fail(fmt.Errorf("release savepoint: %w", err))
			return
		}
	}
	if err := tx.Commit(); err != nil {
		fail(fmt.Errorf("commit: %w", err))
		return
	}
	b.shared.Add(int64(len(reqs)))
	for i, r := range reqs {
		r.result <- errs[i]
	}
}

// guard runs f, turning a panic into an error for the batch and keeping
// it to raise again in r's caller.
func (b *batcher) guard(r *batchReq, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.panicked = p
			err = fmt.Errorf("panic in a write transaction: %v", p)
		}
	}()
	return f()
}

// close stops the batcher after the batch in progress; later writes get
// errClosed.
func (b *batcher) close() {
	if b == nil {
		return
	}
	b.once.Do(func() { close(b.stop) })
	<-b.done
}
