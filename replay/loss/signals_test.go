package loss

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// sessionBuilder writes a small main-thread session by hand.
type sessionBuilder struct{ s corpus.Session }

func (b *sessionBuilder) add(role corpus.Role, blocks ...corpus.Block) int {
	b.s.Messages = append(b.s.Messages, corpus.Message{Role: role, Blocks: blocks, Line: len(b.s.Messages) + 1})
	return len(b.s.Messages) - 1
}
func (b *sessionBuilder) user(text string) int {
	return b.add(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: text})
}
func (b *sessionBuilder) say(text string) int {
	return b.add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: text})
}

// call writes an assistant message with one call and the tool message with
// its result; it returns the assistant message's index.
func (b *sessionBuilder) call(id, tool, args, result string) int {
	at := b.add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: tool, Args: []byte(args)})
	b.add(corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Text: result})
	return at
}

// fileText is a file's text as Read shows it, n numbered lines. The name
// is written with '_' for '.', so that quoting a line is not naming the
// file by its base name.
func fileText(name string, n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%6d→line %d of %s, long enough to be a content line here\n", i, i, strings.ReplaceAll(name, ".", "_"))
	}
	return sb.String()
}

func TestSignals(t *testing.T) {
	var b sessionBuilder
	b.s.Meta.Cwd = "/p"
	b.user("review the code")
	b.call("r1", "Read", `{"file_path":"/p/src/a.go"}`, fileText("a.go", 5))
	b.call("r2", "Read", `{"file_path":"/p/src/b.go"}`, fileText("b.go", 5))
	b.call("r3", "Read", `{"file_path":"/p/src/c.go"}`, fileText("c.go", 5))
	b.call("r4", "Bash", `{"command":"go test ./..."}`, "ok  \tgithub.com/x\t0.1s")
	b.call("r5", "Read", `{"file_path":"/p/src/d.go"}`, fileText("d.go", 5))
	b.call("r6", "Read", `{"file_path":"/p/src/e.go"}`, fileText("e.go", 5))
	b.say("Read them all.")
	hideAt := b.say("Working.") // the response to the request that hid r1..r5
	refetchB := b.call("x1", "Read", `{"file_path":"src/b.go"}`, fileText("b.go", 5))
	b.say("sub-a.go is fine; b.go.orig reviewed") // inside longer names: no use
	quoteC := b.say("In the third: `line 3 of c_go, long enough to be a content line here` is wrong.")
	useA := b.say("Edited /p/src/a.go and src/b.go.")
	fetchD := b.call("x2", "Read", `{"file_path":"/home/u/.claude/projects/-p/s/tool-results/r5.txt"}`, fileText("d.go", 5))
	useTest := b.say("d.go is done; go test ./... passed")
	catE := b.call("x3", "Bash", `{"command":"cat /p/src/e.go"}`, fileText("e.go", 5))
	useE := b.say("src/e.go needs a fix")
	s := &b.s
	ix := Build(s, Options{})
	sig := func(id string) *Signal { return ix.Signal(Hide{CallID: id, At: hideAt, Request: 6}) }

	r1 := sig("r1")
	if !r1.Lost || r1.NeededMsg != useA || r1.NeededBy != "name" || r1.FetchedMsg != -1 || r1.Refetched || r1.Unseen {
		t.Errorf("r1 (a.go, named at %d, never fetched) = %+v", useA, *r1)
	}
	r2 := sig("r2")
	if r2.Lost || !r2.Refetched || r2.FetchedMsg != refetchB || r2.NeededMsg != useA {
		t.Errorf("r2 (b.go, read again at %d before its use at %d) = %+v", refetchB, useA, *r2)
	}
	r3 := sig("r3")
	if !r3.Lost || r3.NeededMsg != quoteC || r3.NeededBy != "quote" || r3.FetchedMsg != -1 || r3.Refetched {
		t.Errorf("r3 (c.go, quoted at %d) = %+v", quoteC, *r3)
	}
	r4 := sig("r4")
	if !r4.Lost || r4.NeededMsg != useTest {
		t.Errorf("r4 (go test, command named at %d) = %+v", useTest, *r4)
	}
	r5 := sig("r5")
	if r5.Lost || !r5.Refetched || r5.FetchedMsg != fetchD || r5.NeededMsg != useTest || r5.RefetchTokens != ix.Tokens(r5.Result) {
		t.Errorf("r5 (d.go, persisted file read back at %d, then named by its base name at %d) = %+v", fetchD, useTest, *r5)
	}
	r6 := sig("r6")
	if r6.Lost || !r6.Refetched || r6.FetchedMsg != catE || r6.NeededMsg != useE {
		t.Errorf("r6 (e.go, cat at %d repeats its lines, named at %d) = %+v", catE, useE, *r6)
	}
	// A hide at the first request after the result arrived is unseen.
	if u := ix.Signal(Hide{CallID: "r6", At: hideAt - 1}); !u.Unseen {
		t.Errorf("r6 hidden at the request right after it = %+v, want unseen", *u)
	}
	if ix.Signal(Hide{CallID: "nope", At: 3}) != nil {
		t.Errorf("an id with no result gave a signal")
	}
	var c Counts
	for _, id := range []string{"r1", "r2", "r3", "r4", "r5", "r6"} {
		c.Add(sig(id))
	}
	want := Counts{Hidden: 6, Unseen: 0, Needed: 6, Refetched: 3, Lost: 3,
		RefetchTokens: ix.Tokens(ix.Result("r2")) + ix.Tokens(ix.Result("r5")) + ix.Tokens(ix.Result("r6"))}
	if c != want {
		t.Errorf("counts = %+v, want %+v", c, want)
	}
}

