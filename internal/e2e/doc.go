// Package e2e holds end-to-end tests that run the real verifyd binary as
// subprocesses: crash safety (SIGKILL while webhook deliveries are in
// flight, then restart on the same database) and several replicas sharing
// one PostgreSQL database. The package has no non-test code.
package e2e
