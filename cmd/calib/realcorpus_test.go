package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realCorpus is shared/corpus-real beside the checkout (CI lays shared/ out
// the same way); tests that need it skip when it is absent.
func realCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus-real")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no real corpus at %s", dir)
	}
	return dir
}

func runCalib(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &IO{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// Every real log loads with no warning, also under --strict.
func TestRealCorpusLoadsClean(t *testing.T) {
	dir := realCorpus(t)
	code, out, errOut := runCalib(t, "inspect", "--strict", dir)
	if code != 0 || strings.Contains(errOut, "warning") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	for _, id := range []string{"0a725fb5", "9034225e", "b3533c53", "f67ab274", "fc491683"} {
		if !strings.Contains(out, id) {
			t.Errorf("inspect does not list %s", id)
		}
	}
}

// The agreement report on the Claude Code 2.1.x logs: at the defaults (what
// those logs show), every recorded microcompact is reproduced exactly; the
// published keep-5 figures miss one id each time.
func TestRealCorpusAgreement(t *testing.T) {
	dir := filepath.Join(realCorpus(t), "claude-code")
	files := []string{filepath.Join(dir, "b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl"), filepath.Join(dir, "fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl")}
	code, out, errOut := runCalib(t, append([]string{"replay", "--compare-recorded"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Agreement summary") {
		t.Fatalf("no agreement report:\n%s", out)
	}
	summary := out[strings.Index(out, "Agreement summary"):]
	if !strings.Contains(summary, "     3      3         1.000                 0.0                  0.0           17              1.000") {
		t.Errorf("defaults summary:\n%s", summary)
	}
	code, out, _ = runCalib(t, append([]string{"replay", "--compare-recorded", "-p", "clear-tool-results", "--set", "trigger_at=40000,keep_value=5"}, files...)...)
	if code != 0 || !strings.Contains(out, "     3      0         0.822") {
		t.Errorf("keep 5 summary (exit %d):\n%s", code, out[strings.Index(out, "Agreement summary"):])
	}
	// A sweep ranked by agreement finds keep 4 with the chars/4 meter.
	code, out, errOut = runCalib(t, append([]string{"sweep", "-p", "clear-tool-results", "--compare-recorded",
		"--grid", "keep_value=2..8", "--grid", "trigger_at=40000..70000:10000", "--grid", "meter=chars4,bytes4",
		"--sort", "agreement_exact,agreement_trigger,saved_error_rate,before_error_rate", "--top", "1", "--format", "csv"}, files...)...)
	if code != 0 {
		t.Fatalf("sweep exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "20,4,60000,chars4,") {
		t.Fatalf("best set:\n%s", out)
	}
}
