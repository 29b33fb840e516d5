package synth

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/calib-dev/calib/corpus"
)

// The texts smith's agent writes itself (agent.cr constants, smith.md §2, §5).
const (
	SmithContinueText  = "Your previous response was cut off at the output token limit. Continue exactly where you left off. Do not repeat what you already wrote and do not start over."
	SmithRetrySmaller  = "Your tool call was cut off at the output token limit and was discarded. Retry with a smaller payload — for large files, write them in multiple smaller edits."
	SmithStopHookText  = "A stop hook asked you to keep going."
	SmithSummaryPrefix = "Summary of the earlier conversation: "
)

var smithPrompts = []string{
	"Run the specs and fix whatever fails",
	"Refactor the agent loop then run the tests again",
	"Why does compaction drop the tool results of the current turn?",
	"Add a --strict flag to the export command and document it",
	"Read src/smith/context.cr and explain the budget arithmetic",
	"The CI build is red on main, find out why",
	"Make the transcript log survive a crash mid-write",
	"Rename Working#bytes to Working#size everywhere",
}

var smithFiles = []string{
	"src/smith/agent.cr", "src/smith/context.cr", "src/smith/session.cr", "src/smith/cli.cr",
	"src/smith/llm/types.cr", "src/smith/transcript_log.cr", "spec/smith/context_spec.cr",
	"spec/smith/agent_spec.cr", "README.md", "CHANGELOG.md", "shard.yml", "src/smith/config.cr",
}

var smithCommands = []string{
	"crystal spec", "crystal spec spec/smith/context_spec.cr", "git status --short", "git diff --stat",
	"make test", "ls -la ~/.smith/sessions", "crystal tool format --check", "git log --oneline -20",
}

// smithGen generates one smith session, turn by turn.
type smithGen struct {
	p     Profile
	r     *rand.Rand
	seed  uint64
	calls int
	// reads remembers earlier read-like calls so a later one can repeat
	// them with byte-identical arguments.
	reads []smithCall
}

type smithCall struct {
	name string
	args []byte
}

func newSmithGen(p Profile, seed uint64) *smithGen {
	return &smithGen{p: p, r: newRand(seed), seed: seed}
}

// Smith generates one session of p.Turns real turns as smith records it in
// transcript.jsonl: the raw history, ids and synthetic flags set.
func Smith(p Profile, seed uint64) []corpus.Message {
	g := newSmithGen(p, seed)
	var msgs []corpus.Message
	for range p.Turns {
		msgs = append(msgs, g.turn()...)
	}
	return msgs
}

// ToolHeavySession is a tool-heavy smith session of exactly n messages:
// one-turn ToolHeavy sessions of seeds 1, 2, ... run together and cut at
// n. The replay, loss and sweep benchmarks measure cost per message on it.
func ToolHeavySession(n int) *corpus.Session {
	p := ToolHeavy
	p.Turns = 1
	var msgs []corpus.Message
	for seed := uint64(1); len(msgs) < n; seed++ {
		msgs = append(msgs, Smith(p, seed)...)
	}
	return &corpus.Session{ID: fmt.Sprintf("bench-%d", n), Format: corpus.FormatSmithTranscript, Messages: msgs[:n]}
}

func (g *smithGen) id() string { return randHex(g.r, 16) }

func (g *smithGen) msg(role corpus.Role, blocks ...corpus.Block) corpus.Message {
	return corpus.Message{ID: g.id(), Role: role, Blocks: blocks}
}

