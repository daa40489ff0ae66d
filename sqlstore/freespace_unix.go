//go:build linux || darwin || freebsd

package sqlstore

import (
	"errors"

	"golang.org/x/sys/unix"
)

// errFreeSpaceUnknown is returned where the platform cannot tell.
var errFreeSpaceUnknown = errors.New("free space unknown on this platform")

// freeBytes is the space of dir's file system that an unprivileged
// process may still use.
func freeBytes(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(uint64(st.Bavail) * uint64(st.Bsize)), nil
}
