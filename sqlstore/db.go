// Package sqlstore implements verifyd.Store on database/sql for two
// dialects: SQLite (modernc.org/sqlite, pure Go, WAL) and PostgreSQL (pgx
// through its database/sql adapter). One implementation serves both because
// the SQL they need is the same text: both accept $n placeholders, RETURNING
// and ON CONFLICT. Keeping one *sql.Tx type for both also lets the durable
// job queue (River, whose drivers for both databases take database/sql)
// enqueue inside the same transaction as a state change.
package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/verifyd/verifyd"
	"modernc.org/sqlite"
)

//go:embed migrations
var migrations embed.FS

// Dialect names a supported database.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is a verifyd.Store backed by SQLite or PostgreSQL.
type DB struct {
	dialect Dialect
	// write takes every transaction. For SQLite it holds one connection,
	// because SQLite has one writer and River's SQLite driver expects it.
	write *sql.DB
	// read serves single-statement reads; for SQLite it is a separate pool of
	// read-only connections so readers never queue behind the writer, for
	// PostgreSQL it is the same pool as write.
	read *sql.DB
	// readStmts keeps read's statements prepared (SQLite only; nil for
	// PostgreSQL, whose driver caches them itself).
	readStmts *preparedStmts
	// jobs enqueues background work inside transactions (SetEnqueuer).
	jobs Enqueuer
	// batches groups SQLite's write transactions (batch.go); nil for
	// PostgreSQL, which groups commits itself.
	batches *batcher
	// ckpt checkpoints SQLite's write-ahead log in the background, on a
	// connection of its own (checkpointLoop); stopCkpt ends it.
	ckpt      *sql.DB
	stopCkpt  chan struct{}
	ckptDone  chan struct{}
	closeOnce sync.Once
	// file is the SQLite database file ("" for PostgreSQL); readyMinFree
	// is the free space its file system must have for Ping to succeed.
	file         string
	readyMinFree int64
}

// DefaultReadyMinFree is the free space below which Ping reports a SQLite
// database not ready (SetReadyMinFree): room for a few of the largest
// submissions and the write-ahead log they pass through.
const DefaultReadyMinFree = 64 << 20

// SetReadyMinFree sets the free space, in bytes, that the SQLite database's
// file system must have for Ping to succeed (0: any). It has no effect on
// PostgreSQL, whose disk is the server's.
func (db *DB) SetReadyMinFree(n int64) { db.readyMinFree = n }

// Dialect returns the database kind.
func (db *DB) Dialect() Dialect { return db.dialect }

// SQL returns the pool that transactions use, for components (such as the
// job queue) that must share transactions with the store.
func (db *DB) SQL() *sql.DB { return db.write }

// ParseURL splits a database URL into its dialect and the driver's data
// source name. sqlite://verifyd.db and sqlite:///abs/path.db name files;
// postgres:// and postgresql:// URLs go to pgx unchanged.
func ParseURL(raw string) (Dialect, string, error) {
	switch {
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		return Postgres, raw, nil
	case strings.HasPrefix(raw, "sqlite://"), strings.HasPrefix(raw, "sqlite:"):
		rest := strings.TrimPrefix(strings.TrimPrefix(raw, "sqlite:"), "//")
		path, query, _ := strings.Cut(rest, "?")
		if path == "" {
			return "", "", fmt.Errorf("database URL %q names no file", raw)
		}
		if query != "" {
			return "", "", fmt.Errorf("database URL %q: sqlite URLs take no options", raw)
		}
		return SQLite, path, nil
	}
	return "", "", fmt.Errorf("database URL %q: want sqlite://FILE or postgres://…", raw)
}

