package main

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// inBackground runs fn on a thread of its own at nice 10, so that the git
// processes fn starts (which inherit the thread's priority) yield to the
// agent and its hooks. Only that thread is lowered (on Linux a nice value
// is a thread's): the journal record that follows, under the session lock
// a hook may be waiting for, runs at the normal priority, so a hook never
// waits on a lock held by a process the scheduler holds back.
func inBackground(fn func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the lowered thread ends with the goroutine
		_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 10)
		defer close(done)
		fn()
	}()
	<-done
}
