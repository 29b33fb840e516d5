package loss

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// toolInput holds every input field a subject is read from, across agents:
// the string fields by their JSON names (file_path, filePath for opencode,
// absolute_path for Gemini CLI read_file, notebook_path, path, filename,
// input, patch, pattern, query, regex, dir, directory, glob, include, url)
// and the raw JSON values of command and cmd, which are strings or argv
// lists.
type toolInput struct {
	FilePath, FilePathCamel, AbsolutePath, NotebookPath, Path, Filename string
	Input, Patch, Pattern, Query, Regex, Dir, Directory, Glob, Include  string
	URL                                                                 string
	Command, Cmd                                                        []byte
}

// decodeToolInput fills a toolInput exactly as json.Unmarshal into a
// struct with those field tags did (the old code, the oracle of
// FuzzSubjectOf), without reflection: the decoder was most of the cost of
// a subject, and every tool call of a session has one. Unmarshal's rules,
// all reproduced:
//   - input that is not valid JSON (trailing data, nesting beyond
//     maxDepth) fills nothing; a valid value that is not an object fills
//     nothing;
//   - a key names a field by exact match, else by case folding
//     (bytes.EqualFold: "FILE_PATH", and the Kelvin sign for "k");
//   - a later duplicate key overwrites an earlier one;
//   - a string field takes only a string value: null leaves it as it
//     was, and any other value is a type error that Unmarshal reports
//     after filling the rest (SubjectOf ignored the error, so it is
//     skipped here);
//   - command and cmd take any value as its raw bytes, null included.
func decodeToolInput(b []byte) toolInput {
	var in toolInput
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		if end, ok := skipValue(b, i, 0); !ok || skipSpace(b, end) != len(b) {
			return toolInput{}
		}
		return in // valid, but not an object
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return toolInput{}
			}
			end, plain, ok := scanString(b, i)
			if !ok {
				return toolInput{}
			}
			key := stringValue(b[i:end], plain, true)
			if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
				return toolInput{}
			}
			start := skipSpace(b, i+1)
			if i, ok = skipValue(b, start, 1); !ok {
				return toolInput{}
			}
			in.set(key, b[start:i])
			if i = skipSpace(b, i); i >= len(b) {
				return toolInput{}
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return toolInput{}
			}
			i = skipSpace(b, i+1)
		}
	}
	if skipSpace(b, i) != len(b) {
		return toolInput{}
	}
	return in
}

// set stores one member's value (valid JSON) in the field its key names.
func (in *toolInput) set(key string, val []byte) {
	str, raw := in.field(key)
	if str == nil && raw == nil {
		if key = foldKey(key); key == "" {
			return
		}
		if str, raw = in.field(key); str == nil && raw == nil {
			return
		}
	}
	if raw != nil {
		*raw = val
		return
	}
	if val[0] == '"' {
		end, plain, _ := scanString(val, 0)
		*str = stringValue(val[:end], plain, false)
	}
}

// field is the string field or raw field a key names: the JSON name, or
// its folded form (foldKey).
func (in *toolInput) field(key string) (*string, *[]byte) {
	switch key {
	case "file_path", "FILE_PATH":
		return &in.FilePath, nil
	case "filePath", "FILEPATH":
		return &in.FilePathCamel, nil
	case "absolute_path", "ABSOLUTE_PATH":
		return &in.AbsolutePath, nil
	case "notebook_path", "NOTEBOOK_PATH":
		return &in.NotebookPath, nil
	case "path", "PATH":
		return &in.Path, nil
	case "filename", "FILENAME":
		return &in.Filename, nil
	case "input", "INPUT":
		return &in.Input, nil
	case "patch", "PATCH":
		return &in.Patch, nil
	case "pattern", "PATTERN":
		return &in.Pattern, nil
	case "query", "QUERY":
		return &in.Query, nil
	case "regex", "REGEX":
		return &in.Regex, nil
	case "dir", "DIR":
		return &in.Dir, nil
	case "directory", "DIRECTORY":
		return &in.Directory, nil
	case "glob", "GLOB":
		return &in.Glob, nil
	case "include", "INCLUDE":
		return &in.Include, nil
	case "url", "URL":
		return &in.URL, nil
	case "command", "COMMAND":
		return nil, &in.Command
	case "cmd", "CMD":
		return nil, &in.Cmd
	}
	return nil, nil
}

// foldKey is encoding/json's foldName: ASCII lower case to upper, every
// other rune to the smallest rune of its case-fold orbit (so U+212A
// KELVIN SIGN becomes K and U+017F LONG S becomes S). It returns "" for a
// key that cannot fold to a field name (longer than the longest, after
// folding).
func foldKey(key string) string {
	var buf [16]byte
	out := buf[:0]
	for i := 0; i < len(key); {
		c := key[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
		} else {
			r, n := utf8.DecodeRuneInString(key[i:])
			out = utf8.AppendRune(out, foldRune(r))
			i += n
		}
		if len(out) > len("ABSOLUTE_PATH") {
			return ""
		}
	}
	return string(out)
}

// foldRune is the smallest rune of r's case-fold orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// shellCommand reads a command given as a string (Bash, smith and clai
// bash: "command"; Codex exec_command: "cmd") or as an argv list (Codex
// shell: ["bash","-lc","<script>"] gives the script, any other list its
// words joined by spaces). The first raw value that is a non-empty string
// or a non-empty list of strings (a null element is "") decides, as
// unmarshalling each raw value into a string and then a []string did.
func shellCommand(raws ...[]byte) string {
	for _, raw := range raws {
		if len(raw) == 0 {
			continue
		}
		switch raw[0] {
		case '"':
			end, plain, _ := scanString(raw, 0)
			if one := stringValue(raw[:end], plain, false); one != "" {
				return one
			}
		case '[':
			if words, ok := stringList(raw); ok && len(words) > 0 {
				if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") {
					return words[2]
				}
				return strings.Join(words, " ")
			}
		}
	}
	return ""
}

// stringList decodes a valid JSON array whose elements are all strings
// or null, and is false for any other element.
func stringList(raw []byte) ([]string, bool) {
	var words []string
	i := skipSpace(raw, 1)
	if raw[i] == ']' {
		return words, true
	}
	for {
		switch raw[i] {
		case '"':
			end, plain, _ := scanString(raw, i)
			words = append(words, stringValue(raw[i:end], plain, false))
			i = end
		case 'n':
			words = append(words, "")
			i += len("null")
		default:
			return nil, false
		}
		i = skipSpace(raw, i)
		if raw[i] == ']' {
			return words, true
		}
		i = skipSpace(raw, i+1) // the comma
	}
}
