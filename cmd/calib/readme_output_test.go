package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

// readmeShown is the output README.md shows for a recipe: the fenced block
// right after the recipe's own block (only blank lines between, and no
// calib command in it), or, for a recipe with --format markdown, the
// markdown table right after it, or an excerpt: a block after a single
// paragraph that calls it one ("an excerpt:"). TestReadmeRecipes compares
// it with what the recipe prints (readmeCompareShown).
type readmeShown struct {
	line    int    // README line of its first line; 0: the README shows no output
	text    string // its lines, each without trailing spaces, without trailing blank lines
	table   bool   // a markdown table: compared with the first table the recipe prints
	excerpt bool   // an excerpt: compared line by line with some of what the recipe prints (readmeExcerptDiff)
}

// readmeShownAfter returns what the README shows as the output of r, the
// one recipe of block b: lines are the README's, next the blocks after b.
// A block or table separated from b by prose is not r's output (the prose
// says what it is: an excerpt, a table assembled from several runs), and
// is not compared.
func readmeShownAfter(lines []string, next []readmeBlock, b readmeBlock, r readmeRecipe) readmeShown {
	i := b.end // index of the line after the closing fence
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) {
		return readmeShown{}
	}
	if len(next) > 0 && next[0].line == i+1 {
		if len(next[0].commands()) > 0 {
			return readmeShown{}
		}
		return readmeShown{line: next[0].line + 1, text: readmeTrim(next[0].lines)}
	}
	if len(next) > 0 && len(next[0].commands()) == 0 && readmeExcerptIntro(lines[i:next[0].line-1]) {
		return readmeShown{line: next[0].line + 1, text: readmeTrim(next[0].lines), excerpt: true}
	}
	if !strings.HasPrefix(lines[i], "|") || !strings.Contains(r.text, "--format markdown") {
		return readmeShown{}
	}
	return readmeShown{line: i + 1, text: readmeTrim(readmeTable(lines[i:])), table: true}
}

// readmeExcerptIntro reports whether prose, the lines between a recipe's
// block and the next block, is one paragraph that introduces that block as
// an excerpt of the recipe's output.
func readmeExcerptIntro(prose []string) bool {
	for len(prose) > 0 && strings.TrimSpace(prose[len(prose)-1]) == "" {
		prose = prose[:len(prose)-1]
	}
	if len(prose) == 0 {
		return false
	}
	for _, l := range prose {
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") {
			return false
		}
	}
	return strings.Contains(strings.Join(prose, " "), "an excerpt")
}

// readmeTable returns the markdown table lines starts with: its lines up
// to the first that does not start with "|".
func readmeTable(lines []string) []string {
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			return lines[:i]
		}
	}
	return lines
}

