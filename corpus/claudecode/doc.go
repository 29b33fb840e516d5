// Package claudecode reads Claude Code project logs
// (~/.claude/projects/<project>/<session>.jsonl and the subagent files
// beside them): the main thread and each sidechain run become sessions,
// compact boundaries and microcompacts become recorded compactions.
package claudecode
