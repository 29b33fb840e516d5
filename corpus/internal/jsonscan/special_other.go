//go:build !amd64

package jsonscan

// specialBlocks is specialBlocksGo where there is no assembly version.
func specialBlocks(b []byte) int { return specialBlocksGo(b) }
