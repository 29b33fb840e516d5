package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// LossScenario is a session built so that each loss signal has exactly one
// known cause, whatever policy hides the early results:
//   - Used: a file read in the first turn and named again in the last, many
//     turns later, never read back: needed, and lost once hidden;
//   - Unused: a file read in the first turn and never mentioned again:
//     hidden costs nothing;
//   - Refetched: a file read in the first turn and read again (the same
//     call) in the last turn, right before the message that names it:
//     needed, refetched, not lost;
//   - Quoted: a command whose output the last message quotes one line of
//     (its distinctive line), without naming the command: needed by quote,
//     lost once hidden;
//   - Fillers: one shell command per middle turn, with output of its own
//     (no filler repeats another's lines), never mentioned again.
type LossScenario struct {
	Messages                          []corpus.Message
	Used, Unused, Refetched, Quoted   string   // tool call ids
	Fillers                           []string // tool call ids, in order
	QuotedLine                        string
	UsedPath, UnusedPath, RefetchPath string
}

// LossOptions shape a LossScenario.
type LossOptions struct {
	// Filler is the number of middle turns; FillerBytes and FileBytes the
	// sizes of a filler's output and of each file read.
	Filler, FillerBytes, FileBytes int
	// Payload writes tool results as clai writes them (a JSON payload
	// {"content":…,"is_error":false}) instead of text.
	Payload bool
	Seed    uint64
}

// Loss builds the scenario with smith/clai tool names (read_file, bash).
func Loss(o LossOptions) LossScenario {
	r := newRand(o.Seed)
	sc := LossScenario{UsedPath: "docs/ingest.md", UnusedPath: "src/unused.rs", RefetchPath: "src/refetch.rs"}
	n := 0
	id := func() string { n++; return fmt.Sprintf("call_%03d", n) }
	msg := func(role corpus.Role, blocks ...corpus.Block) {
		sc.Messages = append(sc.Messages, corpus.Message{ID: fmt.Sprintf("m%04d", len(sc.Messages)), Role: role, Blocks: blocks, Line: len(sc.Messages) + 1})
	}
	say := func(role corpus.Role, text string) { msg(role, corpus.Block{Kind: corpus.KindText, Text: text}) }
	call := func(tool, args, result string) string {
		c := id()
		msg(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: c, ToolName: tool, Args: []byte(args)})
		res := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: c, Text: result}
		if o.Payload {
			res.Text, res.Payload = "", claiObject(nil, "content", result, "is_error", false)
		}
		msg(corpus.RoleTool, res)
		return c
	}
	files := map[string]string{}
	read := func(path string) string {
		if files[path] == "" {
			files[path] = distinctFile(r, path, o.FileBytes)
		}
		return call("read_file", fmt.Sprintf(`{"path":%q}`, path), files[path])
	}
	say(corpus.RoleUser, "Review the ingest module and fix what is wrong.")
	sc.Used = read(sc.UsedPath)
	sc.Unused = read(sc.UnusedPath)
	sc.Refetched = read(sc.RefetchPath)
	grep := distinctFile(r, "grep", 2000)
	sc.QuotedLine = strings.SplitN(grep, "\n", 3)[1]
	sc.Quoted = call("bash", `{"command":"grep -rn parse_record src"}`, grep)
	say(corpus.RoleAssistant, "I have read the module and its callers.")
	for i := 1; i <= o.Filler; i++ {
		say(corpus.RoleUser, fmt.Sprintf("Continue with step %d.", i))
		cmd := fmt.Sprintf("cargo test --test step_%03d", i)
		sc.Fillers = append(sc.Fillers, call("bash", fmt.Sprintf(`{"command":%q}`, cmd), distinctFile(r, cmd, o.FillerBytes)))
		say(corpus.RoleAssistant, fmt.Sprintf("Step %d passes.", i))
	}
	say(corpus.RoleUser, "Now write the fix.")
	read(sc.RefetchPath) // the same call again: the file is unchanged
	say(corpus.RoleAssistant, fmt.Sprintf("Following %s, the fix goes into %s. The bad call is:\n%s", sc.UsedPath, sc.RefetchPath, sc.QuotedLine))
	return sc
}

// distinctFile is about n bytes of numbered lines that occur nowhere else:
// each has a random 48-character tail.
func distinctFile(r *rand.Rand, name string, n int) string {
	var sb strings.Builder
	for i := 1; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "%s:%d: let value_%d = parse_record(%s);\n", name, i, i, randAlnum(r, 48))
	}
	return sb.String()
}
