package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// preset is a named composition of general stages with one agent's own
// defaults and triggers (the table is presets.go).
type preset struct {
	name   string
	agent  string // the agent, the source files and their version or date
	what   string // one line: what the agent does
	window int    // the model window the defaults assume
	meter  string
	// source is where the agent's token triggers read the context from
	// (context_source): SourceCalibrated for an agent that reads its
	// provider's usage or count, SourceEstimate (the default) for one that
	// counts its history itself.
	source string
	// formats are the recording formats of the agent: --policy auto
	// replays their sessions with the preset.
	formats []corpus.Format
	stages  []presetStage
	// unsure lists what peers.md marks 3rd-party or does not settle, and
	// where the replay departs from the agent: `calib policies` prints it.
	unsure []string
}

// presetStage is one stage of a preset: its name (the prefix of its
// parameters), its kind and the agent's values for the kind's parameters.
type presetStage struct {
	name, kind string
	set        map[string]string
}

// def turns a preset into a registered policy.
func (p preset) def() Def {
	specs := globalSpecs(p.window, p.meter, p.source)
	var names, stages []string
	for _, s := range p.stages {
		k := lookupStageKind(s.kind)
		names = append(names, s.name+" ("+k.help+")")
		stages = append(stages, s.name)
		used := map[string]bool{}
		for _, sp := range append(triggerSpecs(), k.specs()...) {
			if v, ok := s.set[sp.Name]; ok {
				sp.Default = v
				used[sp.Name] = true
			}
			sp.Name = s.name + "." + sp.Name
			specs = append(specs, sp)
		}
		for n := range s.set {
			if !used[n] {
				panic(fmt.Sprintf("policy: preset %s sets %s.%s, which stage kind %s does not have", p.name, s.name, n, s.kind))
			}
		}
	}
	summary := fmt.Sprintf("%s. Agent: %s. Stages: %s.", p.what, p.agent, strings.Join(names, " → "))
	if len(p.unsure) > 0 {
		summary += " Unsure or departing from the agent: " + strings.Join(p.unsure, "; ") + "."
	}
	return Def{Name: p.name, Agent: p.agent, Summary: summary, Specs: specs, Formats: p.formats, Stages: stages,
		New: func(v Values) (Policy, error) { return p.build(v) }}
}

// build makes the composed policy from validated values.
func (p preset) build(v Values) (Policy, error) {
	m, err := NewMeter(v.Str("meter"), MeterOptions{Memo: v.memo})
	if err != nil {
		return nil, err
	}
	g := globals{window: v.Int("window_tokens"), overhead: v.Int("overhead_tokens"), meter: m,
		calibrated: v.Str("context_source") == SourceCalibrated}
	c := &Composed{name: p.name, params: v.Params(), g: g}
	for _, s := range p.stages {
		sv := stageValues{prefix: s.name + ".", v: v}
		t := sv.trigger()
		if err := t.check(sv.prefix, g.window); err != nil {
			return nil, err
		}
		r, err := lookupStageKind(s.kind).build(sv, g)
		if err != nil {
			return nil, err
		}
		c.stages = append(c.stages, composedStage{name: s.name, trig: t, run: r})
		if cs, ok := r.(*clearStage); ok && c.weigh == nil {
			c.weigh = cs
		}
		if _, ok := r.(*thinkingStage); ok {
			c.thinks = true
		}
		if th := t.threshold(g.window); th > 0 && (c.minTrig == 0 || th < c.minTrig) {
			c.minTrig = th
		}
	}
	return c, nil
}

// presetDefs registers every preset, sorted by name.
func presetDefs() []Def {
	ps := presets()
	sort.Slice(ps, func(i, j int) bool { return ps[i].name < ps[j].name })
	out := make([]Def, len(ps))
	for i, p := range ps {
		out[i] = p.def()
	}
	return out
}
