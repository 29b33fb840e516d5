package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
)

func TestZZProf(t *testing.T) {
	args := os.Getenv("PROF_ARGS")
	if args == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(os.Getenv("PROF_DIR") + "/*.jsonl")
	f, _ := os.Create(os.Getenv("PROF_OUT"))
	pprof.StartCPUProfile(f)
	run(context.Background(), append(strings.Fields(args), files...), &IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: os.Stderr})
	pprof.StopCPUProfile()
	f.Close()
}
