//go:build !(linux || darwin || freebsd)

package sqlstore

import "errors"

// errFreeSpaceUnknown is returned where the platform cannot tell.
var errFreeSpaceUnknown = errors.New("free space unknown on this platform")

// freeBytes cannot tell on this platform; Ping then relies on its write.
func freeBytes(string) (int64, error) { return 0, errFreeSpaceUnknown }
