package main

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// evict fsyncs path (dirty pages cannot be dropped) and asks the kernel to
// drop its cached pages, counting the resident ones with mincore.
func evict(path string) (before, after int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	before, err = resident(f)
	if err != nil {
		return 0, 0, err
	}
	if err := f.Sync(); err != nil {
		return before, 0, err
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return before, 0, err
	}
	after, err = resident(f)
	return before, after, err
}

// resident counts f's pages in the page cache (mincore over a mapping of it).
func resident(f *os.File) (int, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, err
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		return 0, e
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n, nil
}
