//go:build !race

package claudecode

// raceEnabled: see race_test.go.
const raceEnabled = false
