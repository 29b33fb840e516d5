package report

import "testing"

// TestEscapeControls: control characters in a message quoting a log become Go
// escapes; anything else, tabs and non-ASCII text included, is unchanged.
func TestEscapeControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain message":                       "plain message",
		"tab\there, café ©":                   "tab\there, café ©",
		"id evil\n::error::x":                 `id evil\n::error::x`,
		"cr\r and esc \x1b[31m red":           `cr\r and esc \x1b[31m red`,
		"del \x7f, C1 csi \u009b2J, nul \x00": `del \x7f, C1 csi \u009b2J, nul \x00`,
	} {
		if got := EscapeControls(in); got != want {
			t.Errorf("EscapeControls(%q) = %q, want %q", in, got, want)
		}
	}
}
