package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/report"
)

// costSessionJSON is one session's bill in replay's JSON ("cost").
type costSessionJSON struct {
	Session     string                 `json:"session"`
	Model       string                 `json:"model"`
	Priced      bool                   `json:"priced"`
	Cache       policy.Params          `json:"cache"`
	Calibration cache.Calibration      `json:"calibration"`
	Metrics     map[string]float64     `json:"metrics"`
	Compactions []cache.CompactionCost `json:"compactions"`
	Notes       []string               `json:"notes"`
}

func costSession(sc *cache.SessionCost) costSessionJSON {
	j := costSessionJSON{Session: sc.Session, Model: sc.Model, Priced: sc.Priced, Cache: sc.Params.Values(),
		Calibration: sc.Calibration, Metrics: metrics.CostMetrics(sc), Compactions: sc.Compactions, Notes: sc.Notes}
	if j.Compactions == nil {
		j.Compactions = []cache.CompactionCost{}
	}
	if j.Notes == nil {
		j.Notes = []string{}
	}
	return j
}

// costTables are replay's cost tables: the bill per session, and per
// compaction what it cost and saved.
func costTables(cs []*cache.SessionCost) []*report.Table {
	if len(cs) == 0 {
		return nil
	}
	t := report.NewTable("Cost (prompt-cache model; billed = input-token equivalents)", report.TextCol("session"),
		report.TextCol("model"), report.NumCol("requests"), report.NumCol("input"), report.NumCol("cache write"),
		report.NumCol("cache read"), report.NumCol("output"), report.NumCol("billed"), report.NumCol("usd"),
		report.NumCol("hit rate"), report.NumCol("breaks"), report.NumCol("summary calls"), report.NumCol("scale"),
		report.NumCol("overhead"), report.TextCol("cache"), report.TextCol("notes"))
	comp := report.NewTable("Cost per compaction (billed tokens; net = saved − rewrite − summarizer)", report.TextCol("session"),
		report.NumCol("request"), report.NumCol("rewrite tokens"), report.NumCol("rewrite billed"), report.NumCol("summarizer"),
		report.NumCol("saved tokens"), report.NumCol("requests after"), report.NumCol("saved billed"), report.NumCol("net"))
	for _, sc := range cs {
		tot := sc.Totals
		usd := report.Str("-")
		if sc.Priced {
			usd = report.Float(tot.USD, 4)
		}
		scale, overhead := report.Str("policy"), report.Str("policy")
		if sc.Calibration.Recorded {
			scale, overhead = report.Float(sc.Calibration.Scale, 3), report.Int(sc.Calibration.Overhead)
		}
		// A session with no prompt has no hit rate (its JSON metrics
		// leave cache_hit_rate out); 0 read as "nothing cached". A
		// fraction of 4 decimals, as compare and sweep show the metric
		// (a percentage here made one CSV carry it two ways).
		hit := report.Empty()
		if tot.Prompt() > 0 {
			hit = report.Float(tot.HitRate(), 4)
		}
		t.AddRow(report.Str(sc.Session), report.Str(sc.Model), report.Int(tot.Requests), report.Int(tot.Uncached),
			report.Int(tot.Write()), report.Int(tot.Read), report.Int(tot.Output), report.Int(int64(tot.Billed+0.5)), usd,
			hit, report.Int(tot.Breaks), report.Int(tot.SummaryCalls), scale, overhead,
			report.Str(cacheLabel(sc.Params)), report.Str(strings.Join(sc.Notes, "; ")))
		for _, c := range sc.Compactions {
			comp.AddRow(report.Str(sc.Session), report.Int(c.Request), report.Int(c.RewriteTokens), report.Int(int64(c.RewriteBilled+0.5)),
				report.Int(int64(c.SummaryBilled+0.5)), report.Int(c.SavedTokens), report.Int(c.RequestsAfter),
				report.Int(int64(c.SavedBilled+0.5)), report.Int(int64(roundHalf(c.NetBilled))))
		}
	}
	out := []*report.Table{t}
	if len(comp.Rows) > 0 {
		out = append(out, comp)
	}
	return out
}

func roundHalf(f float64) float64 {
	if f < 0 {
		return f - 0.5
	}
	return f + 0.5
}

// cacheLabel is the short form of the cache parameters for a table.
func cacheLabel(p cache.Params) string {
	ttl := "5m"
	if p.TTL.Hours() >= 1 {
		ttl = "1h"
	}
	return fmt.Sprintf("%s/%s/%s", p.Provider, p.Break, ttl)
}

// costAgreementTables: per session recorded against predicted (and the
// overall summary), then per request.
func costAgreementTables(a cache.Agreement) []*report.Table {
	t := report.NewTable(fmt.Sprintf("Cost agreement (billed input; %d sessions, mean |error| %s, max %s)",
		a.Summary.Sessions, pct(a.Summary.MeanAbsBilledError), pct(a.Summary.MaxAbsBilledError)),
		report.TextCol("session"), report.NumCol("requests"), report.NumCol("recorded input"), report.NumCol("predicted input"),
		report.NumCol("recorded write"), report.NumCol("predicted write"), report.NumCol("recorded read"), report.NumCol("predicted read"),
		report.NumCol("recorded billed"), report.NumCol("predicted billed"), report.NumCol("error"))
	per := report.NewTable("Cost agreement per request", report.TextCol("session"), report.NumCol("request"), report.NumCol("line"),
		report.TextCol("rule"), report.NumCol("recorded input"), report.NumCol("predicted input"), report.NumCol("recorded write"),
		report.NumCol("predicted write"), report.NumCol("recorded read"), report.NumCol("predicted read"))
	for _, s := range a.Sessions {
		t.AddRow(report.Str(s.Session), report.Int(s.Requests), report.Int(s.Recorded.InputTokens), report.Int(s.Predicted.InputTokens),
			report.Int(s.Recorded.CacheWriteTokens), report.Int(s.Predicted.CacheWriteTokens), report.Int(s.Recorded.CacheReadTokens),
			report.Int(s.Predicted.CacheReadTokens), report.Int(int64(s.Recorded.BilledTokens+0.5)), report.Int(int64(s.Predicted.BilledTokens+0.5)),
			report.Str(signedPct(s.BilledError)))
		for _, r := range s.PerRequest {
			per.AddRow(report.Str(s.Session), report.Int(r.Request), report.Int(r.Line), report.Str(string(r.Reason)),
				report.Int(r.Recorded.InputTokens), report.Int(r.Predicted.InputTokens), report.Int(r.Recorded.CacheWriteTokens),
				report.Int(r.Predicted.CacheWriteTokens), report.Int(r.Recorded.CacheReadTokens), report.Int(r.Predicted.CacheReadTokens))
		}
	}
	return []*report.Table{t, per}
}

func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

func signedPct(f float64) string {
	s := strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
	if f >= 0 {
		s = "+" + s
	}
	return s
}