// A session recorded on Windows (no real one here: written from Claude
// Code's documented record shapes, with Windows paths as its tools take
// them): a file named later in backslashes, relatively or absolutely, is
// needed, a read of the same file by another spelling fetches it back,
// and a read of its persisted output under C:\Users\...\tool-results is a
// refetch. Before Windows paths were cleaned, cwd was put in front of an
// absolute C:\ path, so none of this was seen.
func TestSignalsWindowsPaths(t *testing.T) {
	var b sessionBuilder
	b.s.Meta.Cwd = `C:\Users\me\proj`
	b.user("review the code")
	b.call("r1", "Read", `{"file_path":"C:\\Users\\me\\proj\\src\\a.go"}`, fileText("a.go", 5))
	b.call("r2", "Read", `{"file_path":"C:\\Users\\me\\proj\\src\\b.go"}`, fileText("b.go", 5))
	b.call("r3", "Read", `{"file_path":"C:\\Users\\me\\proj\\src\\d.go"}`, fileText("d.go", 5))
	hideAt := b.say("Working.")
	// The results fetched back say nothing of the files' lines, so only
	// the paths can tell what was fetched.
	refetchB := b.call("x1", "Read", `{"file_path":"src/b.go"}`, "(unchanged since last read)")
	fetchD := b.call("x2", "Read", `{"file_path":"C:\\Users\\me\\.claude\\projects\\C--Users-me-proj\\s\\tool-results\\r3.txt"}`, "(see above)")
	useA := b.say(`Edited src\a.go and C:\Users\me\proj\src\b.go; d.go is done.`)
	ix := Build(&b.s, Options{})
	sig := func(id string) *Signal { return ix.Signal(Hide{CallID: id, At: hideAt, Request: 3}) }
	if r1 := sig("r1"); !r1.Lost || r1.NeededMsg != useA || r1.NeededBy != "name" {
		t.Errorf("r1 (a.go, named as src\\a.go at %d, never fetched) = %+v", useA, *r1)
	}
	if r2 := sig("r2"); r2.Lost || !r2.Refetched || r2.FetchedMsg != refetchB || r2.NeededMsg != useA {
		t.Errorf("r2 (b.go, read again as src/b.go at %d, named at %d) = %+v", refetchB, useA, *r2)
	}
	if r3 := sig("r3"); r3.Lost || !r3.Refetched || r3.FetchedMsg != fetchD || r3.NeededMsg != useA {
		t.Errorf("r3 (d.go, persisted output read back at %d, named by its base name at %d) = %+v", fetchD, useA, *r3)
	}
}

