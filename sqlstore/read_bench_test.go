package sqlstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/sqlstore"
)

// BenchmarkB3Read compares B3's two possible reads of one verification,
// the whole row (Verification) and its projection (VerificationSummary),
// over 1,000 verifications read round-robin by 32 goroutines per core, as
// B3 at c=64 on two cores. Without HTTP around them the difference is
// measured with less of the noise of a shared machine; docs/performance.md
// has the figures:
//
//	go test ./sqlstore -run '^$' -bench B3Read -benchmem
func BenchmarkB3Read(b *testing.B) {
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
			cred := verifyd.StoredCredential{Credential: verifyd.Credential{BusinessID: "biz_a",
				Interface: verifyd.InterfaceIdentity, Environment: verifyd.EnvProduction, APIKey: "vdk_a", CreatedAt: start},
				SealedSecret: []byte("sealed")}
			if err := db.CreateBusiness(ctx, verifyd.Business{ID: "biz_a", Name: "A", CreatedAt: start},
				[]verifyd.StoredCredential{cred}); err != nil {
				b.Fatal(err)
			}
			const n = 1000
			ids := make([]string, n)
			for i := range ids {
				ids[i] = fmt.Sprintf("vrf-%04d", i)
				v := verifyd.Verification{ID: ids[i], BusinessID: "biz_a", Environment: verifyd.EnvProduction,
					APIKey: "vdk_a", Customer: verifyd.Customer{ID: fmt.Sprintf("cust-%04d", i), Email: "a@example.com"},
					Webhook: "https://hooks.example/x", Flow: verifyd.FlowHosted, Status: verifyd.StatusPending,
					HostedTokenHash: []byte(ids[i]), SealedHostedToken: make([]byte, 60),
					CreatedAt: start, UpdatedAt: start, ExpiresAt: start.Add(verifyd.VerificationLifetime)}
				if err := db.CreateVerification(ctx, v, nil); err != nil {
					b.Fatal(err)
				}
			}
			reads := []struct {
				name string
				read func(id string) (string, error)
			}{
				{"whole", func(id string) (string, error) {
					v, err := db.Verification(ctx, "biz_a", verifyd.EnvProduction, id)
					return string(v.Status), err
				}},
				{"summary", func(id string) (string, error) {
					v, err := db.VerificationSummary(ctx, "biz_a", verifyd.EnvProduction, id)
					return string(v.Status), err
				}},
			}
			for _, r := range reads {
				b.Run(r.name, func(b *testing.B) {
					var next atomic.Int64
					b.SetParallelism(32)
					b.ReportAllocs()
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							status, err := r.read(ids[next.Add(1)%n])
							if err != nil || status != string(verifyd.StatusPending) {
								b.Errorf("read: status %q, %v", status, err)
								return
							}
						}
					})
				})
			}
		})
	}
}
