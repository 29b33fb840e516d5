// Command calib replays recorded LLM-agent sessions through context-compaction
// policies. See README.md and `calib --help`.
package main

import "os"

func main() { os.Exit(Main()) }
