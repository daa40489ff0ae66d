package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib" // reads the job table

	"github.com/verifyd/verifyd/sdk"
)

// TestDeadReplicasJobsAreRescued runs two replicas on one PostgreSQL
// database with the default --queue-rescue-after (2 minutes), SIGKILLs the
// one whose webhook deliveries are in flight, and requires every pending
// delivery to arrive within 45 s through the replica that lives on. River's
// rescuer alone takes over two and a half minutes here (RescueAfter, its
// 30 s interval, then the retry backoff); the liveness locks of
// queue/liveness.go let the survivor take the jobs within seconds.
func TestDeadReplicasJobsAreRescued(t *testing.T) {
	t.Parallel()
	const n = 10
	ctx := context.Background()
	d := newDeployment(t, "postgres")
	d.serveArgs = []string{"--queue-rescue-after", "2m"}
	cred := d.createBusiness(t, "rescue").cred(t, "identity", "sandbox")
	rcv := newReceiver(t, cred)
	gate := make(chan struct{})
	rcv.gate.Store(&gate)
	opened := false
	defer func() {
		if !opened {
			close(gate)
		}
	}()

	a := d.startServer(t, "a")
	b := d.startServerPoll(t, "b", 35*time.Millisecond)
	started := a.logLines(t, "River client started")
	if len(started) != 1 {
		t.Fatalf("replica a logged %d River client starts, want 1", len(started))
	}
	aID := fmt.Sprint(started[0]["client_id"])

	cl := a.identityClient(t, cred)
	var ids []string
	for i := range n {
		v, err := cl.Identity().Create(ctx, sdk.CreateRequest{Customer: sdk.Customer{ID: uuid.NewString(), Email: fmt.Sprintf("r%d@example.com", i)}, Webhook: rcv.url()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Sandbox().Simulate(ctx, v.ID, sdk.StatusStarted, ""); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, v.ID)
	}

	db, err := sql.Open("pgx", d.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runningOn := func(client string) int {
		var k int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery' AND state = 'running'
			AND attempted_by[array_length(attempted_by, 1)] = $1`, client).Scan(&k); err != nil {
			t.Fatal(err)
		}
		return k
	}
	var held int
	if !waitFor(30*time.Second, 20*time.Millisecond, func() bool { held = runningOn(aID); return held > 0 }) {
		t.Fatal("replica a never had a delivery in flight")
	}
	a.kill()
	killed := time.Now()
	close(gate)
	opened = true
	t.Logf("replica a killed with %d deliveries in flight", held)

	delivered := func() int {
		got := rcv.okStatuses()
		k := 0
		for _, id := range ids {
			if got[id][string(sdk.StatusStarted)] {
				k++
			}
		}
		return k
	}
	if !waitFor(45*time.Second, 50*time.Millisecond, func() bool { b.checkAlive(t); return delivered() == n }) {
		t.Fatalf("45 s after the kill %d of %d deliveries arrived; %d jobs still running on the dead replica", delivered(), n, runningOn(aID))
	}
	t.Logf("all %d deliveries arrived %s after the kill", n, time.Since(killed).Round(time.Millisecond))
	// The requests replica a had sent before it died can reach the
	// receiver once the gate opens, before b's rescuer has run: arrival
	// alone does not show the rescue (a CI run saw all ten 1 s after the
	// kill with two jobs still marked running on a). The rescue must
	// follow within the same bound.
	rescued := func() bool {
		return runningOn(aID) == 0 && len(b.logLines(t, "jobs left running by a dead replica made available")) > 0
	}
	if !waitFor(45*time.Second, 50*time.Millisecond, func() bool { b.checkAlive(t); return rescued() }) {
		if k := runningOn(aID); k != 0 {
			t.Errorf("%d jobs still marked running on the dead replica 45 s after the deliveries", k)
		}
		if len(b.logLines(t, "jobs left running by a dead replica made available")) == 0 {
			t.Error("replica b did not log the rescue")
		}
	}
}
