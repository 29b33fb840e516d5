package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// checkScan checks scanInfo and scanPart on in against the oracle, how
// decode read data before scan.go: json.Unmarshal. Where a scanner decodes,
// it decodes exactly what encoding/json decodes (where it declines, decode
// asks encoding/json, so the two agree on every input). It returns whether
// each scanner decoded in.
func checkScan(t *testing.T, in []byte) (infoOK, partOK bool) {
	t.Helper()
	var in1, ref1 info
	infoOK = scan(in, func(s *jsonscan.Scanner) bool { return scanInfo(s, &in1) })
	if err := json.Unmarshal(in, &ref1); infoOK && (err != nil || !reflect.DeepEqual(in1, ref1)) {
		t.Fatalf("scanInfo(%q) =\n%+v\nencoding/json (%v):\n%+v", in, in1, err, ref1)
	}
	var p, ref2 part
	partOK = scan(in, func(s *jsonscan.Scanner) bool { return scanPart(s, &p) })
	if err := json.Unmarshal(in, &ref2); partOK && (err != nil || !reflect.DeepEqual(p, ref2)) {
		t.Fatalf("scanPart(%q) =\n%+v\nencoding/json (%v):\n%+v", in, p, err, ref2)
	}
	return infoOK, partOK
}

// fixtureData are the storage fixture's message and part files (written
// from the documented format), as stored and compacted as in a database.
func fixtureData(tb testing.TB) (msgs, parts [][]byte) {
	read := func(pattern string) [][]byte {
		files, _ := filepath.Glob(filepath.Join("testdata", "storage", pattern, "*", "*.json"))
		var out [][]byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			var c bytes.Buffer
			if err := json.Compact(&c, b); err != nil {
				tb.Fatal(err)
			}
			out = append(out, b, c.Bytes())
		}
		return out
	}
	return read("message"), read("part")
}

// The scanners, not the fallback, decode what opencode writes: the
// differential test is not passing because they always decline.
func TestScanDecodesFixtures(t *testing.T) {
	msgs, parts := fixtureData(t)
	if len(msgs) < 4 || len(parts) < 4 {
		t.Fatalf("%d message and %d part fixtures", len(msgs), len(parts))
	}
	for _, m := range msgs {
		if ok, _ := checkScan(t, m); !ok {
			t.Errorf("scanInfo declines %s", m)
		}
	}
	for _, p := range parts {
		if _, ok := checkScan(t, p); !ok {
			t.Errorf("scanPart declines %s", p)
		}
	}
}

// encoding/json rejects nesting deeper than 10,000 and the scanner has no
// limit: the guard keeps them in agreement on both sides of the limit. (Not
// fuzz seeds: minimizing a 20 KB input takes the fuzzer minutes.)
func TestScanAgreesAtDepthLimit(t *testing.T) {
	for _, depth := range []int{jsonscan.MaxDepth - 2, jsonscan.MaxDepth - 1, jsonscan.MaxDepth, jsonscan.MaxDepth + 1} {
		nest := string(bytes.Repeat([]byte{'['}, depth)) + string(bytes.Repeat([]byte{']'}, depth))
		for _, in := range []string{`{"error":` + nest + `}`, `{"state":{"input":` + nest + `}}`} {
			checkScan(t, []byte(in))
		}
	}
}

// FuzzScan is the differential test of scan.go against encoding/json.
// Seeds: the fixtures and the cases where the scanners must decline (type
// errors, keys in other case or given twice, numbers encoding/json cannot
// hold, invalid UTF-8) or take null as encoding/json does.
func FuzzScan(f *testing.F) {
	msgs, parts := fixtureData(f)
	for _, b := range append(msgs, parts...) {
		f.Add(b)
	}
	for _, s := range []string{
		`{"role":"assistant","time":{"created":1.7e12,"completed":null},"error":null,"summary":true,"cost":0.5,"tokens":{"input":1,"output":2,"reasoning":null,"cache":{"read":3,"write":-4}},"model":{"providerID":"p","modelID":"m"}}`,
		`{"type":"tool","callID":"c","state":{"status":"completed","input":{"a":[1,{"b":null}]},"output":"o\u00e9\ud83d\ude00","metadata":{"interrupted":true,"output":null},"time":{"start":1,"end":2,"compacted":3},"attachments":[null,{"mime":"image/png","url":"data:,"}]}}`,
		`{"role":"user","ROLE":"assistant"}`,
		`{"role":"user","role":"assistant"}`,
		`{"cost":1e999}`,
		`{"tokens":{"input":1.5}}`,
		`{"tokens":{"cache":{"read":99999999999999999999}}}`,
		`{"time":5}`,
		`{"time":null,"state":null,"tokens":null,"model":null}`,
		`{"synthetic":"yes"}`,
		`{"state":{"attachments":{}}}`,
		`{"state":{"metadata":{"Interrupted":true}}}`,
		"{\"text\":\"\xff\"}",
		`{"typ\u0065":"text","tExt":"t"}`,
		`{"type":"text"} x`,
		`null`, `[]`, `"s"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkScan(t, in)
	})
}
