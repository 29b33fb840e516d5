package cache

// Block is one block of a prompt as the cache compares them: an identity
// (equal keys mean byte-identical content) and its size in tokens. A
// prompt is the overhead (tools, system prompt, whatever the log does not
// hold) as one block, then one block per message.
type Block struct {
	Key    uint64
	Tokens int
}

// Kept is the tokens of the longest common leading run of blocks of two
// prompts: what BreakPrefix can read from the previous request's entry.
// It costs O(length of that run), so a replay calls it only where the
// history changed (an append-only request keeps the whole previous
// prompt, which the replay knows without comparing).
func Kept(prev, next []Block) int {
	n := 0
	for i := 0; i < len(prev) && i < len(next); i++ {
		if prev[i].Key != next[i].Key {
			break
		}
		n += next[i].Tokens
	}
	return n
}

// Total is the tokens of a prompt.
func Total(bs []Block) int {
	n := 0
	for _, b := range bs {
		n += b.Tokens
	}
	return n
}
