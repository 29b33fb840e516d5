// Package loss computes, from a recording alone, what hiding a tool result
// cost the agent: whether the agent needed the result again after a policy
// hid it, whether it fetched the result back first, or whether it went on
// without it (lost). The recording side (subjects, distinctive lines, the
// index of later uses and refetches) is built once per session in time
// linear in the session; the signals of one replay are then read from the
// index per hidden result (signals.go).
//
// Files: family.go (tool-name families per agent and the subject of a
// call), toolinput.go (the decoder of a call's arguments), jsonlex.go and
// jsonstr.go (JSON strings), lines.go (distinctive and content lines) and
// newline.go (a result's newlines, 64 bytes at a time), match.go (the two
// multi-pattern matchers), index.go (the per-session index), evidence.go
// and linetable.go (the evidence of the hidden results and its table of
// lines), twins.go (results repeating an earlier one's text), signals.go
// (hidden, unseen, needed, refetched, lost, refetch_tokens), tracker.go
// (which request and stage of a replay first hid each result, and the
// report per session, stage and compaction).
package loss

import (
	"path"
	"strings"
	"unicode/utf8"
)

// Family groups the tools whose results have the same kind of subject.
type Family string

const (
	FamilyFile   Family = "file"   // the subject is a file path
	FamilySearch Family = "search" // a pattern (plus path and glob)
	FamilyShell  Family = "shell"  // a command line
	FamilyFetch  Family = "fetch"  // a URL or a web query
	FamilyOther  Family = "other"  // no subject a later message could name
)

// families maps tool names to families, per agent. Names do not collide
// across agents with different meanings, so one table serves every format.
// A tool not listed is FamilyOther: Claude Code's Task, Skill, TodoWrite,
// clai's history_query and the like return nothing a later message could
// cite by name, so they are never "needed" by naming (a quoted distinctive
// line still counts).
var families = map[string]Family{
	// Claude Code (tool names as the API records them).
	"Read": FamilyFile, "Edit": FamilyFile, "MultiEdit": FamilyFile, "Write": FamilyFile,
	"NotebookEdit": FamilyFile, "NotebookRead": FamilyFile,
	"Grep": FamilySearch, "Glob": FamilySearch, "LS": FamilySearch,
	"Bash": FamilyShell, "BashOutput": FamilyShell,
	"WebFetch": FamilyFetch, "WebSearch": FamilyFetch,
	// smith (specs/smith.md: read_file, grep, glob, bash, write_file,
	// edit_file) and clai's HTTP engine (the same snake_case names).
	"read_file": FamilyFile, "write_file": FamilyFile, "edit_file": FamilyFile,
	"grep": FamilySearch, "glob": FamilySearch, "list_dir": FamilySearch, "ls": FamilySearch,
	"bash":      FamilyShell,
	"web_fetch": FamilyFetch, "fetch": FamilyFetch, "web_search": FamilyFetch,
	// Codex CLI (function_call / custom_tool_call / local_shell_call names).
	"shell": FamilyShell, "local_shell": FamilyShell, "exec_command": FamilyShell,
	"container.exec": FamilyShell, "apply_patch": FamilyFile,
	// Gemini CLI (read_file and glob as above).
	"replace": FamilyFile, "list_directory": FamilySearch, "search_file_content": FamilySearch,
	"run_shell_command": FamilyShell, "google_web_search": FamilyFetch,
	// opencode.
	"read": FamilyFile, "write": FamilyFile, "edit": FamilyFile, "patch": FamilyFile,
	"list": FamilySearch, "webfetch": FamilyFetch,
}

// FamilyOf returns the family of a tool name.
func FamilyOf(tool string) Family {
	if f, ok := families[tool]; ok {
		return f
	}
	return FamilyOther
}

// Minimum lengths of a name that counts as a mention. A pattern or command
// shorter than this ("ls", "TODO") occurs in ordinary prose too often to be
// evidence of use; a path is always specific enough.
const minNameMention = 8

// Subject is what a tool call was about: the key that identifies the same
// call again and the strings whose appearance in a later message counts as
// naming it.
type Subject struct {
	Family Family
	Tool   string
	// Key identifies the call for refetch detection: the normalised path
	// (file), pattern NUL path NUL glob (search), the trimmed command
	// (shell), the URL or query (fetch), the raw arguments (other).
	Key string
	// Display is the short human form of the subject (path, pattern,
	// command, URL) for reports.
	Display string
	// Mentions are the strings that name the subject: a path in its
	// absolute and, under the session's cwd, its cwd-relative form; a
	// pattern or command of at least minNameMention characters; a URL.
	// Each is at most maxMentionBytes long (capMentions). A file's base
	// name is not among them: whether it names the file depends on the
	// rest of the session (Index.uniqueBase).
	Mentions []string
}

// SubjectOf derives the subject of one tool call from its name and raw
// JSON arguments. cwd is the session's working directory ("" if unknown),
// used to make relative paths absolute and absolute ones cwd-relative.
func SubjectOf(tool string, args []byte, cwd string) Subject {
	return subjectOf(tool, args, cwd, func(args []byte) (toolInput, string) {
		in := decodeToolInput(args) // arguments that are not an object leave every field empty
		return in, shellCommand(in.Command, in.Cmd)
	})
}

