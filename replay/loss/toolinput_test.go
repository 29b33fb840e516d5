package loss

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// oldToolInput and oldShellCommand are the decoding of a tool call's
// arguments as it was before the hand-written decoder (commit 097cd3e),
// with encoding/json; oldSubjectOf derives a subject from them through the
// same rules as SubjectOf: the oracle FuzzSubjectOf compares it with, so
// that what differs between the two is the decoding alone.
type oldToolInput struct {
	FilePath      string          `json:"file_path"`
	FilePathCamel string          `json:"filePath"`
	AbsolutePath  string          `json:"absolute_path"`
	NotebookPath  string          `json:"notebook_path"`
	Path          string          `json:"path"`
	Filename      string          `json:"filename"`
	Input         string          `json:"input"`
	Patch         string          `json:"patch"`
	Pattern       string          `json:"pattern"`
	Query         string          `json:"query"`
	Regex         string          `json:"regex"`
	Dir           string          `json:"dir"`
	Directory     string          `json:"directory"`
	Glob          string          `json:"glob"`
	Include       string          `json:"include"`
	URL           string          `json:"url"`
	Command       json.RawMessage `json:"command"`
	Cmd           json.RawMessage `json:"cmd"`
}

func oldShellCommand(raws ...json.RawMessage) string {
	for _, raw := range raws {
		var one string
		if json.Unmarshal(raw, &one) == nil && one != "" {
			return one
		}
		var words []string
		if json.Unmarshal(raw, &words) == nil && len(words) > 0 {
			if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") {
				return words[2]
			}
			return strings.Join(words, " ")
		}
	}
	return ""
}

func oldSubjectOf(tool string, args []byte, cwd string) Subject {
	return subjectOf(tool, args, cwd, func(args []byte) (toolInput, string) {
		var o oldToolInput
		_ = json.Unmarshal(args, &o)
		return toolInput{FilePath: o.FilePath, FilePathCamel: o.FilePathCamel, AbsolutePath: o.AbsolutePath,
			NotebookPath: o.NotebookPath, Path: o.Path, Filename: o.Filename, Input: o.Input, Patch: o.Patch,
			Pattern: o.Pattern, Query: o.Query, Regex: o.Regex, Dir: o.Dir, Directory: o.Directory, Glob: o.Glob,
			Include: o.Include, URL: o.URL, Command: o.Command, Cmd: o.Cmd}, oldShellCommand(o.Command, o.Cmd)
	})
}

// toolInputSeeds exercise Unmarshal's rules: folded keys, duplicates,
// null and wrong-typed values, escapes, invalid documents that fill
// nothing, and command lists.
var toolInputSeeds = []string{
	`{"file_path":"/a/b.go"}`, `{"FILE_PATH":"/a/b.go"}`, `{"filepath":"x.go"}`, `{"FilePath":"x.go"}`,
	`{"notebooK_path":"/kelvin.ipynb"}`, `{"ſtdin":"x","path":"/long/s","patſ":"p"}`, `{"paTH":"/p","path":"/q"}`,
	`{"path":"/first","path":"/last"}`, `{"path":"/kept","path":null}`, `{"path":"/kept","path":1}`,
	`{"path":1,"url":"https://x.example/after-type-error"}`, `{"path":{"nested":"x"},"glob":"*.go"}`,
	`{"path":"/ok"} trailing`, `{"path":"/ok",}`, `{"path":"/ok"`, `["/not/an/object"]`, `"str"`, `null`, ``,
	`{"file\u005fpath":"/escaped/key"}`, `{"path":"\ud83d\ude00 \ud83d \u00e9 \/x"}`, "{\"path\":\"\xff/invalid\"}",
	`{"command":"  go test ./...  "}`, `{"command":["bash","-lc","cargo test"]}`, `{"command":["git",null,"x"]}`,
	`{"command":[""],"cmd":"ignored"}`, `{"command":"","cmd":"make all"}`, `{"command":null,"cmd":"make"}`,
	`{"command":"ls -la /tmp","command":null,"cmd":"fallback cmd"}`, `{"command":["a",1]}`, `{"command":[]}`,
	`{"COMMAND":["x","-c","y"]}`, `{"cmd":{"a":"b"}}`, `{"command":[["nested"]]}`,
	`{"pattern":"collect_wsd_files","PATH":"src","include":"*.py"}`, `{"query":"q","regex":"r"}`,
	`{"input":"*** Begin Patch\n*** Update File: src/a.go\n@@"}`, `{"patch":"*** Add File: b.go"}`,
	`  {  "url" : "https://example.com" , "prompt" : [1, {"x": [true, false, null]}] }  `,
	`{"path":"/x","deep":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"path":"/x","deep":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"path":"/x","n":1e400,"m":-0.5E+3}`, `{"path":"/x","n":01}`, `{"path":"/x","n":1.}`,
}