// A shell command that prints a persisted output (cat, head, sed -n; two
// files in one command; a Windows path) fetches it back; listing the
// folder or searching the file with Grep does not. No real log here reads
// a persisted output other than with Read: this follows what the commands
// print. The results of those commands say nothing of the files' lines,
// so only the paths can tell what was fetched.
func TestPersistedOutputReadByShell(t *testing.T) {
	var b sessionBuilder
	b.s.Meta.Cwd = "/p"
	b.user("review the code")
	for i, f := range []string{"a", "b", "c", "d", "e", "g"} {
		b.call(fmt.Sprintf("r%d", i+1), "Read", `{"file_path":"/p/src/`+f+`.go"}`, fileText(f+".go", 5))
	}
	hideAt := b.say("Working.")
	const dir = "/home/u/.claude/projects/-p/s/tool-results/"
	catA := b.call("x1", "Bash", `{"command":"cat `+dir+`r1.txt | head -100"}`, "(output)")
	sedBC := b.call("x2", "Bash", `{"command":"sed -n 1,80p '`+dir+`r2.txt' && tail `+dir+`r3.txt"}`, "(output)")
	winD := b.call("x3", "Bash", `{"command":"type C:\\Users\\u\\.claude\\projects\\-p\\s\\tool-results\\r4.txt"}`, "(output)")
	b.call("x4", "Bash", `{"command":"ls -la `+dir+`"}`, "r5.txt r6.txt")
	b.call("x5", "Grep", `{"pattern":"func","path":"`+dir+`r6.txt"}`, "r6.txt")
	use := b.say("Reviewed /p/src/a.go, /p/src/b.go, /p/src/c.go, /p/src/d.go, /p/src/e.go and /p/src/g.go.")
	ix := Build(&b.s, Options{})
	for _, c := range []struct {
		id      string
		fetched int
	}{{"r1", catA}, {"r2", sedBC}, {"r3", sedBC}, {"r4", winD}, {"r5", -1}, {"r6", -1}} {
		s := ix.Signal(Hide{CallID: c.id, At: hideAt, Request: 7})
		if s.FetchedMsg != c.fetched || s.Refetched != (c.fetched >= 0) || s.Lost != (c.fetched < 0) || s.NeededMsg != use {
			t.Errorf("%s: fetched at %d, refetched %v, lost %v, needed at %d; want fetched at %d, needed at %d",
				c.id, s.FetchedMsg, s.Refetched, s.Lost, s.NeededMsg, c.fetched, use)
		}
	}
}

// A message that fetches a result back names its path to do so: that is
// not a use of what the result held.
func TestRefetchingMessageIsNotANeed(t *testing.T) {
	var b sessionBuilder
	b.s.Meta.Cwd = "/p"
	b.call("r1", "Read", `{"file_path":"/p/a.go"}`, fileText("a.go", 3))
	at := b.say("hm")
	b.add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: "Reading /p/a.go again"},
		corpus.Block{Kind: corpus.KindToolUse, ToolCallID: "x", ToolName: "Read", Args: []byte(`{"file_path":"/p/a.go"}`)})
	b.add(corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: "x", Text: fileText("a.go", 3)})
	b.say("/p/a.go looks right")
	s := Build(&b.s, Options{}).Signal(Hide{CallID: "r1", At: at})
	if s.Lost || !s.Refetched || s.NeededMsg != 5 || s.FetchedMsg != 3 {
		t.Errorf("signal = %+v, want needed at 5, fetched at 3, not lost", *s)
	}
}

// The same key input to another tool is not the same call again: a Glob
// with a Grep's pattern does not fetch the Grep's result back; the Grep
// repeated does.
func TestCallKeyNamesTheTool(t *testing.T) {
	var b sessionBuilder
	b.s.Meta.Cwd = "/p"
	b.call("r1", "Grep", `{"pattern":"handleRequest"}`, "a.go:3: one match")
	at := b.say("ok")
	glob := b.call("r2", "Glob", `{"pattern":"handleRequest"}`, "no files")
	grep := b.call("r3", "Grep", `{"pattern":"handleRequest"}`, "a.go:3: the match again")
	s := Build(&b.s, Options{}).Signal(Hide{CallID: "r1", At: at})
	if s.FetchedMsg != grep {
		t.Errorf("fetched at %d, want %d (the Grep again, not the Glob at %d)", s.FetchedMsg, grep, glob)
	}
}

// A line found in two results is not distinctive: quoting it is no
// evidence of using either. This holds even when the second result is the
// first fetched back by content (cat of the same file): the definition
// counts results, not subjects, as the analyst's prototype does.
func TestSharedLineIsNotDistinctive(t *testing.T) {
	var b sessionBuilder
	shared := "// Copyright 2026 the authors; licensed under the same terms\n"
	b.call("r1", "Bash", `{"command":"head one.txt"}`, shared+"first file body")
	b.call("r2", "Bash", `{"command":"head two.txt"}`, shared+"second file body")
	b.call("r3", "Read", `{"file_path":"/q/c.go"}`, fileText("c.go", 5))
	b.call("r4", "Bash", `{"command":"cat /q/c.go"}`, fileText("c.go", 5))
	at := b.say("ok")
	b.say("Both start with " + shared + " and the file has `line 2 of c_go, long enough to be a content line here`")
	ix := Build(&b.s, Options{})
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		if s := ix.Signal(Hide{CallID: id, At: at}); s.NeededMsg >= 0 {
			t.Errorf("%s needed at %d by a shared line", id, s.NeededMsg)
		}
	}
}

