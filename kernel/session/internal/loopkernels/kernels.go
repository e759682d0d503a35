package loopkernels

// SumFor adds 0..n-1 in a three-clause loop.
func SumFor(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

// SumRange adds xs in a range loop.
func SumRange(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// Matmul multiplies two n×n matrices and returns the last element.
func Matmul(n int) float64 {
	a := make([]float64, n*n)
	b := make([]float64, n*n)
	c := make([]float64, n*n)
	for i := range a {
		a[i] = float64(i % 7)
		b[i] = float64(i % 5)
	}
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			aik := a[i*n+k]
			for j := 0; j < n; j++ {
				c[i*n+j] += aik * b[k*n+j]
			}
		}
	}
	return c[n*n-1]
}

// MapCount counts n keys modulo 1000 in a map.
func MapCount(n int) int {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		m[i%1000]++
	}
	return len(m)
}

// Fib is the recursive Fibonacci number of n.
func Fib(n int) int {
	if n < 2 {
		return n
	}
	return Fib(n-1) + Fib(n-2)
}

// Closures makes n closures in a loop, each capturing its iteration variable, and sums what they return.
func Closures(n int) int {
	var fs []func() int
	for i := 0; i < n; i++ {
		fs = append(fs, func() int { return i })
	}
	s := 0
	for _, f := range fs {
		s += f()
	}
	return s
}
