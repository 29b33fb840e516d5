package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/report"
)

var update = flag.Bool("update", false, "rewrite cmp targets inside testdata/script/*.txtar and the images in testdata/readme/")

func TestMain(m *testing.M) {
	// The test binary doubles as the calib executable inside scripts.
	testscript.Main(m, map[string]func(){"calib": func() { os.Exit(Main()) }})
}

// TestScript runs testdata/script/*.txtar. `go test ./cmd/calib -run
// TestScript/inspect_demo` runs one script; -update rewrites the golden
// sections that a `cmp` compares against.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":  cmdExitcode,
			"writebin":  cmdWritebin,
			"writeq":    cmdWriteq,
			"mksqlite":  cmdMksqlite,
			"plotfiles": cmdPlotfiles,
			"json":      cmdJSON,
			"hardlink":  cmdHardlink,
		},
	})
}

// cmdExitcode is `exitcode N PROG [ARGS...]`: run PROG like exec (its stdout
// and stderr are kept for the next stdout/stderr/cmp) and require exit
// status exactly N. Plain `! exec` only checks "non-zero", and calib's exit
// codes (1 gate, 2 usage/input, 130 interrupted) are part of its contract.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee interface{ ExitCode() int }
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// cmdWritebin is `writebin FILE N`: write N bytes of binary data (NULs and
// bytes that are not UTF-8, deterministic) to FILE, which txtar sections
// cannot hold.
func cmdWritebin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: writebin FILE N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("writebin: %q is not a number", args[1])
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
}

// cmdWriteq is `writeq FILE 'TEXT'`: write TEXT to FILE with Go escapes
// (\n, \xff) interpreted and double quotes taken literally, so JSON lines
// need no escaping. It makes what txtar sections cannot hold: invalid
// UTF-8 and a last line with no newline (a crash mid-write).
func cmdWriteq(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: writeq FILE 'TEXT'")
	}
	s, err := strconv.Unquote(`"` + strings.ReplaceAll(args[1], `"`, `\"`) + `"`)
	if err != nil {
		ts.Fatalf("writeq: %v", err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(s), 0o644))
}

// cmdMksqlite is `mksqlite FILE TABLE`: create a SQLite database holding
// one empty table, i.e. a database that is not clai's.
func cmdMksqlite(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mksqlite FILE TABLE")
	}
	db, err := sql.Open("sqlite", ts.MkAbs(args[0]))
	ts.Check(err)
	_, err = db.Exec("CREATE TABLE " + args[1] + " (x TEXT)")
	ts.Check(err)
	ts.Check(db.Close())
}

// cmdJSON is `json PATH WANT`: decode the last command's stdout as JSON,
// select PATH (dot-separated keys and array indices; * takes every element
// and gives an array) and require its compact JSON encoding to equal WANT.
// Scripts assert exact figures with it, not text-table spacing:
//
//	json sessions.*.compactions [1,3,0,0,0]
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: json PATH WANT")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &doc); err != nil {
		ts.Fatalf("json: stdout is not JSON: %v", err)
	}
	got, err := jsonSelect(doc, strings.Split(args[0], "."))
	if err != nil {
		ts.Fatalf("json %s: %v", args[0], err)
	}
	b, err := json.Marshal(got)
	ts.Check(err)
	if (string(b) == args[1]) == neg {
		ts.Fatalf("json %s = %s, want %s%s", args[0], b, map[bool]string{true: "not "}[neg], args[1])
	}
}

func jsonSelect(v any, path []string) (any, error) {
	if len(path) == 0 || path[0] == "" {
		return v, nil
	}
	key, rest := path[0], path[1:]
	switch x := v.(type) {
	case map[string]any:
		e, ok := x[key]
		if !ok {
			return nil, fmt.Errorf("no key %q", key)
		}
		return jsonSelect(e, rest)
	case []any:
		if key == "*" {
			out := []any{}
			for _, e := range x {
				r, err := jsonSelect(e, rest)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
			return out, nil
		}
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(x) {
			return nil, fmt.Errorf("%q is not an index of an array of %d", key, len(x))
		}
		return jsonSelect(x[i], rest)
	}
	return nil, fmt.Errorf("%q: not an object or array", key)
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err     error
		code    int
		message string
	}{
		{nil, 0, ""},
		{usageErrorf("bad %s", "flag"), 2, "bad flag"},
		{&inputError{failed: 2}, 2, ""},
		{gateFailed("digest grew %d%%", 12), 1, "digest grew 12%"},
		{&gateError{}, 1, ""},
		{context.Canceled, 130, "interrupted"},
		{fmt.Errorf("loading: %w", context.Canceled), 130, "interrupted"},
		{fmt.Errorf("wrapped: %w", usageErrorf("x")), 2, "wrapped: x"},
		{errors.New("disk full"), 1, "disk full"},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.code {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.code)
		}
		if got := errorMessage(tt.err); got != tt.message {
			t.Errorf("errorMessage(%v) = %q, want %q", tt.err, got, tt.message)
		}
	}
}

