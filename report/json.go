package report

import (
	"encoding/json"
	"io"
	"math"
)

// WriteJSON writes v as indented JSON (two spaces) followed by a newline,
// without HTML escaping (so "<", ">" and "&" in session texts stay
// readable). Commands marshal their own typed result structs: field order
// is the struct's and map keys are sorted by encoding/json, so the output
// is deterministic as long as slices are built in a deterministic order.
// Floats are written by encoding/json in their shortest exact form; a
// result that needs a fixed number of decimals should round before
// marshalling (see Round). NaN and infinities cannot be marshalled: use a
// pointer (null) for "no value".
//
// The bytes are exactly those of a json.Encoder with SetEscapeHTML(false)
// and SetIndent("", "  "), produced faster by an indenter (indent.go) that
// passes them on to w in chunks as it goes, rather than in one Write as the
// Encoder did: a failed write can leave part of the report written. A
// struct is encoded field by field and its slices element by element
// (writeFields), so that no buffer holds the whole report; a value that
// cannot be marshalled writes nothing if it is not such a struct, else
// the part before the failing field or element may be written.
func WriteJSON(w io.Writer, v any) error {
	iw := newIndentWriter(w)
	tw := trimNewline{iw}
	enc := json.NewEncoder(tw)
	enc.SetEscapeHTML(false)
	streamed, err := writeFields(iw, enc, v)
	if err == nil && !streamed {
		err = enc.Encode(v)
	}
	if err != nil {
		return err
	}
	if _, err := iw.Write([]byte{'\n'}); err != nil {
		return err
	}
	return iw.flush()
}

// tablesJSON is the json rendering of plain tables, for commands that
// have no typed result: {"tables":[{"title","columns","rows"}]} with cells
// as numbers or strings.
func tablesJSON(tables []*Table) any {
	type jt struct {
		Title   string   `json:"title"`
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	out := struct {
		Tables []jt `json:"tables"`
	}{Tables: []jt{}}
	for _, t := range tables {
		j := jt{Title: t.Title, Columns: t.Header(), Rows: [][]any{}}
		for _, row := range t.Rows {
			r := make([]any, len(row))
			for i, c := range row {
				switch c.kind {
				case kindInt:
					r[i] = c.i
				case kindFloat:
					if math.IsNaN(c.f) || math.IsInf(c.f, 0) {
						r[i] = nil // JSON has no NaN
					} else {
						r[i] = json.Number(FormatFloat(c.f, c.prec))
					}
				case kindStr:
					r[i] = c.s
				default:
					r[i] = nil
				}
			}
			j.Rows = append(j.Rows, r)
		}
		out.Tables = append(out.Tables, j)
	}
	return out
}
