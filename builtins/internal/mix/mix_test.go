package mix

import "testing"

// splitmix64's published first outputs for seed 0: Mix64 of the state
// before each increment.
func TestMix64SplitmixOutputs(t *testing.T) {
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for i, w := range want {
		if got := Mix64(uint64(i) * 0x9e3779b97f4a7c15); got != w {
			t.Errorf("output %d: %#x, want %#x", i, got, w)
		}
	}
}