// turn returns one real turn: the prompt, the request/response cycles with
// their tool calls, maybe a continuation, and the final answer.
func (g *smithGen) turn() []corpus.Message {
	r, p := g.r, g.p
	prompt := smithPrompts[r.IntN(len(smithPrompts))]
	user := g.msg(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: prompt})
	if p.Images > 0 && r.Float64() < p.Images {
		user.Blocks = append(user.Blocks, corpus.Block{Kind: corpus.KindImage, MediaType: "image/png",
			Source: "shot.png", MediaRef: randHex(r, 64)})
	}
	out := []corpus.Message{user}
	remaining := between(r, p.MinCalls, p.MaxCalls)
	contAt := -1
	if p.Continuation > 0 && r.Float64() < p.Continuation {
		contAt = r.IntN(remaining + 1)
	}
	for step := 0; ; step++ {
		if step == contAt {
			out = append(out, g.continuation()...)
		}
		if remaining <= 0 {
			break
		}
		k := between(r, 1, min(max(p.ParallelCalls, 1), remaining))
		remaining -= k
		asst := g.msg(corpus.RoleAssistant, g.thinking()...)
		if r.IntN(3) == 0 {
			asst.Blocks = append(asst.Blocks, corpus.Block{Kind: corpus.KindText, Text: text(r, between(r, 20, 200))})
		}
		tool := g.msg(corpus.RoleTool)
		for range k {
			use, res := g.call()
			asst.Blocks = append(asst.Blocks, use)
			tool.Blocks = append(tool.Blocks, res)
		}
		out = append(out, asst, tool)
	}
	final := g.msg(corpus.RoleAssistant, g.thinking()...)
	final.Blocks = append(final.Blocks, corpus.Block{Kind: corpus.KindText, Text: text(r, between(r, 80, 1200))})
	return append(out, final)
}

// continuation is an output-limit continuation: either a cut-off answer
// and CONTINUE_TEXT, or (a truncated tool call, which leaves nothing)
// RETRY_SMALLER directly.
func (g *smithGen) continuation() []corpus.Message {
	if g.r.IntN(4) == 0 {
		u := g.msg(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: SmithRetrySmaller})
		u.Synthetic = true
		return []corpus.Message{u}
	}
	a := g.msg(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: text(g.r, between(g.r, 1000, 4000))})
	u := g.msg(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: SmithContinueText})
	u.Synthetic = true
	return []corpus.Message{a, u}
}

// thinking returns the blocks an assistant message opens with, if any.
func (g *smithGen) thinking() []corpus.Block {
	r, p := g.r, g.p
	x := r.Float64()
	switch {
	case x < p.Thinking:
		return []corpus.Block{{Kind: corpus.KindThinking, Text: text(r, vary(r, p.ThinkingBytes)),
			Signature: randBase64(r, between(r, 200, 700))}}
	case x < p.Thinking+p.Redacted:
		return []corpus.Block{{Kind: corpus.KindRedactedThinking, Text: randBase64(r, vary(r, p.ThinkingBytes))}}
	}
	return nil
}

// call returns one tool_use block and its tool_result.
func (g *smithGen) call() (use, res corpus.Block) {
	r, p := g.r, g.p
	g.calls++
	id := "toolu_01" + randAlnum(r, 22)
	var c smithCall
	switch {
	case r.Float64() < p.Bash:
		cmd := smithCommands[r.IntN(len(smithCommands))]
		c = smithCall{"bash", fmt.Appendf(nil, `{"command":%s}`, appendJSONString(nil, cmd))}
	case len(g.reads) > 0 && r.Float64() < p.Reread:
		c = g.reads[r.IntN(len(g.reads))]
	default:
		c = g.readLike()
		g.reads = append(g.reads, c)
	}
	use = corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: c.name, Args: c.args}
	res = corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id}
	switch {
	case p.BigEvery > 0 && g.calls%p.BigEvery == 0:
		res.Text = text(r, p.BigBytes)
	case c.name == "bash":
		res.Text = text(r, vary(r, p.ResultBytes))
		res.IsError = p.ErrorRate > 0 && r.Float64() < p.ErrorRate
	default:
		// A read of the same arguments returns the same bytes: the content
		// is a function of the call, not of the moment.
		h := fnv.New64a()
		h.Write([]byte(c.name))
		h.Write(c.args)
		cr := newRand(h.Sum64() ^ g.seed)
		res.Text = text(cr, vary(cr, p.ResultBytes))
	}
	return use, res
}

func (g *smithGen) readLike() smithCall {
	r := g.r
	path := smithFiles[r.IntN(len(smithFiles))]
	switch x := r.IntN(10); {
	case x < 6:
		return smithCall{"read_file", fmt.Appendf(nil, `{"path":%s}`, appendJSONString(nil, path))}
	case x < 9:
		pat := []string{"def compact", "TRUNCATION_MARKER", "window_start", "synthetic"}[r.IntN(4)]
		return smithCall{"grep", fmt.Appendf(nil, `{"pattern":%s,"path":"src"}`, appendJSONString(nil, pat))}
	}
	return smithCall{"glob", []byte(`{"pattern":"spec/**/*_spec.cr"}`)}
}