// subjectTools has one tool of each family (and apply_patch, whose key
// reads the raw arguments).
var subjectTools = []string{"Read", "apply_patch", "Grep", "Bash", "shell", "WebFetch", "TodoWrite"}

func FuzzSubjectOf(f *testing.F) {
	for i, s := range toolInputSeeds {
		f.Add(subjectTools[i%len(subjectTools)], []byte(s), "/home/u/proj")
		f.Add(subjectTools[(i+3)%len(subjectTools)], []byte(s), "")
	}
	f.Fuzz(func(t *testing.T, tool string, args []byte, cwd string) {
		got, want := SubjectOf(tool, args, cwd), oldSubjectOf(tool, args, cwd)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("SubjectOf(%q, %q, %q) = %#v\nold gives %#v", tool, args, cwd, got, want)
		}
		// Every family reads different fields: check them all at once.
		var old oldToolInput
		_ = json.Unmarshal(args, &old)
		in := decodeToolInput(args)
		if fields := (oldToolInput{in.FilePath, in.FilePathCamel, in.AbsolutePath, in.NotebookPath, in.Path, in.Filename,
			in.Input, in.Patch, in.Pattern, in.Query, in.Regex, in.Dir, in.Directory, in.Glob, in.Include, in.URL,
			nil, nil}); !reflect.DeepEqual(fields, oldToolInput{old.FilePath, old.FilePathCamel, old.AbsolutePath,
			old.NotebookPath, old.Path, old.Filename, old.Input, old.Patch, old.Pattern, old.Query, old.Regex, old.Dir,
			old.Directory, old.Glob, old.Include, old.URL, nil, nil}) {
			t.Fatalf("decodeToolInput(%q) = %#v, Unmarshal gives %#v", args, in, old)
		}
		if string(in.Command) != string(old.Command) || string(in.Cmd) != string(old.Cmd) {
			t.Fatalf("decodeToolInput(%q) command %q cmd %q, Unmarshal gives %q %q", args, in.Command, in.Cmd, old.Command, old.Cmd)
		}
		if got, want := shellCommand(in.Command, in.Cmd), oldShellCommand(old.Command, old.Cmd); got != want {
			t.Fatalf("shellCommand of %q = %q, old gives %q", args, got, want)
		}
	})
}

// BenchmarkSubjectOf compares the decoder with Unmarshal on the tool
// calls of a typical session, in one run.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkSubjectOf -cpu 1 -count 3
func BenchmarkSubjectOf(b *testing.B) {
	calls := []struct{ tool, args string }{
		{"Read", `{"file_path":"/home/u/proj/src/replay/loss/index.go","offset":120,"limit":400}`},
		{"Edit", `{"file_path":"/home/u/proj/src/a.go","old_string":"\tif err != nil {\n\t\treturn err\n\t}","new_string":"\tif err != nil {\n\t\treturn fmt.Errorf(\"read: %w\", err)\n\t}"}`},
		{"Grep", `{"pattern":"func (ix \\*Index)","path":"replay/loss","output_mode":"content","-n":true}`},
		{"Bash", `{"command":"go test ./replay/... -run TestSignals -count=1","description":"Run the signal tests","timeout":120000}`},
		{"shell", `{"command":["bash","-lc","cargo test --lib"],"workdir":"/home/u/proj"}`},
		{"WebFetch", `{"url":"https://pkg.go.dev/encoding/json","prompt":"How are keys matched?"}`},
	}
	for _, v := range []struct {
		name string
		fn   func(string, []byte, string) Subject
	}{{"old", oldSubjectOf}, {"new", SubjectOf}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range calls {
					v.fn(c.tool, []byte(c.args), "/home/u/proj")
				}
			}
		})
	}
}
