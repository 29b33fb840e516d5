//go:build !amd64

package loss

// newlines64 is newlines64Go where there is no assembly version.
func newlines64(s string) uint64 { return newlines64Go(s) }
