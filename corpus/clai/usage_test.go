package clai

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// usage_json has no documented shape; these are the provider spellings
// calib accepts and the bad values it reports.
func TestClaiRunUsage(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want corpus.Usage
		msg  string
	}{
		{`{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000,"output_tokens":50}`,
			corpus.Usage{InputTokens: 10, CacheWriteTokens: 200, CacheReadTokens: 3000, OutputTokens: 50}, ""},
		{`{"prompt_tokens":5000,"cached_input_tokens":4096,"completion_tokens":70}`,
			corpus.Usage{InputTokens: 904, CacheReadTokens: 4096, OutputTokens: 70}, ""},
		{`{"input_tokens":5}`, corpus.Usage{}, "has no output_tokens (or completion_tokens)"},
		{`{"input_tokens":-5,"output_tokens":1}`, corpus.Usage{}, "input_tokens (or prompt_tokens) is -5 (expected a count ≥ 0)"},
		{`{"input_tokens":100,"cached_input_tokens":200,"output_tokens":1}`, corpus.Usage{}, "cached_input_tokens 200 is not within [0, input 100]"},
		{`[1,2]`, corpus.Usage{}, "is not a JSON object of token counts"},
	} {
		u, msg := claiRunUsage(c.raw)
		if u != c.want || !strings.Contains(msg, c.msg) || (c.msg == "") != (msg == "") {
			t.Errorf("%s: %+v %q, want %+v %q", c.raw, u, msg, c.want, c.msg)
		}
	}
}
