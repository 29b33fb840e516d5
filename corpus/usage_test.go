package corpus

import "testing"

// TestUsageWrites: a log with a TTL split gives it; one without gives
// every write as a 5-minute write, whatever its reader left in the split
// fields (opencode's reader set CacheWriteTokens alone, and inspect and
// the cost agreement, which read the split, saw 0 writes).
func TestUsageWrites(t *testing.T) {
	for _, c := range []struct {
		name     string
		u        Usage
		w5m, w1h int
	}{
		{"no split", Usage{CacheWriteTokens: 300}, 300, 0},
		{"split", Usage{CacheWriteTokens: 300, CacheWrite5m: 100, CacheWrite1h: 200, Split: true}, 100, 200},
		{"split fields without Split", Usage{CacheWriteTokens: 300, CacheWrite1h: 300}, 300, 0},
		{"none", Usage{}, 0, 0},
	} {
		if w5m, w1h := c.u.Writes(); w5m != c.w5m || w1h != c.w1h {
			t.Errorf("%s: Writes() = %d, %d; want %d, %d", c.name, w5m, w1h, c.w5m, c.w1h)
		}
	}
}

// TestUsageAddKeepsSplit: totals over requests with and without a split
// carry the split of each, and their sum stays the writes' sum.
func TestUsageAddKeepsSplit(t *testing.T) {
	var tot Usage
	tot.Add(Usage{Requests: 1, CacheWriteTokens: 300})
	tot.Add(Usage{Requests: 1, CacheWriteTokens: 50, CacheWrite5m: 20, CacheWrite1h: 30, Split: true})
	tot.Add(Usage{CacheWriteTokens: 7})
	if w5m, w1h := tot.Writes(); w5m != 327 || w1h != 30 || tot.CacheWriteTokens != 357 || tot.Requests != 3 {
		t.Errorf("totals %+v: writes %d+%d; want 327+30 of 357 over 3 requests", tot, w5m, w1h)
	}
	// Totals a reader set without a split, then added to.
	tot = Usage{Requests: 2, CacheWriteTokens: 100}
	tot.Add(Usage{Requests: 1, CacheWriteTokens: 10, CacheWrite1h: 10, Split: true})
	if w5m, w1h := tot.Writes(); w5m != 100 || w1h != 10 {
		t.Errorf("totals %+v: writes %d+%d; want 100+10", tot, w5m, w1h)
	}
}
