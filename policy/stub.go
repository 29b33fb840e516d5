package policy

import (
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// stubTemplate is the text that replaces a cleared tool result. {id} is
// the tool call id and {path} the file Claude Code 2.0.60+ saved the
// result to. A template is recognised in a history by its fixed text
// before the first placeholder and after the last, so a result cleared
// earlier (by the policy or, in agreement, by the recording) is never
// counted or cleared again whatever id it names.
type stubTemplate struct {
	text           string
	prefix, suffix string
	placeholders   bool
}

func newStubTemplate(text string) stubTemplate {
	t := stubTemplate{text: text}
	i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if strings.Contains(text, "{id}") || strings.Contains(text, "{path}") {
		t.placeholders = true
		t.prefix, t.suffix = text[:i], text[j+1:]
	}
	return t
}

// render is the stub for one tool call of session s (nil: no session, the
// path names no project). {path} is the file Claude Code would have saved
// the result to (persistedPath): absolute when the session's cwd is under
// /Users/<name> or /home/<name>, so the marker has the length the real one
// had; "~/..." otherwise, the right shape but not the exact length.
func (t stubTemplate) render(id string, s *corpus.Session) string {
	if !t.placeholders {
		return t.text
	}
	return strings.NewReplacer("{id}", id, "{path}", persistedPath(s, id)).Replace(t.text)
}

func (t stubTemplate) matches(text string) bool {
	if !t.placeholders {
		return text == t.text
	}
	return len(text) >= len(t.prefix)+len(t.suffix) && strings.HasPrefix(text, t.prefix) && strings.HasSuffix(text, t.suffix)
}
