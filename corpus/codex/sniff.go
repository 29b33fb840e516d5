package codex

import "bytes"

// IsRecord recognises a Codex rollout by its first record (first is
// the record's line): a typed envelope around a payload.
func IsRecord(first []byte) bool {
	has := func(s string) bool { return bytes.Contains(first, []byte(s)) }
	return first[0] == '{' && has(`"payload":`) && (has(`"type":"session_meta"`) || has(`"type":"response_item"`) ||
		has(`"type":"turn_context"`) || has(`"type":"event_msg"`) || has(`"type":"compacted"`))
}
