package main

import (
	"context"
	"errors"
	"fmt"
	goio "io"
	"io/fs"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/report"
)

// maxJobs is the most workers --jobs may ask for. Every worker holds one
// replay's working memory while it runs, and on a machine with fewer cores
// the runtime interleaves them all, so a count far beyond the cores only
// multiplies memory: replay's pool of loss scratches and a sweep's
// goroutines grew with the flag (--jobs 100000000 made replay --demo take
// 173 MB instead of 43). 1,024 is several times the cores of the largest
// machines calib runs on.
const maxJobs = 1024

// Command groups, in the order `calib --help` lists them. A new command
// sets GroupID to one of these.
const (
	groupCorpus   = "corpus"
	groupAnalysis = "analysis"
	groupOther    = "other"
)

// command is a subcommand constructor and the shared flags it takes.
type command struct {
	build  func(a *app) *cobra.Command
	shared sharedFlag
}

// commands lists every subcommand (help lists them by name within each
// group, as cobra sorts them), with the shared flags it honours: a command
// is offered no flag it would ignore. To add a command, write cmd_<verb>.go with a
// `func newVerbCmd(a *app) *cobra.Command` (GroupID set, Args: pathArgs(a)
// if it reads a corpus) and add it here.
func commands() []command {
	return []command{
		{newInspectCmd, corpusFlags},
		{newPoliciesCmd, flagFormat},
		{newReplayCmd, corpusFlags},
		{newDigestGrowthCmd, corpusFlags},
		{newSweepCmd, corpusFlags},
		{newCompareCmd, corpusFlags},
		{newMergeCmd, flagFormat | flagPlot | flagQuiet},
		{newMetricsCmd, flagFormat},
		{newDemoCmd, flagQuiet},
	}
}

// sharedFlag is a set of the flags several commands share; each is
// declared once, in addShared.
type sharedFlag uint8

const (
	flagFormat sharedFlag = 1 << iota // --format
	flagPlot                          // --plot DIR
	flagStrict                        // --strict
	flagDemo                          // --demo
	flagQuiet                         // --quiet

	// corpusFlags are what a command that loads sessions takes.
	corpusFlags = flagFormat | flagPlot | flagStrict | flagDemo | flagQuiet
)

// addShared registers the shared flags in which on cmd.
func (a *app) addShared(cmd *cobra.Command, which sharedFlag) {
	f := cmd.Flags()
	if which&flagFormat != 0 {
		f.StringVar(&a.flags.format, "format", string(report.Text), "output format: "+strings.ReplaceAll(report.FormatList(), "|", ", "))
		_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var out []cobra.Completion
			for _, f := range report.Formats() {
				out = append(out, string(f))
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		})
	}
	if which&flagPlot != 0 {
		f.StringVar(&a.flags.plotDir, "plot", "", "also write plots (PNG and SVG) into `DIR`")
		_ = cmd.MarkFlagDirname("plot")
	}
	if which&flagStrict != 0 {
		f.BoolVar(&a.flags.strict, "strict", false, "treat any warning about the input as fatal (exit 2)")
	}
	if which&flagDemo != 0 {
		f.BoolVar(&a.flags.demo, "demo", false, "run on the embedded synthetic demo corpus instead of PATH arguments")
	}
	if which&flagQuiet != 0 {
		f.BoolVarP(&a.flags.quiet, "quiet", "q", false, "print no warnings or progress on stderr (errors still print)")
	}
}

// globalFlags are the values of the shared flags; commands() says which
// command takes which.
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
	// corpus is what loadSessions loaded, for the load-warning
	// annotations of --format github (nil before loading).
	corpus *loaded
	// running is set once flags and arguments are validated: an error
	// before that point is a usage error (exit 2).
	running bool
	// inputs are the paths calib reads (refuseWritingInputs), which every
	// plot file is checked against before it is written.
	inputs []string
}

