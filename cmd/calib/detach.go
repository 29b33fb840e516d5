package main

import (
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
)

// A result kept after its session is released (sessionJobs) must not pin the
// session's file: the smith reader's strings point into one buffer per
// file, so one kept substring (a tool name, a loss subject, an id) keeps
// the whole file. detach copies them; a string repeated across rows (the
// session id, a tool name) is copied once.

// keeper copies strings, each distinct one once.
type keeper map[string]string

func (k keeper) keep(s string) string {
	if c, ok := k[s]; ok {
		return c
	}
	c := strings.Clone(s)
	k[c] = c
	return c
}

func (k keeper) all(ss []string) {
	for i := range ss {
		ss[i] = k.keep(ss[i])
	}
}

// warnings copies ws, empty as empty and nil as nil: JSON tells them apart.
func (k keeper) warnings(ws []corpus.Warning) []corpus.Warning {
	if ws == nil {
		return nil
	}
	out := make([]corpus.Warning, len(ws))
	for i, w := range ws {
		out[i] = corpus.Warning{File: k.keep(w.File), Line: w.Line, Message: k.keep(w.Message)}
	}
	return out
}

// detach copies the strings r keeps of its session (ids, tool names,
// subjects, excerpts): the ~5,000 loss rows of a 26 MB smith transcript
// kept all of it.
func (r *replayResult) detach() {
	k := keeper{}
	se := &r.session
	se.ID, se.Path, se.recorded = k.keep(se.ID), k.keep(se.Path), k.keep(se.recorded)
	for i := range se.ViolationList {
		se.ViolationList[i].Detail = k.keep(se.ViolationList[i].Detail)
	}
	if d := se.Compare; d != nil {
		d.What, d.Want, d.Got = k.keep(d.What), k.keep(d.Want), k.keep(d.Got)
	}
	for i := range se.Rederived {
		d := &se.Rederived[i]
		d.CompactionID, d.Trigger, d.Status, d.Kind, d.Verdict = k.keep(d.CompactionID), k.keep(d.Trigger), k.keep(d.Status), k.keep(d.Kind), k.keep(d.Verdict)
		d.From, d.To, d.WantFrom, d.WantTo = k.keep(d.From), k.keep(d.To), k.keep(d.WantFrom), k.keep(d.WantTo)
	}
	for i := range r.events {
		e := &r.events[i]
		e.Session, e.Strategy, e.Summarizer = k.keep(e.Session), k.keep(e.Strategy), k.keep(e.Summarizer)
	}
	for i := range r.losses {
		d := &r.losses[i]
		d.Session, d.ToolCallID, d.Tool, d.Subject = k.keep(d.Session), k.keep(d.ToolCallID), k.keep(d.Tool), k.keep(d.Subject)
		d.Stage, d.NeededBy = k.keep(d.Stage), k.keep(d.NeededBy)
	}
	if c := r.cost; c != nil {
		c.Session, c.Model = k.keep(c.Session), k.keep(c.Model)
		k.all(c.Notes)
	}
	if a := r.agreement; a != nil {
		a.Session, a.Policy = k.keep(a.Session), k.keep(a.Policy)
		for i := range a.Events {
			e := &a.Events[i]
			for _, ss := range [][]string{e.Recorded, e.Predicted, e.Missing, e.Extra, e.Unknown} {
				k.all(ss)
			}
		}
	}
	for i := range r.compactions {
		c := &r.compactions[i]
		c.Session, c.Kind = k.keep(c.Session), k.keep(c.Kind)
	}
}

// detachInspect copies the strings an inspect row keeps of its session:
// its id, path and metadata, the tool names it counts calls by, the
// recorded compactions' and persisted results' fields, its warnings.
func detachInspect(r *metrics.InspectRow) {
	k := keeper{}
	r.ID, r.Format, r.Path, r.AgentVersion, r.Model = k.keep(r.ID), k.keep(r.Format), k.keep(r.Path), k.keep(r.AgentVersion), k.keep(r.Model)
	byName := make(map[string]int, len(r.ToolCallsByName))
	for name, n := range r.ToolCallsByName {
		byName[k.keep(name)] = n
	}
	r.ToolCallsByName = byName
	for i := range r.Recorded {
		c := &r.Recorded[i]
		c.Strategy, c.Trigger, c.Status, c.Kind = k.keep(c.Strategy), k.keep(c.Trigger), k.keep(c.Status), k.keep(c.Kind)
	}
	for i := range r.Persisted {
		p := &r.Persisted[i]
		p.ToolCallID, p.File, p.Placed = k.keep(p.ToolCallID), k.keep(p.File), k.keep(p.Placed)
	}
	r.Warnings = k.warnings(r.Warnings)
}

// release empties a session its job is done with but for what is read of
// it after the jobs, copied out of the file's buffer: its id, format, path
// and warnings (readOnce, file names, plot names, load warnings, --format
// github annotations) and its Meta (the loader puts a Claude Code subagent
// after its parent by Meta.Parent once the folder is read).
func release(s *corpus.Session) {
	k := keeper{}
	m := s.Meta
	for _, f := range []*string{&m.AgentVersion, &m.Model, &m.Provider, &m.Cwd, &m.Title, &m.Kind, &m.Parent} {
		*f = k.keep(*f)
	}
	*s = corpus.Session{ID: k.keep(s.ID), Format: s.Format, Path: k.keep(s.Path), Meta: m, Warnings: k.warnings(s.Warnings)}
}
