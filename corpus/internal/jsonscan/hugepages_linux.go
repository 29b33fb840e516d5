package jsonscan

import (
	"syscall"
	"unsafe"
)

// hugePages asks Linux to back the 2 MB-aligned middle of b, not yet
// touched, with transparent huge pages. Where THP is set to "madvise"
// (the default of many distributions) memory gets them only when asked;
// where it is "always" they would come anyway, and where it is "never"
// or the kernel has none the advice changes nothing. The bytes are the
// same either way, so an error is ignored: it only leaves small pages.
func hugePages(b []byte) {
	if len(b) < hugePage {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + hugePage - 1) &^ (hugePage - 1)
	hi := (p + uintptr(len(b))) &^ (hugePage - 1)
	if hi > lo {
		_ = syscall.Madvise(b[lo-p:hi-p], syscall.MADV_HUGEPAGE)
	}
}

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14).
const madvPopulateWrite = 23

// populate asks Linux to map every page of b now, in one system call.
// Touched for the first time by a copy, each page of a large buffer
// faults, and a fault that returns while the garbage collector is asking
// the goroutine to stop delivers its signal there: a copy of 126 MB into
// a fresh buffer took seconds of signals. An error (an older kernel) only
// leaves the pages to fault.
func populate(b []byte) {
	if len(b) == 0 {
		return
	}
	_ = syscall.Madvise(b[:cap(b)], madvPopulateWrite)
}