const rootLong = `calib replays recorded LLM-agent sessions through context-compaction
policies and shows what each parameter choice costs and loses. It reads
smith, clai, Claude Code, Codex, Gemini CLI and opencode sessions, and
never writes to them.

PATH may be a session file or database, a folder (each recognised by its
content, not its name) or - for standard input, recognised by content too:
a smith transcript or session.json, or a Claude Code, Codex or Gemini CLI
log (a database needs its path). --demo runs a command that reads sessions
on a small synthetic corpus, so "calib replay --demo" works with no data;
"calib demo DIR" writes that corpus to DIR. Each command's --help lists the
flags it takes.

Exit status:
  0    success
  1    a gate or threshold failed
  2    bad usage or unreadable input (each bad file is named with its line)
  3    an output (--out, --plot, standard output) could not be written
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
	root.SetFlagErrorFunc(flagError)

	root.AddGroup(
		&cobra.Group{ID: groupCorpus, Title: "Reading sessions:"},
		&cobra.Group{ID: groupAnalysis, Title: "Replaying policies:"},
		&cobra.Group{ID: groupOther, Title: "Other commands:"},
	)
	root.SetHelpCommand(newHelpCmd())
	root.SetCompletionCommandGroupID(groupOther)
	for _, c := range commands() {
		cmd := c.build(a)
		a.addShared(cmd, c.shared)
		root.AddCommand(cmd)
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
	if err := checkFlagValues(cmd); err != nil {
		return err
	}
	// --jobs is declared by each command that runs work in parallel,
	// checked here once for all of them.
	if cmd.Flags().Lookup("jobs") != nil {
		n, _ := cmd.Flags().GetInt("jobs")
		if n < 0 {
			return usageErrorf("--jobs %d: expected a number of workers, 0 (one per core) or more", n)
		}
		if n > maxJobs {
			return usageErrorf("--jobs %d: at most %d workers (the work is CPU-bound: workers beyond the cores only hold more replays in memory at once; 0 runs one per core)", n, maxJobs)
		}
	}
	paths := args
	if a.flags.demo {
		paths = nil
	}
	inputs, err := refuseWritingInputs(cmd, paths)
	if err != nil {
		return err
	}
	a.inputs = inputs
	if a.flags.plotDir != "" {
		return checkPlotFolder(a.flags.plotDir)
	}
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
		case slices.Contains(args, ""):
			// Not "no such file": the user wrote no path at all (an
			// unset shell variable, most often).
			return usageErrorf("an empty PATH argument (\"\"); expected a session file, a folder or - for standard input (is a shell variable unset?)")
		}
		return nil
	}
}

// version is the module version and VCS state from the build info, so
// release builds need no -ldflags.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionOf(bi)
}

// versionOf is "v1.2.3" for a module download (go install ...@v1.2.3),
// "devel (revision 1d41ed4c5a6b, dirty)" for a go build or go install
// in a checkout, and "devel (no VCS revision recorded: ...)" where the go
// command stamped none (go run, go test, -buildvcs=false).
func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return "devel (no build information)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	switch {
	case rev == "" && v == "devel":
		return v + " (no VCS revision recorded: go run, go test and -buildvcs=false record none)"
	case rev == "":
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v += " (revision " + rev
	if modified {
		v += ", dirty"
	}
	return v + ")"
}

// run executes calib with args and returns the exit code. It is the whole
// program: main adds only the real streams and os.Exit, and tests call it
// directly.
func run(ctx context.Context, args []string, io *IO) int {
	a := &app{IO: io}
	root := newRootCmd(a)
	// Help and --version are written by cobra, which ignores a failed
	// write of help and returns one of the version as any other error:
	// keep the first, so either is an output error (exit 3) as a report
	// that could not be written is.
	cobraOut := &firstErrWriter{w: io.Out}
	root.SetOut(cobraOut)
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
	if cobraOut.err != nil && (err == nil || !a.running) {
		err = &outputError{fmt.Errorf("%w: %w; the output is incomplete", errStdout, osErrOnly(cobraOut.err))}
	}
	if msg := errorMessage(err); msg != "" {
		// An error can quote a log too (a session id in "first: session
		// ..."): one line, as every warning is.
		fmt.Fprintf(io.ErrOut, "calib: %s\n", report.EscapeControls(msg))
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
	// The first Ctrl-C cancels the work and lets the commands report what
	// finished; it also gives the signals back, so a second one ends the
	// process at once, even while a read is stuck in the kernel.
	go func() {
		<-ctx.Done()
		stop()
		// Said at once: stopping can take a moment, and a read stuck in
		// the kernel does not end without the second signal. Not at a
		// normal exit, whose stop cancels with no signal as the cause.
		if context.Cause(ctx) != context.Canceled {
			fmt.Fprintln(os.Stderr, "calib: interrupt received, stopping (interrupt again to quit at once)")
		}
	}()
	// A closed standard output (calib ... | head -1) becomes a write
	// error, which run maps to a quiet exit 0 (readerGone), not a death by
	// SIGPIPE (status 141, "broken pipe" under set -o pipefail).
	signal.Ignore(syscall.SIGPIPE)
	return run(ctx, os.Args[1:], systemIO())
}

// newHelpCmd is "calib help [command]" as cobra's, except that an unknown
// topic is a usage error (exit 2, as "calib nope" is) where cobra's prints
// the usage and exits 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "help [command]",
		Short:   "Help about any command",
		Long:    "Help provides help for any command in the application.\nSimply type calib help [path to command] for full details.",
		GroupID: groupOther,
		RunE: func(c *cobra.Command, args []string) error {
			cmd, _, err := c.Root().Find(args)
			if cmd == nil || err != nil {
				return usageErrorf("unknown help topic %q; calib --help lists the commands", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// firstErrWriter passes writes to w and keeps the first error.
type firstErrWriter struct {
	w   goio.Writer
	err error
}

func (f *firstErrWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

// osErrOnly drops the path of an *fs.PathError (it names /dev/stdout).
func osErrOnly(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
