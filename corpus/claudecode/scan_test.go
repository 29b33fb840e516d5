package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	"github.com/calib-dev/calib/corpus/realcorpus"
)

// realCorpusDir is shared/corpus-real beside the checkout (package
// realcorpus finds it; real_test.go is an external test package, so its
// variable is not visible here).
var realCorpusDir = realcorpus.Root()

// The scanner decodes every line of the real logs and the fixtures exactly
// as encoding/json does, each file's lines in turn with one ccRecent (whose
// values the lines repeat). A line encoding/json rejects only for a
// value's type (a number for a timestamp) the scanner reads leniently, as
// the loader wants: it must not fail, and it is not compared.
func TestCCScannerMatchesEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realCorpusDir, "claude-code", "*.jsonl"))
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if len(files) == 0 {
		if realcorpus.Required() {
			t.Fatalf("real corpus not found at %s, and %s=1 requires it", realCorpusDir, realcorpus.EnvRequire)
		}
		t.Logf("real corpus not found at %s; checking the fixtures only", realCorpusDir)
	}
	lines := 0
	for _, p := range append(files, fixtures...) {
		var recent ccRecent // as the loader keeps it: one per file
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range bytes.Split(data, []byte("\n")) {
			if len(b) == 0 {
				continue
			}
			var want, got ccLine
			werr := json.Unmarshal(b, &want)
			gerr := ccDecodeLine(b, &got, &recent)
			var te *json.UnmarshalTypeError
			if errors.As(werr, &te) && gerr == nil {
				continue
			}
			if (werr == nil) != (gerr == nil) {
				t.Errorf("%s:%d: encoding/json err %v, scanner err %v", p, i+1, werr, gerr)
				continue
			}
			if werr != nil {
				continue
			}
			lines++
			compareLine(t, p, i+1, want, got)
		}
	}
	t.Logf("%d lines compared", lines)
}

// compareLine reports where the scanner's line differs from
// encoding/json's.
func compareLine(t *testing.T, p string, line int, want, got ccLine) {
	t.Helper()
	wm, gm := want.Message, got.Message
	want.Message, got.Message = nil, nil
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%s:%d: line\n got %+v\nwant %+v", p, line, got, want)
	}
	if (wm == nil) != (gm == nil) {
		t.Errorf("%s:%d: message presence differs", p, line)
		return
	}
	if wm == nil {
		return
	}
	if wm.ID != gm.ID || wm.Role != gm.Role || wm.Model != gm.Model || !bytes.Equal(wm.Content, gm.Content) {
		t.Errorf("%s:%d: message header differs", p, line)
	}
	if len(wm.Content) > 0 {
		compareContent(t, p, line, wm.Content, gm.Content)
	}
	checkScanned(t, p, line, gm.Content, gm.content, true)
}

// checkScanned holds content the line scan decoded (scanContent) to
// ccContent's decoding of its bytes, the plain one: it is decoded exactly
// when ccContent accepts it, to the same text and blocks; nested, the
// blocks' own content too.
func checkScanned(t *testing.T, p string, line int, raw []byte, v ccValue, nested bool) {
	t.Helper()
	wt, wb, ws, werr := ccContent(raw)
	if len(raw) > 0 && v.decoded != (werr == nil) {
		t.Errorf("%s:%d: content %.40q decoded in the scan: %v, ccContent's error: %v", p, line, raw, v.decoded, werr)
		return
	}
	gt, gb, gs, gerr := v.get(raw)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || gt != wt || gs != ws || len(gb) != len(wb) {
		t.Errorf("%s:%d: content %.40q: scanned %q %v %d blocks (%v), ccContent %q %v %d blocks (%v)",
			p, line, raw, gt, gs, len(gb), gerr, wt, ws, len(wb), werr)
		return
	}
	for i := range wb {
		w, g := wb[i], gb[i]
		if nested {
			checkScanned(t, p, line, g.Content, g.content, false)
		}
		w.content, g.content = ccValue{}, ccValue{}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("%s:%d: scanned block %d\n got %+v\nwant %+v", p, line, i, g, w)
		}
	}
}

func compareContent(t *testing.T, p string, line int, wantRaw, gotRaw []byte) {
	t.Helper()
	text, blocks, isString, err := ccContent(gotRaw)
	if err != nil {
		t.Errorf("%s:%d: ccContent: %v", p, line, err)
		return
	}
	if isString {
		var want string
		if err := json.Unmarshal(wantRaw, &want); err != nil || want != text {
			t.Errorf("%s:%d: string content differs (%v)", p, line, err)
		}
		return
	}
	var want []ccBlock
	if err := json.Unmarshal(wantRaw, &want); err != nil {
		t.Errorf("%s:%d: %v", p, line, err)
		return
	}
	if len(want) != len(blocks) {
		t.Errorf("%s:%d: %d blocks, want %d", p, line, len(blocks), len(want))
		return
	}
	for i := range want {
		w, g := want[i], blocks[i]
		if len(w.Input) == 0 {
			w.Input = nil
		}
		if len(g.Input) == 0 {
			g.Input = nil
		}
		wc, gc := w.Content, g.Content
		w.Content, g.Content, w.Raw, g.Raw = nil, nil, nil, nil
		w.content, g.content = ccValue{}, ccValue{}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("%s:%d: block %d\n got %+v\nwant %+v", p, line, i, g, w)
		}
		if len(wc) > 0 {
			compareContent(t, p, line, wc, gc)
		}
	}
}

func TestCCScannerStrings(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`"plain"`, "plain", true},
		{`"a\nb\t\"c\"\\d\/e"`, "a\nb\t\"c\"\\d/e", true},
		{`"\u00e9\u2192 \ud83d\ude00"`, "é→ 😀", true},
		{`"lone \ud83d here"`, "lone \uFFFD here", true},
		{`"ends with \\"`, `ends with \`, true},
		{`"bad \x escape"`, "", false},
		{`"short \u12"`, "", false},
		{`"unterminated`, "", false},
	}
	for _, tt := range tests {
		s := &jsonscan.Scanner{B: []byte(tt.in)}
		got, ok := s.Str()
		var want string
		wantOK := json.Unmarshal([]byte(tt.in), &want) == nil
		if ok != tt.ok || got != tt.want || wantOK != tt.ok || (ok && got != want) {
			t.Errorf("%s: got %q %v, want %q %v (encoding/json: %q %v)", tt.in, got, ok, tt.want, tt.ok, want, wantOK)
		}
	}
}

func TestCCDecodeLineErrors(t *testing.T) {
	for _, in := range []string{
		`{"type":"user","message":{"content":"cut`,
		`{"type":"user",}`,
		`{"type":"user" "uuid":"x"}`,
		`{"type":"user","isMeta":tru}`,
		`{"type":"user"} trailing`,
		`["not","an","object"]`,
		`{"type":"user","message":{"content":[{"type":"text","text":"x"}`,
	} {
		var ln ccLine
		if err := ccDecodeLine([]byte(in), &ln, &ccRecent{}); err == nil {
			t.Errorf("%s: no error", in)
		}
		if json.Unmarshal([]byte(in), new(ccLine)) == nil {
			t.Errorf("%s: encoding/json accepts it; the case is wrong", in)
		}
	}
}
