package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeGoTest is one `go test` command line README.md shows, in a code
// block or inline.
type readmeGoTest struct {
	line int    // README line where it starts
	text string // the command, line breaks of an inline span joined
}

// readmeInlineGoTest is an inline code span holding a go test command,
// with environment assignments before it (GOMAXPROCS=1 go test ...).
var readmeInlineGoTest = regexp.MustCompile("`((?:[A-Z_]+=\\S+ )*go test\\s[^`]*)`")

// readmeGoTests extracts every `go test` command of md: the lines of fenced
// code blocks that start with it (a " #" comment cut), and the inline code
// spans that start with it, which may wrap across the lines of a paragraph
// (a table row is a paragraph of its own).
func readmeGoTests(md string) []readmeGoTest {
	lines := strings.Split(md, "\n")
	var out []readmeGoTest
	fenced := false
	para, paraLine := []string(nil), 0
	flush := func() {
		text := strings.Join(para, "\n")
		for _, m := range readmeInlineGoTest.FindAllStringSubmatchIndex(text, -1) {
			out = append(out, readmeGoTest{
				line: paraLine + strings.Count(text[:m[0]], "\n"),
				text: strings.Join(strings.Fields(text[m[2]:m[3]]), " "),
			})
		}
		para = nil
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			flush()
			fenced = !fenced
			continue
		}
		if fenced {
			if strings.HasPrefix(t, "go test ") {
				if c := strings.Index(t, " #"); c >= 0 {
					t = t[:c]
				}
				out = append(out, readmeGoTest{line: i + 1, text: strings.TrimSpace(t)})
			}
			continue
		}
		if t == "" || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "#") {
			flush()
		}
		if t == "" {
			continue
		}
		if para == nil {
			paraLine = i + 1
		}
		para = append(para, l)
		if strings.HasPrefix(t, "|") {
			flush()
		}
	}
	flush()
	return out
}

// readmeShellFields splits a command line into words, a single-quoted word
// kept whole without its quotes (the README quotes regexps that way).
func readmeShellFields(cmd string) []string {
	var out []string
	var w strings.Builder
	in, quoted := false, false
	for _, r := range cmd {
		switch {
		case r == '\'':
			quoted = !quoted
			in = true
		case r == ' ' && !quoted:
			if in {
				out = append(out, w.String())
				w.Reset()
			}
			in = false
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}

// goTestFlags are the go test and testing flags the README uses that take a
// value; any other flag must be one a test file of the package declares.
var goTestFlags = map[string]bool{
	"run": true, "bench": true, "fuzz": true, "benchtime": true, "count": true,
	"cpu": true, "timeout": true, "fuzztime": true, "cpuprofile": true,
}

// goTestBoolFlags are the go test and testing flags the README uses that
// take no value.
var goTestBoolFlags = map[string]bool{"v": true, "c": true, "short": true, "benchmem": true, "race": true}

// readmeTestPackage is what the test files of one package declare.
type readmeTestPackage struct {
	funcs []string        // top-level function names
	flags map[string]bool // flag names registered with flag.Bool, flag.String...
}

// readmeTestPackages parses the _test.go files of the package directories
// pattern names (a directory, or dir/... for every directory under it),
// relative to the module root.
func readmeTestPackages(t *testing.T, root, pattern string) map[string]readmeTestPackage {
	t.Helper()
	dir, all := strings.CutSuffix(pattern, "/...")
	if pattern == "..." {
		dir, all = "", true
	}
	var dirs []string
	if all {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != filepath.Join(root, dir) {
				return filepath.SkipDir
			}
			if d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("go test %s: %v", pattern, err)
		}
	} else {
		dirs = []string{filepath.Join(root, dir)}
	}
	out := map[string]readmeTestPackage{}
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 && !all {
			if _, err := os.Stat(d); err != nil {
				t.Errorf("go test %s: no such package directory", pattern)
			}
		}
		pkg := readmeTestPackage{flags: map[string]bool{}}
		fset := token.NewFileSet()
		for _, f := range files {
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range file.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
					pkg.funcs = append(pkg.funcs, fn.Name.Name)
				}
			}
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "flag" {
					return true
				}
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					pkg.flags[strings.Trim(lit.Value, `"`)] = true
				}
				return true
			})
		}
		rel, _ := filepath.Rel(root, d)
		out[rel] = pkg
	}
	return out
}

// readmePatternMatches reports whether the first element of a -run, -bench
// or -fuzz pattern (go test splits it at "/"; the rest names subtests,
// which exist only at run time) matches a top-level function with prefix
// (Test, Benchmark, Fuzz) among funcs.
func readmePatternMatches(t *testing.T, pattern, prefix string, funcs []string) bool {
	t.Helper()
	top, _, _ := strings.Cut(pattern, "/")
	re, err := regexp.Compile(top)
	if err != nil {
		t.Errorf("pattern %q: %v", pattern, err)
		return true
	}
	for _, f := range funcs {
		if strings.HasPrefix(f, prefix) && re.MatchString(f) {
			return true
		}
	}
	return false
}

// readmeScriptExists reports whether a testscript file in dir has a name
// (without .txtar) that pattern matches, as TestScript's subtests are named.
func readmeScriptExists(t *testing.T, dir, pattern string) bool {
	t.Helper()
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Errorf("pattern %q: %v", pattern, err)
		return true
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
	for _, f := range files {
		if re.MatchString(strings.TrimSuffix(filepath.Base(f), ".txtar")) {
			return true
		}
	}
	return false
}

