package codex

import (
	"strconv"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// response_item payloads, mapped to blocks:
//   - message: input_text / output_text parts are text, input_image an
//     image. user messages Codex writes itself (AGENTS.md, the environment
//     context) are Synthetic; developer and system messages are RoleSystem.
//   - reasoning: a thinking block with its text, or its summary when the
//     text is not kept; encrypted_content in Signature.
//   - function_call, custom_tool_call, local_shell_call: tool uses, their
//     arguments (input, action) kept as recorded; web_search_call a tool
//     use whose results never come back into the history (the search runs
//     on the server).
//   - function_call_output, custom_tool_call_output: tool results, paired
//     by call_id.
//   - compaction, compaction_summary (remote compaction): an encrypted
//     summary message (Summary, empty text, the ciphertext in Signature)
//     with a warning: calib cannot read it.
//   - ghost_snapshot: an undo checkpoint, never sent to the model; skipped.
//
// Consecutive model-side items form one assistant message (one request),
// and consecutive outputs one tool message, as for Claude Code.

// ghostSnapshot is the one item type known to hold no history.
const ghostSnapshot = "ghost_snapshot"

// Summary messages Codex wrote itself start with its summary prefix
// (codex-rs core/templates/compact/summary_prefix.md); they are the
// summaries of earlier local compactions, kept as user messages.
const SummaryPrefix = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to  assist with your own analysis:"

func (l *loader) item(it *payload, n int, ts time.Time) {
	switch it.Type {
	case "message":
		ps, err := parts(it.Content)
		if err != nil {
			l.warn(n, "message content is not a list of parts (%v); line skipped", err)
			return
		}
		var blocks []corpus.Block
		for _, p := range ps {
			switch p.Type {
			case "input_text", "output_text", "text":
				blocks = append(blocks, corpus.Block{Kind: corpus.KindText, Text: p.Text})
			case "input_image":
				blocks = append(blocks, image(p.ImageURL, ""))
			default:
				l.tally.Unknown.Add("message part "+p.Type, n)
			}
		}
		switch it.Role {
		case "assistant":
			l.model(blocks, n, ts)
		case "user":
			summary := len(blocks) > 0 && strings.HasPrefix(blocks[0].Text, SummaryPrefix)
			l.add(corpus.Message{Role: corpus.RoleUser, Synthetic: injected(blocks) || summary, Summary: summary,
				Blocks: blocks, Time: ts, Line: n})
		case "developer", "system":
			l.add(corpus.Message{Role: corpus.RoleSystem, Blocks: blocks, Time: ts, Line: n})
		default:
			l.warn(n, "message with unknown role %q (expected user, assistant, developer or system); line skipped", it.Role)
		}
	case "reasoning":
		var texts []string
		if ps, err := parts(it.Content); err == nil {
			for _, p := range ps {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) == 0 {
			for _, p := range it.Summary {
				texts = append(texts, p.Text)
			}
		}
		l.model([]corpus.Block{{Kind: corpus.KindThinking, Text: strings.Join(texts, "\n"), Signature: it.Encrypted}}, n, ts)
	case "function_call", "custom_tool_call", "local_shell_call":
		var args []byte
		switch {
		case it.HasArgs:
			args = []byte(it.Arguments)
			if a := strings.TrimLeft(it.Arguments, " \t\r\n"); a != "" && a[0] != '{' {
				l.tally.Odd.Note([]jsonscan.OddValue{{Name: it.Type + " arguments", JSON: strconv.Quote(it.Arguments), Want: "a JSON object",
					Effect: "kept as recorded, but no path, command or URL is read from it"}}, n)
			}
		case it.HasInput:
			args = []byte(it.Input)
		default:
			args = append([]byte(nil), it.Action...)
		}
		name := it.Name
		if name == "" && it.Type == "local_shell_call" {
			name = "local_shell"
		}
		if prev, ok := l.calls[it.CallID]; ok {
			l.warn(n, "call_id %s already used at line %d", it.CallID, prev)
		}
		l.calls[it.CallID] = n
		l.callName[it.CallID] = name
		l.model([]corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: it.CallID, ToolName: name, Args: args}}, n, ts)
	case "web_search_call":
		l.model([]corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: it.ID, ToolName: "web_search",
			Args: append([]byte(nil), it.Action...)}}, n, ts)
	case "function_call_output", "custom_tool_call_output":
		blocks, err := output(it.CallID, it.Output)
		if err != nil {
			l.warn(n, "output of call_id %s is not a string, an object or a list of parts (%v); kept empty", it.CallID, err)
		}
		l.outs = append(l.outs, result{id: it.CallID, ln: n})
		msgs := l.s.Messages
		if k := len(msgs) - 1; k >= 0 && msgs[k].Role == corpus.RoleTool && !l.noMerge {
			msgs[k].Blocks = append(msgs[k].Blocks, blocks...)
			return
		}
		l.add(corpus.Message{Role: corpus.RoleTool, Blocks: blocks, Time: ts, Line: n})
	case "compaction", "compaction_summary":
		l.warn(n, "encrypted %s item (remote compaction, %d bytes of ciphertext): its summary cannot be read; kept as an empty summary message", it.Type, len(it.Encrypted))
		l.add(corpus.Message{Role: corpus.RoleUser, Synthetic: true, Summary: true,
			Blocks: []corpus.Block{{Kind: corpus.KindText, Signature: it.Encrypted}}, Time: ts, Line: n})
	case ghostSnapshot:
	case "":
		l.warn(n, "response_item payload has no type (expected message, reasoning, function_call, ...); item skipped")
	default:
		l.tally.Unknown.Add("response_item type "+it.Type, n)
	}
}

