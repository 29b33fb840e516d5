// Package synth generates realistic agent sessions deterministically from a
// seed and writes them as real files in each agent's exact on-disk format.
// Tests, benchmarks and the --demo corpus use it; nothing here reads a
// recording.
//
// Every generator takes an explicit seed and uses its own math/rand/v2 PCG
// source, so the same (profile, seed) always gives byte-identical files.
package synth

import (
	"math/rand/v2"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// Profile describes the shape of generated sessions. Sizes are in bytes of
// text as the agent stores it (before JSON escaping).
type Profile struct {
	Name string
	// Turns is the number of real user turns per session.
	Turns int
	// MinCalls and MaxCalls bound the tool calls made in one turn.
	MinCalls, MaxCalls int
	// ParallelCalls is the largest number of tool_use blocks in one
	// assistant message (1 = strictly sequential).
	ParallelCalls int
	// ResultBytes is the typical size of an ordinary tool result; actual
	// sizes vary between a tenth and twice this.
	ResultBytes int
	// BigEvery makes one call in BigEvery return BigBytes (0: never).
	BigEvery int
	BigBytes int
	// Reread is the probability that a read-like call repeats an earlier
	// call with byte-identical arguments (the same file read again).
	Reread float64
	// Bash is the share of calls that run a shell command.
	Bash float64
	// Thinking is the probability that an assistant message opens with a
	// signed thinking block; Redacted that it opens with redacted_thinking.
	Thinking, Redacted float64
	// ThinkingBytes is the typical size of a thinking text.
	ThinkingBytes int
	// Continuation is the probability that a turn contains an output-limit
	// continuation (a cut-off answer followed by a synthetic user message).
	Continuation float64
	// ErrorRate is the probability that a tool result is an error.
	ErrorRate float64
	// Images is the probability that a user prompt carries an image.
	Images float64
}

// Named profiles. Each stresses one thing the seeds talk about.
var (
	// ToolHeavy: long agentic turns with many mid-sized results; the
	// benchmark corpus.
	ToolHeavy = Profile{Name: "tool-heavy", Turns: 12, MinCalls: 8, MaxCalls: 40, ParallelCalls: 3,
		ResultBytes: 6000, BigEvery: 60, BigBytes: 300 << 10, Reread: 0.25, Bash: 0.35,
		Thinking: 0.3, ThinkingBytes: 1500, Continuation: 0.05, ErrorRate: 0.05}
	// Rereads: the same files read again and again with identical args.
	Rereads = Profile{Name: "rereads", Turns: 10, MinCalls: 4, MaxCalls: 12, ParallelCalls: 1,
		ResultBytes: 20000, Reread: 0.7, Bash: 0.1, ErrorRate: 0.02}
	// Thinking: every assistant message thinks, with signatures.
	Thinking = Profile{Name: "thinking", Turns: 8, MinCalls: 1, MaxCalls: 4, ParallelCalls: 1,
		ResultBytes: 1500, Thinking: 0.85, Redacted: 0.1, ThinkingBytes: 20000, Bash: 0.5}
	// Continuations: turns cut off at the output limit and continued.
	Continuations = Profile{Name: "continuations", Turns: 10, MinCalls: 1, MaxCalls: 5, ParallelCalls: 1,
		ResultBytes: 5000, Continuation: 0.6, Bash: 0.4, Thinking: 0.2, ThinkingBytes: 800}
	// BigResults: single results of several MB.
	BigResults = Profile{Name: "big-results", Turns: 4, MinCalls: 2, MaxCalls: 6, ParallelCalls: 1,
		ResultBytes: 3000, BigEvery: 3, BigBytes: 4 << 20, Bash: 0.5}
	// BashRuns: mostly shell commands (never superseded), with errors.
	BashRuns = Profile{Name: "bash", Turns: 10, MinCalls: 3, MaxCalls: 10, ParallelCalls: 1,
		ResultBytes: 8000, Bash: 0.9, ErrorRate: 0.2}
)

// Profiles lists the named profiles in a fixed order.
func Profiles() []Profile {
	return []Profile{ToolHeavy, Rereads, Thinking, Continuations, BigResults, BashRuns}
}

// ProfileByName returns the named profile.
func ProfileByName(name string) (Profile, bool) {
	for _, p := range Profiles() {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// newRand returns the generator's only source of randomness.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

const hexDigits = "0123456789abcdef"

func randHex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[r.IntN(16)]
	}
	return string(b)
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func randAlnum(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return string(b)
}

const base64Chars = alnum + "+/"

// randBase64 returns a base64-looking string of about n bytes (signatures,
// redacted thinking payloads).
func randBase64(r *rand.Rand, n int) string {
	n -= n % 4
	b := make([]byte, n)
	for i := range b {
		b[i] = base64Chars[r.IntN(len(base64Chars))]
	}
	if n >= 4 {
		b[n-1], b[n-2] = '=', '='
	}
	return string(b)
}

// between returns a size in [lo, hi] (hi < lo is treated as lo).
func between(r *rand.Rand, lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + r.IntN(hi-lo+1)
}

// vary returns a size around typical: between a tenth and twice it.
func vary(r *rand.Rand, typical int) int {
	if typical <= 0 {
		return 0
	}
	return between(r, typical/10+1, typical*2)
}

// textPool holds lines that look like code, logs and prose. They include
// what a decoder must get right: tabs, quotes, backslashes, terminal
// escapes and multi-byte UTF-8.
var textPool = []string{
	"package main",
	"import (\n\t\"fmt\"\n\t\"os\"\n)",
	"func parseLine(b []byte) (Message, error) {",
	"\tif err != nil {\n\t\treturn fmt.Errorf(\"parse %q: %w\", name, err)\n\t}",
	"  def compact(messages : Array(LLM::Message), budget : Budget) : Result",
	"    return Result.new(messages, Strategy::None, before, before, budget)",
	"  end",
	"describe Smith::Context do",
	"  it \"leaves a history under budget completely untouched\" do",
	"312 examples, 1 failures, 0 errors, 0 pending",
	"\x1b[32m✓\x1b[0m compacts down to the target (12.4 ms)",
	"\x1b[31m✗\x1b[0m keeps the pairing intact across a range of budgets",
	"Failures:\n  1) Smith::Context.compact summarizes the oldest turns",
	"     Expected: \"the earlier work\"\n          got: nil",
	"src/smith/context.cr:146:7 in 'truncate_old_tool_results'",
	"path = \"C:\\\\Users\\\\dev\\\\smith\\\\config.toml\"",
	"// Le résumé garde les décisions — pas le bruit. 🚀",
	"SELECT id, created_at FROM sessions WHERE id = ? ORDER BY rowid;",
	"{\"id\": 42, \"name\": \"fixture\", \"tags\": [\"a\", \"b\"]}",
	"drwx------  5 dev dev  4096 Aug  8 15:06 sessions",
	"-rw-------  1 dev dev 81234 Aug  8 15:40 transcript.jsonl",
	"The estimator re-walked the whole history once per truncation candidate.",
	"Compaction reached its target with one blunt instrument: truncate, then summarize.",
	"warning: unused variable `total` at line 88",
	"    1234 |   @messages = result.messages",
	"crystal build src/smith.cr -o bin/smith --release",
	"Finished in 4.21 seconds (files took 0.3 seconds to load)",
	"TODO(smith): measure signatures separately from text",
	"\t\t\"tool_call_id\": \"toolu_01XyZ\",",
	"日本語のコメント: 文脈ウィンドウを超えないように切り詰める",
}

// appendText appends about n bytes of pool text to dst, cut on a rune
// boundary so the result stays valid UTF-8.
func appendText(dst []byte, r *rand.Rand, n int) []byte {
	start := len(dst)
	for len(dst)-start < n {
		dst = append(dst, textPool[r.IntN(len(textPool))]...)
		dst = append(dst, '\n')
	}
	end := start + n
	for end > start && end < len(dst) && !utf8.RuneStart(dst[end]) {
		end--
	}
	return dst[:end]
}

// text returns about n bytes of pool text.
func text(r *rand.Rand, n int) string {
	return string(appendText(make([]byte, 0, n+128), r, n))
}

// appendJSONString appends s as a JSON string the way Crystal's JSON (smith)
// writes it.
func appendJSONString(dst []byte, s string) []byte {
	return jsonscan.AppendString(dst, s, jsonscan.Crystal)
}