// Open connects to the database named by rawURL and applies pending schema
// migrations.
func Open(ctx context.Context, rawURL string, logger *slog.Logger) (*DB, error) {
	dialect, dsn, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	db := &DB{dialect: dialect}
	switch dialect {
	case SQLite:
		db.file, db.readyMinFree = dsn, DefaultReadyMinFree
		// busy_timeout lets a second process (the CLI next to a running
		// server) wait for the write lock instead of failing; _txlock=immediate
		// takes the write lock at BEGIN so two writers never deadlock on lock
		// upgrade.
		base := "file:" + (&url.URL{Path: dsn}).EscapedPath() +
			"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
		drv := &sqlite.Driver{}
		// wal_autocheckpoint(0): the writer no longer copies the log into the
		// database file (and fsyncs both) inside a commit every 1,000 pages,
		// holding the one write connection meanwhile; checkpointLoop does it
		// beside the writer.
		db.write = sql.OpenDB(cachingConnector{dsn: base + "&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)&_txlock=immediate", drv: drv})
		db.write.SetMaxOpenConns(1)
		db.write.SetConnMaxIdleTime(0)
		// The writer must create the file and switch it to WAL before readers
		// open it. Switching a new file to WAL takes an exclusive lock that
		// SQLite's busy handler does not wait for, so a process opening the
		// same new file at that moment retries briefly.
		if err := pingRetryBusy(ctx, db.write); err != nil {
			db.write.Close()
			return nil, fmt.Errorf("open sqlite %s: %w", dsn, err)
		}
		db.read = sql.OpenDB(cachingConnector{dsn: base + "&_pragma=query_only(1)", drv: drv})
		db.read.SetMaxOpenConns(8)
		// Keep them all idle between requests: opening a SQLite connection
		// costs far more than a query.
		db.read.SetMaxIdleConns(8)
		db.readStmts = newPreparedStmts(db.read)
		db.ckpt = sql.OpenDB(cachingConnector{dsn: base, drv: drv})
		db.ckpt.SetMaxOpenConns(1)
		db.stopCkpt, db.ckptDone = make(chan struct{}), make(chan struct{})
		go db.checkpointLoop(logger)
		db.batches = newBatcher(db)
	case Postgres:
		if db.write, err = sql.Open("pgx", dsn); err != nil {
			return nil, err
		}
		db.write.SetMaxOpenConns(32)
		db.write.SetMaxIdleConns(32)
		db.write.SetConnMaxIdleTime(5 * time.Minute)
		db.read = db.write
	}
	if err := db.write.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s database: %w", dialect, err)
	}
	if err := db.migrate(ctx, logger); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) migrate(ctx context.Context, logger *slog.Logger) error {
	fsys, err := fs.Sub(migrations, "migrations/"+string(db.dialect))
	if err != nil {
		return err
	}
	gooseDialect := goose.DialectSQLite3
	var opts []goose.ProviderOption
	if db.dialect == Postgres {
		gooseDialect = goose.DialectPostgres
		// Replicas starting together must not apply the same migration twice.
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	if logger != nil {
		opts = append(opts, goose.WithSlog(logger))
	}
	p, err := goose.NewProvider(gooseDialect, db.write, fsys, opts...)
	if err != nil {
		return fmt.Errorf("prepare migrations: %w", err)
	}
	// Goose has no cross-process lock for SQLite. When two processes open a
	// new file together (the server starting while the CLI runs), both see
	// a migration pending; the second waits for the write lock, then fails
	// because the first applied it, and its transaction rolls back. Trying
	// again finds the migration recorded and moves on.
	for attempt := 1; ; attempt++ {
		_, err = p.Up(ctx)
		if err == nil {
			return nil
		}
		if db.dialect != SQLite || attempt == 5 || ctx.Err() != nil {
			return fmt.Errorf("migrate %s schema: %w", db.dialect, err)
		}
	}
}

func pingRetryBusy(ctx context.Context, db *sql.DB) error {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		if err = db.PingContext(ctx); err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return err
}

// Ping reports whether the database answers and can take writes.
//
// A database that answers but cannot write (a full disk, a read-only
// replica after a failover) cannot take a single submission, so Ping
// writes: it commits one small row. /readyz calls it every few seconds;
// the row is overwritten in place.
//
// On SQLite that write alone does not see a full disk: the row's page is
// rewritten into write-ahead log space SQLite already has, so the probe
// kept succeeding on a full file system while every creation failed
// (measured by scripts/hostile-load -only diskfull). Ping therefore also
// asks for the file system's free space and fails below the configured
// minimum (SetReadyMinFree), which takes the replica out of a load
// balancer before its writes start failing, and back once space is freed.
func (db *DB) Ping(ctx context.Context) error {
	_, err := db.write.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ('readyz_write_probe', $1)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, []byte("ok"))
	if err != nil || db.file == "" || db.readyMinFree <= 0 {
		return err
	}
	free, err := freeBytes(filepath.Dir(db.file))
	if errors.Is(err, errFreeSpaceUnknown) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("free space of the database's file system: %w", err)
	}
	if free < db.readyMinFree {
		return fmt.Errorf("the database's file system has %d bytes free, fewer than the %d required", free, db.readyMinFree)
	}
	return nil
}

