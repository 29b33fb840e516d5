package sweep

import (
	"errors"
	"fmt"
	"strings"
)

// maxMissingListed is how many missing shards an error names.
const maxMissingListed = 10

// Merge combines shard reports into the report one run would have
// given. Every shard of one sweep must be present exactly once, with the
// same header apart from the shard, and complete. view, when not nil, is
// applied to the merged sets instead of the view the shards were run with.
func Merge(parts []*Report, names []string, view *View) (*Report, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge: no shard files given")
	}
	first := parts[0]
	seen := map[int]string{}
	var rows []Row
	n := 0
	for i, p := range parts {
		sh, err := ParseShard(p.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: shard %q is not k/n with 1 <= k <= n", names[i], p.Shard)
		}
		k, pn := sh.K, sh.N
		if i == 0 {
			n = pn
		}
		if pn != n {
			return nil, fmt.Errorf("%s is shard %s but %s is shard %s: they split the sweep differently", names[i], p.Shard, names[0], first.Shard)
		}
		// Different sweeps first: two whole sweeps (both 1/1) of two
		// grids are told apart by what differs, not by their shard.
		if d := headerDiff(first.Header, p.Header); d != "" {
			return nil, fmt.Errorf("%s and %s come from different sweeps: %s", names[0], names[i], d)
		}
		if prev, dup := seen[k]; dup {
			return nil, fmt.Errorf("%s and %s are both shard %d/%d: merge joins the shards of one sweep (sweep --shard K/N), each once", prev, names[i], k, n)
		}
		seen[k] = names[i]
		if !p.Complete {
			return nil, fmt.Errorf("%s is an interrupted shard; run it again to completion", names[i])
		}
		if p.View.Top > 0 {
			return nil, &TopShardError{File: names[i], Top: p.View.Top}
		}
		// Without a view of its own, merge keeps the shards': they must
		// agree on it, or the first file named would choose.
		if view == nil && (p.View.Sort != first.View.Sort || strings.Join(p.View.Pareto, ",") != strings.Join(first.View.Pareto, ",")) {
			return nil, fmt.Errorf("%s and %s were run with different views (--sort %q and %q, --pareto %q and %q): give merge the --sort and --pareto to apply",
				names[0], names[i], first.View.Sort, p.View.Sort, strings.Join(first.View.Pareto, ","), strings.Join(p.View.Pareto, ","))
		}
		rows = append(rows, p.Rows...)
	}
	if len(seen) < n {
		// n comes from the file: list a few missing shards, never all of
		// them (a damaged "1/1000000000000" would take hours and memory).
		var missing []string
		for k := 1; k <= n && len(missing) < maxMissingListed; k++ {
			if _, ok := seen[k]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", k, n))
			}
		}
		more := ""
		if rest := n - len(seen) - len(missing); rest > 0 {
			more = fmt.Sprintf(" and %d more", rest)
		}
		return nil, fmt.Errorf("merge: missing shard(s) %s%s", strings.Join(missing, ", "), more)
	}
	for i, p := range parts {
		sh, _ := ParseShard(p.Shard)
		if err := checkRows(p, sh); err != nil {
			return nil, fmt.Errorf("%s: %w", names[i], err)
		}
	}
	h := first.Header
	h.Shard = "1/1"
	v := first.View
	if view != nil {
		v = *view
	}
	return Build(h, v, true, rows)
}

// checkRows refuses a shard whose rows are not the ones its header says
// the sweep ran: each a set of this shard, with that set's grid values, for
// one of its sessions, once, and every set with a row for every session.
// A shard's JSON is easy to edit (jq is the tool for it), and a row
// duplicated, dropped or taken from another shard changed the merged
// totals with nothing said.
func checkRows(p *Report, sh Shard) error {
	g := p.Header.Grid
	points := g.Points()
	sessions := make(map[string]bool, len(p.Sessions))
	for _, s := range p.Sessions {
		sessions[s] = true
	}
	type key struct {
		set     int
		session string
	}
	seen := make(map[key]int, len(p.Rows))
	perSet := map[int]int{}
	for i, r := range p.Rows {
		if r.Set < 0 || int64(r.Set) >= points || !sh.Has(int64(r.Set)) {
			return fmt.Errorf("row %d: set %d is not one of shard %s's (of %d sets); the file was edited or comes from another sweep", i, r.Set, sh, points)
		}
		if !sessions[r.Session] {
			return fmt.Errorf("row %d: session %q is not one of the sweep's sessions", i, r.Session)
		}
		want := g.Set(int64(r.Set), nil)
		for _, a := range g {
			if got := r.Params.Get(a.Name); got != want[a.Name] {
				return fmt.Errorf("row %d: %s=%s, but set %d has %s=%s; the file was edited or comes from another sweep", i, a.Name, got, r.Set, a.Name, want[a.Name])
			}
		}
		k := key{r.Set, r.Session}
		if j, dup := seen[k]; dup {
			return fmt.Errorf("rows %d and %d are both set %d of session %s", j, i, r.Set, r.Session)
		}
		seen[k] = i
		perSet[r.Set]++
	}
	for set := int64(sh.K - 1); set < points; set += int64(max(sh.N, 1)) {
		if n := perSet[int(set)]; n != len(p.Sessions) {
			return fmt.Errorf("set %d has rows for %d of the sweep's %d sessions; a complete shard has them all", set, n, len(p.Sessions))
		}
	}
	return nil
}

func headerDiff(a, b Header) string {
	switch {
	case a.Policy != b.Policy:
		return fmt.Sprintf("policy %s vs %s", a.Policy, b.Policy)
	case a.Fixed.String() != b.Fixed.String():
		return fmt.Sprintf("fixed parameters %s vs %s", orNone(a.Fixed.String()), orNone(b.Fixed.String()))
	case a.Grid.String() != b.Grid.String():
		return "the grids differ"
	case a.Corpus != b.Corpus:
		return fmt.Sprintf("corpus %s vs %s", a.Corpus, b.Corpus)
	case a.Setup.String() != b.Setup.String():
		for _, p := range a.Setup {
			if v := b.Setup.Get(p.Name); v != p.Value {
				return fmt.Sprintf("%s %s vs %s", p.Name, p.Value, orNone(v))
			}
		}
		for _, p := range b.Setup {
			if a.Setup.Get(p.Name) == "" {
				return fmt.Sprintf("%s none vs %s", p.Name, p.Value)
			}
		}
		return fmt.Sprintf("settings %s vs %s", a.Setup, b.Setup)
	case strings.Join(a.Sessions, ",") != strings.Join(b.Sessions, ","):
		// The same fingerprint, other lists: one file was edited.
		return fmt.Sprintf("their lists of sessions differ (%d and %d sessions) under one corpus fingerprint, %s; one file was edited", len(a.Sessions), len(b.Sessions), a.Corpus)
	}
	return ""
}

func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// TopShardError is a shard that kept only its first Top sets: the rows of
// the others are not in it, so no merge can rank them.
type TopShardError struct {
	File string
	Top  int
}

func (e *TopShardError) Error() string {
	return fmt.Sprintf("%s holds only its first %d sets and lacks rows; write the shards with every set", e.File, e.Top)
}
