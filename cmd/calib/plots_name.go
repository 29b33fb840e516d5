package main

// sessionPlotName is the file name (without extension) of a plot about one
// session: the command, the session's id and what the plot shows
// ("replay-<id>-context"). Every per-session plot is named here, so that
// telling apart two inputs with the same session id is one change.
func sessionPlotName(command, id, what string) string {
	return command + "-" + id + "-" + what
}
