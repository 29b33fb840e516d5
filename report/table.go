// Package report writes calib's results: tables as text, markdown and CSV,
// typed results as JSON, GitHub annotations for CI gates, and gonum plots as
// PNG and SVG. Every writer is deterministic: the same table gives the same
// bytes, so outputs can be diffed and kept as golden files. The package
// formats; it never computes metrics.
//
// A command builds one or more *Table values (NewTable, AddRow with Str, Int,
// Float and friends) and hands them, with its typed JSON result, to Write:
//
//	t := report.NewTable("sessions", report.Col("id"), report.NumCol("bytes"))
//	t.AddRow(report.Str(s.ID), report.Int(s.Bytes))
//	err := report.Write(w, format, report.Doc{Tables: []*report.Table{t}, JSON: result})
package report

import (
	"strconv"
	"strings"
)

// Align is a column's horizontal alignment.
type Align int

const (
	// AlignAuto right-aligns a column whose cells are all numbers (or
	// empty) and left-aligns the rest.
	AlignAuto Align = iota
	AlignLeft
	AlignRight
)

// Column is one column of a table.
type Column struct {
	Name  string
	Align Align
}

// Col is a column aligned automatically (numbers right, text left).
func Col(name string) Column { return Column{Name: name} }

// NumCol is a right-aligned column.
func NumCol(name string) Column { return Column{Name: name, Align: AlignRight} }

// TextCol is a left-aligned column, for text that may look numeric (ids).
func TextCol(name string) Column { return Column{Name: name, Align: AlignLeft} }

// Table is a titled grid of cells. The title is printed above the table in
// text and markdown and omitted in CSV.
type Table struct {
	Title   string
	Columns []Column
	Rows    [][]Cell
	// Notes are printed under the table by text and markdown, one line
	// each: the footnotes of Marked and Dashed cells. CSV leaves them out
	// (its cells are plain values).
	Notes []string
}

// NewTable returns an empty table with the given columns.
func NewTable(title string, cols ...Column) *Table {
	return &Table{Title: title, Columns: cols}
}

// AddRow appends one row. Missing trailing cells are empty; extra cells are
// a programming error and panic, so a column/row mismatch never ships.
func (t *Table) AddRow(cells ...Cell) {
	if len(cells) > len(t.Columns) {
		panic("report: row has " + strconv.Itoa(len(cells)) + " cells, table " + strconv.Quote(t.Title) + " has " + strconv.Itoa(len(t.Columns)) + " columns")
	}
	row := make([]Cell, len(t.Columns))
	copy(row, cells)
	t.Rows = append(t.Rows, row)
}

// Header is the column names.
func (t *Table) Header() []string {
	h := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		h[i] = c.Name
	}
	return h
}

// rightAligned resolves each column's alignment.
func (t *Table) rightAligned() []bool {
	r := make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		switch c.Align {
		case AlignRight:
			r[i] = true
		case AlignLeft:
			r[i] = false
		default:
			num, any := true, false
			for _, row := range t.Rows {
				switch row[i].kind {
				case kindEmpty:
				case kindInt, kindFloat:
					any = true
				default:
					num = false
				}
			}
			r[i] = num && any
		}
	}
	return r
}

// strings renders every row; thousands selects "1,234" over "1234", and
// shown the cells as people read them (marks, dashes) over plain values.
func (t *Table) strings(thousands, shown bool) [][]string {
	out := make([][]string, len(t.Rows))
	for i, row := range t.Rows {
		out[i] = make([]string, len(row))
		for j, c := range row {
			if shown {
				out[i][j] = c.shown(thousands)
			} else {
				out[i][j] = c.Format(thousands)
			}
		}
	}
	return out
}

// sanitizeCell keeps a cell on one line in text and markdown output: line
// breaks and tabs become spaces, other control characters escapes
// (EscapeControls).
func sanitizeCell(s string) string {
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	}
	return EscapeControls(s)
}
