package httpapi_test

// Throughput and latency benchmarks of the HTTP API over real loopback HTTP,
// on both databases, at several client concurrencies. Run them with
// scripts/bench-api; docs/performance.md records results and how to read
// them.
//
// Each sub-benchmark runs exactly c client goroutines that pull request
// numbers from a shared counter until b.N requests are done (b.RunParallel
// cannot run one goroutine on a 2-core machine). Every response's status is
// checked; the first wrong one stops the workers and fails the benchmark.
// Besides ns/op (wall time divided by b.N, i.e. the inverse of throughput,
// not a latency) each reports req/s and the p50 and p99 of the per-request
// latency, measured from sending the request to reading the whole body.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/signature"
)

// benchConcurrency are the client concurrencies each benchmark runs at.
var benchConcurrency = []int{1, 8, 64}

// benchPrecreated is how many verifications BenchmarkB3Get reads round-robin.
const benchPrecreated = 1000

// benchClient returns an HTTP client that keeps a connection per worker
// alive, so the benchmark measures requests, not TCP handshakes.
func benchClient(b *testing.B) *http.Client {
	tr := &http.Transport{
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 128,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: time.Minute}
}

// benchRequest is one request of a run: newReq builds it for request number
// i (0 ≤ i < b.N); want is the only acceptable status.
type benchRequest struct {
	newReq func(i int) (*http.Request, error)
	want   int
}

// runLoad sends b.N requests with exactly c goroutines and reports req/s,
// p50-µs and p99-µs. Anything done before it (setup, precomputing request
// bodies and signatures) is outside the timed region.
func runLoad(b *testing.B, hc *http.Client, c int, r benchRequest) {
	b.Helper()
	n := b.N
	lat := make([]time.Duration, n)
	var (
		next    atomic.Int64
		stop    atomic.Bool
		errOnce sync.Once
		failure error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { failure = err })
		stop.Store(true)
	}
	b.ResetTimer()
	start := time.Now()
	for g := 0; g < c; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				req, err := r.newReq(i)
				if err != nil {
					fail(fmt.Errorf("request %d: %w", i, err))
					return
				}
				t0 := time.Now()
				res, err := hc.Do(req)
				if err != nil {
					fail(fmt.Errorf("request %d: %w", i, err))
					return
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				lat[i] = time.Since(t0)
				if err != nil {
					fail(fmt.Errorf("request %d: reading body: %w", i, err))
					return
				}
				if res.StatusCode != r.want {
					fail(fmt.Errorf("request %d (%s %s) at c=%d: status %d, want %d; body %s",
						i, req.Method, req.URL.Path, c, res.StatusCode, r.want, body))
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	// b.Fatal must run on the benchmark's goroutine, so the workers only
	// record the first failure and stop; it is reported here.
	if failure != nil {
		b.Fatal(failure)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(n)/elapsed.Seconds(), "req/s")
	b.ReportMetric(micros(percentile(lat, 50)), "p50-µs")
	b.ReportMetric(micros(percentile(lat, 99)), "p99-µs")
}

// percentile returns the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (len(sorted)*p + 99) / 100 // ceil(n·p/100)
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// eachBenchServer runs fn as sub-benchmark "<dialect>" on a fresh server of
// each database. PostgreSQL sub-benchmarks skip (through testdb) when
// VERIFYD_TEST_DATABASE_URL is unset. Without -v the testing package prints
// nothing for a skipped benchmark, so the skip is announced on stdout too:
// a results table must not silently lack its PostgreSQL rows.
func eachBenchServer(b *testing.B, fn func(b *testing.B, ts *testserver.Server)) {
	for _, d := range testdb.Dialects {
		b.Run(d, func(b *testing.B) {
			defer func() {
				if b.Skipped() && !testing.Verbose() {
					fmt.Printf("--- SKIP: %s: no %s database (PostgreSQL needs VERIFYD_TEST_DATABASE_URL; scripts/bench-api sets it)\n", b.Name(), d)
				}
			}()
			fn(b, testserver.Start(b, d, testserver.Options{}))
		})
	}
}

// signedPost returns a B1 request body for a new customer and its
// Authorization header.
func signedPost(key, secret string) (body []byte, auth string, err error) {
	body, err = json.Marshal(createBody(newCustomerID(), "https://hooks.example.com/idv", ""))
	if err != nil {
		return nil, "", err
	}
	return body, signature.Header(key, signature.Sign(secret, body)), nil
}

func postRequest(url string, body []byte, auth string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", auth)
	return req, nil
}

// BenchmarkB3Get measures B3, GET /api/v1/identity-verification/{id}, over
// 1,000 verifications created beforehand, read round-robin. The request
// signatures are computed before the timer starts.
func BenchmarkB3Get(b *testing.B) {
	eachBenchServer(b, func(b *testing.B, ts *testserver.Server) {
		cred := ts.Credential(idp, prd)
		base := ts.BaseURL(idp, prd)
		hc := benchClient(b)
		ids := precreate(b, hc, base, cred.APIKey, cred.APISecret, benchPrecreated)
		urls := make([]string, len(ids))
		auths := make([]string, len(ids))
		for k, id := range ids {
			path := "/api/v1/identity-verification/" + id
			urls[k] = base + path
			auths[k] = signature.Header(cred.APIKey, signature.Sign(cred.APISecret, []byte(path)))
		}
		for _, c := range benchConcurrency {
			b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
				runLoad(b, hc, c, benchRequest{want: http.StatusOK, newReq: func(i int) (*http.Request, error) {
					k := i % len(urls)
					req, err := http.NewRequest(http.MethodGet, urls[k], nil)
					if err != nil {
						return nil, err
					}
					req.Header.Set("Authorization", auths[k])
					return req, nil
				}})
			})
		}
	})
}

