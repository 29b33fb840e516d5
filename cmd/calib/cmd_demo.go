package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/corpus/synth"
)

// newDemoCmd writes the corpus --demo uses to a folder, so that the
// examples in --help and the README that take a PATH can be followed on
// files a user can look at.
func newDemoCmd(a *app) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "demo DIR",
		Short: "Write the synthetic demo corpus (what --demo reads) into a folder",
		Long: `Write the corpus that --demo replays into DIR: smith session folders under
DIR/smith/sessions and a clai workspace under DIR/clai. Every command that
takes PATH then works on it, e.g. calib replay DIR/smith/sessions.
DIR must be empty or absent; --force writes into a folder that holds files
(files of the same name are replaced, others are left alone).`,
		Example: `  calib demo demo-corpus
  calib replay demo-corpus/smith/sessions --policy smith-staged --set compact_at=0.7
  calib digest-growth demo-corpus/clai --rotations 10 --set variant=fixed`,
		GroupID: groupOther,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usageErrorf("demo needs the DIR to write the demo corpus into: calib demo DIR")
			case len(args) > 1:
				return usageErrorf("demo writes one DIR; got %d arguments", len(args))
			case args[0] == "":
				// "" does not exist, so it passed as a new folder, and
				// the corpus went into the current one, however full.
				return usageErrorf("demo needs the DIR to write the demo corpus into, not an empty name: calib demo DIR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if !force {
				if err := checkEmptyDir(dir); err != nil {
					return &usageError{err}
				}
			}
			paths, err := synth.WriteDemo(dir, synth.DemoOptions{Compact: demoCompact})
			if err != nil {
				// An output that could not be written: exit 3, as for
				// --out and --plot.
				return &outputError{fmt.Errorf("%w; check that %s is writable", err, dir)}
			}
			if !a.flags.quiet {
				for _, p := range paths {
					a.sayf("wrote %s", p)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "write into DIR even if it is not empty")
	return cmd
}

// checkEmptyDir refuses a DIR that exists and holds anything, or that is
// not a folder.
func checkEmptyDir(dir string) error {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%s: a part of the path before the last is a file; give a new or empty folder", filepath.Clean(dir))
	}
	if err != nil {
		return err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		return fmt.Errorf("%s: not a folder; give a new or empty folder", filepath.Clean(dir))
	case len(names) > 0:
		return fmt.Errorf("%s is not empty; give a new or empty folder, or --force to write into it", filepath.Clean(dir))
	}
	return nil
}
