package main

import (
	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

// inspectPlots draws content bytes by role and tool calls by tool name,
// one stacked bar per session.
func inspectPlots(rows []metrics.InspectRow) ([]report.Figure, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	// sessionNames' rule first, so two inputs with the same id get two
	// distinct bars.
	ids = report.ShortIDs(uniqueNames(ids))
	roleStacks := []report.Stack{}
	for _, role := range []corpus.Role{corpus.RoleUser, corpus.RoleAssistant, corpus.RoleTool, corpus.RoleSystem} {
		vals := make([]float64, len(rows))
		any := false
		for i, r := range rows {
			vals[i] = float64(r.BytesByRole[string(role)]) / 1024
			any = any || vals[i] > 0
		}
		if any || role != corpus.RoleSystem {
			roleStacks = append(roleStacks, report.Stack{Name: string(role), Values: vals})
		}
	}
	bytesPlot, err := report.StackedBars{Title: "Content by role", ValueLabel: "KiB", CategoryLabel: "session", Categories: ids, Stacks: roleStacks}.Plot()
	if err != nil {
		return nil, err
	}
	figs := []report.Figure{{Name: "inspect-bytes-by-role", Chart: bytesPlot}}

	// Tool calls: the most used tools across the corpus get their own
	// layer, the rest are summed into "other" so the legend stays short.
	total := map[string]int{}
	for _, r := range rows {
		for k, v := range r.ToolCallsByName {
			total[k] += v
		}
	}
	if len(total) == 0 {
		return figs, nil
	}
	top := sortedCounts(total)
	const maxLayers = 7
	var toolStacks []report.Stack
	inTop := map[string]bool{}
	for i, tc := range top {
		if i == maxLayers && len(top) > maxLayers+1 {
			break
		}
		inTop[tc.name] = true
		vals := make([]float64, len(rows))
		for j, r := range rows {
			vals[j] = float64(r.ToolCallsByName[tc.name])
		}
		toolStacks = append(toolStacks, report.Stack{Name: tc.name, Values: vals})
	}
	if len(inTop) < len(top) {
		vals := make([]float64, len(rows))
		for j, r := range rows {
			for k, v := range r.ToolCallsByName {
				if !inTop[k] {
					vals[j] += float64(v)
				}
			}
		}
		toolStacks = append(toolStacks, report.Stack{Name: "other", Values: vals})
	}
	toolsPlot, err := report.StackedBars{Title: "Tool calls by tool", ValueLabel: "calls", CategoryLabel: "session", Categories: ids, Stacks: toolStacks, IntegerValues: true}.Plot()
	if err != nil {
		return nil, err
	}
	return append(figs, report.Figure{Name: "inspect-tool-calls", Chart: toolsPlot}), nil
}
