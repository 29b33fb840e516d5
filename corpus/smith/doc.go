// Package smith reads smith's sessions (shared/specs/smith.md §1, §5): a
// transcript.jsonl (the raw history), a session.json (the compacted working
// history and metadata), a session folder holding either or both, or a
// sessions root with index.json. Transcript lines go through a fast decoder
// that unescapes strings in place (decode.go) and falls back to
// encoding/json for the exact error on anything unusual.
package smith
