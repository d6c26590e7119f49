package install

import (
	"bytes"
	"strings"
	"testing"
)

// addHook appends one entry to hooks.<event> the way an installer does:
// the hooks object and the event's list created when missing.
func addHook(t *testing.T, src, event, cmd string) string {
	t.Helper()
	root, err := ParseNode([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	hooks := root.Get("hooks")
	if hooks == nil {
		hooks = Object()
		root.Set("hooks", hooks)
	}
	arr := hooks.Get(event)
	if arr == nil {
		arr = &Node{Kind: 'a'}
		hooks.Set(event, arr)
	}
	h := Object()
	h.Set("type", Scalar("command"))
	h.Set("command", Scalar(cmd))
	group := Object()
	group.Set("hooks", &Node{Kind: 'a', Items: []*Node{h}})
	arr.Items = append(arr.Items, group)
	return string(root.Encode())
}

// subsequence reports whether every byte of a is in b, in order: nothing
// of the original was changed or dropped, only added to.
func subsequence(a, b string) bool {
	i := 0
	for j := 0; i < len(a) && j < len(b); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

// oneInsertion reports whether b is a with one run of bytes inserted, and
// returns that run.
func oneInsertion(a, b string) (string, bool) {
	p := 0
	for p < len(a) && a[p] == b[p] {
		p++
	}
	if !strings.HasSuffix(b, a[p:]) || len(b) < len(a) {
		return "", false
	}
	return b[p : len(b)-len(a)+p], true
}

func TestEncodeKeepsTheFileLayout(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		want string // the run inserted
	}{
		"four spaces": {
			src: "{\n    \"model\": \"opus\",\n    \"permissions\": {\n        \"allow\": [\"Bash(ls)\"]\n    }\n}\n",
			want: ",\n    \"hooks\": {\n        \"Stop\": [\n            {\n                \"hooks\": [\n                    {\n" +
				"                        \"type\": \"command\",\n                        \"command\": \"/x/cully-hook\"\n" +
				"                    }\n                ]\n            }\n        ]\n    }",
		},
		"tabs and odd spacing": {
			src:  "{\n\t\"model\" :  \"opus\" ,\n\t\"env\" : { \"A\" : \"1\" }\n}",
			want: ",\n\t\"hooks\" :  {\n\t\t\"Stop\" :  [\n\t\t\t{\n\t\t\t\t\"hooks\" :  [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\" :  \"command\",\n\t\t\t\t\t\t\"command\" :  \"/x/cully-hook\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}",
		},
		"CRLF": {
			src:  "{\r\n  \"a\": 1\r\n}\r\n",
			want: ",\r\n  \"hooks\": {\r\n    \"Stop\": [\r\n      {\r\n        \"hooks\": [\r\n          {\r\n            \"type\": \"command\",\r\n            \"command\": \"/x/cully-hook\"\r\n          }\r\n        ]\r\n      }\r\n    ]\r\n  }",
		},
		"one line": {
			src:  `{"a":1,"b":[true, null]}`,
			want: `,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/cully-hook"}]}]}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			out := addHook(t, tc.src, "Stop", "/x/cully-hook")
			ins, ok := oneInsertion(tc.src, out)
			if !ok {
				t.Fatalf("not one insertion into the original:\n%q\n%q", tc.src, out)
			}
			if ins != tc.want {
				t.Errorf("inserted\n%q\nwant\n%q", ins, tc.want)
			}
		})
	}
}

func TestEncodeSplicesIntoExistingLists(t *testing.T) {
	src := "{\n   \"hooks\": {\n      \"PreToolUse\": [\n         {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"~/audit.sh\"}]}\n      ],\n      \"Stop\": [ ]\n   },\n   \"z\": 2.50\n}\n"
	out := addHook(t, src, "PreToolUse", "/x/cully-hook")
	out = addHook(t, out, "Stop", "/x/cully-hook")
	out = addHook(t, out, "SessionEnd", "/x/cully-hook")
	// The one original byte that goes: the space inside the empty list
	// that now holds an entry, laid out as its neighbours are.
	if !subsequence(strings.Replace(src, "[ ]", "[]", 1), out) {
		t.Fatalf("an original byte changed:\n%s", out)
	}
	for _, want := range []string{
		"         {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"~/audit.sh\"}]},\n         {\n            \"hooks\": [",
		"      \"Stop\": [\n         {\n",
		"      ],\n      \"SessionEnd\": [\n",
		"   \"z\": 2.50\n}\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if _, err := ParseNode([]byte(out)); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, out)
	}
}

// Removing what was added gives back the original bytes, with no backup
// to restore from: each entry goes with its own whitespace and comma.
func TestRemoveRestoresTheBytes(t *testing.T) {
	for _, src := range []string{
		"{\n    \"model\": \"opus\"\n}\n",
		"{\n\t\"hooks\" : {\n\t\t\"PreToolUse\" : [ {\"hooks\":[]} ]\n\t}\n}",
		`{"a":1}`,
		"{}\n",
	} {
		out := addHook(t, src, "PreToolUse", "/x/cully-hook")
		out = addHook(t, out, "Stop", "/x/cully-hook")
		root, err := ParseNode([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		hooks := root.Get("hooks")
		pre := hooks.Get("PreToolUse")
		pre.Items = pre.Items[:len(pre.Items)-1]
		if len(pre.Items) == 0 {
			hooks.Del("PreToolUse")
		}
		hooks.Del("Stop")
		if len(hooks.Keys) == 0 {
			root.Del("hooks")
		}
		if got := string(root.Encode()); got != src {
			t.Errorf("round trip of %q gave %q", src, got)
		}
	}
}

func TestUnchangedDocumentIsByteIdentical(t *testing.T) {
	src := "\n  {\"b\" : [1 , 2],\n\"a\":{ \"x\" :\"\\u0026\" } }  \n\n"
	n, err := ParseNode([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Encode(); !bytes.Equal(got, []byte(src)) {
		t.Fatalf("got %q", got)
	}
	n.Get("a").Set("x", Scalar("y"))
	if got := string(n.Encode()); got != "\n  {\"b\" : [1 , 2],\n\"a\":{ \"x\" :\"y\" } }  \n\n" {
		t.Fatalf("a replaced value: %q", got)
	}
}

func TestDuplicateKeysReadAsJSONParseDoes(t *testing.T) {
	n, err := ParseNode([]byte(`{"a": 1, "a": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(n.Get("a").Raw) != "2" {
		t.Errorf("Get: %s, want the last", n.Get("a").Raw)
	}
	if got := string(n.Encode()); got != `{"a": 1, "a": 2}` {
		t.Errorf("both kept: %s", got)
	}
	n.Del("a")
	if got := string(n.Encode()); got != `{}` {
		t.Errorf("Del removes each: %s", got)
	}
}

func TestBuiltDocumentHasTwoSpaces(t *testing.T) {
	root := Object()
	root.Set("a", &Node{Kind: 'a', Items: []*Node{Scalar(1), Scalar("x && y")}})
	root.Set("b", Object())
	want := "{\n  \"a\": [\n    1,\n    \"x && y\"\n  ],\n  \"b\": {}\n}\n"
	if got := string(root.Encode()); got != want {
		t.Fatalf("got %q", got)
	}
}

func TestParseRefusesWhatIsNotJSON(t *testing.T) {
	for _, bad := range []string{`{"a":`, `{"a":1} x`, `{'a':1}`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		if _, err := ParseNode([]byte(bad)); err == nil {
			t.Errorf("%.20q parsed", bad)
		}
	}
}
