package loss

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSubjectOf(t *testing.T) {
	const cwd = "/home/u/proj"
	cases := []struct {
		tool, args string
		fam        Family
		key        string
		mentions   []string
	}{
		{"Read", `{"file_path":"/home/u/proj/src/a.go"}`, FamilyFile, "/home/u/proj/src/a.go", []string{"/home/u/proj/src/a.go", "src/a.go"}},
		{"Edit", `{"file_path":"src/./b/../a.go","old_string":"x"}`, FamilyFile, "/home/u/proj/src/a.go", []string{"/home/u/proj/src/a.go", "src/a.go"}},
		{"read_file", `{"path":"/etc/hosts"}`, FamilyFile, "/etc/hosts", []string{"/etc/hosts"}},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** End Patch"}`, FamilyFile, "/home/u/proj/src/a.go", []string{"/home/u/proj/src/a.go", "src/a.go"}},
		{"Grep", `{"pattern":"collect_wsd_files","path":"src"}`, FamilySearch, "collect_wsd_files\x00/home/u/proj/src\x00", []string{"collect_wsd_files"}},
		{"glob", `{"pattern":"*.go"}`, FamilySearch, "*.go\x00\x00", nil}, // too short to be a mention
		{"Bash", `{"command":"  go test ./...  "}`, FamilyShell, "go test ./...", []string{"go test ./..."}},
		{"bash", `{"command":"ls"}`, FamilyShell, "ls", nil},
		{"shell", `{"command":["bash","-lc","cargo test --lib"]}`, FamilyShell, "cargo test --lib", []string{"cargo test --lib"}},
		{"shell", `{"command":["git","status","--short"]}`, FamilyShell, "git status --short", []string{"git status --short"}},
		{"exec_command", `{"cmd":"make check-all"}`, FamilyShell, "make check-all", []string{"make check-all"}},
		{"WebFetch", `{"url":"https://example.com/a","prompt":"p"}`, FamilyFetch, "https://example.com/a", []string{"https://example.com/a"}},
		{"read_file", `{"absolute_path":"/home/u/proj/x.go"}`, FamilyFile, "/home/u/proj/x.go", []string{"/home/u/proj/x.go", "x.go"}},
		{"edit", `{"filePath":"/home/u/proj/y.go"}`, FamilyFile, "/home/u/proj/y.go", []string{"/home/u/proj/y.go", "y.go"}},
		{"run_shell_command", `{"command":"npm test -- --watch=false"}`, FamilyShell, "npm test -- --watch=false", []string{"npm test -- --watch=false"}},
		{"TodoWrite", `{"todos":[]}`, FamilyOther, "TodoWrite\x00{\"todos\":[]}", nil},
		{"Read", `not json`, FamilyFile, "", nil},
	}
	for _, tc := range cases {
		s := SubjectOf(tc.tool, []byte(tc.args), cwd)
		if s.Family != tc.fam || s.Key != tc.key || !slices.Equal(s.Mentions, tc.mentions) {
			t.Errorf("SubjectOf(%s, %s) = %q %q %q, want %q %q %q", tc.tool, tc.args, s.Family, s.Key, s.Mentions, tc.fam, tc.key, tc.mentions)
		}
	}
}

func TestNormPath(t *testing.T) {
	cases := []struct{ p, cwd, want string }{
		{"", "/x", ""},
		{"a/b", "", "a/b"},
		{"a//b/", "/x", "/x/a/b"},
		{"`/x/../y/z.md`", "/w", "/y/z.md"},
		{"'./q'", "/w", "/w/q"},
		// Recorded on Windows: one form with '/' and an upper-case drive.
		{`C:\Users\me\proj\src\a.go`, `C:\Users\me\proj`, "C:/Users/me/proj/src/a.go"},
		{`src\..\lib\b.go`, `C:\Users\me\proj`, "C:/Users/me/proj/lib/b.go"},
		{"c:/Users/me/proj/./a.go", "", "C:/Users/me/proj/a.go"},
		{`\\server\share\x\..\y.txt`, `C:\w`, "//server/share/y.txt"},
		{"//not/unc", "/w", "/not/unc"}, // a POSIX path with a doubled slash
	}
	for _, tc := range cases {
		if got := NormPath(tc.p, tc.cwd); got != tc.want {
			t.Errorf("NormPath(%q, %q) = %q, want %q", tc.p, tc.cwd, got, tc.want)
		}
	}
}

func TestContentLines(t *testing.T) {
	text := "     1→package main // a line that is long enough to count here\n" +
		"     2→\n" +
		"    12\tfunc main() { fmt.Println(\"hello, content line world\") }\n" +
		"short line\n" +
		"---------------------------------------------------------------\n" + // long, no letters
		"  αβγδεζηθικλμνξοπρστυφχψω αβγδεζηθικλμνξοπρστυφχψω  \n" +
		"12345→ not a prefix without digits first? it is a prefix, digits then arrow"
	var got []string
	ContentLines(text, func(l string) { got = append(got, l) })
	want := []string{
		"package main // a line that is long enough to count here",
		"func main() { fmt.Println(\"hello, content line world\") }",
		"αβγδεζηθικλμνξοπρστυφχψω αβγδεζηθικλμνξοπρστυφχψω",
		"not a prefix without digits first? it is a prefix, digits then arrow",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ContentLines = %q\nwant %q", got, want)
	}
}

