package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/report"
)

// TestUSDNotes: rows sharing a coverage share a marker; two coverages get
// numbered markers in row order; a usd over none is "-"; a complete usd
// is left alone; and the footnotes name the models, a session without one
// as "no model named".
func TestUSDNotes(t *testing.T) {
	rows := []usdRow{
		{values: map[string]float64{"usd": 1, "unpriced_sessions": 3, "sessions": 5}, models: []string{"m"}},
		{values: map[string]float64{"usd": 2, "unpriced_sessions": 0, "sessions": 2}},
		{values: map[string]float64{"usd": 3, "unpriced_sessions": 2, "sessions": 5}, models: []string{"", "a"}},
		{values: map[string]float64{"usd": 4, "unpriced_sessions": 3, "sessions": 5}, models: []string{"m"}},
		{values: map[string]float64{"usd": 0, "unpriced_sessions": 2, "sessions": 2}, models: []string{"a", "b"}},
		{values: map[string]float64{"usd": 5, "unpriced_sessions": 1, "sessions": 3}, models: []string{""}},
	}
	n := newUSDNotes(rows)
	cols := []string{"billed_tokens", "usd"}
	var got []string
	for _, r := range rows {
		cells := []report.Cell{report.Int(1), report.Float(r.values["usd"], 4)}
		n.mark(cols, cells, r)
		got = append(got, cellShown(t, cells[1]))
	}
	want := []string{"1.0000*1", "2.0000", "3.0000*2", "4.0000*1", "-", "5.0000*3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("usd cells = %q, want %q", got, want)
	}
	wantNotes := []string{
		"*1 usd covers 2 of 5 sessions: the other 3 have no price (model m); give prices with --prices",
		// --prices cannot price a session that names no model: it was
		// all the note said.
		"*2 usd covers 3 of 5 sessions: the other 2 have no price (model a; no model named); give prices with --prices, and name the model of a session that names none with --set model=NAME",
		"*3 usd covers 2 of 3 sessions: the other 1 has no price (no model named); name its model with --set model=NAME",
		"- usd unknown: none of the 2 sessions has a price (models a, b); give prices with --prices",
	}
	if notes := n.notes(cols); !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes:\n got %q\nwant %q", notes, wantNotes)
	}
	if notes := n.notes([]string{"billed_tokens"}); notes != nil {
		t.Errorf("a table without usd has notes %q", notes)
	}
}

func TestCSVUSDColumns(t *testing.T) {
	for _, tt := range []struct {
		cols []string
		f    report.Format
		want []string
	}{
		{[]string{"tokens_sent", "usd", "peak_tokens"}, report.CSV, []string{"tokens_sent", "usd", "unpriced_sessions", "peak_tokens"}},
		{[]string{"usd", "unpriced_sessions"}, report.CSV, []string{"usd", "unpriced_sessions"}},
		{[]string{"tokens_sent", "usd"}, report.Text, []string{"tokens_sent", "usd"}},
		{[]string{"tokens_sent"}, report.CSV, []string{"tokens_sent"}},
		{nil, report.CSV, nil},
	} {
		if got := csvUSDColumns(tt.cols, tt.f); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("csvUSDColumns(%v, %s) = %v, want %v", tt.cols, tt.f, got, tt.want)
		}
	}
}

// cellShown is a cell as the text table prints it.
func cellShown(t *testing.T, c report.Cell) string {
	t.Helper()
	tb := report.NewTable("", report.NumCol("v"))
	tb.AddRow(c)
	var buf bytes.Buffer
	if err := report.WriteText(&buf, tb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
