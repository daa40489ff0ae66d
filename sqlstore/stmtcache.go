package sqlstore

import (
	"context"
	"database/sql/driver"
	"reflect"

	"modernc.org/sqlite"
)

// Per-connection statement cache for SQLite.
//
// modernc's driver compiles the SQL text at every QueryContext and
// ExecContext that does not go through a prepared statement, and the
// compilation costs more than running these small statements: profiled at
// 64 concurrent B1 creations, SQLite's parser took 28 % of all CPU, nearly
// all of it for River's job insert, which River runs unprepared through
// database/sql (docs/performance.md). database/sql's own *sql.Stmt cannot
// help code this package does not write, so the cache sits below it, in the
// driver connection: every single-statement text run on a connection is
// prepared once on it and kept. No library found does this for
// database/sql drivers (sqlx, sqlc and River all prepare per call or leave
// it to the driver), hence this small wrapper.
//
// A statement is only reused when no result set of it is open: a second
// query with the same text while the first one's rows are still being read
// (possible inside one transaction) gets a statement of its own, finalised
// when its rows close.

// maxCachedStmts bounds the statements kept per connection; when full, the
// idle ones are dropped (query texts built with a varying number of
// placeholders could otherwise grow it without end).
const maxCachedStmts = 256

// cachingConnector opens modernc connections wrapped in cachingConn.
type cachingConnector struct {
	dsn string
	drv *sqlite.Driver
}

func (c cachingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &cachingConn{conn: conn, stmts: map[string]*cachedStmt{}}, nil
}

func (c cachingConnector) Driver() driver.Driver { return c.drv }

type cachedStmt struct {
	stmt driver.Stmt
	busy bool // its rows are open
}

// cachingConn is a modernc connection whose ExecContext and QueryContext
// reuse compiled statements. database/sql uses a connection from one
// goroutine at a time, so it needs no lock.
type cachingConn struct {
	conn  driver.Conn
	stmts map[string]*cachedStmt
}

var (
	_ driver.ExecerContext      = (*cachingConn)(nil)
	_ driver.QueryerContext     = (*cachingConn)(nil)
	_ driver.ConnBeginTx        = (*cachingConn)(nil)
	_ driver.ConnPrepareContext = (*cachingConn)(nil)
	_ driver.Pinger             = (*cachingConn)(nil)
	_ driver.SessionResetter    = (*cachingConn)(nil)
	_ driver.Validator          = (*cachingConn)(nil)
)

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) { return c.conn.Prepare(query) }

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *cachingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *cachingConn) Ping(ctx context.Context) error { return c.conn.(driver.Pinger).Ping(ctx) }

func (c *cachingConn) ResetSession(ctx context.Context) error {
	return c.conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *cachingConn) IsValid() bool { return c.conn.(driver.Validator).IsValid() }

func (c *cachingConn) Close() error {
	for q, s := range c.stmts {
		_ = s.stmt.Close()
		delete(c.stmts, q)
	}
	return c.conn.Close()
}

// stmt returns the idle cached statement of query, preparing and caching it
// if there is none; a statement that is busy is not shared: the caller gets
// a fresh one and owns it (cached nil).
func (c *cachingConn) stmt(ctx context.Context, query string) (s driver.Stmt, cached *cachedStmt, err error) {
	if cs, ok := c.stmts[query]; ok {
		if !cs.busy {
			return cs.stmt, cs, nil
		}
		s, err := c.PrepareContext(ctx, query)
		return s, nil, err
	}
	if s, err = c.PrepareContext(ctx, query); err != nil {
		return nil, nil, err
	}
	if len(c.stmts) >= maxCachedStmts {
		for q, cs := range c.stmts {
			if !cs.busy {
				_ = cs.stmt.Close()
				delete(c.stmts, q)
			}
		}
	}
	cs := &cachedStmt{stmt: s}
	c.stmts[query] = cs
	return s, cs, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, cached, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	res, err := s.(driver.StmtExecContext).ExecContext(ctx, args)
	if cached == nil {
		_ = s.Close()
	}
	return res, err
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, cached, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := s.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		if cached == nil {
			_ = s.Close()
		}
		return nil, err
	}
	if cached != nil {
		cached.busy = true
	}
	return &cachedRows{Rows: rows, stmt: s, cached: cached}, nil
}

// cachedRows gives its statement back to the cache (or closes a statement
// of its own) when closed.
type cachedRows struct {
	driver.Rows
	stmt   driver.Stmt
	cached *cachedStmt
	closed bool
}

func (r *cachedRows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.Rows.Close()
	if r.cached != nil {
		r.cached.busy = false
	} else {
		_ = r.stmt.Close()
	}
	return err
}

// The column type methods of modernc's rows, for sql.Rows.ColumnTypes.

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
