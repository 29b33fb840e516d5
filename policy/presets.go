package policy

import "github.com/calib-dev/calib/corpus"

// opencodeTruncated is what Truncate.output puts after the lines it
// keeps ("\n\n...N lines truncated...\n\n" and the hint), with \n for a
// newline as parameter values write it; the path is calib's.
const opencodeTruncated = `\n\n...{omitted} {unit} truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: ` +
	`~/.local/share/opencode/tool-output/{id}\nUse the Task tool to have explore agent process this file with Grep and Read (with offset/limit). ` +
	`Do NOT read the full file yourself - delegate to save context.`

// Goose's continuation messages after a compaction (context_mgmt/mod.rs
// CONVERSATION_CONTINUATION_TEXT and TOOL_LOOP_CONTINUATION_TEXT), with \n
// for a newline as parameter values write it.
const (
	gooseContinuation = `Your context was compacted. The previous message contains a summary of the conversation so far.\n` +
		`Do not mention that you read a summary or that conversation summarization occurred.\n` +
		`Just continue the conversation naturally based on the summarized context.`
	gooseToolLoop = `Your context was compacted. The previous message contains a summary of the conversation so far.\n` +
		`Do not mention that you read a summary or that conversation summarization occurred.\n` +
		`Continue calling tools as necessary to complete the task.`
)

// geminiShellTools stand for Gemini CLI's run_shell_command, the one tool
// whose output its scheduler caps and whose masked preview is by sections:
// other agents' shell tools (loss's shell family) on their logs.
const geminiShellTools = "run_shell_command,Bash,bash,shell,local_shell,exec_command"

