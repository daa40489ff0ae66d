// Package verifyd holds the domain of the verifyd service: the types that
// the wire contract (SPEC.md) talks about, the rules that decide whether a
// value is acceptable, the error type every layer returns, and the storage
// interfaces the service depends on.
//
// The package imports nothing heavy. Storage lives in sqlstore, HTTP in
// httpapi, use cases in tenant and identity, and the public client in sdk.
package verifyd
