package smith

import (
	"strings"
	"testing"
)

// benchLine is a tool_result line shaped like smith's: code and log text,
// a newline escape every ~40 bytes, quotes, tabs and some non-ASCII.
func benchLine(n int) []byte {
	pool := []string{`\tif err != nil {\n`, `\t\treturn fmt.Errorf(\"parse %q: %w\", name, err)\n`,
		`312 examples, 1 failures, 0 errors, 0 pending\n`, `// Le résumé garde les décisions — pas le bruit.\n`,
		`src/smith/context.cr:146:7 in 'truncate_old_tool_results'\n`, `drwx------  5 dev dev  4096 Aug  8 15:06 sessions\n`}
	var sb strings.Builder
	sb.WriteString(`{"role":"tool","content":[{"type":"tool_result","text":"`)
	for i := 0; sb.Len() < n; i++ {
		sb.WriteString(pool[i%len(pool)])
	}
	sb.WriteString(`","tool_call_id":"toolu_01XyZ","is_error":false}],"synthetic":false,"id":"0badc0ffee123456"}`)
	return []byte(sb.String())
}

// BenchmarkDecodeLine measures the fast decoder alone on one 1 MB line
// (the copy into the scratch line is part of each op, as a read is).
func BenchmarkDecodeLine(b *testing.B) {
	line := benchLine(1 << 20)
	buf := make([]byte, len(line))
	var d lineDecoder
	var out smithLine
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		copy(buf, line)
		if !d.decode(buf, &out) {
			b.Fatal("declined")
		}
	}
}

// BenchmarkDecodeLineStd is the same line through encoding/json.
func BenchmarkDecodeLineStd(b *testing.B) {
	line := benchLine(1 << 20)
	var out smithLine
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if err := decodeSmithLineStd(line, &out); err != nil {
			b.Fatal(err)
		}
	}
}