// A cut that kept a result's head left its first lines visible: quoting
// one of them is not a use of what was cut; quoting a line past the head
// is.
func TestQuoteOfKeptHead(t *testing.T) {
	var b sessionBuilder
	b.call("r1", "bash", `{"command":"make report"}`, fileText("report", 3))
	at := b.say("ok")
	b.say("The first line says `line 1 of report, long enough to be a content line here`.")
	later := b.say("And the third: `line 3 of report, long enough to be a content line here`.")
	ix := Build(&b.s, Options{})
	first := len(strings.SplitAfterN(fileText("report", 3), "\n", 2)[0])
	if s := ix.Signal(Hide{CallID: "r1", At: at, Kept: first}); s.NeededMsg != later || s.NeededBy != "quote" {
		t.Errorf("cut after line 1: needed at %d by %q, want %d by quote", s.NeededMsg, s.NeededBy, later)
	}
	if s := ix.Signal(Hide{CallID: "r1", At: at}); s.NeededMsg != at+1 {
		t.Errorf("stubbed: needed at %d, want %d (line 1 quoted)", s.NeededMsg, at+1)
	}
}

// Tokens keeps each result's size after its first measurement: the cached
// value must be the meter's, on every call and from the goroutines of a
// sweep sharing the index (run with -race).
func TestTokensMeasuredOnce(t *testing.T) {
	var b sessionBuilder
	b.user("go")
	b.call("r1", "Read", `{"file_path":"/p/a.go"}`, strings.Repeat("ascii text line\n", 50))
	b.call("r2", "Read", `{"file_path":"/p/b.go"}`, strings.Repeat("日本語 😀 line\n", 30))
	ix := Build(&b.s, Options{})
	for _, id := range []string{"r1", "r2"} {
		r := ix.Result(id)
		want := ix.meter.Tokens(ix.meter.Block(&corpus.Block{Kind: corpus.KindText,
			Text: resultText(&b.s.Messages[r.Msg].Blocks[r.Block])}))
		if want == 0 {
			t.Fatalf("%s measures 0 tokens: the test needs a non-empty result", id)
		}
		got := make([]int, 8)
		var wg sync.WaitGroup
		for g := range got {
			wg.Go(func() { got[g] = ix.Tokens(r) })
		}
		wg.Wait()
		got = append(got, ix.Tokens(r))
		for g, n := range got {
			if n != want {
				t.Errorf("%s: call %d gave %d tokens, want %d", id, g, n, want)
			}
		}
	}
}

// TestFailedCalls: a failed file read holds no content the agent could
// need, so hiding it is never a loss however often the path is named (the
// real 504216d1's Read that exceeded the token limit was one of its 9
// lost); a failed shell command's output still can be; and a call that
// failed fetches nothing back (failed Edits and MultiEdits that changed
// nothing counted as refetches, hiding 3 losses in each of two real logs).
func TestFailedCalls(t *testing.T) {
	var b sessionBuilder
	b.s.Meta.Cwd = "/p"
	b.user("review")
	b.call("big", "Read", `{"file_path":"/p/big.py"}`, "File content (50155 tokens) exceeds maximum allowed tokens (25000).")
	b.s.Messages[len(b.s.Messages)-1].Blocks[0].IsError = true
	b.call("sh", "Bash", `{"command":"make check-all"}`, "Traceback (most recent call last): boom")
	b.s.Messages[len(b.s.Messages)-1].Blocks[0].IsError = true
	b.call("ok", "Read", `{"file_path":"/p/small.py"}`, fileText("small.py", 5))
	hideAt := b.say("Working.")
	b.call("again", "Read", `{"file_path":"/p/small.py"}`, "File does not exist.")
	b.s.Messages[len(b.s.Messages)-1].Blocks[0].IsError = true
	use := b.say("Fixed /p/big.py and /p/small.py; make check-all passes.")
	ix := Build(&b.s, Options{})
	sig := func(id string) *Signal { return ix.Signal(Hide{CallID: id, At: hideAt, Request: 3}) }
	if s := sig("big"); s.Lost || s.NeededMsg != -1 || s.Refetched {
		t.Errorf("a failed Read, named at %d: %+v; want neither needed nor lost", use, *s)
	}
	if s := sig("sh"); !s.Lost || s.NeededMsg != use {
		t.Errorf("a failed command, named at %d: %+v; want needed and lost", use, *s)
	}
	if s := sig("ok"); !s.Lost || s.Refetched || s.FetchedMsg != -1 || s.NeededMsg != use {
		t.Errorf("a Read read again by a call that failed, named at %d: %+v; want lost, not fetched back", use, *s)
	}
}
