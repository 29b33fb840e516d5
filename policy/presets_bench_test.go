package policy

import (
	"fmt"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// BenchmarkPresetWalk replays a whole session through each preset, every
// checkpoint, as the replay does. The cost per message (ns/msg) should not
// grow with the session: compare it across sizes.
func BenchmarkPresetWalk(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		h := benchHistory(n)
		for _, d := range presetDefs() {
			b.Run(fmt.Sprintf("%s/msgs=%d", d.Name, n), func(b *testing.B) {
				p, err := New(d.Name, nil)
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					walkFast(p, h)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h)), "ns/msg")
			})
		}
	}
}

// walkFast is walk with the running sums kept as the replay keeps them.
func walkFast(p Policy, msgs []corpus.Message) []corpus.Message {
	var h []corpus.Message
	var at Checkpoint
	var prev *corpus.Message
	for i := range msgs {
		m := &msgs[i]
		if p.Checkpoint(prev, m) {
			at.Request = i
			if o := p.Compact(h, at); o.Strategy != None {
				h, at.Units, at.Count = o.History, o.Units, o.Count
			}
		}
		h = append(h, *m)
		u, c := p.Measure(m)
		at.Units += u
		at.Count += c
		prev = m
	}
	return h
}
