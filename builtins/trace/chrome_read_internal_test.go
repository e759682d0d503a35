package trace

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// microsOracle is parseMicros by exact rational arithmetic: the value
// times 1000, rounded half away from zero.
func microsOracle(s string) (int64, bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, false
	}
	r.Mul(r, big.NewRat(1000, 1))
	neg := r.Sign() < 0
	r.Abs(r)
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if new(big.Int).Mul(m, big.NewInt(2)).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}

// TestParseMicros compares parseMicros with exact rational arithmetic on
// hand-picked and random decimal numbers of microseconds.
func TestParseMicros(t *testing.T) {
	cases := []string{"0", "1", "12.345", "12.3456", "12.3455", "-12.3455", "0.0005", "0.0004999", "1e3", "1.5E-3",
		"1700000000123456.789", "9223372036854775.807", "9223372036854775.808", "1e400", "-0.5e-3", "0.000", "123456789012345678901234567890e-20"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteByte('-')
		}
		fmt.Fprintf(&b, "%d", rng.Int64N(1<<uint(rng.IntN(60)+1)))
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&b, ".%0*d", rng.IntN(8)+1, rng.IntN(100000000)%int(pow10(rng.IntN(8)+1)))
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "e%d", rng.IntN(30)-15)
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if !validNumber([]byte(s)) {
			continue
		}
		got, ok := parseMicros([]byte(s))
		want, wok := microsOracle(s)
		if ok != wok || ok && got != want {
			t.Errorf("parseMicros(%q) = %d %v, want %d %v", s, got, ok, want, wok)
		}
	}
}

func pow10(n int) int64 {
	v := int64(1)
	for range n {
		v *= 10
	}
	return v
}

// TestValidNumber compares validNumber with encoding/json's grammar.
func TestValidNumber(t *testing.T) {
	for _, s := range []string{"0", "-0", "01", "1.", ".5", "1e", "1e+", "1e+5", "-", "1.5e-3", "+1", "00", "1.0.0", "1ee5", "0.0e0", "9", "-9.9E9"} {
		var v json.Number
		jsonOK := json.Unmarshal([]byte(s), &v) == nil
		if got := validNumber([]byte(s)); got != jsonOK {
			t.Errorf("validNumber(%q) = %v, encoding/json says %v", s, got, jsonOK)
		}
	}
}
