// Package lifecyclebench holds the benchmarks of the verification
// lifecycle (issue: lifecycle): webhook delivery throughput and latency, and
// expiry of many verifications due at once, on SQLite and PostgreSQL, with
// the production queue settings of `verifyd serve`. The package has no
// non-test code; scripts/bench-lifecycle runs the benchmarks and
// docs/performance.md records the results.
package lifecyclebench
