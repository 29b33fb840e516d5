package claudecode

import "testing"

// TestResultThreadsElsewhere: a tool_use left unanswered in its thread is
// answered elsewhere exactly when another thread holds a result for it,
// whichever thread came first and however often each holds it.
func TestResultThreadsElsewhere(t *testing.T) {
	main, run, other := &ccThread{}, &ccThread{sidechain: true}, &ccThread{sidechain: true}
	main.results = []ccResult{{id: "own"}, {id: "twice"}, {id: "twice"}, {id: "shared"}}
	run.results = []ccResult{{id: "theirs"}, {id: "shared"}}
	other.results = []ccResult{{id: "theirs"}}
	held := newResultThreads([]*ccThread{main, run, other})
	name := map[*ccThread]string{main: "main", run: "run", other: "other"}
	for _, tt := range []struct {
		in   *ccThread
		id   string
		want bool
	}{
		{main, "own", false},
		{main, "twice", false},
		{main, "shared", true},
		{run, "shared", true},
		{main, "theirs", true},
		{run, "theirs", true},
		{other, "theirs", true},
		{other, "own", true},
		{main, "nobody", false},
	} {
		if got := held.elsewhere(tt.in, tt.id); got != tt.want {
			t.Errorf("elsewhere(%s, %s) = %v, want %v", name[tt.in], tt.id, got, tt.want)
		}
	}
}