// TestContentLineBounds pins the thresholds at their edges, where the
// early exits (enough already, too few bytes left) decide.
func TestContentLineBounds(t *testing.T) {
	cases := []struct {
		name string
		s    string
		want bool
	}{
		{"40 runes, 20 alnum", strings.Repeat("a-", 20), true},
		{"40 runes, 19 alnum", strings.Repeat("a-", 19) + "--", false},
		{"39 runes, 39 alnum", strings.Repeat("a", 39), false},
		{"alnum last", strings.Repeat("-", 40) + strings.Repeat("Z9", 10), true},
		{"alnum one short at the end", strings.Repeat("-", 40) + strings.Repeat("Z9", 9) + "@", false},
		{"edges of the ranges", strings.Repeat("@[`{/:", 10), false},
		{"multi-byte letters", strings.Repeat("λ", 40), true},
		{"multi-byte, 39 runes", strings.Repeat("λ", 39), false},
		{"multi-byte symbols", strings.Repeat("→", 20) + strings.Repeat("é", 19), false},
	}
	for _, tc := range cases {
		if got := contentLine(tc.s); got != tc.want {
			t.Errorf("%s: contentLine(%q) = %v, want %v", tc.name, tc.s, got, tc.want)
		}
	}
}

func TestNameMatcher(t *testing.T) {
	m := newNameMatcher()
	ids := map[string]int32{}
	for _, n := range []string{"src/a.go", "/home/u/src/a.go", "a.go", "he", "she", "hers"} {
		ids[n] = m.add(n)
	}
	if again := m.add("a.go"); again != ids["a.go"] {
		t.Fatalf("adding a name twice gave a new id")
	}
	m.build()
	count := map[string]int{}
	byID := map[int32]string{}
	for n, id := range ids {
		byID[id] = n
	}
	m.scan("see /home/u/src/a.go and ushers; a.go", func(id int32) { count[byID[id]]++ })
	want := map[string]int{"/home/u/src/a.go": 1, "src/a.go": 1, "a.go": 2, "she": 1, "he": 1, "hers": 1}
	if len(count) != len(want) {
		t.Errorf("matches %v, want %v", count, want)
	}
	for n, c := range want {
		if count[n] != c {
			t.Errorf("%q matched %d times, want %d (all: %v)", n, count[n], c, count)
		}
	}
}

func TestLineMatcher(t *testing.T) {
	m := newLineMatcher(0)
	a := m.add("the quick brown fox jumps over the lazy dog, twice over")
	b := m.add("the quick brown fox jumps over the lazy dog, and stops") // same 40-byte window
	c := m.add("an entirely different line that is long enough to count")
	var got []int32
	text := "x the quick brown fox jumps over the lazy dog, and stops. Then: an entirely different line that is long enough to count"
	m.scan(text, func(id int32) { got = append(got, id) })
	if !slices.Equal(got, []int32{b, c}) {
		t.Errorf("scan found %v, want [%d %d] (a=%d)", got, b, c, a)
	}
	got = nil
	m.scan("too short", func(id int32) { got = append(got, id) })
	if got != nil {
		t.Errorf("short text matched %v", got)
	}
}

func TestForEachString(t *testing.T) {
	var got []string
	forEachString([]byte(`{"a":"x","b":{"c":["y",1,"z"],"d":null},"e":"w"}`), nil, func(s string) { got = append(got, s) })
	if !slices.Equal(got, []string{"x", "y", "z", "w"}) {
		t.Errorf("forEachString = %q", got)
	}
}

// A long command is named by its first maxMentionBytes bytes, cut at a
// character boundary; its key (the same call again) stays whole.
func TestLongMentionsCapped(t *testing.T) {
	script := "cat <<'EOF' > note.txt\n" + strings.Repeat("é", 300) + "\nEOF"
	args, _ := json.Marshal(map[string]string{"command": script})
	s := SubjectOf("Bash", args, "/p")
	if s.Key != script {
		t.Errorf("key cut: %d bytes, want %d", len(s.Key), len(script))
	}
	if len(s.Mentions) != 1 || len(s.Mentions[0]) > maxMentionBytes || !strings.HasPrefix(script, s.Mentions[0]) || !utf8.ValidString(s.Mentions[0]) {
		t.Fatalf("mention %q: want a valid prefix of at most %d bytes", s.Mentions, maxMentionBytes)
	}
	if got := len(s.Mentions[0]); got != maxMentionBytes-1 { // 23 ASCII bytes, then 2-byte runes: byte 256 is mid-rune
		t.Errorf("mention is %d bytes, want %d", got, maxMentionBytes-1)
	}
	short := SubjectOf("Bash", []byte(`{"command":"go test ./..."}`), "/p")
	if len(short.Mentions) != 1 || short.Mentions[0] != "go test ./..." {
		t.Errorf("short command's mention changed: %q", short.Mentions)
	}
}

func TestPersistedInCommand(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"cat /h/.claude/projects/-p/s/tool-results/toolu_01A.txt", "toolu_01A"},
		{`head -5 "/h/s/tool-results/a-b_c.txt"`, "a-b_c"},
		{`type C:\h\s\tool-results\x1.txt`, "x1"},
		{"cat tool-results/a.txt tool-results/b.txt", "a,b"},
		{"cat tool-results/a.txt.bak", ""},
		{"cat tool-results/a.txt;echo", "a"},
		{"cat tool-results/a.txt2 tool-results/b.txt", "b"},
		{"ls tool-results/", ""},
		{"cat tool-results/.txt", ""},
		{"cat tool-results/a.tx", ""},
		{"cat tool-results/a b.txt", ""},
		{"grep x tool-resultsX/a.txt", ""},
		{"tool-results", ""},
		{"", ""},
	} {
		if got := strings.Join(persistedInCommand(nil, c.cmd), ","); got != c.want {
			t.Errorf("persistedInCommand(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}
