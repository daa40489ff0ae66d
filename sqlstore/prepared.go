package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// maxPrepared bounds the statements kept prepared: every query text of the
// store, with room to spare. A query built at run time beyond it is run
// unprepared.
const maxPrepared = 512

// preparedStmts keeps one prepared statement per query text of a pool, so
// the single-statement reads on the hot paths (B3's verification read,
// sessions, tokens) are parsed once per connection instead of at every
// call. On SQLite the parse was more than half of B3's database time:
// modernc.org/sqlite keeps a statement's compiled form only while the
// driver statement lives, and database/sql's QueryContext makes a new one
// each time. pgx already caches statements per connection, so PostgreSQL
// pools go unprepared here.
type preparedStmts struct {
	pool *sql.DB
	mu   sync.RWMutex
	m    map[string]*sql.Stmt
}

func newPreparedStmts(pool *sql.DB) *preparedStmts {
	return &preparedStmts{pool: pool, m: map[string]*sql.Stmt{}}
}

// get returns the prepared statement of query, or nil when it cannot be
// prepared or the bound is reached (the caller then runs query as text,
// which reports any error as before).
func (p *preparedStmts) get(ctx context.Context, query string) *sql.Stmt {
	if p == nil {
		return nil
	}
	p.mu.RLock()
	st := p.m[query]
	p.mu.RUnlock()
	if st != nil {
		return st
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st := p.m[query]; st != nil {
		return st
	}
	if len(p.m) >= maxPrepared {
		return nil
	}
	// Prepared without the caller's context: it outlives the call.
	st, err := p.pool.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil
	}
	p.m[query] = st
	return st
}

func (p *preparedStmts) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for q, st := range p.m {
		_ = st.Close()
		delete(p.m, q)
	}
}

// readRow runs a single-row read on the read pool, prepared where the
// dialect gains from it.
func (db *DB) readRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st := db.readStmts.get(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.read.QueryRowContext(ctx, query, args...)
}

// readRows runs a read on the read pool, prepared where the dialect gains
// from it.
func (db *DB) readRows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := db.readStmts.get(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.read.QueryContext(ctx, query, args...)
}