// Every `go test` command README.md shows names packages that exist, flags
// their test files declare, and -run, -bench and -fuzz patterns that match
// at least one test, benchmark or fuzz target in each named package (in
// some package, for dir/...): go test passes silently when a pattern
// matches nothing, so a renamed benchmark would leave the README quoting
// figures of a command that measures nothing. A -run given with -bench or
// -fuzz is the usual "run no test" pattern and is not checked.
func TestReadmeGoTestCommands(t *testing.T) {
	root := filepath.Join("..", "..")
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeGoTests(string(md))
	if len(cmds) < 30 {
		t.Fatalf("found %d go test commands in README.md; the extractor has lost some", len(cmds))
	}
	patterns := 0
	for _, c := range cmds {
		t.Logf("README.md:%d %s", c.line, c.text)
		args := readmeShellFields(c.text)
		for len(args) > 0 && args[0] != "go" {
			args = args[1:] // an environment assignment
		}
		args = args[2:] // after "go test"
		var pkgs []string
		want := map[string]string{} // prefix -> pattern
		var custom []string
		for i := 0; i < len(args); i++ {
			a := args[i]
			if !strings.HasPrefix(a, "-") {
				pkgs = append(pkgs, a)
				continue
			}
			name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			switch {
			case goTestFlags[name]:
				if !hasValue {
					if i+1 >= len(args) {
						t.Errorf("README.md:%d `%s`: -%s has no value", c.line, c.text, name)
						continue
					}
					i++
					value = args[i]
				}
				switch name {
				case "run":
					want["Test"] = value
				case "bench":
					want["Benchmark"] = value
				case "fuzz":
					want["Fuzz"] = value
				}
			case goTestBoolFlags[name]:
			default:
				custom = append(custom, name)
			}
		}
		if _, ok := want["Benchmark"]; ok {
			delete(want, "Test")
		}
		if _, ok := want["Fuzz"]; ok {
			delete(want, "Test")
		}
		if len(pkgs) == 0 {
			if len(want) > 0 || len(custom) > 0 {
				t.Errorf("README.md:%d `%s` names no package", c.line, c.text)
			}
			continue
		}
		for _, p := range pkgs {
			if !strings.HasPrefix(p, "./") {
				t.Errorf("README.md:%d `%s`: package %q is not a ./ path", c.line, c.text, p)
				continue
			}
			dirs := readmeTestPackages(t, root, strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/"))
			for prefix, pattern := range want {
				patterns++
				found := false
				for _, pkg := range dirs {
					if readmePatternMatches(t, pattern, prefix, pkg.funcs) {
						found = true
						continue
					}
					if !strings.HasSuffix(p, "/...") {
						break
					}
				}
				if !found {
					t.Errorf("README.md:%d `%s`: %q matches no %s function in %s: the command would run nothing", c.line, c.text, pattern, prefix, p)
				}
				if sub, ok := strings.CutPrefix(pattern, "TestScript/"); ok && prefix == "Test" && !readmeScriptExists(t, filepath.Join(root, p, "testdata", "script"), sub) {
					t.Errorf("README.md:%d `%s`: %q matches no testdata/script/*.txtar in %s: the command would run nothing", c.line, c.text, sub, p)
				}
			}
			for _, f := range custom {
				for rel, pkg := range dirs {
					if !pkg.flags[f] {
						t.Errorf("README.md:%d `%s`: the tests of %s declare no -%s flag", c.line, c.text, rel, f)
					}
				}
			}
		}
	}
	if patterns < 25 {
		t.Errorf("checked %d patterns; the extractor has lost some", patterns)
	}
}

// The extractor finds go test commands in code blocks (comment cut) and in
// inline spans wrapped across lines or after an environment assignment,
// and a pattern is judged on its top-level element only.
func TestReadmeGoTests(t *testing.T) {
	const fence = "```"
	md := "Intro (`go test\n./replay -run '^$' -bench 'BenchmarkA/x=1'`), then\n" +
		"`GOMAXPROCS=1 go test ./report -bench B` and `go vet ./...`.\n\n" +
		"| a (`go test ./p -run TestX`) |\n\n" +
		fence + "\ngo test ./...   # all\ncalib policies\n" + fence + "\n"
	var got []string
	for _, c := range readmeGoTests(md) {
		got = append(got, fmt.Sprintf("%d %s", c.line, c.text))
	}
	want := []string{
		"1 go test ./replay -run '^$' -bench 'BenchmarkA/x=1'",
		"3 GOMAXPROCS=1 go test ./report -bench B",
		"5 go test ./p -run TestX",
		"8 go test ./...",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n got %q\nwant %q", got, want)
	}
	if f := readmeShellFields("go test -bench 'A(B|C)$' -cpu 1"); strings.Join(f, "|") != "go|test|-bench|A(B|C)$|-cpu|1" {
		t.Errorf("fields %q", f)
	}
	funcs := []string{"TestX", "BenchmarkLoadCodex", "BenchmarkA"}
	for _, tc := range []struct {
		pattern, prefix string
		want            bool
	}{
		{"BenchmarkA/x=1", "Benchmark", true},
		{"LoadCodex", "Benchmark", true},
		{"BenchmarkLoadClaude", "Benchmark", false},
		{"TestX", "Benchmark", false},
		{"X", "Test", true},
	} {
		if got := readmePatternMatches(t, tc.pattern, tc.prefix, funcs); got != tc.want {
			t.Errorf("readmePatternMatches(%q, %q) = %v, want %v", tc.pattern, tc.prefix, got, tc.want)
		}
	}
}
