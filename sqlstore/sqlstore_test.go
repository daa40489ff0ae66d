package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/sqlstore"
	"github.com/verifyd/verifyd/storetest"
)

var logger = slog.New(slog.DiscardHandler)

// recordJobs stands in for the job queue (the queue package tests the real
// one). It records the jobs it is given in a table of the store's database,
// inside the store's transaction, as the real queue does: a job shows up
// only when the change that enqueued it commits.
type recordJobs struct {
	mu   sync.Mutex
	fail error // refuse every job with this error (storetest.Harness.FailJobs)
}

const jobsTable = `CREATE TABLE IF NOT EXISTS storetest_jobs (
	seq     %s PRIMARY KEY,
	kind    TEXT NOT NULL,
	subject TEXT NOT NULL,
	run_at  BIGINT
)`

func (r *recordJobs) EnqueueTx(ctx context.Context, tx *sql.Tx, jobs ...sqlstore.Job) error {
	r.mu.Lock()
	fail := r.fail
	r.mu.Unlock()
	if fail != nil {
		return fail
	}
	for _, j := range jobs {
		var runAt sql.NullInt64
		if !j.RunAt.IsZero() {
			runAt = sql.NullInt64{Int64: j.RunAt.UnixMicro(), Valid: true}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO storetest_jobs (kind, subject, run_at) VALUES ($1, $2, $3)`,
			string(j.Kind), j.Subject, runAt); err != nil {
			return fmt.Errorf("record job: %w", err)
		}
	}
	return nil
}

// recorders maps each store opened by open to its job recorder.
var recorders sync.Map // *sqlstore.DB → *recordJobs

// open opens the database at url and closes it when the test ends.
func open(t *testing.T, url string) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(t.Context(), url, logger)
	if err != nil {
		t.Fatalf("sqlstore.Open: %v", err)
	}
	seq := "INTEGER" // an alias of SQLite's rowid: increasing
	if db.Dialect() == sqlstore.Postgres {
		seq = "BIGSERIAL"
	}
	if _, err := db.SQL().ExecContext(t.Context(), fmt.Sprintf(jobsTable, seq)); err != nil {
		db.Close()
		t.Fatalf("create job recording table: %v", err)
	}
	r := &recordJobs{}
	db.SetEnqueuer(r)
	recorders.Store(db, r)
	t.Cleanup(func() {
		recorders.Delete(db)
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// harness connects storetest to stores opened on fresh databases of dialect.
func harness(dialect string) storetest.Harness {
	return storetest.Harness{
		Open: func(t *testing.T) verifyd.Store { return open(t, testdb.URL(t, dialect)) },
		Jobs: func(t *testing.T, s verifyd.Store) []storetest.Job {
			t.Helper()
			rows, err := s.(*sqlstore.DB).SQL().QueryContext(t.Context(),
				`SELECT kind, subject, run_at FROM storetest_jobs ORDER BY seq`)
			if err != nil {
				t.Fatalf("read recorded jobs: %v", err)
			}
			defer rows.Close()
			var jobs []storetest.Job
			for rows.Next() {
				var j storetest.Job
				var runAt sql.NullInt64
				if err := rows.Scan(&j.Kind, &j.Subject, &runAt); err != nil {
					t.Fatalf("read recorded jobs: %v", err)
				}
				if runAt.Valid {
					j.RunAt = time.UnixMicro(runAt.Int64).UTC()
				}
				jobs = append(jobs, j)
			}
			if err := rows.Err(); err != nil {
				t.Fatalf("read recorded jobs: %v", err)
			}
			return jobs
		},
		FailJobs: func(s verifyd.Store, err error) {
			v, ok := recorders.Load(s)
			if !ok {
				panic("FailJobs: store not opened by open")
			}
			r := v.(*recordJobs)
			r.mu.Lock()
			r.fail = err
			r.mu.Unlock()
		},
	}
}

// skipUnavailable skips a dialect's tests once, up front, when its server is
// not configured, rather than once per test of the suite.
func skipUnavailable(t *testing.T, dialect string) {
	t.Helper()
	if dialect == "postgres" && os.Getenv("VERIFYD_TEST_DATABASE_URL") == "" {
		testdb.Skip(t, "PostgreSQL tests need VERIFYD_TEST_DATABASE_URL "+
			"(e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)")
	}
}

func TestStore(t *testing.T) {
	t.Parallel()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			skipUnavailable(t, dialect)
			storetest.Run(t, harness(dialect))
		})
	}
}

// TestStatusHistoryIsAppendOnly checks that the database itself refuses to
// rewrite history, whatever the code running against it does.
func TestStatusHistoryIsAppendOnly(t *testing.T) {
	t.Parallel()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			skipUnavailable(t, dialect)
			ctx := t.Context()
			db := open(t, testdb.URL(t, dialect))
			now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
			key := "vdk_live_idv_hist"
			if err := db.CreateBusiness(ctx, verifyd.Business{ID: "biz_hist", Name: "H", CreatedAt: now},
				[]verifyd.StoredCredential{{Credential: verifyd.Credential{BusinessID: "biz_hist",
					Interface: verifyd.InterfaceIdentity, Environment: verifyd.EnvProduction, APIKey: key,
					CreatedAt: now}, SealedSecret: []byte("sealed")}}); err != nil {
				t.Fatalf("CreateBusiness: %v", err)
			}
			v := verifyd.Verification{ID: "vrf_hist", BusinessID: "biz_hist", Environment: verifyd.EnvProduction,
				APIKey: key, Customer: verifyd.Customer{ID: "cus_1", Email: "a@example.com"},
				Webhook: "https://shop.example/hook", Flow: verifyd.FlowHosted, Status: verifyd.StatusPending,
				CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(verifyd.VerificationLifetime)}
			if err := db.CreateVerification(ctx, v, nil); err != nil {
				t.Fatalf("CreateVerification: %v", err)
			}
			if _, err := db.TransitionVerification(ctx, verifyd.Transition{VerificationID: v.ID,
				To: verifyd.StatusStarted, Cause: verifyd.CauseHostedOpened, At: now.Add(time.Minute)}, "evt_hist"); err != nil {
				t.Fatalf("TransitionVerification: %v", err)
			}
			before, err := db.StatusEvents(ctx, v.ID)
			if err != nil || len(before) != 2 {
				t.Fatalf("StatusEvents = %d entries, %v; want 2", len(before), err)
			}
			for _, stmt := range []string{
				`UPDATE verification_events SET to_status = 'approved' WHERE verification_id = 'vrf_hist' AND seq = 2`,
				`UPDATE verification_events SET actor = 'intruder'`,
				`UPDATE verification_events SET at = at`, // even a no-op rewrite
				`UPDATE verification_events SET seq = seq + 10 WHERE verification_id = 'vrf_hist'`,
			} {
				if _, err := db.SQL().ExecContext(ctx, stmt); err == nil {
					t.Errorf("%s: succeeded, want the append-only trigger to refuse it", stmt)
				} else if !strings.Contains(err.Error(), "append-only") {
					t.Errorf("%s: failed with %v, want the append-only trigger's error", stmt, err)
				}
			}
			after, err := db.StatusEvents(ctx, v.ID)
			if err != nil {
				t.Fatalf("StatusEvents: %v", err)
			}
			if !reflect.DeepEqual(after, before) {
				t.Errorf("history changed by refused updates:\n\tbefore %+v\n\tafter  %+v", before, after)
			}
			// Appending is still allowed.
			if _, err := db.TransitionVerification(ctx, verifyd.Transition{VerificationID: v.ID,
				To: verifyd.StatusApproved, Cause: verifyd.CauseEngine, At: now.Add(2 * time.Minute)}, "evt_hist2"); err != nil {
				t.Fatalf("TransitionVerification after refused updates: %v", err)
			}
			if got, err := db.StatusEvents(ctx, v.ID); err != nil || len(got) != 3 {
				t.Errorf("StatusEvents after a further transition = %d entries, %v; want 3", len(got), err)
			}
		})
	}
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url     string
		dialect sqlstore.Dialect
		dsn     string
	}{
		{"sqlite://verifyd.db", sqlstore.SQLite, "verifyd.db"},
		{"sqlite:///abs/x.db", sqlstore.SQLite, "/abs/x.db"},
		{"sqlite:rel.db", sqlstore.SQLite, "rel.db"},
		{"sqlite:/abs/y.db", sqlstore.SQLite, "/abs/y.db"},
		{"sqlite://./data/verifyd.db", sqlstore.SQLite, "./data/verifyd.db"},
		{"sqlite:///var/lib/verifyd dir/v.db", sqlstore.SQLite, "/var/lib/verifyd dir/v.db"},
		{"postgres://user:pw@db.internal:5432/verifyd?sslmode=require",
			sqlstore.Postgres, "postgres://user:pw@db.internal:5432/verifyd?sslmode=require"},
		{"postgres://postgres@127.0.0.1/postgres", sqlstore.Postgres, "postgres://postgres@127.0.0.1/postgres"},
		{"postgresql://db.internal/verifyd?sslmode=disable&pool_max_conns=4",
			sqlstore.Postgres, "postgresql://db.internal/verifyd?sslmode=disable&pool_max_conns=4"},
	}
	for _, tt := range tests {
		dialect, dsn, err := sqlstore.ParseURL(tt.url)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tt.url, err)
			continue
		}
		if dialect != tt.dialect || dsn != tt.dsn {
			t.Errorf("ParseURL(%q) = %q, %q; want %q, %q", tt.url, dialect, dsn, tt.dialect, tt.dsn)
		}
	}

	bad := []string{
		"",
		"verifyd.db",
		"/var/lib/verifyd.db",
		"sqlite:",
		"sqlite://",
		"sqlite://verifyd.db?mode=ro",
		"sqlite:verifyd.db?_pragma=journal_mode(DELETE)",
		"mysql://root@localhost/verifyd",
		"file:verifyd.db",
		"postgres:verifyd",
		"postgres:/verifyd",
		"http://db.internal/verifyd",
		" sqlite://verifyd.db",
	}
	for _, raw := range bad {
		if dialect, dsn, err := sqlstore.ParseURL(raw); err == nil {
			t.Errorf("ParseURL(%q) = %q, %q; want an error", raw, dialect, dsn)
		}
	}
}

// gooseVersions counts the applied-migration records.
func gooseVersions(t *testing.T, db *sqlstore.DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM goose_db_version`).Scan(&n); err != nil {
		t.Fatalf("count migrations: %v", err)
	}
	return n
}

func TestMigrationsAreIdempotent(t *testing.T) {
	t.Parallel()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			skipUnavailable(t, dialect)
			ctx := t.Context()
			url := testdb.URL(t, dialect)
			first, err := sqlstore.Open(ctx, url, logger)
			if err != nil {
				t.Fatalf("first Open: %v", err)
			}
			applied := gooseVersions(t, first)
			b := verifyd.Business{ID: "biz_kept", Name: "Kept", CreatedAt: time.Now()}
			if err := first.CreateBusiness(ctx, b, nil); err != nil {
				t.Fatalf("CreateBusiness: %v", err)
			}
			if err := first.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			for i := range 2 {
				db := open(t, url) // the second stays open while the third opens
				if n := gooseVersions(t, db); n != applied {
					t.Errorf("reopen %d: %d migration records, want %d as after the first Open", i+1, n, applied)
				}
				if _, err := db.Business(ctx, b.ID); err != nil {
					t.Errorf("reopen %d: business written before reopening: %v", i+1, err)
				}
			}
		})
	}
}

