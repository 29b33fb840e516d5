package report

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Level is a GitHub annotation level.
type Level string

const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelNotice  Level = "notice"
)

// Annotation is one GitHub Actions workflow command, shown by GitHub on the
// run summary and, with File and Line, on the pull request's diff. Gates
// (digest-growth) emit one per failed check.
type Annotation struct {
	Level   Level
	File    string // optional
	Line    int    // optional, 1-based
	Title   string // optional
	Message string
}

// WriteGitHub writes one "::error file=F,line=N,title=T::message" line per
// annotation, escaped as the workflow-command syntax requires (% CR LF in
// the message; also : and , in properties).
func WriteGitHub(w io.Writer, anns []Annotation) error {
	bw := bufio.NewWriter(w)
	for _, a := range anns {
		lvl := a.Level
		if lvl == "" {
			lvl = LevelError
		}
		var props []string
		if a.File != "" {
			props = append(props, "file="+escapeProperty(a.File))
		}
		if a.Line > 0 {
			props = append(props, "line="+strconv.Itoa(a.Line))
		}
		if a.Title != "" {
			props = append(props, "title="+escapeProperty(a.Title))
		}
		bw.WriteString("::" + string(lvl))
		if len(props) > 0 {
			bw.WriteString(" " + strings.Join(props, ","))
		}
		bw.WriteString("::" + escapeData(a.Message) + "\n")
	}
	return bw.Flush()
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