// checkpointEvery is how often checkpointLoop copies SQLite's
// write-ahead log into the database file.
const checkpointEvery = time.Second

// checkpointLoop checkpoints the write-ahead log every checkpointEvery in
// PASSIVE mode, which neither waits for nor blocks the writer and readers:
// it copies what no reader still needs, and the writer starts the log over
// once all of it is copied. Durability is unchanged: with
// synchronous=NORMAL a commit is durable once the log is synced, which
// happens at checkpoints either way (see docs/performance.md).
func (db *DB) checkpointLoop(logger *slog.Logger) {
	defer close(db.ckptDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-db.stopCkpt:
			return
		case <-t.C:
		}
		if _, _, err := db.checkpoint(context.Background()); err != nil && logger != nil {
			logger.Warn("sqlite checkpoint", "err", err)
		}
	}
}

// checkpoint runs one PASSIVE checkpoint and returns the frames in the
// log and how many of them are now in the database file.
func (db *DB) checkpoint(ctx context.Context) (logFrames, copied int, err error) {
	var busy int
	err = db.ckpt.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied)
	return logFrames, copied, err
}

// Close closes the pools.
func (db *DB) Close() error {
	db.batches.close()
	db.readStmts.close()
	var errs []error
	if db.ckpt != nil {
		db.closeOnce.Do(func() { close(db.stopCkpt) })
		<-db.ckptDone
		errs = append(errs, db.ckpt.Close())
	}
	if db.read != nil && db.read != db.write {
		errs = append(errs, db.read.Close())
	}
	if db.write != nil {
		errs = append(errs, db.write.Close())
	}
	return errors.Join(errs...)
}

// inTx runs fn in a transaction, committing when it returns nil.
//
// On SQLite the transaction may be shared with other callers' (group
// commit, batch.go): fn's writes are committed together with theirs, and
// inTx returns once that commit is done. fn's changes are undone alone when
// fn fails, exactly as a transaction of its own would be.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if db.batches != nil {
		return db.batches.run(ctx, fn)
	}
	return db.inOwnTx(ctx, fn)
}

// inOwnTx runs fn in a transaction of its own.
func (db *DB) inOwnTx(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	// Rolled back also when fn panics: SQLite's one write connection
	// would otherwise stay taken until ctx ends, perhaps never.
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	committed = true
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// micros and fromMicros convert times to the stored representation.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

func nullMicros(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(*t), Valid: true}
}

func fromNullMicros(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

// notFound maps sql.ErrNoRows to the domain's not-found error.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return verifyd.ErrNotFound
	}
	return err
}

// affected maps an update or delete that changed no row to the domain's
// not-found error (the row named is not there, or not the caller's).
func affected(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return verifyd.ErrNotFound
	}
	return nil
}

// collect scans every row of a query with scan, closing the rows; no row
// is an empty, non-nil list. rows and err are readRows' results.
func collect[T any](rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
