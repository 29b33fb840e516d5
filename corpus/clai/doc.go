// Package clai reads clai's workspace database (.clai/data.sqlite) without
// ever writing to it, and owns what is clai's own: the preamble texts its
// summaries and digests start with (preambles.go) and its JSON string
// escaping (serde_json), which policy's digest reproduces.
package clai
