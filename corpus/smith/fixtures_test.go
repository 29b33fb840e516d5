package smith_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

var update = flag.Bool("update", false, "rewrite golden files")

// describeSmith renders what a load produced, one line per fact, for the
// golden file: every message (role, id, flags, block kinds), the recorded
// history, the warnings and the errors.
func describeSmith(ss []*corpus.Session, err error) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "session %s format=%s path=%s model=%q title=%q parent=%q ratio=%g created=%s\n",
			s.ID, s.Format, filepath.ToSlash(s.Path), s.Meta.Model, s.Meta.Title, s.Meta.Parent, s.Meta.ContextRatio,
			s.Meta.CreatedAt.Format("2006-01-02T15:04:05Z07:00"))
		list := func(label string, msgs []corpus.Message) {
			for _, m := range msgs {
				var kinds []string
				for _, blk := range m.Blocks {
					kinds = append(kinds, fmt.Sprintf("%s(%d)", blk.Kind, len(blk.Text)+len(blk.Args)))
				}
				fmt.Fprintf(&b, "  %s line=%d id=%s role=%s synthetic=%t summary=%t %s\n",
					label, m.Line, m.ID, m.Role, m.Synthetic, m.Summary, strings.Join(kinds, " "))
			}
		}
		list("msg", s.Messages)
		list("recorded", s.Recorded.History)
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "  warning %s:%d: %s\n", filepath.ToSlash(w.File), w.Line, w.Message)
		}
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(&b, "error %s\n", filepath.ToSlash(line))
		}
	}
	return b.String()
}

func TestSmithFixtures(t *testing.T) {
	for _, name := range []string{"spec-lines.jsonl", "crash.jsonl", "root"} {
		t.Run(name, func(t *testing.T) {
			ss, err := load.Load([]string{filepath.Join("testdata", name)}, corpus.Options{})
			got := describeSmith(ss, err)
			golden := filepath.Join("testdata", strings.TrimSuffix(name, ".jsonl")+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./corpus -run TestSmithFixtures -update)", err)
			}
			if got != string(want) {
				t.Errorf("load of %s differs from %s:\n--- got\n%s--- want\n%s", name, golden, got, want)
			}
		})
	}
}
