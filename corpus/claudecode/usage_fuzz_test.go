package claudecode

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// FuzzDecodeUsage holds decodeUsage's Scanner path to json.Unmarshal: the
// same error or none, and the same counts. The seeds are the usage shapes of
// 1.0.x and 2.x logs and the inputs the Scanner must decline.
func FuzzDecodeUsage(f *testing.F) {
	for _, seed := range []string{
		`{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":14000,"output_tokens":5,"service_tier":"standard"}`,
		`{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1200},"output_tokens":5,"server_tool_use":{"web_search_requests":0}}`,
		`{"input_tokens":null,"cache_creation":null}`,
		`{"cache_creation":{}}`,
		`{}`,
		`{"input_tokens":1.5}`,
		`{"input_tokens":1e3}`,
		`{"input_tokens":-0}`,
		`{"input_tokens":99999999999999999999}`,
		`{"input_tokens":"3"}`,
		`{"Input_Tokens":3}`,
		`{"input_tokens":3,"input_tokens":4}`,
		`{"cache_creation":{"ephemeral_5m_input_tokens":1,"EPHEMERAL_5M_INPUT_TOKENS":2}}`,
		`{"cache_creation":[1]}`,
		`{"cache_creation":{"ephemeral_1h_input_tokens":true}}`,
		`[1,2]`,
		`3`,
		`"usage"`,
		`{"input_tokens":3,}`,
		`{"input_tokens":3} x`,
		`{"note":"caf\u00e9 \ud83d\ude00","input_tokens":7}`,
		"{\"note\":\"\xff\",\"input_tokens\":7}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want ccUsage
		got, gotErr := decodeUsage(raw)
		wantErr := json.Unmarshal(raw, &want)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("%q: error %v, encoding/json %v", raw, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %+v, encoding/json %+v", raw, got, want)
		}
	})
}

// TestScanUsageTakesRealShapes: the Scanner accepts the usage objects of
// real 1.0.x and 2.x lines. If it declined them, decodeUsage would hand
// every one to encoding/json, which FuzzDecodeUsage alone would not notice.
func TestScanUsageTakesRealShapes(t *testing.T) {
	for _, raw := range []string{
		`{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":14000,"output_tokens":5,"service_tier":"standard"}`,
		`{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1200},"output_tokens":5,"service_tier":"standard","server_tool_use":{"web_search_requests":0}}`,
	} {
		var cu ccUsage
		s := jsonscan.Scanner{B: []byte(raw)}
		if !scanUsage(&s, &cu) || !s.End() || s.Err != nil {
			t.Errorf("%s: the Scanner declined it (%v)", raw, s.Err)
		}
		// The counts share one allocation (Int64PtrTo), the split has
		// its own: at most two, where a pointer per count made seven.
		b := []byte(raw)
		allocs := testing.AllocsPerRun(10, func() {
			s := jsonscan.Scanner{B: b}
			scanUsage(&s, &cu)
		})
		if allocs > 2 {
			t.Errorf("%s: %.0f allocations, want at most 2", raw, allocs)
		}
	}
}

// TestUsageDecodeAllocs: decoding a usage that differs from the last one
// allocates only the counts' storage when the Scanner takes it, not the
// ccUsage too (which escaped while encoding/json's fallback shared it).
func TestUsageDecodeAllocs(t *testing.T) {
	raws := [][]byte{
		[]byte(`{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":14000,"output_tokens":5}`),
		[]byte(`{"input_tokens":4,"cache_creation_input_tokens":1200,"cache_read_input_tokens":14000,"output_tokens":6}`),
	}
	var st ccUsageState
	i := 0
	allocs := testing.AllocsPerRun(20, func() {
		i++
		if _, err := st.decode(raws[i%2]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("%.0f allocations per decode, want at most 1", allocs)
	}
}
