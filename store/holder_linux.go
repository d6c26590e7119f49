package store

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockHolder names the process holding a flock on path, from /proc/locks
// ("pid 123 (flock -x journal.lock sleep 600)"); "" when it cannot tell.
// Only readers ask (status, doctor, the panel), never the hook.
func lockHolder(path string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return ""
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return ""
	}
	defer f.Close()
	dev := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF"; a waiter's line has "->".
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != dev {
			continue
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil || pid <= 0 {
			continue
		}
		if pid == os.Getpid() {
			return "" // this process's own (a test's holder)
		}
		cmd, _ := os.ReadFile("/proc/" + fields[4] + "/cmdline")
		cmd = bytes.TrimRight(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}), " ")
		if len(cmd) > 80 {
			cmd = append(cmd[:77], "..."...)
		}
		if len(cmd) == 0 {
			return "pid " + fields[4]
		}
		return "pid " + fields[4] + " (" + string(cmd) + ")"
	}
	return ""
}
