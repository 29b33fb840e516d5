package jsonscan

import "github.com/calib-dev/calib/corpus"

// Tallies are a log reader's tallies of what it read only in part: kinds
// it does not know, malformed timestamps, fields of another kind. Each
// warns once per kind and file, with how many and where first.
type Tallies struct {
	Unknown UnknownKinds
	Times   Times
	Odd     OddKinds
}

// NewTallies returns empty tallies.
func NewTallies() Tallies { return Tallies{Unknown: UnknownKinds{}} }

// Warnings are every tally's warnings about file, in that order; agent
// names the agent a newer version of which may have written an unknown
// kind.
func (t *Tallies) Warnings(file, agent string) []corpus.Warning {
	ws := t.Unknown.Warnings(file, agent)
	ws = append(ws, t.Times.Warnings(file)...)
	return append(ws, t.Odd.Warnings(file)...)
}