// TestRunInterrupted: a cancelled context (Ctrl-C) exits 130.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"inspect", "--demo"}, &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	if code != 130 || errOut.String() != "calib: interrupted\n" || out.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 130, nothing, \"calib: interrupted\"", code, out.String(), errOut.String())
	}
}

// TestRunInProcess drives run() with buffers, the way commands are tested
// without a subprocess.
func TestRunInProcess(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		stdout     string // substring
		stderrLine string // exact first line of stderr, "" for none
	}{
		{[]string{"--version"}, 0, "calib version ", ""},
		{[]string{"inspect"}, 2, "", "calib: calib inspect needs at least one PATH (a session file, a folder or -), or --demo"},
		{[]string{"inspect", "--format", "yaml", "x"}, 2, "", `calib: --format: invalid format "yaml": valid values are text|markdown|csv|json|github`},
		{[]string{"nosuch"}, 2, "", `calib: unknown command "nosuch" for "calib"`},
		{[]string{"inspect", "--nosuch", "x"}, 2, "", "calib: unknown flag: --nosuch"},
		{[]string{"inspect", "--demo", "x"}, 2, "", "calib: --demo reads the demo corpus: give no PATH arguments with it"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := run(context.Background(), tt.args, &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		if code != tt.code {
			t.Errorf("calib %v: exit %d, want %d (stderr %q)", tt.args, code, tt.code, errOut.String())
		}
		if !strings.Contains(out.String(), tt.stdout) {
			t.Errorf("calib %v: stdout %q does not contain %q", tt.args, out.String(), tt.stdout)
		}
		first, _, _ := strings.Cut(errOut.String(), "\n")
		if first != tt.stderrLine {
			t.Errorf("calib %v: stderr first line %q, want %q", tt.args, first, tt.stderrLine)
		}
	}
}

func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "devel (no build information)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel (no VCS revision recorded: go run, go test and -buildvcs=false record none)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("1d41ed4c5a6b7c8d9e0f", "true")}, "devel (revision 1d41ed4c5a6b, dirty)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("1d41ed4", "false")}, "devel (revision 1d41ed4)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20261130000000-1d41ed4c5a6b"}, Settings: vcs("1d41ed4c5a6b7c8d", "false")}, "v1.2.4-0.20261130000000-1d41ed4c5a6b (revision 1d41ed4c5a6b)"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.bi); got != tt.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
}

// Each command offers exactly the shared flags it honours: policies reads
// no corpus and draws nothing, merge reads shard files, not the demo.
func TestSharedFlagsPerCommand(t *testing.T) {
	tests := []struct {
		args []string
		want string // first stderr line
	}{
		{[]string{"policies", "--demo"}, "calib: unknown flag: --demo"},
		{[]string{"policies", "--strict"}, "calib: unknown flag: --strict"},
		{[]string{"policies", "--plot", "dir"}, "calib: unknown flag: --plot"},
		{[]string{"merge", "--demo"}, "calib: unknown flag: --demo"},
		{[]string{"merge", "--strict", "x.json"}, "calib: unknown flag: --strict"},
		{[]string{"demo", "--format", "json", "dir"}, "calib: unknown flag: --format"},
		{[]string{"metrics", "--demo"}, "calib: unknown flag: --demo"},
	}
	for _, tt := range tests {
		code, _, errOut := runCalib(t, tt.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 2 || first != tt.want {
			t.Errorf("calib %v: exit %d, stderr %q; want 2, %q", tt.args, code, first, tt.want)
		}
	}
	// The commands that read a corpus take all five.
	for _, name := range []string{"inspect", "replay", "sweep", "compare", "digest-growth"} {
		code, out, _ := runCalib(t, name, "--help")
		for _, f := range []string{"--format", "--plot", "--strict", "--demo", "--quiet"} {
			if code != 0 || !strings.Contains(out, f) {
				t.Errorf("calib %s --help does not offer %s", name, f)
			}
		}
	}
}

// Completion offers auto only where --policy accepts it (replay).
func TestPolicyCompletion(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		auto bool
	}{{"replay", true}, {"sweep", false}, {"digest-growth", false}} {
		code, out, _ := runCalib(t, "__complete", tt.cmd, "-p", "")
		lines := strings.Split(out, "\n")
		if code != 0 || !slices.Contains(lines, "smith-staged") {
			t.Fatalf("calib __complete %s -p: exit %d\n%s", tt.cmd, code, out)
		}
		if got := slices.Contains(lines, "auto"); got != tt.auto {
			t.Errorf("%s -p completion offers auto: %v, want %v", tt.cmd, got, tt.auto)
		}
	}
}

