package ccg
import ("testing";"github.com/tracebook/tracebook/builtins/trace")
func BenchmarkSMGProf(b *testing.B) {
	tr := trace.GenerateSMG(trace.SMG2000Config(8, 1_000_000))
	b.ResetTimer()
	for range b.N {
		BuildTrace(tr, Lossless)
	}
}
