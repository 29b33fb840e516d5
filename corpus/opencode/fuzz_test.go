package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// hasWarning reports whether a warning names line n.
func hasWarning(ws []corpus.Warning, n int) bool {
	for _, w := range ws {
		if w.Line == n {
			return true
		}
	}
	return false
}

// FuzzBuild checks the conversion of one message row and its part rows
// against encoding/json on any data: it never panics; every warning names
// the row's file and a row that exists; a row is reported as not valid
// JSON exactly when encoding/json rejects its data; every tool_use has its
// tool_result right after it (same call id); and usage is never negative.
// The seeds (every message of the storage fixture, written from the
// documented format, with its parts) run as part of go test.
func FuzzBuild(f *testing.F) {
	msgs, _ := filepath.Glob(filepath.Join("testdata", "storage", "message", "*", "*.json"))
	for _, mf := range msgs {
		m, err := os.ReadFile(mf)
		if err != nil {
			f.Fatal(err)
		}
		var parts [][]byte
		pfs, _ := filepath.Glob(filepath.Join("testdata", "storage", "part", strings.TrimSuffix(filepath.Base(mf), ".json"), "*.json"))
		for _, pf := range pfs {
			p, _ := os.ReadFile(pf)
			var c bytes.Buffer
			json.Compact(&c, p)
			parts = append(parts, c.Bytes())
		}
		f.Add(m, bytes.Join(parts, []byte{'\n'}))
	}
	f.Add([]byte(`{"role":"assistant","summary":true,"parentID":"x"}`), []byte(`{"type":"tool","callID":"c","state":{"status":"completed","input":{},"output":"o","time":{"compacted":5}}}`+"\n"+`{"type":"step-start"}`))
	f.Add([]byte(`{"role":"user"}`), []byte(`{"type":"compaction","auto":false}`+"\n"+`{"type":"file","mime":"image/png","url":"data:,"}`))
	f.Add([]byte(`{"role":"assistant","time":"noon","cost":"0","tokens":{"input":"x","cache":{"read":[]}},"time":{"created":"a"}}`),
		[]byte(`{"type":"tool","callID":"c","state":{"status":"completed","input":{},"output":"o","time":{"start":"s","end":{}}}}`))
	f.Fuzz(func(t *testing.T, msgData, partData []byte) {
		const file = "opencode.db"
		m := message{row: row{id: "msg_1", data: msgData, file: file, line: 1, table: "message"}}
		for i, pd := range bytes.Split(partData, []byte{'\n'}) {
			m.parts = append(m.parts, row{id: "prt", data: pd, file: file, line: 2 + i, table: "part"})
		}
		s := &corpus.Session{ID: "ses_1", Path: file}
		build(s, []message{m})
		bad := map[int]bool{}
		for _, w := range s.Warnings {
			if w.File != file || w.Line < 0 || w.Line > 1+len(m.parts) || w.Message == "" {
				t.Fatalf("bad warning %+v", w)
			}
			if strings.Contains(w.Message, "data is not valid JSON") {
				bad[w.Line] = true
			}
		}
		if bad[1] != !json.Valid(msgData) {
			t.Fatalf("message data %q: reader says invalid=%v, encoding/json valid=%v", msgData, bad[1], json.Valid(msgData))
		}
		// Parts are read only when their message is.
		if msgRead := !hasWarning(s.Warnings, 1); msgRead {
			for _, p := range m.parts {
				if bad[p.line] != !json.Valid(p.data) {
					t.Fatalf("part data %q: reader says invalid=%v, encoding/json valid=%v", p.data, bad[p.line], json.Valid(p.data))
				}
			}
		}
		for i, msg := range s.Messages {
			var uses []string
			for _, b := range msg.Blocks {
				if b.Kind == corpus.KindToolUse {
					uses = append(uses, b.ToolCallID)
				}
			}
			if len(uses) == 0 {
				continue
			}
			if i+1 >= len(s.Messages) || s.Messages[i+1].Role != corpus.RoleTool {
				t.Fatalf("tool_use %v without a tool message after it", uses)
			}
			var res []string
			for _, b := range s.Messages[i+1].Blocks {
				if b.Kind == corpus.KindToolResult {
					res = append(res, b.ToolCallID)
				}
			}
			if strings.Join(uses, ",") != strings.Join(res, ",") {
				t.Fatalf("tool_use %v answered by %v", uses, res)
			}
		}
		for _, u := range s.Recorded.Usage {
			if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheWriteTokens < 0 {
				t.Fatalf("negative usage %+v", u)
			}
		}
	})
}
