package corpus

import (
	"strconv"
	"strings"
)

// VersionAtLeast compares a dotted agent version (Meta.AgentVersion, such
// as "2.1.6") with min; an unknown version counts as the newest.
func VersionAtLeast(v, min string) bool {
	if v == "" {
		return true
	}
	a, b := strings.Split(v, "."), strings.Split(min, ".")
	for i := range b {
		var x int
		if i < len(a) {
			x, _ = strconv.Atoi(strings.TrimFunc(a[i], func(r rune) bool { return r < '0' || r > '9' }))
		}
		y, _ := strconv.Atoi(b[i])
		if x != y {
			return x > y
		}
	}
	return true
}
