package jsonlite

import (
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nested is an object holding depth levels of the given brackets around a
// 0, so the document nests depth+1 levels.
func nested(open, close string, depth int) []byte {
	return []byte(`{"a":` + strings.Repeat(open, depth) + "0" + strings.Repeat(close, depth) + `}`)
}

func TestDepthLimit(t *testing.T) {
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1, 10_000} {
		for _, b := range [][]byte{nested("[", "]", depth-1), nested(`{"b":`, "}", depth-1)} {
			if !json.Valid(b) {
				t.Fatalf("depth %d: json.Valid refuses the test document", depth)
			}
			_, err := ParseObject(b)
			errM := Members(b, func(_, _ []byte) error { return nil })
			errE := Elements(b[len(`{"a":`):len(b)-1], func([]byte) {})
			for name, err := range map[string]error{"ParseObject": err, "Members": errM} {
				if depth <= maxDepth && err != nil {
					t.Errorf("%s, depth %d: %v", name, depth, err)
				}
				if depth > maxDepth && !errors.Is(err, errDepth) {
					t.Errorf("%s, depth %d: err %v, want %v", name, depth, err, errDepth)
				}
			}
			// The value alone nests one level less.
			if b[len(`{"a":`)] == '[' && (errE == nil) != (depth-1 <= maxDepth) {
				t.Errorf("Elements, depth %d: %v", depth-1, errE)
			}
		}
	}
}

// A hostile tool output nesting millions of levels is refused at the limit:
// at once, without growing the heap or the stack with the input.
func TestMillionsOfLevelsFailFast(t *testing.T) {
	const levels = 5_000_000
	doc := []byte(`{"tool_response":` + strings.Repeat("[", levels))
	arr := doc[len(`{"tool_response":`):]
	// 512 levels take about 100 KiB of stack; 5M would take about a gigabyte.
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
	for name, parse := range map[string]func() error{
		"ParseObject": func() error { _, err := ParseObject(doc); return err },
		"Members":     func() error { return Members(doc, func(_, _ []byte) error { return nil }) },
		"Elements":    func() error { return Elements(arr, func([]byte) {}) },
		"AsObject": func() error {
			if len(AsObject(doc)) != 0 {
				return nil
			}
			return errDepth
		},
		"Items": func() error {
			if (Object{"k": arr}).Items("k") != nil {
				return nil
			}
			return errDepth
		},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		err := parse()
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, errDepth) {
			t.Errorf("%s: err %v, want %v", name, err, errDepth)
		}
		if took > time.Second {
			t.Errorf("%s: took %v to refuse %d levels", name, took, levels)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
			t.Errorf("%s: allocated %d bytes to refuse %d levels", name, grew, levels)
		}
	}
}

// The limit is stated in the package doc and the error; they follow maxDepth.
func TestDepthLimitDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	n := strconv.Itoa(maxDepth)
	if !strings.Contains(string(doc), "nest at most "+n+" levels") {
		t.Errorf("doc.go does not say arrays and objects nest at most %s levels", n)
	}
	if !strings.Contains(errDepth.Error(), " "+n+" ") {
		t.Errorf("errDepth %q does not name the limit %s", errDepth, n)
	}
}
