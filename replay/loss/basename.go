package loss

import "strings"

// A file is also named by its base name (module-alpha.md for
// /p/docs/specs/module-alpha.md) when no other file of the session has
// it. The phantom-read sessions show why: agents cite the files they
// "reviewed" by base name ("`module-alpha.md` has these sections", in a
// review written from a persisted output never read back; a reflection
// listing "`Coding-Standards.md`, `Python-Standards.md` ... I never
// circled back to retrieve them"), and a rule that took only paths
// counted those results as never needed. A base name two files share
// (README.md, wsd.py in the real logs) names neither: which one a message
// means cannot be told.

// baseName is the base name of a normalised file path, when it looks like
// a file's name: a dot inside it, not at either end (so no word of prose
// is one); "" otherwise.
func baseName(p string) string {
	b := p[strings.LastIndexByte(p, '/')+1:]
	if i := strings.LastIndexByte(b, '.'); i <= 0 || i == len(b)-1 {
		return ""
	}
	return b
}

// fileBases counts, per base name, the distinct files the session's file
// calls name, built once: the base names a message may name a file by
// are those counted once. It decodes the file calls' arguments (the
// calls of other families are not read); a shared index, which read every
// call already, counts from those.
func (ix *Index) fileBases() map[string]int {
	ix.basesOnce.Do(func() {
		seen := map[string]bool{}
		ix.bases = map[string]int{}
		add := func(s Subject) {
			if s.Family != FamilyFile || s.Key == "" || seen[s.Key] {
				return
			}
			seen[s.Key] = true
			if b := baseName(s.Key); b != "" {
				ix.bases[b]++
			}
		}
		if ix.all != nil {
			for _, s := range ix.all.subj {
				add(s)
			}
			return
		}
		for c := range ix.calls {
			tc := &ix.calls[c]
			b := &ix.Session.Messages[ix.units[tc.unit].msg].Blocks[tc.block]
			if FamilyOf(b.ToolName) == FamilyFile {
				add(SubjectOf(b.ToolName, b.Args, ix.Session.Meta.Cwd))
			}
		}
	})
	return ix.bases
}

// uniqueBase is the base name file subject s may be named by, or "".
func (ix *Index) uniqueBase(s Subject) string {
	if s.Family != FamilyFile {
		return ""
	}
	if b := baseName(s.Key); b != "" && ix.fileBases()[b] == 1 {
		return b
	}
	return ""
}

// wholeName reports whether text[start:end] stands as a file name of its
// own: not inside a longer name or path (a letter, digit, '_', '-', '.',
// '/' or '\' before it; a letter, digit, '_', '-', '/' or '\' after it, or
// a '.' followed by a letter or digit: x.md.bak). A sentence's full stop
// or a closing quote after it does not join it to anything.
func wholeName(text string, start, end int) bool {
	if start > 0 && (nameByte(text[start-1]) || text[start-1] == '.') {
		return false
	}
	if end < len(text) {
		c := text[end]
		if nameByte(c) {
			return false
		}
		if c == '.' && end+1 < len(text) && isASCIIAlnum(text[end+1]) {
			return false
		}
	}
	return true
}

// nameByte is a byte that continues a file name or path.
func nameByte(c byte) bool {
	return isASCIIAlnum(c) || c == '_' || c == '-' || c == '/' || c == '\\'
}
