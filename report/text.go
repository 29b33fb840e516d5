package report

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// WriteText writes the tables for a terminal: each title on its own line,
// then a borderless table with a header, numbers right-aligned with
// thousands separators; tables are separated by a blank line. Trailing
// spaces are trimmed from every line (the borderless renderer pads the last
// column), so output diffs cleanly.
func WriteText(w io.Writer, tables ...*Table) error {
	return writeTables(w, tables, func(title string) string { return title + "\n" }, func(note string) string { return note + "\n" }, func(buf *bytes.Buffer, t *Table) error {
		tbl := tablewriter.NewTable(buf,
			tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
				Borders: tw.BorderNone,
				Symbols: tw.NewSymbols(tw.StyleNone),
				Settings: tw.Settings{
					Lines:      tw.Lines{ShowHeaderLine: tw.Off},
					Separators: tw.Separators{BetweenColumns: tw.Off},
				},
			})),
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithTrimSpace(tw.Off),
			// Two spaces between columns and none before the first, so
			// the table lines up with its title.
			tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
			tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: aligns(t, true)}),
			tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns(t, false)}),
		)
		return render(tbl, t, true)
	})
}

// writeTables writes each table's title (through title), body (through
// body) and notes (each through note), separated by blank lines, then
// trims trailing spaces from every line. Text and markdown differ only in
// those three.
func writeTables(w io.Writer, tables []*Table, title, note func(string) string, body func(*bytes.Buffer, *Table) error) error {
	var buf bytes.Buffer
	for i, t := range tables {
		if i > 0 {
			buf.WriteByte('\n')
		}
		if t.Title != "" {
			buf.WriteString(title(t.Title))
		}
		if len(t.Columns) == 0 {
			continue
		}
		if err := body(&buf, t); err != nil {
			return err
		}
		for _, n := range t.Notes {
			buf.WriteString(note(sanitizeCell(n)))
		}
	}
	return copyTrimmed(w, buf.Bytes())
}

// aligns is the per-column alignment; header cells follow their column so
// that a number's header sits over its digits.
func aligns(t *Table, header bool) []tw.Align {
	r := t.rightAligned()
	a := make([]tw.Align, len(r))
	for i, right := range r {
		a[i] = tw.AlignLeft
		if right {
			a[i] = tw.AlignRight
		}
	}
	return a
}

// render feeds a table to tablewriter.
func render(tbl *tablewriter.Table, t *Table, thousands bool) error {
	h := t.Header()
	hs := make([]any, len(h))
	for i, s := range h {
		hs[i] = s
	}
	tbl.Header(hs...)
	rows := t.strings(thousands, true)
	for _, row := range rows {
		for j := range row {
			row[j] = sanitizeCell(row[j])
		}
	}
	if err := tbl.Bulk(rows); err != nil {
		return err
	}
	return tbl.Render()
}

// copyTrimmed writes b to w with trailing spaces removed from every line.
func copyTrimmed(w io.Writer, b []byte) error {
	bw := bufio.NewWriter(w)
	for len(b) > 0 {
		line := b
		rest := []byte(nil)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, rest = b[:i], b[i+1:]
		}
		bw.WriteString(strings.TrimRight(string(line), " \t"))
		bw.WriteByte('\n')
		b = rest
	}
	return bw.Flush()
}
