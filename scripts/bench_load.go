//go:build ignore

// bench_load is scripts/bench.sh's helper (excluded from go build/test by
// its build tag). Build it with `go build -o X scripts/bench_load.go`.
//
//	bench_load gen DIR MB    write a tool-heavy synthetic smith set of MB megabytes (MiB) into DIR
//	bench_load load FILE...  load the files once with load.Load (corpus/load); print bytes, seconds, MB/s, heap
//	                         (BENCH_CPUPROFILE=FILE writes a CPU profile of the load)
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench_load:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) >= 3 && args[0] == "gen" {
		mb, err := strconv.Atoi(args[2])
		if err != nil {
			return err
		}
		paths, err := synth.WriteSmithSet(args[1], synth.ToolHeavy, 1, int64(mb)<<20, 25<<20)
		if err != nil {
			return err
		}
		fmt.Printf("wrote %d files into %s\n", len(paths), args[1])
		return nil
	}
	if len(args) >= 2 && args[0] == "load" {
		paths := args[1:]
		var n int64
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		if prof := os.Getenv("BENCH_CPUPROFILE"); prof != "" {
			f, err := os.Create(prof)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		start := time.Now()
		ss, err := load.Load(paths, corpus.Options{})
		secs := time.Since(start).Seconds()
		if err != nil {
			return err
		}
		msgs := 0
		for _, s := range ss {
			msgs += len(s.Messages)
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Printf("go load.Load: %d bytes, %d messages, %.3f s, %.1f MB/s, heap in use %.0f MB (%.2fx input), sys %.0f MB\n",
			n, msgs, secs, float64(n)/secs/1e6, float64(m.HeapInuse)/1e6, float64(m.HeapInuse)/float64(n), float64(m.Sys)/1e6)
		runtime.KeepAlive(ss)
		return nil
	}
	return fmt.Errorf("usage: bench_load gen DIR MB | bench_load load FILE...")
}