// model appends model-side blocks to the current assistant message, or
// starts one.
func (l *loader) model(blocks []corpus.Block, n int, ts time.Time) {
	msgs := l.s.Messages
	if k := len(msgs) - 1; k >= 0 && msgs[k].Role == corpus.RoleAssistant && !l.noMerge {
		msgs[k].Blocks = append(msgs[k].Blocks, blocks...)
		return
	}
	l.add(corpus.Message{Role: corpus.RoleAssistant, Blocks: blocks, Time: ts, Line: n})
}

// injected recognises the user messages Codex writes itself (AGENTS.md
// instructions, the environment context), which are not typed by the user.
func injected(blocks []corpus.Block) bool {
	if len(blocks) == 0 {
		return false
	}
	t := blocks[0].Text
	return strings.HasPrefix(t, "<environment_context>") || strings.HasPrefix(t, "<user_instructions>") ||
		strings.HasPrefix(t, "# AGENTS.md instructions")
}

// output maps a call output: a string, an object {content, success}, or a
// list of content items (text joined, images kept).
func output(id string, raw []byte) ([]corpus.Block, error) {
	res := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id}
	o, err := decodeOutput(raw)
	if err != nil {
		return []corpus.Block{res}, err
	}
	res.IsError = o.Failed
	res.Text, res.Payload = o.Text, o.Payload
	if !o.IsList {
		return []corpus.Block{res}, nil
	}
	var texts []string
	var media []corpus.Block
	for _, p := range o.Parts {
		if p.Type == "input_image" {
			media = append(media, image(p.ImageURL, id))
			continue
		}
		texts = append(texts, p.Text)
	}
	res.Text = strings.Join(texts, "\n")
	return append([]corpus.Block{res}, media...), nil
}

func image(url, id string) corpus.Block {
	b := corpus.Block{Kind: corpus.KindImage, ToolCallID: id}
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		mt, data, _ := strings.Cut(rest, ",")
		b.MediaType = strings.TrimSuffix(mt, ";base64")
		b.Source = "base64"
		b.MediaRef = corpus.MediaHash(data)
		return b
	}
	b.Source = url
	return b
}
