package bench

import (
	"fmt"
	"slices"
	"testing"
)

// TestOrders: orders(k) are the k! orders of k measurements, each once,
// and in one pass through them each measurement is first as often as any
// other and comes right after each other one as often (within an order).
func TestOrders(t *testing.T) {
	fact := 1
	for k := 1; k <= 4; k++ {
		fact *= k
		os := orders(k)
		if len(os) != fact {
			t.Fatalf("orders(%d): %d orders, want %d", k, len(os), fact)
		}
		seen := map[string]bool{}
		first := make([]int, k)
		after := map[[2]int]int{}
		for _, o := range os {
			s := slices.Clone(o)
			slices.Sort(s)
			if !slices.Equal(s, seq(k)) {
				t.Fatalf("orders(%d): %v is not an order of 0..%d", k, o, k-1)
			}
			key := fmt.Sprint(o)
			if seen[key] {
				t.Fatalf("orders(%d): %v twice", k, o)
			}
			seen[key] = true
			first[o[0]]++
			for i := 1; i < len(o); i++ {
				after[[2]int{o[i-1], o[i]}]++
			}
		}
		for m := range first {
			if first[m] != fact/k {
				t.Errorf("orders(%d): %d first in %d orders, want %d", k, m, first[m], fact/k)
			}
		}
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				if a != b && after[[2]int{a, b}] != after[[2]int{0, 1}] {
					t.Errorf("orders(%d): %d right after %d in %d orders, %d after 0 in %d", k, b, a, after[[2]int{a, b}], 1, after[[2]int{0, 1}])
				}
			}
		}
	}
}

func seq(k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = i
	}
	return s
}
