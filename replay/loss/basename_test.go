package loss

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// A file is named by its base name when no other file of the session has
// it, and only as a name of its own; a message that reads it again
// naming it is fetching it, not using it.
func TestSignalsBaseNames(t *testing.T) {
	var b sessionBuilder
	b.s.Meta.Cwd = "/p"
	b.user("review the specs")
	b.call("r1", "Read", `{"file_path":"/p/docs/module-alpha.md"}`, fileText("module-alpha.md", 5))
	b.call("r2", "Read", `{"file_path":"/p/a/README.md"}`, fileText("a README.md", 5))
	b.call("r3", "Read", `{"file_path":"/p/b/README.md"}`, fileText("b README.md", 5))
	b.call("r4", "Read", `{"file_path":"/p/src/x.go"}`, fileText("x.go", 5))
	hideAt := b.say("Working.")
	b.say("sub-x.go, x.go.bak and docs2/x.go are other files") // x.go inside longer names
	useAlpha := b.say("`module-alpha.md` has these sections: 1-Overview, 2-Adapters.")
	b.say("README.md says to run make.") // two files have that name
	refetch := b.add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: "Reading x.go again."},
		corpus.Block{Kind: corpus.KindToolUse, ToolCallID: "x1", ToolName: "Read", Args: []byte(`{"file_path":"/p/src/x.go"}`)})
	b.add(corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: "x1", Text: fileText("x.go", 5)})
	useX := b.say("x.go looks right.")
	ix := Build(&b.s, Options{})
	sig := func(id string) *Signal { return ix.Signal(Hide{CallID: id, At: hideAt}) }
	if s := sig("r1"); !s.Lost || s.NeededMsg != useAlpha || s.NeededBy != "name" {
		t.Errorf("r1 (module-alpha.md, cited by base name at %d) = %+v", useAlpha, *s)
	}
	for _, id := range []string{"r2", "r3"} {
		if s := sig(id); s.NeededMsg != -1 {
			t.Errorf("%s (README.md, a base name two files share) needed at %d", id, s.NeededMsg)
		}
	}
	if s := sig("r4"); s.Lost || !s.Refetched || s.FetchedMsg != refetch || s.NeededMsg != useX {
		t.Errorf("r4 (x.go, read again at %d naming it, used at %d) = %+v", refetch, useX, *s)
	}
}

func TestBaseName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/p/docs/module-alpha.md", "module-alpha.md"},
		{"/p/src/x.go", "x.go"},
		{"/p/Makefile", ""},   // no extension: a word of prose could be it
		{"/p/.gitignore", ""}, // a dot at the start
		{"/p/notes.", ""},     // a dot at the end
		{"C:/p/a.go", "a.go"}, // NormPath writes Windows paths with '/'
		{"relative.txt", "relative.txt"},
	} {
		if got := baseName(tt.in); got != tt.want {
			t.Errorf("baseName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWholeName(t *testing.T) {
	const name = "x.go"
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"x.go", true},
		{"see x.go.", true},
		{"`x.go`", true},
		{"(x.go, y.go)", true},
		{"→x.go", true},
		{"sub-x.go", false},
		{"ax.go", false},
		{"src/x.go", false}, // a path: its full forms are the mentions
		{`src\x.go`, false},
		{".x.go", false},
		{"x.go.bak", false},
		{"x.gox", false},
		{"x.go_test", false},
		{"x.go/", false},
	} {
		i := len(tt.text) - len(name)
		for j := 0; j+len(name) <= len(tt.text); j++ {
			if tt.text[j:j+len(name)] == name {
				i = j
				break
			}
		}
		if got := wholeName(tt.text, i, i+len(name)); got != tt.want {
			t.Errorf("wholeName(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