// AppendSmithMessage appends m as one line of smith's serialization (specs
// §1.1–1.3): compact, keys in declaration order, nil fields omitted,
// is_error always written on results, then synthetic and id. legacy writes
// the pre-#56 shape with neither key. No newline is appended.
func AppendSmithMessage(dst []byte, m corpus.Message, legacy bool) []byte {
	dst = append(dst, `{"role":`...)
	dst = appendJSONString(dst, string(m.Role))
	dst = append(dst, `,"content":[`...)
	for i, b := range m.Blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendSmithBlock(dst, b)
	}
	dst = append(dst, ']')
	if !legacy {
		dst = append(dst, `,"synthetic":`...)
		dst = fmt.Append(dst, m.Synthetic)
		dst = append(dst, `,"id":`...)
		dst = appendJSONString(dst, m.ID)
	}
	return append(dst, '}')
}

func appendSmithBlock(dst []byte, b corpus.Block) []byte {
	if b.Kind == corpus.KindUnknown {
		return append(dst, b.Payload...)
	}
	field := func(name, v string) {
		dst = append(dst, `,"`...)
		dst = append(dst, name...)
		dst = append(dst, `":`...)
		dst = appendJSONString(dst, v)
	}
	dst = append(dst, `{"type":`...)
	dst = appendJSONString(dst, string(b.Kind))
	switch b.Kind {
	case corpus.KindText, corpus.KindRedactedThinking:
		field("text", b.Text)
	case corpus.KindThinking:
		field("text", b.Text)
		if b.Signature != "" {
			field("signature", b.Signature)
		}
	case corpus.KindToolUse:
		field("tool_call_id", b.ToolCallID)
		field("tool_name", b.ToolName)
		if b.Args != nil {
			dst = append(dst, `,"tool_args":`...)
			dst = append(dst, b.Args...)
		}
	case corpus.KindToolResult:
		field("text", b.Text)
		field("tool_call_id", b.ToolCallID)
		dst = fmt.Appendf(dst, `,"is_error":%t`, b.IsError)
	case corpus.KindImage, corpus.KindDocument:
		if b.ToolCallID != "" {
			field("tool_call_id", b.ToolCallID)
		}
		field("media_type", b.MediaType)
		if b.Source != "" {
			field("source", b.Source)
		}
		if b.MediaRef != "" {
			field("media_ref", b.MediaRef)
		}
	}
	return append(dst, '}')
}

// WriteSmithTranscript writes msgs as a transcript.jsonl: one message per
// line, each ending in a newline, as smith's TranscriptLog appends them.
func WriteSmithTranscript(path string, msgs []corpus.Message) error {
	return writeSmithLines(path, msgs, false)
}

// WriteSmithTranscriptLegacy writes a transcript in the shape recorded
// before the synthetic flag and message ids existed.
func WriteSmithTranscriptLegacy(path string, msgs []corpus.Message) error {
	return writeSmithLines(path, msgs, true)
}

func writeSmithLines(path string, msgs []corpus.Message, legacy bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	for _, m := range msgs {
		line = AppendSmithMessage(line[:0], m, legacy)
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteSmithSet writes transcripts generated with profile p into dir until
// about totalBytes are written, each file about fileBytes long (the last
// line may overshoot). Files are named 0001.jsonl, 0002.jsonl...; seeds
// are seed, seed+1... It returns the paths in order.
func WriteSmithSet(dir string, p Profile, seed uint64, totalBytes, fileBytes int64) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	var total int64
	for i := 0; total < totalBytes; i++ {
		path := filepath.Join(dir, fmt.Sprintf("%04d.jsonl", i+1))
		n, err := writeSmithSized(path, p, seed+uint64(i), min(fileBytes, totalBytes-total))
		if err != nil {
			return paths, err
		}
		total += n
		paths = append(paths, path)
	}
	return paths, nil
}

// writeSmithSized writes whole turns to path until it holds at least n
// bytes, and returns the size written.
func writeSmithSized(path string, p Profile, seed uint64, n int64) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	g := newSmithGen(p, seed)
	var written int64
	var line []byte
	for written < n {
		for _, m := range g.turn() {
			line = AppendSmithMessage(line[:0], m, false)
			line = append(line, '\n')
			if _, err := w.Write(line); err != nil {
				f.Close()
				return written, err
			}
			written += int64(len(line))
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return written, err
	}
	return written, f.Close()
}
