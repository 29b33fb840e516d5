package jsonscan

import "time"

// Timestamp parses an RFC 3339 timestamp as the JSONL agents write them
// ("2026-01-05T09:00:00.123Z"); the zero time when it is absent or
// malformed, which the model reads as "not recorded".
func Timestamp(s string) time.Time {
	ts, _ := time.Parse(time.RFC3339Nano, s)
	return ts
}
