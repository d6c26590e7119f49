package replay

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Progress shows how far a replay is on stderr, when stderr is a
// terminal and the replay has taken more than a second; warnings go
// through it so they do not tangle with the progress line.
type Progress struct {
	w       io.Writer
	tty     bool
	start   time.Time
	mu      sync.Mutex
	shown   bool
	stopped bool
	done    chan struct{}
	wg      sync.WaitGroup

	identified, files, sessions, bytes atomic.Int64
	totalFiles, totalSessions          atomic.Int64
	totalBytes                         atomic.Int64
	replaying                          atomic.Bool
}

// NewProgress shows the replay's progress on w when tty says w is a
// terminal.
func NewProgress(w io.Writer, tty bool) *Progress {
	p := &Progress{w: w, start: time.Now(), done: make(chan struct{})}
	if tty {
		p.tty = true
		p.wg.Go(p.loop)
	}
	return p
}

func (p *Progress) startReplay(groups []*Group) {
	var files, size int64
	for _, g := range groups {
		files += int64(len(g.files))
		size += g.size
	}
	p.totalFiles.Store(files)
	p.totalSessions.Store(int64(len(groups)))
	p.totalBytes.Store(size)
	p.replaying.Store(true)
}

func (p *Progress) loop() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			if time.Since(p.start) < time.Second {
				continue
			}
			p.mu.Lock()
			line := fmt.Sprintf("replay: %d files identified", p.identified.Load())
			if p.replaying.Load() {
				line = fmt.Sprintf("replay: %d/%d sessions, %d/%d files, %.0f/%.0f MB read",
					p.sessions.Load(), p.totalSessions.Load(), p.files.Load(), p.totalFiles.Load(),
					float64(p.bytes.Load())/1e6, float64(p.totalBytes.Load())/1e6)
			}
			fmt.Fprintf(p.w, "\r\033[K%s", line)
			p.shown = true
			p.mu.Unlock()
		}
	}
}

// Warn prints one line, above the progress line.
func (p *Progress) Warn(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
	fmt.Fprintln(p.w, line)
}

// Stop ends the progress line, leaving the totals and the time taken.
func (p *Progress) Stop() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.mu.Unlock()
	close(p.done)
	p.wg.Wait()
	if p.shown {
		el := time.Since(p.start).Seconds()
		mb := float64(p.bytes.Load()) / 1e6
		fmt.Fprintf(p.w, "\r\033[Kreplay: %d sessions, %d files, %.0f MB in %.1f s (%.0f MB/s)\n",
			p.sessions.Load(), p.files.Load(), mb, el, mb/el)
	}
}