// subjectOf is SubjectOf with the decoding of the arguments (their fields
// and the shell command) given: the differential test decodes them the old
// way, with encoding/json, and shares the rest.
func subjectOf(tool string, args []byte, cwd string, decode func([]byte) (toolInput, string)) Subject {
	s := Subject{Family: FamilyOf(tool), Tool: tool}
	if s.Family == FamilyOther {
		s.Key = tool + "\x00" + string(args)
		s.Display = tool
		return s
	}
	in, command := decode(args)
	str := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	switch s.Family {
	case FamilyFile:
		p := str(in.FilePath, in.NotebookPath, in.Path, in.Filename, in.AbsolutePath, in.FilePathCamel)
		if tool == "apply_patch" {
			p = patchPath(str(in.Input, in.Patch), string(args))
		}
		s.Key = NormPath(p, cwd)
		s.Display = s.Key
		s.Mentions = pathMentions(s.Key, cwd)
	case FamilySearch:
		pat := str(in.Pattern, in.Query, in.Regex)
		s.Key = pat + "\x00" + NormPath(str(in.Path, in.Dir, in.Directory), cwd) + "\x00" + str(in.Glob, in.Include)
		s.Display = pat
		if len([]rune(pat)) >= minNameMention {
			s.Mentions = []string{pat}
		}
	case FamilyShell:
		c := strings.TrimSpace(command)
		s.Key, s.Display = c, c
		if len([]rune(c)) >= minNameMention {
			s.Mentions = []string{c}
		}
	case FamilyFetch:
		u := str(in.URL, in.Query)
		s.Key, s.Display = u, u
		if u != "" {
			s.Mentions = []string{u}
		}
	}
	s.Mentions = capMentions(s.Mentions)
	return s
}

// maxMentionBytes is the longest name looked for. A later message that
// holds the first 256 bytes of a command, pattern or URL names it; looking
// for the whole of a long one (a heredoc script of kilobytes) would find
// nothing more, and the name matcher keeps a trie node per byte of its
// names, so uncapped names would make its memory a multiple of the
// session's largest tool inputs.
const maxMentionBytes = 256

// capMentions cuts each mention to maxMentionBytes, at a UTF-8 character
// boundary.
func capMentions(ms []string) []string {
	for i, m := range ms {
		if len(m) > maxMentionBytes {
			n := maxMentionBytes
			for n > 0 && !utf8.RuneStart(m[n]) {
				n--
			}
			ms[i] = m[:n]
		}
	}
	return ms
}

// patchPath is the first file an apply_patch names ("*** Update File: p",
// "*** Add File: p", "*** Delete File: p").
func patchPath(patch, raw string) string {
	if patch == "" {
		patch = raw
	}
	for _, ln := range strings.Split(patch, "\n") {
		for _, h := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if p, ok := strings.CutPrefix(strings.TrimSpace(ln), h); ok {
				return strings.TrimSpace(p)
			}
		}
	}
	return ""
}

// NormPath cleans a path the way the agent's file tools resolve it: quotes
// and backticks around it are removed, a relative path is joined to cwd,
// and "." and ".." elements and doubled slashes are resolved lexically
// (symbolic links cannot be, from a recording). An empty path stays empty.
// A session recorded on Windows (a drive or UNC path, or such a cwd) is
// cleaned with '/' for its separators and an upper-case drive letter, so
// that C:\x\a.go, c:/x/a.go and a.go under C:\x are one file; without it
// path.Join put cwd in front of an absolute C:\ path, and a read of a
// persisted output there was never recognised.
func NormPath(p, cwd string) string {
	p = strings.Trim(strings.TrimSpace(p), "`'\"")
	if p == "" {
		return ""
	}
	if windowsPath(p) || windowsPath(cwd) {
		p = strings.ReplaceAll(p, `\`, "/")
		if !windowsPath(p) && !strings.HasPrefix(p, "/") && cwd != "" {
			p = strings.ReplaceAll(cwd, `\`, "/") + "/" + p
		}
		return cleanWindows(p)
	}
	if !path.IsAbs(p) && cwd != "" {
		p = path.Join(cwd, p)
	}
	return path.Clean(p)
}

// windowsPath reports whether p is an absolute Windows path: a drive
// letter, a colon and a separator, or a UNC path (\\host\share).
func windowsPath(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// cleanWindows cleans a Windows path already written with '/': the drive
// letter upper-cased and kept, a UNC path's leading "//" kept, the rest
// cleaned as path.Clean does.
func cleanWindows(p string) string {
	switch {
	case len(p) >= 2 && p[1] == ':':
		return strings.ToUpper(p[:1]) + ":" + path.Clean("/"+p[2:])
	case strings.HasPrefix(p, "//"):
		return "/" + path.Clean(p[1:])
	}
	return path.Clean(p)
}

// pathMentions are the forms in which a later message names a file: the
// normalised path, and its cwd-relative form when it lies under cwd. The
// bare base name is added by the evidence only when no other file of the
// session has it (basename.go): base names collide (wsd.py, README.md) in
// the real logs, and one shared would count uses of another file.
//
// A Windows path is also named with backslashes, as the agent and the
// model write it (NormPath keeps '/').
func pathMentions(p, cwd string) []string {
	if p == "" {
		return nil
	}
	out := []string{p}
	if cwd != "" {
		root := strings.TrimSuffix(NormPath(cwd, ""), "/") + "/"
		if rel, ok := strings.CutPrefix(p, root); ok && rel != "" {
			out = append(out, rel)
		}
	}
	if windowsPath(p) {
		for _, m := range out {
			if b := strings.ReplaceAll(m, "/", `\`); b != m {
				out = append(out, b)
			}
		}
	}
	return out
}
