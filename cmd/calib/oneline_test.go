package main

import "testing"

// TestOneLine: control characters in a message quoting a log become Go
// escapes; anything else, tabs and non-ASCII text included, is unchanged.
func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain message":                       "plain message",
		"tab\there, café ©":                   "tab\there, café ©",
		"id evil\n::error::x":                 `id evil\n::error::x`,
		"cr\r and esc \x1b[31m red":           `cr\r and esc \x1b[31m red`,
		"del \x7f, C1 csi \u009b2J, nul \x00": `del \x7f, C1 csi \u009b2J, nul \x00`,
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