// precreate creates n verifications through B1 with 8 workers and returns
// their ids.
func precreate(b *testing.B, hc *http.Client, base, key, secret string, n int) []string {
	b.Helper()
	ids := make([]string, n)
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		failure error
	)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				id, err := createOne(hc, base, key, secret)
				if err != nil {
					errOnce.Do(func() { failure = fmt.Errorf("pre-creating verification %d: %w", i, err) })
					return
				}
				ids[i] = id
			}
		}()
	}
	wg.Wait()
	if failure != nil {
		b.Fatal(failure)
	}
	return ids
}

func createOne(hc *http.Client, base, key, secret string) (string, error) {
	body, auth, err := signedPost(key, secret)
	if err != nil {
		return "", err
	}
	req, err := postRequest(base+"/api/v1/identity-verification", body, auth)
	if err != nil {
		return "", err
	}
	res, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("status %d, want 201; body %s", res.StatusCode, raw)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.ID == "" {
		return "", fmt.Errorf("B1 answer has no id: %s", raw)
	}
	return out.ID, nil
}

// BenchmarkB1Create measures B1, POST /api/v1/identity-verification, each
// request for a new customer. The b.N bodies and their signatures are
// computed before the timer starts; every request inserts a row, so the
// table grows across runs as it would in service.
func BenchmarkB1Create(b *testing.B) {
	eachBenchServer(b, func(b *testing.B, ts *testserver.Server) {
		cred := ts.Credential(idp, prd)
		url := ts.BaseURL(idp, prd) + "/api/v1/identity-verification"
		hc := benchClient(b)
		for _, c := range benchConcurrency {
			b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
				bodies := make([][]byte, b.N)
				auths := make([]string, b.N)
				for i := range bodies {
					var err error
					if bodies[i], auths[i], err = signedPost(cred.APIKey, cred.APISecret); err != nil {
						b.Fatal(err)
					}
				}
				runLoad(b, hc, c, benchRequest{want: http.StatusCreated, newReq: func(i int) (*http.Request, error) {
					return postRequest(url, bodies[i], auths[i])
				}})
			})
		}
	})
}

// BenchmarkBareNetHTTP is the ceiling: a net/http handler that answers a
// small fixed JSON body, driven by the same client and load loop, on the
// same machine.
func BenchmarkBareNetHTTP(b *testing.B) {
	payload := []byte(`{"id":"2b0c5f7e-3f5c-4d7a-9a53-1f1c2b7d9e10","status":"pending","reason":""}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(payload)
	}))
	b.Cleanup(srv.Close)
	hc := benchClient(b)
	url := srv.URL + "/api/v1/identity-verification/" + strings.Repeat("0", 36)
	for _, c := range benchConcurrency {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			runLoad(b, hc, c, benchRequest{want: http.StatusOK, newReq: func(int) (*http.Request, error) {
				return http.NewRequest(http.MethodGet, url, nil)
			}})
		})
	}
}
