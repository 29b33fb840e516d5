package claudecode

import "bytes"

// IsRecord recognises a Claude Code log by its first record
// (first is the record's line): every record of a session carries its
// parentUuid and sessionId, a resumed log may start with a summary or a
// file-history snapshot (its type anywhere in the record: a log whose
// keys were sorted since holds it last).
func IsRecord(first []byte) bool {
	has := func(s string) bool { return bytes.Contains(first, []byte(s)) }
	return first[0] == '{' && (has(`"parentUuid":`) || has(`"sessionId":`) || has(`"leafUuid":`) ||
		has(`"type":"file-history-snapshot"`) || bytes.HasPrefix(first, []byte(`{"type":"summary"`)))
}
