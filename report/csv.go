package report

import (
	"encoding/csv"
	"io"
)

// WriteCSV writes each table as CSV (RFC 4180 via encoding/csv): a header
// record, then one record per row, numbers without thousands separators
// and without the marks or dashes of text and markdown (Table.Notes are
// not written).
// Several tables are separated by one empty line; a command whose CSV is
// meant for tools should print one table (or document the blocks).
//
// tablewriter.NewCSV is not used: it reads CSV into a table, it does not
// write it.
func WriteCSV(w io.Writer, tables ...*Table) error {
	cw := csv.NewWriter(w)
	for i, t := range tables {
		if i > 0 {
			cw.Flush()
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := cw.Write(t.Header()); err != nil {
			return err
		}
		if err := cw.WriteAll(t.strings(false, false)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
