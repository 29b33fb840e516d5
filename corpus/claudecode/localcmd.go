package claudecode

import (
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// Claude Code writes a slash command the user typed as a user line
// holding "<command-name>/name</command-name>". A local command (one the
// CLI runs itself: /context, /export, /exit) is followed at once by a
// user line holding its output, "<local-command-stdout>…" (or stderr),
// and the model answers neither; a prompt command (/analyze-wpd, a
// skill) is followed by its expansion, an isMeta line, and the model
// answers it: that one is a turn. On the real logs every one of the 43
// local commands (15 /context, 14 /export, 14 /exit, in 15 files) has its
// output on the next line, and every one of the 29 prompt commands its
// expansion.

// localCommandOutput reports whether m holds a local command's output.
func localCommandOutput(m *corpus.Message) bool {
	t := firstText(m)
	return strings.HasPrefix(t, "<local-command-stdout>") || strings.HasPrefix(t, "<local-command-stderr>")
}

// commandLine reports whether m is a user line naming a slash command.
func commandLine(m *corpus.Message) bool {
	return m.Role == corpus.RoleUser && !m.Synthetic && strings.Contains(firstText(m), "<command-name>")
}

// firstText is the text of m's first block when it is text.
func firstText(m *corpus.Message) string {
	if len(m.Blocks) == 0 || m.Blocks[0].Kind != corpus.KindText {
		return ""
	}
	return m.Blocks[0].Text
}
