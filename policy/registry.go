package policy

import (
	"github.com/calib-dev/calib/policy/suggest"
	"slices"

	"github.com/calib-dev/calib/corpus"

	"fmt"
	"strings"
)

// Def describes a policy: its name, what it models, its parameters and how
// to build it from validated values.
type Def struct {
	Name    string
	Summary string
	Specs   []ParamSpec
	New     func(v Values) (Policy, error)
	// Stages are the names of the stages the policy reports
	// (StageReport.Name), in the order it runs them: reports show one
	// column per stage in this order, whatever the data.
	Stages []string
	// Rotates is true for policies that replace the history by a digest
	// and a tail (what digest-growth and --rotations measure).
	Rotates bool
	// Formats are the recording formats whose agent the policy models:
	// `--policy auto` replays a session of one of them with this policy.
	Formats []corpus.Format
	// Agent names the agent whose compaction the policy models, with the
	// source and version its defaults come from; empty for a general
	// policy. `calib compare` runs every policy that has one.
	Agent string
	// Only lists the formats whose sessions the policy replays as their
	// agent would (empty: every format). `calib compare`, which ranks
	// agents' policies, skips the others; replay, sweep and digest-growth
	// replay any session with the policy they are given, and the
	// invariant checks report what comes of it (clai-rotation's 16-message
	// tail separates a Claude Code tool call from its result).
	Only []corpus.Format
}

// Applies reports whether the policy replays a session of format f as its
// agent would (Only).
func (d Def) Applies(f corpus.Format) bool { return len(d.Only) == 0 || slices.Contains(d.Only, f) }

// Defs lists every policy, in the order `calib policies` shows them. Each
// policy file contributes one Def function; the list is built on each call
// so that no package state exists.
func Defs() []Def {
	return append([]Def{
		// one line per policy, in policy/<name>.go
		smithStagedDef(),
		smithLegacyDef(),
		claiRotationDef(),
		clearToolResultsDef(),
		claudeCodeDef(),
		codexDef(),
		recordedDef(),
	}, presetDefs()...)
}

// ForFormat names the policy that models the agent that recorded format f
// (the first in Defs that lists it), or the first policy (smith-staged)
// for a format no policy claims.
func ForFormat(f corpus.Format) string {
	ds := Defs()
	for _, d := range ds {
		if slices.Contains(d.Formats, f) {
			return d.Name
		}
	}
	return ds[0].Name
}

// Names lists the policy names.
func Names() []string {
	ds := Defs()
	n := make([]string, len(ds))
	for i, d := range ds {
		n[i] = d.Name
	}
	return n
}

// Lookup finds a policy by name.
func Lookup(name string) (Def, error) {
	for _, d := range Defs() {
		if d.Name == name {
			return d, nil
		}
	}
	return Def{}, fmt.Errorf("unknown policy %q%s (available: %s; `calib policies` lists their parameters)", name, suggest.Hint(name, Names()), strings.Join(Names(), ", "))
}

// New builds a policy from --set style settings, validating every value.
func New(name string, set map[string]string) (Policy, error) {
	d, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return d.Build(set, nil)
}

// Build is New for a policy already looked up, why: Lookup builds every
// definition (Defs), which costs more than building the policy, and a
// sweep builds one policy per parameter set and job. memo is a shared
// o200k memo (nil: the policy's own), for many policies replaying one
// corpus, as a sweep's jobs do.
func (d Def) Build(set map[string]string, memo *TokenMemo) (Policy, error) {
	v, err := Resolve(d.Name, d.Specs, set)
	if err != nil {
		return nil, err
	}
	v.memo = memo
	return d.New(v)
}
