package loss

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// twinSession reads a.go three times unchanged and b.go twice with an
// edit between (one line differs), plus a short output repeated: the
// reads of a.go are twins of the first, the rest are not (b.go's texts
// differ, the short output is below twinMinBytes).
func twinSession() *corpus.Session {
	var b sessionBuilder
	b.user("go")
	a := fileText("a.go", 12)
	bOld, bNew := fileText("b.go", 12), strings.Replace(fileText("b.go", 12), "line 7 of", "line seven of", 1)
	b.call("a1", "Read", `{"file_path":"/p/a.go"}`, a)
	b.call("b1", "Read", `{"file_path":"/p/b.go"}`, bOld)
	b.call("s1", "Bash", `{"command":"make test"}`, "ok")
	b.say("quoting: line 3 of a_go, long enough to be a content line here")
	b.call("a2", "Read", `{"file_path":"/p/a.go"}`, a)
	b.call("b2", "Read", `{"file_path":"/p/b.go"}`, bNew)
	b.call("s2", "Bash", `{"command":"make test"}`, "ok")
	b.call("a3", "Grep", `{"pattern":"line"}`, a)
	b.say("done with line 7 of b_go, long enough to be a content line here")
	return &b.s
}

func TestTwins(t *testing.T) {
	ix := Build(twinSession(), Options{})
	var got []string
	for k, j := range ix.twins() {
		if int(j) != k {
			got = append(got, ix.Results[k].ID+"="+ix.Results[j].ID)
		}
	}
	if want := []string{"a2=a1", "a3=a1"}; !slices.Equal(got, want) {
		t.Errorf("twins %q, want %q", got, want)
	}
	// A twin's size is its first's, measured once for both.
	a1, a3 := ix.Result("a1"), ix.Result("a3")
	if n := ix.Tokens(a3); n == 0 || ix.sizes[a1.pos].Load() == 0 || n != ix.Tokens(a1) {
		t.Errorf("a3 measured %d tokens, a1's size %d", n, ix.sizes[a1.pos].Load())
	}
}

// The evidence read through twins (their first's line ids) is the
// oracle's, which splits every text: for the usual hide sets, and for
// twins hidden together (a1 and a3, filing only the hidden results' lines
// first, and all).
func TestTwinsEvidenceMatchesOracle(t *testing.T) {
	s := twinSession()
	if n := checkEvidenceMatchesOracle(t, "twins", s); n < 3 {
		t.Fatalf("only %d evidence builds checked", n)
	}
	ix := Build(s, Options{})
	ix.prepare()
	want := make([]bool, len(ix.Results))
	want[ix.byID["a1"]], want[ix.byID["a3"]] = true, true
	for _, fileAll := range []bool{false, true} {
		if !reflect.DeepEqual(ix.buildEvidence(new(Scratch), ix.all, want, 0, fileAll), ix.oracleEvidence(want, 0, fileAll)) {
			t.Errorf("a1 and a3 hidden, fileAll=%v: evidence differs from the oracle's", fileAll)
		}
	}
}
