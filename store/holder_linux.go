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
// flockers are the pids /proc/locks gives for the flocks on the file st
// describes: the processes that took them. ok is false when /proc/locks
// cannot be read.
func flockers(st *syscall.Stat_t) (pids []int, ok bool) {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	dev := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF"; a waiter's line has "->".
		fields := strings.Fields(sc.Text())
		if len(fields) >= 6 && fields[1] == "FLOCK" && fields[5] == dev {
			if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
	}
	return pids, true
}

// heldByOther reports whether the flock on path is held now by a process
// that is not cully's own, as /proc/locks and each holder's name say (a
// writer the machine's load kept from releasing it in time is cully's; a
// lock released since is nobody's); true when it cannot tell. The hook
// asks it only when its record went to pending/, to tell the agent about
// a real holder and not about a slow machine, and a writer that cannot
// have its session's lock, to wait on for cully's own (unlocked.go).
func heldByOther(path string) bool {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return true
	}
	pids, ok := flockers(&st)
	if !ok {
		return true
	}
	for _, pid := range pids {
		if pid == os.Getpid() {
			continue // this process's own writers (a long-lived cully: the panel, a test)
		}
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if err != nil {
			continue // gone since /proc/locks was read: it holds nothing now
		}
		if !bytes.HasPrefix(comm, []byte("cully")) {
			return true
		}
	}
	return false
}

func lockHolder(path string) ([]int, string) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return nil, ""
	}
	pids := map[int]bool{}
	held, _ := flockers(&st)
	for _, pid := range held {
		pids[pid] = true
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
