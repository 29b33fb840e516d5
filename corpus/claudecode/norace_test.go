//go:build !race

package claudecode_test

// raceEnabled: see race_test.go.
const raceEnabled = false
