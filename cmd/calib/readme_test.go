package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus/realcorpus"
)

// TestReadmeRecipes runs every calib command line shown in a code block of
// README.md, in README order, in-process, and fails on a non-zero exit: a
// recipe that breaks fails CI. Commands that name user files run in a
// work folder laid out by readmeWorkdir (the demo corpus, as `calib demo`
// writes it, stands in for the user's sessions); README placeholders are
// expanded by readmeExpand. Synopsis lines (with PATH..., FILE...) are not
// recipes and are skipped; a command line the test cannot map fails it.
// Where the README shows a recipe's output right after it (a code block,
// or a markdown table for --format markdown; see readmeShown), that output
// must be what the recipe prints today, exactly (readmeCompareShown).
func TestReadmeRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every README recipe (about 10 s)")
	}
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	recipes := readmeCommands(string(md))
	if len(recipes) < 12 {
		t.Fatalf("found %d recipes in README.md; the extractor has lost some", len(recipes))
	}
	work := readmeWorkdir(t)
	realCC := filepath.Join(realcorpus.Root(), "claude-code") // before Chdir: Root looks for go.mod
	if _, err := os.Stat(realCC); err != nil {
		realCC = ""
	}
	t.Chdir(work)
	shown := 0
	for _, r := range recipes {
		runs := readmeExpand(t, r, realCC)
		if r.shown.line != 0 && len(runs) > 0 {
			shown++
			if len(runs) != 1 || runs[0].stdout != "" {
				t.Errorf("README.md:%d shows an output (line %d) for `%s`, whose standard output is not one run's: separate them with a sentence saying what the output is", r.line, r.shown.line, r.text)
				r.shown = readmeShown{}
			}
		}
		for _, run := range runs {
			name := fmt.Sprintf("README.md:%d %s", r.line, strings.Join(run.args, " "))
			code, out, errOut := runCalib(t, run.args...)
			if why, ok := readmeKnownBroken[r.text]; ok {
				if code == 0 {
					t.Errorf("%s now passes: remove it from readmeKnownBroken (%s)", name, why)
				} else {
					t.Logf("%s: known broken (%s): exit %d: %s", name, why, code, strings.TrimSpace(errOut))
				}
				continue
			}
			if code != 0 {
				t.Errorf("%s: exit %d, stderr:\n%s", name, code, errOut)
				continue
			}
			t.Logf("%s: ok", name)
			if run.stdout != "" {
				writeRedirect(t, run.stdout, run.appendOut, out)
			}
			if r.shown.line != 0 {
				readmeCompareShown(t, r, out)
			}
		}
	}
	t.Logf("%d shown outputs compared", shown)
	if realCC != "" && shown < readmeShownMin {
		t.Errorf("compared %d shown outputs, want at least %d: the extractor has lost some", shown, readmeShownMin)
	}
}

// readmeShownMin is how many outputs README.md shows right after their
// command (or as an excerpt of it), the real-log ones included.
const readmeShownMin = 11

// readmeKnownBroken lists README recipes that fail today, each with the
// issue that fixes it. An entry that starts passing fails the test, so
// the list only shrinks.
var readmeKnownBroken = map[string]string{}

// readmeRecipe is one command line from a README code block.
type readmeRecipe struct {
	line  int         // README line where it starts
	text  string      // the command from `calib`/`go run ./cmd/calib` on, continuations joined
	shown readmeShown // what the README shows as its output; zero when it shows none
}

var readmeCalib = regexp.MustCompile(`(?:go run \./cmd/calib|(?:^|[\s"])calib)\s+(\S.*)$`)

// readmeBlock is one fenced code block of the README.
type readmeBlock struct {
	line  int      // README line of the opening fence
	end   int      // README line of the closing fence
	lines []string // the lines between the fences
}

// readmeBlocks splits md into its lines and its fenced code blocks.
func readmeBlocks(md string) (lines []string, blocks []readmeBlock) {
	lines = strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	var b *readmeBlock
	for i, line := range lines {
		if !strings.HasPrefix(strings.TrimSpace(line), "```") {
			if b != nil {
				b.lines = append(b.lines, line)
			}
			continue
		}
		if b == nil {
			b = &readmeBlock{line: i + 1}
			continue
		}
		b.end = i + 1
		blocks = append(blocks, *b)
		b = nil
	}
	return lines, blocks
}

// readmeCommands extracts the calib command lines of md's fenced code
// blocks, and for a block of exactly one command the output the README
// shows for it (readmeShownAfter).
func readmeCommands(md string) []readmeRecipe {
	lines, blocks := readmeBlocks(md)
	var out []readmeRecipe
	for i, b := range blocks {
		recipes := b.commands()
		if len(recipes) == 1 {
			recipes[0].shown = readmeShownAfter(lines, blocks[i+1:], b, recipes[0])
		}
		out = append(out, recipes...)
	}
	return out
}

