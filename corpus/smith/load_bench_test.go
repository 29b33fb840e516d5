package smith_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
)

// benchSets caches generated transcript sets per size for the process.
var benchSets sync.Map

func benchSet(b *testing.B, mb int) ([]string, int64) {
	type set struct {
		paths []string
		bytes int64
	}
	if v, ok := benchSets.Load(mb); ok {
		// A set in a test's temporary folder is gone once that benchmark
		// ends (-cpu 1,2 runs each benchmark twice): write it again.
		if s := v.(set); jsonscan.Exists(s.paths[0]) {
			return s.paths, s.bytes
		}
	}
	dir := os.Getenv("CALIB_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	dir = filepath.Join(dir, "tool-heavy-"+smithItoa(mb)+"MB")
	paths, err := synth.WriteSmithSet(dir, synth.ToolHeavy, 1, int64(mb)<<20, 25<<20)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	benchSets.Store(mb, set{paths, n})
	return paths, n
}

func smithItoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// BenchmarkLoadSmith loads a tool-heavy synthetic transcript set with
// Load, the path every command takes. MB/s comes from b.SetBytes.
// scripts/bench.sh runs the 50/200/500 MB sizes against the Python
// baseline; here 50 MB keeps `go test -bench .` short.
func BenchmarkLoadSmith(b *testing.B) {
	for _, mb := range []int{10, 50} {
		b.Run(smithItoa(mb)+"MB", func(b *testing.B) {
			paths, n := benchSet(b, mb)
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ss, err := load.Load(paths, corpus.Options{})
				if err != nil || len(ss) != len(paths) {
					b.Fatalf("load: %d sessions, %v", len(ss), err)
				}
			}
		})
	}
}

// BenchmarkLoadSmithRereads covers many identical reads of 20 KB files.
func BenchmarkLoadSmithRereads(b *testing.B) {
	dir := b.TempDir()
	paths, err := synth.WriteSmithSet(dir, synth.Rereads, 2, 20<<20, 5<<20)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, p := range paths {
		fi, _ := os.Stat(p)
		n += fi.Size()
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := load.Load(paths, corpus.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
