//go:build !race

package report

// raceEnabled: see race_test.go.
const raceEnabled = false