// commands extracts the calib command lines of b: lines ending in a
// backslash are joined with the next, comments (" #") are cut, and a
// command quoted inside YAML ("sh", "-c", "calib ...") ends at its closing
// quote.
func (b readmeBlock) commands() []readmeRecipe {
	var out []readmeRecipe
	start := 0
	var cont strings.Builder
	for i, line := range b.lines {
		n := b.line + 1 + i
		if cont.Len() == 0 {
			start = n
		}
		if s, ok := strings.CutSuffix(strings.TrimRight(line, " "), `\`); ok {
			cont.WriteString(strings.TrimSpace(s) + " ")
			continue
		}
		cont.WriteString(strings.TrimSpace(line))
		full := cont.String()
		cont.Reset()
		if i := strings.Index(full, " #"); i >= 0 {
			full = full[:i]
		}
		m := readmeCalib.FindStringSubmatchIndex(full)
		if m == nil {
			continue
		}
		if strings.Contains(full[:m[0]], "(") {
			// Report output, not a command: a table title whose note in
			// parentheses mentions calib (replay's "calib metrics
			// explains each column").
			continue
		}
		cmd := full[m[0]:]
		cmd = strings.TrimLeft(cmd, " \t")
		quoted := strings.HasPrefix(cmd, `"`)
		cmd = strings.TrimPrefix(cmd, `"`)
		if quoted {
			cmd, _, _ = strings.Cut(cmd, `"`)
		}
		cmd = strings.TrimSpace(cmd)
		if readmeSynopsis(cmd) {
			continue
		}
		out = append(out, readmeRecipe{line: start, text: cmd})
	}
	return out
}

var readmePlaceholder = regexp.MustCompile(`^\[?[A-Z]+(\.\.\.)?\]?$`)

// readmeSynopsis reports whether cmd is a synopsis, not a recipe: it has a
// placeholder word (PATH..., DIR, [NAME...]), an ellipsis, or a description
// column after a run of spaces (the Commands table).
func readmeSynopsis(cmd string) bool {
	if strings.Contains(cmd, "...") || strings.Contains(cmd, "   ") {
		return true
	}
	for _, w := range strings.Fields(cmd) {
		if readmePlaceholder.MatchString(w) {
			return true
		}
	}
	return false
}

// readmeRun is one in-process run of a recipe.
type readmeRun struct {
	args      []string
	stdout    string // file the recipe redirects stdout to, "" for none
	appendOut bool   // >> rather than >
}

// readmeExpand turns a recipe into the runs it stands for: the GitHub
// Actions matrix (${{ matrix.shard }}, 4 shards) and the Kubernetes
// indexed Job ($JOB_COMPLETION_INDEX, 8 completions) run once per shard;
// /corpus is the work folder's sessions/ (and /corpus/grid.json its
// grid.json), /out its out/; the real-log
// names (b3533c53-….jsonl) are the files in shared/corpus-real, as are
// paths under shared/corpus-real/; globs are expanded in the work folder.
// realCC is shared/corpus-real/claude-code, "" when absent (the recipes
// on real logs are then skipped, or fail under CALIB_REQUIRE_REAL_CORPUS).
func readmeExpand(t *testing.T, r readmeRecipe, realCC string) []readmeRun {
	t.Helper()
	text := strings.TrimPrefix(r.text, "go run ./cmd/calib ")
	text = strings.TrimPrefix(text, "calib ")
	var variants []string
	switch {
	case strings.Contains(text, "${{ matrix.shard }}"):
		for k := 1; k <= 4; k++ {
			variants = append(variants, strings.ReplaceAll(text, "${{ matrix.shard }}", strconv.Itoa(k)))
		}
	case strings.Contains(text, "JOB_COMPLETION_INDEX"):
		for i := 0; i < 8; i++ {
			v := strings.ReplaceAll(text, "$((JOB_COMPLETION_INDEX+1))", strconv.Itoa(i+1))
			variants = append(variants, strings.ReplaceAll(v, "$JOB_COMPLETION_INDEX", strconv.Itoa(i)))
		}
	default:
		variants = []string{text}
	}
	var runs []readmeRun
	for _, v := range variants {
		var run readmeRun
		if cmd, target, ok := strings.Cut(v, " >> "); ok {
			v, run.stdout, run.appendOut = cmd, target, true
		} else if cmd, target, ok := strings.Cut(v, " > "); ok {
			v, run.stdout = cmd, target
		}
		run.stdout = strings.Trim(run.stdout, `" `)
		if run.stdout == "$GITHUB_STEP_SUMMARY" {
			run.stdout = "step-summary.md"
		}
		run.stdout = strings.Replace(run.stdout, "/out/", "out/", 1)
		for _, w := range strings.Fields(v) {
			switch {
			case strings.Contains(w, "$"):
				t.Fatalf("README.md:%d: %q has a placeholder the test does not expand: add it to readmeExpand", r.line, w)
			case strings.HasSuffix(w, "-….jsonl"):
				if realCC == "" {
					if realcorpus.Required() {
						t.Fatalf("README.md:%d needs the real corpus, and %s=1 requires it", r.line, realcorpus.EnvRequire)
					}
					t.Logf("README.md:%d skipped: no real corpus beside the checkout", r.line)
					return nil
				}
				matches, _ := filepath.Glob(filepath.Join(realCC, strings.TrimSuffix(w, "….jsonl")+"*.jsonl"))
				if len(matches) != 1 {
					t.Fatalf("README.md:%d: %s names %d real logs, want 1", r.line, w, len(matches))
				}
				run.args = append(run.args, matches[0])
			case strings.HasPrefix(w, "shared/corpus-real/"):
				if realCC == "" {
					if realcorpus.Required() {
						t.Fatalf("README.md:%d needs the real corpus, and %s=1 requires it", r.line, realcorpus.EnvRequire)
					}
					t.Logf("README.md:%d skipped: no real corpus beside the checkout", r.line)
					return nil
				}
				run.args = append(run.args, filepath.Join(filepath.Dir(realCC), strings.TrimPrefix(w, "shared/corpus-real/")))
			case w == "/corpus":
				run.args = append(run.args, "sessions")
			case strings.HasPrefix(w, "/corpus/"): // a file beside the sessions on the volume
				run.args = append(run.args, strings.TrimPrefix(w, "/corpus/"))
			case strings.ContainsAny(w, "*?["):
				matches, _ := filepath.Glob(w)
				if len(matches) == 0 {
					t.Fatalf("README.md:%d: %s matches no file; an earlier recipe should have written it", r.line, w)
				}
				run.args = append(run.args, matches...)
			default:
				run.args = append(run.args, w)
			}
		}
		runs = append(runs, run)
	}
	return runs
}

// readmeWorkdir lays out the files the README's recipes name, the way a
// user following them would have them:
//
//	sessions/                      the demo's smith sessions (calib demo)
//	testdata/clai-fixture.sqlite   the demo's clai database
//	grid.json                      a grid of 8 sets for the sharded sweeps
//	ci/digest-baseline.json        written by the README's refresh command
//	out/                           where the Kubernetes Job writes shards
func readmeWorkdir(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	demo := filepath.Join(work, "demo")
	if code, _, errOut := runCalib(t, "demo", "-q", demo); code != 0 {
		t.Fatalf("calib demo: exit %d: %s", code, errOut)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Rename(filepath.Join(demo, "smith", "sessions"), filepath.Join(work, "sessions")))
	must(os.MkdirAll(filepath.Join(work, "testdata"), 0o755))
	must(os.Rename(filepath.Join(demo, "clai", ".clai", "data.sqlite"), filepath.Join(work, "testdata", "clai-fixture.sqlite")))
	must(os.WriteFile(filepath.Join(work, "grid.json"), []byte(`{"compact_at": [0.7, 0.8], "window_turns": "1..4"}`+"\n"), 0o644))
	must(os.MkdirAll(filepath.Join(work, "ci"), 0o755))
	must(os.MkdirAll(filepath.Join(work, "out"), 0o755))
	// "Refresh the baseline with calib digest-growth ... --format json >
	// ci/digest-baseline.json", with the flags of the CI recipe.
	code, out, errOut := runCalib(t, "digest-growth", filepath.Join(work, "testdata", "clai-fixture.sqlite"),
		"--rotations", "50", "--set", "variant=fixed", "--format", "json")
	if code != 0 {
		t.Fatalf("baseline: exit %d: %s", code, errOut)
	}
	must(os.WriteFile(filepath.Join(work, "ci", "digest-baseline.json"), []byte(out), 0o644))
	return work
}

func writeRedirect(t *testing.T, path string, appendTo bool, data string) {
	t.Helper()
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendTo {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// The extractor finds each kind of line the README uses and skips
// synopses and report output.
func TestReadmeCommands(t *testing.T) {
	md := "text calib replay --demo outside a block\n```\ngo run ./cmd/calib replay --demo\ncalib inspect PATH...   a synopsis\ncalib demo DIR   another\ncalib metrics                every metric\nSessions (a note; calib metrics explains each column)\n```\n" +
		"```yaml\n      - run: go install github.com/calib-dev/calib/cmd/calib@latest   # or go build ./cmd/calib\n" +
		"        run: |\n          calib digest-growth f.sqlite --rotations 50 \\\n            --max-nesting 1 --format github\n" +
		"          command: [\"sh\", \"-c\", \"calib sweep /corpus -p smith-staged > /out/shard-$JOB_COMPLETION_INDEX.json\"]\n```\n"
	got := readmeCommands(md)
	want := []readmeRecipe{
		{line: 3, text: "go run ./cmd/calib replay --demo"},
		{line: 12, text: "calib digest-growth f.sqlite --rotations 50 --max-nesting 1 --format github"},
		{line: 14, text: "calib sweep /corpus -p smith-staged > /out/shard-$JOB_COMPLETION_INDEX.json"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("readmeCommands:\n got %v\nwant %v", got, want)
	}
}
