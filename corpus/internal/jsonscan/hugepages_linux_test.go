package jsonscan

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// A large file's buffer is advised to take huge pages: the kernel marks
// the memory it covers "hg" in /proc/self/smaps whether or not it found a
// free huge page, so this holds on any kernel with transparent huge pages
// whatever its memory looks like.
func TestReadWholeAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	p := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(p, make([]byte, 5*hugePage), 0o644); err != nil {
		t.Fatal(err)
	}
	buf, err := ReadWhole(p)
	if err != nil {
		t.Fatal(err)
	}
	mid := uintptr(unsafe.Pointer(&buf[len(buf)/2]))
	flags, err := vmFlags(mid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(flags, "hg") {
		t.Errorf("the middle of a %d-byte buffer is not advised to take huge pages: VmFlags %v", len(buf), flags)
	}
}

// vmFlags returns the VmFlags of the mapping in /proc/self/smaps that
// holds addr.
func vmFlags(addr uintptr) ([]string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if rng, _, ok := strings.Cut(line, " "); ok && strings.Contains(rng, "-") && !strings.HasSuffix(rng, ":") {
			a, b, _ := strings.Cut(rng, "-")
			l, err1 := strconv.ParseUint(a, 16, 64)
			h, err2 := strconv.ParseUint(b, 16, 64)
			if err1 == nil && err2 == nil {
				in = addr >= uintptr(l) && addr < uintptr(h)
				continue
			}
		}
		if in {
			if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok {
				return strings.Fields(rest), nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no mapping in /proc/self/smaps holds %#x", addr)
}