// TestConcurrentOpenOfFreshDatabase starts several openers on one empty
// database at once, as replicas (or the CLI next to a starting server) do:
// each must succeed and the schema must be applied once.
func TestConcurrentOpenOfFreshDatabase(t *testing.T) {
	t.Parallel()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			skipUnavailable(t, dialect)
			url := testdb.URL(t, dialect)
			const n = 4
			dbs := make([]*sqlstore.DB, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { dbs[i], errs[i] = sqlstore.Open(t.Context(), url, logger) })
			}
			wg.Wait()
			for i := range n {
				if errs[i] != nil {
					t.Errorf("opener %d: %v", i, errs[i])
					continue
				}
				t.Cleanup(func() { dbs[i].Close() })
			}
			if t.Failed() {
				return
			}
			want := gooseVersions(t, dbs[0])
			for i, db := range dbs {
				if got := gooseVersions(t, db); got != want {
					t.Errorf("opener %d sees %d migration records, opener 0 sees %d", i, got, want)
				}
				if err := db.Ping(t.Context()); err != nil {
					t.Errorf("opener %d: Ping: %v", i, err)
				}
			}
		})
	}
}

// TestSQLiteSecondOpenerWrites is the CLI next to a running server: a second
// Open of the same file must be able to write while the first is open (and
// writing), and each must see the other's writes.
func TestSQLiteSecondOpenerWrites(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := testdb.URL(t, "sqlite")
	server := open(t, url)
	// The server has written, so its writer connection is open and idle.
	if err := server.CreateBusiness(ctx, verifyd.Business{ID: "biz_server", Name: "S", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatalf("server CreateBusiness: %v", err)
	}
	if _, err := server.Businesses(ctx); err != nil {
		t.Fatalf("server Businesses: %v", err)
	}

	cli := open(t, url)
	if err := cli.CreateBusiness(ctx, verifyd.Business{ID: "biz_cli", Name: "C", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatalf("second opener CreateBusiness while the first is open: %v", err)
	}
	if _, err := server.Business(ctx, "biz_cli"); err != nil {
		t.Errorf("first opener does not see the second's write: %v", err)
	}
	if _, err := cli.Business(ctx, "biz_server"); err != nil {
		t.Errorf("second opener does not see the first's write: %v", err)
	}

	// Both write at once; busy waiting must serialize them, not fail them.
	const each = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for _, w := range []struct {
		name string
		db   *sqlstore.DB
	}{{"server", server}, {"cli", cli}} {
		wg.Go(func() {
			for i := range each {
				b := verifyd.Business{ID: fmt.Sprintf("biz_%s_%d", w.name, i), Name: w.name, CreatedAt: time.Now()}
				if err := w.db.CreateBusiness(ctx, b, nil); err != nil {
					errs <- fmt.Errorf("%s write %d: %w", w.name, i, err)
				}
				if _, err := w.db.PutSettingIfAbsent(ctx, "race", []byte(w.name)); err != nil {
					errs <- fmt.Errorf("%s setting %d: %w", w.name, i, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for name, db := range map[string]*sqlstore.DB{"server": server, "cli": cli} {
		list, err := db.Businesses(ctx)
		if err != nil {
			t.Fatalf("%s Businesses: %v", name, err)
		}
		if want := 2 + 2*each; len(list) != want {
			t.Errorf("%s sees %d businesses, want %d", name, len(list), want)
		}
	}
}

func TestSQLiteUsesWAL(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t, "sqlite")
	db := open(t, url)
	var mode string
	if err := db.SQL().QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatalf("PRAGMA journal_mode: %v", err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode of the store's connection = %q, want wal", mode)
	}

	// WAL is a property of the file: a plain connection sees it too.
	_, path, err := sqlstore.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := raw.QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatalf("PRAGMA journal_mode on a plain connection: %v", err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode of the file = %q, want wal", mode)
	}
}

// TestSQLitePathNeedingEscapes opens a file whose directory name holds
// characters that mean something in a URI.
func TestSQLitePathNeedingEscapes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my data #1 %20 & more")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "verifyd.db")
	db := open(t, "sqlite://"+path)
	if err := db.CreateBusiness(t.Context(), verifyd.Business{ID: "biz_x", Name: "X", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatalf("CreateBusiness: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file is not where the URL names it: %v", err)
	}
}

// TestRedactionIsInTheDatabase looks into the tables themselves: after a
// redaction no image row of the verification is left, the customer's
// e-mail is gone from its row, and a store opened again on the same
// database (a restart) still shows it redacted, with its status and
// reason.
func TestRedactionIsInTheDatabase(t *testing.T) {
	t.Parallel()
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			skipUnavailable(t, dialect)
			ctx := t.Context()
			url := testdb.URL(t, dialect)
			first, err := sqlstore.Open(ctx, url, logger)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			seq := "INTEGER"
			if first.Dialect() == sqlstore.Postgres {
				seq = "BIGSERIAL"
			}
			if _, err := first.SQL().ExecContext(ctx, fmt.Sprintf(jobsTable, seq)); err != nil {
				t.Fatalf("create job recording table: %v", err)
			}
			first.SetEnqueuer(&recordJobs{})
			created := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
			b := verifyd.Business{ID: "biz_r", Name: "R", CreatedAt: created}
			cred := verifyd.StoredCredential{Credential: verifyd.Credential{BusinessID: b.ID, Interface: verifyd.InterfaceIdentity,
				Environment: verifyd.EnvProduction, APIKey: "vdk_live_idv_r", CreatedAt: created}, SealedSecret: []byte("s")}
			if err := first.CreateBusiness(ctx, b, []verifyd.StoredCredential{cred}); err != nil {
				t.Fatalf("CreateBusiness: %v", err)
			}
			v := verifyd.Verification{ID: "vrf_r", BusinessID: b.ID, Environment: verifyd.EnvProduction, APIKey: cred.APIKey,
				Customer: verifyd.Customer{ID: "0d6f0c2e-7a1b-4e3c-8f5d-6a2b9c1e4f70", Email: "erase.me@example.org"},
				Webhook:  "https://shop.example/hook", Flow: verifyd.FlowDirect, Status: verifyd.StatusPending,
				Document:  verifyd.DocumentInfo{Type: verifyd.DocPassport, Country: "fra"},
				CreatedAt: created, UpdatedAt: created, ExpiresAt: created.Add(verifyd.VerificationLifetime)}
			images := []verifyd.StoredImage{
				{Kind: verifyd.ImageSelfie, Format: "jpeg", Width: 640, Height: 480, SHA256: []byte("1"), Sealed: []byte("selfie")},
				{Kind: verifyd.ImageDocumentFront, Format: "jpeg", Width: 640, Height: 480, SHA256: []byte("2"), Sealed: []byte("front")},
			}
			if err := first.CreateVerification(ctx, v, images); err != nil {
				t.Fatalf("CreateVerification: %v", err)
			}
			count := func(db *sqlstore.DB, q string) int {
				t.Helper()
				var n int
				if err := db.SQL().QueryRowContext(ctx, q, v.ID).Scan(&n); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				return n
			}
			const imageRows = `SELECT COUNT(*) FROM verification_images WHERE verification_id = $1`
			const emailRows = `SELECT COUNT(*) FROM verifications WHERE id = $1 AND customer_email LIKE '%erase.me%'`
			if n := count(first, imageRows); n != 2 {
				t.Fatalf("image rows before the redaction = %d, want 2", n)
			}
			for _, to := range []verifyd.Status{verifyd.StatusStarted, verifyd.StatusFailed} {
				tr := verifyd.Transition{VerificationID: v.ID, To: to, At: created.Add(time.Minute)}
				if to == verifyd.StatusFailed {
					tr.Reason = verifyd.ReasonPotentialFraud
				}
				if _, err := first.TransitionVerification(ctx, tr, "evt_r_"+string(to)); err != nil {
					t.Fatalf("TransitionVerification(%s): %v", to, err)
				}
			}
			if _, err := first.RedactVerification(ctx, v.ID, nil, created.Add(time.Hour)); err != nil {
				t.Fatalf("RedactVerification: %v", err)
			}
			if n := count(first, imageRows); n != 0 {
				t.Errorf("image rows after the redaction = %d, want 0", n)
			}
			if n := count(first, emailRows); n != 0 {
				t.Errorf("the e-mail is still in the verification's row")
			}
			if err := first.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}

			second := open(t, url) // the restart
			got, err := second.VerificationByID(ctx, v.ID)
			if err != nil {
				t.Fatalf("VerificationByID after the restart: %v", err)
			}
			if got.RedactedAt == nil || !got.RedactedAt.Equal(created.Add(time.Hour)) || got.Status != verifyd.StatusFailed ||
				got.Reason != verifyd.ReasonPotentialFraud || got.Customer.Email != "" || got.Customer.ID != v.Customer.ID {
				t.Errorf("after the restart: redacted %v, status %s, reason %s, email %q, customer %q",
					got.RedactedAt, got.Status, got.Reason, got.Customer.Email, got.Customer.ID)
			}
			if n := count(second, imageRows); n != 0 {
				t.Errorf("image rows after the restart = %d, want 0", n)
			}
		})
	}
}