// readmeTrim is the only normalisation of a shown or printed output:
// trailing spaces on each line and trailing blank lines go.
func readmeTrim(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// readmeCompareShown fails t when the output r's README shows is not what
// the recipe printed (stdout), with a unified diff (README lines -, printed
// lines +).
func readmeCompareShown(t *testing.T, r readmeRecipe, stdout string) {
	t.Helper()
	what, d := readmeShownDiff(r.shown, stdout)
	if d != nil {
		t.Errorf("README.md:%d shows, from line %d, an output of `%s` that is not its %s today (update the README, or fix the command that produced it):\n%s",
			r.line, r.shown.line, r.text, what, d)
	}
}

// readmeShownDiff compares shown with stdout and returns what was compared
// and their diff, nil when they are equal. A table is compared with the
// first markdown table stdout holds, which is where every command's
// --format markdown puts its main table; the README leaves out the heading
// above it and any later table.
func readmeShownDiff(shown readmeShown, stdout string) (what string, d []byte) {
	got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if shown.excerpt {
		return "output (as an excerpt)", readmeExcerptDiff(shown, got)
	}
	what = "output"
	if shown.table {
		what = "first markdown table"
		i := 0
		for i < len(got) && !strings.HasPrefix(got[i], "|") {
			i++
		}
		got = readmeTable(got[i:])
	}
	printed := readmeTrim(got)
	if printed == shown.text {
		return what, nil
	}
	return what, diff.Diff(fmt.Sprintf("README.md:%d", shown.line), []byte(shown.text+"\n"), "printed", []byte(printed+"\n"))
}

// readmeExcerptDiff compares an excerpt with the lines a recipe printed:
// each excerpt line other than "..." (a gap), with a trailing "..." (the
// rest of the line left out) cut, must start a printed line, the lines
// found in order. It returns nil when they are, else the excerpt with the
// first line not found marked, and the printed lines.
func readmeExcerptDiff(shown readmeShown, printed []string) []byte {
	j := 0
	for n, l := range strings.Split(shown.text, "\n") {
		if strings.TrimSpace(l) == "..." {
			continue
		}
		want := strings.TrimRight(strings.TrimSuffix(l, "..."), " ")
		for j < len(printed) && !strings.HasPrefix(strings.TrimRight(printed[j], " "), want) {
			j++
		}
		if j == len(printed) {
			return fmt.Appendf(nil, "--- README.md:%d (an excerpt)\nREADME.md:%d: %q starts no printed line after the lines matched before it; printed:\n%s\n",
				shown.line, shown.line+n, want, readmeTrim(printed))
		}
		j++
	}
	return nil
}

// The shown output of a recipe is the block or --format markdown table
// right after its block, and nothing separated from it by prose.
func TestReadmeShown(t *testing.T) {
	const fence = "```"
	for _, tc := range []struct {
		name string
		md   string
		want []readmeShown // per recipe
	}{
		{"block after block",
			fence + "\ncalib policies\n" + fence + "\n\n" + fence + "\nname  params  \nsmith  3\n\n" + fence + "\nafter\n",
			[]readmeShown{{line: 6, text: "name  params\nsmith  3"}}},
		{"prose between",
			fence + "\ncalib policies\n" + fence + "\nAn excerpt:\n" + fence + "\nname\n" + fence + "\n",
			[]readmeShown{{}}},
		{"next block is a command",
			fence + "\ncalib policies\n" + fence + "\n" + fence + "\ncalib metrics\n" + fence + "\n",
			[]readmeShown{{}, {}}},
		{"two commands in the block",
			fence + "\ncalib policies\ncalib metrics\n" + fence + "\n" + fence + "\nname\n" + fence + "\n",
			[]readmeShown{{}, {}}},
		{"markdown table",
			fence + "\ncalib compare --demo --format markdown\n" + fence + "\n\n| a | b |\n|---|---|\n| 1 | 2 |  \n\\* note\n",
			[]readmeShown{{line: 5, text: "| a | b |\n|---|---|\n| 1 | 2 |", table: true}}},
		{"table without --format markdown",
			fence + "\ncalib compare --demo\n" + fence + "\n| a | b |\n|---|---|\n",
			[]readmeShown{{}}},
		{"an excerpt",
			fence + "\ncalib replay --demo\n" + fence + "\nprints rows; an excerpt:\n\n" + fence + "\nsession ...\n...\n" + fence + "\n",
			[]readmeShown{{line: 7, text: "session ...\n...", excerpt: true}}},
		{"prose that is not an excerpt's",
			fence + "\ncalib replay --demo\n" + fence + "\nOn another corpus:\n" + fence + "\nsession\n" + fence + "\n",
			[]readmeShown{{}}},
		{"block at the end",
			fence + "\ncalib policies\n" + fence + "\n\n",
			[]readmeShown{{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []readmeShown
			for _, r := range readmeCommands(tc.md) {
				got = append(got, r.shown)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tc.want) {
				t.Errorf("shown outputs:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// Only trailing spaces and trailing blank lines are forgiven; a changed
// figure, a missing title line or a table other than the first is a diff
// that names the README line.
func TestReadmeShownDiff(t *testing.T) {
	text := readmeShown{line: 40, text: "set  billed\n  3  2,018,059"}
	table := readmeShown{line: 7, text: "| a | b |\n|---|---|\n| 1 | 2 |", table: true}
	excerpt := readmeShown{line: 9, text: "session  a ...\ns1  1  2 ...\n...\ns2  4", excerpt: true}
	for _, tc := range []struct {
		name   string
		shown  readmeShown
		stdout string
		equal  bool
	}{
		{"same", text, "set  billed  \n  3  2,018,059\n\n", true},
		{"a figure changed", text, "set  billed\n  3  2,018,209\n", false},
		{"a title line the README lacks", text, "Parameter sets\nset  billed\n  3  2,018,059\n", false},
		{"leading spaces matter", text, "set  billed\n3  2,018,059\n", false},
		{"first table", table, "### Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n### Skipped\n\n| c |\n|---|\n", true},
		{"not the second table", readmeShown{line: 7, text: "| c |\n|---|", table: true}, "| a | b |\n|---|---|\n\n| c |\n|---|\n", false},
		{"a row changed", table, "| a | b |\n|---|---|\n| 1 | 3 |\n", false},
		{"excerpt: lines in order, cut ends", excerpt, "Title\nsession  a  b  c\ns1  1  2  3\ns2  4  5  6\nTotal\n", true},
		{"excerpt: a figure changed", excerpt, "Title\nsession  a  b  c\ns1  1  9  3\ns2  4  5  6\n", false},
		{"excerpt: lines out of order", excerpt, "s2  4  5  6\nsession  a  b  c\ns1  1  2  3\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, d := readmeShownDiff(tc.shown, tc.stdout)
			if (d == nil) != tc.equal {
				t.Fatalf("equal = %v, want %v; diff:\n%s", d == nil, tc.equal, d)
			}
			if d != nil && !strings.Contains(string(d), fmt.Sprintf("--- README.md:%d", tc.shown.line)) {
				t.Errorf("the diff does not name the README line:\n%s", d)
			}
		})
	}
}
