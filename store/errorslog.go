package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"
)

// ErrorsLogName is the error log's name in a state dir (ErrorsLog), for a
// watcher of the dir (the panel's tailer).
const ErrorsLogName = "errors.log"

// ErrorsTail is what errors.log holds after an offset: how many records,
// and the last of them, so that a reader (the panel, `cully doctor`) can
// say that hook calls are failing without reading the log again whole.
type ErrorsTail struct {
	Next   int64     // where the next read starts: just past the last whole line
	N      int       // records after the offset
	LastAt time.Time // the last record's time (zero when it has none)
	Last   string    // the last record's operation and the first line of its error
}

// ErrorsAfter reads errors.log from byte off: from its start when the log
// is shorter than off (it was rotated to errors.log.1 since; the records
// that went with it are not counted), and nothing but its end when off is
// negative, to start counting from now. It reads at most the log's size
// bound, whole lines only, and opens the log as every opener of the store
// does (no symlink, FIFO or device). No log is no record.
func (h Home) ErrorsAfter(off int64) (ErrorsTail, error) {
	f, err := openFile(h.ErrorsLog(), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return ErrorsTail{Next: max(off, 0)}, nil
	}
	if err != nil {
		return ErrorsTail{Next: max(off, 0)}, err
	}
	defer f.Close()
	if off < 0 {
		return ErrorsTail{Next: f.size}, nil
	}
	if f.size < off {
		off = 0
	}
	n := min(f.size-off, 4*maxErrorLog)
	b := make([]byte, n)
	if n > 0 {
		if m, err := f.ReadAt(b, off); m < len(b) {
			return ErrorsTail{Next: off}, err
		}
	}
	end := bytes.LastIndexByte(b, '\n') + 1 // a line still being written waits
	t := ErrorsTail{Next: off + int64(end)}
	var last []byte
	for _, l := range bytes.Split(b[:end], []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) > 0 {
			t.N++
			last = l
		}
	}
	if last != nil {
		var rec struct {
			TS    time.Time `json:"ts"`
			Op    string    `json:"op"`
			Error string    `json:"error"`
		}
		if json.Unmarshal(last, &rec) == nil {
			msg, _, _ := bytes.Cut([]byte(rec.Error), []byte{'\n'})
			t.LastAt, t.Last = rec.TS, rec.Op+": "+string(msg)
		} else {
			t.Last = "a record that is not JSON"
		}
	}
	return t, nil
}
