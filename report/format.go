package report

import (
	"fmt"
	"io"
	"strings"
)

// Format is an output format.
type Format string

const (
	Text     Format = "text"
	Markdown Format = "markdown"
	CSV      Format = "csv"
	JSON     Format = "json"
	// GitHub writes GitHub Actions workflow commands (::error ...) for the
	// annotations, then the tables as text for the log.
	GitHub Format = "github"
)

// Formats is every format ParseFormat accepts, in the order help shows them.
func Formats() []Format { return []Format{Text, Markdown, CSV, JSON, GitHub} }

// ParseFormat parses a --format value. The error lists the valid values.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("invalid format %q: valid values are %s", s, FormatList())
}

// FormatList is "text|markdown|csv|json|github", for help and errors.
func FormatList() string {
	fs := Formats()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, "|")
}

// Doc is everything one command prints: its tables (text, markdown, csv,
// github), its typed result (json) and its annotations (github).
type Doc struct {
	Tables []*Table
	// JSON is the command's typed result, marshalled as is by WriteJSON.
	// Commands define result structs with json tags; field order is the
	// struct's and map keys are sorted, so the output is stable. When nil,
	// the json format writes the tables (see tablesJSON).
	JSON any
	// Annotations are written only by the github format.
	Annotations []Annotation
}

// Write writes doc in format f to w.
func Write(w io.Writer, f Format, doc Doc) error {
	switch f {
	case Text, "":
		return WriteText(w, doc.Tables...)
	case Markdown:
		return WriteMarkdown(w, doc.Tables...)
	case CSV:
		return WriteCSV(w, doc.Tables...)
	case JSON:
		if doc.JSON == nil {
			return WriteJSON(w, tablesJSON(doc.Tables))
		}
		return WriteJSON(w, doc.JSON)
	case GitHub:
		if err := WriteGitHub(w, doc.Annotations); err != nil {
			return err
		}
		return WriteText(w, doc.Tables...)
	}
	return fmt.Errorf("report: unknown format %q", f)
}
