package clai

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/calib-dev/calib/corpus"
)

// Recorded usage: assistant_runs.usage_json, one object per run (a run is
// one user turn, which may hold several model requests, so these are run
// totals with AtMessage -1). The object's shape is not documented in the
// spec; calib accepts the provider spellings clai passes through:
// Anthropic's input_tokens / cache_creation_input_tokens /
// cache_read_input_tokens / output_tokens (disjoint counts), and OpenAI's
// input_tokens or prompt_tokens with cached_input_tokens (input includes
// the cached part) and output_tokens or completion_tokens. Any other shape
// is a warning naming the row.

type claiUsage struct {
	Input         *int64 `json:"input_tokens"`
	Prompt        *int64 `json:"prompt_tokens"`
	Output        *int64 `json:"output_tokens"`
	Completion    *int64 `json:"completion_tokens"`
	CacheCreation *int64 `json:"cache_creation_input_tokens"`
	CacheRead     *int64 `json:"cache_read_input_tokens"`
	Cached        *int64 `json:"cached_input_tokens"`
}

func (r *claiReader) readRunUsage() error {
	t := "assistant_runs"
	if r.cols[t] == nil || !r.cols[t]["session_id"] || !r.cols[t]["usage_json"] {
		return nil
	}
	q := fmt.Sprintf("SELECT rowid, session_id, %s, usage_json, %s, %s FROM assistant_runs WHERE usage_json IS NOT NULL ORDER BY %s, rowid",
		r.col(t, "model_id"), r.col(t, "started_at"), r.col(t, "completed_at"), r.col(t, "started_at"))
	var rowid int64
	var sid, raw string
	var model sql.NullString
	var started, completed sql.NullInt64
	return r.eachRow("assistant_runs", q, 1, []any{&rowid, &sid, &model, &raw, &started, &completed}, func() {
		s := r.byID[sid]
		if s == nil {
			return // a run of a deleted session
		}
		u, msg := claiRunUsage(raw)
		if msg != "" {
			r.warn(s, rowid, "assistant_runs row %d: usage_json %s", rowid, msg)
			return
		}
		u.Model, u.Line, u.AtMessage = claiUnquote(model.String), int(rowid), -1
		u.Sent = claiNullTime(started)
		u.Done = claiNullTime(completed)
		s.Recorded.Usage = append(s.Recorded.Usage, u)
	})
}

// claiRunUsage decodes one usage_json; the message says what is wrong.
func claiRunUsage(raw string) (corpus.Usage, string) {
	var cu claiUsage
	if err := json.Unmarshal([]byte(raw), &cu); err != nil {
		return corpus.Usage{}, fmt.Sprintf("is not a JSON object of token counts (%v); usage ignored", err)
	}
	in, out := cu.Input, cu.Output
	if in == nil {
		in = cu.Prompt
	}
	if out == nil {
		out = cu.Completion
	}
	zero := int64(0)
	write, read := cu.CacheCreation, cu.CacheRead
	if write == nil {
		write = &zero
	}
	if read == nil {
		read = &zero
	}
	if msg := corpus.CheckUsage("", corpus.UsageField{Name: "input_tokens (or prompt_tokens)", Value: in},
		corpus.UsageField{Name: "output_tokens (or completion_tokens)", Value: out},
		corpus.UsageField{Name: "cache_creation_input_tokens", Value: write},
		corpus.UsageField{Name: "cache_read_input_tokens", Value: read}); msg != "" {
		return corpus.Usage{}, msg[1:]
	}
	u := corpus.Usage{InputTokens: int(*in), CacheWriteTokens: int(*write),
		CacheReadTokens: int(*read), OutputTokens: int(*out)}
	if c := cu.Cached; c != nil {
		if *c < 0 || *c > *in {
			return corpus.Usage{}, fmt.Sprintf("cached_input_tokens %d is not within [0, input %d] (expected the cached part of the input); usage ignored", *c, *in)
		}
		u.InputTokens, u.CacheReadTokens = int(*in-*c), u.CacheReadTokens+int(*c)
	}
	return u, ""
}
