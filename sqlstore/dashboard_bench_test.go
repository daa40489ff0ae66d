package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/sqlstore"
)

// noJobs accepts every job and keeps none: the benchmark measures reads.
type noJobs struct{}

func (noJobs) EnqueueTx(context.Context, *sql.Tx, ...sqlstore.Job) error { return nil }

// BenchmarkListVerifications measures the dashboard's listing on a
// business with 10,000 verifications next to another with as many:
// the first page, a filtered page, a search, and a page deep in the
// listing (the 100th, by its cursor). docs/dashboard-data.md has the
// figures:
//
//	go test ./sqlstore -run '^$' -bench ListVerifications -benchtime 200x
func BenchmarkListVerifications(b *testing.B) {
	for _, d := range testdb.Dialects {
		b.Run(d, func(b *testing.B) {
			ctx := context.Background()
			db, err := sqlstore.Open(ctx, testdb.URL(b, d), logger)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			db.SetEnqueuer(noJobs{})
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			reasons := []verifyd.Reason{verifyd.ReasonMinor, verifyd.ReasonPhotoMismatch, verifyd.ReasonExpiredID}
			const n = 10_000
			for _, biz := range []string{"biz_a", "biz_b"} {
				var creds []verifyd.StoredCredential
				for _, e := range verifyd.Environments {
					creds = append(creds, verifyd.StoredCredential{Credential: verifyd.Credential{BusinessID: biz,
						Interface: verifyd.InterfaceIdentity, Environment: e, APIKey: "vdk_" + biz + "_" + string(e), CreatedAt: start},
						SealedSecret: []byte("sealed")})
				}
				if err := db.CreateBusiness(ctx, verifyd.Business{ID: biz, Name: biz, CreatedAt: start}, creds); err != nil {
					b.Fatal(err)
				}
				for i := 0; i < n; i++ {
					c := creds[i%2]
					v := verifyd.Verification{ID: fmt.Sprintf("%s-%06d", biz, i), BusinessID: biz, Environment: c.Environment,
						APIKey: c.APIKey, Customer: verifyd.Customer{ID: fmt.Sprintf("cust-%05d", i%5000), Email: "a@example.com"},
						Webhook: "https://hooks.example/x", Flow: verifyd.FlowDirect, Status: verifyd.StatusApproved,
						CreatedAt: start.Add(time.Duration(i) * time.Minute), UpdatedAt: start, ExpiresAt: start.Add(verifyd.VerificationLifetime)}
					if i%3 == 0 {
						v.Status, v.Reason = verifyd.StatusFailed, reasons[i%len(reasons)]
					}
					if err := db.CreateVerification(ctx, v, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
			deep := verifyd.VerificationQuery{BusinessID: "biz_a", Limit: 50}
			for p := 0; p < 99; p++ {
				page, err := db.ListVerifications(ctx, deep)
				if err != nil || len(page) != 50 {
					b.Fatalf("page %d: %d rows, %v", p, len(page), err)
				}
				last := page[len(page)-1]
				deep.After = &verifyd.VerificationCursor{CreatedAt: last.CreatedAt, ID: last.ID}
			}
			for _, c := range []struct {
				name string
				q    verifyd.VerificationQuery
			}{
				{"first-page", verifyd.VerificationQuery{BusinessID: "biz_a", Limit: 50}},
				{"failed-minor-production", verifyd.VerificationQuery{BusinessID: "biz_a", Status: verifyd.StatusFailed,
					Reason: verifyd.ReasonMinor, Environment: verifyd.EnvProduction, Limit: 50}},
				{"customer-search", verifyd.VerificationQuery{BusinessID: "biz_a", Search: "cust-01234", Limit: 50}},
				{"page-100", deep},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := db.ListVerifications(ctx, c.q); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