// An unreadable file is named once (the loader's line already starts with
// it; the operating system's error repeats it) and the message says what
// to do.
func TestFileErrorText(t *testing.T) {
	pe := func(op string, err error) error { return &fs.PathError{Op: op, Path: "s/a.jsonl", Err: err} }
	tests := []struct {
		err  error
		want string
	}{
		{pe("open", syscall.EACCES), "permission denied; make it readable by this user (chmod +r, or for a folder +rx) or run calib as a user who can read it"},
		{fmt.Errorf("reading: %w", pe("read", syscall.EISDIR)), "reading: is a directory where a file was expected; give the file or its folder"},
		{pe("stat", syscall.ENOTDIR), "not a directory: a part of the path before the last is a file; check the path"},
		{pe("read", syscall.EIO), "cannot read it: input/output error; check that the path exists and can be read"},
		{errors.New("unrecognised content"), "unrecognised content"},
	}
	for _, tt := range tests {
		got := fileErrorText(tt.err)
		if got != tt.want {
			t.Errorf("fileErrorText(%v) = %q, want %q", tt.err, got, tt.want)
		}
		if strings.Contains(got, "s/a.jsonl") {
			t.Errorf("fileErrorText(%v) repeats the path: %q", tt.err, got)
		}
	}
}

// Every ::error a command emits about a session names its file.
func TestSessionErrorNamesFile(t *testing.T) {
	var out bytes.Buffer
	a := sessionError("s/transcript.jsonl", "invariant violated", "session s, request 3: tool-pairing: x")
	if err := report.WriteGitHub(&out, []report.Annotation{a}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=s/transcript.jsonl,title=invariant violated::session s, request 3: tool-pairing: x\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestSessionNames(t *testing.T) {
	ss := []*corpus.Session{{ID: "a"}, {ID: "b"}, {ID: "a"}, {ID: "c"}, {ID: "a"}}
	got := strings.Join(sessionNames(ss), " ")
	if want := "a-1 b a-2 c a-3"; got != want {
		t.Errorf("sessionNames = %q, want %q", got, want)
	}
	// Ids that make one file name: SanitizeName's runs ("a b", "a+b"),
	// case ("T", "t": one file on macOS and Windows), and a number that
	// would be another session's id ("x", "x", "x-1").
	for _, c := range []struct{ ids, want string }{
		{"a b|a+b|c", "a b-1|a+b-2|c"},
		{"T|u|t", "T-1|u|t-2"},
		{"x|x|x-1", "x-2|x-3|x-1"},
		{"Readme|README|readme-1", "Readme-2|README-3|readme-1"},
	} {
		names := uniqueNames(strings.Split(c.ids, "|"))
		if got := strings.Join(names, "|"); got != c.want {
			t.Errorf("uniqueNames(%s) = %s, want %s", c.ids, got, c.want)
		}
		files := map[string]bool{}
		for _, n := range names {
			f := strings.ToLower(report.SanitizeName("replay-" + n + "-context"))
			if files[f] {
				t.Errorf("uniqueNames(%s): two sessions write %s", c.ids, f)
			}
			files[f] = true
		}
	}
	if idsRepeat([]string{"a", "b"}) || !idsRepeat([]string{"a", "b", "a"}) {
		t.Error("idsRepeat")
	}
}

// fullWriter fails every write, as standard output does on a full disk.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestStdoutWriteFails: a report that could not be written to standard
// output is an output error (exit 3), not exit 1, which CI reads as a
// failed gate; the message says the report is incomplete.
func TestStdoutWriteFails(t *testing.T) {
	for _, args := range [][]string{{"inspect", "--demo"}, {"replay", "--demo"}, {"policies"}, {"metrics"}} {
		var errOut bytes.Buffer
		code := run(context.Background(), args, &IO{In: strings.NewReader(""), Out: fullWriter{}, ErrOut: &errOut})
		want := "calib: standard output: no space left on device; the report is incomplete\n"
		if code != 3 || errOut.String() != want {
			t.Errorf("calib %v: exit %d, stderr %q; want 3, %q", args, code, errOut.String(), want)
		}
	}
	// Help and the version, which cobra writes, too: --version exited 2
	// (a usage error) and help 0, with nothing printed.
	for _, args := range [][]string{{"--version"}, {"--help"}, {"replay", "--help"}, {"help", "sweep"}} {
		var errOut bytes.Buffer
		code := run(context.Background(), args, &IO{In: strings.NewReader(""), Out: fullWriter{}, ErrOut: &errOut})
		want := "calib: standard output: no space left on device; the output is incomplete\n"
		if code != 3 || errOut.String() != want {
			t.Errorf("calib %v: exit %d, stderr %q; want 3, %q", args, code, errOut.String(), want)
		}
	}
}

// cmdHardlink is `hardlink OLD NEW`: NEW becomes another name of the file
// OLD (os.Link), as backups made with cp -al hold them.
func cmdHardlink(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hardlink OLD NEW")
	}
	ts.Check(os.Link(ts.MkAbs(args[0]), ts.MkAbs(args[1])))
}
