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
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/verifyd/verifyd"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
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
}

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
		// busy_timeout lets a second process (the CLI next to a running
		// server) wait for the write lock instead of failing; _txlock=immediate
		// takes the write lock at BEGIN so two writers never deadlock on lock
		// upgrade.
		base := "file:" + (&url.URL{Path: dsn}).EscapedPath() +
			"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
		if db.write, err = sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_txlock=immediate"); err != nil {
			return nil, err
		}
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
		if db.read, err = sql.Open("sqlite", base+"&_pragma=query_only(1)"); err != nil {
			db.write.Close()
			return nil, err
		}
		db.read.SetMaxOpenConns(8)
		// Keep them all idle between requests: opening a SQLite connection
		// costs far more than a query.
		db.read.SetMaxIdleConns(8)
		db.readStmts = newPreparedStmts(db.read)
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

// Ping reports whether the database answers.
//
// A database that answers but cannot write (a full disk, a read-only
// replica after a failover) cannot take a single submission, so Ping
// writes: it commits one small row. /readyz calls it every few seconds;
// the row is overwritten in place.
func (db *DB) Ping(ctx context.Context) error {
	_, err := db.write.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ('readyz_write_probe', $1)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, []byte("ok"))
	return err
}

// Close closes both pools.
func (db *DB) Close() error {
	db.readStmts.close()
	var errs []error
	if db.read != nil && db.read != db.write {
		errs = append(errs, db.read.Close())
	}
	if db.write != nil {
		errs = append(errs, db.write.Close())
	}
	return errors.Join(errs...)
}

// inTx runs fn in a transaction, committing when it returns nil.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
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
