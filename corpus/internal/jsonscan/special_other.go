//go:build !amd64

package jsonscan

// special64 is special64Go where there is no assembly version.
func special64(b []byte) uint64 { return special64Go(b) }