// presets are the agents' compactions as compositions of general stages.
// Every constant is from shared/specs/peers.md (the section is named with
// it) unless said otherwise; what peers.md marks 3rd-party or does not
// give is listed in unsure, which `calib policies` prints. Tokens are
// estimated with chars4 (UTF-16 length / 4) unless the agent is known to
// count otherwise; --set meter=o200k counts with a real BPE.
func presets() []preset {
	return []preset{
		{
			name:   "opencode",
			agent:  "opencode (sst/opencode, now anomalyco/opencode: packages/opencode/src/session/compaction.ts, overflow.ts, message-v2.ts, src/tool/truncation.ts; peers.md §1, §9)",
			what:   "opencode: tool output capped at 2,000 lines or 50 KiB (the head kept, the rest saved to a file), prune at each user turn (the newest 40,000 tokens of tool output and the last 2 turns stay, skill exempt, only when more than 20,000 tokens go), a summary at the overflow (window − 20,000 reserved)",
			window: 200_000, meter: MeterChars4, source: SourceCalibrated, formats: []corpus.Format{corpus.FormatOpencode},
			stages: []presetStage{
				// tool/truncation.ts Truncate.output: MAX_LINES 2000, MAX_BYTES
				// 50 * 1024, direction head, and the hint of an agent that may
				// use the Task tool (opencode's build agent).
				{name: ArrivalStage, kind: "cap", set: map[string]string{"max": "51200", "max_lines": "2000", "unit": CapBytes, "keep": CapHead,
					"marker": opencodeTruncated}},
				// compaction.ts prune: pruned > PRUNE_MINIMUM (20,000), and
				// its estimates are whole tokens, so at least 20,001.
				{name: "prune", kind: "clear", set: map[string]string{"trigger": OnTurnStart,
					"keep": KeepTokens, "keep_value": "40000", "protect_turns": "2", "exempt_tools": "skill",
					"min_reclaim": "20001", "stub": ClaudeCodeStub}},
				{name: "compact", kind: "summarize", set: map[string]string{"context_at": AtLastResponse, "trigger": OnWindowReserve, "trigger_at": "20000",
					"tail": TailTurns, "tail_value": "1"}},
			},
			unsure: []string{
				"the cap is Truncate.output's (2,000 lines, 50 KiB, the head, the hint for an agent with the Task tool); the saved file's path in the hint is calib's (opencode writes one under its data folder with an id of its own), and the 2,000 chars peers.md names cut tool output only in what compaction sends its summarizer, which calib does not model",
				"prune runs after each loop in opencode, here at the first request of each user turn; opencode estimates a tool output's tokens from its text alone, calib from the result block (text, and a tool name where the log gives one)",
				"reserved is min(COMPACTION_BUFFER 20,000, the model's max output): 20,000 assumes an output limit of at least that",
				"opencode's summary is an assistant message (summary: true); here a user message, with the summary text only",
				"opencode's overflow reads the last response's recorded tokens (input, cache read, output); here the prompt the session's usage predicts for the history up to that response (context_source, context_at), the estimate where the log records no usage",
			},
		},
		{
			name:   "gemini-cli",
			agent:  "Gemini CLI (google-gemini/gemini-cli snapshot 5411f113, 2026-08-21: packages/core/src/context/chatCompressionService.ts, config/config.ts; the mask from toolOutputMaskingService.ts at 78337435 and 25137857, which agree, and GeminiClient.processTurn in core/client.ts; peers.md §1, §9)",
			what:   "Gemini CLI: shell output capped at 40,000 chars (the rest saved to a file), compression at 50% of the window keeping the last 30% of the characters in a <state_snapshot>, then old tool output masked beyond the newest 50,000 tool tokens",
			window: 1_048_576, meter: MeterChars4, source: SourceCalibrated, formats: []corpus.Format{corpus.FormatGemini},
			stages: []presetStage{
				// Gemini CLI truncates run_shell_command's string output only
				// (the scheduler's toolName === SHELL_TOOL_NAME test); on other
				// agents' logs, their shell tools stand for it (loss's shell
				// family).
				{name: ArrivalStage, kind: "cap", set: map[string]string{"max": "40000", "unit": CapChars, "keep": CapHead,
					"tools":  geminiShellTools,
					"marker": `\n[... {omitted} {unit} truncated; the full output was saved to a file ...]`}},
				// GeminiClient.processTurn compresses, then masks the history
				// the request is not yet part of: the outputs being sent are
				// neither masked nor counted in the 50,000 (count_sent
				// false), and protectLatestTurn skips only the history's
				// last message, the model's calls, which holds no output.
				{name: "compress", kind: "summarize", set: map[string]string{"context_at": AtLastPrompt, "trigger": OnWindowFraction, "trigger_at": "0.5",
					"tail": TailChars, "tail_value": "0.3",
					"prefix": `<state_snapshot>\n`, "suffix": `\n</state_snapshot>`, "ack": "Got it. Thanks for the additional context!"}},
				// EXEMPT_TOOLS (tool-names.ts: activate_skill, ask_user,
				// enter_plan_mode, exit_plan_mode), with Claude Code's and
				// opencode's tools for the same things.
				{name: "mask", kind: "clear", set: map[string]string{"trigger": OnEveryRequest,
					"keep": KeepTokens, "keep_value": "50000", "min_reclaim": "30000", "count_sent": "false",
					"exempt_tools": "activate_skill,ask_user,enter_plan_mode,exit_plan_mode,Skill,skill,AskUserQuestion,EnterPlanMode,ExitPlanMode",
					"shell_tools":  geminiShellTools,
					"stub":         `<tool_output_masked>\n{preview}\n\nOutput too large. Full output available at: ~/.gemini/tmp/tool-outputs/{id}.txt\n</tool_output_masked>`}},
			},
			unsure: []string{
				"the truncation marker and which part of a capped output stays are calib's (peers.md gives the 40,000 threshold and the file; Gemini keeps head and tail lines, its line limit and split vary by version); only shell output is capped, as Gemini's scheduler does, other agents' shell tools standing for run_shell_command",
				"the masked stub is Gemini's, its preview of the output taken as the response {\"output\": text}; the saved file's path is calib's (Gemini's holds its temp folder, the session and a random part)",
				"exempt tools are Gemini's four (tool-names.ts) and Claude Code's and opencode's for the same things",
				"characters are counted over text and arguments, not Gemini's JSON of each content",
				"compress reads the last request's recorded prompt tokens (getLastPromptTokenCount); here the prompt the session's usage predicts for the history that request sent (context_source, context_at=last_prompt), the estimate where the log records no usage; the mask counts its outputs' tokens by estimate, as Gemini does",
				"inside compression Gemini cuts function responses past a 50,000-token budget to their last 30 lines, saved to a file (peers.md §1), which shrinks the tail it keeps too: not modelled, so the kept 30% holds them whole",
			},
		},
		{
			name:   "anthropic-context-editing",
			agent:  "Anthropic API context management (platform.claude.com docs: clear_tool_uses_20250919, clear_thinking_20251015, compact_20260112; peers.md §1)",
			what:   "Anthropic API: clear_thinking keeping 1 thinking turn (listed first, as the API requires), clear_tool_uses above 100,000 input tokens keeping the last 3 tool uses (clear_at_least none, exclude_tools none, clear_tool_inputs false), compact above 150,000",
			window: 200_000, meter: MeterChars4, source: SourceCalibrated,
			stages: []presetStage{
				// The API requires clear_thinking first in the edits array
				// when both are used ("Combining strategies").
				{name: "clear-thinking", kind: "thinking", set: map[string]string{"trigger": OnEveryRequest, "keep_turns": "1"}},
				// Both fire when the input tokens exceed their threshold
				// (the docs of context editing and of compaction), not at it.
				{name: "clear-tool-uses", kind: "clear", set: map[string]string{"trigger": OnTokens, "trigger_at": "100000", "trigger_above": "true",
					"keep": KeepResults, "keep_value": "3", "min_reclaim": "0", "clear_inputs": "false", "exempt_tools": "",
					"stub": "[cleared]"}},
				{name: "compact", kind: "summarize", set: map[string]string{"trigger": OnTokens, "trigger_at": "150000", "trigger_above": "true",
					"tail": TailTurns, "tail_value": "1"}},
			},
			unsure: []string{
				"the placeholder a cleared result gets is written server-side and not documented: [cleared] is calib's",
				"a thinking turn is counted as a user turn",
				"compact drops everything before its block, the turn in progress included; here that turn stays",
				"the edits run in the order the API requires them listed (clear_thinking, then clear_tool_uses), each on what the one before left; the docs require the order and do not say that the second's trigger reads the first's result",
				"input tokens are the calibrated prompt (context_source: the session's recorded usage fits overhead and scale) where the log records usage, else estimated (chars/4)",
				"the API refuses a compact trigger below 50,000 input tokens (peers.md §1); calib takes any, to explore: below 50,000 it models no setting the API accepts",
				"clear_tool_uses can also trigger on a count of tool uses in the prompt ({type: tool_uses}): not modelled, only the input_tokens trigger",
			},
		},
		{
			name:   "swe-agent",
			agent:  "SWE-agent (SWE-agent/SWE-agent sweagent/agent/history_processors.py LastNObservations, the paper's config n=5, polling 1; peers.md §1)",
			what:   "SWE-agent: at every step, every tool output but the last 5 becomes \"Old environment output: (N lines omitted)\"",
			window: 128_000, meter: MeterChars4,
			stages: []presetStage{
				// LastNObservations never elides the first observation, but
				// that is the instance template (the task: Agent
				// .add_instance_template_to_history writes it through
				// _add_templated_messages_to_history, message_type
				// "observation"), a user message calib never clears; every
				// tool output but the last n is elided.
				{name: "mask", kind: "clear", set: map[string]string{"trigger": OnEveryRequest,
					"keep": KeepResults, "keep_value": "5", "min_reclaim": "0",
					"stub": "Old environment output: ({lines} lines omitted)"}},
			},
			unsure: []string{
				"observations are tool results (the first, never elided, is the task: mask.keep_first=true keeps the first tool output as well); keep_output / remove_output tags and \" (N images omitted)\" are not modelled",
				"an output shorter than its stub stays (a compaction never grows the context)",
			},
		},
		{
			name:   "openhands",
			agent:  "OpenHands SDK (V1) LLMSummarizingCondenser (peers.md §1: max_size 240, keep_first 2, the newer defaults)",
			what:   "OpenHands: when the view holds more than max_size 240 events, keep the first 2, one summary, and a tail up to max_size/2",
			window: 200_000, meter: MeterChars4,
			stages: []presetStage{
				// The view begins with the SystemPromptEvent, which max_size
				// and keep_first count (keep_first 2: it and the first user
				// message) and no log holds: messages_before 1.
				{name: "condense", kind: "summarize", set: map[string]string{"trigger": OnMessages, "trigger_at": "240",
					"messages_before": "1", "tail": TailEvents, "tail_value": "240", "keep_first": "2"}},
			},
			unsure: []string{
				"older SDK defaults are max_size 120, keep_first 4; V0 100 and 1 (--set condense.trigger_at=120,condense.tail_value=120,condense.keep_first=4)",
				"an event is a message; minimum_progress 0.1 and the max_tokens trigger (None) are not modelled",
				"newer SDKs start forgetting at the first unit boundary strictly after keep_first (an event more at the head)",
			},
		},
		{
			name:   "cline",
			agent:  "Cline (cline/cline src/core/context/context-management/context-window-utils.ts, ContextManager.ts, src/core/prompts/responses.ts; peers.md §1)",
			what:   "Cline: past maxAllowedSize (a 200k window less 40,000), earlier reads of a re-read file become a notice, and unless that saved 30% of the characters the first user/assistant pair stays and half (or, when half the context still exceeds it, three quarters) of the rest goes",
			window: 200_000, meter: MeterChars4, source: SourceCalibrated,
			stages: []presetStage{
				{name: "truncate", kind: "drop-middle", set: map[string]string{"context_at": AtLastResponse, "trigger": OnWindowReserve, "trigger_at": "40000", "keep": DropAuto}},
			},
			unsure: []string{
				"the reserve depends on the window: 64k −27,000, 128k −30,000, 200k −40,000, else max(w − 40,000, 0.8w)",
				"the truncation notice's text and the 30% rule come from Cline's source (peers.md names the notice only)",
				"Cline reads the previous request's recorded tokens; here the prompt the session's usage predicts for the history up to that request's response (context_source, context_at), the estimate where the log records no usage",
			},
		},
		{
			name:   "aider",
			agent:  "Aider (Aider-AI/aider aider/history.py ChatSummary, aider/models.py, aider/coders/base_coder.py summarize_start; peers.md §1)",
			what:   "Aider: when a user message arrives and the history exceeds max_chat_history_tokens (8,192 for windows of 131,072 or more), a tail under half of it stays and the head becomes one summary, recursing up to depth 3",
			window: 200_000, meter: MeterChars4,
			stages: []presetStage{
				// Coder.move_back_cur_messages starts a summary when a turn is
				// done (summarize_start: too_big(done_messages)); the next
				// message's request uses it.
				{name: "summarize", kind: "summarize", set: map[string]string{"context_at": AtLastResponse, "trigger": OnTokens, "trigger_at": "8192",
					"trigger_above": "true", "turn_start_only": "true", "tail": TailTokens, "tail_value": "8192", "depth": "3",
					"prefix": `I spoke to you previously about a number of things.\n`}},
			},
			unsure: []string{
				"max_chat_history_tokens is min(max(max_input/16, 1024), 8192): set summarize.trigger_at and summarize.tail_value together for a smaller model",
				"the summary prefix is 3rd-party",
				"Aider summarizes in the background when a turn is done and uses the summary at the next message; here at that message's request",
			},
		},
		{
			name:   "goose",
			agent:  "Goose (block/goose crates/goose/src/context_mgmt/mod.rs at 0036b819, src/agents/agent.rs at 43025f88: compact_messages, check_if_compaction_needed, Agent::reply; peers.md §1)",
			what:   "Goose: when a user message arrives and the context is past GOOSE_AUTO_COMPACT_THRESHOLD 0.8 of the window, the conversation becomes a summary, Goose's continuation message and that user message; a request past the window compacts the same way",
			window: 200_000, meter: MeterChars4, source: SourceCalibrated,
			stages: []presetStage{
				// Agent::reply checks the threshold once, after the user
				// message is added; compact_messages keeps [summary (a user
				// message), CONVERSATION_CONTINUATION_TEXT, the user message].
				{name: "compact", kind: "summarize", set: map[string]string{"context_at": AtLastResponse, "trigger": OnWindowFraction, "trigger_at": "0.8",
					"trigger_above": "true", "turn_start_only": "true", "tail": TailTurns, "tail_value": "1", "ack": gooseContinuation}},
				// The reply loop's ContextLengthExceeded arm compacts again
				// (TOOL_LOOP_CONTINUATION_TEXT): the provider refused a
				// request past the window.
				{name: "recover", kind: "summarize", set: map[string]string{"trigger": OnWindowFraction, "trigger_at": "1",
					"tail": TailTurns, "tail_value": "1", "ack": gooseToolLoop}},
			},
			unsure: []string{
				"Goose compares the last response's recorded total tokens with the threshold; here the prompt the session's usage predicts for the history up to that response (context_source, context_at), the estimate where the log records no usage",
				"recover: Goose summarizes the tool loop in progress too and keeps only the user message; here that turn stays whole",
				"Goose keeps the user message's text only; here the whole message",
				"tool-pair summarization (GOOSE_TOOL_CALL_CUTOFF) is switched off in that source (ENABLE_TOOL_PAIR_SUMMARIZATION false), and the summarizer's middle-out removal of tool responses shapes only its input: neither is modelled",
				"GOOSE_AUTO_COMPACT_THRESHOLD=0 switches compaction off; calib refuses a window fraction of 0: compact.trigger_at=1 (fire only past the whole window, which recover already covers) stands for it",
			},
		},
	}
}
