// Package codex reads Codex CLI rollout files
// (~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl) into one session
// each, with its recorded compactions.
package codex
