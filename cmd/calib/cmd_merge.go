package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/replay/sweep"
)

func newMergeCmd(a *app) *cobra.Command {
	o := &sweepOptions{}
	cmd := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Merge sweep shards into the report one run would have given",
		Long: `Combine the results of a sweep split with --shard k/n: each FILE is a shard's
--format json report or its --out JSON lines. Every shard must be there
exactly once, from the same policy, fixed parameters, grid and corpus, and
complete; the merged report (in any --format) is byte-identical to the one
a single run of the whole sweep prints. The view flags (--sort, --top,
--pareto, --per-session, --columns, --plot, --plot-metric) apply to the merged sets,
as in sweep: write the shards without --top.`,
		Example: `  calib sweep sessions/ -p smith-staged --grid compact_at=0.6..0.9:0.05 --shard 1/3 --format json > s1.json
  calib merge s1.json s2.json s3.json --format markdown
  calib merge shard-*.json --sort tokens_sent --top 20 --format markdown`,
		GroupID: groupAnalysis,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("merge needs the shard files to merge: calib merge shard-1.json shard-2.json ...")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			view := sweep.View{Sort: o.sort, Top: o.top, Pareto: o.pareto}
			// The shards say what the sweep produced; names are checked here,
			// before reading them.
			cols, err := checkView(view, o.plotMetric, o.columns, nil)
			if err != nil {
				return err
			}
			parts := make([]*sweep.Report, len(args))
			for i, p := range args {
				r, err := readShard(p)
				if err != nil {
					return err
				}
				parts[i] = r
			}
			// Without view flags the merge keeps the view the shards ran with.
			var vp *sweep.View
			if cmd.Flags().Changed("sort") || cmd.Flags().Changed("top") || cmd.Flags().Changed("pareto") {
				vp = &view
			}
			rep, err := sweep.Merge(parts, args, vp)
			var top *sweep.TopShardError
			if errors.As(err, &top) {
				return &inputRefused{fmt.Errorf("%s was written with --top %d and lacks rows; write shards without --top", top.File, top.Top)}
			}
			if err != nil {
				return &inputRefused{err}
			}
			plot := ""
			if a.plotsWanted() {
				plot = o.plotMetric
			}
			if err := shardMetrics(rep, cols, vp, plot); err != nil {
				return err
			}
			// A set's usd covers the sessions with a price; every set
			// covers the same ones, so the first partial set says it.
			flags := usdRanked(rep.View, o.plotMetric, a.plotsWanted())
			for _, r := range rep.Sets {
				if c, ok := coverageOf(r.Metrics, r.UnpricedModels); ok && !r.Incomplete {
					if err := refuseUSDRanking(flags, c); err != nil {
						return err
					}
				}
			}
			broke, warn := sweepViolations(rep, nil)
			if err := writeSweep(a, rep, o.perSession, o.plotMetric, cols, broke); err != nil {
				return err
			}
			a.warnf(warn)
			return nil
		},
	}
	viewFlags(cmd, o)
	return cmd
}

// readShard reads one shard, naming a file it cannot read once, with what
// to do (as loadSessions does), and a folder given for its files.
func readShard(p string) (*sweep.Report, error) {
	if p == "" {
		return nil, usageErrorf("an empty shard argument (\"\"); expected a shard file (calib sweep --format json or --out) (is a shell variable unset?)")
	}
	if p == "-" {
		// Not "no such file": a newcomer who piped a shard in would
		// look for a file named "-".
		return nil, usageErrorf("-: merge reads shard files, not standard input; write each shard to a file (calib sweep ... --shard k/n --format json > shard-k.json) and give the files")
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return nil, usageErrorf("%s: a folder; expected a shard file (calib sweep --format json or --out); give its files, e.g. %s", p, filepath.Join(p, "*.json"))
	} else if err == nil && corpus.SpecialKind(fi.Mode()) != "" && fi.Mode()&os.ModeNamedPipe == 0 {
		// A shard is read whole: /dev/zero was read until memory ran out.
		// A pipe ends when its writer does (a process substitution).
		return nil, usageErrorf("%s: %s, not a shard file; expected the output of calib sweep --format json or --out", p, corpus.SpecialKind(fi.Mode()))
	}
	r, err := sweep.ReadFile(p)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, &inputRefused{fmt.Errorf("%s: %s", p, fileErrorText(err))}
	}
	if err != nil {
		return nil, &inputRefused{err}
	}
	return r, nil
}

// shardMetrics refuses a metric that the chosen columns, the view flags
// given (vp, nil when none) or the plot name and no row of the merged
// shards has (a metric their sweep did not produce, such as agreement
// without --compare-recorded, or a stage their policy lacks): a column
// would be blank on every row, and a ranking would rank on nothing. The
// names were checked against the registry before the shards were read.
func shardMetrics(rep *sweep.Report, cols []string, vp *sweep.View, plotMetric string) error {
	have := map[string]bool{}
	for _, rows := range [][]sweep.Row{rep.Sets, rep.Rows} {
		for _, n := range sweep.MetricNames(rows) {
			have[n] = true
		}
	}
	check := func(flag string, names ...string) error {
		for _, n := range names {
			if n != "" && !have[n] {
				return usageErrorf("%s %s: no row of the shards has it (policy %s; calib metrics says what each metric needs)", flag, n, rep.Policy)
			}
		}
		return nil
	}
	if err := check("--columns", cols...); err != nil {
		return err
	}
	if vp != nil {
		if err := check("--sort", strings.Split(vp.Sort, ",")...); err != nil {
			return err
		}
		if err := check("--pareto", vp.Pareto...); err != nil {
			return err
		}
	}
	return check("--plot-metric", plotMetric)
}
