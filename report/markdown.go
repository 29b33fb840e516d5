package report

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// markdownNote is a table's note as its own paragraph: a leading "*" or
// "-" (a footnote's marker) is escaped so that it is not read as a list
// item.
func markdownNote(note string) string {
	if strings.HasPrefix(note, "*") || strings.HasPrefix(note, "-") {
		note = `\` + note
	}
	return "\n" + note + "\n"
}

// WriteMarkdown writes each table as a GitHub-flavoured markdown table,
// preceded by its title as a "### " heading. Numbers carry no thousands
// separators (a pasted table stays sortable) and are right-aligned with
// "--:" alignment rows. Pipes inside cells are escaped. A table's Notes
// follow it, one paragraph each.
func WriteMarkdown(w io.Writer, tables ...*Table) error {
	return writeTables(w, tables, func(title string) string { return "### " + title + "\n\n" }, markdownNote, func(buf *bytes.Buffer, t *Table) error {
		esc := &Table{Title: t.Title, Columns: t.Columns, Rows: make([][]Cell, len(t.Rows))}
		for r, row := range t.Rows {
			esc.Rows[r] = make([]Cell, len(row))
			for c, cell := range row {
				if cell.kind == kindStr {
					cell.s = strings.ReplaceAll(cell.s, "|", `\|`)
				}
				esc.Rows[r][c] = cell
			}
		}
		tbl := tablewriter.NewTable(buf,
			tablewriter.WithRenderer(renderer.NewMarkdown()),
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithTrimSpace(tw.Off),
			tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: aligns(t, true)}),
			tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns(t, false)}),
		)
		return render(tbl, esc, false)
	})
}
