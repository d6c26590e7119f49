package hookbridge

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// MaxLine is the longest line of a recorded session a replay reads; a
// longer one is skipped (and counted) rather than held in memory.
const MaxLine = 64 << 20

// readers are Lines' buffers, reused from file to file.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<20) }}

// ErrStop, returned by a Lines callback, ends the read without an error.
var ErrStop = errors.New("stop")

// Lines calls fn with each line of r, without its newline or a carriage
// return before it (as bufio.ScanLines cuts them), in one buffer reused
// from line to line: fn must copy what it keeps. Lines longer than MaxLine
// are not passed on; Lines returns how many there were.
func Lines(r io.Reader, fn func(line []byte) error) (long int, err error) {
	return lines(r, MaxLine, fn)
}

func lines(r io.Reader, max int, fn func(line []byte) error) (long int, err error) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	var acc []byte // a line longer than the reader's buffer, gathered
	over := false  // the current line is past MaxLine: drop it
	for {
		chunk, rerr := br.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			if !over && len(acc)+len(chunk) > max {
				over, acc = true, acc[:0]
			}
			if !over {
				acc = append(acc, chunk...)
			}
			continue
		}
		line := chunk
		if len(acc) > 0 {
			acc = append(acc, chunk...)
			line = acc
		}
		switch {
		case over || len(line) > max:
			long++
		case len(line) > 0:
			line = bytes.TrimSuffix(line, []byte{'\n'})
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if err := fn(line); err != nil {
				if err == ErrStop {
					return long, nil
				}
				return long, err
			}
		}
		over, acc = false, acc[:0]
		if rerr == io.EOF {
			return long, nil
		}
		if rerr != nil {
			return long, rerr
		}
	}
}
