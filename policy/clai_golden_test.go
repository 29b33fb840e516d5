package policy

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// The flag is named for this file's goldens so that it cannot clash with
// another -update flag of the package's tests.
var claiUpdate = flag.Bool("update-clai", false, "rewrite policy/testdata/clai golden files")

// claiGoldenWindow is window k of a small chain: the previous digest as
// message 0, then messages with every kind of part clai renders (thinking
// dropped, tool payloads cut at a rune boundary, an image, multi-byte text).
func claiGoldenWindow(k int, prev string) []corpus.Message {
	var w []corpus.Message
	if prev != "" {
		w = append(w, corpus.Message{ID: claiID(0xd, k), Role: corpus.RoleSystem, Summary: true,
			Source: claiCompactionSource, Blocks: claiText(prev)})
	}
	for i := range 6 {
		id := claiID(k, i)
		switch i % 3 {
		case 0:
			w = append(w, claiMsg(id, corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: fmt.Sprintf("Rotation %d goal %d: résumé — fix the router ", k, i) + claiFill(120, i)},
				corpus.Block{Kind: corpus.KindImage}))
		case 1:
			w = append(w, claiMsg(id, corpus.RoleAssistant, corpus.Block{Kind: corpus.KindThinking, Text: "hidden"},
				corpus.Block{Kind: corpus.KindText, Text: claiFill(150, i)},
				corpus.Block{Kind: corpus.KindToolUse, ToolCallID: "c", ToolName: "read_file", Args: []byte(`{"path":"` + strings.Repeat("日本", 40) + `"}`)}))
		case 2:
			w = append(w, claiMsg(id, corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: "c",
				Payload: []byte(`{"stdout":"` + strings.Repeat("ok\\n", 200) + `","exit":0}`)}))
		}
	}
	return w
}

// TestClaiGoldenChains pins four chained digests of each variant byte for
// byte (budget 1 500, so both the omission and the clamp paths run).
func TestClaiGoldenChains(t *testing.T) {
	for _, variant := range []string{ClaiLegacy, ClaiFixed} {
		t.Run(variant, func(t *testing.T) {
			o := ClaiDefaults(variant).Digest()
			o.Budget = 1500
			var b strings.Builder
			prev := ""
			for k := range 4 {
				prev, _ = ClaiDigestText(claiGoldenWindow(k, prev), o)
				fmt.Fprintf(&b, "=== rotation %d: %d bytes\n%s\n", k+1, len(prev), prev)
			}
			path := filepath.Join("testdata", "clai", variant+"-chain.golden")
			if *claiUpdate {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./policy -run TestClaiGoldenChains -update-clai to create it)", err)
			}
			if got := b.String(); got != string(want) {
				d := 0
				for d < min(len(got), len(want)) && got[d] == want[d] {
					d++
				}
				t.Errorf("%s differs from byte %d; got …%q…", path, d, got[max(0, d-40):min(len(got), d+80)])
			}
		})
	}
}
