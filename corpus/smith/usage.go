package smith

import (
	"encoding/json"

	"github.com/calib-dev/calib/corpus"
)

// smithUsage decodes smith's cumulative usage (session.json and, since
// #83, index.json entries): {"prompt_tokens","completion_tokens",
// "total_tokens","cache_creation_tokens","cache_read_tokens"}, the cache
// fields defaulting to 0 (smith.md §1.4). prompt_tokens is the uncached
// part: smith's billed prompt is prompt + cache_read + cache_creation.
// These are session totals; per-request usage is not on disk. It returns
// nil and "" when the usage is absent, or a message saying what is wrong.
func smithUsage(raw json.RawMessage) (*corpus.Usage, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var f struct {
		Prompt     *int64 `json:"prompt_tokens"`
		Completion *int64 `json:"completion_tokens"`
		Write      *int64 `json:"cache_creation_tokens"`
		Read       *int64 `json:"cache_read_tokens"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, corpus.UsageDecodeError("usage", err) + "; ignored"
	}
	zero := int64(0)
	if f.Write == nil {
		f.Write = &zero
	}
	if f.Read == nil {
		f.Read = &zero
	}
	if msg := corpus.CheckUsage("usage", corpus.UsageField{Name: "prompt_tokens", Value: f.Prompt},
		corpus.UsageField{Name: "completion_tokens", Value: f.Completion},
		corpus.UsageField{Name: "cache_creation_tokens", Value: f.Write},
		corpus.UsageField{Name: "cache_read_tokens", Value: f.Read}); msg != "" {
		return nil, msg
	}
	return &corpus.Usage{AtMessage: -1, InputTokens: int(*f.Prompt), CacheWriteTokens: int(*f.Write),
		CacheReadTokens: int(*f.Read), OutputTokens: int(*f.Completion)}, ""
}
