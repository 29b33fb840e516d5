package cache

import (
	"fmt"
	"strings"
	"testing"
)

// priceTable is a --prices file of n distinct anthropic rows, about 70
// bytes a row.
func priceTable(n int) string {
	var b strings.Builder
	b.WriteString("model,provider,input,cache_write_5m,cache_write_1h,cache_read,output,date,source\n")
	for i := range n {
		fmt.Fprintf(&b, "model-%d,anthropic,3,3.75,6,0.3,15,2026-11-30,row %d\n", i, i)
	}
	return b.String()
}

// BenchmarkParsePrices reads a price table of 1,000 and 10,000 rows (the
// latter about the MaxPriceFileBytes cap) and reports bytes allocated per
// row: the parser keeps the rows and little else, so B/row stays flat
// with n.
//
//	go test ./replay/cache -run '^$' -bench BenchmarkParsePrices -benchmem -benchtime 3x
func BenchmarkParsePrices(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		in := priceTable(n)
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rows, err := ParsePrices("p.csv", strings.NewReader(in))
				if err != nil || len(rows) != n {
					b.Fatalf("%d rows, %v", len(rows), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
		})
	}
}
