package jsonlite

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// SyntaxError is a JSON document's first error with where it is: the line
// and the column (in characters), both from 1, as an editor shows them.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return "line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + e.Msg
}

// Where is err, an error of parsing b (jsonlite's own, or encoding/json's),
// as a *SyntaxError saying where in b the document goes wrong. The scanner
// keeps no position (its hot path does not pay for one), so the document
// is read again here, by encoding/json, only on this error path. Any other
// error, or one whose place cannot be found, is returned as it is.
func Where(b []byte, err error) error {
	if err == nil {
		return nil
	}
	var se *SyntaxError
	if errors.As(err, &se) {
		return err
	}
	var jse *json.SyntaxError
	if !errors.As(err, &jse) {
		if !errors.Is(err, errSyntax) {
			return err
		}
		var raw json.RawMessage
		jerr := json.Unmarshal(b, &raw)
		if jerr == nil { // valid JSON, but not the object (or array) asked for
			line, col := position(b, skipSpace(b, 0))
			return &SyntaxError{Line: line, Column: col, Msg: "not a JSON object"}
		}
		if !errors.As(jerr, &jse) {
			return err
		}
	}
	// encoding/json's Offset counts the bytes read, the offending one
	// included: the error is at the byte before it (at the end, past the
	// last byte read).
	at, msg := int(jse.Offset)-1, jse.Error()
	if msg == "unexpected end of JSON input" {
		at = len(b)
	}
	line, col := position(b, max(0, min(at, len(b))))
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

// position is the line and column, from 1, of the byte at b[i] (i may be
// len(b): just past the end).
func position(b []byte, i int) (line, col int) {
	line, start := 1, 0
	for j := 0; j < i; j++ {
		if b[j] == '\n' {
			line, start = line+1, j+1
		}
	}
	return line, utf8.RuneCount(b[start:i]) + 1
}
