package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/report"
)

type policiesJSON struct {
	Policies []policyJSON `json:"policies"`
	// Cache is the prompt-cache model's parameters, which every policy
	// accepts through --set (and --cache presets).
	Cache policyJSON `json:"cache"`
}

type policyJSON struct {
	Name    string      `json:"name"`
	Summary string      `json:"summary"`
	Params  []paramJSON `json:"params"`
}

type paramJSON struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Default string `json:"default"`
	Range   string `json:"range"`
	Help    string `json:"help"`
}

func newPoliciesCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "policies [NAME...]",
		Short: "List every policy with its parameters, defaults and ranges",
		Long: `List every compaction policy calib can replay, with each parameter's
default and valid range. Parameters are set on replay, sweep and
digest-growth with --set name=value,name=value, and swept with
--grid name=v1,v2.`,
		Example: `  calib policies
  calib policies clai-rotation
  calib policies smith-staged --format json`,
		GroupID: groupAnalysis,
		Args:    cobra.ArbitraryArgs,
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return policy.Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			defs := policy.Defs()
			if len(args) > 0 {
				defs = defs[:0:0]
				for _, n := range args {
					d, err := policy.Lookup(n)
					if err != nil {
						return &usageError{err}
					}
					defs = append(defs, d)
				}
			}
			var doc report.Doc
			out := policiesJSON{Policies: []policyJSON{}}
			// CSV has no table titles: one table with a policy column,
			// so every row says whose parameter it is.
			csv := report.NewTable("policies", report.TextCol("policy"),
				report.TextCol("parameter"), report.TextCol("default"), report.TextCol("range"), report.TextCol("meaning"))
			for _, d := range defs {
				t := report.NewTable(d.Name+": "+d.Summary,
					report.TextCol("parameter"), report.TextCol("default"), report.TextCol("range"), report.TextCol("meaning"))
				pj := policyJSON{Name: d.Name, Summary: d.Summary, Params: []paramJSON{}}
				for _, s := range d.Specs {
					t.AddRow(report.Str(s.Name), report.Str(s.Default), report.Str(s.Range()), report.Str(s.Help))
					csv.AddRow(report.Str(d.Name), report.Str(s.Name), report.Str(s.Default), report.Str(s.Range()), report.Str(s.Help))
					pj.Params = append(pj.Params, paramJSON{Name: s.Name, Kind: string(s.Kind), Default: s.Default, Range: s.Range(), Help: s.Help})
				}
				doc.Tables = append(doc.Tables, t)
				out.Policies = append(out.Policies, pj)
			}
			if len(args) == 0 {
				t, cj := cacheParams()
				doc.Tables = append(doc.Tables, t)
				out.Cache = cj
				for _, r := range t.Rows {
					csv.AddRow(append([]report.Cell{report.Str("cache")}, r...)...)
				}
			}
			if a.Format == report.CSV {
				doc.Tables = []*report.Table{csv}
			}
			doc.JSON = out
			return a.write(doc)
		},
	}
}

// cacheParams lists the prompt-cache model's parameters: any policy takes
// them through --set, and --cache names presets of them.
func cacheParams() (*report.Table, policyJSON) {
	summary := "prompt-cache model of every replay (--set, or --cache " + strings.Join(cache.PresetNames(), "|") + ")"
	t := report.NewTable("cache: "+summary,
		report.TextCol("parameter"), report.TextCol("default"), report.TextCol("range"), report.TextCol("meaning"))
	pj := policyJSON{Name: "cache", Summary: summary, Params: []paramJSON{}}
	for _, s := range cache.Specs() {
		t.AddRow(report.Str(s.Name), report.Str(s.Default), report.Str(s.Range()), report.Str(s.Help))
		pj.Params = append(pj.Params, paramJSON{Name: s.Name, Kind: string(s.Kind), Default: s.Default, Range: s.Range(), Help: s.Help})
	}
	return t, pj
}
