package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/report"
)

// Command groups, in the order `calib --help` lists them. A new command
// sets GroupID to one of these.
const (
	groupCorpus   = "corpus"
	groupAnalysis = "analysis"
	groupOther    = "other"
)

// commands lists every subcommand constructor, in help order within each
// group. To add a command, write cmd_<verb>.go with a
// `func newVerbCmd(a *app) *cobra.Command` (GroupID set, Args: pathArgs(a)
// if it reads a corpus) and add it here.
func commands() []func(a *app) *cobra.Command {
	return []func(a *app) *cobra.Command{
		newInspectCmd,
		newPoliciesCmd,
		newReplayCmd,
		newDigestGrowthCmd,
		newSweepCmd,
		newMergeCmd,
		newMetricsCmd,
	}
}

// globalFlags are the persistent flags every command shares.
type globalFlags struct {
	format  string // --format, validated into app.Format
	plotDir string // --plot DIR
	strict  bool   // --strict: any load warning is fatal (exit 2)
	demo    bool   // --demo: run on the embedded synthetic corpus
	quiet   bool   // --quiet: no warnings or progress on stderr
}

// app is what every command gets: the streams, the shared flags (parsed
// and validated before RunE runs) and the helpers that give all commands
// the same behaviour (loadSessions, write, savePlots, progress).
type app struct {
	IO *IO
	// Format is the validated --format value.
	Format report.Format
	flags  globalFlags
	// running is set once flags and arguments are validated: an error
	// before that point is a usage error (exit 2).
	running bool
}

const rootLong = `calib replays recorded LLM-agent sessions (smith, clai, Claude Code, Codex)
through context-compaction policies and shows what each parameter choice
costs and loses. It only reads its inputs.

PATH may be a session file, a folder (detected by content) or - for a JSONL
transcript on standard input. --demo runs any command on a small synthetic
corpus, so "calib replay --demo" works with no data.

Exit status:
  0    success
  1    a gate or threshold failed
  2    bad usage or unreadable input (each bad file is named with its line)
  3    an output file (--out, --plot) could not be written (the path is named)
  130  interrupted`

// newRootCmd builds the command tree around a.
func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:               "calib",
		Short:             "Calibrate LLM-agent context compaction against recorded sessions",
		Long:              rootLong,
		Version:           version(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		DisableAutoGenTag: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := a.validate(cmd, args); err != nil {
				return err
			}
			a.running = true
			return nil
		},
	}
	root.SetIn(a.IO.In)
	root.SetOut(a.IO.Out)
	root.SetErr(a.IO.ErrOut)
	root.SetVersionTemplate("calib version {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })

	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.format, "format", string(report.Text), "output format: "+strings.ReplaceAll(report.FormatList(), "|", ", "))
	pf.StringVar(&a.flags.plotDir, "plot", "", "also write plots (PNG and SVG) into `DIR`")
	pf.BoolVar(&a.flags.strict, "strict", false, "treat any warning about the input as fatal (exit 2)")
	pf.BoolVar(&a.flags.demo, "demo", false, "run on the embedded synthetic demo corpus instead of PATH arguments")
	pf.BoolVarP(&a.flags.quiet, "quiet", "q", false, "print no warnings or progress on stderr (errors still print)")
	_ = root.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, f := range report.Formats() {
			out = append(out, string(f))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	_ = root.MarkPersistentFlagDirname("plot")

	root.AddGroup(
		&cobra.Group{ID: groupCorpus, Title: "Reading sessions:"},
		&cobra.Group{ID: groupAnalysis, Title: "Replaying policies:"},
		&cobra.Group{ID: groupOther, Title: "Other commands:"},
	)
	root.SetHelpCommandGroupID(groupOther)
	root.SetCompletionCommandGroupID(groupOther)
	for _, newCmd := range commands() {
		root.AddCommand(newCmd(a))
	}
	return root
}

// validate checks the shared flags before any command runs.
func (a *app) validate(cmd *cobra.Command, args []string) error {
	f, err := report.ParseFormat(a.flags.format)
	if err != nil {
		return &usageError{fmt.Errorf("--format: %w", err)}
	}
	a.Format = f
	return nil
}

// pathArgs is the Args validator of commands that read a corpus: at least
// one PATH, or --demo and none.
func pathArgs(a *app) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case a.flags.demo && len(args) > 0:
			return usageErrorf("--demo reads the demo corpus: give no PATH arguments with it")
		case !a.flags.demo && len(args) == 0:
			return usageErrorf("%s needs at least one PATH (a session file, a folder or -), or --demo", cmd.CommandPath())
		}
		return nil
	}
}

// version is the module version from the build info ("devel" for a local
// build), so release builds need no -ldflags.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return "devel"
	}
	return bi.Main.Version
}

// run executes calib with args and returns the exit code. It is the whole
// program: main adds only the real streams and os.Exit, and tests call it
// directly.
func run(ctx context.Context, args []string, io *IO) int {
	a := &app{IO: io}
	root := newRootCmd(a)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && !a.running && !errors.Is(err, context.Canceled) {
		// Errors before the command runs (unknown command, wrong
		// arguments, missing required flags) are usage errors.
		var ue *usageError
		if !errors.As(err, &ue) {
			err = &usageError{err}
		}
	}
	if msg := errorMessage(err); msg != "" {
		fmt.Fprintf(io.ErrOut, "calib: %s\n", msg)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(io.ErrOut, "Run '%s --help' for usage.\n", commandPath(root, args))
	}
	return exitCode(err)
}

// commandPath is the command the user meant, for the --help hint.
func commandPath(root *cobra.Command, args []string) string {
	if c, _, err := root.Find(args); err == nil && c != nil {
		return c.CommandPath()
	}
	return root.Name()
}

// Main runs calib as a process: real streams, Ctrl-C cancels the context.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, os.Args[1:], systemIO())
}
