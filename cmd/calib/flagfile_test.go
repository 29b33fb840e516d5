package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFlagFileLimit: a file of exactly the limit is read; one byte
// more is refused with its size, the limit and the hint, before it is read
// (the size comes from stat).
func TestReadFlagFileLimit(t *testing.T) {
	dir := t.TempDir()
	at, over := filepath.Join(dir, "at.json"), filepath.Join(dir, "over.json")
	if err := os.WriteFile(at, []byte(strings.Repeat("x", 2048)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, []byte(strings.Repeat("x", 2049)), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := readFlagFile("grid-file", at, 2048, "keep it short")
	if err != nil || len(data) != 2048 {
		t.Fatalf("a file at the limit: %d bytes, %v", len(data), err)
	}
	_, err = readFlagFile("grid-file", over, 2048, "keep it short")
	want := "--grid-file " + over + ": 2049 bytes, over its 2 KiB limit; keep it short"
	if err == nil || err.Error() != want {
		t.Fatalf("a file over the limit: %v\nwant %s", err, want)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 256 << 20: "256 MiB", 1 << 30: "1 GiB", 2048: "2 KiB", 1500: "1500 bytes", 3<<20 + 1: "3145729 bytes"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
