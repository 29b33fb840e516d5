package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
)

// smithTime is the timestamp format of session.json and index.json:
// RFC 3339 with no fractional seconds and the local offset.
const smithTime = time.RFC3339

// WriteSmithSession writes s as a smith session folder dir (created if
// needed):
//   - Format smith-transcript (or empty): transcript.jsonl holds s.Messages
//     and session.json holds s.Recorded.History (s.Messages when nil), the
//     compacted working history;
//   - Format smith-session: a session recorded before the transcript log
//     existed, session.json only, holding s.Messages.
//
// The id, times, cwd, model, provider, name, parent and context ratio come
// from s.ID and s.Meta; usage is derived from the history's size.
func WriteSmithSession(dir string, s *corpus.Session) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	history := s.Messages
	if s.Format != corpus.FormatSmithSession {
		if err := WriteSmithTranscript(filepath.Join(dir, "transcript.jsonl"), s.Messages); err != nil {
			return err
		}
		if s.Recorded.History != nil {
			history = s.Recorded.History
		}
	}
	return os.WriteFile(filepath.Join(dir, "session.json"), AppendSmithSessionJSON(nil, s, history), 0o600)
}

// AppendSmithSessionJSON appends session.json for s with the given
// messages, keys in smith's order: id, created_at, updated_at, cwd, model,
// provider, messages, usage, todos, name?, parent_id?, context_ratio.
func AppendSmithSessionJSON(dst []byte, s *corpus.Session, messages []corpus.Message) []byte {
	m := s.Meta
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, s.ID)
	dst = append(dst, `,"created_at":`...)
	dst = appendJSONString(dst, m.CreatedAt.Format(smithTime))
	dst = append(dst, `,"updated_at":`...)
	dst = appendJSONString(dst, m.UpdatedAt.Format(smithTime))
	for _, kv := range [][2]string{{"cwd", m.Cwd}, {"model", m.Model}, {"provider", m.Provider}} {
		dst = fmt.Appendf(dst, `,"%s":`, kv[0])
		dst = appendJSONString(dst, kv[1])
	}
	dst = append(dst, `,"messages":[`...)
	for i, msg := range messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendSmithMessage(dst, msg, false)
	}
	dst = append(dst, `],"usage":`...)
	dst = appendSmithUsage(dst, messages)
	dst = append(dst, `,"todos":[{"content":"Fix the failing spec","status":"in_progress"}]`...)
	if m.Title != "" {
		dst = append(dst, `,"name":`...)
		dst = appendJSONString(dst, m.Title)
	}
	if m.Parent != "" {
		dst = append(dst, `,"parent_id":`...)
		dst = appendJSONString(dst, m.Parent)
	}
	ratio := m.ContextRatio
	if ratio == 0 {
		ratio = 1
	}
	dst = append(dst, `,"context_ratio":`...)
	dst = appendCrystalFloat(dst, ratio)
	return append(dst, '}')
}

// appendSmithUsage writes a plausible cumulative usage for a history.
func appendSmithUsage(dst []byte, messages []corpus.Message) []byte {
	var bytes int
	for _, m := range messages {
		for _, b := range m.Blocks {
			bytes += len(b.Text) + len(b.Args) + len(b.ToolName)
		}
	}
	prompt, completion := bytes/4*3, bytes/40
	return fmt.Appendf(dst, `{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"cache_creation_tokens":0,"cache_read_tokens":0}`,
		prompt, completion, prompt+completion)
}

// appendCrystalFloat writes a Float64 as Crystal does: always with a
// decimal point (1.0, 1.18).
func appendCrystalFloat(dst []byte, f float64) []byte {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return append(dst, s...)
}

// WriteSmithRoot writes a sessions root: one folder per session (named by
// its id) and index.json listing them in the given order (smith puts the
// newest first). It returns the session folders in order.
func WriteSmithRoot(root string, sessions []*corpus.Session) ([]string, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	var dirs []string
	index := []byte{'['}
	for i, s := range sessions {
		dir := filepath.Join(root, s.ID)
		if err := WriteSmithSession(dir, s); err != nil {
			return dirs, err
		}
		dirs = append(dirs, dir)
		if i > 0 {
			index = append(index, ',')
		}
		index = AppendSmithIndexEntry(index, s)
	}
	index = append(index, ']')
	return dirs, os.WriteFile(filepath.Join(root, "index.json"), index, 0o600)
}

// AppendSmithIndexEntry appends s's index.json entry (specs §1.6, newer
// shape with provider, model and usage).
func AppendSmithIndexEntry(dst []byte, s *corpus.Session) []byte {
	history := s.Messages
	if s.Format != corpus.FormatSmithSession && s.Recorded.History != nil {
		history = s.Recorded.History
	}
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, s.ID)
	dst = append(dst, `,"created_at":`...)
	dst = appendJSONString(dst, s.Meta.CreatedAt.Format(smithTime))
	dst = append(dst, `,"updated_at":`...)
	dst = appendJSONString(dst, s.Meta.UpdatedAt.Format(smithTime))
	dst = append(dst, `,"first_prompt":`...)
	dst = appendJSONString(dst, SmithFirstPrompt(history))
	dst = fmt.Appendf(dst, `,"message_count":%d`, len(history))
	if s.Meta.Title != "" {
		dst = append(dst, `,"name":`...)
		dst = appendJSONString(dst, s.Meta.Title)
	}
	if s.Meta.Parent != "" {
		dst = append(dst, `,"parent_id":`...)
		dst = appendJSONString(dst, s.Meta.Parent)
	}
	dst = append(dst, `,"provider":`...)
	dst = appendJSONString(dst, s.Meta.Provider)
	dst = append(dst, `,"model":`...)
	dst = appendJSONString(dst, s.Meta.Model)
	dst = append(dst, `,"usage":`...)
	dst = appendSmithUsage(dst, history)
	return append(dst, '}')
}

// SmithFirstPrompt is index.json's first_prompt: the first user message's
// first text block, stripped; over 60 characters it is cut to 58 and
// "..." is appended (Crystal txt[0..57] is inclusive).
func SmithFirstPrompt(msgs []corpus.Message) string {
	for _, m := range msgs {
		if m.Role != corpus.RoleUser {
			continue
		}
		for _, b := range m.Blocks {
			if b.Kind != corpus.KindText {
				continue
			}
			t := strings.TrimSpace(b.Text)
			if t == "" {
				return "(empty prompt)"
			}
			if utf8.RuneCountInString(t) > 60 {
				return string([]rune(t)[:58]) + "..."
			}
			return t
		}
		return "(empty prompt)"
	}
	return "(empty session)"
}

var smithNameJunk = regexp.MustCompile(`[^a-z0-9\s-]`)

// SmithName derives a session name as smith's Naming.derive does: the first
// five words of the prompt, lower-cased, other characters replaced by a
// space, joined with "-".
func SmithName(prompt string) string {
	words := strings.Fields(smithNameJunk.ReplaceAllString(strings.ToLower(prompt), " "))
	if len(words) > 5 {
		words = words[:5]
	}
	return strings.Join(words, "-")
}
