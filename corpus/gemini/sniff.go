package gemini

import "bytes"

// IsRecord recognises a Gemini CLI JSONL chat by a record (first is the
// record's line, starting at its opening bracket): the metadata line
// (sessionId and projectHash), a message record as the recorder writes it
// (id, timestamp, then a known type), or a $set / $rewindTo record. It must
// be tried before Claude Code's test, which also accepts "sessionId".
func IsRecord(first []byte) bool {
	if first[0] != '{' {
		return false
	}
	has := func(s string) bool { return bytes.Contains(first, []byte(s)) }
	switch {
	case has(`"sessionId":`) && has(`"projectHash":`):
		return true
	case bytes.HasPrefix(first, []byte(`{"$rewindTo":`)), bytes.HasPrefix(first, []byte(`{"$set":{`)):
		return true
	case bytes.HasPrefix(first, []byte(`{"id":"`)) && has(`","timestamp":"`):
		for _, t := range []string{"gemini", "user", "info", "error", "warning"} {
			if has(`","type":"` + t + `","content":`) {
				return true
			}
		}
	}
	return false
}

// IsConversation recognises the legacy single-document chat (head is the
// start of the file): JSON.stringify(conversation, null, 2) writes
// sessionId, projectHash, startTime, lastUpdated and messages first, each
// on its own line.
func IsConversation(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	return (has(`"sessionId": "`) && has(`"projectHash": "`)) || (has(`"sessionId":"`) && has(`"projectHash":"`) && has(`"messages":[`))
}
