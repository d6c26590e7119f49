package store

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockHolder names the processes holding a flock on path, their pids and
// in words ("pid 123 (flock -x journal.lock sleep 600), pid 124 (sleep
// 600)"); none when it cannot tell. /proc/locks says that the file is locked and by
// whom the lock was taken; every process with the file open shares it (a
// `flock -x FILE sleep 600` leaves it with its sleep as well, so ending
// flock alone does not free it), so those are found in /proc/*/fd. Only
// readers ask (status, doctor, the panel), never the hook.
func lockHolder(path string) ([]int, string) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return nil, ""
	}
	pids := map[int]bool{}
	if f, err := os.Open("/proc/locks"); err == nil {
		dev := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF"; a waiter's line has "->".
			fields := strings.Fields(sc.Text())
			if len(fields) >= 6 && fields[1] == "FLOCK" && fields[5] == dev {
				if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
					pids[pid] = true
				}
			}
		}
		f.Close()
	}
	if fds, _ := filepath.Glob("/proc/[0-9]*/fd/*"); len(fds) > 0 {
		for _, fd := range fds {
			var fst syscall.Stat_t
			if syscall.Stat(fd, &fst) == nil && fst.Dev == st.Dev && fst.Ino == st.Ino {
				if pid, err := strconv.Atoi(strings.Split(fd, "/")[2]); err == nil {
					pids[pid] = true
				}
			}
		}
	}
	delete(pids, os.Getpid()) // this process's own (a test's holder, or a descriptor of its own)
	var list []int
	for pid := range pids {
		list = append(list, pid)
	}
	sort.Ints(list)
	var parts []string
	for _, pid := range list {
		p := "pid " + strconv.Itoa(pid)
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		cmd = bytes.TrimRight(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}), " ")
		if len(cmd) > 100 {
			cmd = append(cmd[:97], "..."...)
		}
		if len(cmd) > 0 {
			p += " (" + string(cmd) + ")"
		}
		parts = append(parts, p)
	}
	return list, strings.Join(parts, ", ")
}
