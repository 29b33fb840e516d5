package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus/realcorpus"
	"github.com/calib-dev/calib/metrics"
)

// Tests on shared/corpus-real: they skip when it is absent (a fresh
// clone) and fail instead under CALIB_REQUIRE_REAL_CORPUS=1 (.ci/run).
// They assert on --format json, never on text-table spacing.

func runCalib(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &IO{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// runJSON runs calib with --format json, requires exit 0 and decodes
// stdout into v.
func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	code, out, errOut := runCalib(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("calib %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("calib %s: stdout is not the JSON report: %v", strings.Join(args, " "), err)
	}
}

// Every real log loads with no warning, also under --strict.
func TestRealCorpusLoadsClean(t *testing.T) {
	dir := realcorpus.Dir(t)
	code, out, errOut := runCalib(t, "inspect", "--strict", "--format", "json", dir)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var rep struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range rep.Sessions {
		ids[s.ID] = true
	}
	for _, id := range []string{"0a725fb5-6378-432a-9e84-9f3f49d4043d", "9034225e-c367-4ab6-b1eb-1f478a7ae27a",
		"b3533c53-3dba-422e-8f02-d0d42214ade0", "f67ab274-e83b-41ac-ac85-77488d6b5c28", "fc491683-57ba-4bbf-afd0-3362025e7aa7"} {
		if !ids[id] {
			t.Errorf("inspect does not list %s", id)
		}
	}
}

// The recorded column names Claude Code's microcompacts and compact
// summaries and how the replay compares with them.
func TestRealCorpusRecordedColumn(t *testing.T) {
	dir := realcorpus.Dir(t, "claude-code")
	code, out, errOut := runCalib(t, "replay", "--compare-recorded", "--format", "csv",
		filepath.Join(dir, "b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl"), filepath.Join(dir, "0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		",2 microcompact: 2 of 2 clearing events reproduced exactly; replay: 2 compactions\n",
		",1 compact; replay: 1 compaction\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no session row ending in %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "nothing recorded") {
		t.Errorf("a session with recorded events says nothing recorded:\n%s", out)
	}
}

type agreementSummary struct {
	Events           int     `json:"events"`
	Exact            int     `json:"exact"`
	MeanJaccard      float64 `json:"mean_jaccard"`
	MeanAbsSaved     float64 `json:"mean_abs_saved_error"`
	MeanAbsBefore    float64 `json:"mean_abs_before_error"`
	Checkpoints      int     `json:"checkpoints"`
	TriggerAgreement float64 `json:"trigger_agreement"`
}

// The agreement report on the Claude Code 2.1.x logs: at the defaults (what
// those logs show), every recorded microcompact is reproduced exactly (the
// two top-level logs, and all six boundaries as README's table shows); the
// published keep-5 figures miss one id each time.
func TestRealCorpusAgreement(t *testing.T) {
	dir := realcorpus.Dir(t, "claude-code")
	files := []string{filepath.Join(dir, "b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl"), filepath.Join(dir, "fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl")}
	var rep struct {
		Agreement *struct {
			Summary agreementSummary `json:"summary"`
		} `json:"agreement"`
	}
	runJSON(t, &rep, append([]string{"replay", "--compare-recorded"}, files...)...)
	want := agreementSummary{Events: 3, Exact: 3, MeanJaccard: 1, Checkpoints: 17, TriggerAgreement: 1}
	if rep.Agreement == nil || rep.Agreement.Summary != want {
		t.Errorf("defaults: agreement %+v, want %+v", rep.Agreement, want)
	}

	// README's table of the six 2.1.x boundaries: the two top-level logs
	// and the four main logs of projects/ that have one.
	six := append([]string(nil), files...)
	for _, id := range []string{"03aa9bb5-a3e8-4390-8f41-00dda0d7f947", "b151f674-388c-48f0-9b04-0384f5a0bfb1", "9a91e9d0-b627-4bcb-b8f6-4e5d7c63118f", "d9add9a6-f2cd-42f6-8ae9-135bf8af37ec"} {
		six = append(six, filepath.Join(dir, "projects", id, id+".jsonl"))
	}
	rep.Agreement = nil
	runJSON(t, &rep, append([]string{"replay", "--compare-recorded"}, six...)...)
	want = agreementSummary{Events: 6, Exact: 6, MeanJaccard: 1, Checkpoints: 40, TriggerAgreement: 1}
	if rep.Agreement == nil || rep.Agreement.Summary != want {
		t.Errorf("defaults, six boundaries: agreement %+v, want %+v", rep.Agreement, want)
	}

	rep.Agreement = nil
	runJSON(t, &rep, append([]string{"replay", "--compare-recorded", "-p", "clear-tool-results", "--set", "trigger=result_tokens,trigger_at=40000,keep=results,keep_value=5"}, files...)...)
	want = agreementSummary{Events: 3, Exact: 0, MeanJaccard: 0.8222, MeanAbsSaved: 8250.3, Checkpoints: 17, TriggerAgreement: 1}
	if rep.Agreement == nil || rep.Agreement.Summary != want {
		t.Errorf("keep 5: agreement %+v, want %+v", rep.Agreement, want)
	}

	// A sweep ranked by agreement finds keep 4 at 60,000 with the chars/4
	// meter, agreeing exactly on every event.
	var sw struct {
		Sets []struct {
			Set    int `json:"set"`
			Params []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"params"`
			Metrics map[string]float64 `json:"metrics"`
		} `json:"sets"`
	}
	runJSON(t, &sw, append([]string{"sweep", "-p", "clear-tool-results", "--compare-recorded",
		"--set", "trigger=result_tokens,keep=results", "--grid", "keep_value=2..8", "--grid", "trigger_at=40000..70000:10000", "--grid", "meter=chars4,bytes4",
		"--sort", "agreement_exact,agreement_trigger,saved_error_rate,before_error_rate", "--top", "1"}, files...)...)
	if len(sw.Sets) != 1 {
		t.Fatalf("%d sets, want the top 1", len(sw.Sets))
	}
	best := sw.Sets[0]
	var params []string
	for _, p := range best.Params {
		params = append(params, p.Name+"="+p.Value)
	}
	if got := strings.Join(params, ","); best.Set != 20 || got != "keep_value=4,trigger_at=60000,meter=chars4" {
		t.Errorf("best set %d %s, want 20 keep_value=4,trigger_at=60000,meter=chars4", best.Set, got)
	}
	if best.Metrics["agreement_exact"] != 1 || best.Metrics["agreement_trigger"] != 1 {
		t.Errorf("best set agreement exact %v trigger %v, want 1 and 1", best.Metrics["agreement_exact"], best.Metrics["agreement_trigger"])
	}
}

// Full compactions: --policy auto replays the 1.0.53 logs with claude-code,
// and --compare-recorded judges each recorded compaction by its request;
// a sweep ranks parameter sets by agreement_timing (a 20,000 buffer makes
// every compaction too early).
func TestRealCorpusCompactionTiming(t *testing.T) {
	dir := realcorpus.Dir(t, "claude-code")
	files := []string{filepath.Join(dir, "0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl"), filepath.Join(dir, "f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl")}
	code, out, errOut := runCalib(t, append([]string{"replay", "--compare-recorded", "--format", "json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Policy    struct{ Name string }
		Agreement struct {
			Compactions []struct {
				Kind             string `json:"kind"`
				RecordedRequest  int    `json:"recorded_request"`
				PredictedRequest *int   `json:"predicted_request"`
			} `json:"compactions"`
			Summary struct {
				Events    int `json:"events"`
				WithinOne int `json:"within_one_request"`
			} `json:"compactions_summary"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Policy.Name != "claude-code" || len(rep.Agreement.Compactions) != 3 || rep.Agreement.Summary.Events != 3 || rep.Agreement.Summary.WithinOne != 3 {
		t.Fatalf("policy %s, compactions %+v", rep.Policy.Name, rep.Agreement)
	}
	code, out, errOut = runCalib(t, append([]string{"sweep", "-p", "claude-code", "--compare-recorded", "--grid", "buffer_tokens=13000,20000",
		"--sort", "agreement_timing", "--format", "csv"}, files...)...)
	if code != 0 {
		t.Fatalf("sweep exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "0,13000,") || !strings.Contains(lines[0], "agreement_timing") {
		t.Fatalf("ranking:\n%s", out)
	}
}

// Under auto each session's metrics have a reclaimed_ value for every
// stage of its own policy and a zero one for no other stage (runReplay
// computes each policy's stage order once, before the replays, and must
// hand each session its own).
func TestReplayAutoStagesPerPolicy(t *testing.T) {
	var rep struct {
		Sessions []struct {
			Policy  string             `json:"policy"`
			Metrics map[string]float64 `json:"metrics"`
		} `json:"sessions"`
	}
	runJSON(t, &rep, "replay", "-q", realcorpus.Dir(t))
	policies := map[string]bool{}
	for i, s := range rep.Sessions {
		policies[s.Policy] = true
		stages := metrics.StageOrder(s.Policy)
		for _, st := range stages {
			if _, ok := s.Metrics["reclaimed_"+st]; !ok {
				t.Errorf("session %d (%s): no reclaimed_%s", i, s.Policy, st)
			}
		}
		for k, v := range s.Metrics {
			if st, ok := strings.CutPrefix(k, "reclaimed_"); ok && v == 0 && !slices.Contains(stages, st) {
				t.Errorf("session %d (%s): %s = 0 for a stage of another policy", i, s.Policy, k)
			}
		}
	}
	if len(policies) < 2 {
		t.Fatalf("auto gave the real corpus %d policies, want several", len(policies))
	}
}

// A replay's JSON counts output caps apart from compactions in the
// session row as in its "metrics": opencode caps 2 of c172889a's tool
// outputs as they arrive (over 2,000 lines or 50 KiB) and compacts once,
// at request 18, when the last response's prompt its recorded usage
// predicts passes the overflow (the row once counted caps as compactions).
func TestReplayJSONCountsOutputCapsOnce(t *testing.T) {
	const id = "c172889a-aa67-452b-b5c9-81f1e500de7d"
	file := filepath.Join(realcorpus.Dir(t, "claude-code", "projects", id), id+".jsonl")
	var rep struct {
		Sessions []struct {
			Compactions int                `json:"compactions"`
			OutputCaps  int                `json:"output_caps"`
			Metrics     map[string]float64 `json:"metrics"`
		} `json:"sessions"`
		Events []struct {
			Stages []struct {
				Name string `json:"name"`
			} `json:"stages"`
		} `json:"events"`
	}
	runJSON(t, &rep, "replay", "-q", "-p", "opencode", file)
	if len(rep.Sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(rep.Sessions))
	}
	s := rep.Sessions[0]
	if s.Compactions != 1 || s.OutputCaps != 2 || s.Metrics["compactions"] != 1 || s.Metrics["output_caps"] != 2 {
		t.Errorf("row: %d compactions, %d output caps; metrics: %v and %v; want 1 and 2 in both",
			s.Compactions, s.OutputCaps, s.Metrics["compactions"], s.Metrics["output_caps"])
	}
	// The caps are still events, with their stage, so their loss per stage is reported.
	var stages []string
	for _, e := range rep.Events {
		for _, st := range e.Stages {
			stages = append(stages, st.Name)
		}
	}
	if got := strings.Join(stages, ","); len(rep.Events) != 3 || got != "cap,cap,compact" {
		t.Errorf("%d events with stages %s, want 3: cap,cap,compact", len(rep.Events), got)
	}
}

// An arrival cap makes results unseen (the README's example under Loss):
// on 504216d1's main log, a 2,000-character cap (14 cap events) hides 22
// results, all 22 unseen, and 18 are lost; opencode's own cap (2,000
// lines or 50 KiB) cuts 2 outputs, which are its 2 unseen of 34 hidden
// (its summaries hide the rest), 14 lost (one a failed Read, no loss).
func TestArrivalCapsMakeResultsUnseen(t *testing.T) {
	const id = "504216d1-8285-4ec4-92be-0db8dc92a18a"
	file := filepath.Join(realcorpus.Dir(t, "claude-code", "projects", id), id+".jsonl")
	for _, c := range []struct {
		set                        []string
		caps, hidden, unseen, lost int
	}{
		{[]string{"--set", "cap.max=2000,cap.max_lines=0,cap.unit=chars"}, 14, 22, 22, 18},
		{nil, 2, 34, 2, 14},
	} {
		var rep struct {
			Sessions []struct {
				OutputCaps int `json:"output_caps"`
				Loss       struct {
					Hidden int `json:"results_hidden"`
					Unseen int `json:"results_unseen"`
					Lost   int `json:"results_lost"`
				} `json:"loss"`
			} `json:"sessions"`
		}
		runJSON(t, &rep, append([]string{"replay", "-q", "-p", "opencode", file}, c.set...)...)
		if len(rep.Sessions) != 1 {
			t.Fatalf("%v: %d sessions, want 1", c.set, len(rep.Sessions))
		}
		s := rep.Sessions[0]
		if s.OutputCaps != c.caps || s.Loss.Hidden != c.hidden || s.Loss.Unseen != c.unseen || s.Loss.Lost != c.lost {
			t.Errorf("%v: %d caps, %d hidden, %d unseen, %d lost; want %d, %d, %d, %d",
				c.set, s.OutputCaps, s.Loss.Hidden, s.Loss.Unseen, s.Loss.Lost, c.caps, c.hidden, c.unseen, c.lost)
		}
	}
}

// replay's messages are inspect's less the summaries the agent recorded
// (the README's example: f67ab274, 557 messages of which 2 summaries, 555
// replayed).
func TestReplayMessagesLeaveOutRecordedSummaries(t *testing.T) {
	file := filepath.Join(realcorpus.Dir(t, "claude-code"), "f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl")
	var ins struct {
		Sessions []struct {
			Messages  int `json:"messages"`
			Summaries int `json:"summaries"`
		} `json:"sessions"`
	}
	runJSON(t, &ins, "inspect", "-q", file)
	var rep struct {
		Sessions []struct {
			Messages int `json:"messages"`
		} `json:"sessions"`
	}
	runJSON(t, &rep, "replay", "-q", file)
	if len(ins.Sessions) != 1 || len(rep.Sessions) != 1 {
		t.Fatalf("%d and %d sessions, want 1", len(ins.Sessions), len(rep.Sessions))
	}
	if i, r := ins.Sessions[0], rep.Sessions[0]; i.Messages != 557 || i.Summaries != 2 || r.Messages != 555 {
		t.Errorf("inspect %d messages, %d summaries; replay %d messages; want 557, 2 and 555", i.Messages, i.Summaries, r.Messages)
	}
}

// digest-growth re-derives clai's stored digests only from a clai
// database: a Claude Code log's compact boundaries are not clai digests
// (f67ab274's two were each a "window-mismatch" against "the database's
// own rows"), while its chain is still grown.
func TestDigestGrowthRederivesOnlyClai(t *testing.T) {
	file := filepath.Join(realcorpus.Dir(t, "claude-code"), "f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl")
	var rep struct {
		Sessions []struct {
			Rotations []json.RawMessage `json:"rotations"`
			Recorded  []json.RawMessage `json:"recorded"`
		} `json:"sessions"`
	}
	runJSON(t, &rep, "digest-growth", "-q", file)
	if len(rep.Sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(rep.Sessions))
	}
	if s := rep.Sessions[0]; len(s.Recorded) != 0 || len(s.Rotations) != 4 {
		t.Errorf("%d re-derived digests and %d rotations; want none re-derived and the 4 rotations clai-rotation makes of the log as recorded", len(s.Recorded), len(s.Rotations))
	}
}

// TestClaudeCodeBillsLikeRecorded: the README's figures for claude-code
// against the recorded policy over projects/ (The cache model): within
// 0.6% of each other, as every session where neither changes anything
// bills the same.
func TestClaudeCodeBillsLikeRecorded(t *testing.T) {
	dir := realcorpus.Dir(t, "claude-code")
	code, out, errOut := runCalib(t, "compare", filepath.Join(dir, "projects"), "--policies", "claude-code,recorded",
		"--columns", "billed_tokens", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "policy,sessions,billed\nclaude-code,25,8388260\nrecorded,25,8441142\n"; out != want {
		t.Errorf("compare:\n%s\nwant (the README's):\n%s", out, want)
	}
}

// TestClaudeCodeCompactReportsItsStage: claude-code's full compaction of
// 0a725fb5 (request 158) reports what its compact stage did, the 384
// blocks of the 272 messages it summarized and 246,608 bytes less the
// summary and restored files, and the results it hid under that stage's
// name: 131 hidden, 3 lost. It once reported 0 blocks and 0 bytes, and
// its results under the strategy's name, "summarized".
func TestClaudeCodeCompactReportsItsStage(t *testing.T) {
	var rep struct {
		Events []struct {
			Removed int `json:"removed_messages"`
			Stages  []struct {
				Name   string `json:"name"`
				Blocks int    `json:"blocks_touched"`
				Bytes  int64  `json:"bytes_removed"`
				Loss   struct {
					Hidden int `json:"results_hidden"`
					Lost   int `json:"results_lost"`
				} `json:"loss"`
			} `json:"stages"`
		} `json:"events"`
		Sessions []struct {
			Loss struct {
				ByStage map[string]json.RawMessage `json:"by_stage"`
			} `json:"loss"`
		} `json:"sessions"`
	}
	runJSON(t, &rep, "replay", "-q", "-p", "claude-code", filepath.Join(realcorpus.Dir(t, "claude-code"), "0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl"))
	if len(rep.Events) != 1 || len(rep.Events[0].Stages) != 1 {
		t.Fatalf("events %+v; want one compaction of one stage", rep.Events)
	}
	e, s := rep.Events[0], rep.Events[0].Stages[0]
	if e.Removed != 272 || s.Name != "compact" || s.Blocks != 384 || s.Bytes != 246_608 || s.Loss.Hidden != 131 || s.Loss.Lost != 4 {
		t.Errorf("compaction: %d messages removed, stage %+v; want 272, compact with 384 blocks, 246,608 bytes, 131 hidden, 4 lost", e.Removed, s)
	}
	if _, ok := rep.Sessions[0].Loss.ByStage["compact"]; !ok || len(rep.Sessions[0].Loss.ByStage) != 1 {
		t.Errorf("loss by stage %v; want compact alone", rep.Sessions[0].Loss.ByStage)
	}
}

// TestRecordedPolicyTotals: the README's worked example gives the recorded
// policy's bill on the 33 Claude Code sessions, predicted against recorded
// over the requests with usage (the cost agreement's sums), and the cost
// table's sum, which adds the recorded compactions' summarizer calls.
func TestRecordedPolicyTotals(t *testing.T) {
	type billed struct {
		Billed float64 `json:"billed_tokens"`
	}
	var rep struct {
		Cost []struct {
			Metrics billed `json:"metrics"`
		} `json:"cost"`
		CostAgreement struct {
			Sessions []struct {
				Recorded  billed `json:"recorded"`
				Predicted billed `json:"predicted"`
			} `json:"sessions"`
		} `json:"cost_agreement"`
	}
	runJSON(t, &rep, "replay", "-q", "--policy", "recorded", "--compare-recorded", realcorpus.Dir(t, "claude-code"))
	var pred, rec, table float64
	for _, s := range rep.CostAgreement.Sessions {
		pred += s.Predicted.Billed
		rec += s.Recorded.Billed
	}
	for _, c := range rep.Cost {
		table += c.Metrics.Billed
	}
	if got := [3]int64{int64(math.Round(pred)), int64(math.Round(rec)), int64(math.Round(table))}; got != [3]int64{18_291_905, 18_929_450, 18_939_413} {
		t.Errorf("predicted, recorded, cost table: %v; want the README's 18,291,905, 18,929,450 and 18,939,413", got)
	}
}

// TestInspectCountsRecordedEventsOnly: inspect's compactions are the
// events the agent wrote down; 504216d1's main thread wrote none, while
// the recorded policy counts the 3 requests at which it placed the
// outputs Claude Code persisted (silent clears), as the README says.
func TestInspectCountsRecordedEventsOnly(t *testing.T) {
	dir := filepath.Join(realcorpus.Dir(t, "claude-code"), "projects", "504216d1-8285-4ec4-92be-0db8dc92a18a")
	var in struct {
		Sessions []struct {
			Recorded  []json.RawMessage `json:"recorded"`
			Persisted []json.RawMessage `json:"persisted"`
		} `json:"sessions"`
	}
	runJSON(t, &in, "inspect", "-q", dir)
	var rp struct {
		Sessions []struct {
			Metrics map[string]float64 `json:"metrics"`
		} `json:"sessions"`
	}
	runJSON(t, &rp, "replay", "-q", "-p", "recorded", dir)
	if len(in.Sessions) == 0 || len(rp.Sessions) == 0 {
		t.Fatal("no session")
	}
	if r, p, c := len(in.Sessions[0].Recorded), len(in.Sessions[0].Persisted), rp.Sessions[0].Metrics["compactions"]; r != 0 || p != 24 || c != 3 {
		t.Errorf("inspect: %d recorded events, %d persisted outputs; replay -p recorded: %v compactions; want 0, 24 and 3", r, p, c)
	}
}

// TestPresetsOnTheEstimate: the README's figures for the calibrated
// presets read on the estimate instead (context_source=estimate): goose
// and cline never act (19.8 M billed, 0 lost), opencode compacts twice and
// the Anthropic API 7 times; and swe-agent keeping its first tool output
// (mask.keep_first=true) masks 675 times and loses 236.
func TestPresetsOnTheEstimate(t *testing.T) {
	dir := realcorpus.Dir(t)
	args := []string{"compare", dir, "-q", "--policies", "goose,cline,opencode,anthropic-context-editing",
		"--columns", "compactions,billed_tokens,results_lost", "--format", "csv"}
	for _, p := range []string{"goose", "cline", "opencode", "anthropic-context-editing"} {
		args = append(args, "--set", p+":context_source=estimate")
	}
	code, out, errOut := runCalib(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "policy,sessions,compactions,billed,lost\ngoose,34,0,19797457,0\ncline,34,0,19797457,0\n" +
		"opencode,34,2,19300439,15\nanthropic-context-editing,34,7,17980191,63\n"; out != want {
		t.Errorf("on the estimate:\n%s\nwant:\n%s", out, want)
	}
	code, out, errOut = runCalib(t, "compare", dir, "-q", "--policies", "swe-agent", "--set", "swe-agent:mask.keep_first=true",
		"--columns", "compactions,results_lost", "--format", "csv")
	if want := "policy,sessions,compactions,lost\nswe-agent,34,675,234\n"; code != 0 || out != want {
		t.Errorf("swe-agent keeping the first output: exit %d %s\n%s\nwant:\n%s", code, errOut, out, want)
	}
}

// TestRecordedNeedsByQuote: the README's count of needs found by a quoted
// distinctive line under `replay -p recorded --loss-detail` on the real
// logs: 4 in f67ab274 and 2 in 0a725fb5 (1.0.53 compactions), none in the
// labelled sessions (it said quotes produced none anywhere).
func TestRecordedNeedsByQuote(t *testing.T) {
	var rep struct {
		Losses []struct {
			Session  string `json:"session"`
			NeededBy string `json:"needed_by"`
		} `json:"losses"`
	}
	runJSON(t, &rep, "replay", "-q", "-p", "recorded", "--loss-detail", realcorpus.Dir(t, "claude-code"))
	got := map[string]int{}
	for _, l := range rep.Losses {
		if l.NeededBy == "quote" {
			got[l.Session[:8]]++
		}
	}
	if want := map[string]int{"f67ab274": 4, "0a725fb5": 2}; !maps.Equal(got, want) {
		t.Errorf("needs by quote per session %v; want %v", got, want)
	}
}
