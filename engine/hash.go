package engine

import "crypto/sha256"

func sha(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}
