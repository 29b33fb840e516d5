package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/metrics"
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
--pareto, --per-session, --plot) apply to the merged sets, as in sweep:
write the shards without --top.`,
		Example: `  calib sweep sessions/ -p smith-staged --grid compact_at=0.6..0.9:0.05 --shard 1/3 --format json > s1.json
  calib merge s1.json s2.json s3.json --format markdown
  calib merge shard-*.json --sort tokens_sent --top 20 --format markdown`,
		GroupID: groupAnalysis,
		Args: func(cmd *cobra.Command, args []string) error {
			if a.flags.demo {
				return usageErrorf("merge reads the shard files of a sweep, not a corpus: --demo does not apply (run calib sweep --demo --shard k/n first)")
			}
			if len(args) == 0 {
				return usageErrorf("merge needs the shard files to merge: calib merge shard-1.json shard-2.json ...")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			view := metrics.SweepView{Sort: o.sort, Top: o.top, Pareto: o.pareto}
			// The shards say what the sweep produced; names are checked here,
			// before reading them.
			if err := checkView(view, o.plotMetric, nil); err != nil {
				return err
			}
			parts := make([]*metrics.SweepReport, len(args))
			for i, p := range args {
				r, err := readShard(p)
				if err != nil {
					return &usageError{err}
				}
				parts[i] = r
			}
			// Without view flags the merge keeps the view the shards ran with.
			var vp *metrics.SweepView
			if cmd.Flags().Changed("sort") || cmd.Flags().Changed("top") || cmd.Flags().Changed("pareto") {
				vp = &view
			}
			rep, err := metrics.MergeSweeps(parts, args, vp)
			if err != nil {
				return &usageError{err}
			}
			return writeSweep(a, rep, o.perSession, o.plotMetric)
		},
	}
	viewFlags(cmd, o)
	return cmd
}

// readShard reads a sweep's --format json report or its --out JSON lines.
func readShard(path string) (*metrics.SweepReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`{"header":`)) {
		return readRowStream(path, data)
	}
	var r metrics.SweepReport
	if err := json.Unmarshal(data, &r); err != nil || r.Policy == "" || r.Shard == "" {
		return nil, fmt.Errorf("%s: not a sweep report; expected the output of calib sweep --format json or --out", path)
	}
	return &r, nil
}

func readRowStream(path string, data []byte) (*metrics.SweepReport, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<30)
	var r metrics.SweepReport
	line := 0
	var trailer struct {
		Complete *bool `json:"complete"`
		Rows     int   `json:"rows"`
	}
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			var head struct {
				Header metrics.SweepHeader `json:"header"`
				View   metrics.SweepView   `json:"view"`
			}
			if err := json.Unmarshal(b, &head); err != nil {
				return nil, fmt.Errorf("%s:1: expected the sweep header line: %v", path, err)
			}
			r.SweepHeader, r.View = head.Header, head.View
			continue
		}
		if bytes.HasPrefix(b, []byte(`{"complete":`)) {
			if err := json.Unmarshal(b, &trailer); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			continue
		}
		var row metrics.SweepRow
		if err := json.Unmarshal(b, &row); err != nil {
			return nil, fmt.Errorf("%s:%d: expected a sweep row: %v", path, line, err)
		}
		r.Rows = append(r.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty; expected the --out JSON lines of calib sweep", path)
	}
	r.Complete = trailer.Complete != nil && *trailer.Complete && trailer.Rows == len(r.Rows)
	return &r, nil
}
